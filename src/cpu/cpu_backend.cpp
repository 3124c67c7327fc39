// The CPU backend's planner: which schemas apply to a problem, their predicted cost, the
// heuristic choice (cheapest prediction) or the measured one, and forcing a schema by name.
//
// Schemas (docs/cpu.md): copy, direct, super, matrix, blocked, cells (cells.hpp), and typed (every
// problem that is not plain(), typed_plan.cpp). Forcing syntax:
//   name[:key=value[,key=value...]]   keys: ti, to (tile sides, tiled schemas), nt (0 or 1),
//   isa (scalar, sse2, avx2, avx512: the tiled schemas' micro-kernels)
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/status.hpp"
#include "cpu/cells.hpp"
#include "cpu/plans.hpp"
#include "cpu/typed_plan.hpp"

namespace xpose::detail {
namespace {

using namespace cpu;

enum class Schema { kCopy, kDirect, kSuper, kMatrix, kBlocked, kTyped, kCells };
constexpr const char* kSchemaNames[] = {"copy",    "direct", "super", "matrix",
                                        "blocked", "typed",  "cells"};
constexpr const char* kValidSchemas = "copy, direct, super, matrix, blocked, typed, cells";

struct Spec {
  Schema schema = Schema::kCopy;
  TileRequest tile;
  int nt = -1;  // -1: by output size (want_nt)
  Isa isa = Isa::kBest;
  bool fit_stage = false;  // the default tile with TI cut to fit the staging buffer (fit_stage())
  bool few_rows = false;   // the default tile with TI halved until its rows spare L1 (few_rows())
  double margin = 1;  // ranked at predicted x margin: taken only where predicted that much faster
};

// Candidates at most (candidate_specs): 1-byte problems with cells take the most, ten.
constexpr int kMaxSpecs = 10;

// A built candidate: what the model predicts for it, and its plan, which made() gives. A tile
// candidate keeps its geometry and makes the plan (offset order, spans, prefetch lines) only
// there: heuristic planning makes the chosen one's alone.
struct Built {
  BackendPlanPtr plan;
  double predicted = -1;
  double ranked = -1;  // predicted x the spec's margin, what candidates rank by; < 0: none built
  std::unique_ptr<TileGeometry> tile;
  ExecSettings x;
  const char* schema = nullptr;
  BackendPlanPtr& made() {
    if (!plan) plan = make_tile_plan(schema, *tile, x, predicted);
    return plan;
  }
};

const char* name_of(Schema s) { return kSchemaNames[static_cast<int>(s)]; }

// Why `s` does not apply to `p`, or "" when it does (tile-level checks come later).
std::string inapplicable(Schema s, const Problem& p) {
  const bool leading_stays = p.rank >= 2 && p.perm[0] == 0;
  if ((s == Schema::kTyped) != typed_plan_applies(p))
    return s == Schema::kTyped ? "typed takes strided, converting or scaled problems only"
                               : "a strided, converting or scaled problem takes only 'typed'";
  switch (s) {
    case Schema::kCopy:
      return p.rank <= 1 ? "" : "copy needs rank <= 1 after normalization, this is rank " +
                                    std::to_string(p.rank);
    case Schema::kDirect:
    case Schema::kSuper:
      return leading_stays ? "" : "the leading input dimension must stay leading (perm[0] == 0 "
                                  "at rank >= 2 after normalization)";
    case Schema::kTyped:
      return "";
    case Schema::kCells: {
      std::string why;
      return cell_dims(p, &why) > 0 ? "" : why;
    }
    case Schema::kMatrix:
    case Schema::kBlocked:
      return p.rank >= 2 && p.perm[0] != 0
                 ? ""
                 : "the leading dimension must change (perm[0] != 0 at rank >= 2 after "
                   "normalization)";
  }
  return "unknown schema";
}

// The tile of `g` (whole output rows, non-temporal) with TI cut to a multiple of its inner J
// volume that fits the staging buffer, rebuilt in *g: such tiles are staged in output order
// (tile_plan.cpp), so rows that continue each other anywhere in the tile leave as one span
// instead of going through the LineWriter. (11^7) perm (0,6,2,4,1,3,5) of bytes, 11-byte
// super-elements: 363 x 11 tiles of 121-byte rows (43 KiB) ran 24.6 ms on one thread, 242 x 11
// tiles 11.9 ms. Not below half of TI: 2-byte 17^6 cases cut from 238 x 17 to 51 x 17 (34-byte
// super-elements) ran 6-10 % slower. False, with `why`, where g has no such cut.
bool fit_stage(const Shape& s, const ExecSettings& x, TileRequest req, TileGeometry* g,
               std::string* why) {
  const int64_t row = g->to * static_cast<int64_t>(g->eb), stage = kTuning.stage_bytes;
  const int64_t cut = stage / row / g->j_inner * g->j_inner;
  *why = "the tile already fits the staging buffer, or cannot be cut to half its TI to fit it";
  if (!x.nt || g->loop[g->i_loop].extent != 1 || g->ti * row <= stage || 2 * cut < g->ti)
    return false;
  req.ti = static_cast<int>(cut);
  req.to = g->to;
  return make_tile_geometry(s, req, g, why) && g->loop[g->i_loop].extent == 1 &&
         g->ti * g->to * static_cast<int64_t>(g->eb) <= stage;
}

// The default tile of a plain 4-byte problem with regular stores, its TI halved (down to
// few_rows_min_ti) until no more of its output rows than an L1 set's ways share a set, TO at least
// few_rows_min_to, rebuilt in *g; false where the default already spares L1 (tuning.hpp
// set_conflict_factor).
bool few_rows(const Shape& s, const ExecSettings& x, TileRequest req, TileGeometry* g,
              std::string* why) {
  *why = "the default tile's output rows do not crowd an L1 set, its stores stream, or the "
         "tensors do not fit the threads' L2";
  if (x.nt || !l1_crowding_counts(s.volume, s.eb, x.threads) ||
      rows_per_l1_set(*g) <= kTuning.l1_ways)
    return false;
  req.to = std::max(g->to, kTuning.few_rows_min_to);
  for (req.ti = g->ti / 2; req.ti >= kTuning.few_rows_min_ti; req.ti /= 2) {
    if (!make_tile_geometry(s, req, g, why)) return false;
    if (rows_per_l1_set(*g) <= kTuning.l1_ways) return true;
  }
  return true;  // the fewest rows: a whole line a column
}

// Builds `spec` for `p` (ranked as predicted: build() adds the margin); false with `why` when it
// does not apply.
bool build_plan(const Problem& p, const Spec& spec, int threads, Built* out, std::string* why) {
  *why = inapplicable(spec.schema, p);
  if (!why->empty()) return false;
  ExecSettings x;
  x.threads = threads;
  // 1- and 2-byte tiles (blocked, matrix) stage and stream from a smaller size (tuning table).
  const bool narrow_tiles = p.elem_size <= 2 &&
                            (spec.schema == Schema::kBlocked || spec.schema == Schema::kMatrix);
  const double fraction = narrow_tiles ? kTuning.narrow_nt_llc_fraction : kTuning.nt_llc_fraction;
  x.nt = spec.nt < 0 ? want_nt(p.bytes(), threads, fraction) : spec.nt == 1;
  x.isa = spec.isa;
  if (spec.schema == Schema::kTyped) {
    x.nt = spec.nt < 0 ? want_nt(p.out_bytes(), threads) : spec.nt == 1;
    if (!make_typed_plan(p, x, spec.tile, &out->plan, why)) return false;
    out->predicted = out->plan->predicted_seconds();
    return true;
  }
  if (spec.schema == Schema::kCells) {
    out->plan = make_cells_plan(p, cell_dims(p, why), x);
    out->predicted = out->plan->predicted_seconds();
    return true;
  }
  if (spec.schema == Schema::kCopy || spec.schema == Schema::kDirect) {
    out->predicted = predict_run(p, make_run_geometry(p), x);
    out->plan = make_run_plan(p, x, out->predicted);
    return true;
  }
  const Shape s = spec.schema == Schema::kSuper ? super_shape(p) : shape_of(p);
  TileRequest req = spec.tile;
  req.matrix = spec.schema == Schema::kMatrix;
  if (select_tile_kernel(s.eb, x.isa).fn == nullptr) {
    *why = "this CPU or build lacks the forced instruction set";
    return false;
  }
  auto g = std::make_unique<TileGeometry>();
  if (!make_tile_geometry(s, req, g.get(), why)) return false;
  // Rows too long to stage (a forced TO, or super-elements over half the buffer): regular stores.
  if (x.nt && !staged_rows_fit(*g)) x.nt = false;
  if (spec.fit_stage && !fit_stage(s, x, req, g.get(), why)) return false;
  if (spec.few_rows && !few_rows(s, x, req, g.get(), why)) return false;
  out->predicted = predict_tile(*g, s.volume, x, p.elem_size);
  out->tile = std::move(g);
  out->x = x;
  out->schema = name_of(spec.schema);
  return true;
}

bool build(const Problem& p, const Spec& spec, int threads, Built* out, std::string* why) {
  if (!build_plan(p, spec, threads, out, why)) return false;
  out->ranked = out->predicted * spec.margin;
  return true;
}

// The schemas the planner considers for `p`, default parameters.
int candidate_specs(const Problem& p, Spec* specs) {
  int n = 0;
  if (typed_plan_applies(p)) {
    specs[n++].schema = Schema::kTyped;
  } else if (p.rank <= 1) {
    specs[n++].schema = Schema::kCopy;
  } else if (p.perm[0] == 0) {
    // Long runs are copied whole; `super` is considered for short ones only, and for runs that
    // start cold (tuning table).
    specs[n++].schema = Schema::kDirect;
    if (p.extent[0] * int64_t(p.elem_size) < kTuning.direct_min_run_bytes ||
        cold_short_runs(make_run_geometry(p), p.elem_size)) {
      specs[n++].schema = Schema::kSuper;
      // 1- and 2-byte problems: the same with a tile that fits the staging buffer.
      if (p.elem_size <= 2) {
        specs[n].schema = Schema::kSuper;
        specs[n++].fit_stage = true;
      }
    }
  } else {
    std::string why;
    if (cell_dims(p, &why) > 0) {
      specs[n].schema = Schema::kCells;
      specs[n++].margin = kTuning.cells_margin;
    }
    specs[n++].schema = Schema::kBlocked;
    specs[n++].schema = Schema::kMatrix;
    const size_t eb = p.elem_size;
    // 1- and 2-byte elements: the default tile cut to fit the staging buffer (fit_stage()); a
    // tile whose J is input dim 0 alone, and one whose I is output dim 0 alone, when that extent
    // is short of the default side, so that the other side can take the dims the default
    // tile's would leave it ((11,185,3,152,35) perm (2,1,0,4,3): 264 x 3 bytes by default,
    // 3-byte output rows; 11 x 256 with J = dim 0). The model chooses.
    if (eb <= 2) {
      specs[n].schema = Schema::kBlocked;
      specs[n++].fit_stage = true;
      const auto short_dims = [&](TileShape t, double margin) {
        const int64_t area = int64_t{t.ti} * t.to, cap = Tuning::kMaxTileSide / 2;
        const int64_t e0 = p.extent[0], ek = p.extent[p.perm[0]];
        if (e0 < t.ti) {
          specs[n].schema = Schema::kBlocked;
          specs[n].margin = margin;
          specs[n++].tile = {static_cast<int>(e0), static_cast<int>(std::min(cap, area / e0))};
        }
        if (ek < t.to) {
          specs[n].schema = Schema::kBlocked;
          specs[n].margin = margin;
          specs[n++].tile = {static_cast<int>(std::min(cap, area / ek)), static_cast<int>(ek)};
        }
      };
      short_dims(kTuning.tile_by_size[std::countr_zero(eb)], 1);
      // 1-byte elements: the same candidates for tiles of 256-byte input runs, taken only where
      // the model puts them well ahead (tuning.hpp narrow_long_tile).
      if (eb == 1) {
        const TileShape t = kTuning.narrow_long_tile;
        specs[n].schema = Schema::kBlocked;
        specs[n].tile = {t.ti, t.to};
        specs[n++].margin = kTuning.narrow_long_tile_margin;
        short_dims(t, kTuning.narrow_long_tile_margin);
      }
    }
    // 4-byte elements: the default tile with fewer rows where its rows crowd an L1 set
    // (few_rows(); the model charges the crowded ones, tuning.hpp set_conflict_factor).
    if (eb == 4) {
      specs[n].schema = Schema::kBlocked;
      specs[n++].few_rows = true;
    }
    if (std::has_single_bit(eb) && eb <= 16) {
      const TileShape def = kTuning.tile_by_size[std::countr_zero(eb)];
      const TileShape sq = kTuning.square_by_size[std::countr_zero(eb)];
      if (def.ti != sq.ti || def.to != sq.to) {
        specs[n].schema = Schema::kBlocked;
        specs[n++].tile = {sq.ti, sq.to};
      }
    }
  }
  return n;
}

// Parses "name[:key=value,...]".
bool parse_schema(const std::string& text, Spec* spec, std::string* why) {
  const size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const auto* it = std::find_if(std::begin(kSchemaNames), std::end(kSchemaNames),
                                [&](const char* n) { return name == n; });
  if (it == std::end(kSchemaNames)) {
    *why = "unknown CPU schema '" + name + "'; valid: " + kValidSchemas;
    return false;
  }
  spec->schema = static_cast<Schema>(it - std::begin(kSchemaNames));
  for (size_t pos = colon; pos != std::string::npos && pos + 1 < text.size();) {
    const size_t end = text.find(',', pos + 1);
    const std::string kv = text.substr(pos + 1, end == std::string::npos ? end : end - pos - 1);
    pos = end;
    const size_t eq = kv.find('=');
    char* stop = nullptr;
    const long v = eq == std::string::npos ? -1 : std::strtol(kv.c_str() + eq + 1, &stop, 10);
    const std::string key = kv.substr(0, eq);
    const bool number = stop != nullptr && *stop == '\0' && stop != kv.c_str() + eq + 1;
    if (key == "isa" && eq != std::string::npos && parse_isa(kv.substr(eq + 1), &spec->isa))
      continue;
    if (key == "nt" && number && (v == 0 || v == 1)) {
      spec->nt = static_cast<int>(v);
    } else if ((key == "ti" || key == "to") && number && v >= 1 && v <= 256) {
      (key == "ti" ? spec->tile.ti : spec->tile.to) = static_cast<int>(v);
    } else {
      *why = "bad parameter '" + kv + "' in schema '" + text +
             "'; expected ti=1..256, to=1..256, nt=0|1 or isa=scalar|sse2|avx2|avx512";
      return false;
    }
  }
  return true;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Scratch buffers of measure planning, allocated at plan time and freed on return.
struct Scratch {
  char* in = nullptr;
  char* out = nullptr;
  explicit Scratch(int64_t bytes) {
    const size_t n = (static_cast<size_t>(bytes) + 63) / 64 * 64;
    in = static_cast<char*>(::operator new(n, std::align_val_t(64), std::nothrow));
    out = static_cast<char*>(::operator new(n, std::align_val_t(64), std::nothrow));
    if (in != nullptr && out != nullptr) {
      std::memset(in, 0x5a, n);
      std::memset(out, 0, n);
    }
  }
  ~Scratch() {
    ::operator delete(in, std::align_val_t(64), std::nothrow);
    ::operator delete(out, std::align_val_t(64), std::nothrow);
  }
  bool ok() const { return in != nullptr && out != nullptr; }
};

// Best of kTuning.measure_reps runs after one warm-up.
double time_plan(const BackendPlan& plan, const Scratch& s) {
  plan.execute(s.in, s.out, nullptr);
  double best = 1e30;
  for (int r = 0; r < kTuning.measure_reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    plan.execute(s.in, s.out, nullptr);
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

struct Considered {
  Built built;
  Candidate info;
};

// Every applicable candidate, predicted; measured (top few by prediction) in measure mode, all
// of them with `measure_all`; `chosen` marks the pick (by measurement in measure mode only).
// Returns the index of the pick.
int consider(const Problem& p, const xpose_options_t& o, bool measure_all,
             std::vector<Considered>* all) {
  Spec specs[kMaxSpecs];
  const int n = candidate_specs(p, specs);
  const int threads = resolve_threads(o.num_threads);
  std::string why;
  for (int i = 0; i < n; ++i) {
    Considered c;
    if (!build(p, specs[i], threads, &c.built, &why)) continue;
    c.info.description = c.built.made()->describe();
    c.info.predicted_seconds = c.built.predicted;
    c.info.model = "bandwidth (CPU)";
    all->push_back(std::move(c));
  }
  std::stable_sort(all->begin(), all->end(), [](const Considered& a, const Considered& b) {
    return a.built.ranked < b.built.ranked;
  });
  int pick = 0;
  const bool measure = o.planning == XPOSE_PLAN_MEASURE && all->size() > 1;
  // (Scratch buffers are dense and of the input's element size: no typed plan runs on them.)
  if ((measure || measure_all) && !typed_plan_applies(p)) {
    const Scratch scratch(p.bytes());
    const int n = static_cast<int>(all->size());
    const int top = measure_all ? n : std::min(kTuning.measure_top, n);
    for (int i = 0; scratch.ok() && i < top; ++i) {
      (*all)[i].info.measured_seconds = time_plan(*(*all)[i].built.plan, scratch);
      if (measure && i < kTuning.measure_top &&
          (*all)[i].info.measured_seconds < (*all)[pick].info.measured_seconds)
        pick = i;
    }
  }
  (*all)[pick].info.chosen = true;
  return pick;
}

}  // namespace

xpose_status_t cpu_make_plan(const Problem& p, const xpose_options_t& options,
                             const std::string& schema, BackendPlanPtr* plan) {
  if (!schema.empty()) {
    Spec spec;
    std::string why;
    if (!parse_schema(schema, &spec, &why)) return fail(XPOSE_ERROR_INVALID_ARGUMENT, why);
    Built b;
    if (!build(p, spec, resolve_threads(options.num_threads), &b, &why))
      return fail(XPOSE_ERROR_INVALID_ARGUMENT,
                  "schema '" + schema + "' does not apply: " + why);
    *plan = std::move(b.made());
    return XPOSE_SUCCESS;
  }
  if (options.planning == XPOSE_PLAN_HEURISTIC) {
    Spec specs[kMaxSpecs];
    const int n = candidate_specs(p, specs);
    const int threads = resolve_threads(options.num_threads);
    Built best;
    std::string why;
    for (int i = 0; i < n; ++i) {
      Built b;
      if (build(p, specs[i], threads, &b, &why) && (best.ranked < 0 || b.ranked < best.ranked))
        best = std::move(b);
    }
    if (best.ranked < 0)
      return fail(XPOSE_ERROR_INTERNAL, "no CPU schema applies to " + p.to_string());
    *plan = std::move(best.made());
    return XPOSE_SUCCESS;
  }
  std::vector<Considered> all;
  const int pick = consider(p, options, false, &all);
  if (all.empty()) return fail(XPOSE_ERROR_INTERNAL, "no CPU schema applies to " + p.to_string());
  *plan = std::move(all[pick].built.plan);
  return XPOSE_SUCCESS;
}

xpose_status_t cpu_candidates(const Problem& p, const xpose_options_t& options, bool measure_all,
                              std::vector<Candidate>* candidates) {
  std::vector<Considered> all;
  consider(p, options, measure_all, &all);
  for (auto& c : all) candidates->push_back(std::move(c.info));
  return XPOSE_SUCCESS;
}

}  // namespace xpose::detail
