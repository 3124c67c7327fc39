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
//  - e5m2 out of f16 (the same exponent: f16's rounding at bit 8), bf16 and f32 (e4m3's way,
//    E5M2's bias and mantissa); e5m2 in: the upper byte of an f16, exact (to f32 and bf16
//    through f16 -> f32);
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
// all n elements. RowOf<f> is the FastRow of the row function f.
template <void (*kRow)(const char*, char*, int64_t)>
struct RowOf {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) {
    kRow(x, y, n);
    return n;
  }
};

inline void f16_f32_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 16 <= n; e += 16)
    _mm512_storeu_si512(y + 4 * e,
                        f16_to_f32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 2 * e))));
  if (e == n) return;
  const __mmask16 m = first16(n - e);
  _mm512_mask_storeu_epi32(y + 4 * e, m, f16_to_f32(_mm256_maskz_loadu_epi16(m, x + 2 * e)));
}

// f32 in, a 16-bit format out (f16, bf16), 16 lanes a register.
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

// f32 in, an 8-bit format out, 16 lanes a register.
template <__m128i (*kConvert)(__m512i)>
inline void f32_byte_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 16 <= n; e += 16)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + e), kConvert(_mm512_loadu_si512(x + 4 * e)));
  if (e == n) return;
  const __mmask16 m = first16(n - e);
  _mm_mask_storeu_epi8(y + e, m, kConvert(_mm512_maskz_loadu_epi32(m, x + 4 * e)));
}

// Between the 16-bit formats, 32 lanes a register.
template <__m512i (*kConvert)(__m512i)>
inline void half_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 32 <= n; e += 32) _mm512_storeu_si512(y + 2 * e, kConvert(_mm512_loadu_si512(x + 2 * e)));
  if (e == n) return;
  const __mmask32 m = first32(n - e);
  _mm512_mask_storeu_epi16(y + 2 * e, m, kConvert(_mm512_maskz_loadu_epi16(m, x + 2 * e)));
}

// A 16-bit format in, an 8-bit one out, 32 lanes a register.
template <__m256i (*kConvert)(__m512i)>
inline void half_byte_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 32 <= n; e += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + e), kConvert(_mm512_loadu_si512(x + 2 * e)));
  if (e == n) return;
  const __mmask32 m = first32(n - e);
  _mm256_mask_storeu_epi8(y + e, m, kConvert(_mm512_maskz_loadu_epi16(m, x + 2 * e)));
}

// e5m2 in, f16 out, 32 lanes a register.
inline void e5m2_f16_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 32 <= n; e += 32)
    _mm512_storeu_si512(y + 2 * e,
                        e5m2_to_f16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + e))));
  if (e == n) return;
  const __mmask32 m = first32(n - e);
  _mm512_mask_storeu_epi16(y + 2 * e, m, e5m2_to_f16(_mm256_maskz_loadu_epi8(m, x + e)));
}

// An 8-bit format in (kToF32: its 16 bytes as f32 bits), f32 out, or bf16 (every e4m3 and e5m2
// value is one: f32's upper half).
template <__m512i (*kToF32)(__m128i), bool kBf16>
inline void widen_byte_row(const char* x, char* y, int64_t n) {
  constexpr int64_t ob = kBf16 ? 2 : 4;
  const auto put = [&](int64_t e, __mmask16 m, __m512i f) {
    if constexpr (kBf16)
      _mm256_mask_storeu_epi16(y + ob * e, m, _mm512_cvtepi32_epi16(_mm512_srli_epi32(f, 16)));
    else
      _mm512_mask_storeu_epi32(y + ob * e, m, f);
  };
  int64_t e = 0;
  for (; e + 16 <= n; e += 16)
    put(e, 0xffff, kToF32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + e))));
  if (e == n) return;
  const __mmask16 m = first16(n - e);
  put(e, m, kToF32(_mm_maskz_loadu_epi8(m, x + e)));
}

constexpr xpose_type_t kF32 = XPOSE_TYPE_F32, kF16 = XPOSE_TYPE_F16, kBf16 = XPOSE_TYPE_BF16,
                       kE4m3 = XPOSE_TYPE_F8_E4M3, kE5m2 = XPOSE_TYPE_F8_E5M2;

template <> struct FastRow<kF16, kF32, false, false> : RowOf<f16_f32_row> {};
template <> struct FastRow<kF32, kF16, false, false> : RowOf<narrow_row<f32_to_f16>> {};
template <> struct FastRow<kF32, kBf16, false, false> : RowOf<narrow_row<f32_to_bf16>> {};
template <> struct FastRow<kF16, kBf16, false, false> : RowOf<half_row<f16_to_bf16>> {};
template <> struct FastRow<kBf16, kF16, false, false> : RowOf<half_row<bf16_to_f16>> {};
template <> struct FastRow<kBf16, kE4m3, false, false> : RowOf<half_byte_row<bf16_to_e4m3>> {};
template <> struct FastRow<kF16, kE4m3, false, false> : RowOf<half_byte_row<f16_to_e4m3>> {};
template <> struct FastRow<kBf16, kE5m2, false, false> : RowOf<half_byte_row<bf16_to_e5m2>> {};
template <> struct FastRow<kF16, kE5m2, false, false> : RowOf<half_byte_row<f16_to_e5m2>> {};
template <> struct FastRow<kF32, kE4m3, false, false> : RowOf<f32_byte_row<f32_to_e4m3>> {};
template <> struct FastRow<kF32, kE5m2, false, false> : RowOf<f32_byte_row<f32_to_e5m2>> {};
template <> struct FastRow<kE4m3, kF32, false, false> : RowOf<widen_byte_row<e4m3_to_f32, false>> {};
template <> struct FastRow<kE4m3, kBf16, false, false> : RowOf<widen_byte_row<e4m3_to_f32, true>> {};
template <> struct FastRow<kE5m2, kF32, false, false> : RowOf<widen_byte_row<e5m2_to_f32, false>> {};
template <> struct FastRow<kE5m2, kBf16, false, false> : RowOf<widen_byte_row<e5m2_to_f32, true>> {};
template <> struct FastRow<kE5m2, kF16, false, false> : RowOf<e5m2_f16_row> {};

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
