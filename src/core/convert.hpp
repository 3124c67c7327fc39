// Element conversion and scaling shared by the CPU and CUDA backends (docs/cpu.md, "Conversion
// and scaling"): F8_E4M3, F8_E5M2, F16, BF16, F32 and F64 as raw bits, rounded to nearest even
// in one step (f64 -> f16 never goes through f32), overflow not saturating (E4M3: NaN, others:
// inf), NaN in -> the target's canonical quiet NaN with the sign kept, denormals kept. Written in
// integer arithmetic without branches so that GCC vectorizes loops over it, and XPOSE_HD so that
// device code runs the same definition bit for bit.
//
// Scaling: r = (alpha * x) + (beta * y) in the compute type (f64 when F64 or C64 is involved,
// else f32), each product and the sum rounded separately: never a fused multiply-add, so the
// device uses __fmul_rn/__fadd_rn and the host must be compiled without FMA contraction (the
// library's baseline x86-64 has no FMA; the CPU typed kernels' AVX-512 file, whose target
// implies FMA, switches contraction off).
#pragma once

#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"
#include "xpose/xpose.h"

// Host code inlines every helper here (a row loop over them vectorizes only when all of them
// are inlined, and GCC's inliner gives up in files that instantiate many conversions).
#if defined(__CUDACC__)
#define XPOSE_CVT XPOSE_HD
#else
#define XPOSE_CVT inline __attribute__((always_inline))
#endif

namespace xpose::detail::cvt {

template <class To, class From>
XPOSE_CVT To bits_as(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  memcpy(&t, &v, sizeof t);
  return t;
}

// A binary floating-point format with E exponent bits and M stored mantissa bits. `fn`: E4M3's
// "finite NaN-only" encoding (no inf; all-ones exponent holds normal numbers, only S.1111.111 is
// NaN). Bits: the unsigned storage of one value.
template <int E, int M, bool fn, class B>
struct Format {
  using Bits = B;
  static constexpr int e = E, m = M, width = 1 + E + M;
  static constexpr int bias = (1 << (E - 1)) - 1;
  static constexpr uint64_t mag_mask = (uint64_t{1} << (E + M)) - 1;
  static constexpr uint64_t inf_bits = ((uint64_t{1} << E) - 1) << M;  // IEEE formats only
  static constexpr uint64_t max_finite = fn ? mag_mask - 1 : inf_bits - 1;
  static constexpr uint64_t nan_bits = fn ? mag_mask : inf_bits | (uint64_t{1} << (M - 1));
  static constexpr uint64_t overflow_bits = fn ? nan_bits : inf_bits;
};
using E4M3 = Format<4, 3, true, uint8_t>;
using E5M2 = Format<5, 2, false, uint8_t>;
using F16 = Format<5, 10, false, uint16_t>;
using BF16 = Format<8, 7, false, uint16_t>;
using F32 = Format<8, 23, false, uint32_t>;
using F64 = Format<11, 52, false, uint64_t>;

// 2^n, exactly, at compile time.
constexpr double pow2(int n) {
  double v = 1;
  for (; n > 0; --n) v *= 2;
  for (; n < 0; ++n) v /= 2;
  return v;
}

template <class T>
XPOSE_CVT T min_of(T a, T b) { return a < b ? a : b; }
template <class T>
XPOSE_CVT T max_of(T a, T b) { return a < b ? b : a; }

// Rounds `x` (bits of format From) to format To (fewer mantissa bits), to nearest even.
template <class To, class From>
XPOSE_CVT typename To::Bits round_bits(typename From::Bits x) {
  using U = typename From::Bits;
  static_assert(From::m > To::m, "rounding narrows the mantissa");
  constexpr int shift = From::m - To::m;
  const U a = x & static_cast<U>(From::mag_mask);
  const U sign = (x >> (From::width - 1)) << (To::width - 1);
  // Normal results: round the magnitude at `shift` (ties to even: add half - 1 plus the kept
  // lsb), then rebias; a carry out of the mantissa correctly bumps the exponent.
  const U rounded = (a + ((U{1} << (shift - 1)) - 1) + ((a >> shift) & 1)) >> shift;
  constexpr U rebias = static_cast<U>(From::bias - To::bias) << To::m;
  U mag = rounded - rebias;
  if constexpr (To::bias != From::bias) {
    // Subnormal results (the same rounding in the source's own subnormals when the exponent
    // ranges match, as f32 -> bf16). f32: adding 2^k whose ulp is the target's smallest
    // subnormal rounds |x| to a multiple of it (nearest even, the default rounding mode), and the sum's low
    // bits count those multiples; a DAZ/FTZ mode cannot change this (f32 subnormals round to
    // 0 in every narrower format, and the sum is normal). f64: the significand rounded at the
    // shift r = r0 - max(ex, 1), clamped to [1, m + 2] (beyond it the value is under half the
    // smallest subnormal: 0). The selects are mask arithmetic: GCC vectorizes these.
    U sub;
    if constexpr (From::width == 32) {
      constexpr float big = static_cast<float>(pow2(From::m + 1 - To::bias - To::m));
      sub = bits_as<U>(bits_as<float>(a) + big) - bits_as<U>(big);
    } else {
      const U ex = a >> From::m;
      const U sig = (a & ((U{1} << From::m) - 1)) | (ex != 0 ? U{1} << From::m : U{0});
      constexpr U r0 = static_cast<U>(shift + 1 - To::bias + From::bias);
      const U r = min_of(max_of(r0 - max_of(ex, U{1}), U{1}), static_cast<U>(From::m + 2));
      sub = (sig + ((U{1} << (r - 1)) - 1) + ((sig >> r) & 1)) >> r;
    }
    constexpr U min_normal = static_cast<U>(From::bias - To::bias + 1) << From::m;
    const U is_sub = U{0} - static_cast<U>(a < min_normal);
    mag = (sub & is_sub) | (mag & ~is_sub);
  }
  mag = mag > To::max_finite ? static_cast<U>(To::overflow_bits) : mag;
  mag = a > From::inf_bits ? static_cast<U>(To::nan_bits) : mag;
  return static_cast<typename To::Bits>(sign | mag);
}

// Widens `h` (a format of at most 16 bits) to f32 bits, exactly.
template <class From>
XPOSE_CVT uint32_t widen_to_f32(uint32_t h) {
  static_assert(From::width <= 16);
  const uint32_t sign = (h >> (From::width - 1)) << 31;
  const uint32_t a = h & static_cast<uint32_t>(From::mag_mask);
  const uint32_t ex = a >> From::m;
  const uint32_t normal = (a << (23 - From::m)) + (uint32_t{127 - From::bias} << 23);
  // Mask arithmetic rather than selects where GCC would thread a chain of selects into
  // branches: every step below vectorizes.
  uint32_t mag = normal;  // with f32's exponent width (bf16), subnormals widen the same way
  if constexpr (From::bias != 127) {
    // Subnormal a * 2^(1 - bias - m): normalized by k = floor(log2(a)), found by halving steps.
    uint32_t k = 0, t = a;
    const auto halve = [&](uint32_t bits) {
      const uint32_t step = bits * static_cast<uint32_t>(t >= (1u << bits));
      k += step;
      t >>= step;
    };
    if constexpr (From::m > 8) halve(8);
    if constexpr (From::m > 4) halve(4);
    halve(2);
    halve(1);
    const uint32_t sub = (((k + (128 - From::bias - From::m)) << 23) |
                          ((a << (23 - k)) & 0x7fffffu)) & (0u - static_cast<uint32_t>(a != 0));
    const uint32_t is_sub = 0u - static_cast<uint32_t>(ex == 0);
    mag = (sub & is_sub) | (normal & ~is_sub);
  }
  // Inf and NaN (E4M3: NaN only): the top exponent moved to f32's, NaN made canonical.
  if constexpr (From::max_finite == From::inf_bits - 1) {
    constexpr uint32_t top = static_cast<uint32_t>(From::inf_bits >> From::m);
    mag += static_cast<uint32_t>(ex == top) * ((255u - top - 127u + From::bias) << 23);
    mag = mag > 0x7f800000u ? 0x7fc00000u : mag;
  } else {
    mag = a == From::nan_bits ? 0x7fc00000u : mag;
  }
  return sign | mag;
}

// f32 -> f64 exactly, NaN canonical (sign kept).
XPOSE_CVT uint64_t widen_f32_to_f64(uint32_t x) {
  const bool nan = (x & 0x7fffffffu) > 0x7f800000u;
  const uint64_t sign = uint64_t{x >> 31} << 63;
  const uint64_t d = bits_as<uint64_t>(static_cast<double>(bits_as<float>(x)));
  return nan ? sign | 0x7ff8000000000000ull : d;
}

// A format's own canonical NaN for NaN inputs, the value otherwise (f32 / f64 results).
XPOSE_CVT uint32_t canonical_f32(uint32_t x) {
  return (x & 0x7fffffffu) > 0x7f800000u ? (x & 0x80000000u) | 0x7fc00000u : x;
}
XPOSE_CVT uint64_t canonical_f64(uint64_t x) {
  constexpr uint64_t inf = 0x7ff0000000000000ull, top = 0x8000000000000000ull;
  return (x & ~top) > inf ? (x & top) | 0x7ff8000000000000ull : x;
}

// The floating formats of xpose_type_t.
template <xpose_type_t T> struct FormatOf;
template <> struct FormatOf<XPOSE_TYPE_F8_E4M3> { using type = E4M3; };
template <> struct FormatOf<XPOSE_TYPE_F8_E5M2> { using type = E5M2; };
template <> struct FormatOf<XPOSE_TYPE_F16> { using type = F16; };
template <> struct FormatOf<XPOSE_TYPE_BF16> { using type = BF16; };
template <> struct FormatOf<XPOSE_TYPE_F32> { using type = F32; };
template <> struct FormatOf<XPOSE_TYPE_F64> { using type = F64; };
template <> struct FormatOf<XPOSE_TYPE_C32> { using type = F32; };  // per component
template <> struct FormatOf<XPOSE_TYPE_C64> { using type = F64; };

// Loads a value (or a complex component) of type T as the compute type C (float or double),
// exactly; NaN becomes C's canonical quiet NaN with its sign.
template <xpose_type_t T, class C>
XPOSE_CVT C load_as(typename FormatOf<T>::type::Bits x) {
  using Fm = typename FormatOf<T>::type;
  if constexpr (Fm::width == 64) {
    static_assert(sizeof(C) == 8, "f64 computes in f64");
    return bits_as<double>(canonical_f64(x));
  } else {
    uint32_t f;
    if constexpr (Fm::width == 32) f = canonical_f32(x);
    else f = widen_to_f32<Fm>(x);
    if constexpr (sizeof(C) == 4) return bits_as<float>(f);
    else return bits_as<double>(widen_f32_to_f64(f));
  }
}

// Rounds a compute-type value to type T once (to nearest even), NaN canonical.
template <xpose_type_t T, class C>
XPOSE_CVT typename FormatOf<T>::type::Bits store_from(C v) {
  using Fm = typename FormatOf<T>::type;
  if constexpr (sizeof(C) == 8) {
    if constexpr (Fm::width == 64) return canonical_f64(bits_as<uint64_t>(v));
    else return round_bits<Fm, F64>(bits_as<uint64_t>(v));
  } else {
    static_assert(Fm::width < 64, "f64 output computes in f64");
    if constexpr (Fm::width == 32) return canonical_f32(bits_as<uint32_t>(v));
    else return round_bits<Fm, F32>(bits_as<uint32_t>(v));
  }
}

// Arithmetic rounded per operation (no contraction into FMA on the device).
XPOSE_CVT float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
XPOSE_CVT double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
XPOSE_CVT float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
XPOSE_CVT double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
XPOSE_CVT float sub_rn(float a, float b) { return add_rn(a, -b); }
XPOSE_CVT double sub_rn(double a, double b) { return add_rn(a, -b); }

// Whether a problem's scalars are used: alpha != {1, 0} multiplies, beta != {0, 0} reads out.
XPOSE_CVT bool uses_alpha(const double* alpha) { return alpha[0] != 1 || alpha[1] != 0; }
XPOSE_CVT bool uses_beta(const double* beta) { return beta[0] != 0 || beta[1] != 0; }

// The compute type of a conversion: double when either side is F64 or C64.
constexpr bool computes_in_f64(xpose_type_t in, xpose_type_t out) {
  return in == XPOSE_TYPE_F64 || in == XPOSE_TYPE_C64 || out == XPOSE_TYPE_F64 ||
         out == XPOSE_TYPE_C64;
}

// A NaN made by arithmetic is the positive quiet NaN: which operand's NaN (and sign) hardware
// propagates differs between CPUs, GPUs and operand orders, so scaled results drop it.
XPOSE_CVT float positive_nan(float v) {
  const uint32_t b = bits_as<uint32_t>(v);
  return (b & 0x7fffffffu) > 0x7f800000u ? bits_as<float>(0x7fc00000u) : v;
}
XPOSE_CVT double positive_nan(double v) {
  const uint64_t b = bits_as<uint64_t>(v);
  return (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull
             ? bits_as<double>(0x7ff8000000000000ull)
             : v;
}

// r = (alpha * x) + (beta * y), real; kAlpha / kBeta: whether each term is computed (a skipped
// alpha means x alone, a skipped beta term means y is not read). NaN results: positive_nan.
template <bool kAlpha, bool kBeta, class C>
XPOSE_CVT C axpby(C alpha, C x, C beta, C y) {
  const C ax = kAlpha ? mul_rn(alpha, x) : x;
  if constexpr (kBeta) return positive_nan(add_rn(ax, mul_rn(beta, y)));
  else if constexpr (kAlpha) return positive_nan(ax);
  else return ax;
}

template <class C>
struct Complex {
  C re, im;
};

// a * x with each product rounded, then their difference / sum.
template <class C>
XPOSE_CVT Complex<C> cmul(Complex<C> a, Complex<C> x) {
  return {sub_rn(mul_rn(a.re, x.re), mul_rn(a.im, x.im)),
          add_rn(mul_rn(a.re, x.im), mul_rn(a.im, x.re))};
}

// r = (alpha * x) + (beta * y), complex, componentwise sums of the rounded products; NaN
// components of a computed result: positive_nan.
template <bool kAlpha, bool kBeta, class C>
XPOSE_CVT Complex<C> axpby(Complex<C> alpha, Complex<C> x, Complex<C> beta, Complex<C> y) {
  Complex<C> r = kAlpha ? cmul(alpha, x) : x;
  if constexpr (kBeta) {
    const Complex<C> by = cmul(beta, y);
    r = {add_rn(r.re, by.re), add_rn(r.im, by.im)};
  }
  if constexpr (kAlpha || kBeta) r = {positive_nan(r.re), positive_nan(r.im)};
  return r;
}

// Integers and opaque elements (beta = 1 only): wrap-around addition, in unsigned arithmetic
// (bitwise the same for signed types).
template <class U>
XPOSE_CVT U wrap_add(U x, U y) {
  return static_cast<U>(x + y);
}

}  // namespace xpose::detail::cvt
