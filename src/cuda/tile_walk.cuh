// The device side of a tile walk, shared by the tile kernels (tiled.cu, narrow.cu): the decode of
// a tile's index over the folded grid into its bases and edge limits, and the decode of a
// position inside a tile over a list of tile dimensions.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/params.hpp"

namespace xpose::detail {

// Base: the offsets' type (32 bits where the tensors have fewer than 2^31 elements: wide2d.cu).
template <class Base>
struct TileBaseOf {
  Base in = 0, out = 0;  // elements from the tensors' starts
  uint32_t lim0 = 0, lim1 = 0;
};
using TileBase = TileBaseOf<int64_t>;

// The tile at position `rest` of the walk over `grid` (fastest first): its bases and the limits
// of its blocked slots (the tile extent, or what is left of the dimension at its edge); `at1`,
// when given, receives the tile's position along the dimension of blocked slot 1, or along
// grid[at_grid] where at_grid >= 0 (left as it was when there is neither). Idx: the walk's
// index arithmetic.
template <class Idx, class Base = int64_t>
__device__ __forceinline__ TileBaseOf<Base> walk_tile_as(const GridDim* grid, int n_grid,
                                                         const int32_t* slot_tile, Idx rest,
                                                         uint64_t* at1 = nullptr,
                                                         int at_grid = -1) {
  TileBaseOf<Base> b;
  b.lim0 = static_cast<uint32_t>(slot_tile[0]);
  b.lim1 = static_cast<uint32_t>(slot_tile[1]);
  for (int k = 0; k < n_grid; ++k) {
    const GridDim& g = grid[k];
    Idx q;
    if constexpr (sizeof(Idx) == 4)
      q = g.count.div32(rest);
    else
      q = g.count.div(rest);
    const Idx c = rest - q * static_cast<Idx>(g.count.d);
    rest = q;
    b.in += static_cast<Base>(c) * static_cast<Base>(g.in_step);
    b.out += static_cast<Base>(c) * static_cast<Base>(g.out_step);
    if (at1 && k == at_grid) *at1 = static_cast<uint64_t>(c);
    if (g.slot >= 0) {
      const Base tile = static_cast<Base>(g.tile);
      const Base left = static_cast<Base>(g.extent) - static_cast<Base>(c) * tile;
      const uint32_t lim = static_cast<uint32_t>(left < tile ? left : tile);
      if (g.slot == 0) b.lim0 = lim; else b.lim1 = lim;
      if (at1 && g.slot == 1) *at1 = static_cast<uint64_t>(c);
    }
  }
  return b;
}

// The walk of a grid of `num_tiles` tiles. Below 2^31 tiles every count fits 32 bits
// (FastDiv64::div32): the walk is a 32-bit division per grid dimension instead of a 64-bit one
// (~20 instructions, ~55 with its operands; at 1-16 MB a block moves 1-8 tiles, and every warp
// walked its first tile: a third of the tile kernel's instructions at 4 MB,
// docs/perf/middle-h100.md).
__device__ __forceinline__ TileBase walk_tile(const GridDim* grid, int n_grid,
                                              const int32_t* slot_tile, int64_t num_tiles,
                                              uint64_t rest, uint64_t* at1 = nullptr,
                                              int at_grid = -1) {
  if (num_tiles <= (int64_t{1} << 31))
    return walk_tile_as<uint32_t>(grid, n_grid, slot_tile, static_cast<uint32_t>(rest), at1,
                                  at_grid);
  return walk_tile_as<uint64_t>(grid, n_grid, slot_tile, rest, at1, at_grid);
}

// Whether coordinates packed as (slot1 << 16) | slot0 lie inside the tile's limits.
__device__ __forceinline__ bool inside(uint32_t coord, const TileBase& b) {
  return (coord & 0xFFFFu) < b.lim0 && (coord >> 16) < b.lim1;
}

// A position inside a tile: global offset, shared-memory offset and blocked-slot coordinates.
template <class Off>
struct Decoded {
  Off global = 0;
  int32_t shared = 0;
  uint32_t coord = 0;
};

// Index `idx` of a walk over `dims` (fastest first) as offsets and packed slot coordinates.
template <class Off>
__device__ __forceinline__ Decoded<Off> decode_index(const TileDim* dims, int n, uint32_t idx) {
  Decoded<Off> d;
  uint32_t rest = idx, c0 = 0, c1 = 0;
  for (int k = 0; k < n; ++k) {
    const uint32_t q = dims[k].extent.div(rest);
    const uint32_t c = rest - q * dims[k].extent.d;
    rest = q;
    d.global += static_cast<Off>(c) * static_cast<Off>(dims[k].stride);
    d.shared += static_cast<int32_t>(c) * dims[k].smem_stride;
    if (dims[k].slot == 0) c0 = c;
    if (dims[k].slot == 1) c1 = c;
  }
  d.coord = c0 | (c1 << 16);
  return d;
}

}  // namespace xpose::detail
