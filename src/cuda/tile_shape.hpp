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

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// gcd(a, b) for a power of two a and b >= 0: every alignment here is a gcd with 128, so this is
// the lowest set bit of b capped at a, without std::gcd's loop (planning runs it per tile).
inline int64_t gcd_pow2(int64_t a, int64_t b) { return b == 0 ? a : std::min(a, b & -b); }

// The problem's strides, computed once per planned view.
struct Geometry {
  const Problem* p;
  Extents s_in{}, s_out{};
  int rank = 0;
  int esize = 0;
  int out_pos[kMaxRank];  // input dim k is output dim out_pos[k]
  // gcd(128, byte strides of the dims from j on), input order and output order (j = 0..rank):
  // what the start of a span that ends before dim j is aligned to, whatever the tile.
  int64_t in_tail_align[kMaxRank + 1], out_tail_align[kMaxRank + 1];
};

Geometry geometry(const Problem& p);

// A tile: per input dimension its tile extent, plus the derived quantities of the model.
// make_tile sets every field (planning reuses one Tile for all candidates).
struct Tile {
  Extents t{};
  int blocked[2] = {-1, -1};  // dims with 1 < t < e (slot 0: input side, slot 1: output side)
  int n_dims = 0, n_grid = 0;
  int64_t volume = 1, num_tiles = 1, in_span = 1, out_span = 1, in_run = 1, out_run = 1;
  int64_t in_align = 128, out_align = 128;  // bytes: gcd of the spans' start offsets and 128
  int64_t smem_elems = 0, pitch = 0;
  bool overlap = false;
};

// The tile of input run (input dims 0..a-1 whole, dim a by ta) and output run (output dims
// 0..c-1 whole, output dim c by tc); false when it does not fit (tile_shape.cpp).
bool make_tile(const Geometry& g, int a, int64_t ta, int c, int64_t tc, Tile* tile,
               bool big = true);

}  // namespace xpose::detail::cuda_tile
