// The typed schema's tile kernel for 4-byte elements on AVX-512 (F, VL): AVX2's 8 x 8 register
// transpose, with masked loads and stores for blocks cut by a tile edge instead of the shared
// kernels' element-by-element edges. Strided tiles often have fewer than 8 rows: at ranks 5-8
// with padded extents of 5-8, J is input dim 0 alone (nothing continues it in memory), and the
// shared kernel copied all of such a tile one element at a time (`tile4` was 47 % of a warm
// single-thread profile of (6,13,26,10,13,5,15) padded). Masked-off lanes are neither read nor
// written, so rows and columns past the edge are never touched. Plain plans keep their kernels.
#include "cpu/typed_plan.hpp"

#if defined(__x86_64__) && !defined(__clang__)
#include <immintrin.h>

#include <algorithm>

#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl")

#include "cpu/f32_block8.hpp"

namespace xpose::detail::cpu {
namespace {

// The top-left nr x nc part (1..8 each; kFull: all of it) of an 8 x 8 block: column q read
// down at in + icol[q], row q written at out + orow[q].
template <bool kFull>
inline void block4(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                   int nc) {
  const auto rmask = static_cast<__mmask8>((1u << nr) - 1);
  const auto cmask = static_cast<__mmask8>((1u << nc) - 1);
  __m256 r[8], s[8];
  for (int q = 0; q < 8; ++q) {
    const auto* p = reinterpret_cast<const float*>(in + (kFull || q < nc ? icol[q] : 0));
    r[q] = kFull ? _mm256_loadu_ps(p) : q < nc ? _mm256_maskz_loadu_ps(rmask, p)
                                               : _mm256_setzero_ps();
  }
  transpose8x8_halves(r, s);
  const auto store = [&](int q, __m256 row) {
    auto* p = reinterpret_cast<float*>(out + orow[q]);
    if (kFull) _mm256_storeu_ps(p, row);
    else _mm256_mask_storeu_ps(p, cmask, row);
  };
  // Immediates written out: unoptimized and sanitizer builds do not unroll a selection of them.
  for (int q = 0; q < 4; ++q) {
    if (kFull || q < nr) store(q, _mm256_permute2f128_ps(s[q], s[q + 4], 0x20));
    if (kFull || q + 4 < nr) store(q + 4, _mm256_permute2f128_ps(s[q], s[q + 4], 0x31));
  }
}

// Column blocks outside, rows inside (the shared kernels' order: 8 input streams at a time).
void tile4(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr, int nc,
           size_t) {
  constexpr int64_t E = 4;
  for (int c = 0; c < nc; c += 8) {
    const int w = std::min(8, nc - c);
    for (int r = 0; r < nr; r += 8) {
      const int h = std::min(8, nr - r);
      if (w == 8 && h == 8) block4<true>(in + r * E, icol + c, out + c * E, orow + r, 8, 8);
      else block4<false>(in + r * E, icol + c, out + c * E, orow + r, h, w);
    }
  }
}

}  // namespace
}  // namespace xpose::detail::cpu

#pragma GCC pop_options

namespace xpose::detail::cpu {
TileFn typed_tile4_avx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? &tile4
                                                                                : nullptr;
}
}  // namespace xpose::detail::cpu
#else
namespace xpose::detail::cpu {
TileFn typed_tile4_avx512() { return nullptr; }
}  // namespace xpose::detail::cpu
#endif
