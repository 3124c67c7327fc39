// Hand-vectorized contiguous rows of the typed element operations for AVX-512 (F, BW, VL, DQ),
// where GCC's vectorization of src/core/convert.hpp's generic integer rounding stays slow:
// f16 -> f32 ran at 3.3 G elements/s per core in L1 and bf16 -> e4m3 at 5.6 (64-element rows),
// against ~1.4 that one core's share of the 16-core host's memory bandwidth needs. Included by
// typed_ops_body.hpp in typed_ops_avx512.cpp only, under that file's target pragma. Each result
// is the one convert.hpp gives, bit for bit (tests/typed_cpu_test.cpp compares them
// exhaustively over 16-bit inputs and densely over f32 ones):
//  - f16 <-> f32 by the F16C-style instructions of AVX-512F (vcvtph2ps is exact; vcvtps2ph
//    rounds to nearest even with the rounding given in the instruction, giving inf on
//    overflow and f16 subnormals), NaN then replaced by the canonical one with its sign;
//  - f16 <-> bf16 and f16 -> e4m3 through f32 (exact), rounded once by the f32 rules;
//  - f32 -> bf16, bf16 -> e4m3 and f32 -> e4m3 in integer lanes (16-bit lanes for bf16: 32
//    per register), the rounding of convert.hpp's round_bits written for those formats
//    (e4m3's subnormal results by an f32 addition);
//  - e4m3 -> f32 and e4m3 -> bf16 (exact: f32's upper half) in 32-bit lanes, subnormals by
//    an integer-to-float conversion;
//  - f32 -> f32 with alpha / beta in f32 arithmetic, each product and sum rounded (this file's
//    translation unit has no FMA contraction), NaN results made the positive quiet NaN.
// No include guard: part of typed_ops_body.hpp's instantiation.
#include <immintrin.h>

#include "cpu/typed_convert_avx512.hpp"

namespace xpose::detail::cpu {
namespace {

// Masks of the last partial vector of a row: the first k of 16 or 32 lanes.
inline __mmask16 first16(int64_t k) { return static_cast<__mmask16>((1u << k) - 1); }
inline __mmask32 first32(int64_t k) {
  return static_cast<__mmask32>((uint64_t{1} << k) - 1);
}

// Rows: whole registers, then one masked register for the rest (FastRow, typed_ops_body.hpp):
// all n elements.
template <>
struct FastRow<XPOSE_TYPE_F16, XPOSE_TYPE_F32, false, false> {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) {
    int64_t e = 0;
    for (; e + 16 <= n; e += 16)
      _mm512_storeu_si512(y + 4 * e, f16_to_f32(_mm256_loadu_si256(
                                         reinterpret_cast<const __m256i*>(x + 2 * e))));
    if (e == n) return n;
    const __mmask16 m = first16(n - e);
    _mm512_mask_storeu_epi32(y + 4 * e, m, f16_to_f32(_mm256_maskz_loadu_epi16(m, x + 2 * e)));
    return n;
  }
};

// f32 in, a 16-bit format out (f16, bf16).
template <__m256i (*kConvert)(__m512i)>
inline void narrow_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 16 <= n; e += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + 2 * e),
                        kConvert(_mm512_loadu_si512(x + 4 * e)));
  if (e == n) return;
  const __mmask16 m = first16(n - e);
  _mm256_mask_storeu_epi16(y + 2 * e, m, kConvert(_mm512_maskz_loadu_epi32(m, x + 4 * e)));
}

template <>
struct FastRow<XPOSE_TYPE_F32, XPOSE_TYPE_F16, false, false> {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) {
    narrow_row<f32_to_f16>(x, y, n);
    return n;
  }
};

template <>
struct FastRow<XPOSE_TYPE_F32, XPOSE_TYPE_BF16, false, false> {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) {
    narrow_row<f32_to_bf16>(x, y, n);
    return n;
  }
};

template <>
struct FastRow<XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3, false, false> {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) {
    int64_t e = 0;
    for (; e + 32 <= n; e += 32)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + e),
                          bf16_to_e4m3(_mm512_loadu_si512(x + 2 * e)));
    if (e == n) return n;
    const __mmask32 m = first32(n - e);
    _mm256_mask_storeu_epi8(y + e, m, bf16_to_e4m3(_mm512_maskz_loadu_epi16(m, x + 2 * e)));
    return n;
  }
};

// Between the 16-bit formats, 32 lanes a register.
template <__m512i (*kConvert)(__m512i)>
inline void half_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 32 <= n; e += 32) _mm512_storeu_si512(y + 2 * e, kConvert(_mm512_loadu_si512(x + 2 * e)));
  if (e == n) return;
  const __mmask32 m = first32(n - e);
  _mm512_mask_storeu_epi16(y + 2 * e, m, kConvert(_mm512_maskz_loadu_epi16(m, x + 2 * e)));
}

template <>
struct FastRow<XPOSE_TYPE_F16, XPOSE_TYPE_BF16, false, false> {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) {
    half_row<f16_to_bf16>(x, y, n);
    return n;
  }
};

template <>
struct FastRow<XPOSE_TYPE_BF16, XPOSE_TYPE_F16, false, false> {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) {
    half_row<bf16_to_f16>(x, y, n);
    return n;
  }
};

template <>
struct FastRow<XPOSE_TYPE_F16, XPOSE_TYPE_F8_E4M3, false, false> {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) {
    int64_t e = 0;
    for (; e + 32 <= n; e += 32)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + e),
                          f16_to_e4m3(_mm512_loadu_si512(x + 2 * e)));
    if (e == n) return n;
    const __mmask32 m = first32(n - e);
    _mm256_mask_storeu_epi8(y + e, m, f16_to_e4m3(_mm512_maskz_loadu_epi16(m, x + 2 * e)));
    return n;
  }
};

template <>
struct FastRow<XPOSE_TYPE_F32, XPOSE_TYPE_F8_E4M3, false, false> {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) {
    int64_t e = 0;
    for (; e + 16 <= n; e += 16)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y + e),
                       f32_to_e4m3(_mm512_loadu_si512(x + 4 * e)));
    if (e == n) return n;
    const __mmask16 m = first16(n - e);
    _mm_mask_storeu_epi8(y + e, m, f32_to_e4m3(_mm512_maskz_loadu_epi32(m, x + 4 * e)));
    return n;
  }
};

// e4m3 in, a wider format out: f32, or bf16 (every e4m3 value is one: f32's upper half).
template <bool kBf16>
inline void widen_e4m3_row(const char* x, char* y, int64_t n) {
  constexpr int64_t ob = kBf16 ? 2 : 4;
  const auto put = [&](int64_t e, __mmask16 m, __m512i f) {
    if constexpr (kBf16)
      _mm256_mask_storeu_epi16(y + ob * e, m, _mm512_cvtepi32_epi16(_mm512_srli_epi32(f, 16)));
    else
      _mm512_mask_storeu_epi32(y + ob * e, m, f);
  };
  int64_t e = 0;
  for (; e + 16 <= n; e += 16)
    put(e, 0xffff, e4m3_to_f32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + e))));
  if (e == n) return;
  const __mmask16 m = first16(n - e);
  put(e, m, e4m3_to_f32(_mm_maskz_loadu_epi8(m, x + e)));
}

template <>
struct FastRow<XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F32, false, false> {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) {
    widen_e4m3_row<false>(x, y, n);
    return n;
  }
};

template <>
struct FastRow<XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_BF16, false, false> {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) {
    widen_e4m3_row<true>(x, y, n);
    return n;
  }
};

// f32 -> f32 scaled (an unscaled one is a byte copy, never typed): axpby's rule.
template <bool kA, bool kB>
struct FastRow<XPOSE_TYPE_F32, XPOSE_TYPE_F32, kA, kB> {
  static constexpr bool kHas = kA || kB;
  static __m512 at(__m512 v, __m512 w, float a, float b) {
    if constexpr (kA) v = _mm512_mul_ps(_mm512_set1_ps(a), v);
    if constexpr (kB) v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_set1_ps(b), w));
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    return _mm512_mask_mov_ps(v, nan, _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000)));
  }
  static int64_t run(const char* x, char* y, int64_t n, float a, float b) {
    auto* out = reinterpret_cast<float*>(y);
    const auto* in = reinterpret_cast<const float*>(x);
    int64_t e = 0;
    for (; e + 16 <= n; e += 16) {
      const __m512 w = kB ? _mm512_loadu_ps(out + e) : _mm512_setzero_ps();
      _mm512_storeu_ps(out + e, at(_mm512_loadu_ps(in + e), w, a, b));
    }
    if (e == n) return n;
    const __mmask16 m = first16(n - e);
    const __m512 w = kB ? _mm512_maskz_loadu_ps(m, out + e) : _mm512_setzero_ps();
    _mm512_mask_storeu_ps(out + e, m, at(_mm512_maskz_loadu_ps(m, in + e), w, a, b));
    return n;
  }
};

}  // namespace
}  // namespace xpose::detail::cpu
