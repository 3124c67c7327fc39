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

// A row of kIn-byte elements through kConvert, one register in and one out: its lanes are the
// input register's width over kIn, its output elements the output register's over the lanes.
template <auto kConvert, int kIn>
inline void convert_row(const char* x, char* y, int64_t n) {
  using In = ArgOf<kConvert>;
  using Out = decltype(kConvert(In{}));
  constexpr int64_t lanes = sizeof(In) / kIn, out = sizeof(Out) / lanes;
  int64_t e = 0;
  for (; e + lanes <= n; e += lanes)
    store_bytes(y + out * e, kConvert(load_bytes<In>(x + kIn * e, sizeof(In))), sizeof(Out));
  if (e < n)
    store_bytes(y + out * e, kConvert(load_bytes<In>(x + kIn * e, (n - e) * kIn)),
                (n - e) * out);
}

constexpr xpose_type_t kF32 = XPOSE_TYPE_F32, kF16 = XPOSE_TYPE_F16, kBf16 = XPOSE_TYPE_BF16,
                       kE4m3 = XPOSE_TYPE_F8_E4M3, kE5m2 = XPOSE_TYPE_F8_E5M2;

template <> struct FastRow<kF16, kF32, false, false> : RowOf<convert_row<f16_to_f32, 2>> {};
template <> struct FastRow<kF32, kF16, false, false> : RowOf<convert_row<f32_to_f16, 4>> {};
template <> struct FastRow<kF32, kBf16, false, false> : RowOf<convert_row<f32_to_bf16, 4>> {};
template <> struct FastRow<kF16, kBf16, false, false> : RowOf<convert_row<f16_to_bf16, 2>> {};
template <> struct FastRow<kBf16, kF16, false, false> : RowOf<convert_row<bf16_to_f16, 2>> {};
template <> struct FastRow<kBf16, kE4m3, false, false> : RowOf<convert_row<bf16_to_e4m3, 2>> {};
template <> struct FastRow<kF16, kE4m3, false, false> : RowOf<convert_row<f16_to_e4m3, 2>> {};
template <> struct FastRow<kBf16, kE5m2, false, false> : RowOf<convert_row<bf16_to_e5m2, 2>> {};
template <> struct FastRow<kF16, kE5m2, false, false> : RowOf<convert_row<f16_to_e5m2, 2>> {};
template <> struct FastRow<kF32, kE4m3, false, false> : RowOf<convert_row<f32_to_e4m3, 4>> {};
template <> struct FastRow<kF32, kE5m2, false, false> : RowOf<convert_row<f32_to_e5m2, 4>> {};
template <> struct FastRow<kE4m3, kF32, false, false> : RowOf<convert_row<e4m3_to_f32, 1>> {};
template <> struct FastRow<kE4m3, kBf16, false, false>
    : RowOf<convert_row<f8_to_bf16<e4m3_to_f32>, 1>> {};
template <> struct FastRow<kE5m2, kF32, false, false> : RowOf<convert_row<e5m2_to_f32, 1>> {};
template <> struct FastRow<kE5m2, kBf16, false, false>
    : RowOf<convert_row<f8_to_bf16<e5m2_to_f32>, 1>> {};
template <> struct FastRow<kE5m2, kF16, false, false> : RowOf<convert_row<e5m2_to_f16, 1>> {};

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
    const auto m = static_cast<__mmask16>((1u << (n - e)) - 1);
    const __m512 w = kB ? _mm512_maskz_loadu_ps(m, out + e) : _mm512_setzero_ps();
    _mm512_mask_storeu_ps(out + e, m, at(_mm512_maskz_loadu_ps(m, in + e), w, a, b));
    return n;
  }
};

}  // namespace
}  // namespace xpose::detail::cpu
