// The CUDA planner (host C++, no CUDA headers). See docs/cuda.md.
//
// Candidates: for rank <= 1 a copy; when the leading dimension stays, a row copy; and tiles of
// shared memory built from an input run (input dims 0..a-1 whole, dim a blocked by ta) and an
// output run (output dims 0..c-1 whole, output dim c blocked by tc), for several run targets,
// each predicted by the analytic model (analytic.cpp) and ranked by the device's regression
// model where it has one (model.cpp).
#include "cuda/planner.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <tuple>
#include <utility>

#include "cuda/analytic.hpp"
#include "cuda/tile_shape.hpp"

namespace xpose::detail {
namespace {

using namespace cuda_tile;
using namespace analytic;

// Run options (dim, tile extent) along an order of dims, in a fixed array: planning makes them
// for every view of every plan, so no heap.
constexpr int kRunTargets =
    static_cast<int>(std::max(std::size(kTune.run_targets_bytes) + std::size(kTune.run_targets_elems),
                              std::size(kTune.narrow_run_targets_bytes))) +
    1;  // typed rows (tiled_choices)
struct RunOptions {
  int n = 0;
  std::pair<int, int64_t> at[kRunTargets + kMaxRank];
};

// For each target, the first dim where the run reaches it, blocked evenly; plus whole-dimension
// runs.
void run_options(const int64_t* ext, int rank, const int64_t* targets, int n_targets,
                 bool whole_dims, int64_t max_volume, RunOptions* out) {
  const auto add = [&](int d, int64_t t) {
    for (int i = 0; i < out->n; ++i)
      if (out->at[i].first == d && out->at[i].second == t) return;
    out->at[out->n++] = {d, t};
  };
  for (int i = 0; i < n_targets; ++i) {
    const int64_t target = targets[i];
    int64_t before = 1;
    int d = 0;
    while (d < rank - 1 && before * ext[d] < target) before *= ext[d++];
    int64_t t = std::min(ext[d], ceil_div(target, before));
    t = ceil_div(ext[d], ceil_div(ext[d], t));  // same block count, less edge waste
    add(d, t);
  }
  if (!whole_dims) return;
  int64_t before = 1;
  for (int d = 0; d < rank && before * ext[d] <= max_volume / 2; before *= ext[d++])
    if (before * ext[d] >= 16 && before <= 1024) add(d, ext[d]);
}

Schema classify(const Problem& p, const Tile& T) {
  if (p.perm[0] == 0) return Schema::FviSmall;
  if (!T.overlap) return Schema::Tiled;
  return (T.blocked[0] < 0 && T.blocked[1] < 0) ? Schema::Packed : Schema::PackedSplit;
}

bool allowed(const SchemaRequest* req, Schema s) {
  return !req || req->mask == 0 || (req->mask & static_cast<unsigned>(s)) != 0;
}

// Hands each tile candidate that `req` allows to sink(Choice&), input-run options outer,
// output-run options inner (the order ties keep); returns how many.
template <class Sink>
int tiled_choices(const Geometry& g, const DeviceInfo& dev, const SchemaRequest* req, Sink& sink,
                  bool last_resort = false) {
  const Problem& p = *g.p;
  // Elements of 1 and 2 bytes stage their tiles in the narrow kernel, the others in tiled.cu;
  // so do the dense conversions from them that narrow_typed.cu makes (narrow_converts: 1.19-1.41x
  // the typed tiles by geometric mean on cutt-random and fresh problems, H200, session 43,
  // docs/perf/typed-h100.md), and those from f32 that its loads make (narrow_loads: planned in
  // the output's elements, for_each_choice); other non-plain problems take tiled.cu (the narrow
  // kernel moves bytes of dense tensors).
  const bool narrow = g.esize <= 2 && (p.plain() || narrow_converts(p) || g.in_log2 > 0);
  int64_t in_targets[kRunTargets], out_targets[kRunTargets];
  int n_in = 0;
  if (narrow) {
    for (const int64_t b : kTune.narrow_run_targets_bytes) in_targets[n_in++] = b / g.esize;
  } else {
    for (const int64_t b : kTune.run_targets_bytes)
      in_targets[n_in++] = std::max<int64_t>(1, b / g.esize);
    for (const int64_t e : kTune.run_targets_elems) in_targets[n_in++] = e;
  }
  int n_out = n_in;
  std::copy(in_targets, in_targets + n_in, out_targets);
  const bool forced_in = req && req->in_run > 0, forced_out = req && req->out_run > 0;
  if (forced_in) in_targets[0] = req->in_run, n_in = 1;
  if (forced_out) out_targets[0] = req->out_run, n_out = 1;
  if (last_resort) {  // one element a tile: always fits
    in_targets[0] = out_targets[0] = 1;
    n_in = n_out = 1;
  }
  // Non-plain problems rank by the analytic model, which prefers big tiles (one block per SM);
  // two blocks per SM kept more loads in flight (typed cutt-random cases on the H100: tiles of
  // 4096 elements in blocks of 1024 threads ran at ~0.5 of copy): small tiles unless forced.
  const bool forced_big = req && req->threads > kTileThreadsSmall;
  const bool forced_small = req && req->threads > 0 && req->threads <= kTileThreadsSmall;
  const TileKind kind = narrow                                      ? TileKind::Narrow
                        : forced_small || (!p.plain() && !forced_big) ? TileKind::Small
                                                                      : TileKind::Big;
  const int64_t max_volume = max_tile_volume(kind, g.esize);
  int64_t out_ext[kMaxRank];
  for (int j = 0; j < p.rank; ++j) out_ext[j] = p.extent[p.perm[j]];
  // Non-plain problems (typed or strided) whose input dim 0 stays leading (FVI match) with long
  // rows: only tiles whose runs hold a whole row, or for inputs of 4 bytes and more the largest
  // even piece of one that a tile holds. The analytic model ranked runs cut to the targets (<= 1 KB) first, which ran
  // 1.03-1.9x slower (f32 -> bf16, rows of 1351-5000 elements: 0.51-0.55 of a copy in pieces of
  // 225-250, 0.77-0.83 in tiles of a row or of 1250-1800). Inputs of 1 and 2 bytes ran pieces of
  // 1250-1667 at 0.75-0.99x of pieces of 500 (session 16, docs/perf/typed-h100.md).
  int64_t row_run = 0;
  Tile T;
  if (!narrow && !p.plain() && p.perm[0] == 0 && p.extent[0] >= kTune.typed_row_tile_elems &&
      (g.esize >= 4 || p.extent[0] <= max_volume) && !forced_in && !forced_out && !last_resort) {
    const int64_t e = p.extent[0];
    row_run = ceil_div(e, ceil_div(e, max_volume));
    if (make_tile(g, 0, row_run, 0, row_run, &T, kind) && !wide_offsets(g, T)) {
      in_targets[n_in++] = row_run;
      out_targets[n_out++] = row_run;
    } else {
      row_run = 0;
    }
  }
  // Narrow tiles with one-dim runs, and typed tiles of the conversions narrow2d.cu makes, all
  // take narrow2d.cu's one tile: the first by the model's ranking of their own tiles stands for
  // them (not refitted for the kernel).
  Choice two_d;
  bool have_two_d = false;
  Choice best_narrow;  // the narrow tile predicted fastest (the packed tile's cost and terms)
  bool have_narrow = false;
  RunOptions ins, outs;
  run_options(p.extent.data(), p.rank, in_targets, n_in, !forced_in, max_volume, &ins);
  run_options(out_ext, p.rank, out_targets, n_out, !forced_out, max_volume, &outs);
  int count = 0;
  for (int i = 0; i < ins.n; ++i) {
    const auto [a, ta] = ins.at[i];
    for (int j = 0; j < outs.n; ++j) {
      const auto [c, tc] = outs.at[j];
      if (!make_tile(g, a, ta, c, tc, &T, kind)) continue;
      if (T.in_run < row_run || T.out_run < row_run) continue;
      // Typed tiles: 32-bit offsets (tiled.cu; the narrow kernel's are 64-bit).
      if (p.typed() && !narrow && wide_offsets(g, T)) continue;
      Choice ch;
      ch.schema = classify(p, T);
      if (!allowed(req, ch.schema)) continue;
      ch.a = a, ch.ta = ta, ch.c = c, ch.tc = tc;
      ch.in_run = T.in_run, ch.out_run = T.out_run;
      ch.tile_volume = T.volume, ch.num_tiles = T.num_tiles;
      if (narrow) {
        ch.padded = T.run_pad_dim >= 0;
        ch.raw_rows = T.raw_smem_bytes > 0 && T.raw_smem_bytes <= kNarrowMaxSmemBytes;
        cost_narrow(g, dev, T, &ch);
        if (!have_narrow || ch.predicted < best_narrow.predicted) best_narrow = ch;
        have_narrow = true;
      } else {
        ch.threads = req && req->threads ? req->threads : default_threads(T.volume);
        if (T.volume > static_cast<int64_t>(ch.threads) * kElemsPerThread) continue;
        cost_tiled(g, dev, T, req && !p.typed() ? req->stages : 0, &ch);
        if (req) ch.band = req->band;
      }
      if (!forced_in && !forced_out && !last_resort && ch.schema == Schema::Tiled &&
          takes_narrow2d(p, a, c)) {
        if (!have_two_d || ch.predicted < two_d.predicted) two_d = ch, have_two_d = true;
        continue;
      }
      sink(ch);
      ++count;
    }
  }
  // wide2d.cu's packed tile (plain 1- and 2-byte elements in 4-byte words) where both tensors
  // fit in L2: ranked at kPacked2dL2Factor of the best narrow tile's prediction (planner.hpp).
  if (have_narrow && packed2d_takes(p) && l2_resident(p, dev) && !forced_in && !forced_out &&
      !last_resort && allowed(req, Schema::Tiled)) {
    Choice w = best_narrow;  // its prediction and cost terms
    w.schema = Schema::Tiled;
    w.a = w.c = 0;
    w.wide2d = true;
    std::tie(w.ta, w.tc) = narrow2d_tile(p, true);
    w.factor = kPacked2dL2Factor;
    make_narrow2d(p, dev, &w);
    sink(w);
    ++count;
  }
  // thin2d.cu's tile (one run dim short, beside the other in one tensor): the best narrow tile's
  // prediction at kThin2dFactor, ranked first (planner.hpp).
  const int thin = forced_in || forced_out || last_resort ? 0 : thin2d_takes(p);
  if (have_narrow && thin && allowed(req, Schema::Tiled)) {
    Choice w = best_narrow;  // its prediction and cost terms
    w.schema = Schema::Tiled;
    w.a = w.c = 0;
    w.thin = thin;
    std::tie(w.ta, w.tc) = thin2d_tile(p, thin);
    make_narrow2d(p, dev, &w);
    sink(w);
    ++count;
  }
  // cells.cu's tiles (a closed prefix of dims: cell_dims), ranked first (planner.hpp).
  if (have_narrow && !forced_in && !forced_out && !last_resort && cell_dims(p) &&
      allowed(req, Schema::Tiled)) {
    Choice w = best_narrow;  // its prediction and cost terms
    w.schema = Schema::Tiled;
    w.a = w.c = 0;
    make_cells(p, dev, &w);
    sink(w);
    ++count;
  }
  if (have_two_d) {
    make_narrow2d(p, dev, &two_d);
    sink(two_d);
    ++count;
  }
  // wide2d.cu's tile (plain elements of 4 bytes and more): the tiled kernel's tile of the same
  // runs, costed as that tile and ranked at kWide2dL2Factor of it where the tensors fit in L2,
  // kWide2dFactor above (planner.hpp); the tiled kernel's own tiles stay candidates beside it.
  if (wide2d_takes(p) && !forced_in && !forced_out && !last_resort &&
      allowed(req, Schema::Tiled)) {
    const auto [ti, tj] = narrow2d_tile(p, true);
    if (make_tile(g, 0, ti, 0, tj, &T, kind) && classify(p, T) == Schema::Tiled) {
      Choice w;
      w.schema = Schema::Tiled;
      w.wide2d = true;
      w.ta = ti, w.tc = tj;
      w.in_run = T.in_run, w.out_run = T.out_run;
      w.tile_volume = T.volume, w.num_tiles = T.num_tiles;
      w.threads = kWide2dThreads;
      cost_tiled(g, dev, T, 0, &w);
      w.factor = l2_resident(p, dev) ? kWide2dL2Factor : kWide2dFactor;
      make_narrow2d(p, dev, &w);
      sink(w);
      ++count;
    }
  }
  return count;
}

// Small tensors, and plain ones of 4 bytes and more in L2 (direct_in_l2), take the direct kernel
// before any tile (enumerate_choices ranks it first and best_choice returns it without
// enumerating), unless a forced schema excludes it.
bool takes_direct(const Problem& p, const DeviceInfo& dev, const SchemaRequest* req) {
  return (direct_fits(p) || direct_in_l2(p, dev)) && allowed(req, Schema::Direct);
}

// Grid-stride blocks of the general kernel: enough to fill the device, few enough that every
// block loops (its launch is then independent of the size).
constexpr int64_t kGeneralBlocksPerSm = 16;

Choice direct_choice(const Geometry& g, const DeviceInfo& dev) {
  Choice c;
  c.schema = Schema::Direct;
  cost_direct(g, dev, &c);
  if (!g.p->plain()) {  // the general kernel: any size, grid-stride
    c.general = true;
    c.threads = kGeneralThreads;
    c.grid = static_cast<unsigned>(std::clamp<int64_t>(
        ceil_div(g.p->volume, kGeneralThreads), 1, kGeneralBlocksPerSm * std::max(dev.sms, 1)));
  }
  return c;
}

// Typed problems (strided or not) take rows (rows_typed.cu) where dim 0 stays first and is
// contiguous in both tensors: every problem of normalized rank <= 1 (conversions, scaled
// copies: the general kernel took them at 0.22-0.66 of a copy), and rows of at least
// kRowsMinBytes of input (or any, forced); with beta, rows of kRowsMinBytesBeta and no
// conversion (conversions load their old outputs where they are used: such rows ran 0.94x of
// the tiles). On the H200, conversions' rows of 1-1.5 KB ran 0.96x of the whole-row tiles they
// would replace (geometric mean), of 1.5-2 KB 1.03-1.24x, from 2 KB 1.2-1.6x
// (docs/perf/typed-h100.md, session 42). Strided plain problems keep their tiles: rows.cu's
// rows, off 16 bytes there, ran 0.85-0.93x of them.
constexpr int64_t kRowsMinBytes = 1536;
// Beta without a conversion: rows of 1.5-8 KB ran 0.87-1.2x of the tiles (three streams; the
// kernel's 110 registers leave two blocks an SM), from 8 KB 1.07-1.17x by geometric mean.
constexpr int64_t kRowsMinBytesBeta = 8192;

bool rows_take(const Problem& p, const SchemaRequest* req) {
  if (!p.typed() ||
      (p.rank >= 1 && (p.perm[0] != 0 || p.input().stride[0] != 1 || p.output_strides()[0] != 1)))
    return false;
  if (!allowed(req, Schema::Rows)) return false;
  const bool forced = req && req->mask != 0;
  if (forced || p.rank <= 1) return true;
  const int64_t row = p.extent[0] * static_cast<int64_t>(p.elem_size);
  if (!p.reads_out()) return row >= kRowsMinBytes;
  return !p.converts() && row >= kRowsMinBytesBeta;
}

// Whether the conversions the narrow kernel's loads make (narrow_loads) take its tiles: all but 2D
// problems in L2, which keep the typed tiles (there the narrow tiles, few and large, ran
// 0.69-1.00x, 0.90 by geometric mean, on the 7 such of 24 fresh-middle problems graph-replayed,
// where those of higher rank ran 0.96-1.57x; above L2, 2D ones ran 0.96-1.12x; H200, session 44,
// docs/perf/typed-h100.md).
bool takes_narrow_loads(const Problem& p, const DeviceInfo& dev) {
  return narrow_loads(p) && !(p.rank == 2 && l2_resident(p, dev));
}

// Hands every candidate to sink(Choice&), analytic predictions, in the order ties rank.
// `no_direct`: the caller found that takes_direct does not hold (best_choice asks first;
// direct_in_l2's sector count is not free).
template <class Sink>
void for_each_choice(const Geometry& g, const DeviceInfo& dev, const SchemaRequest* req,
                     Sink& sink, bool no_direct = false) {
  const Problem& p = *g.p;
  if (p.is_copy()) {
    Choice c;
    c.schema = Schema::Copy;
    if (allowed(req, c.schema)) {
      cost_rows(g, dev, &c);
      sink(c);
    }
    return;
  }
  if (!p.plain()) {  // rows by rule, else tiles, else the general kernel (any rank and size)
    if (rows_take(p, req)) {
      Choice c;
      c.schema = Schema::Rows;
      cost_rows(g, dev, &c);
      sink(c);
      return;
    }
    // The general kernel for small tensors (as direct), rank < 2, a forced 'direct', or where
    // no tile fits: its scattered accesses ran at 0.1-0.25 of copy on large tensors, which
    // the analytic model predicts well above that.
    const bool forced = req && req->mask == static_cast<unsigned>(Schema::Direct);
    const int tiles =
        p.rank >= 2 && !forced
            ? tiled_choices(takes_narrow_loads(p, dev) ? narrow_geometry(p) : g, dev, req, sink)
            : 0;
    if (allowed(req, Schema::Direct) && (tiles == 0 || direct_fits(p))) {
      Choice c = direct_choice(g, dev);
      sink(c);
    }
    return;
  }
  if (!no_direct && takes_direct(p, dev, req)) {
    Choice c = direct_choice(g, dev);
    sink(c);
  }
  if (p.perm[0] == 0 && allowed(req, Schema::Rows)) {
    Choice c;
    c.schema = Schema::Rows;
    cost_rows(g, dev, &c);
    sink(c);
  }
  if (tiled_choices(g, dev, req, sink) == 0 && (!req || (req->in_run == 0 && req->out_run == 0)))
    tiled_choices(g, dev, req, sink, true);
}

// The regression that ranks the candidates of `p` on `dev`: the device's, when asked for and p's
// size lies in its calibrated range; null: the analytic model ranks.
const Regression* ranking_model(const Problem& p, const DeviceInfo& dev, bool use_regression) {
  // The regression was fitted on the classic tile kernel and plain problems: narrow tiles and
  // non-plain problems rank by the analytic model.
  const Regression* model = use_regression && p.elem_size > 2 && p.plain()
                                ? process_models().find(dev.arch, dev.name)
                                : nullptr;
  return model && model->covers(static_cast<double>(p.bytes())) ? model : nullptr;
}

// The regression whose narrow trees rank the analytic model's best candidates of `p` (plain, of
// 1- or 2-byte elements, or a conversion from them that the narrow kernel makes: ranked as its
// plain twin's tiles) on `dev`, when asked for and fitted on tensors of p's size; else null.
const Regression* narrow_model(const Problem& p, const DeviceInfo& dev, bool use_regression) {
  const bool narrow =
      (p.elem_size <= 2 && (p.plain() || narrow_converts(p))) || takes_narrow_loads(p, dev);
  if (!use_regression || !narrow) return nullptr;
  const Regression* model = process_models().find(dev.arch, dev.name);
  // Converting loads: the size of the plain twin the trees rank (the output's elements).
  const int64_t bytes = narrow_loads(p) ? p.out_bytes() : p.bytes();
  return model && model->covers_narrow(static_cast<double>(bytes)) ? model : nullptr;
}

// Narrow tiles predicted alike (a tile that is memory-bound as quads and as gathered writes,
// its runs disjoint or not) rank quads first where their output runs hold kQuadTieBytes or
// more: on 94 fresh 1- and 2-byte problems where the two tied, quads with output runs of 64
// bytes and more ran 1.09-1.14x faster by geometric mean, shorter ones 0.84-0.95x (each run's
// partial words are stored on their own; docs/perf/narrow-h100.md, session 22).
constexpr int64_t kQuadTieBytes = 64;

bool quads_first(const Choice& c, int64_t out_esize) {
  return c.narrow && !c.narrow2d && c.schema == Schema::Tiled &&
         c.out_run * out_esize >= kQuadTieBytes;
}

// narrow.cu's gathered tiles (disjoint runs are quads), and their rank among them by models
// that do not know raw rows (planner.hpp kNarrowRawRowsFactor).
bool gathered(const Choice& c) {
  return c.narrow && !c.narrow2d && !c.cells && c.schema != Schema::Tiled;
}
double gathered_rank(const Choice& c) {
  return c.predicted * (c.raw_rows ? kNarrowRawRowsFactor : 1.0);
}

// Where the first of the ranked candidates is a gathered tile, the gathered one of the first
// `n` with the lowest gathered_rank (ties: the first) moves to the front.
void prefer_raw_rows(std::vector<Choice>* out, size_t n) {
  if (out->empty() || !gathered(out->front())) return;
  size_t best = 0;
  for (size_t i = 1; i < std::min(n, out->size()); ++i)
    if (gathered((*out)[i]) && gathered_rank((*out)[i]) < gathered_rank((*out)[best])) best = i;
  std::rotate(out->begin(), out->begin() + static_cast<std::ptrdiff_t>(best),
              out->begin() + static_cast<std::ptrdiff_t>(best) + 1);
}

// Candidates that rank first, outside every model's ranking, where they exist: the cells', then
// thin2d's tile (0: ranked by the models).
int lead_rank(const Choice& c) { return c.cells ? 2 : c.thin ? 1 : 0; }

// The ranking of analytic predictions: lower first, ties as above.
bool ranks_before(const Choice& x, const Choice& y, int64_t out_esize) {
  if (x.predicted != y.predicted) return x.predicted < y.predicted;
  return quads_first(x, out_esize) && !quads_first(y, out_esize);
}

}  // namespace

void enumerate_choices(const Problem& p, const DeviceInfo& dev, const SchemaRequest* req,
                       std::vector<Choice>* out, bool use_regression) {
  out->clear();
  const Regression* model = ranking_model(p, dev, use_regression);
  const Geometry g = geometry(p);
  const auto push = [out](const Choice& c) { out->push_back(c); };
  for_each_choice(g, dev, req, push);
  // The cells' candidate, else thin2d's tile, where there is one, ranks first (planner.hpp
  // kCellFactor, kThin2dFactor), outside the models' rankings (then the direct kernel's rule).
  const auto lead = std::max_element(
      out->begin(), out->end(),
      [](const Choice& x, const Choice& y) { return lead_rank(x) < lead_rank(y); });
  Choice first;
  const bool have_lead = lead != out->end() && lead_rank(*lead) > 0;
  if (have_lead) first = *lead, out->erase(lead);
  if (model) {
    rank_by_regression(*model, out);
  } else {
    std::stable_sort(out->begin(), out->end(), [&g](const Choice& x, const Choice& y) {
      return ranks_before(x, y, g.out_esize);
    });
    if (const Regression* narrow = narrow_model(p, dev, use_regression)) {
      rank_narrow(*narrow, out);
      if (!narrow->narrow_knows_raw()) prefer_raw_rows(out, kScreened);  // those it ranked
    } else {
      prefer_raw_rows(out, out->size());
    }
  }
  if (have_lead) out->insert(out->begin(), first);
  if (p.is_copy()) return;
  // Tensors up to ~1 MB and plain ones in L2 (direct_in_l2): the direct kernel, whatever a
  // model fitted on larger ones says (larger non-plain ones rank it by its prediction).
  const auto direct = std::find_if(out->begin(), out->end(),
                                   [](const Choice& c) { return is_direct(c.schema); });
  // (for_each_choice offers a plain problem's direct candidate only where takes_direct holds.)
  if (direct != out->end() && (p.plain() || direct_fits(p))) {
    *direct = direct_choice(g, dev);  // the analytic prediction (best_choice's), not a model's
    std::rotate(out->begin(), direct, direct + 1);
    return;
  }
  // Very large tensors: the best tiled choice walked in V1BF bands too, ranked just behind it
  // (the model has no TLB term), so that measure planning weighs the two orders.
  if (!out->empty() && out->front().schema != Schema::Rows && !is_direct(out->front().schema) &&
      out->front().band == 0 &&
      p.bytes() >= kTune.band_min_bytes && !(req && req->band > 0)) {
    Choice b = out->front();
    b.band = kTune.band_width;
    b.predicted *= 1.001;
    out->insert(out->begin() + 1, b);
  }
}

bool best_choice(const Problem& p, const DeviceInfo& dev, const SchemaRequest* req,
                 Choice* best, bool use_regression) {
  if (takes_direct(p, dev, req)) {  // enumerate_choices' first
    *best = direct_choice(geometry(p), dev);
    return true;
  }
  const Regression* model = ranking_model(p, dev, use_regression);
  const Regression* narrow = model ? nullptr : narrow_model(p, dev, use_regression);
  // The cells' candidate or thin2d's tile, where there is one: enumerate_choices' first.
  if (cell_dims(p) || thin2d_takes(p)) {
    bool found = false;
    const auto keep = [&](Choice& c) {
      if (lead_rank(c) > (found ? lead_rank(*best) : 0)) *best = c, found = true;
    };
    for_each_choice(geometry(p), dev, req, keep, /*no_direct=*/true);
    if (found) return true;
  }
  if (narrow) {  // rank_narrow's first: the analytic order's kScreened best, by the trees
    const Geometry g = geometry(p);
    std::array<Choice, kScreened> top;
    int n = 0;
    const auto keep = [&](Choice& c) {
      if (n == kScreened && !ranks_before(c, top[n - 1], g.out_esize)) return;
      int i = n < kScreened ? n++ : n - 1;
      for (; i > 0 && ranks_before(c, top[i - 1], g.out_esize); --i) top[i] = top[i - 1];
      top[i] = c;
    };
    for_each_choice(g, dev, req, keep, /*no_direct=*/true);
    for (int i = 0; i < n; ++i) {
      top[i].predicted = narrow->predict_narrow(top[i]);
      if (i == 0 || top[i].predicted < best->predicted) *best = top[i];
    }
    if (gathered(*best) && !narrow->narrow_knows_raw())  // prefer_raw_rows
      for (int i = 0; i < n; ++i)
        if (gathered(top[i]) && gathered_rank(top[i]) < gathered_rank(*best)) *best = top[i];
    best->model = narrow;
    return n > 0;
  }
  if (!model) {  // the first of the lowest prediction: what the stable sort puts first
    bool found = false, any_gathered = false;
    Choice first_gathered;  // prefer_raw_rows' choice among the gathered tiles
    const Geometry g = geometry(p);
    const auto keep = [&](Choice& c) {
      if (!found || ranks_before(c, *best, g.out_esize)) *best = c;
      found = true;
      if (gathered(c) && (!any_gathered || gathered_rank(c) < gathered_rank(first_gathered)))
        first_gathered = c, any_gathered = true;
    };
    for_each_choice(g, dev, req, keep, /*no_direct=*/true);
    if (found && gathered(*best)) *best = first_gathered;
    return found;
  }
  // rank_by_regression's first: the quadratic's kScreened best in its order (ties: the first
  // offered), then the first of the blend's lowest among them. `order` lists slots: the kept
  // candidates' by the quadratic, then the spare one, which the next offer takes.
  std::array<Choice, kScreened + 1> slot;
  std::array<double, kScreened + 1> quad{};
  std::array<int, kScreened + 1> order{};
  for (int i = 0; i <= kScreened; ++i) order[i] = i;
  int n = 0;
  const auto keep = [&](Choice& c) {
    const double q = model->screen(c);
    if (n == kScreened && !(q < quad[order[n - 1]])) return;
    const int s = order[n];
    slot[s] = c, quad[s] = q;
    int i = n;
    for (; i > 0 && q < quad[order[i - 1]]; --i) order[i] = order[i - 1];
    order[i] = s;
    if (n < kScreened) ++n;  // else the last kept moved to the spare position: dropped
  };
  for_each_choice(geometry(p), dev, req, keep, /*no_direct=*/true);
  for (int i = 0; i < n; ++i) {
    const double blend = model->predict(slot[order[i]]);
    if (i == 0 || blend < best->predicted) *best = slot[order[i]], best->predicted = blend;
  }
  best->model = model;
  return n > 0;
}

namespace {

// Output dims fastest first, each with its input and output strides (64-bit: any problem).
void build_general(const Problem& p, GeneralParams* gp) {
  const Extents s_in = p.input().stride, s_out = p.output_strides();
  gp->volume = p.volume;
  gp->log2_elem = log2_of(p.elem_size);
  gp->op = elem_op(p);
  gp->n_dims = p.rank;
  for (int j = 0; j < p.rank; ++j) {
    const int k = p.perm[j];
    gp->dim[j].extent = FastDiv64::make(static_cast<uint64_t>(p.extent[k]));
    gp->dim[j].in_stride = s_in[k];
    gp->dim[j].out_stride = s_out[k];
  }
}

void build_rows(const Problem& p, RowParams* r) {
  const auto esize = static_cast<int64_t>(p.elem_size);
  const auto out_esize = static_cast<int64_t>(p.out_elem());
  const Layout in = p.input();
  const Extents s_out = p.output_strides();
  const int64_t n = p.rank <= 1 ? p.volume : p.extent[0];
  r->row_bytes = n * esize;
  r->op = elem_op(p);
  int64_t chunks = ceil_div(r->row_bytes, kRowChunkBytes);
  if (p.typed()) {
    // Even chunks of groups of w elements, a row's first group starting up to a group before it
    // (rows_typed.cu): at most n / w + 2 groups (no overflow at any n).
    const int64_t w =
        typed_row_chunk_bytes(static_cast<int>(esize), static_cast<int>(out_esize)) / esize;
    const int64_t groups = n / w + 2;
    chunks = ceil_div(groups, int64_t{kTypedRowChunkGroups});
    r->chunk_groups = static_cast<int32_t>(ceil_div(ceil_div(groups, chunks), 32) * 32);
  }
  r->chunks = FastDiv64::make(static_cast<uint64_t>(chunks));
  r->items = p.volume / n * chunks;
  r->words = ceil_div(r->row_bytes, 16) + 1;
  r->words_div = FastDiv64::make(static_cast<uint64_t>(r->words));
  r->in_begin = p.strided ? p.in_lo * esize : 0;
  r->in_end = p.strided ? (p.in_hi + 1) * esize : p.bytes();
  r->n_dims = 0;
  for (int k = 1; k < p.rank; ++k) {
    RowDim& d = r->dim[r->n_dims++];
    d.extent = FastDiv64::make(static_cast<uint64_t>(p.extent[k]));
    d.in_stride = in.stride[k] * esize;
    d.out_stride = s_out[k] * out_esize;
  }
  // Long rows (not a copy's: n_dims > 0) a warp per chunk of their words (at most `words`, a
  // row that starts 15 bytes into a word), in 32-bit word offsets.
  if (!p.typed() && r->n_dims > 0 && r->words <= INT32_MAX &&
      realign_long(r->row_bytes, p.bytes())) {
    const int64_t word_chunks = ceil_div(r->words, int64_t{kRealignChunkWords});
    r->word_chunks = FastDiv64::make(static_cast<uint64_t>(word_chunks));
    r->chunk_words = static_cast<int32_t>(ceil_div(r->words, word_chunks));
  }
}

// The step of a phase's positions (TileStep) for blocks of `threads` over the walk `dims`:
// linear when `threads` = P x r with P the volume of the first m dims and r moving dim m by
// r per position without a carry: positions x r <= its extent (positions: those any thread
// has in use), or dim m is the last (a position past its extent is past the tile volume, and
// not in use).
TileStep tile_step(const TileDim* dims, int n, int64_t volume, int64_t threads) {
  TileStep s;
  const int64_t positions = std::min<int64_t>(kElemsPerThread, (volume + threads - 1) / threads);
  if (positions <= 1) {
    s.linear = 1;  // every thread has one position at most: no step is ever taken
    return s;
  }
  int64_t prefix = 1;
  for (int k = 0; k < n && threads % prefix == 0; ++k) {
    const int64_t r = threads / prefix;
    const auto extent = static_cast<int64_t>(dims[k].extent.d);
    if (r < extent) {
      if (positions * r > extent && k + 1 < n) break;
      s.global = r * dims[k].stride;
      s.shared = static_cast<int32_t>(r * dims[k].smem_stride);
      s.coord = dims[k].slot < 0 ? 0u : static_cast<uint32_t>(r) << (16 * dims[k].slot);
      s.linear = 1;
      break;
    }
    prefix *= extent;
  }
  return s;
}

// Typed tiles of 1- and 2-byte elements read groups of F = 4 / esize elements along input dim 0
// (params.hpp group_slot), moved by cp.async and pipelined like wide elements (one element per
// access kept 2-4 bytes in flight per position), where every offset the read phase forms is a
// multiple of F: dim 0 contiguous with a tile extent and an extent (edge tiles) of multiples of
// F, every other input stride (tile dims and grid steps) and shared-memory stride too.
void group_reads(const Problem& p, const Geometry& g, const Tile& T, const int* slot,
                 int threads, TiledParams* tp) {
  const int64_t F = 4 / g.esize;
  if (g.esize > 2 || g.s_in[0] != 1 || T.t[0] % F != 0 || p.extent[0] % F != 0) return;
  for (int k = 1; k < p.rank; ++k)
    if (g.s_in[k] % F != 0) return;
  if (tp->in[0].smem_stride != 1) return;  // in[0] is dim 0: its tile extent is F or more
  for (int i = 1; i < tp->n_in; ++i)
    if (tp->in[i].smem_stride % F != 0) return;
  tp->in[0].extent = FastDiv32::make(static_cast<uint32_t>(T.t[0] / F));
  for (int i = 1; i < tp->n_in; ++i) {
    tp->in[i].smem_stride /= static_cast<int32_t>(F);
    tp->in[i].stride /= F;
  }
  tp->read_volume = static_cast<int32_t>(T.volume / F);
  tp->in_step = tile_step(tp->in, tp->n_in, tp->read_volume, threads);
  for (int j = 0; j < tp->n_grid; ++j) tp->grid[j].in_step /= F;
  tp->group_slot = slot[0];
}

// The write phase's counterpart (params.hpp out_group_slot): groups of F = 4 / out_esize
// elements along the output's dim 0, stored as one word, where every output offset is a
// multiple of F.
void group_writes(const Problem& p, const Geometry& g, const Tile& T, const int* slot,
                  int threads, TiledParams* tp) {
  const int64_t F = 4 / g.out_esize;
  const int k0 = p.perm[0];
  if (g.out_esize > 2 || g.s_out[k0] != 1 || T.t[k0] % F != 0 || p.extent[k0] % F != 0) return;
  for (int k = 0; k < p.rank; ++k)
    if (g.s_out[k] % F != 0 && k != k0) return;
  // out[0] is dim k0 (its tile extent is F or more): its positions step F elements.
  tp->out_group_smem = tp->out[0].smem_stride;
  tp->out[0].extent = FastDiv32::make(static_cast<uint32_t>(T.t[k0] / F));
  tp->out[0].smem_stride *= static_cast<int32_t>(F);
  for (int i = 1; i < tp->n_out; ++i) tp->out[i].stride /= F;
  tp->write_volume = static_cast<int32_t>(T.volume / F);
  tp->out_step = tile_step(tp->out, tp->n_out, tp->write_volume, threads);
  for (int j = 0; j < tp->n_grid; ++j) tp->grid[j].out_step /= F;
  tp->out_group_slot = slot[k0];
}

// Typed tiles' pipeline (tile_kernel.cuh): inputs of 4 bytes and more, or read in groups, by
// cp.async. With beta, the old outputs are staged beside the buffers where the write phase's
// accesses are words (grouped) or whole elements of 4 bytes and more, and the pipeline is
// kTypedDeepStages deep, both within kTypedBlockSmemBytes: read in the write phase, their
// latency was exposed in every tile (f32 beta = 1 on the H100: median 0.69 -> 0.83 of copy,
// docs/perf/typed-h100.md). Without beta the depth is 2: 4 ran 3-5 % slower there (the typed
// tiles are not bound by the loads in flight). Returns the block's shared memory.
unsigned typed_pipeline(const Geometry& g, int threads, TiledParams* tp) {
  const int64_t buffer = int64_t{tp->buffer_elems} * g.esize;
  if (g.esize < 4 && tp->group_slot == kNoGroup) {  // reads through registers
    tp->stages = 1;
    return static_cast<unsigned>(buffer);
  }
  tp->stages = 2;
  int64_t old = 0;
  if (tp->op.accumulate && (g.out_esize >= 4 || tp->out_group_slot != kNoGroup))
    old = int64_t{kElemsPerThread} * threads * std::max(g.out_esize, 4);
  if (old > 0 && 2 * (buffer + old) <= kTypedBlockSmemBytes) {
    if (kTypedDeepStages * (buffer + old) <= kTypedBlockSmemBytes) tp->stages = kTypedDeepStages;
    tp->old_offset = static_cast<int32_t>(tp->stages * buffer);
  } else {
    old = 0;
  }
  return static_cast<unsigned>(tp->stages * (buffer + old));
}

void build_tiled(const Problem& p, const Choice& c, KernelSpec* spec) {
  const Geometry g = geometry(p);
  Tile T;
  make_tile(g, c.a, c.ta, c.c, c.tc, &T);
  TiledParams& tp = spec->tiled;  // value-initialized by build_spec
  tp.volume = static_cast<int32_t>(T.volume);
  tp.num_tiles = T.num_tiles;
  int slot[kMaxRank];
  for (int k = 0; k < p.rank; ++k) slot[k] = -1;
  for (int s = 0; s < 2; ++s)
    if (T.blocked[s] >= 0) {
      slot[T.blocked[s]] = s;
      tp.slot_tile[s] = static_cast<int32_t>(T.t[T.blocked[s]]);
    }
  // Shared memory: the input run first (input order), then rows of `pitch` elements holding
  // the other tile dims in output order, so that the write phase's fastest dim has the odd
  // pitch as stride (conflict-free).
  int32_t smem_stride[kMaxRank] = {};
  int64_t s = 1;
  for (int k = 0; k <= c.a; ++k)
    if (T.t[k] > 1) {
      if (k == T.run_pad_dim) ++s;  // odd stride for the output-fastest dim (tile_shape.hpp)
      smem_stride[k] = static_cast<int32_t>(s);
      s *= T.t[k];
    }
  s = T.pitch;
  for (int j = 0; j < p.rank; ++j) {
    const int k = p.perm[j];
    if (k <= c.a || T.t[k] <= 1) continue;
    smem_stride[k] = static_cast<int32_t>(s);
    s *= T.t[k];
  }
  const auto tile_dim = [&](int k, int64_t stride) {
    TileDim d;
    d.extent = FastDiv32::make(static_cast<uint32_t>(T.t[k]));
    d.smem_stride = smem_stride[k];
    d.slot = slot[k];
    d.stride = stride;
    return d;
  };
  for (int k = 0; k < p.rank; ++k)
    if (T.t[k] > 1) tp.in[tp.n_in++] = tile_dim(k, g.s_in[k]);
  for (int j = 0; j < p.rank; ++j)
    if (T.t[p.perm[j]] > 1) tp.out[tp.n_out++] = tile_dim(p.perm[j], g.s_out[p.perm[j]]);
  tp.in_step = tile_step(tp.in, tp.n_in, T.volume, c.threads);
  tp.out_step = tile_step(tp.out, tp.n_out, T.volume, c.threads);
  tp.n_grid = walk_grid(g, T, slot, tp.grid);
  if (c.band > 1 && tp.n_grid >= 2 && tp.grid[0].count.d > static_cast<uint64_t>(c.band) &&
      tp.num_tiles < INT32_MAX) {
    const auto g0 = static_cast<uint32_t>(tp.grid[0].count.d);
    const auto g1 = static_cast<uint32_t>(tp.grid[1].count.d);
    const auto w = static_cast<uint32_t>(c.band);
    const uint32_t last = g0 - (g0 - 1) / w * w;
    tp.band_plane = FastDiv32::make(g0 * g1);
    tp.band_span = FastDiv32::make(w * g1);
    tp.band_w = FastDiv32::make(w);
    tp.band_last = FastDiv32::make(last);
    tp.band_last_start = (g0 - last) * g1;
    tp.band_g0 = g0;
  }
  tp.read_volume = tp.write_volume = tp.volume;
  if (p.typed() && !c.ungrouped) {
    group_reads(p, g, T, slot, c.threads, &tp);
    group_writes(p, g, T, slot, c.threads, &tp);
  }
  tp.buffer_elems = static_cast<int32_t>(buffer_bytes(T.smem_elems, g.esize) / g.esize);
  tp.op = elem_op(p);
  tp.wide = wide_offsets(g, T) ? 1 : 0;
  if (p.typed()) {
    spec->smem_bytes = typed_pipeline(g, c.threads, &tp);
    spec->choice.stages = tp.stages;
    return;
  }
  tp.stages = std::max(c.stages, g.esize >= 4 ? 2 : 1);
  spec->smem_bytes = static_cast<unsigned>(tp.buffer_elems * g.esize * tp.stages);
}

// Output dims fastest first, each with its input stride (direct_fits: offsets fit 32 bits).
void build_direct(const Problem& p, DirectParams* d) {
  int64_t s_in[kMaxRank];
  int64_t s = 1;
  for (int k = 0; k < p.rank; ++k) s_in[k] = s, s *= p.extent[k];
  d->volume = static_cast<int32_t>(p.volume);
  d->n_dims = p.rank;
  for (int j = 0; j < p.rank; ++j) {
    d->dim[j].extent = FastDiv32::make(static_cast<uint32_t>(p.extent[p.perm[j]]));
    d->dim[j].in_stride = static_cast<int32_t>(s_in[p.perm[j]]);
  }
}

}  // namespace

void build_spec(const Problem& p, const Choice& c, KernelSpec* spec) {
  spec->choice = c;
  spec->log2_elem = log2_of(p.elem_size);
  spec->smem_bytes = 0;
  if (c.general) {
    spec->general = GeneralParams{};
    build_general(p, &spec->general);
  } else if (is_direct(c.schema)) {
    spec->direct = DirectParams{};
    build_direct(p, &spec->direct);
  } else if (is_rows(c.schema)) {
    spec->rows = RowParams{};  // the union's member in use from here on
    build_rows(p, &spec->rows);
  } else if (c.cells) {
    spec->cells = CellParams{};
    build_cells(p, c, &spec->cells);
    spec->smem_bytes = static_cast<unsigned>(cell_smem_bytes(spec->cells));
  } else if (c.narrow2d) {
    spec->narrow2d = Narrow2dParams{};
    build_narrow2d(p, c, &spec->narrow2d);
    const int out_es = static_cast<int>(p.out_elem());  // wide2d.cu: static shared memory
    const int out_bytes =
        narrow2d_short_tiles(p) ? narrow2d_out_bytes(c.out_run) : kNarrow2dOutBytes;
    if (c.thin)
      spec->smem_bytes = static_cast<unsigned>(thin2d_smem_bytes(spec->narrow2d, out_es));
    else
      spec->smem_bytes = c.wide2d ? 0u
                                  : static_cast<unsigned>(narrow2d_smem_bytes(
                                        out_es, out_bytes, spec->narrow2d.sector != 0));
  } else if (c.narrow) {
    spec->narrow = NarrowParams{};
    build_narrow(p, c, &spec->narrow);
    spec->smem_bytes = static_cast<unsigned>(spec->narrow.smem_bytes);
    const unsigned grid = spec->narrow.raw_rows ? c.raw_grid : c.realigned_grid;
    if (grid > spec->choice.grid) {
      spec->choice.grid = grid;
      spec->narrow.four_blocks = 1;
    }
  } else {
    spec->tiled = TiledParams{};
    build_tiled(p, c, spec);
  }
}

Choice general_choice(const Problem& p, const DeviceInfo& dev) {
  return direct_choice(geometry(p), dev);
}

ElemOp elem_op(const Problem& p) {
  ElemOp op;
  if (!p.typed()) return op;
  op.in_type = p.in_type;
  op.out_type = p.out_type;
  op.scale = p.alpha[0] != 1 || p.alpha[1] != 0;
  op.accumulate = p.reads_out();
  for (int i = 0; i < 2; ++i) op.alpha[i] = p.alpha[i], op.beta[i] = p.beta[i];
  return op;
}

double analytic_launch_seconds() { return kTune.launch_s; }

int64_t direct_max_bytes() { return kTune.direct_max_bytes; }
int64_t direct_max_elems() { return kTune.direct_max_elems; }

double direct_read_factor(const Problem& p) {
  DirectParams dp;  // the kernel's walk: output dims fastest first, their input strides
  build_direct(p, &dp);
  int64_t out_ext[kMaxRank], out_stride[kMaxRank];
  for (int k = 0; k < dp.n_dims; ++k)
    out_ext[k] = dp.dim[k].extent.d, out_stride[k] = dp.dim[k].in_stride;
  // A warp's distinct sectors: a set by open addressing (keys sector + 1, 0 free), cleared a
  // warp; a sector the same as the element before's is not looked up (runs along the input).
  constexpr int kWarp = 32, kSlots = 2 * kWarp;
  std::array<int64_t, kSlots> seen;
  int64_t touched = 0, n = 0;
  const auto es = static_cast<int64_t>(p.elem_size);
  for (const int64_t first : {int64_t{0}, p.volume / 2 / kDirectThreads * kDirectThreads}) {
    int64_t digit[kMaxRank], rest = first, off = 0, last = -1;
    for (int k = 0; k < dp.n_dims; ++k)
      digit[k] = rest % out_ext[k], off += digit[k] * out_stride[k], rest /= out_ext[k];
    for (int64_t j = first; j < std::min(p.volume, first + kDirectThreads); ++j, ++n) {
      if ((j - first) % kWarp == 0) seen.fill(0), last = -1;
      const int64_t sector = off * es / 32;
      if (sector != last) {
        last = sector;
        auto h = static_cast<uint64_t>(sector) * 0x9E3779B97F4A7C15ull >> 58;  // 6 bits
        while (seen[h] != 0 && seen[h] != sector + 1) h = (h + 1) % kSlots;
        touched += seen[h] == 0;
        seen[h] = sector + 1;
      }
      for (int k = 0; k < dp.n_dims; ++k) {  // the next output element: an odometer step
        off += out_stride[k];
        if (++digit[k] < out_ext[k]) break;
        off -= digit[k] * out_stride[k];
        digit[k] = 0;
      }
    }
  }
  return static_cast<double>(touched) * 32 / (static_cast<double>(n) * es);
}

bool direct_in_l2(const Problem& p, const DeviceInfo& dev) {
  if (!p.plain() || p.rank < 2 || p.elem_size < 4 || p.volume > INT32_MAX ||
      !l2_resident(p, dev) || wide2d_takes(p) ||
      (p.perm[0] == 0 && p.extent[0] * static_cast<int64_t>(p.elem_size) >= kDirectRowBytes))
    return false;
  const double bytes = static_cast<double>(p.bytes());
  const double budget = kDirectL2Share * static_cast<double>(dev.l2_bytes);
  // A sector a read at most: no count needed where even that fits (planning time).
  if (bytes * 32 / static_cast<double>(p.elem_size) <= budget) return true;
  return bytes <= budget && bytes * direct_read_factor(p) <= budget;
}

std::string summarize(const Problem& p, const Choice& c) {
  std::string s = schema_name(c.schema);
  if (is_direct(c.schema)) {
    s += " T=" + std::to_string(c.threads) + (c.general ? " general" : "");
  } else if (is_rows(c.schema)) {
    s += " row=" + std::to_string(c.in_run * static_cast<int64_t>(p.elem_size)) + "B";
  } else {
    s += " in=" + std::to_string(c.in_run) + " out=" + std::to_string(c.out_run) +
         " tile=" + std::to_string(c.tile_volume) + " T=" + std::to_string(c.threads) +
         (c.cells ? std::string(" cells")
          : c.narrow2d ? std::string(c.wide2d ? " wide2d" : c.thin ? " thin2d" : " narrow2d")
          : c.narrow ? std::string(c.padded ? " narrow pad" : " narrow")
                     : " S=" + std::to_string(c.stages));
    if (c.band > 0) s += " band=" + std::to_string(c.band);
    if (c.ungrouped) s += " ungrouped";
  }
  s += " grid=" + std::to_string(c.grid) + " " + std::to_string(p.elem_size) + "B";
  if (p.out_elem() != p.elem_size) s += "->" + std::to_string(p.out_elem()) + "B";
  return s;
}

}  // namespace xpose::detail
