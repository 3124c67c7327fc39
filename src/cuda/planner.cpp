// The CUDA planner and cost model (host C++, no CUDA headers). See docs/cuda.md.
//
// Candidates: for rank <= 1 a copy; when the leading dimension stays, a row copy; and tiles of
// shared memory built from an input run (input dims 0..a-1 whole, dim a blocked by ta) and an
// output run (output dims 0..c-1 whole, output dim c blocked by tc), for several run targets.
// Model: DRAM time from TTLG-style transaction counts (32-byte sectors touched by each
// contiguous run), scaled by a memory-warp-parallelism factor in the spirit of cuTT's MWP-CWP
// (bytes in flight per SM against bandwidth x latency) and by load balance over the folded
// grid; issue and shared-memory time as the compute side; the larger wins, plus launch cost.
#include "cuda/planner.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "cuda/tile_shape.hpp"

namespace xpose::detail {
namespace {

using namespace cuda_tile;

// Tuning as data. Each value names what justifies it (docs/perf/cuda-h100.md).
struct Tuning {
  double copy_fraction = 0.90;      // device copy / peak DRAM bandwidth (H100: ~3.0 of 3.35 TB/s)
  double latency_s = 2.5e-6;        // one tile round (load, barrier, store) under load: a tile
                                    // kernel with 16 KB of loads in flight per SM ran at 0.64
                                    // of copy on the H100 (docs/perf/cuda-h100.md)
  double launch_s = 2.5e-6;         // launch + ramp of one kernel (cudaMemcpyAsync of 1 MB ~ 3 us)
  double read_unit = 64, read_merge = 0.25;  // reads: neighbours' partial units hit in L2
  double write_unit = 128, write_merge = 0.0;
  // Fixed cost of a run, as bytes (DRAM page and L2 set changes): aligned 128-byte runs ran at
  // 0.83 of copy, 1 KB runs at 0.92 (TTLG 6D suite, docs/perf/cuda-h100.md).
  double run_overhead_bytes = 24;
  double issue_efficiency = 0.5;    // of 4 warp instructions per SM per cycle
  double tile_fixed_instr = 40;     // per thread per tile: loop, barriers, limits
  double grid_dim_instr = 14;       // per thread per tile and grid dimension: 64-bit fast div
  double slot_instr = 14;           // per thread slot per tile: 2 loads, 2 stores, checks
  double row_item_instr = 50;       // per warp item of the row kernel (plus grid_dim_instr/dim)
  // Narrow kernel (narrow.cu), thread instructions per read position (a 16-byte chunk: table
  // entry, two loads, the funnel shift, four shared stores), per write position (a span's
  // entry and alignment) and per word it writes (four gathered bytes), counted from its SASS.
  double narrow_chunk_instr = 50;
  double narrow_position_instr = 25;
  double narrow_word_instr = 14;
  double narrow_quad_instr = 45;  // per lane of a quad task (4 rows x 4 bytes of columns)
  // Narrow runs up to 4 KB: with overlapping runs (22^6 perm (1,0,2,4,3,5)) a run must reach
  // past two dims for the tile to fill its 16 KB; 968-byte tiles ran at 0.13 of copy.
  int64_t narrow_run_targets_bytes[6] = {64, 128, 256, 512, 1024, 4096};
  int64_t run_targets_bytes[4] = {128, 256, 512, 1024};  // input/output run targets
  int64_t run_targets_elems[2] = {32, 8};  // small runs: tiles that fit for 1-byte elements
  // cp.async buffers of the tile kernel (elements >= 4 B). Run 6 (docs/perf/cuda-h100.md):
  // 3 and 4 buffers ran slower than 2 (TTLG 17 median 0.82 against 0.87), so 2.
  int stages = 2;
  // V1BF banded tile walk, offered to measure planning from this size on with this band width
  // (tiles; the paper's w = 8). On the H100 banded and plain walks ran alike (0.89 of copy on
  // 2 GB rank-2 tensors, docs/perf/cuda-h100.md run 8), so the heuristic never bands.
  int64_t band_min_bytes = int64_t{1} << 30;
  int band_width = 8;
};
constexpr Tuning kTune{};

constexpr bool is_pow2(double v) {
  return v >= 1 && v == static_cast<double>(static_cast<int64_t>(v)) &&
         (static_cast<int64_t>(v) & (static_cast<int64_t>(v) - 1)) == 0;
}
static_assert(is_pow2(kTune.read_unit) && is_pow2(kTune.write_unit), "run_efficiency scales");

int log2_of(size_t v) {
  int l = 0;
  while ((size_t{1} << l) < v) ++l;
  return l;
}

// Fraction of the bytes moved for a run of `bytes` that are useful, counting whole units of
// `unit` bytes (the start moving in steps of `step` bytes), with neighbours reusing a share
// `merge` of the partial units through L2. H100 (docs/perf/cuda-h100.md): 64-byte output runs
// ran at half the speed of 128-byte ones, so writes count 128-byte lines, reads 64 bytes.
// Units are powers of two (is_pow2 above), so scaling by 1 / unit is exactly dividing by it,
// without two divisions on this per-candidate path.
double run_efficiency(int64_t bytes, int64_t step, double unit, double merge) {
  const double per_unit = 1.0 / unit;
  const double g = static_cast<double>(gcd_pow2(128, step > 0 ? step : 128));
  const double units =
      std::max(std::ceil(bytes * per_unit), (bytes + unit - std::min(g, unit)) * per_unit);
  const double eff = bytes / (unit * units);
  return (eff + (1.0 - eff) * merge) * bytes / (bytes + kTune.run_overhead_bytes);
}

// One tile buffer, bytes, rounded to 16 (as build_tiled lays them out).
int64_t buffer_bytes(int64_t smem_elems, int esize) { return (smem_elems * esize + 15) / 16 * 16; }

int default_threads(int64_t volume) {
  const int64_t t = ceil_div(ceil_div(volume, 4), 32) * 32;
  return static_cast<int>(std::clamp<int64_t>(t, 64, kMaxTileThreads));
}

int tiled_regs(const DeviceInfo& dev, int log2e) {
  const int r = dev.tiled_regs[log2e];
  return r > 0 ? r : 80;
}

// Blocks of the tiled kernel resident on one SM.
int tiled_resident(const DeviceInfo& dev, int log2e, int threads, int64_t smem) {
  const int regs = (tiled_regs(dev, log2e) + 7) / 8 * 8;
  int r = std::min(dev.regs_per_sm / (regs * threads), dev.max_threads_per_sm / threads);
  r = std::min<int64_t>(r, dev.smem_per_sm / (smem + 1024 + kTileStaticSmemBytes));
  return std::clamp(r, 1, 32);
}

// Pipeline depth wanted: kTune.stages, or XPOSE_CUDA_STAGES (2..kMaxTileStages) for A/B runs.
int wanted_stages() {
  static const int s = [] {
    const char* e = std::getenv("XPOSE_CUDA_STAGES");
    const int v = e ? std::atoi(e) : 0;
    return v >= 2 && v <= kMaxTileStages ? v : kTune.stages;
  }();
  return s;
}

// Buffers for a tile of `buffer` bytes: 1 below 4-byte elements (reads through registers), else
// the deepest pipeline up to `want` that keeps as many blocks resident as two buffers do.
int choose_stages(const DeviceInfo& dev, int log2e, int threads, int64_t buffer, int want) {
  if (log2e < 2) return 1;
  const int base = tiled_resident(dev, log2e, threads, 2 * buffer);
  int s = std::clamp(want, 2, kMaxTileStages);
  while (s > 2 && (s * buffer > kMaxTileStages * kMaxTileSmemBytes ||
                   tiled_resident(dev, log2e, threads, s * buffer) < base))
    --s;
  return s;
}

double dram_time(const DeviceInfo& dev, const Problem& p, double eff_r, double eff_w) {
  const double bytes = static_cast<double>(p.bytes());
  return bytes / (dev.dram_bytes_per_s * kTune.copy_fraction) * (1.0 / eff_r + 1.0 / eff_w);
}

// Latency hiding: bytes in flight per SM against what bandwidth x latency asks for.
double parallelism(const DeviceInfo& dev, double bytes_in_flight_per_sm) {
  // Loads in flight against half the copy bandwidth (the read half).
  const double need = 0.5 * dev.dram_bytes_per_s * kTune.copy_fraction * kTune.latency_s / dev.sms;
  return std::min(1.0, bytes_in_flight_per_sm / need);
}

double issue_time(const DeviceInfo& dev, double thread_instr) {
  return thread_instr / (dev.sms * dev.clock_hz * 128.0 * kTune.issue_efficiency);
}

// The memory side of a tile candidate with `resident` blocks per SM: sets c->grid (the folded
// grid) and returns DRAM time over latency hiding, load balance and edge-tile fill, with the
// pieces in `terms`.
double tile_memory(const Geometry& g, const DeviceInfo& dev, const Tile& T, int resident,
                   Choice* c, CostTerms* terms) {
  const Problem& p = *g.p;
  const int64_t capacity = static_cast<int64_t>(resident) * dev.sms;
  c->grid = static_cast<unsigned>(std::min<int64_t>(T.num_tiles, capacity));
  const double eff_r = run_efficiency(T.in_span * g.esize, T.in_align,
                                      kTune.read_unit, kTune.read_merge);
  const double eff_w = run_efficiency(T.out_span * g.esize, T.out_align,
                                      kTune.write_unit, kTune.write_merge);
  // Blocks per SM actually busy, each with volume * esize bytes of loads in flight per phase.
  const double per_sm = std::min<double>(resident, static_cast<double>(c->grid) / dev.sms);
  double mwp = parallelism(dev, per_sm * T.volume * g.esize);
  // A lone small block per SM idles its loads at the barriers; a big block (one per SM by
  // design) keeps the next tile's loads in flight (run 5: big tiles raised the TTLG 15 median
  // from 0.85 to 0.90).
  if (per_sm < 1.5 && c->threads <= kTileThreadsSmall) mwp *= 0.75;
  const double rounds = std::ceil(static_cast<double>(T.num_tiles) / c->grid);
  const double balance = static_cast<double>(T.num_tiles) / (rounds * c->grid);
  const double sm_share = std::min(1.0, static_cast<double>(c->grid) / dev.sms);
  // Edge tiles of a blocked dim (extent 3 blocked by 2: tiles of 2 and 1) cost about a full
  // tile's round for part of its bytes: the share of tile slots that hold data. Run 6: rank-12
  // tiles blocking an extent-3 dim by 2 (fill 0.75) ran at 0.54-0.68 of copy, the same problems
  // with that dim outside the run at 0.73-0.86.
  double fill = 1.0;
  for (const int d : T.blocked)
    if (d >= 0)
      fill *= static_cast<double>(p.extent[d]) /
              static_cast<double>(ceil_div(p.extent[d], T.t[d]) * T.t[d]);
  *terms = {p.bytes() / dev.dram_bytes_per_s, 1 / eff_r, 1 / eff_w, 1 / mwp,
            1 / (balance * sm_share), 1 / fill, 0, 0, rounds, 0, kTune.launch_s,
            static_cast<double>(p.bytes()), static_cast<double>(T.in_span * g.esize),
            static_cast<double>(T.out_span * g.esize), static_cast<double>(g.esize)};
  return dram_time(dev, p, eff_r, eff_w) / (mwp * balance * sm_share * fill);
}

// The prediction from the memory time and the compute side (thread instructions, shared-memory
// wavefronts of the whole run).
void finish_cost(const DeviceInfo& dev, double mem, double instr, double wavefronts,
                 CostTerms terms, Choice* c) {
  const double sm_share = std::min(1.0, static_cast<double>(c->grid) / dev.sms);
  const double smem = wavefronts / (dev.sms * dev.clock_hz);
  const double issue = issue_time(dev, instr) / sm_share;
  c->predicted = kTune.launch_s + std::max({mem, issue, smem});
  terms.issue_s = issue;
  terms.smem_s = smem;
  terms.analytic_s = c->predicted;
  c->terms = terms;
}

// forced_stages: a schema's `stages=` (0: the planner's depth).
void cost_tiled(const Geometry& g, const DeviceInfo& dev, const Tile& T, int forced_stages,
                Choice* c) {
  const int log2e = log2_of(g.esize);
  const int threads = c->threads;
  const int64_t slots = ceil_div(T.volume, threads);
  // Deeper pipelines only where they cost no resident block, so the model (calibrated on two
  // buffers) is left as it was: the depth is the kernel's, not a ranking input.
  const int64_t buffer = buffer_bytes(T.smem_elems, g.esize);
  c->stages = forced_stages > 0 && log2e >= 2
                  ? forced_stages
                  : choose_stages(dev, log2e, threads, buffer, wanted_stages());
  CostTerms terms;
  const double mem =
      tile_memory(g, dev, T, tiled_resident(dev, log2e, threads, buffer * c->stages), c, &terms);
  const double instr =
      static_cast<double>(T.num_tiles) * threads *
          (kTune.tile_fixed_instr + kTune.grid_dim_instr * T.n_grid + kTune.slot_instr * slots) +
      static_cast<double>(c->grid) * threads * slots * 2 * 8.0 * T.n_dims;
  const double wavefronts = 2.0 * T.num_tiles * slots * (threads / 32.0) *
                            std::max(1.0, g.esize * 32.0 / 128.0);
  finish_cost(dev, mem, instr, wavefronts, terms, c);
}

// Blocks of the narrow kernel resident on one SM: its registers (two blocks at least, its launch
// bounds), threads and the tile's shared memory with the tables.
int narrow_resident(const DeviceInfo& dev, int64_t smem) {
  const int regs = (dev.narrow_regs > 0 ? dev.narrow_regs : 128) + 7;
  int r = std::min(dev.regs_per_sm / (regs / 8 * 8 * kNarrowThreads),
                   dev.max_threads_per_sm / kNarrowThreads);
  r = std::min<int64_t>(r, dev.smem_per_sm / (smem + 1024));
  return std::clamp(r, 1, 32);
}

void cost_narrow(const Geometry& g, const DeviceInfo& dev, const Tile& T, Choice* c) {
  c->threads = kNarrowThreads;
  c->stages = 1;
  c->narrow = true;
  CostTerms terms;
  const double mem = tile_memory(g, dev, T, narrow_resident(dev, T.smem_bytes), c, &terms);
  const int64_t rows = T.volume / T.in_run, spans = T.volume / T.out_run;
  const int64_t chunks = rows * ceil_div(T.in_run * g.esize, kNarrowChunk);
  const int64_t per_span = ceil_div(T.out_run * g.esize + 31, kNarrowWord);
  const int64_t words = spans * per_span;
  const int64_t positions = spans * kNarrowGroup * ceil_div(per_span, kNarrowGroup * kNarrowWords);
  // Disjoint runs: one lane per 4 rows x one shared-memory word of columns (31 of 32 lanes
  // store); others gather word by word.
  const double lane_blocks = (T.out_run / 4.0 + 1) * ceil_div(T.in_run * g.esize, 4) * 32 / 31;
  const double write = !T.overlap ? lane_blocks * kTune.narrow_quad_instr
                                  : positions * kTune.narrow_position_instr +
                                        words * kTune.narrow_word_instr * (g.esize == 2 ? 0.6 : 1);
  const double per_tile = chunks * kTune.narrow_chunk_instr + write +
                          kNarrowThreads * (kTune.tile_fixed_instr + kTune.grid_dim_instr * T.n_grid);
  const double instr = static_cast<double>(T.num_tiles) * per_tile +
                       static_cast<double>(c->grid) * (rows + spans) * 8.0 * T.n_dims;
  // Per chunk four 4-byte stores (4-way: eight banks per warp), per word one load per element.
  const double wavefronts =
      static_cast<double>(T.num_tiles) * (chunks * 4.0 * 4.0 + words * 4.0 / g.esize) / 32.0;
  finish_cost(dev, mem, instr, wavefronts, terms, c);
}

// Alignment (bytes, gcd with 128) of the output rows' starts.
int64_t row_align(const Geometry& g) {
  int64_t a = 128;
  for (int k = 1; k < g.rank; ++k) a = gcd_pow2(a, g.s_out[k] * g.esize);
  return a;
}

void cost_rows(const Geometry& g, const DeviceInfo& dev, Choice* c) {
  const Problem& p = *g.p;
  const int64_t row_bytes = (p.rank <= 1 ? p.volume : p.extent[0]) * g.esize;
  const int64_t rows = p.volume * g.esize / row_bytes;
  const int64_t chunks = ceil_div(row_bytes, kRowChunkBytes);
  const int64_t items = rows * chunks;
  const int64_t capacity = static_cast<int64_t>(dev.sms) * (dev.max_threads_per_sm / 256);
  c->grid = static_cast<unsigned>(std::max<int64_t>(1, std::min(ceil_div(items, 8), capacity)));
  c->in_run = c->out_run = row_bytes / g.esize;
  c->num_tiles = items;
  const double eff_w = p.rank <= 1 ? 1.0
                                    : run_efficiency(row_bytes, row_align(g), kTune.write_unit,
                                                     kTune.write_merge);
  const double warps_per_sm = std::min<double>(dev.max_threads_per_sm / 32.0,
                                               static_cast<double>(items) / dev.sms);
  const double mwp = parallelism(dev, warps_per_sm * std::min(row_bytes, kRowChunkBytes));
  const double sm_share = std::min(1.0, static_cast<double>(c->grid) * 8 / dev.sms / 8);
  const double mem = dram_time(dev, p, 1.0, eff_w) / (mwp * std::max(sm_share, 1e-3));
  const int64_t width = std::min<int64_t>(16, row_bytes & -row_bytes);
  const double instr = static_cast<double>(items) * 32 *
                           (kTune.row_item_instr + kTune.grid_dim_instr * (p.rank - 1)) +
                       static_cast<double>(p.bytes()) / width * 6;
  const double issue = issue_time(dev, instr);
  c->predicted = kTune.launch_s + std::max(mem, issue);
  c->terms = {p.bytes() / dev.dram_bytes_per_s, 1, 1 / eff_w, 1 / mwp,
              1 / std::max(sm_share, 1e-3), 1, issue, 0, std::ceil(items / (8.0 * c->grid)),
              c->predicted, kTune.launch_s, static_cast<double>(p.bytes()),
              static_cast<double>(row_bytes), static_cast<double>(row_bytes),
              static_cast<double>(g.esize)};
}

// Run options (dim, tile extent) along an order of dims, in a fixed array: planning makes them
// for every view of every plan, so no heap.
constexpr int kRunTargets =
    static_cast<int>(std::max(std::size(kTune.run_targets_bytes) + std::size(kTune.run_targets_elems),
                              std::size(kTune.narrow_run_targets_bytes)));
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
  // Elements of 1 and 2 bytes stage their tiles in the narrow kernel, the others in tiled.cu.
  const bool narrow = g.esize <= 2;
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
  const TileKind kind = narrow ? TileKind::Narrow
                        : req && req->threads > 0 && req->threads <= kTileThreadsSmall
                            ? TileKind::Small
                            : TileKind::Big;
  const int64_t max_volume = max_tile_volume(kind, g.esize);
  int64_t out_ext[kMaxRank];
  for (int j = 0; j < p.rank; ++j) out_ext[j] = p.extent[p.perm[j]];
  RunOptions ins, outs;
  run_options(p.extent.data(), p.rank, in_targets, n_in, !forced_in, max_volume, &ins);
  run_options(out_ext, p.rank, out_targets, n_out, !forced_out, max_volume, &outs);
  int count = 0;
  Tile T;
  for (int i = 0; i < ins.n; ++i) {
    const auto [a, ta] = ins.at[i];
    for (int j = 0; j < outs.n; ++j) {
      const auto [c, tc] = outs.at[j];
      if (!make_tile(g, a, ta, c, tc, &T, kind)) continue;
      Choice ch;
      ch.schema = classify(p, T);
      if (!allowed(req, ch.schema)) continue;
      ch.a = a, ch.ta = ta, ch.c = c, ch.tc = tc;
      ch.in_run = T.in_run, ch.out_run = T.out_run;
      ch.tile_volume = T.volume, ch.num_tiles = T.num_tiles;
      if (narrow) {
        cost_narrow(g, dev, T, &ch);
      } else {
        ch.threads = req && req->threads ? req->threads : default_threads(T.volume);
        if (T.volume > static_cast<int64_t>(ch.threads) * kElemsPerThread) continue;
        cost_tiled(g, dev, T, req ? req->stages : 0, &ch);
        if (req) ch.band = req->band;
      }
      sink(ch);
      ++count;
    }
  }
  return count;
}

// Hands every candidate to sink(Choice&), analytic predictions, in the order ties rank.
template <class Sink>
void for_each_choice(const Geometry& g, const DeviceInfo& dev, const SchemaRequest* req,
                     Sink& sink) {
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
  // The regression was fitted on the classic tile kernel: narrow tiles rank by the analytic model.
  const Regression* model =
      use_regression && p.elem_size > 2 ? process_models().find(dev.arch) : nullptr;
  return model && model->covers(static_cast<double>(p.bytes())) ? model : nullptr;
}

}  // namespace

void enumerate_choices(const Problem& p, const DeviceInfo& dev, const SchemaRequest* req,
                       std::vector<Choice>* out, bool use_regression) {
  out->clear();
  const Regression* model = ranking_model(p, dev, use_regression);
  const Geometry g = geometry(p);
  const auto push = [out](const Choice& c) { out->push_back(c); };
  for_each_choice(g, dev, req, push);
  if (model)
    rank_by_regression(*model, out);
  else
    std::stable_sort(out->begin(), out->end(),
                     [](const Choice& x, const Choice& y) { return x.predicted < y.predicted; });
  if (p.is_copy()) return;
  // Very large tensors: the best tiled choice walked in V1BF bands too, ranked just behind it
  // (the model has no TLB term), so that measure planning weighs the two orders.
  if (!out->empty() && out->front().schema != Schema::Rows && out->front().band == 0 &&
      p.bytes() >= kTune.band_min_bytes && !(req && req->band > 0)) {
    Choice b = out->front();
    b.band = kTune.band_width;
    b.predicted *= 1.001;
    out->insert(out->begin() + 1, b);
  }
}

bool best_choice(const Problem& p, const DeviceInfo& dev, const SchemaRequest* req,
                 Choice* best, bool use_regression) {
  const Regression* model = ranking_model(p, dev, use_regression);
  if (!model) {  // the first of the lowest prediction: what the stable sort puts first
    bool found = false;
    const auto keep = [&](Choice& c) {
      if (!found || c.predicted < best->predicted) *best = c;
      found = true;
    };
    for_each_choice(geometry(p), dev, req, keep);
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
  for_each_choice(geometry(p), dev, req, keep);
  for (int i = 0; i < n; ++i) {
    const double blend = model->predict(slot[order[i]]);
    if (i == 0 || blend < best->predicted) *best = slot[order[i]], best->predicted = blend;
  }
  best->model = model;
  return n > 0;
}

namespace {

void build_rows(const Problem& p, RowParams* r) {
  const int64_t esize = static_cast<int64_t>(p.elem_size);
  const Extents s_out = p.output_strides();
  r->row_bytes = (p.rank <= 1 ? p.volume : p.extent[0]) * esize;
  const int64_t chunks = ceil_div(r->row_bytes, kRowChunkBytes);
  r->chunks = FastDiv64::make(static_cast<uint64_t>(chunks));
  r->items = p.volume * esize / r->row_bytes * chunks;
  r->n_dims = 0;
  int64_t s_in = p.rank <= 1 ? 1 : p.extent[0];
  for (int k = 1; k < p.rank; ++k) {
    RowDim& d = r->dim[r->n_dims++];
    d.extent = FastDiv64::make(static_cast<uint64_t>(p.extent[k]));
    d.in_stride = s_in * esize;
    d.out_stride = s_out[k] * esize;
    s_in *= p.extent[k];
  }
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
  tp.buffer_elems = static_cast<int32_t>(buffer_bytes(T.smem_elems, g.esize) / g.esize);
  tp.stages = std::max(c.stages, g.esize >= 4 ? 2 : 1);
  spec->smem_bytes = static_cast<unsigned>(tp.buffer_elems * g.esize * tp.stages);
  int64_t max_in = 0, max_out = 0;
  for (int k = 0; k < p.rank; ++k) {
    max_in += (T.t[k] - 1) * g.s_in[k];
    max_out += (T.t[k] - 1) * g.s_out[k];
  }
  tp.wide = std::max(max_in, max_out) > INT32_MAX ? 1 : 0;
}

}  // namespace

void build_spec(const Problem& p, const Choice& c, KernelSpec* spec) {
  spec->choice = c;
  spec->log2_elem = log2_of(p.elem_size);
  spec->smem_bytes = 0;
  if (is_rows(c.schema)) {
    spec->rows = RowParams{};  // the union's member in use from here on
    build_rows(p, &spec->rows);
  } else if (c.narrow) {
    spec->narrow = NarrowParams{};
    build_narrow(p, c, &spec->narrow);
    spec->smem_bytes = static_cast<unsigned>(spec->narrow.smem_bytes);
  } else {
    spec->tiled = TiledParams{};
    build_tiled(p, c, spec);
  }
}

double analytic_launch_seconds() { return kTune.launch_s; }

std::string summarize(const Problem& p, const Choice& c) {
  std::string s = schema_name(c.schema);
  if (is_rows(c.schema)) {
    s += " row=" + std::to_string(c.in_run * static_cast<int64_t>(p.elem_size)) + "B";
  } else {
    s += " in=" + std::to_string(c.in_run) + " out=" + std::to_string(c.out_run) +
         " tile=" + std::to_string(c.tile_volume) + " T=" + std::to_string(c.threads) +
         (c.narrow ? std::string(" narrow") : " S=" + std::to_string(c.stages));
    if (c.band > 0) s += " band=" + std::to_string(c.band);
  }
  s += " grid=" + std::to_string(c.grid) + " " + std::to_string(p.elem_size) + "B";
  return s;
}

}  // namespace xpose::detail
