// The CPU backend's schemas as plan values: `copy`/`direct` (contiguous runs) and the tiled
// `blocked`/`matrix`/`super` family (Lyakh's minor input/output multi-indices), their geometry
// builders, cost model and describe text. cpu_backend.cpp chooses among them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cpu/kernels.hpp"
#include "cpu/tuning.hpp"

namespace xpose::detail::cpu {

// A transposition in the form the schemas work on: `eb`-byte elements (a `super` plan's element
// is the whole leading run), column-major, out dim i = in dim perm[i].
struct Shape {
  int rank = 0;
  Extents extent{};
  Perm perm{};
  size_t eb = 0;
  int64_t volume = 0;
  // Input element bytes where they differ from eb (typed plans that convert: eb is then the
  // output's, which the staging and line logic work in); 0: eb.
  size_t in_eb = 0;
  // Strided tensors (typed plans of sub-tensors): dim d's stride in the input and in the
  // output, in elements, all positive, input dim 0 and output dim 0 of stride 1. J and I then
  // grow only over dims that continue them in memory. false: the compact strides.
  bool strided = false;
  Extents in_stride{}, out_stride{};
};

Shape shape_of(const Problem& p);
// The problem with its leading dimension (perm[0] == 0) folded into the element.
Shape super_shape(const Problem& p);

// Settings common to every schema.
struct ExecSettings {
  int threads = 1;   // OpenMP threads of execute
  bool nt = false;   // non-temporal stores
  Isa isa = Isa::kBest;  // tile kernels' instruction set (tiled schemas)
};

// Contiguous runs: rank <= 1 (`copy`) or a leading index that stays (`direct`).
struct RunGeometry {
  int64_t run = 0;        // elements per contiguous run (the whole tensor for `copy`)
  int outer_rank = 0;     // the remaining dims, in output order
  int64_t outer_extent[kMaxRank]{};
  int64_t outer_in_stride[kMaxRank]{};  // elements
};

// `lead`: the run is input dims 0..lead-1, which must be the output's first `lead` (1: `direct`'s
// leading dim; more: `cells`, cells.hpp).
RunGeometry make_run_geometry(const Problem& p, int lead = 1);

// Whether `direct` starts each run of `g` cold (kTuning.direct_max_streams) and the runs are
// short enough for that to matter (cold_run_max_bytes): then `super` is a candidate too.
bool cold_short_runs(const RunGeometry& g, size_t elem_size);

// Requested tile sides (elements); 0 = the tuning table's value.
struct TileRequest {
  int ti = 0;
  int to = 0;
  bool matrix = false;  // J = {input dim 0}, I = {output dim 0} only (Lyakh's 2D special case)
};

// One loop of the outer nest: tile segments or an external dim. Strides in bytes.
struct LoopDim {
  int64_t extent;
  int64_t in_stride;
  int64_t out_stride;
};

// The tiled schemas' loop nest: J = input dims 0..m-1 (last one segmented by j_seg), I = output
// dims 0..k-1 (last one segmented by i_seg), disjoint. A tile is TI x TO elements: element
// (r, c) at in + in_off + icol[c] + r * eb, out + out_off + orow[r] + c * eb.
struct TileGeometry {
  size_t eb = 0;
  size_t in_eb = 0;  // input element bytes (Shape::in_eb, or eb): row r of a tile is r * in_eb in
  int m = 0, k = 0;
  int ti = 0, to = 0;                  // full tile sides
  int64_t j_inner = 1, j_seg = 1, j_last_extent = 1;  // TI = j_inner * j_seg
  int64_t i_inner = 1, i_seg = 1, i_last_extent = 1;  // TO = i_inner * i_seg
  int loops = 0;                       // outer nest, loop 0 innermost (sorted by out stride)
  LoopDim loop[kMaxRank + 2]{};
  int j_loop = -1, i_loop = -1;        // which loops walk the J and I segments
  // Tile order (tile_walk.hpp): loop 0 and loop b_loop form a plane walked in groups of
  // ga x gb tiles. Default b_loop = 1, ga = loop[0].extent, gb = 1: the plain odometer.
  int b_loop = 1;
  int64_t ga = 1, gb = 1;
  int64_t tasks = 1;                   // tiles in all
  // The output has gaps between its rows (a strided output that is not compact, as a padded
  // sub-tensor): the partial lines at a row's ends are never completed by another row.
  bool out_gaps = false;
  // icol[to .. to + kMaxLineExt) are the first columns of the next I segment (same row of the
  // output), which a tile of the non-temporal path appends to finish its last output line.
  int64_t icol[Tuning::kMaxTileSide + Tuning::kMaxLineExt]{};
  int64_t orow[Tuning::kMaxTileSide]{};
};

// Elements that always reach the end of a partially written cache line: ceil(63 / eb).
inline int line_ext(size_t eb) {
  return static_cast<int>((static_cast<size_t>(kTuning.line_bytes) - 2 + eb) / eb);
}

// Whether the non-temporal path can stage a row of this geometry's tiles: TO columns plus the
// line_ext columns that finish its last line, in kTuning.stage_bytes.
inline bool staged_rows_fit(const TileGeometry& g) {
  return (static_cast<int64_t>(g.to) + line_ext(g.eb)) * static_cast<int64_t>(g.eb) <=
         kTuning.stage_bytes;
}

// Builds the tile geometry of `s` (s.rank >= 2, s.perm[0] != 0). False, with `why`, when the
// request cannot apply (matrix without long enough leading extents, bad sides).
bool make_tile_geometry(const Shape& s, const TileRequest& req, TileGeometry* g, std::string* why);

// What a tiled plan does with each tile instead of the transpose kernel of g.eb: the TileFn
// contract with input elements of g.in_eb bytes and output elements of g.eb (typed_tiles.cpp:
// conversion and scaling fused into the tile). Called concurrently from the plan's threads.
class TileOp {
 public:
  virtual ~TileOp() = default;
  virtual void run(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                   int nc) const = 0;
  virtual std::string name() const = 0;
  // Whether the engine asks for each next tile's input lines ahead (as for 1- and 2-byte
  // tiles, which it does for any operation): for kernels that read 8-32 columns a block, as
  // the plain ones, and not for operations that read a band's columns one after another.
  virtual bool prefetches() const { return false; }
};
using TileOpPtr = std::shared_ptr<const TileOp>;

// Executable plans (`op`: see TileOp; nullptr: the transpose kernel of g.eb).
BackendPlanPtr make_run_plan(const Problem& p, const ExecSettings& x, double predicted);
BackendPlanPtr make_tile_plan(const char* schema, const TileGeometry& g, const ExecSettings& x,
                              double predicted, TileOpPtr op = nullptr);

// Cost model: predicted seconds of each schema (bandwidth model, see docs/cpu.md).
double predict_run(const Problem& p, const RunGeometry& g, const ExecSettings& x);
// The most rows of a tile whose output lines fall into one L1 set (tuning.hpp l1_sets), and
// whether the model charges that: plain 4-byte problems whose tensors fit the threads' L2.
int rows_per_l1_set(const TileGeometry& g);
bool l1_crowding_counts(int64_t volume, size_t elem, int threads);
// `elem`: the problem's element size where it differs from g.eb (a super plan's element is the
// whole leading run); 0: g.eb.
double predict_tile(const TileGeometry& g, int64_t volume, const ExecSettings& x,
                    size_t elem = 0);

// Thread count of options.num_threads (0 = omp_get_max_threads()), at most 4 per processor.
int resolve_threads(int requested);

// Runs f(begin, end) over [0, units) of a `bytes`-byte problem: at once on the calling thread
// (one thread, or below kTuning.serial_below_bytes), or in chunks (kTuning.chunks_per_thread per
// thread, each at least kTuning.min_chunk_bytes) that `threads` OpenMP threads take in order as
// each becomes free, so that a slow core does not hold up the others; below
// kTuning.static_below_bytes in fixed ranges instead (cache locality from call to call). f must
// be callable concurrently on disjoint ranges.
int64_t chunk_count(int64_t units, int64_t bytes, int threads);
bool static_chunks(int64_t bytes);
template <class F>
void run_chunks(int threads, int64_t units, int64_t bytes, const F& f) {
  const int64_t n = threads <= 1 ? 1 : chunk_count(units, bytes, threads);
  if (n <= 1) {
    f(int64_t{0}, units);
    return;
  }
  if (static_chunks(bytes)) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t c = 0; c < n; ++c) f(units * c / n, units * (c + 1) / n);
    return;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t c = 0; c < n; ++c) f(units * c / n, units * (c + 1) / n);
}

// Whether an output of `bytes` written by `threads` threads should use non-temporal stores:
// beyond `fraction` of the LLC share of those threads (the LLC size is queried once).
bool want_nt(int64_t bytes, int threads, double fraction = kTuning.nt_llc_fraction);
// Cost model: memory traffic of writing `bytes`, per byte, with or without non-temporal stores.
double write_factor(int64_t bytes, const ExecSettings& x);

}  // namespace xpose::detail::cpu
