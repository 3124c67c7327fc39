// Enumeration schemes over the lower triangle of a square grid of tiles (Gorawski & Lorek 2017,
// "Efficient Processing of Large Data Structures on GPUs: Enumeration Scheme Based
// Optimisation", sections 4-5): a pairing function Pi maps a cell (x, y), x < y, of the strict
// lower triangle of an order-m matrix to k in [0, m(m-1)/2), and its inverse maps k back. The
// in-place kernels launch a flat range of k and decode each k to the tile pair it exchanges, so
// no block is idle and the order of k decides which tiles are in flight together (the TLB
// locality the paper is about).
//
// The in-place transposition needs the triangle WITH its diagonal (diagonal tiles are transposed
// in place). The cells (x, y), x <= y, of an order-T triangle are exactly the strict cells
// (x, y + 1) of an order-(T + 1) one, so every scheme here is the paper's strict one on order
// m = T + 1, and tile_pair() shifts y back.
//
// Shared by host and device (no CUDA header). Everything is 64-bit and exact: the roots are
// integer square roots (a floating-point estimate corrected by integer tests), and no
// intermediate exceeds 2^63 for m <= 2^31 + 1 (tests/pairing_test.cpp checks orders near there).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/host_device.hpp"

namespace xpose::detail::pairing {

// floor(sqrt(v)) exactly, for v < 2^63: the double estimate is within a few units of the root
// and the integer loops settle it (r + 1 < 2^32, so (r + 1)^2 cannot overflow).
XPOSE_HD uint64_t isqrt(uint64_t v) {
  uint64_t r = static_cast<uint64_t>(sqrt(static_cast<double>(v)));
  while (r > 0 && r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}

// S^-(t) = t(t-1)/2: cells strictly below the diagonal of an order-t matrix.
XPOSE_HD uint64_t tri_strict(uint64_t t) { return t * (t - (t > 0)) / 2; }
// S^+(t) = t(t+1)/2: cells on and below the diagonal.
XPOSE_HD uint64_t tri_incl(uint64_t t) { return t * (t + 1) / 2; }

// The row y of V1's k: the largest y with S^-(y) <= k, i.e. y(y-1) <= 2k (the paper's
// floor((sqrt(8k+1)+1)/2), without forming 8k+1, which overflows for m near 2^31).
// With r = floor(sqrt(2k)), y is r or r + 1. Requires k < 2^62.
XPOSE_HD uint64_t v1_row(uint64_t k) {
  const uint64_t r = isqrt(2 * k);
  return (r + 1) * r <= 2 * k ? r + 1 : r;
}

struct Cell {
  int64_t x = 0, y = 0;  // column and row, x < y (strict) unless stated otherwise
};

// V1 (TL start, row-wise left to right): Pi(x, y) = S^-(y) + x.
XPOSE_HD uint64_t v1_encode(int64_t x, int64_t y) { return tri_strict(y) + x; }
XPOSE_HD Cell v1_decode(uint64_t k) {
  const uint64_t y = v1_row(k);
  return {static_cast<int64_t>(k - tri_strict(y)), static_cast<int64_t>(y)};
}

// V1R (V1 with the primary direction reversed): Pi(x, y) = S^+(y) - x - 1. Same rows as V1.
XPOSE_HD uint64_t v1r_encode(int64_t x, int64_t y) { return tri_incl(y) - x - 1; }
XPOSE_HD Cell v1r_decode(uint64_t k) {
  const uint64_t y = v1_row(k);
  return {static_cast<int64_t>(tri_incl(y) - 1 - k), static_cast<int64_t>(y)};
}

// V1B: vertical bands of w columns, left to right; inside a band, rows top to bottom, each
// row left to right. Band i holds the cells of columns [iw, iw + w) (the last band may be
// narrower), so k lies in band i exactly when the column-by-column order would put k in one of
// those columns: the band index comes from a triangle root of the cells from k to the end
// (again no (2m-1)^2, which overflows 64 bits for m near 2^31). m >= 2, 1 <= w.
struct Banded {
  uint64_t m = 2;  // order of the strict triangle
  uint64_t w = 1;  // band width

  XPOSE_HD uint64_t total() const { return tri_strict(m); }
  // Cells in columns < c (the paper's b_i for c = iw).
  XPOSE_HD uint64_t before_column(uint64_t c) const { return total() - tri_strict(m - c); }
  // The column holding k in column-by-column order: the order-q trailing triangle (columns
  // >= m - q) is the smallest holding the total - k cells from k on.
  XPOSE_HD uint64_t column_of(uint64_t k) const {
    const uint64_t rest = total() - k;   // >= 1
    const uint64_t q = v1_row(rest - 1) + 1;  // smallest q with S^-(q) >= rest
    return m - q;
  }
  XPOSE_HD uint64_t band_width(uint64_t band) const {
    const uint64_t left = m - 1 - band * w;  // columns from the band's first on
    return left < w ? left : w;
  }

  XPOSE_HD uint64_t encode(int64_t x, int64_t y) const {
    const uint64_t band = static_cast<uint64_t>(x) / w, x0 = band * w, wb = band_width(band);
    const uint64_t k0 = before_column(x0), dx = x - x0, dy = y - x0;  // 1 <= dy
    if (dy <= wb) return k0 + tri_strict(dy) + dx;                     // the band's triangle
    return k0 + tri_incl(wb) + (dy - wb - 1) * wb + dx;               // its rectangle
  }
  XPOSE_HD Cell decode(uint64_t k) const {
    const uint64_t band = column_of(k) / w, x0 = band * w, wb = band_width(band);
    const uint64_t k2 = k - before_column(x0);
    if (k2 < tri_incl(wb)) {
      const Cell c = v1_decode(k2);
      return {static_cast<int64_t>(x0) + c.x, static_cast<int64_t>(x0) + c.y};
    }
    const uint64_t k3 = k2 - tri_incl(wb);
    return {static_cast<int64_t>(x0 + k3 % wb), static_cast<int64_t>(x0 + wb + 1 + k3 / wb)};
  }
};

// The schemes the kernels can be forced to (docs/inplace.md). kFull is the paper's plain IP
// kernel: a full T x T grid, blocks above the diagonal idle (the baseline of its Fig. 2).
// kSuperGrid launches one kernel per region of the tile grid (the paper's Listing 3).
enum class Scheme : int { kV1 = 0, kV1R = 1, kV1B = 2, kFull = 3, kSuperGrid = 4 };

// The decoder a launch uses: tiles = T (tile grid order), so the strict order is T + 1.
struct Enumeration {
  Scheme scheme = Scheme::kV1B;
  uint64_t tiles = 1;  // T
  uint64_t w = 1;      // V1B band width
  // Super grid: region order (tiles) and the region this launch covers.
  uint64_t region = 1, region_x = 0, region_y = 0;

  // Work items of one launch (per batch entry).
  XPOSE_HD uint64_t count() const {
    if (scheme == Scheme::kFull) return tiles * tiles;
    if (scheme == Scheme::kSuperGrid) return region * region;
    return tri_incl(tiles);
  }
  // The tile pair (tx <= ty) of item k; false for an idle item (kFull, kSuperGrid).
  XPOSE_HD bool tile_pair(uint64_t k, int64_t* tx, int64_t* ty) const {
    Cell c;
    switch (scheme) {
      case Scheme::kV1: c = v1_decode(k); break;
      case Scheme::kV1R: c = v1r_decode(k); break;
      case Scheme::kV1B: c = Banded{tiles + 1, w}.decode(k); break;
      case Scheme::kFull:
        *tx = static_cast<int64_t>(k % tiles);
        *ty = static_cast<int64_t>(k / tiles);
        return *tx <= *ty;
      case Scheme::kSuperGrid:
        *tx = static_cast<int64_t>(region_x * region + k % region);
        *ty = static_cast<int64_t>(region_y * region + k / region);
        return *tx <= *ty && *ty < static_cast<int64_t>(tiles);
    }
    *tx = c.x;
    *ty = c.y - 1;
    return true;
  }
};

}  // namespace xpose::detail::pairing
