// The 512-bit registers of the byte and word ladders (narrow_blocks.hpp) for AVX-512BW, shared
// by the plain tile kernels (kernels_avx512bw.cpp) and the fused typed ones
// (fused_tiles_avx512.cpp). Included by each AFTER its target pragma (AVX-512 F, BW, VL), so
// compiled for that ISA; internal linkage.
#pragma once

#include <immintrin.h>

#include "cpu/narrow_blocks.hpp"

namespace xpose::detail::cpu {
namespace {

// 512-bit registers: lane l from the column l * R further.
struct Ops512 {
  using V = __m512i;
  static constexpr int kLanes = 4;
  template <int L>
  static V lo(V a, V b) {
    if constexpr (L == 0) return _mm512_unpacklo_epi8(a, b);
    else if constexpr (L == 1) return _mm512_unpacklo_epi16(a, b);
    else if constexpr (L == 2) return _mm512_unpacklo_epi32(a, b);
    else return _mm512_unpacklo_epi64(a, b);
  }
  template <int L>
  static V hi(V a, V b) {
    if constexpr (L == 0) return _mm512_unpackhi_epi8(a, b);
    else if constexpr (L == 1) return _mm512_unpackhi_epi16(a, b);
    else if constexpr (L == 2) return _mm512_unpackhi_epi32(a, b);
    else return _mm512_unpackhi_epi64(a, b);
  }
  static V join(__m128i a, __m128i b, __m128i c, __m128i d) {
    const V ab = _mm512_inserti32x4(_mm512_castsi128_si512(a), b, 1);
    return _mm512_inserti32x4(_mm512_inserti32x4(ab, c, 2), d, 3);
  }
  static __m128i load16(const char* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
  static V load(const char* const* p) { return join(load16(p[0]), load16(p[1]), load16(p[2]), load16(p[3])); }
  static void store(char* p, V v) { _mm512_storeu_si512(p, v); }
};

// Block starts along a side of n elements: overlapping whole blocks when n >= k, else one
// (partial) block at 0.
template <class F>
void side_steps(int n, int k, const F& f) {
  if (n >= k)
    overlapped_steps(n, k, f);
  else
    f(0);
}

}  // namespace
}  // namespace xpose::detail::cpu
