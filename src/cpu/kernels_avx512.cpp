// AVX-512 block transposes: 8x8 for 8-byte elements (one cache line per row); 1- and 2-byte
// elements come from kernels_avx512bw.cpp; 4-byte elements keep AVX2's 8x8 (a 16x16 float tile
// needs 16 registers of shuffles for no bandwidth gain).
// Compiled for AVX-512F through a target pragma and used only when the CPU has it.
#include "cpu/kernels.hpp"

#if defined(__x86_64__)
// GCC 12 flags the deliberately undefined source operand inside its own AVX-512 shuffle
// intrinsics as uninitialized; the warning is about the header, not this code.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif

#include "cpu/tile_loop.hpp"

namespace xpose::detail::cpu {
namespace {

// One 8x8 block of 8-byte elements, or its top-left nr x nc part (1..8 each) with masked loads
// and stores: the ragged edges of odd tiles (15, 17 wide) stay in registers instead of going
// element by element through the scalar loop.
template <bool kFull>
inline void block8(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                   int nc) {
  const __mmask8 rmask = static_cast<__mmask8>((1u << nr) - 1);
  const __mmask8 cmask = static_cast<__mmask8>((1u << nc) - 1);
  __m512d r[8], t[8], u[8];
  for (int q = 0; q < 8; ++q) {
    if (kFull)
      r[q] = _mm512_loadu_pd(in + icol[q]);
    else
      r[q] = q < nc ? _mm512_maskz_loadu_pd(rmask, in + icol[q]) : _mm512_setzero_pd();
  }
  for (int q = 0; q < 8; q += 2) {
    t[q] = _mm512_unpacklo_pd(r[q], r[q + 1]);      // a0 b0 | a2 b2 | a4 b4 | a6 b6
    t[q + 1] = _mm512_unpackhi_pd(r[q], r[q + 1]);  // a1 b1 | a3 b3 | a5 b5 | a7 b7
  }
  for (int q = 0; q < 8; q += 4) {  // 128-bit lanes: rows {0, 4}, {1, 5}, {2, 6}, {3, 7}
    u[q] = _mm512_shuffle_f64x2(t[q], t[q + 2], 0x88);
    u[q + 1] = _mm512_shuffle_f64x2(t[q + 1], t[q + 3], 0x88);
    u[q + 2] = _mm512_shuffle_f64x2(t[q], t[q + 2], 0xDD);
    u[q + 3] = _mm512_shuffle_f64x2(t[q + 1], t[q + 3], 0xDD);
  }
  for (int q = 0; q < 4; ++q) {
    const __m512d lo = _mm512_shuffle_f64x2(u[q], u[q + 4], 0x88);  // row q
    const __m512d hi = _mm512_shuffle_f64x2(u[q], u[q + 4], 0xDD);  // row q + 4
    if (kFull) {
      _mm512_storeu_pd(out + orow[q], lo);
      _mm512_storeu_pd(out + orow[q + 4], hi);
    } else {
      if (q < nr) _mm512_mask_storeu_pd(out + orow[q], cmask, lo);
      if (q + 4 < nr) _mm512_mask_storeu_pd(out + orow[q + 4], cmask, hi);
    }
  }
}

// Whether the 8 rows at orow[0..7] follow each other in the output, W elements apart (the block
// is then one dense run of 8 * W elements).
template <int W>
inline bool dense_rows(const int64_t* orow) {
  const __m512i want = _mm512_add_epi64(
      _mm512_set1_epi64(orow[0]),
      _mm512_set_epi64(56 * W, 48 * W, 40 * W, 32 * W, 24 * W, 16 * W, 8 * W, 0));
  return _mm512_cmpeq_epi64_mask(_mm512_loadu_si512(orow), want) == 0xFF;
}

// `p` moved back by `lanes` doubles, as an integer: the base of a masked store whose first enabled
// lane is `lanes` in (the disabled lanes before it are not accessed and do not fault).
inline char* lanes_before(char* p, int lanes) {
  const uintptr_t back = 8 * static_cast<uintptr_t>(lanes);
  return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(p) - back);
}

// One or two columns by up to 8 rows (the last column block of a tile whose width is 8k + 1 or
// 8k + 2, or a whole tile 1 or 2 wide): a column is one register, two are interleaved by two
// permutes, and each row goes out with one masked store of its lanes, or, when the 8 rows are
// dense in the output (rows that continue each other, staged in output order), as one or two
// whole registers. The 8x8 transpose spent 8 loads, 24 shuffles and 8 masked stores on the same
// 8 or 16 elements: (8,10,2,22,17,33,11) perm (2,0,3,6,4,1,5), 80 x 2 tiles, was CPU-bound
// (docs/perf/cpu-16core.md, session 4).

template <int W>
inline void narrow8(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr) {
  const auto rmask = static_cast<__mmask8>((1u << nr) - 1);
  const __m512d a =
      nr == 8 ? _mm512_loadu_pd(in + icol[0]) : _mm512_maskz_loadu_pd(rmask, in + icol[0]);
  if (W == 1) {
    if (nr == 8 && dense_rows<1>(orow)) {
      _mm512_storeu_pd(out + orow[0], a);
      return;
    }
    for (int q = 0; q < nr; ++q)  // lane q of `a` lands at out + orow[q]
      _mm512_mask_storeu_pd(lanes_before(out + orow[q], q), static_cast<__mmask8>(1u << q), a);
    return;
  }
  const __m512d b =
      nr == 8 ? _mm512_loadu_pd(in + icol[1]) : _mm512_maskz_loadu_pd(rmask, in + icol[1]);
  const __m512d lo = _mm512_permutex2var_pd(a, _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), b);
  const __m512d hi = _mm512_permutex2var_pd(a, _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), b);
  if (nr == 8 && dense_rows<2>(orow)) {
    _mm512_storeu_pd(out + orow[0], lo);
    _mm512_storeu_pd(out + orow[0] + 64, hi);
    return;
  }
  for (int q = 0; q < nr; ++q)  // row q is lanes 2(q % 4), +1 of lo (q < 4) or hi
    _mm512_mask_storeu_pd(lanes_before(out + orow[q], 2 * (q & 3)),
                          static_cast<__mmask8>(3u << (2 * (q & 3))), q < 4 ? lo : hi);
}

// Column blocks outside, rows inside: the tile's input is read 8 columns (8 pages, 8 streams
// for the L2 prefetcher) at a time down the whole tile, instead of all nc columns at once per
// band of 8 rows, which overran the prefetcher's stream trackers on 64-wide tiles.
void tile8(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr, int nc,
           size_t) {
  constexpr int64_t E = 8;
  for (int c = 0; c < nc; c += 8) {
    const int w = std::min(8, nc - c);
    int r = 0;
    if (w == 8)
      for (; r + 8 <= nr; r += 8) block8<true>(in + r * E, icol + c, out + c * E, orow + r, 8, 8);
    if (w == 1)
      for (; r < nr; r += 8)
        narrow8<1>(in + r * E, icol + c, out + c * E, orow + r, std::min(8, nr - r));
    if (w == 2)
      for (; r < nr; r += 8)
        narrow8<2>(in + r * E, icol + c, out + c * E, orow + r, std::min(8, nr - r));
    for (; r < nr; r += 8)
      block8<false>(in + r * E, icol + c, out + c * E, orow + r, std::min(8, nr - r), w);
  }
}

// Super-elements of any multiple of 8 bytes: whole 64-byte registers and one masked tail per
// element, instead of eb / 8 scalar moves (120 B: 2 loads and 2 stores instead of 15 each).
void tile_units64(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                  int nc, size_t eb) {
  const size_t full = eb / 64 * 64;
  const auto tail = static_cast<__mmask8>((1u << (eb % 64 / 8)) - 1);
  for (int c = 0; c < nc; ++c) {
    const char* src = in + icol[c];
    for (int r = 0; r < nr; ++r) {
      const char* s = src + r * eb;
      char* d = out + orow[r] + c * eb;
      for (size_t u = 0; u < full; u += 64)
        _mm512_storeu_si512(d + u, _mm512_loadu_si512(s + u));
      if (tail != 0) _mm512_mask_storeu_epi64(d + full, tail, _mm512_maskz_loadu_epi64(tail, s + full));
    }
  }
}

}  // namespace
}  // namespace xpose::detail::cpu

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace xpose::detail::cpu {

const IsaKernels* avx512_kernels() {
  const IsaKernels* avx2 = avx2_kernels();
  if (avx2 == nullptr || !__builtin_cpu_supports("avx512f")) return nullptr;
  // Bytes and words from kernels_avx512bw.cpp when the CPU has AVX-512BW/VL, else AVX2's.
  static const IsaKernels kKernels = [&] {
    const NarrowKernels* bw = avx512bw_kernels();
    return IsaKernels{bw ? bw->k1 : avx2->k1, bw ? bw->k2 : avx2->k2, avx2->k4,
                      {tile8, "avx512-8x8m"}, {tile_units64, "avx512-units64"}};
  }();
  return &kKernels;
}

}  // namespace xpose::detail::cpu

#else

namespace xpose::detail::cpu {
const IsaKernels* avx512_kernels() { return nullptr; }
}  // namespace xpose::detail::cpu

#endif
