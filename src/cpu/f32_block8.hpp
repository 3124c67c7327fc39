// The 8 x 8 transpose of 4-byte elements in AVX registers, shared by the AVX2 block kernel and
// the AVX-512 typed tile kernel. Included by each AFTER its target pragma (as narrow_blocks.hpp),
// so it is compiled for that ISA; internal linkage. x86-64 only.
#pragma once

#include <immintrin.h>

namespace xpose::detail::cpu {
namespace {

// r[q]: row q of the block (8 elements). On return, s holds the transposed rows as 128-bit
// halves: row q < 4 is (low half of s[q], low half of s[q + 4]), row q + 4 the high halves
// (_mm256_permute2f128_ps with 0x20 and 0x31).
inline void transpose8x8_halves(const __m256 (&r)[8], __m256 (&s)[8]) {
  __m256 t[8];
  for (int q = 0; q < 8; q += 2) {
    t[q] = _mm256_unpacklo_ps(r[q], r[q + 1]);
    t[q + 1] = _mm256_unpackhi_ps(r[q], r[q + 1]);
  }
  for (int q = 0; q < 8; q += 4) {
    s[q] = _mm256_shuffle_ps(t[q], t[q + 2], _MM_SHUFFLE(1, 0, 1, 0));
    s[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], _MM_SHUFFLE(3, 2, 3, 2));
    s[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], _MM_SHUFFLE(1, 0, 1, 0));
    s[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
}

}  // namespace
}  // namespace xpose::detail::cpu
