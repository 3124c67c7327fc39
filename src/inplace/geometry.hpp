// The work of an in-place swap (core/backend.hpp's InplaceRequest) cut into items, shared by
// the CPU loops and the CUDA kernels (no CUDA header): an item is one tile pair of one
// (b, c) batch entry, decoded through a pairing::Enumeration, plus the tuning tables.
#pragma once

#include <cstddef>
#include <cstdint>

#include "inplace/pairing.hpp"

namespace xpose::detail::inplace {

// V1B band width (tiles) by log2(element size), from the H100 sweeps of docs/perf/
// inplace-h100.md: averaged over n = 8192..131072 the width moves the ratio to copy by under 1%
// (run 5, vector tiles: 4 B best at w = 1, 0.953 against 0.950 at 8; 8 B best at w = 1, 0.942
// against 0.939 at 8). 1-, 2- and 16-byte widths were not swept and keep the paper's 8.
constexpr int64_t kGpuBandWidth[5] = {8, 8, 1, 1, 8};
// Super-grid region order (tiles) when not forced: 2048 x 2048-element regions of 32-tiles,
// about the paper's choice relative to its matrices.
constexpr int64_t kDefaultRegion = 64;
// GPU tiles by log2(element size), for blocks of 32 x 8 threads: kGpuVector adjacent elements
// per lane and access, on tiles of kGpuTile = 32 x kGpuVector elements. 1- and 2-byte elements
// always move as 4-byte words (cuda_inplace.cu's word tiles; rows that do not start on a word
// are realigned by funnel shifts); 4-byte elements move in pairs when every row starts on 8
// bytes (H100, docs/perf/inplace-h100.md run 5: 0.72 -> 0.95 of copy); 8 B: 0.90-0.96 with
// 32 x 32 one-element words where rows start on 128-byte lines (else kGpuPairTile).
constexpr int kGpuVector[5] = {4, 2, 2, 1, 1};
constexpr int kGpuTile[5] = {128, 64, 64, 32, 32};
// The word tiles' edge (elements) for K = 4 / size elements a word: kGpuTile's 32 words a row
// where rows start on words, 31 where rows are realigned (the 32 aligned words lanes load then
// cover any row's offset).
XPOSE_HD constexpr int gpu_word_tile(int k, bool realigned) { return (realigned ? 31 : 32) * k; }
// 4 bytes and wider when rows do not start on a vector (odd n, or a pointer that is not
// vector-aligned): one element per access, on these tiles. 4 B: 64 x 64 (a tile pair of 32 KB;
// odd n ran at 0.74-0.93 of copy on 32 x 32 tiles, 0.88-1.10 on these: docs/perf/
// inplace-h100.md, session 22). 8 B: 64 x 64 single elements ran 0.96-1.04x of 32 x 32, so
// 8 and 16 B keep 32 x 32.
constexpr int kGpuScalarTile[5] = {0, 0, 64, 32, 32};
// 8 B where rows start on 16 bytes (even n, data on 16 bytes) but not on 128-byte lines: pairs
// of elements per access on 64 x 64 tiles. A warp's row of 32 single elements spans 3 lines
// for 2 there, 1.37x the L2 requests of rows on lines (ncu, n = 16388 against 16400: 0.81
// against 0.90 of copy); in pairs, 0.80-0.88 where single elements ran 0.73-0.81.
constexpr int kGpuPairTile = 64;
// CPU tile edge by log2(element size): a pair of tiles stays within 32 KiB (one L1).
constexpr int kCpuTile[5] = {64, 64, 32, 32, 16};
// CPU band width (tiles): bands of 16 tile columns keep the partner rows of a team's work
// within a few MiB; the CPU runs are not TLB-bound at the sizes a host holds, so this is not
// tuned further.
constexpr int64_t kCpuBandWidth = 16;

XPOSE_HD constexpr int log2_size(size_t bytes) {
  int l = 0;
  while ((size_t{1} << l) < bytes) ++l;
  return l;
}

// The GPU tile shape for swapped words of `unit` bytes (1..16) at `address`, n x n planes.
struct GpuTiles {
  size_t unit = 0;
  bool aligned = false;  // address is a multiple of the unit
  int vector = 1;        // elements per access (> 1: every row starts on a vector; 1- and
                         // 2-byte elements: else the realigned word tiles)
  int tile = 32;
};

inline GpuTiles gpu_tiles(size_t unit, uintptr_t address, int64_t n) {
  GpuTiles t;
  t.unit = unit;
  if (unit == 0) return t;
  const int l = log2_size(unit);
  t.aligned = address % unit == 0;
  // Rows start at multiples of n (plane starts b * n, row strides n * mid): all on a vector
  // when n and the address are multiples of it; tile widths n - x0 then hold whole vectors.
  const auto v = static_cast<int64_t>(kGpuVector[l]);
  t.vector = v > 1 && n % v == 0 && address % (unit * v) == 0 ? kGpuVector[l] : 1;
  if (l < 2) t.tile = gpu_word_tile(kGpuVector[l], t.vector == 1);
  else t.tile = t.vector > 1 ? kGpuTile[l] : kGpuScalarTile[l];
  const bool on_lines = static_cast<uint64_t>(n) * unit % 128 == 0 && address % 128 == 0;
  if (l == 3 && t.aligned && !on_lines && n % 2 == 0 && address % 16 == 0) {
    t.vector = 2;
    t.tile = kGpuPairTile;
  }
  return t;
}

// One tile pair of one batch entry. Offsets are in units of the swapped element.
struct TileJob {
  int64_t base = 0;    // offset of the (b, c) plane
  int64_t x0 = 0, y0 = 0;  // first column and row of the lower tile (x0 <= y0)
};

// Items, in order: b fastest (T_zyx's planes are adjacent in memory), then the enumeration's
// k, then c (T_yxz's planes are far apart: finish one before the next).
struct SwapGeometry {
  pairing::Enumeration e;
  int64_t n = 0;
  int64_t tile = 32;
  int64_t mid = 1, outer = 1;
  int64_t row_stride = 0;  // stride of y: n * mid (x has stride 1)

  XPOSE_HD uint64_t items() const {
    return e.count() * static_cast<uint64_t>(mid) * static_cast<uint64_t>(outer);
  }
  // False for an idle item (full grid or super grid).
  XPOSE_HD bool job(uint64_t item, TileJob* j) const {
    const uint64_t b = item % static_cast<uint64_t>(mid);
    const uint64_t rest = item / static_cast<uint64_t>(mid);
    const uint64_t per = e.count();
    const uint64_t k = rest % per, c = rest / per;
    int64_t tx, ty;
    if (!e.tile_pair(k, &tx, &ty)) return false;
    j->base = static_cast<int64_t>(b) * n + static_cast<int64_t>(c) * n * row_stride;
    j->x0 = tx * tile;
    j->y0 = ty * tile;
    return true;
  }
};

// The geometry of a request whose element is `unit` bytes of which inner elements form one
// swapped element (the caller decided the folding). `tile` is the tile edge.
inline SwapGeometry make_geometry(int64_t n, int64_t mid, int64_t outer, int64_t tile,
                                  pairing::Scheme scheme, int64_t w, int64_t region) {
  SwapGeometry g;
  g.n = n;
  g.tile = tile;
  g.mid = mid;
  g.outer = outer;
  g.row_stride = n * mid;
  g.e.scheme = scheme;
  g.e.tiles = static_cast<uint64_t>((n + tile - 1) / tile);
  g.e.w = static_cast<uint64_t>(w < 1 ? 1 : w);
  g.e.region = static_cast<uint64_t>(region < 1 ? 1 : region);
  return g;
}

// Calls f(geometry) once per launch: once, or once per region of the lower triangle of
// regions for the super grid (the paper's host loop, Listing 3).
template <class F>
void for_each_launch(SwapGeometry g, F&& f) {
  if (g.e.scheme != pairing::Scheme::kSuperGrid) {
    f(g);
    return;
  }
  const uint64_t regions = (g.e.tiles + g.e.region - 1) / g.e.region;
  for (uint64_t ry = 0; ry < regions; ++ry)
    for (uint64_t rx = 0; rx <= ry; ++rx) {
      g.e.region_x = rx;
      g.e.region_y = ry;
      f(g);
    }
}

// How a request's swapped element is moved: as one word of `unit` bytes when the swapped
// element (inner elements) is 1, 2, 4, 8 or 16 bytes (tiles), else as `chunk` bytes copied in
// pieces (a pair of single cells per item).
struct Folding {
  size_t unit = 0;     // bytes of the swapped element when it is a word; 0 when chunked
  size_t chunk = 0;    // bytes of the swapped element
};

inline Folding fold(size_t elem_size, int64_t inner) {
  Folding f;
  f.chunk = elem_size * static_cast<size_t>(inner);
  if (f.chunk == 1 || f.chunk == 2 || f.chunk == 4 || f.chunk == 8 || f.chunk == 16)
    f.unit = f.chunk;
  return f;
}

}  // namespace xpose::detail::inplace
