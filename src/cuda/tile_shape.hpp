// The CUDA planner's tiles as geometry: the tile extent of every dimension for a choice of
// input and output runs, the contiguous spans it reads and writes and how they sit on cache
// lines, its shared-memory footprint. Pure functions of a normalized problem, shared by the
// candidates and cost model (planner.cpp) and the kernel parameters of a choice. Host C++ only.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/problem.hpp"
#include "cuda/params.hpp"

namespace xpose::detail::cuda_tile {

// a >= 0, b > 0; no overflow for a near INT64_MAX (volumes of ~2^63 bytes, issue 17).
inline int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

// gcd(a, b) for a power of two a and b >= 0: every alignment here is a gcd with 128, so this is
// the lowest set bit of b capped at a, without std::gcd's loop (planning runs it per tile).
inline int64_t gcd_pow2(int64_t a, int64_t b) { return b == 0 ? a : std::min(a, b & -b); }

// The problem's strides, computed once per planned view.
struct Geometry {
  const Problem* p;
  Extents s_in{}, s_out{};  // elements, any sign (input strides may be 0: broadcast)
  int rank = 0;
  int esize = 0;      // bytes of an input element (shared memory holds input elements)
  int out_esize = 0;  // bytes of an output element (typed problems may convert)
  // Narrow tiles of converting loads (narrow_plan.cpp narrow_geometry): the input's elements
  // are 2^in_log2 x esize bytes (esize is the tile's: the output's); 0 otherwise.
  int in_log2 = 0;
  int out_pos[kMaxRank];  // input dim k is output dim out_pos[k]
  // gcd(128, byte strides of the dims from j on), input order and output order (j = 0..rank):
  // what the start of a span that ends before dim j is aligned to, whatever the tile.
  int64_t in_tail_align[kMaxRank + 1], out_tail_align[kMaxRank + 1];
};

// in_log2 > 0: the input taken as elements of 2^-in_log2 times their size (Geometry::in_log2).
Geometry geometry(const Problem& p, int in_log2 = 0);
// The geometry the narrow kernel plans `p` in: geometry(p), or for the conversions its loads
// make (planner.hpp narrow_loads), the input taken as elements of the output's size
// (narrow_plan.cpp).
Geometry narrow_geometry(const Problem& p);

// A tile: per input dimension its tile extent, plus the derived quantities of the model.
// make_tile sets every field (planning reuses one Tile for all candidates).
struct Tile {
  Extents t{};
  int blocked[2] = {-1, -1};  // dims with 1 < t < e (slot 0: input side, slot 1: output side)
  int n_dims = 0, n_grid = 0;
  int64_t volume = 1, num_tiles = 1, in_span = 1, out_span = 1, in_run = 1, out_run = 1;
  int64_t in_align = 128, out_align = 128;  // bytes: gcd of the spans' start offsets and 128
  int64_t smem_elems = 0, pitch = 0;  // classic tiles: elements; narrow tiles: pitch in bytes
  // Classic tiles whose output-fastest dim lies inside the input run past its first dim: that
  // dim's shared-memory stride, the volume of the run's dims before it, is padded by one
  // element so that it is odd (an even power of two made the write phase's lanes hit one bank:
  // 32-way conflicts, 2.2x the time of a (64,64,32,32) perm (1,3,0,2) packed tile on an H200).
  // Narrow gathered tiles pad it by a word where the volume is a multiple of 16 and the dim
  // holds 16 bytes or more (params.hpp kNarrowRowPad). run_pad_dim: that dim, else -1;
  // run_elems: the input run's footprint in shared memory (elements; classic tiles).
  int run_pad_dim = -1;
  int64_t run_elems = 0;
  int64_t smem_bytes = 0;             // what a block's tile buffer (and tables) take
  // Narrow gathered tiles without padded rows: the shared memory of their block with raw rows
  // (NarrowParams::raw_rows; narrow_raw_rows_smem), else 0.
  int64_t raw_smem_bytes = 0;
  bool overlap = false;
};

// Which kernel stages the tile: tiled.cu in blocks of up to kTileThreadsSmall threads (`Small`)
// or more (`Big`), or narrow.cu (elements of 1 and 2 bytes, params.hpp's NarrowParams).
enum class TileKind { Small, Big, Narrow };

// The tile of input run (input dims 0..a-1 whole, dim a by ta) and output run (output dims
// 0..c-1 whole, output dim c by tc); false when it does not fit (tile_shape.cpp).
bool make_tile(const Geometry& g, int a, int64_t ta, int c, int64_t tc, Tile* tile,
               TileKind kind = TileKind::Big);

// Whether offsets inside the tile (input or output, strides of any sign) need 64 bits.
bool wide_offsets(const Geometry& g, const Tile& T);

// Tile volume (elements) a kind allows, and the narrow kernel's row pitch (bytes) for an input
// run of `run_bytes`: whole 16-byte chunks and 4 bytes more, an odd number of words (narrow.cu).
int64_t max_tile_volume(TileKind kind, int esize);
inline int64_t narrow_pitch(int64_t run_bytes) { return ceil_div(run_bytes, 16) * 16 + 4; }
// A row of `run_bytes` padded by kNarrowRowPad bytes after each `row_break` (NarrowParams):
// the bytes its realigned 16-byte chunks reach, the last one's past the row's end included.
inline int64_t narrow_padded_row_bytes(int64_t run_bytes, int64_t row_break) {
  const int64_t last = ceil_div(run_bytes, 16) * 16 - 1;
  return last + kNarrowRowPad * (last / row_break) + 1;
}
// The raw copy of a row of `run_bytes` (narrow.cu): its 16-byte envelope at any shift and the
// 16 bytes a realigned last chunk reads past it, an odd number of chunks (lanes on consecutive
// rows read distinct banks).
inline int64_t narrow_raw_pitch(int64_t run_bytes) {
  return (ceil_div(run_bytes + 15, 16) + 1) / 2 * 32 + 16;
}
// ... of a row of `run_bytes` in the tile whose input elements are 2^in_log2 times the tile's
// (Geometry::in_log2): converting loads read 2^in_log2 chunks and one more for each 16 bytes of
// the tile's row.
inline int64_t narrow_raw_pitch(int64_t run_bytes, int in_log2) {
  return narrow_raw_pitch(in_log2 > 0 ? ceil_div(run_bytes, 16) * 16 << in_log2 : run_bytes);
}
// The shared memory a quad tile's halo rows add (NarrowParams::halo): kNarrowHaloRows raw rows
// in each of its two raw buffers.
inline int64_t narrow_halo_smem_bytes(int64_t run_bytes) {
  return 2 * kNarrowHaloRows * narrow_raw_pitch(run_bytes);
}
// With quads (disjoint runs), the narrow kernel keeps the rows by column word (narrow.cu): the
// words of all rows at one 4-byte column, 8 rows of padding before them (the unit before row
// 0) and 16 after (units past the last row), a multiple of 4 words.
inline int64_t narrow_column_words(int64_t rows) { return ceil_div(rows + 24, 4) * 4; }
// Raw rows (NarrowParams::raw_rows) of a narrow tile whose input run is input dims 0..a: the
// shared-memory stride (bytes) of each tile dim outside the run, in output order, into smem[k]
// (when not null): the least that is congruent to its input stride modulo 16 and holds the rows
// before it, a row's envelope and a chunk to spare, the first `skew` chunks more. Returns the
// bytes of one raw buffer: the farthest row's chunks at any tile address.
int64_t narrow_raw_strides(const Geometry& g, const Tile& T, int a, int skew, int64_t* smem);
// A block's shared memory with raw rows (NarrowParams::raw_rows): three raw buffers of
// `raw_bytes`, the row and span tables, the output run's offset table.
inline int64_t narrow_raw_rows_smem(int64_t raw_bytes, int64_t rows, int64_t spans,
                                    int64_t out_run) {
  return 3 * raw_bytes + 16 * (rows + spans) + ceil_div(2 * out_run, 16) * 16;
}
// Bytes of the narrow kernel's rows, a multiple of 16.
inline int64_t narrow_data_bytes(int64_t rows, int64_t run_bytes, int64_t pitch, bool quad) {
  if (quad) return ceil_div(run_bytes, 16) * 4 * narrow_column_words(rows) * 4;
  return ceil_div(rows * pitch, 16) * 16;
}

// The grid of tiles in walk order (fastest first): the output run's blocked dim, then the input
// run's, then the other dims in output order, so that tiles sharing a partial 32-byte sector of
// a run (odd extents) run close in time and the sector is completed in L2, not evicted half
// written (docs/perf/cuda-h100.md, run 5). `slot[k]`: the blocked slot of dim k, or -1. Steps in
// elements. Returns the number of grid dims written to `grid`.
int walk_grid(const Geometry& g, const Tile& T, const int* slot, GridDim* grid);

// The index in walk_grid's `grid` of the dim along which the next tile continues the tile's
// output runs (output dims 0..c, out_run elements): the runs' blocked dim (walk_grid's first),
// or where the runs hold their last dim whole, the output's next dim when it is a grid dim
// (walk_grid's first after the blocked input-run dim, if any); -1 when neither. Tiles there
// write runs that continue each other's (narrow.cu's halo rows, narrow2d.cu's chains).
int continuing_grid(const Geometry& g, const Tile& T, int c, int64_t out_run,
                    const GridDim* grid, int n_grid);

}  // namespace xpose::detail::cuda_tile
