// The 8 x 8 transpose of 4-byte elements in AVX registers, shared by the AVX2 block kernel and
// the AVX-512 typed tile kernel. Included by each AFTER its target pragma (as narrow_blocks.hpp),
// so it is compiled for that ISA; internal linkage. x86-64 only.
#pragma once

#include <immintrin.h>

namespace xpose::detail::cpu {
namespace {

// The first two steps of an 8 x 8 transpose of 4-byte elements, in 128-bit lanes of any width:
// r[q]: row q of the block (8 elements, per 256 bits); s: rows as 128-bit halves (below).
// Ops: unpacklo / unpackhi and shuffle<imm> of V (Ps256 here; the 512-bit one of
// fused_tiles_avx512.cpp runs two blocks side by side).
template <class Ops, class V>
inline void transpose8x8_steps(const V (&r)[8], V (&s)[8]) {
  V t[8];
  for (int q = 0; q < 8; q += 2) {
    t[q] = Ops::unpacklo(r[q], r[q + 1]);
    t[q + 1] = Ops::unpackhi(r[q], r[q + 1]);
  }
  for (int q = 0; q < 8; q += 4) {
    s[q] = Ops::template shuffle<_MM_SHUFFLE(1, 0, 1, 0)>(t[q], t[q + 2]);
    s[q + 1] = Ops::template shuffle<_MM_SHUFFLE(3, 2, 3, 2)>(t[q], t[q + 2]);
    s[q + 2] = Ops::template shuffle<_MM_SHUFFLE(1, 0, 1, 0)>(t[q + 1], t[q + 3]);
    s[q + 3] = Ops::template shuffle<_MM_SHUFFLE(3, 2, 3, 2)>(t[q + 1], t[q + 3]);
  }
}

struct Ps256 {
  static __m256 unpacklo(__m256 a, __m256 b) { return _mm256_unpacklo_ps(a, b); }
  static __m256 unpackhi(__m256 a, __m256 b) { return _mm256_unpackhi_ps(a, b); }
  template <int I>
  static __m256 shuffle(__m256 a, __m256 b) {
    return _mm256_shuffle_ps(a, b, I);
  }
};

// r[q]: row q of the block (8 elements). On return, s holds the transposed rows as 128-bit
// halves: row q < 4 is (low half of s[q], low half of s[q + 4]), row q + 4 the high halves
// (_mm256_permute2f128_ps with 0x20 and 0x31).
inline void transpose8x8_halves(const __m256 (&r)[8], __m256 (&s)[8]) {
  transpose8x8_steps<Ps256>(r, s);
}

}  // namespace
}  // namespace xpose::detail::cpu
