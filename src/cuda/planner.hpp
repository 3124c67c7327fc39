// The CUDA planner: candidate kernels for a normalized problem, an analytic cost model over
// device properties, and the kernel parameter blocks of a chosen candidate. Host C++ only: no
// CUDA header reaches this file or planner.cpp, so the model is testable without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/problem.hpp"
#include "cuda/model.hpp"
#include "cuda/params.hpp"
#include "cuda/runtime.hpp"

namespace xpose::detail {

// Every schema maps to one kernel: rows.cu (Copy, Rows), direct.cu (Direct), or a tile kernel,
// tiled.cu or narrow.cu (the others).
enum class Schema : unsigned {
  Copy = 1u << 0,         // rank <= 1: plain copy
  Rows = 1u << 1,         // FVI-Match-Large / TiledCopy: leading dim stays, rows copied
  FviSmall = 1u << 2,     // FVI-Match-Small (TTLG Alg. 6): leading dim stays, b x b x N0 slices
  Tiled = 1u << 3,        // Orthogonal-Distinct / Tiled: disjoint input and output runs
  Packed = 1u << 4,       // Orthogonal-Arbitrary / Packed: overlapping runs, nothing split
  PackedSplit = 1u << 5,  // Orthogonal-Arbitrary / PackedSplit: overlapping runs, dims split
  Direct = 1u << 6,       // tensors up to ~1 MB: a thread per output element (direct.cu)
};
const char* schema_name(Schema s);
// Whether `s` runs the row kernel (RowParams) rather than the tiled one (TiledParams).
inline bool is_rows(Schema s) { return s == Schema::Copy || s == Schema::Rows; }
inline bool is_direct(Schema s) { return s == Schema::Direct; }

// A forced schema request, parsed from "name[:key=value,...]" (docs/cuda.md).
struct SchemaRequest {
  unsigned mask = 0;      // allowed Schema bits; 0 = planner's choice among all
  int threads = 0;        // tiled kernels: block size; 0 = planner's
  int64_t in_run = 0;     // tiled kernels: target input run (elements); 0 = planner's targets
  int64_t out_run = 0;    // tiled kernels: target output run (elements)
  int stages = 0;         // tiled kernels, elements >= 4 B: cp.async buffers; 0 = planner's
  int band = 0;           // tiled kernels: V1BF band width in tiles (params.hpp); 0 = off
  std::string text;       // as given
};
// Parses `text` (non-empty); on failure returns false and sets `why`.
bool parse_schema(const std::string& text, SchemaRequest* req, std::string* why);

// One candidate: the schema and the tile it stages (tiled kernels), with its predicted time.
struct Choice {
  Schema schema = Schema::Copy;
  // Tiled kernels: input run = input dims 0..a-1 whole and dim a by `ta`; output run = output
  // dims 0..c-1 whole and output dim c (input dim perm[c]) by `tc`.
  int a = 0, c = 0;
  int64_t ta = 1, tc = 1;
  int threads = 0;
  int stages = 1;  // shared-memory buffers (cp.async pipeline depth for elements >= 4 bytes)
  int band = 0;    // V1BF band width (tiles) of the tile walk; 0: plain order (params.hpp)
  bool narrow = false;  // the tile runs in narrow.cu (elements of 1 and 2 bytes), not tiled.cu
  // ... or, Tiled with one-dim runs (a = c = 0), in narrow2d.cu's fixed tile (params.hpp)
  bool narrow2d = false;
  bool wide2d = false;   // ... and that tile wide2d.cu's (narrow2d set too; Narrow2dParams)
  int thin = 0;  // ... or thin2d.cu's, its mode (1, 2: thin2d_takes; narrow2d set too)
  bool cells = false;  // Tiled: cells.cu's tiles of cells (cell_dims; CellParams)
  bool padded = false;  // narrow.cu's gathered tile with padded rows (NarrowParams::row_break)
  // narrow.cu's gathered tile without padded rows whose raw rows fit (NarrowParams::raw_rows;
  // build_narrow's rule may still realign them): a feature of the narrow trees (model.hpp), and
  // where the model does not know it, ranked among gathered tiles at kNarrowRawRowsFactor of
  // its prediction (planner.cpp prefer_raw_rows).
  bool raw_rows = false;
  // narrow.cu's launch grid (cost_narrow) where build_narrow takes raw rows, and where it
  // realigns them: `grid`, or more blocks an SM for small tiles (params.hpp kNarrowSmallBlocks)
  unsigned raw_grid = 0;
  unsigned realigned_grid = 0;
  bool general = false;  // Direct of a non-plain problem: the general kernel (general.cu)
  // Typed tiles of tiled.cu without 4-byte groups (group_reads / group_writes): the view for
  // pointers that are multiples of their element sizes but not of 4 bytes (backend.cpp).
  bool ungrouped = false;
  int64_t in_run = 0, out_run = 0;  // elements per contiguous run in the tile (both sides)
  int64_t tile_volume = 0, num_tiles = 0;
  unsigned grid = 0;
  double predicted = 0;               // seconds
  // wide2d: its speed against the tile kernel on the tile it stands for, which every prediction
  // of it is scaled by (the regression's too: it was fitted on the tile kernel)
  double factor = 1;
  CostTerms terms;                    // the analytic model's pieces: the regression's features
  const Regression* model = nullptr;  // what predicted `predicted`; null: the analytic model
};

// All candidates the planner considers (those `req` allows; req may be null), best first:
// ranked by the device's regression model where it has one and `use_regression`, else by the
// analytic model (cheaper: fallback views of a plan, which predict nothing a caller sees).
void enumerate_choices(const Problem& p, const DeviceInfo& dev, const SchemaRequest* req,
                       std::vector<Choice>* out, bool use_regression = true);

// The first of enumerate_choices(p, dev, req, &all, use_regression), found without keeping or
// ranking the others (heuristic planning wants only it): false when there is no candidate.
bool best_choice(const Problem& p, const DeviceInfo& dev, const SchemaRequest* req, Choice* best,
                 bool use_regression = true);

// The general kernel's choice for a non-plain `p` (any size and rank; also what runs it for
// pointers that are not multiples of their element sizes).
Choice general_choice(const Problem& p, const DeviceInfo& dev);
// The element operation of a problem (ElemOp{} when plain).
ElemOp elem_op(const Problem& p);

// The analytic model's fixed cost of one kernel launch (every candidate's CostTerms::launch_s).
double analytic_launch_seconds();
// The largest tensor that the Direct schema takes: bytes and elements (but see direct_in_l2).
int64_t direct_max_bytes();
int64_t direct_max_elems();
// Plain tensors of 4 bytes and more whose input and output fit in L2 (l2_resident) take the
// Direct schema too where its reads stay within kDirectL2Share of L2: the input's bytes times
// direct_read_factor. Not those whose runs are one dim each (wide2d_takes: against wide2d.cu's
// tiles direct ran 25 of 28 slower, 0.31-0.97x) nor rows of kDirectRowBytes and more (rows.cu's
// warps: a 4-byte one, rows of 2.7 KB, ran 0.81x in direct).
// There a thread reads an element of 4-16 contiguous bytes from L2, while tiled.cu's tiles of a
// few hundred elements wait on their setup and barriers. The share was read off the H200's
// measurements of 313 such problems (fresh-middle seeds, random cells problems, 12-24 MiB), then
// checked on new seeds there, graph-replayed against main: the 77 problems whose plans changed
// ran 1.61x faster by geometric mean (0.95-3.03x; 17 of 60 on each of two fresh-middle seeds,
// 1.49x and 1.59x). With 1- and 2-byte elements direct ran 0.38-0.46x (session 45,
// docs/perf/middle-h200.md).
inline constexpr double kDirectL2Share = 0.4;
inline constexpr int64_t kDirectRowBytes = 1024;
bool direct_in_l2(const Problem& p, const DeviceInfo& dev);
// The 32-byte sectors that the input reads of each warp of the direct kernel (32 consecutive
// output elements; the warps of its first and a middle block) touch, over the sectors their
// bytes fill: 1 where they read whole sectors, up to 32 / element size where each reads its own.
// (Counted a block of 256, as L1 could share them, it let through problems that ran 0.71-0.80x.)
// Walks the kernel's own parameter block (build_spec's): volumes within 32 bits.
double direct_read_factor(const Problem& p);

// The parameters of a choice, ready to launch.
struct KernelSpec {
  KernelSpec() : tiled{} {}
  Choice choice;
  int log2_elem = 0;
  unsigned smem_bytes = 0;
  // The block of the choice's kernel only (a plan keeps one spec per view: ~1.3 KB less each).
  union {
    TiledParams tiled;    // tiled kernels
    RowParams rows;       // Copy, Rows
    NarrowParams narrow;  // tiled kernels of choice.narrow
    Narrow2dParams narrow2d;  // choice.narrow2d
    CellParams cells;     // choice.cells
    DirectParams direct;  // Direct
    GeneralParams general;  // Direct of choice.general
  };
};
void build_spec(const Problem& p, const Choice& c, KernelSpec* spec);
// The narrow kernel's block of a tile choice (narrow_plan.cpp).
// Raw rows (NarrowParams::raw_rows) for gathered tiles without padded rows that fit them: by
// the rule of params.hpp (narrow_raw_waves), never, or wherever they fit (tests).
enum class RawRows { ByRule, Never, WhereTheyFit };
void build_narrow(const Problem& p, const Choice& c, NarrowParams* np,
                  RawRows raw = RawRows::ByRule);
// The shared-memory wavefronts of narrow.cu's gathered write phase over the first
// kNarrowSampleWarps warps of a full tile (spans starting on sectors), for a block `np`.
int64_t narrow_gather_wavefronts(const NarrowParams& np, int es);
// Typed problems the narrow kernels convert (narrow.cu's tiles through narrow_typed.cu, and
// narrow2d.cu's): dense, without beta, from a floating type of 1 or 2 bytes to one of those or
// to f32, scaled or not (narrow_plan.cpp).
bool narrow_converts(const Problem& p);
// Typed problems the narrow kernel's converting loads make (narrow_loads.cu): dense, without
// beta, from f32 to e4m3 or e5m2, scaled or not; planned as tiles of the output's 1-byte
// elements (tile_shape.hpp narrow_geometry).
bool narrow_loads(const Problem& p);
// Whether narrow2d.cu takes the Tiled candidates (narrow ones, or typed ones of the conversions it
// makes) whose input run ends in input dim a and output run in output dim c, and its block
// (narrow_plan.cpp).
bool takes_narrow2d(const Problem& p, int a, int c);
// Whether narrow2d's candidates of `p` are wide2d.cu's (plain elements of 4 bytes and more whose
// one-dim runs hold a warp's 32 elements).
bool wide2d_takes(const Problem& p);
// Whether wide2d.cu takes `p`'s one-dim runs as 4-byte words of 4 / elem_size elements (plain
// elements of 1 and 2 bytes, both run dims multiples of that and of at least 64 bytes and 32
// elements): a candidate in the L2 band (kPacked2dL2Factor).
bool packed2d_takes(const Problem& p);
// The 2D tiles' extents of input dim 0 and of dim perm[0]: the kernel's full tile (narrow2d.cu's
// 128 x 256 bytes; wide2d.cu's 32 x 32 elements, packed 1- and 2-byte ones 128 x 128 bytes),
// or the whole dim.
std::pair<int64_t, int64_t> narrow2d_tile(const Problem& p, bool wide);
// wide2d's candidate is the tile kernel's tile of the same one-dim runs (32 x 32 elements),
// ranked at these factors of that tile's prediction: kWide2dL2Factor where both tensors fit in
// the L2 share the analytic model calls resident (there wide2d ran that tile 1.3-1.7x faster,
// graph-replayed: the tile kernel's setup was about half of its instructions), kWide2dFactor
// above (1.00-1.10x there; against longer output runs, which the tile kernel takes for large
// 4-byte problems, it ran 0.79-0.94x). Chosen among (0.6-0.7, 0.8-0.97) on fresh seeds: at 0.8
// and 0.9 fresh large 4-byte problems lost up to 0.79x (session 20, docs/perf/middle-h100.md).
inline constexpr double kWide2dL2Factor = 0.7;
inline constexpr double kWide2dFactor = 0.97;
// narrow2d's candidate carries the prediction of the tile it stands for (the narrow model's of
// the narrow kernel's tile for plain elements, the typed tiles' for conversions), and
// narrow2d.cu runs those runs faster (1.08-1.15x in session 17 against the narrow kernel, more
// since its loads walk rows): it ranks at 0.93 of that prediction. At 1.0 it lost ties to packed-split tiles of the same prediction
// that ran 5-17 % slower ((45, 270144) 2 B and its like); on 12 fresh 2-byte problems, measured
// planning agreed within 5 % with 11 of its choices at 0.93 against 8 with a tie-break alone
// (session 19, docs/perf/narrow-h100.md).
inline constexpr double kNarrow2dFactor = 0.93;
// Where a gathered tile ranks first by a model that does not know raw rows (the analytic one,
// narrow trees fitted before the `raw` feature: Regression::narrow_knows_raw), the gathered tile
// ranked first at this factor of the prediction of those whose raw rows fit (Choice::raw_rows)
// takes its place (planner.cpp prefer_raw_rows): such models were fitted on realigned rows
// (before session 36), and raw rows ran 1.15-1.23x faster by geometric mean (H200, 1 and 2 B,
// fresh problems, the rule's realigned ones included). Applied to every candidate's prediction,
// the factor put gathered tiles ahead of quads and narrow2d.cu's tiles that ran faster (45 of 466
// problems moved: 0.97x by geometric mean, 0.71-1.59x); the 6 that moved between gathered tiles
// ran 1.00-1.28x faster. Narrow trees that know raw rows rank by their prediction alone: with
// the H200's (session 37) the factor changed one pick of 733 problems they were not fitted on,
// to a tile 1.02x slower.
inline constexpr double kNarrowRawRowsFactor = 0.85;
// wide2d's packed candidate for 1- and 2-byte elements, where both tensors fit in L2, is ranked
// at this factor of the best narrow tile's prediction (the narrow model's), so it is the choice
// there: on 1-16 MB problems with whole-word run dims it ran 1.19x (1 B, 0.89-1.47) and 1.31x
// (2 B, 1.10-1.86) faster graph-replayed than the plans before it. Above L2 it ran 0.94-1.16x of
// narrow2d and is not a candidate (session 21, docs/perf/middle-h100.md).
inline constexpr double kPacked2dL2Factor = 0.6;
// Plain 1-byte narrow2d tiles (32 KB) take output runs of kNarrow2dShortOutBytes instead of a
// full tile's where full tiles would number fewer than this many per SM. With the short tile
// everywhere, problems of 42-280 full tiles ran 1.0-1.4x faster and those with more 0.8-1.1x;
// with this rule, 1-16 MB 1-byte problems taking it ran 1.15x (0.93-1.36), 2-byte ones (16 KB
// tiles) only 1.02x, so they keep full tiles (session 21, docs/perf/middle-h100.md).
inline constexpr int kNarrow2dShortTilesPerSm = 3;
// Whether narrow2d.cu has the short tile for `p`'s elements (plain 1-byte: its PlainMove<1, 1>
// instantiation); make_narrow2d and the block's shared memory follow it.
bool narrow2d_short_tiles(const Problem& p);
// Whether thin2d.cu takes `p` (params.hpp): plain 1- and 2-byte elements, one run dim under
// kNarrow2dMinBytes (narrow2d's least) beside the other, of at least that, in one tensor, and a
// tile of at least kThin2dMinTileBytes: flat output (returns 1) where the output's dim 0 is short
// and its dim 1 is input dim 0, flat input (2) where input dim 0 is short and input dim 1 is the
// output's dim 0; else 0.
int thin2d_takes(const Problem& p);
// Its tile's extents of input dim 0 and of dim perm[0] for the mode thin2d_takes returned: the
// short dim whole, and equal rows of the long one of at most kThin2dTileBytes / s bytes
// (kThin2dLargeTileBytes from kThin2dLargeMinBytes; s: the short dim's extent) in multiples of
// 128 from 128 to kThin2dMaxRowBytes, or the whole dim.
std::pair<int64_t, int64_t> thin2d_tile(const Problem& p, int mode);
// The shared memory of a thin tile's block (its stretch with thin_skew words after every 32).
int thin2d_smem_bytes(const Narrow2dParams& np, int elem_size);
// The skew of a thin tile's stretch for the short dim's extent `s` and mode `thin` (1, 2): the
// fewest words after every 32 that leave at most two-way bank conflicts where lanes store (flat
// output) or load (flat input) elements s apart, for 1- and 2-byte elements alike
// (tests/gpu/thin2d_gpu_test.cpp counts them).
int thin2d_skew(int thin, int s);
// thin2d's candidate carries the prediction of the narrow tile it stands for (the best narrow
// candidate's) times this factor, and ranks first wherever it is a candidate (enumerate_choices,
// best_choice): on the H200 it ran 101 of 102 such problems 1.01-2.97x faster than the plans
// before it, and one at 0.99x (session 30, docs/perf/thin-h200.md).
inline constexpr double kThin2dFactor = 0.7;
// Cells (cells.cu, params.hpp CellParams): the dims of a cell of `p`, the fewest k such that
// input dims 0..k-1 are output dims 0..k-1 and hold at least kCellMinBytes, or, k = 1 (input dim
// 0 stays first: rows), kCellRowMinBytes (0 when there is none, when that cell holds more than
// kCellMaxBytes or kCellMaxElems, or when `p` is not of 1- or 2-byte elements, plain or a narrow
// conversion, narrow_converts; typed ones have no rows).
int cell_dims(const Problem& p);
// Makes `c` (a narrow candidate's prediction and terms) the cells' candidate of `p`, ranked at
// kCellFactor of that prediction, and first wherever it is one (enumerate_choices,
// best_choice). Its block: build_cells (params.hpp cell_smem_bytes: its shared memory).
void make_cells(const Problem& p, const DeviceInfo& dev, Choice* c);
void build_cells(const Problem& p, const Choice& c, CellParams* cp);
// Shared-memory wavefronts of a cell's loads and writes in cells.cu (a sample of each phase's
// warp accesses, scaled to the cell) with 4 bytes of padding after every 2^pad_log bytes of a
// slot (0: none); cell_pad_log: the padding with the fewest (none, or pad_log 5..9).
int64_t cell_wavefronts(const CellParams& cp, int es, int pad_log);
int cell_pad_log(const CellParams& cp, int es);
// The cells' candidate carries the best narrow candidate's prediction times this factor (no
// model was fitted on cells.cu) and ranks first wherever it exists: 1.53x faster by geometric
// mean on 122 such problems, 0.83x at worst (session 31, docs/perf/cells-h200.md).
inline constexpr double kCellFactor = 0.7;

// Makes a Tiled choice with one-dim runs narrow2d.cu's (wide2d.cu's where c->wide2d): its tile
// (in_run x out_run), threads and grid, ranked at kNarrow2dFactor of its prediction (wide2d:
// c->factor, set by the caller). Both take their block, Narrow2dParams, from build_narrow2d.
void make_narrow2d(const Problem& p, const DeviceInfo& dev, Choice* c);
void build_narrow2d(const Problem& p, const Choice& c, Narrow2dParams* np);

// One line, no commas: "tiled in=32 out=32 tile=1024 T=256 S=3 grid=528 8B".
std::string summarize(const Problem& p, const Choice& c);

}  // namespace xpose::detail
