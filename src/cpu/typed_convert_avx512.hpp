// Per-register conversions of AVX-512 (F, BW, VL, DQ) between the floating formats, each
// giving convert.hpp's result bit for bit (the rules: typed_fast_avx512.hpp's top comment).
// Shared by the contiguous rows of the element operations (typed_fast_avx512.hpp) and the
// fused tile kernels (fused_tiles_avx512.cpp); included by each AFTER its target pragma, so
// compiled for that ISA; internal linkage.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace xpose::detail::cpu {
namespace {

// Register moves of the first n bytes (the whole register when n reaches its width; else the
// rest masked: neither read nor written, loaded as zeros), for each width; and a conversion's
// argument type (ArgOf<f>).
template <class V>
V load_bytes(const char* p, int64_t n);
template <>
inline __m128i load_bytes<__m128i>(const char* p, int64_t n) {
  return n >= 16 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(p))
                 : _mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << n) - 1), p);
}
template <>
inline __m256i load_bytes<__m256i>(const char* p, int64_t n) {
  return n >= 32 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
                 : _mm256_maskz_loadu_epi8(static_cast<__mmask32>((uint64_t{1} << n) - 1), p);
}
template <>
inline __m512i load_bytes<__m512i>(const char* p, int64_t n) {
  return n >= 64 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi8((uint64_t{1} << n) - 1, p);
}
inline void store_bytes(char* p, __m128i v, int64_t n) {
  if (n >= 16) _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
  else _mm_mask_storeu_epi8(p, static_cast<__mmask16>((1u << n) - 1), v);
}
inline void store_bytes(char* p, __m256i v, int64_t n) {
  if (n >= 32) _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  else _mm256_mask_storeu_epi8(p, static_cast<__mmask32>((uint64_t{1} << n) - 1), v);
}
inline void store_bytes(char* p, __m512i v, int64_t n) {
  if (n >= 64) _mm512_storeu_si512(p, v);
  else _mm512_mask_storeu_epi8(p, (uint64_t{1} << n) - 1, v);
}
template <class R, class A>
A arg_type(R (*)(A));
template <auto kConvert>
using ArgOf = decltype(arg_type(kConvert));

inline __m512i f16_to_f32(__m256i h) {
  const __m512i f = _mm512_castps_si512(_mm512_cvtph_ps(h));
  const __m512i w = _mm512_cvtepu16_epi32(h);
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(w, _mm512_set1_epi32(0x7fff)),
                                                _mm512_set1_epi32(0x7c00));
  const __m512i canon = _mm512_or_si512(_mm512_and_si512(_mm512_slli_epi32(w, 16),
                                                         _mm512_set1_epi32(INT32_MIN)),
                                        _mm512_set1_epi32(0x7fc00000));
  return _mm512_mask_mov_epi32(f, nan, canon);
}

inline __m256i f32_to_f16(__m512i x) {
  const __m256i h = _mm512_cvtps_ph(_mm512_castsi512_ps(x), _MM_FROUND_TO_NEAREST_INT |
                                                             _MM_FROUND_NO_EXC);
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(
      _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  const __m512i canon = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(x, 16),
                                                         _mm512_set1_epi32(0x8000)),
                                        _mm512_set1_epi32(0x7e00));
  return _mm256_mask_mov_epi16(h, nan, _mm512_cvtepi32_epi16(canon));
}

// round_bits<BF16, F32>: the same exponent range, so subnormals round like normals and an
// overflowing magnitude carries into the inf pattern by itself.
inline __m256i f32_to_bf16(__m512i x) {
  const __m512i a = _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff));
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(a, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(
      _mm512_add_epi32(_mm512_add_epi32(a, _mm512_set1_epi32(0x7fff)), odd), 16);
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7f800000));
  r = _mm512_mask_mov_epi32(r, nan, _mm512_set1_epi32(0x7fc0));
  r = _mm512_or_si512(r, _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x8000)));
  return _mm512_cvtepi32_epi16(r);
}

// round_bits<F8, BF16> in 16-bit lanes, 32 per register, F8 = E4M3 (kE5 false) or E5M2.
// Normal results: the magnitude rounded at bit 7 - m and rebiased by (127 - bias) << m.
// Subnormal ones (under the format's smallest normal): as convert.hpp's f32 source does, |x| as
// f32 (the bf16 bits in the upper half of a 32-bit lane) plus 2^k, whose ulp is the format's
// smallest subnormal (2^14 for E4M3's 2^-9, 2^7 for E5M2's 2^-16), rounds to nearest even in
// the addition, and the sum's low bits count those subnormals (DAZ/FTZ cannot change it: bf16
// subnormals round to 0, the sum is normal); 1.8x the rate of the same rounding by variable
// shifts (E4M3). Overflow: E4M3's NaN 0x7f (so inf/NaN in too), E5M2's inf 0x7c (NaN in:
// 0x7e); the sign kept. The result in 16-bit lanes.
template <bool kE5>
inline __m512i bf16_to_f8_words(__m512i x) {
  constexpr int shift = kE5 ? 5 : 4, rebias = kE5 ? 112 << 2 : 120 << 3;
  constexpr int min_normal = kE5 ? 113 << 7 : 121 << 7;
  const __m512i a = _mm512_and_si512(x, _mm512_set1_epi16(0x7fff));
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi16(a, shift), _mm512_set1_epi16(1));
  const __m512i normal = _mm512_sub_epi16(
      _mm512_srli_epi16(
          _mm512_add_epi16(_mm512_add_epi16(a, _mm512_set1_epi16((1 << (shift - 1)) - 1)), odd),
          shift),
      _mm512_set1_epi16(rebias));
  const __m512 big = _mm512_set1_ps(kE5 ? 128.0f : 16384.0f);
  const __m512i zero = _mm512_setzero_si512(), big_bits = _mm512_castps_si512(big);
  const auto sub32 = [&](__m512i f) {
    return _mm512_sub_epi32(_mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(f), big)),
                            big_bits);
  };
  const __m512i sub = _mm512_packus_epi32(sub32(_mm512_unpacklo_epi16(zero, a)),
                                          sub32(_mm512_unpackhi_epi16(zero, a)));
  const __mmask32 is_sub = _mm512_cmplt_epu16_mask(a, _mm512_set1_epi16(min_normal));
  __m512i mag = _mm512_min_epu16(_mm512_mask_mov_epi16(normal, is_sub, sub),
                                 _mm512_set1_epi16(kE5 ? 0x7c : 0x7f));
  if constexpr (kE5)
    mag = _mm512_mask_mov_epi16(mag, _mm512_cmpgt_epu16_mask(a, _mm512_set1_epi16(0x7f80)),
                                _mm512_set1_epi16(0x7e));
  return _mm512_or_si512(mag, _mm512_and_si512(_mm512_srli_epi16(x, 8), _mm512_set1_epi16(0x80)));
}

inline __m256i bf16_to_e4m3(__m512i x) { return _mm512_cvtepi16_epi8(bf16_to_f8_words<false>(x)); }
inline __m256i bf16_to_e5m2(__m512i x) { return _mm512_cvtepi16_epi8(bf16_to_f8_words<true>(x)); }

// f16 -> bf16 in 16-bit lanes, 32 a register: each half widened to f32 exactly, then rounded
// once by f32_to_bf16 (NaN: the canonical bf16 one with its sign).
inline __m512i f16_to_bf16(__m512i h) {
  const __m256i lo = f32_to_bf16(f16_to_f32(_mm512_castsi512_si256(h)));
  const __m256i hi = f32_to_bf16(f16_to_f32(_mm512_extracti64x4_epi64(h, 1)));
  return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

// bf16 -> f16 in 16-bit lanes: each bf16 is the upper half of an f32 (exact), rounded once by
// f32_to_f16 (inf on overflow, f16 subnormals, NaN canonical with its sign).
inline __m512i bf16_to_f16(__m512i b) {
  const __m512i lo = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(b)), 16);
  const __m512i hi = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(b, 1)), 16);
  return _mm512_inserti64x4(_mm512_castsi256_si512(f32_to_f16(lo)), f32_to_f16(hi), 1);
}

// round_bits<F8, F32> in 32-bit lanes: bf16_to_f8_words's rounding with f32's mantissa (normal
// results rounded at bit 23 - m; subnormal ones by the same f32 addition, of |x| itself).
template <bool kE5>
inline __m128i f32_to_f8(__m512i x) {
  constexpr int shift = kE5 ? 21 : 20, rebias = kE5 ? 112 << 2 : 120 << 3;
  constexpr int min_normal = kE5 ? 113 << 23 : 121 << 23;
  const __m512i a = _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff));
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(a, shift), _mm512_set1_epi32(1));
  const __m512i normal = _mm512_sub_epi32(
      _mm512_srli_epi32(
          _mm512_add_epi32(_mm512_add_epi32(a, _mm512_set1_epi32((1 << (shift - 1)) - 1)), odd),
          shift),
      _mm512_set1_epi32(rebias));
  const __m512 big = _mm512_set1_ps(kE5 ? 128.0f : 16384.0f);
  const __m512i sub = _mm512_sub_epi32(
      _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), big)), _mm512_castps_si512(big));
  const __mmask16 is_sub = _mm512_cmplt_epu32_mask(a, _mm512_set1_epi32(min_normal));
  __m512i mag = _mm512_min_epu32(_mm512_mask_mov_epi32(normal, is_sub, sub),
                                 _mm512_set1_epi32(kE5 ? 0x7c : 0x7f));
  if constexpr (kE5)
    mag = _mm512_mask_mov_epi32(mag, _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7f800000)),
                                _mm512_set1_epi32(0x7e));
  return _mm512_cvtepi32_epi8(
      _mm512_or_si512(mag, _mm512_and_si512(_mm512_srli_epi32(x, 24), _mm512_set1_epi32(0x80))));
}

inline __m128i f32_to_e4m3(__m512i x) { return f32_to_f8<false>(x); }
inline __m128i f32_to_e5m2(__m512i x) { return f32_to_f8<true>(x); }

// widen_to_f32<E4M3> for 16 bytes: normal magnitudes moved to f32's exponent (rebias
// (127 - 7) << 23), subnormal ones m * 2^-9 exactly (m as f32, its exponent lowered by 9),
// S.1111.111 the canonical NaN with its sign.
inline __m512i e4m3_to_f32(__m128i b8) {
  const __m512i b = _mm512_cvtepu8_epi32(b8);
  const __m512i mag = _mm512_and_si512(b, _mm512_set1_epi32(0x7f));
  const __m512i normal = _mm512_add_epi32(_mm512_slli_epi32(mag, 20), _mm512_set1_epi32(120 << 23));
  const __m512i sub = _mm512_maskz_sub_epi32(
      _mm512_test_epi32_mask(mag, mag), _mm512_castps_si512(_mm512_cvtepi32_ps(mag)),
      _mm512_set1_epi32(9 << 23));
  __m512i f = _mm512_mask_mov_epi32(normal, _mm512_cmplt_epu32_mask(mag, _mm512_set1_epi32(8)),
                                    sub);
  f = _mm512_mask_mov_epi32(f, _mm512_cmpeq_epi32_mask(mag, _mm512_set1_epi32(0x7f)),
                            _mm512_set1_epi32(0x7fc00000));
  return _mm512_or_si512(f, _mm512_slli_epi32(_mm512_and_si512(b, _mm512_set1_epi32(0x80)), 24));
}

// round_bits<E4M3, F16> in 16-bit lanes, 32 a register: normal results (|x| >= 2^-6) the
// magnitude rounded at bit 7 and rebiased by (15 - 7) << 3; subnormal ones by the f32 addition
// of 2^14 (bf16_to_f8_words's), |x| widened exactly by vcvtph2ps (never an f32 subnormal, and
// the instruction ignores DAZ), the two halves' counts packed back in order; over 0x7e and
// inf/NaN in: 0x7f; the sign kept.
inline __m256i f16_to_e4m3(__m512i x) {
  const __m512i a = _mm512_and_si512(x, _mm512_set1_epi16(0x7fff));
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi16(a, 7), _mm512_set1_epi16(1));
  const __m512i normal = _mm512_sub_epi16(
      _mm512_srli_epi16(_mm512_add_epi16(_mm512_add_epi16(a, _mm512_set1_epi16(0x3f)), odd), 7),
      _mm512_set1_epi16(8 << 3));
  const __m512 big = _mm512_set1_ps(16384.0f);
  const auto sub32 = [&](__m256i h) {
    return _mm512_sub_epi32(
        _mm512_castps_si512(_mm512_add_ps(_mm512_cvtph_ps(h), big)), _mm512_castps_si512(big));
  };
  const __m512i packed = _mm512_packus_epi32(sub32(_mm512_castsi512_si256(a)),
                                             sub32(_mm512_extracti64x4_epi64(a, 1)));
  const __m512i sub =
      _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), packed);
  const __mmask32 is_sub = _mm512_cmplt_epu16_mask(a, _mm512_set1_epi16(9 << 10));
  const __m512i mag = _mm512_min_epu16(_mm512_mask_mov_epi16(normal, is_sub, sub),
                                       _mm512_set1_epi16(0x7f));
  return _mm512_cvtepi16_epi8(
      _mm512_or_si512(mag, _mm512_and_si512(_mm512_srli_epi16(x, 8), _mm512_set1_epi16(0x80))));
}

// round_bits<E5M2, F16> in 16-bit lanes: the same exponent, so subnormals round like normals
// and a magnitude that overflows carries into inf (0x7c) by itself; NaN in: 0x7e; the sign
// kept.
inline __m256i f16_to_e5m2(__m512i x) {
  const __m512i a = _mm512_and_si512(x, _mm512_set1_epi16(0x7fff));
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi16(a, 8), _mm512_set1_epi16(1));
  __m512i mag = _mm512_min_epu16(
      _mm512_srli_epi16(_mm512_add_epi16(_mm512_add_epi16(a, _mm512_set1_epi16(0x7f)), odd), 8),
      _mm512_set1_epi16(0x7c));
  mag = _mm512_mask_mov_epi16(mag, _mm512_cmpgt_epu16_mask(a, _mm512_set1_epi16(0x7c00)),
                              _mm512_set1_epi16(0x7e));
  return _mm512_cvtepi16_epi8(
      _mm512_or_si512(mag, _mm512_and_si512(_mm512_srli_epi16(x, 8), _mm512_set1_epi16(0x80))));
}

// e5m2 -> f16 for 32 bytes: the upper byte of an f16, exact; NaN: f16's canonical one with its
// sign.
inline __m512i e5m2_to_f16(__m256i b) {
  const __m512i h = _mm512_slli_epi16(_mm512_cvtepu8_epi16(b), 8);
  const __m512i canon = _mm512_or_si512(_mm512_and_si512(h, _mm512_set1_epi16(INT16_MIN)),
                                        _mm512_set1_epi16(0x7e00));
  const __mmask32 nan = _mm512_cmpgt_epu16_mask(_mm512_and_si512(h, _mm512_set1_epi16(0x7fff)),
                                                _mm512_set1_epi16(0x7c00));
  return _mm512_mask_mov_epi16(h, nan, canon);
}

// e5m2 -> f32 for 16 bytes: as an f16, widened (f16_to_f32 makes NaN canonical).
inline __m512i e5m2_to_f32(__m128i b) {
  return f16_to_f32(_mm256_slli_epi16(_mm256_cvtepu8_epi16(b), 8));
}

// e4m3 or e5m2 (kToF32: 16 bytes as f32) -> bf16: f32's upper halves (every value of either
// is a bf16 one).
template <__m512i (*kToF32)(__m128i)>
inline __m256i f8_to_bf16(__m128i b) {
  return _mm512_cvtepi32_epi16(_mm512_srli_epi32(kToF32(b), 16));
}

}  // namespace
}  // namespace xpose::detail::cpu
