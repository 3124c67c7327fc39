// Kernel parameter blocks: plain values built by the planner (host C++, no CUDA headers) and
// passed to the kernels by value (__grid_constant__), so one plan can run on several streams at
// once with no per-launch state. Each block stays well under the 4 KB parameter limit.
#pragma once

#include <cstdint>

#include "cuda/fast_div.hpp"

namespace xpose::detail {

// A tile holds at most this many dimensions (tile volume <= kMaxTileVolume, extents >= 2).
inline constexpr int kMaxTileDims = 12;
inline constexpr int kMaxGridDims = 32;
// Elements per thread per phase (thread coarsening); register arrays are sized by it.
inline constexpr int kElemsPerThread = 4;
// Blocks of up to kTileThreadsSmall threads run two per SM (64 registers); larger blocks (big
// tiles, up to kMaxTileThreads) run one per SM, from a second instantiation of the kernel.
inline constexpr int kTileThreadsSmall = 512;
inline constexpr int kMaxTileThreads = 1024;
inline constexpr int kMaxTileVolume = kElemsPerThread * kMaxTileThreads;
// Per tile buffer; elements of 4 bytes and more use 2 to kMaxTileStages buffers (cp.async
// pipeline depth; over 48 KB: opt-in, set once per device for every instantiation).
inline constexpr int kMaxTileSmemBytes = 40 * 1024;
inline constexpr int kMaxTileStages = 4;
// Static shared memory of the tile kernel besides its buffers (the decoded next tiles).
inline constexpr int kTileStaticSmemBytes = 160;
// Typed tiles' shared memory per block with beta's staged old outputs (planner.cpp
// typed_pipeline): two blocks of the small tiles per SM fit in it; their pipeline is then
// kTypedDeepStages buffers deep where that many fit, else 2.
inline constexpr int kTypedBlockSmemBytes = 96 * 1024;
inline constexpr int kTypedDeepStages = 4;
// TiledParams::group_slot of tiles whose read phase moves single elements.
inline constexpr int32_t kNoGroup = -2;
// Sentinel coordinates of a thread slot past the tile volume: never valid.
inline constexpr uint32_t kNoSlot = 0xFFFFFFFFu;

// The element operation of a typed problem (xpose_plan_create_ex, docs/cuda.md "Typed
// problems"): out = alpha * convert(in) + beta * out in the compute type, rounded once to the
// output type. in_type BYTES: a plain move (every plain problem). The host picks the kernel
// instantiation by the two types; the kernel reads the scalars.
struct ElemOp {
  int32_t in_type = 0, out_type = 0;  // xpose_type_t
  int32_t scale = 0;                  // alpha != 1: multiply
  int32_t accumulate = 0;             // beta != 0: out is read and added
  double alpha[2] = {1, 0}, beta[2] = {0, 0};
};

// One dimension of the tile, in the order a phase walks the tile (input order for the read
// phase, output order for the write phase).
struct TileDim {
  FastDiv32 extent;     // tile extent of this dimension
  int32_t smem_stride;  // elements, in the padded shared-memory tile
  int32_t slot;         // 0 or 1 when this dimension is blocked (partial at the edge), else -1
  int64_t stride;       // global stride in elements (input stride or output stride)
};

// How a thread's positions of one phase follow from its first: position e is slot
// threadIdx.x + e * threads of the phase's walk. When `threads` is a multiple of the volume of
// the walk's first dims and the rest moves the next dim without a carry for every position in
// use (build_tiled), position e is the first plus e steps, and a block decodes one position per
// thread and phase instead of kElemsPerThread: at 1-16 MB a block moves only ~2 tiles, and the
// decodes were more than half of its instructions (docs/perf/middle-h100.md).
struct TileStep {
  int64_t global = 0;  // elements
  int32_t shared = 0;  // elements
  uint32_t coord = 0;  // packed blocked-slot coordinates, as TileDim positions carry them
  int32_t linear = 0;  // 0: decode every position
};

// One dimension of the grid of tiles, fastest first.
struct GridDim {
  FastDiv64 count;     // number of tiles along this dimension
  int64_t in_step;     // input elements between neighbouring tiles
  int64_t out_step;    // output elements between neighbouring tiles
  int64_t extent;      // the dimension's full extent (for the edge limit of blocked dims)
  int32_t tile;        // tile extent
  int32_t slot;        // blocked slot, -1 when the tile covers the whole dimension
};

// Tiled / Packed / PackedSplit / FVI-Match-Small: one kernel over a tile of the tensor staged
// in shared memory. Read phase walks the tile in input order, write phase in output order.
struct TiledParams {
  int32_t n_in = 0, n_out = 0, n_grid = 0;
  int32_t volume = 0;       // tile volume (elements)
  int32_t wide = 0;         // 1: tile-relative offsets need 64 bits (else they fit in int32)
  int32_t buffer_elems = 0; // shared-memory elements of one tile buffer
  int32_t stages = 2;       // buffers (cp.async pipeline depth, 2..kMaxTileStages) for >= 4 B
  int32_t slot_tile[2] = {1, 1};
  int64_t num_tiles = 0;
  TileStep in_step, out_step;  // the read and write phases' position steps
  // V1BF walk order (Gorawski & Lorek's banded full-matrix scheme), band_w.d > 1 when on: the
  // tiles of the first two grid dims (G0 x G1, G0 fastest) are taken in bands of band_w.d
  // columns of G0, row by row within a band; the last band is band_last.d wide. The blocks in
  // flight then touch a few rows of one tensor and a few columns of the other, not a whole row.
  // 32-bit (the planner bands only grids of fewer than 2^31 tiles): the decode is on each
  // tile's critical path (docs/perf/cuda-h100.md run 8: 64-bit divisors cost 20%).
  FastDiv32 band_plane;  // G0 * G1
  FastDiv32 band_span;   // band_w.d * G1: tiles of one full band
  FastDiv32 band_w;
  FastDiv32 band_last;
  uint32_t band_last_start = 0;  // first position of the last band
  uint32_t band_g0 = 0;          // G0
  ElemOp op;                     // typed problems: the write phase's element operation
  // Typed tiles of 1- and 2-byte input elements: the read phase moves groups of 4 / size
  // elements along input dim 0 (4 bytes, by cp.async, pipelined) when the planner found every
  // input offset a multiple of the group (group_slot: the blocked slot of dim 0, -1 if none,
  // kNoGroup when the read phase moves single elements). `in` and the grid's in_step then
  // count groups, and read_volume is the read phase's positions (volume unless grouped).
  int32_t group_slot = kNoGroup;
  int32_t read_volume = 0;
  // Typed tiles of 1- and 2-byte output elements: the write phase stores groups of 4 / size
  // elements along output dim 0 as 4-byte words likewise (out_group_slot, write_volume; `out`
  // and the grid's out_step count groups), the group's elements out_group_smem apart in
  // shared memory.
  int32_t out_group_slot = kNoGroup;
  int32_t write_volume = 0;
  int32_t out_group_smem = 0;
  // Typed tiles with beta != 0: byte offset in shared memory of the old outputs' staging slots
  // (one per write position and stage, kElemsPerThread x threads words of the write phase's
  // access, a stage apart), filled by cp.async with the tile's input; 0: the write phase reads
  // them from global memory (outputs of 1 and 2 bytes stored one element at a time).
  int32_t old_offset = 0;
  TileDim in[kMaxTileDims];
  TileDim out[kMaxTileDims];
  GridDim grid[kMaxGridDims];
};

// Narrow tiles: the tile kernel for elements of 1 and 2 bytes (narrow.cu). The tile is the same
// as above (input run x output run, planner.cpp), staged as rows of `pitch` bytes: row r holds
// input run r (the tile dims outside the input run, in output order, number the rows), its
// bytes realigned to the row start whatever the run's address, out of a raw copy of the row's
// aligned 16-byte envelope (cp.async, raw_pitch bytes a row). The write phase
// assembles aligned 4-byte words of each output run (a span) from the rows and stores them
// whole, or byte by byte at the span's two ends. So both sides of the tile move in wide,
// aligned accesses at any extent and any pointer alignment. Offsets and strides in bytes.
inline constexpr int kNarrowThreads = 256;
inline constexpr int kNarrowChunk = 16;  // bytes a read position moves
inline constexpr int kNarrowWord = 4;    // bytes a write position moves
inline constexpr int kNarrowGroup = 8;   // write positions of one span side by side (a sector)
inline constexpr int kNarrowWords = 4;   // words of one write position, a group's words apart
// Gathered spans of at least kNarrowLineSpanBytes (a full tile's output run) put a warp's
// positions on one span side by side (32 words, a line) instead of kNarrowGroup on each of four
// spans: with few long spans the four groups of a warp sat 128 bytes of one span apart, their
// gathers on the same banks (ncu, (15, 225, 3375) perm (1, 0, 2) 2 B: half the shared-memory
// wavefronts were conflicts) and their stores on four lines. 1.085x on 21 fresh problems with
// such spans (1.00-1.27x); lines on shorter spans lost up to 0.6x (docs/perf/narrow-h100.md,
// session 23).
inline constexpr int kNarrowLineGroup = 32;
inline constexpr int kNarrowLineSpanBytes = 4096;
// log2 of the gathered write's group for spans of `span_bytes` (a full tile's output run): the
// one rule build_narrow and the cost model share (narrow.cu reads NarrowParams::group_shift).
constexpr int narrow_group_shift(int64_t span_bytes) {
  return span_bytes >= kNarrowLineSpanBytes ? 5 : 3;
}
static_assert(1 << 5 == kNarrowLineGroup && 1 << 3 == kNarrowGroup, "narrow_group_shift");
inline constexpr int kNarrowBlocks = 3;  // resident blocks per SM the register use allows
// Small narrow tiles run up to kNarrowSmallBlocks blocks an SM where the registers of the
// instantiations that may (DeviceInfo::narrow_four_regs) and their shared memory allow
// (Choice::raw_grid, Choice::realigned_grid): with fewer bytes a tile, three blocks hold too few
// loads in flight and wait at the tile's barriers. On the H200:
// - raw-row tiles (NarrowParams::raw_rows, 1 and 2 bytes; their instantiations use 60-64
//   registers within three blocks' launch bounds) of under kNarrowGatheredFourBlockBytes:
//   8-13 KB tiles ran 1.03-1.06x faster, 14-16 KB ones 0.96-1.03x (session 37);
// - 1-byte quads without the deal warp of at most kNarrowQuadFourBlockBytes, from an
//   instantiation of their own bounded to four blocks (64 registers; bounding the three-block
//   one too cost its launches 0.5 %): 1.07x (13 problems, 0.94-1.16x; larger tiles 0.86-1.08x);
// - realigned 1-byte gathered tiles (packed, packed-split, fvi-small) of under
//   kNarrowGatheredFourBlockBytes, whose only instantiations are bounded to four blocks (62
//   registers: their three-block launches ran as before): 1.02x (7 problems, 0.92-1.08x).
// 2-byte quads (the deal warp's 288 threads: 56 registers at four blocks) ran 0.98x, realigned
// 2-byte gathered tiles 0.99x (session 38, docs/perf/narrow-h200.md).
inline constexpr int kNarrowSmallBlocks = 4;
inline constexpr int64_t kNarrowGatheredFourBlockBytes = 13 * 1024;
inline constexpr int64_t kNarrowQuadFourBlockBytes = 10752;  // 10.5 KB
// Threads of a narrow.cu block: kNarrowThreads move the tiles; quad plans with a deal warp
// (NarrowParams::deal_warp) add a warp that deals them, within the same launch bounds (its
// registers stay at three blocks an SM).
constexpr int narrow_block_threads(bool deal_warp) {
  return kNarrowThreads + (deal_warp ? 32 : 0);
}
// 1-byte quads take the deal warp where their rows (input runs) hold fewer bytes than this:
// on the H200 those ran 1.05x faster with it, and rows of 96 bytes and more 0.93-1.01x (the
// slowest, 0.76x, with 8 % more DRAM traffic; docs/perf/narrow-h200.md, session 35). 2-byte
// quads always take it (session 34: 1.07x).
inline constexpr int kNarrowDealWarpRowBytes1 = 64;
// Whether a narrow tile takes the deal warp (NarrowParams::deal_warp): quads of 2 bytes, of 1
// byte with rows (input runs) of fewer than kNarrowDealWarpRowBytes1 bytes, and typed quads
// (narrow_typed.cu: their only instantiation).
constexpr bool narrow_deal_warp(bool quad, int64_t es, int64_t row_bytes, bool typed) {
  return quad && (typed || es == 2 || row_bytes < kNarrowDealWarpRowBytes1);
}
inline constexpr int kNarrowHaloRows = 4;  // quads' halo rows: a unit (NarrowParams::halo)
// Gathered tiles: a row's dims before the output-fastest one f hold P elements, so a group's
// 8 lanes, 4 output bytes apart, read P words apart: P a multiple of 32 puts them on one bank,
// of 16 on two ((24, 24, 24, 24, 24, 24) perm (2, 0, 3, 5, 4, 1) 1 B: 62 % of the shared-memory
// load wavefronts were conflicts, H200). Where P is a multiple of 16 and f holds 16 bytes or
// more of the tile (four lanes or more gather along it), a word of padding after each P
// elements makes the lane step P + 4 / ES words (NarrowParams::row_break): 4 x odd or 2 x odd,
// distinct banks for the group. Smaller f or P cost more in the realignment than they saved.
inline constexpr int kNarrowRowPad = 4;
// Gathered tiles without padded rows gather from the raw rows (NarrowParams::raw_rows), which
// saves the realignment (a fifth of their time) but puts each row at the input's offset modulo
// 16, so their loads meet on other banks: narrow_plan.cpp takes raw rows where the write
// phase's loads of the words' first bytes by kNarrowSampleWarps warps of a full tile
// (narrow_gather_wavefronts: 2 warps decided as 16 warps of every byte did, at ~1 us a layout
// on the build VM) take at most narrow_raw_waves(es) times the wavefronts of realigned rows.
// One-byte elements load a shared byte per output byte and lost from 1.5 times on (H200,
// session 36, raw rows forced: 0.78-1.20x between 1.5 and 2); two-byte ones, a load per two
// bytes, gained up to 3.75 times and lost from 4 (0.90-1.11x).
inline constexpr int kNarrowSampleWarps = 2;
constexpr double narrow_raw_waves(int es) { return es == 1 ? 1.5 : 2.5; }
// Data bytes of one tile, and a block's shared memory: two raw buffers, the rows, the tables
// (three blocks per SM; the rows under 64 KB for the 16-bit offsets of narrow.cu).
inline constexpr int kNarrowTileBytes = 16 * 1024;
inline constexpr int kNarrowMaxSmemBytes = 72 * 1024;

struct NarrowPhase {
  int32_t n_dims = 0;     // dims numbering the runs of this side (rows, spans), fastest first
  int32_t runs = 0;       // rows (read) or spans (write) of a full tile
  int32_t slot = -1;      // blocked slot whose limit cuts the run (its last dim), or -1
  int32_t unit = 0;       // bytes of the run per unit of that limit
  int32_t full = 0;       // bytes of a run of a full tile
  int32_t per_run = 0;    // 16-byte chunks (read) or 4-byte words (write) per run
  int32_t positions = 0;  // write: the group (1 << group_shift) x the word groups of a tile
  FastDiv32 div;          // read: per_run; write: runs (positions are interleaved by group)
  TileDim dim[kMaxTileDims];  // smem_stride: of the run's first byte; stride: global, bytes
};

struct NarrowParams {
  NarrowPhase rd, wr;
  int32_t quad = 0;        // 1: disjoint runs, written by 4x4 transposes in registers (narrow.cu)
  // Quads whose output runs continue in the next tile along grid[halo_grid] (the runs' blocked
  // dim, or where the runs hold their last dim whole, the output's next dim): tiles
  // after the first along it load the last kNarrowHaloRows rows of the tile before it
  // (halo_in_step bytes before this tile's base, in raw buffer rows rd.runs and on) into the
  // padding rows before row 0 and write the word across their runs' starts; those before the
  // last (halo_tiles along it) leave the word across their ends to the next.
  int32_t halo = 0;
  int32_t halo_grid = -1;
  // 1: a warp of its own deals the tiles (narrow.cu; quads only, narrow_plan.cpp's rule: every
  // 2-byte quad, whose only instantiation has the warp).
  int32_t deal_warp = 0;
  // 1: launched with more than kNarrowBlocks blocks an SM (Choice::raw_grid, realigned_grid):
  // 1-byte quads then run their instantiation bounded to kNarrowSmallBlocks.
  int32_t four_blocks = 0;
  int64_t halo_tiles = 1;
  int64_t halo_in_step = 0;
  // Gathered writes: log2 of the positions of one span side by side, kNarrowGroup (a sector)
  // or kNarrowLineGroup (a line, spans of kNarrowLineSpanBytes and more).
  int32_t group_shift = 3;
  int32_t pitch = 0;       // bytes per row (16 x chunks + 4: odd in words, see narrow.cu)
  // Gathered tiles whose output-fastest dim lies in the row past dims of a multiple of 16
  // elements (Tile::run_pad_dim): kNarrowRowPad bytes follow each row_break bytes of the row
  // (byte x of the row at x + kNarrowRowPad x (x / row_break); row_break a multiple of 16, so a
  // realigned 16-byte chunk lies in one stretch); 0: rows as they are.
  int32_t row_break = 0;
  FastDiv32 break_div;     // row_break
  int32_t column_words = 0;  // quads: words per column word of the rows (tile_shape.hpp)
  int64_t in_reach = 0;      // input bytes a tile's loads reach past its base, at most
  // 1: gathered tiles without realignment: the write phase gathers from the raw rows, row r's
  // first byte at T + its rows[] offset (RowEntry::shared: strides congruent to the input's
  // modulo 16, narrow_plan.cpp), T the tile's input address modulo 16, its aligned chunks
  // copied from the chunk boundary there; three raw buffers and no `data` (one barrier a tile).
  int32_t raw_rows = 0;
  // Converting loads (narrow_plan.cpp narrow_loads: f32 inputs in tiles of their output's fp8
  // elements, narrow_loads.cu): log2 of the input bytes a tile byte (2); the raw buffers hold the
  // input's bytes (raw_pitch, raw_per_row, raw_positions, in_reach, in_bytes in them). 0: the
  // input's elements are the tile's.
  int32_t in_log2 = 0;
  int32_t raw_pitch = 0;   // bytes per raw row: the envelope of a row, and 16 more
  int32_t raw_bytes = 0;   // of one raw buffer (two of them lead the shared memory; raw rows: 3)
  int32_t raw_per_row = 0;    // 16-byte chunks of a row's envelope, at most
  int32_t raw_positions = 0;  // rows x raw_per_row
  FastDiv32 raw_div;          // raw_per_row
  FastDiv32 rows_div;         // rows (quads realign lanes on consecutive rows)
  int32_t data_bytes = 0;  // the rows (tile_shape.hpp's narrow_data_bytes); the tables follow
  // Shared-memory offset of output-run element o from its span's base: o x lin_stride when the
  // output run's dims are consecutive in shared memory (n_tab == 0), else from a per-block
  // table of out_run entries built from the n_tab dims below.
  int32_t lin_stride = 0;
  int32_t n_tab = 0;
  int32_t out_run = 0;     // elements of the output run of a full tile
  // 1: neighbouring tiles share partial 32-byte sectors (a tile's contiguous spans of input or
  // output start or end off sector boundaries, pointers on 32 bytes): their tiles are dealt in
  // order (tile_order.cuh); 0: round-robin, unless a pointer is off 32 bytes.
  int32_t shared_sectors = 0;
  int32_t smem_bytes = 0;  // raw buffers, rows, row and span tables, offset table
  int64_t in_bytes = 0, out_bytes = 0;  // the tensors' sizes: loads never leave them
  // Typed problems (in_type not BYTES: dense conversions from floating types of 1 and 2 bytes
  // without beta, narrow_plan.cpp narrow_converts): the write phases' stores convert what they
  // gather (narrow_typed.cu); the tile, its rows and spans are the input's, in its bytes.
  ElemOp op;
  TileDim tab[kMaxTileDims];
  // The walk over tiles, as TiledParams (no bands); steps in elements.
  int32_t slot_tile[2] = {1, 1};
  int32_t n_grid = 0;
  int64_t num_tiles = 0;
  GridDim grid[kMaxGridDims];
};

// Narrow 2D tiles (narrow2d.cu): the Tiled schema where each run is one dimension (input dim 0
// by ti elements, the output's dim 0, input dim perm[0], by tj), every other dimension in the
// grid, for plain elements of 1 and 2 bytes and dense typed problems without beta from floating
// types of 1 and 2 bytes to those or to f32 (narrow_plan.cpp narrow2d_converts). A block takes a
// tile at a time: its rows (input runs) are loaded by 4-byte cp.async as the aligned words that
// cover them, row r at any byte shift into plane r % (4 / EO) (EO: output element bytes; so
// that lanes gathering the rows of consecutive output words read distinct banks), and each
// aligned 4-byte word of an output run is gathered (and converted) from its 4 / EO rows and
// stored whole; the partial words at the runs' two ends follow, a thread each (where runs start
// off words, tiles after the first along them load K rows of halo and write the word across
// their start). Tiles of 128 x 256 bytes (input run x output run; plain 1-byte plans with few
// tiles 128 x 128), 256 threads; the launch takes a block per tile. Plain elements of 4, 8 and
// 16 bytes take the same block in wide2d.cu: tiles of kWide2dTile x kWide2dTile elements,
// kWide2dThreads threads (1- and 2-byte ones with whole-word runs in L2: packed, 128 x 128
// bytes).
inline constexpr int kNarrow2dThreads = 256;
inline constexpr int kWide2dTile = 32;      // elements of a wide2d tile's runs
inline constexpr int kWide2dThreads = 256;
inline constexpr int kNarrow2dInBytes = 128;   // bytes of a full tile's input run
inline constexpr int kNarrow2dOutBytes = 256;  // bytes of a full tile's output run
// ... or of a short tile's: plain 1-byte elements where full tiles would be few (planner.hpp,
// kNarrow2dShortTilesPerSm)
inline constexpr int kNarrow2dShortOutBytes = 128;
// The planner takes it where both run dims hold at least this many bytes.
inline constexpr int kNarrow2dMinBytes = 64;
// The output run bytes of the kernel for a plain 1-byte tile whose output run holds
// `tile_bytes`: a short tile's where it fits, else a full one's (all others: a full one's).
constexpr int narrow2d_out_bytes(int64_t tile_bytes) {
  return tile_bytes > kNarrow2dShortOutBytes ? kNarrow2dOutBytes : kNarrow2dShortOutBytes;
}
// Shared memory: words of a row (the run's bytes at any shift: an odd number), and a block's
// bytes for output elements of `es` bytes and output runs of `out_bytes` (a row per output-run
// element).
inline constexpr int kNarrow2dRowWords = kNarrow2dInBytes / 4 + 1;
// Sector tiles (Narrow2dParams::sector) keep 32 / es rows of halo, the others 4 / es.
constexpr int narrow2d_smem_bytes(int es, int out_bytes = kNarrow2dOutBytes, bool sector = false) {
  return kNarrow2dRowWords * 4 * (out_bytes + (sector ? 32 : 4)) / es;
}
// Plain problems of at least this many bytes whose output runs start off 32-byte sectors and
// take several full tiles along them use sector tiles (narrow2d.cu, narrow_plan.cpp): above the
// H100's L2 share, where sectors that two blocks wrote halves of cost most (session 22: 1-16 MB
// problems ran 0.81-0.84x with them, 30-300 MB ones 1.17-1.21x).
inline constexpr int64_t kNarrow2dSectorMinBytes = int64_t{32} << 20;

// Thin 2D tiles (thin2d.cu): the same one-dim runs where one run dim holds fewer than
// kNarrow2dMinBytes and lies beside the other in one tensor, so that a tile's side of it is one
// contiguous stretch (narrow_plan.cpp thin2d_takes). Flat output (Narrow2dParams::thin 1): the
// output's dim 0 is short and its dim 1 is input dim 0 (an interleave, as NCHW -> NHWC with few
// channels); flat input (2): input dim 0 is short and input dim 1 is the output's dim 0. A tile
// holds the short dim whole and equal rows of the long one, of at most kThin2dTileBytes in all
// (kThin2dLargeTileBytes above the L2, below; rows in multiples of 128 bytes, 128 to
// kThin2dMaxRowBytes: planner.hpp thin2d_tile) and at least kThin2dMinTileBytes; a block of
// kThin2dThreads per tile.
inline constexpr int kThin2dThreads = 256;
inline constexpr int kThin2dTileBytes = 12288;
inline constexpr int kThin2dMaxRowBytes = 4096;
// Where the long dim is short, tiles under kThin2dMinTileBytes are not taken: in tiles of 4 KB,
// (131, 31, 31892) perm (1, 0, 2) 1 B ran at 0.52x of the narrow kernel, whose tiles span the next
// dim too (the first version of thin2d.cu, session 30).
inline constexpr int kThin2dMinTileBytes = kThin2dTileBytes / 2;
// Problems of at least kThin2dLargeMinBytes (above the L2) take tiles of kThin2dLargeTileBytes:
// against 12 KB tiles there, problems with short dims of 16-63 elements ran 0.99-1.82x (fewer
// rows and runs a tile to set up; shorter dims 0.98-1.07x), while in the L2 they ran 0.77-1.01x
// (fewer blocks; session 30, docs/perf/thin-h200.md).
inline constexpr int kThin2dLargeTileBytes = 24576;
inline constexpr int64_t kThin2dLargeMinBytes = int64_t{32} << 20;
// Flat output: bytes of shared memory before and after the stretch that take the pieces of a
// row's first and last 16-byte chunks outside the row (16 elements s apart; whole lines).
constexpr int thin2d_guard(int s) { return (16 * s + 127) & ~127; }

struct Narrow2dParams {
  int32_t ti = 0, tj = 0;   // tile extents (elements) of input dim 0 and of dim perm[0]
  int64_t in_row = 0;       // bytes between a tile's rows: the input stride of dim perm[0]
  int64_t out_row = 0;      // bytes between its output runs: the output stride of input dim 0
  int64_t in_bytes = 0;     // the input's size: loads never leave it
  // The walk over tiles (tile_walk.cuh; steps in elements): slot 0 limits dim 0, slot 1 dim
  // perm[0] (slot_tile: ti and tj, whether or not they are blocked).
  int32_t slot_tile[2] = {1, 1};
  int32_t n_grid = 0;
  int64_t num_tiles = 0;
  int64_t run_tiles = 1;  // tiles along dim perm[0] (the output runs), or along a chain's dim
  int32_t split = 0;      // output runs start off 4-byte words at aligned pointers
  // 1: tiles after the first along the output runs start at the 32-byte sector at or before
  // their start (32 / EO rows of halo), so that every sector is written by one block.
  int32_t sector = 0;
  // Chains: where the tile holds the output runs' dim whole and the output's next dim,
  // perm[1], is grid[chain_grid] (else -1), a run continues the run of the same input-run
  // element in the tile before it along that dim. Tiles after the first along it take halo rows
  // from that tile's last rows (chain_delta bytes further than rows just before the tile's
  // first would lie) and write the word or sector that straddles their runs' starts; those
  // before the last leave the one at their ends, as along blocked runs (narrow2d.cu).
  int32_t chain_grid = -1;
  int64_t chain_delta = 0;
  // Thin tiles (thin2d.cu): 0 none, 1 flat output, 2 flat input (above). thin_skew: words after
  // every 32 of the stretch in shared memory (narrow_plan.cpp thin2d_skew). thin_words (flat
  // input): the aligned words that cover an output run at any shift, in 2^thin_parts_log pieces
  // of thin_part_words (multiples of 32), a warp each, so that runs fewer than the warps keep
  // them busy. thin_load (flat output): a division by the aligned 16-byte chunks that cover an
  // input row at any shift.
  int32_t thin = 0;
  int32_t thin_skew = 0;
  int32_t thin_words = 0;
  int32_t thin_parts_log = 0;
  int32_t thin_part_words = 0;
  FastDiv32 thin_load;
  ElemOp op;  // typed problems (in_type BYTES: a plain move of elements of elem_size bytes)
  GridDim grid[kMaxGridDims];
};

// Cells (cells.cu): plain 1- and 2-byte problems whose first k input dims are the output's
// first k dims in another order (a closed prefix: (16, 16, 16, 16, 256) perm (1, 0, 3, 2, 4),
// batched small matrices), or, k = 1, whose input dim 0 stays first (rows). A cell, those k dims
// whole, is one contiguous stretch of either tensor, so the problem is a permutation of cells,
// each transposed inside (its local permutation; rows: none). A tile is up to kCellTileBytes of
// cells consecutive in the output; a block loads each cell in aligned 16-byte pieces (realigned
// to its first byte in registers) into a slot per cell, then writes the tile's output stretch a
// 4-byte word a thread, each element gathered from its cell's slot through a table of shared
// offsets (element j of a cell's output order -> its byte in the slot) that each block builds
// once. Slots carry 4 bytes after every 2^pad_log bytes (0: none) against bank conflicts of the
// gathers (cell_plan.cpp cell_pad_log counts them). Cells of kCellMinBytes to kCellMaxBytes bytes
// and at most kCellMaxElems elements (the table's u16 entries): on the H200, cells of 32 B - 8 KB
// ran 1.3-1.65x faster than the narrow kernel's tiles, cells of 16-31 bytes 0.96x (0.53-1.39x,
// 15 problems) and cells over 8 KB 1.01x (0.63-2.2x, losing where the narrow tiles had long
// runs), so those keep the narrow kernel (session 31, docs/perf/cells-h200.md).
// Rows (rows 1; only rows off 4-byte words get here: the others move as wider elements) take a
// kernel of their own (cells.cu rows_kernel): slots hold a row's aligned input chunks as they
// lie (cp.async, two buffers), and the output goes in aligned 16-byte chunks, a thread each.
// Rows of kCellRowMinBytes (28) to kCellMaxBytes take these tiles: against the plans before
// them, rows of 28 B - 2 KB that rows.cu did not take a warp per chunk (realign_long) ran 1.31x
// faster by geometric mean on 87 problems (0.76-2.11x; rows of 28-39 bytes 1.16x), rows of 1-8
// KB against rows.cu's warps 1.13x on 48 (0.97-2.3x); rows of 16-27 bytes 0.96x (0.56-1.47x, 52
// problems), so those keep the narrow kernel (session 32, docs/perf/cells-h200.md).
// Cells of kCellWordMinBytes to kCellMinBytes - 1 bytes on 4-byte words whose other dims keep
// their order (the normalized problem is the cell's dims and one more: batched tiny transposes,
// (4, 6, N) perm (1, 0, 2)) take these tiles too: 25 such problems (18 random) ran 1.39x faster
// than the narrow kernel's tiles (1.24-1.62x; 0.35-0.48 -> 0.51-0.68 of a copy, H200); cells of
// 8-15 bytes, cells off words and those with permuted outer dims ran 0.42-1.03x, so those keep
// the narrow kernel (session 33, docs/perf/cells-h200.md).
// kCellBlocksPerSm: 5 blocks of 48 registers ran 1.03x faster than 4 of 63 (more loads in
// flight: a block's loads and writes alternate); kRowBlockSmemBytes keeps five rows blocks an SM.
inline constexpr int kCellThreads = 256;
inline constexpr int kCellTileBytes = 16384;
inline constexpr int kCellMinBytes = 32;
inline constexpr int kCellWordMinBytes = 16;  // cells on words, outer dims in order
inline constexpr int kCellRowMinBytes = 28;  // cells of one dim (rows)
inline constexpr int kCellMaxBytes = 8192;
inline constexpr int kCellMaxElems = 8192;
inline constexpr int kMaxCellDims = 8;
inline constexpr int kCellBlocksPerSm = 5;
inline constexpr int64_t kRowBlockSmemBytes = 44 * 1024;  // five blocks an SM

struct CellParams {
  int32_t n_local = 0;                 // dims of a cell, in the output's order
  FastDiv32 local_ext[kMaxCellDims];   // extent of the cell's output dim i
  int32_t local_stride[kMaxCellDims];  // its stride in the cell's input order (elements)
  int32_t cell_elems = 0, cell_bytes = 0;
  int32_t pad_log = 0;      // 4 bytes after every 2^pad_log bytes of a slot (>= 4), 0: none
  int32_t slot_bytes = 0;   // shared bytes a cell's slot takes (a multiple of 16)
  int32_t table_bytes = 0;  // shared bytes of the offset table (a multiple of 16)
  int32_t cells_per_tile = 0;
  int32_t rows = 0;         // 1: cells of one dim (rows): cells.cu rows_kernel
  FastDiv32 pieces;         // 16-byte pieces of a cell at any shift: ceil(cell_bytes / 16)
  FastDiv32 cells;          // cell_bytes
  int64_t num_cells = 0, num_tiles = 0;
  int64_t in_bytes = 0;     // the input's size: loads never leave it
  // Typed cells (in_type not BYTES: dense conversions from floating types of 1 and 2 bytes
  // without beta, narrow_plan.cpp narrow_converts): the stores convert (cells_typed.cu); the
  // cells, slots and table are the input's, in its bytes.
  ElemOp op;
  // The walk over cells in the output's order (tile_walk.cuh, a tile per cell: the output's
  // dims after the cell's; steps in elements).
  int32_t slot_tile[2] = {1, 1};
  int32_t n_grid = 0;
  GridDim grid[kMaxGridDims];
};

// Direct: one thread per output element, its input offset decoded from its index over the
// output's dims (direct.cu). For tensors up to ~1 MB, where a tile kernel's per-block setup,
// barriers and pipeline were most of its time (docs/perf/middle-h100.md), and plain ones of 4-16
// byte elements in L2 (planner.hpp direct_in_l2). 32-bit offsets.
inline constexpr int kDirectThreads = 256;

struct DirectDim {
  FastDiv32 extent;   // output dimension, fastest first
  int32_t in_stride;  // elements
};

struct DirectParams {
  int32_t volume = 0;
  int32_t n_dims = 0;
  DirectDim dim[kMaxGridDims];
};

// General: the path every non-plain problem can take (any strides, types, scalars, rank and
// size; general.cu): a thread per output element, grid-stride, its input and output offsets
// decoded from its index over the output's dims with 64-bit fast divisions. The typed tile
// kernel is the fast path; this one is for small tensors (as Direct), rank <= 1, and pointers
// not aligned to their element sizes.
inline constexpr int kGeneralThreads = 256;

struct GeneralDim {
  FastDiv64 extent;    // output dimension, fastest first
  int64_t in_stride;   // input elements
  int64_t out_stride;  // output elements
};

struct GeneralParams {
  int64_t volume = 0;
  int32_t n_dims = 0;
  int32_t log2_elem = 0;  // input element; a strided plain problem moves elements of this size
  ElemOp op;
  GeneralDim dim[kMaxGridDims];
};

// FVI-Match-Large / TiledCopy and plain copy: rows of `row_bytes` contiguous bytes in both
// tensors, cut into chunks of kRowChunkBytes; one warp copies one chunk.
inline constexpr int64_t kRowChunkBytes = 4096;
inline constexpr int32_t kRealignChunkWords = 128;
// Typed rows (rows_typed.cu): a warp takes a chunk of at most this many groups of a row (a
// group: the elements of one aligned input chunk), a row's chunks even (RowParams::
// chunk_groups, a multiple of 32): a row of 264 groups went as 256 + 8 and ran 0.96x of the
// tiles it replaced, one of 2000 groups 1.2x (H200, f32 -> bf16).
inline constexpr int32_t kTypedRowChunkGroups = 256;
// Bytes of a typed row group's input chunk (rows_typed.cu): 16, or for widening conversions the
// input of 16 output bytes, at least 4.
XPOSE_HD constexpr int typed_row_chunk_bytes(int in_size, int out_size) {
  return out_size <= in_size ? 16 : 16 * in_size / out_size >= 4 ? 16 * in_size / out_size : 4;
}

struct RowDim {
  FastDiv64 extent;
  int64_t in_stride;   // bytes
  int64_t out_stride;  // bytes
};

struct RowParams {
  int64_t row_bytes = 0;     // of the input
  int64_t items = 0;         // rows * chunks per row
  FastDiv64 chunks;          // chunks per row (typed rows: of chunk_groups groups)
  // Rows that no wide access fits (pointers or row length off 4-byte multiples) are copied in
  // aligned 16-byte output words, each realigned from the input (rows.cu): words per row, at
  // most.
  int64_t words = 0;
  FastDiv64 words_div;
  // Long realigned rows (realign_long; the planner decides, build_rows): a warp takes a chunk
  // of chunk_words (at most kRealignChunkWords) of a row's words, word_chunks chunks a row.
  // chunk_words 0: realigned rows go a word a lane.
  FastDiv64 word_chunks;
  int32_t chunk_words = 0;
  // The input bytes the tensor reaches, [in_begin, in_end) from its pointer (in_begin <= 0 with
  // negative strides): loads of aligned chunks never leave them.
  int64_t in_begin = 0, in_end = 0;
  ElemOp op;                 // typed rows: the element operation (in_type BYTES: plain)
  int32_t chunk_groups = 0;  // typed rows: groups a chunk (`chunks` of them cover a row)
  int32_t n_dims = 0;        // row dimensions (input dims 1..rank-1 that have extent > 1)
  RowDim dim[kMaxGridDims];
};

// Realigned rows (not a plain copy's) of kRealignLongBytes and more, or of half that in tensors
// of at least kRealignLongMinTensor bytes, take a warp per chunk of a row's words (rows.cu). On the H200,
// against a word a lane: 1.07-1.25x from 2 KB (in L2 too), 1.13-1.30x at 1-2 KB in tensors of
// 200 MB but 0.91x in one of 8 MB, 0.77-0.79x at 450-580 bytes, and 0.92-0.94x on plain copies
// in L2 (one row: no decode to share); docs/perf/rows-h200.md.
inline constexpr int64_t kRealignLongBytes = 2048;
inline constexpr int64_t kRealignLongMinTensor = int64_t{32} << 20;
inline bool realign_long(int64_t row_bytes, int64_t bytes) {
  return row_bytes >= kRealignLongBytes ||
         (row_bytes >= kRealignLongBytes / 2 && bytes >= kRealignLongMinTensor);
}

// The tile that the V1BF order puts at position t (bands on: band_w.d > 1, t < 2^31): band
// t / span, then row y and column x within the band (the last band is band_last.d wide).
XPOSE_HD uint32_t banded_tile(const TiledParams& p, uint32_t t) {
  const uint32_t hi = p.band_plane.div(t), lo = t - hi * p.band_plane.d;
  const uint32_t band = p.band_span.div(lo), k = lo - band * p.band_span.d;
  const FastDiv32& width = lo >= p.band_last_start ? p.band_last : p.band_w;
  const uint32_t y = width.div(k), x = k - y * width.d;
  return hi * p.band_plane.d + band * p.band_w.d + x + y * p.band_g0;
}

static_assert(sizeof(TiledParams) < 4000, "kernel parameters must stay under 4 KB");
static_assert(sizeof(RowParams) < 4000, "kernel parameters must stay under 4 KB");
static_assert(sizeof(NarrowParams) < 4000, "kernel parameters must stay under 4 KB");
static_assert(sizeof(DirectParams) < 4000, "kernel parameters must stay under 4 KB");
static_assert(sizeof(GeneralParams) < 4000, "kernel parameters must stay under 4 KB");
// The layout of a cell in its slot, shared by cells.cu and the planner's count of its bank
// conflicts (cell_plan.cpp): byte b of a cell lies at cell_padded(b) (4 bytes of padding after
// every 2^pad_log; pad_log 0: none); element j of the cell's output order is element
// cell_source(j) of its input order; a slot holds a cell's 16-byte pieces (`pieces`).
XPOSE_HD uint32_t cell_padded(uint32_t b, int pad_log) {
  return pad_log ? b + ((b >> pad_log) << 2) : b;
}
XPOSE_HD uint32_t cell_source(const CellParams& p, uint32_t j) {
  uint32_t at = 0;
  for (int i = 0; i < p.n_local; ++i) {
    const uint32_t q = p.local_ext[i].div(j);
    at += (j - q * p.local_ext[i].d) * static_cast<uint32_t>(p.local_stride[i]);
    j = q;
  }
  return at;
}
inline uint32_t cell_slot_bytes(uint32_t pieces, int pad_log) {
  return (cell_padded(16 * pieces - 1, pad_log) + 16) & ~15u;
}

// Dynamic shared memory of cells.cu's blocks: the offset table, two buffers of the cells' input
// offsets, the slots; rows: three buffers of offsets, two of slots and 16 bytes after them (a
// row's last chunk reads one piece past its slot).
inline int64_t row_tile_smem_bytes(int64_t rows, int64_t slot_bytes) {
  return ((24 * rows + 15) & ~15) + 2 * rows * slot_bytes + 16;
}
inline int cell_smem_bytes(const CellParams& p) {
  if (p.rows) return static_cast<int>(row_tile_smem_bytes(p.cells_per_tile, p.slot_bytes));
  return p.table_bytes + ((16 * p.cells_per_tile + 15) & ~15) + p.cells_per_tile * p.slot_bytes;
}

static_assert(sizeof(CellParams) < 4000, "kernel parameters must stay under 4 KB");

}  // namespace xpose::detail
