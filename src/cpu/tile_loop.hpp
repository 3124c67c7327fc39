// The tile loop shared by every ISA's kernels. Included by each kernels_*.cpp AFTER its
// `#pragma GCC target`, so the loop is compiled for that ISA and inlines its block transposes;
// everything here has internal linkage, so the per-ISA copies never meet at link time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace xpose::detail::cpu {
namespace {

// Scalar part of a tile: rows [r0, r1) x columns [c0, c1), same addressing as TileFn.
template <size_t E>
inline void tile_scalar(const char* in, const int64_t* icol, char* out, const int64_t* orow,
                        int r0, int r1, int c0, int c1) {
  for (int c = c0; c < c1; ++c) {
    const char* src = in + icol[c];
    for (int r = r0; r < r1; ++r) std::memcpy(out + orow[r] + c * E, src + r * E, E);
  }
}

// A whole tile through K::block (K::kB x K::kB elements of K::kE bytes in registers); the
// ragged right and bottom edges go through the scalar loop. Column blocks outside, rows inside:
// kB input columns (pages, prefetch streams) at a time down the tile, not all nc columns per
// band of rows, which overruns the L2 prefetcher's stream trackers on wide tiles.
template <class K>
inline void tile_blocked(const char* in, const int64_t* icol, char* out, const int64_t* orow,
                         int nr, int nc) {
  constexpr int B = K::kB;
  constexpr size_t E = K::kE;
  int c = 0;
  for (; c + B <= nc; c += B) {
    int r = 0;
    for (; r + B <= nr; r += B) K::block(in + r * E, icol + c, out + c * E, orow + r);
    tile_scalar<E>(in, icol, out, orow, r, nr, c, c + B);
  }
  tile_scalar<E>(in, icol, out, orow, 0, nr, c, nc);
}

}  // namespace
}  // namespace xpose::detail::cpu
