// The work of an in-place swap (core/backend.hpp's InplaceRequest) cut into items, shared by
// the CPU loops and the CUDA kernels (no CUDA header): an item is one tile pair of one
// (b, c) batch entry, decoded through a pairing::Enumeration, plus the tuning tables.
#pragma once

#include <cstddef>
#include <cstdint>

#include "inplace/pairing.hpp"

namespace xpose::detail::inplace {

// V1B band width (tiles) by log2(element size), from `bash bench/device_final.sh` on the H100
// (2026-11-21, docs/perf/inplace-h100.md): averaged over n = 8192..131072 the width moves the
// ratio to copy by under 1% (4 B: w = 2 best, 0.723 vs 0.717 at 8; 8 B: w = 1, 0.943 vs 0.940
// at 8). 1-, 2- and 16-byte widths were not swept and keep the paper's 8.
constexpr int64_t kGpuBandWidth[5] = {8, 8, 2, 1, 8};
// Super-grid region order (tiles) when not forced: 2048 x 2048-element regions of 32-tiles,
// about the paper's choice relative to its matrices.
constexpr int64_t kDefaultRegion = 64;
// GPU tile edge (elements) by log2(element size), for blocks of 32 x 8 threads. On the H100
// (docs/perf/inplace-h100.md, 2026-11-21), 64 x 64 tiles took 1-byte elements from 0.20 to 0.39
// of copy and 2-byte ones from 0.36 to 0.43 (n = 8192, 32768); for 4-byte elements they gave
// 0.70 against 0.71-0.72 with 32 x 32, so 4 B keeps 32 (its limit is the 128-byte warp access,
// not the bytes in flight). 8 B: 0.90-0.96 with 32.
constexpr int kGpuTile[5] = {64, 64, 32, 32, 32};
// CPU tile edge by log2(element size): a pair of tiles stays within 32 KiB (one L1).
constexpr int kCpuTile[5] = {64, 64, 32, 32, 16};
// CPU band width (tiles): bands of 16 tile columns keep the partner rows of a team's work
// within a few MiB; the CPU runs are not TLB-bound at the sizes a host holds, so this is not
// tuned further.
constexpr int64_t kCpuBandWidth = 16;

inline int log2_size(size_t bytes) {
  int l = 0;
  while ((size_t{1} << l) < bytes) ++l;
  return l;
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
