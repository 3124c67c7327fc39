// Hand-vectorized contiguous rows of the typed element operations for AVX2 with F16C: the
// rows of typed_fast_avx512.hpp for CPUs without AVX-512, where GCC's vectorization of
// src/core/convert.hpp's generic integer rounding stays slow. Included by typed_ops_body.hpp in
// typed_ops_avx2.cpp only, under that file's target pragma. Each result is the one convert.hpp
// gives, bit for bit (tests/typed_ops_test.cpp compares them with the baseline build
// exhaustively over 16-bit inputs, densely over f32 ones, and under FTZ/DAZ):
//  - f16 <-> f32 by F16C (vcvtph2ps is exact; vcvtps2ph rounds to nearest even as the
//    instruction says, with inf on overflow and f16 subnormals), NaN then made canonical with
//    its sign;
//  - f32 -> bf16 in 32-bit lanes, the rounding of convert.hpp's round_bits for it;
//  - bf16 -> e4m3 / e5m2 in 16-bit lanes and f32 (or f16 through f32) -> e4m3 / e5m2 in 32-bit
//    lanes, subnormal results by an f32 addition (a form with AVX2's 32-bit variable shifts ran
//    no faster than GCC's vectorization of the generic code); f16 -> e5m2 by f16's own rounding
//    (the same exponent); f16 <-> bf16 through f32;
//  - e4m3 -> f32 and e4m3 -> bf16 (exact: f32's upper half) in 32-bit lanes; e5m2 as the upper
//    byte of an f16 (to f32 and bf16 through f16 -> f32);
//  - f32 -> f32 with alpha / beta in f32 arithmetic, each product and sum rounded (the
//    including file does not enable FMA), NaN results the positive quiet NaN.
// No include guard: part of typed_ops_body.hpp's instantiation.
#include <immintrin.h>

namespace xpose::detail::cpu {
namespace {

inline __m256i splat(int v) { return _mm256_set1_epi32(v); }

inline __m256i f16_to_f32(__m128i h) {
  const __m256i f = _mm256_castps_si256(_mm256_cvtph_ps(h));
  const __m256i w = _mm256_cvtepu16_epi32(h);
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(w, splat(0x7fff)), splat(0x7c00));
  const __m256i sign = _mm256_and_si256(_mm256_slli_epi32(w, 16), splat(INT32_MIN));
  const __m256i canon = _mm256_or_si256(sign, splat(0x7fc00000));
  return _mm256_blendv_epi8(f, canon, nan);
}

// vcvtps2ph keeps a NaN's sign and quiets it, so the canonical NaN is made from its result.
inline __m128i f32_to_f16(__m256i x) {
  const __m128i h = _mm256_cvtps_ph(_mm256_castsi256_ps(x),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)),
                                      _mm_set1_epi16(0x7c00));
  const __m128i canon = _mm_or_si128(_mm_and_si128(h, _mm_set1_epi16(INT16_MIN)),
                                     _mm_set1_epi16(0x7e00));
  return _mm_blendv_epi8(h, canon, nan);
}

// round_bits<BF16, F32> in 32-bit lanes: the same exponent range, so subnormals round like
// normals and an overflowing magnitude carries into the inf pattern by itself.
inline __m256i f32_to_bf16_lanes(__m256i x) {
  const __m256i a = _mm256_and_si256(x, splat(0x7fffffff));
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(a, 16), splat(1));
  __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(a, splat(0x7fff)), odd), 16);
  r = _mm256_blendv_epi8(r, splat(0x7fc0), _mm256_cmpgt_epi32(a, splat(0x7f800000)));
  return _mm256_or_si256(r, _mm256_and_si256(_mm256_srli_epi32(x, 16), splat(0x8000)));
}

// Two registers of 32-bit lanes holding 16-bit values, in order, as one of 16-bit lanes.
inline __m256i pack16(__m256i lo, __m256i hi) {
  return _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
}

// round_bits<F8, BF16> in 16-bit lanes, F8 = E4M3 (kE5 false) or E5M2. Normal results: the
// magnitude rounded at bit 7 - m and rebiased by (127 - bias) << m. Subnormal ones (under the
// format's smallest normal): as convert.hpp's f32 source does, |x| as f32 (the bf16 bits in the
// upper half of a 32-bit lane) plus 2^k, whose ulp is the format's smallest subnormal (2^14 for
// E4M3, 2^7 for E5M2), rounds to nearest even in the addition; the sum's low bits count those
// subnormals (DAZ/FTZ cannot change it: bf16 subnormals round to 0, the sum is normal). AVX2
// has no 16-bit variable shifts. Overflow: E4M3's NaN 0x7f (so inf/NaN in too), E5M2's inf 0x7c
// (NaN in: 0x7e); the sign kept.
template <bool kE5>
inline __m256i bf16_to_f8(__m256i x) {
  constexpr int shift = kE5 ? 5 : 4, rebias = kE5 ? 112 << 2 : 120 << 3;
  constexpr int min_normal = kE5 ? 113 << 7 : 121 << 7;
  const __m256i a = _mm256_and_si256(x, _mm256_set1_epi16(0x7fff));
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi16(a, shift), _mm256_set1_epi16(1));
  const __m256i normal = _mm256_sub_epi16(
      _mm256_srli_epi16(
          _mm256_add_epi16(_mm256_add_epi16(a, _mm256_set1_epi16((1 << (shift - 1)) - 1)), odd),
          shift),
      _mm256_set1_epi16(rebias));
  const __m256 big = _mm256_set1_ps(kE5 ? 128.0f : 16384.0f);
  const __m256i zero = _mm256_setzero_si256(), big_bits = _mm256_castps_si256(big);
  const auto sub32 = [&](__m256i f) {
    return _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(f), big)),
                            big_bits);
  };
  const __m256i sub = _mm256_packus_epi32(sub32(_mm256_unpacklo_epi16(zero, a)),
                                          sub32(_mm256_unpackhi_epi16(zero, a)));
  const __m256i is_sub = _mm256_cmpgt_epi16(_mm256_set1_epi16(min_normal), a);
  __m256i mag = _mm256_min_epu16(_mm256_blendv_epi8(normal, sub, is_sub),
                                 _mm256_set1_epi16(kE5 ? 0x7c : 0x7f));
  if constexpr (kE5)
    mag = _mm256_blendv_epi8(mag, _mm256_set1_epi16(0x7e),
                             _mm256_cmpgt_epi16(a, _mm256_set1_epi16(0x7f80)));
  return _mm256_or_si256(mag, _mm256_and_si256(_mm256_srli_epi16(x, 8), _mm256_set1_epi16(0x80)));
}

// round_bits<E5M2, F16> in 16-bit lanes: the same exponent, so subnormals round like normals and
// an overflowing magnitude carries into inf (0x7c) by itself; NaN in: 0x7e.
inline __m256i f16_to_e5m2(__m256i x) {
  const __m256i a = _mm256_and_si256(x, _mm256_set1_epi16(0x7fff));
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi16(a, 8), _mm256_set1_epi16(1));
  __m256i mag = _mm256_min_epu16(
      _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(a, _mm256_set1_epi16(0x7f)), odd), 8),
      _mm256_set1_epi16(0x7c));
  mag = _mm256_blendv_epi8(mag, _mm256_set1_epi16(0x7e),
                           _mm256_cmpgt_epi16(a, _mm256_set1_epi16(0x7c00)));
  return _mm256_or_si256(mag, _mm256_and_si256(_mm256_srli_epi16(x, 8), _mm256_set1_epi16(0x80)));
}

// round_bits<F8, F32> in 32-bit lanes: bf16_to_f8's rounding with f32's mantissa (normal
// results rounded at bit 23 - m; subnormal ones by the same f32 addition, of |x| itself). The
// result in 32-bit lanes.
template <bool kE5>
inline __m256i f32_to_f8_lanes(__m256i x) {
  constexpr int shift = kE5 ? 21 : 20, rebias = kE5 ? 112 << 2 : 120 << 3;
  constexpr int min_normal = kE5 ? 113 << 23 : 121 << 23;
  const __m256i a = _mm256_and_si256(x, splat(0x7fffffff));
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(a, shift), splat(1));
  const __m256i normal = _mm256_sub_epi32(
      _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(a, splat((1 << (shift - 1)) - 1)), odd),
                        shift),
      splat(rebias));
  const __m256 big = _mm256_set1_ps(kE5 ? 128.0f : 16384.0f);
  const __m256i sub = _mm256_sub_epi32(
      _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), big)), _mm256_castps_si256(big));
  const __m256i is_sub = _mm256_cmpgt_epi32(splat(min_normal), a);
  __m256i mag = _mm256_min_epu32(_mm256_blendv_epi8(normal, sub, is_sub), splat(kE5 ? 0x7c : 0x7f));
  if constexpr (kE5)
    mag = _mm256_blendv_epi8(mag, splat(0x7e), _mm256_cmpgt_epi32(a, splat(0x7f800000)));
  return _mm256_or_si256(mag, _mm256_and_si256(_mm256_srli_epi32(x, 24), splat(0x80)));
}

// e5m2 -> f16 for 16 bytes: the upper byte of an f16, exact; NaN: f16's canonical one.
inline __m256i e5m2_to_f16(__m128i b16) {
  const __m256i h = _mm256_slli_epi16(_mm256_cvtepu8_epi16(b16), 8);
  const __m256i canon = _mm256_or_si256(_mm256_and_si256(h, _mm256_set1_epi16(INT16_MIN)),
                                        _mm256_set1_epi16(0x7e00));
  const __m256i nan = _mm256_cmpgt_epi16(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)),
                                         _mm256_set1_epi16(0x7c00));
  return _mm256_blendv_epi8(h, canon, nan);
}

// e5m2 -> f32 for 8 bytes: as an f16, widened (f16_to_f32 makes NaN canonical).
inline __m256i e5m2_to_f32(__m128i b8) {
  return f16_to_f32(_mm_slli_epi16(_mm_cvtepu8_epi16(b8), 8));
}

// widen_to_f32<E4M3> for 8 bytes: normal magnitudes moved to f32's exponent (rebias
// (127 - 7) << 23), subnormal ones m * 2^-9 exactly (m as f32, its exponent lowered by 9),
// S.1111.111 the canonical NaN with its sign.
inline __m256i e4m3_to_f32(__m128i b8) {
  const __m256i b = _mm256_cvtepu8_epi32(b8);
  const __m256i mag = _mm256_and_si256(b, splat(0x7f));
  const __m256i normal = _mm256_add_epi32(_mm256_slli_epi32(mag, 20), splat(120 << 23));
  const __m256i zero = _mm256_setzero_si256();
  const __m256i sub = _mm256_andnot_si256(  // m = 0: 0
      _mm256_cmpeq_epi32(mag, zero),
      _mm256_sub_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(mag)), splat(9 << 23)));
  __m256i f = _mm256_blendv_epi8(normal, sub, _mm256_cmpgt_epi32(splat(8), mag));
  f = _mm256_blendv_epi8(f, splat(0x7fc00000), _mm256_cmpeq_epi32(mag, splat(0x7f)));
  return _mm256_or_si256(f, _mm256_slli_epi32(_mm256_and_si256(b, splat(0x80)), 24));
}

// Rows: whole vectors; FastRow's caller (typed_ops_body.hpp) does the rest element by element.
// RowOf<f>: the FastRow of f(x, y, n), which returns the elements it did.
template <int64_t (*kRow)(const char*, char*, int64_t)>
struct RowOf {
  static constexpr bool kHas = true;
  static int64_t run(const char* x, char* y, int64_t n, float, float) { return kRow(x, y, n); }
};

inline __m128i load128(const char* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline __m256i load256(const char* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
inline void store256(char* p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }

// 8 f32 lanes of a 4- or 2-byte source (f32 itself, or f16 widened exactly).
inline __m256i f32_lanes(const char* p) { return load256(p); }
inline __m256i f16_lanes(const char* p) { return f16_to_f32(load128(p)); }
// 8 f32 lanes of a bf16 source: its upper halves, exact.
inline __m256i bf16_lanes(const char* p) {
  return _mm256_slli_epi32(_mm256_cvtepu16_epi32(load128(p)), 16);
}

// 8 f32 lanes (from kIn-byte elements) to f16.
template <__m256i (*kLanes)(const char*), int kIn>
inline int64_t to_f16_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 8 <= n; e += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + 2 * e), f32_to_f16(kLanes(x + kIn * e)));
  return e;
}

inline int64_t f16_f32_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 8 <= n; e += 8) store256(y + 4 * e, f16_lanes(x + 2 * e));
  return e;
}

// 16 f32 lanes (from kIn-byte elements) to bf16, two registers packed.
template <__m256i (*kLanes)(const char*), int kIn>
inline int64_t to_bf16_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 16 <= n; e += 16)
    store256(y + 2 * e, pack16(f32_to_bf16_lanes(kLanes(x + kIn * e)),
                               f32_to_bf16_lanes(kLanes(x + kIn * (e + 8)))));
  return e;
}

// 32 16-bit lanes to an 8-bit format (per 128-bit lane packed, qwords put back in order).
template <__m256i (*kConvert)(__m256i)>
inline int64_t half_byte_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 32 <= n; e += 32) {
    const __m256i b = _mm256_packus_epi16(kConvert(load256(x + 2 * e)),
                                          kConvert(load256(x + 2 * e + 32)));
    store256(y + e, _mm256_permute4x64_epi64(b, 0xd8));
  }
  return e;
}

// 32 f32 lanes (from kIn-byte elements) to an 8-bit format: four registers packed to bytes (per
// 128-bit lane), dwords put back in order.
template <__m256i (*kLanes)(const char*), int kIn, bool kE5>
inline int64_t to_f8_row(const char* x, char* y, int64_t n) {
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int64_t e = 0;
  for (; e + 32 <= n; e += 32) {
    const auto lanes = [&](int k) { return f32_to_f8_lanes<kE5>(kLanes(x + kIn * (e + 8 * k))); };
    const __m256i ab = _mm256_packus_epi32(lanes(0), lanes(1));
    const __m256i cd = _mm256_packus_epi32(lanes(2), lanes(3));
    store256(y + e, _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), order));
  }
  return e;
}

// An 8-bit format (kToF32: 8 bytes as f32 lanes) to f32, or to bf16 (f32's upper half: every
// e4m3 and e5m2 value is a bf16 one).
template <__m256i (*kToF32)(__m128i)>
inline int64_t f8_f32_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 8 <= n; e += 8)
    store256(y + 4 * e, kToF32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + e))));
  return e;
}

template <__m256i (*kToF32)(__m128i)>
inline int64_t f8_bf16_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 16 <= n; e += 16) {
    const auto half = [&](int64_t at) {
      return _mm256_srli_epi32(kToF32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + at))),
                               16);
    };
    store256(y + 2 * e, pack16(half(e), half(e + 8)));
  }
  return e;
}

inline int64_t e5m2_f16_row(const char* x, char* y, int64_t n) {
  int64_t e = 0;
  for (; e + 16 <= n; e += 16) store256(y + 2 * e, e5m2_to_f16(load128(x + e)));
  return e;
}

constexpr xpose_type_t kF32 = XPOSE_TYPE_F32, kF16 = XPOSE_TYPE_F16, kBf16 = XPOSE_TYPE_BF16,
                       kE4m3 = XPOSE_TYPE_F8_E4M3, kE5m2 = XPOSE_TYPE_F8_E5M2;

template <> struct FastRow<kF16, kF32, false, false> : RowOf<f16_f32_row> {};
template <> struct FastRow<kF32, kF16, false, false> : RowOf<to_f16_row<f32_lanes, 4>> {};
template <> struct FastRow<kBf16, kF16, false, false> : RowOf<to_f16_row<bf16_lanes, 2>> {};
template <> struct FastRow<kF32, kBf16, false, false> : RowOf<to_bf16_row<f32_lanes, 4>> {};
template <> struct FastRow<kF16, kBf16, false, false> : RowOf<to_bf16_row<f16_lanes, 2>> {};
template <> struct FastRow<kBf16, kE4m3, false, false> : RowOf<half_byte_row<bf16_to_f8<false>>> {};
template <> struct FastRow<kBf16, kE5m2, false, false> : RowOf<half_byte_row<bf16_to_f8<true>>> {};
template <> struct FastRow<kF16, kE5m2, false, false> : RowOf<half_byte_row<f16_to_e5m2>> {};
template <> struct FastRow<kF32, kE4m3, false, false> : RowOf<to_f8_row<f32_lanes, 4, false>> {};
template <> struct FastRow<kF32, kE5m2, false, false> : RowOf<to_f8_row<f32_lanes, 4, true>> {};
template <> struct FastRow<kF16, kE4m3, false, false> : RowOf<to_f8_row<f16_lanes, 2, false>> {};
template <> struct FastRow<kE4m3, kF32, false, false> : RowOf<f8_f32_row<e4m3_to_f32>> {};
template <> struct FastRow<kE4m3, kBf16, false, false> : RowOf<f8_bf16_row<e4m3_to_f32>> {};
template <> struct FastRow<kE5m2, kF32, false, false> : RowOf<f8_f32_row<e5m2_to_f32>> {};
template <> struct FastRow<kE5m2, kBf16, false, false> : RowOf<f8_bf16_row<e5m2_to_f32>> {};
template <> struct FastRow<kE5m2, kF16, false, false> : RowOf<e5m2_f16_row> {};

// f32 -> f32 scaled (an unscaled one is a byte copy, never typed): axpby's rule.
template <bool kA, bool kB>
struct FastRow<XPOSE_TYPE_F32, XPOSE_TYPE_F32, kA, kB> {
  static constexpr bool kHas = kA || kB;
  static int64_t run(const char* x, char* y, int64_t n, float a, float b) {
    auto* out = reinterpret_cast<float*>(y);
    const auto* in = reinterpret_cast<const float*>(x);
    const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
    const __m256 qnan = _mm256_castsi256_ps(splat(0x7fc00000));
    int64_t e = 0;
    for (; e + 8 <= n; e += 8) {
      __m256 v = _mm256_loadu_ps(in + e);
      if constexpr (kA) v = _mm256_mul_ps(va, v);
      if constexpr (kB) v = _mm256_add_ps(v, _mm256_mul_ps(vb, _mm256_loadu_ps(out + e)));
      _mm256_storeu_ps(out + e, _mm256_blendv_ps(v, qnan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
    }
    return e;
  }
};

}  // namespace
}  // namespace xpose::detail::cpu
