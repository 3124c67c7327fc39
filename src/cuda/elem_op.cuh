// The element operations of typed problems on the device: out = alpha * convert(in) + beta * out,
// computed with core/convert.hpp's definitions (the CPU backend runs the same ones, so the two
// agree bit for bit). One operation per (input type, output type) pair that the API allows;
// kernels are instantiated per operation, and the host picks the instantiation from the plan's
// ElemOp through a table indexed by the two types (dispatch_op below).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/convert.hpp"
#include "core/types.hpp"
#include "cuda/params.hpp"
#include "xpose/xpose.h"

namespace xpose::detail {

// The storage of one element: raw bits of its size (complex: two components).
template <xpose_type_t T>
struct StorageOf {
  using type = typename cvt::FormatOf<T>::type::Bits;
};
template <> struct StorageOf<XPOSE_TYPE_C32> { using type = uint2; };
template <> struct StorageOf<XPOSE_TYPE_C64> { using type = ulonglong2; };
template <> struct StorageOf<XPOSE_TYPE_U8> { using type = uint8_t; };
template <> struct StorageOf<XPOSE_TYPE_U16> { using type = uint16_t; };
template <> struct StorageOf<XPOSE_TYPE_U32> { using type = uint32_t; };
template <> struct StorageOf<XPOSE_TYPE_U64> { using type = uint64_t; };

constexpr bool is_real_type(int t) { return t >= XPOSE_TYPE_F8_E4M3 && t <= XPOSE_TYPE_F64; }
constexpr bool is_complex_type(int t) { return t == XPOSE_TYPE_C32 || t == XPOSE_TYPE_C64; }
// Integer problems reach the backends as their unsigned types (make_problem_ex: wrap-around
// addition is the same bits).
constexpr bool is_unsigned_type(int t) {
  return t == XPOSE_TYPE_U8 || t == XPOSE_TYPE_U16 || t == XPOSE_TYPE_U32 || t == XPOSE_TYPE_U64;
}
// The pairs with an instantiation: real <-> real, complex <-> complex, an unsigned type to
// itself (beta = 1 addition).
constexpr bool has_op(int in, int out) {
  return (is_real_type(in) && is_real_type(out)) ||
         (is_complex_type(in) && is_complex_type(out)) || (is_unsigned_type(in) && in == out);
}

// Kernels whose typed instantiations are many split them over files by input type (compiled in
// parallel): part 0, inputs of 1 and 2 bytes; part 1, the others; -1, all.
constexpr bool in_part(int in, int part) {
  const bool narrow = in == XPOSE_TYPE_F8_E4M3 || in == XPOSE_TYPE_F8_E5M2 ||
                      in == XPOSE_TYPE_F16 || in == XPOSE_TYPE_BF16 || in == XPOSE_TYPE_U8 ||
                      in == XPOSE_TYPE_U16;
  return part < 0 || narrow == (part == 0);
}

// Loads and stores in f32 by the hardware's conversions where they give core/convert.hpp's bits
// (one instruction where the integer emulation took ~25; the typed tiles issued about as many
// instructions as they moved bytes): RNE, IEEE overflow and subnormals as convert.hpp, NaNs
// made its canonical quiet NaN with the sign kept (the hardware's is positive, all ones); fp8
// through the saturating instruction, overflow then made NaN (E4M3: past 464, halfway between
// 448 and the NaN code, ties to 448 as even) or inf (E5M2: from 61440, the tie going to inf).
// Everything else, and f64 compute, is convert.hpp's (tests/gpu/typed_gpu_test.cpp checks
// every 8- and 16-bit input and the f32 rounding boundaries against it). A bf16 NaN loads with
// its payload: every f32 result goes through store_value, which makes NaNs canonical with the
// sign kept (the same bits as making them canonical here), or positive_nan once scaled.
template <xpose_type_t T, class C>
__device__ __forceinline__ C load_value(typename cvt::FormatOf<T>::type::Bits x) {
  if constexpr (std::is_same_v<C, float> && T == XPOSE_TYPE_BF16) {
    return __uint_as_float(static_cast<uint32_t>(x) << 16);
  } else if constexpr (std::is_same_v<C, float> && T == XPOSE_TYPE_F16) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(static_cast<unsigned short>(x)));
    const uint32_t nan = (static_cast<uint32_t>(x & 0x8000u) << 16) | 0x7fc00000u;
    return (x & 0x7fffu) > 0x7c00u ? __uint_as_float(nan) : f;
  } else if constexpr (std::is_same_v<C, float> && T == XPOSE_TYPE_F8_E5M2) {
    // E5M2 is the top byte of an f16 (the same exponent): widened exactly as that f16.
    return load_value<XPOSE_TYPE_F16, C>(static_cast<uint16_t>(x << 8));
  } else if constexpr (std::is_same_v<C, float> && T == XPOSE_TYPE_F8_E4M3) {
    // Exactly to f16 (which holds every E4M3 value), then to f32; S.1111.111 is E4M3's NaN.
    uint32_t h2;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(static_cast<unsigned short>(x)));
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(static_cast<unsigned short>(h2)));
    const uint32_t nan = (static_cast<uint32_t>(x & 0x80u) << 24) | 0x7fc00000u;
    return (x & 0x7fu) == 0x7fu ? __uint_as_float(nan) : f;
  } else {
    return cvt::load_as<T, C>(x);
  }
}

// The types store_value rounds from f32 by the hardware's conversions: each makes a NaN
// canonical (sign kept) from the f32 bits itself.
template <xpose_type_t T, class C>
constexpr bool kHardwareStore =
    std::is_same_v<C, float> && (T == XPOSE_TYPE_BF16 || T == XPOSE_TYPE_F16 ||
                                 T == XPOSE_TYPE_F8_E4M3 || T == XPOSE_TYPE_F8_E5M2);

// store_value's bits of f32 v in T (bf16, f16, e4m3 or e5m2) from `h`, the hardware's rounding of
// v to T: NaNs canonical with the sign kept; fp8 overflow as convert.hpp makes it.
template <xpose_type_t T>
__device__ __forceinline__ uint32_t fix_rounded(float v, uint32_t h) {
  const uint32_t b = __float_as_uint(v);
  const bool nan = (b & 0x7fffffffu) > 0x7f800000u;
  if constexpr (T == XPOSE_TYPE_BF16 || T == XPOSE_TYPE_F16) {
    constexpr uint32_t kNan = T == XPOSE_TYPE_BF16 ? 0x7fc0u : 0x7e00u;
    return nan ? ((b >> 16) & 0x8000u) | kNan : h;
  } else {
    const uint32_t sign = (b >> 24) & 0x80u;
    const float a = fabsf(v);
    // E4M3: NaN, or past 464 (halfway between 448 and the NaN code): !(a <= 464) holds for both.
    if constexpr (T == XPOSE_TYPE_F8_E4M3) return !(a <= 464.0f) ? sign | 0x7fu : h;
    else return nan ? sign | 0x7eu : a >= 61440.0f ? sign | 0x7cu : h;
  }
}

template <xpose_type_t T, class C>
__device__ __forceinline__ typename cvt::FormatOf<T>::type::Bits store_value(C v) {
  if constexpr (kHardwareStore<T, C> && (T == XPOSE_TYPE_BF16 || T == XPOSE_TYPE_F16)) {
    unsigned short h;
    if constexpr (T == XPOSE_TYPE_BF16)
      asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
    else
      asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return static_cast<uint16_t>(fix_rounded<T>(v, h));
  } else if constexpr (kHardwareStore<T, C>) {  // fp8
    unsigned short h;
    if constexpr (T == XPOSE_TYPE_F8_E4M3)
      asm("cvt.rn.satfinite.e4m3x2.f32 %0, %2, %1;" : "=h"(h) : "f"(v), "f"(0.0f));
    else
      asm("cvt.rn.satfinite.e5m2x2.f32 %0, %2, %1;" : "=h"(h) : "f"(v), "f"(0.0f));
    return static_cast<uint8_t>(fix_rounded<T>(v, h & 0xffu));
  } else {
    return cvt::store_from<T, C>(v);
  }
}

// Two elements of T, the first in the low bytes of x, as load_value gives them (a pair of e4m3
// by one two-lane conversion, bf16 by shifts; the others one at a time).
template <xpose_type_t T>
__device__ __forceinline__ float2 load_pair(uint32_t x) {
  using Bits = typename cvt::FormatOf<T>::type::Bits;
  constexpr int kBits = 8 * sizeof(Bits);
  if constexpr (T == XPOSE_TYPE_BF16) {
    return make_float2(__uint_as_float(x << 16), __uint_as_float(x & 0xffff0000u));
  } else if constexpr (T == XPOSE_TYPE_F8_E4M3) {
    uint32_t h2;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(static_cast<unsigned short>(x)));
    float a, b;
    asm("cvt.f32.f16 %0, %1;" : "=f"(a) : "h"(static_cast<unsigned short>(h2)));
    asm("cvt.f32.f16 %0, %1;" : "=f"(b) : "h"(static_cast<unsigned short>(h2 >> 16)));
    const uint32_t nan_a = ((x & 0x80u) << 24) | 0x7fc00000u;
    const uint32_t nan_b = ((x & 0x8000u) << 16) | 0x7fc00000u;
    return make_float2((x & 0x7fu) == 0x7fu ? __uint_as_float(nan_a) : a,
                       (x & 0x7f00u) == 0x7f00u ? __uint_as_float(nan_b) : b);
  } else {
    return make_float2(load_value<T, float>(static_cast<Bits>(x)),
                       load_value<T, float>(static_cast<Bits>(x >> kBits)));
  }
}

// Two floats as elements of T of 1 or 2 bytes, the first in the low bytes, as store_value gives
// them: by one two-lane conversion for bf16, f16, e4m3 and e5m2, each lane then fixed up as
// store_value does (fix_rounded).
template <xpose_type_t T>
__device__ __forceinline__ uint32_t store_pair(float a, float b) {
  using Bits = typename cvt::FormatOf<T>::type::Bits;
  static_assert(sizeof(Bits) <= 2);
  if constexpr (T == XPOSE_TYPE_BF16 || T == XPOSE_TYPE_F16) {
    uint32_t h2;  // the first source to the upper half
    if constexpr (T == XPOSE_TYPE_BF16)
      asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(h2) : "f"(b), "f"(a));
    else
      asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(h2) : "f"(b), "f"(a));
    return fix_rounded<T>(a, h2 & 0xffffu) | (fix_rounded<T>(b, h2 >> 16) << 16);
  } else if constexpr (T == XPOSE_TYPE_F8_E4M3 || T == XPOSE_TYPE_F8_E5M2) {
    unsigned short h;  // the first source to the upper byte
    if constexpr (T == XPOSE_TYPE_F8_E4M3)
      asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(b), "f"(a));
    else
      asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(h) : "f"(b), "f"(a));
    const uint32_t h2 = h;
    return fix_rounded<T>(a, h2 & 0xffu) | (fix_rounded<T>(b, h2 >> 8) << 8);
  } else {
    return static_cast<uint32_t>(store_value<T, float>(a)) |
           (static_cast<uint32_t>(store_value<T, float>(b)) << (8 * sizeof(Bits)));
  }
}

// Whether an ElemOp scales (op.scale), where a caller knows it at compile time.
enum class ScaleIs { Unknown, Off, On };

template <xpose_type_t In, xpose_type_t Out>
struct TypedOp {
  using in_t = typename StorageOf<In>::type;
  using out_t = typename StorageOf<Out>::type;
  using C = std::conditional_t<cvt::computes_in_f64(In, Out), double, float>;

  // Real inputs of up to 4 bytes take the tile kernels' lean write phase (tile_kernel.cuh
  // write_tile): op.scale tested once a tile, two write phases, and a single position's
  // conversion made whether or not it is stored (f32 -> bf16 1.13x, bf16 -> e4m3 1.21x on
  // cutt-random). Complex types keep one write phase (two spilled registers) and convert only
  // what they store (a tile of 62 of 256 positions ran 0.85x converting them all); f64 inputs
  // keep it too (f64 -> f32 ran 0.994x lean).
  static constexpr bool kLeanWrite = is_real_type(In) && In != XPOSE_TYPE_F64;
  // An unscaled f32 input goes to a hardware store (kHardwareStore) without load_as's own
  // canonical NaN: the store gives the same bits (two compares and two logic operations an
  // element fewer).
  static constexpr bool kRawF32 = In == XPOSE_TYPE_F32 && kHardwareStore<Out, C>;

  // `y`, the output's old value, is read only when op.accumulate. S: op.scale as the caller
  // knows it (the tile kernels test it once a tile, not once an element).
  template <ScaleIs S = ScaleIs::Unknown>
  __device__ __forceinline__ static out_t apply(const ElemOp& op, in_t x, out_t y) {
    const bool scale = S == ScaleIs::Unknown ? op.scale != 0 : S == ScaleIs::On;
    if constexpr (is_unsigned_type(In)) {
      return op.accumulate ? cvt::wrap_add(x, y) : x;
    } else if constexpr (is_complex_type(In)) {
      using Z = cvt::Complex<C>;
      const Z xc{cvt::load_as<In, C>(x.x), cvt::load_as<In, C>(x.y)};
      const Z a{static_cast<C>(op.alpha[0]), static_cast<C>(op.alpha[1])};
      const Z b{static_cast<C>(op.beta[0]), static_cast<C>(op.beta[1])};
      Z r;
      if (op.accumulate) {
        const Z yc{cvt::load_as<Out, C>(y.x), cvt::load_as<Out, C>(y.y)};
        r = scale ? cvt::axpby<true, true>(a, xc, b, yc) : cvt::axpby<false, true>(a, xc, b, yc);
      } else {
        r = scale ? cvt::axpby<true, false>(a, xc, b, xc) : xc;
      }
      out_t o;
      o.x = cvt::store_from<Out, C>(r.re);
      o.y = cvt::store_from<Out, C>(r.im);
      return o;
    } else {
      if constexpr (kRawF32 && S == ScaleIs::Off)
        if (!op.accumulate) return store_value<Out, C>(__uint_as_float(x));
      const C xc = load_value<In, C>(x);
      const C a = static_cast<C>(op.alpha[0]), b = static_cast<C>(op.beta[0]);
      C r;
      if (op.accumulate) {
        const C yc = load_value<Out, C>(y);
        r = scale ? cvt::axpby<true, true>(a, xc, b, yc) : cvt::axpby<false, true>(a, xc, b, yc);
      } else {
        r = scale ? cvt::axpby<true, false>(a, xc, b, xc) : xc;
      }
      return store_value<Out, C>(r);
    }
  }

  // apply for a real `In` where op.accumulate is 0 and op.scale is S, both known to the caller
  // (narrow2d.cu: ~37 instructions an element with both tested, f16 -> bf16).
  template <ScaleIs S>
  __device__ __forceinline__ static out_t convert(const ElemOp& op, in_t x) {
    static_assert(is_real_type(In) && S != ScaleIs::Unknown);
    const C xc = load_value<In, C>(x);
    if constexpr (S == ScaleIs::On)
      return store_value<Out, C>(cvt::axpby<true, false>(static_cast<C>(op.alpha[0]), xc, C{}, xc));
    else
      return store_value<Out, C>(xc);
  }

  // convert for two elements at once, the first in the low bytes of x and of the result: the
  // same bits, by load_pair and store_pair (real types of 1 and 2 bytes; narrow_typed.cu).
  template <ScaleIs S>
  __device__ __forceinline__ static uint32_t convert2(const ElemOp& op, uint32_t x) {
    static_assert(sizeof(in_t) <= 2 && sizeof(out_t) <= 2 && std::is_same_v<C, float>);
    float2 v = load_pair<In>(x);
    if constexpr (S == ScaleIs::On) {
      const C a = static_cast<C>(op.alpha[0]);
      v.x = cvt::axpby<true, false>(a, v.x, C{}, v.x);
      v.y = cvt::axpby<true, false>(a, v.y, C{}, v.y);
    }
    return store_pair<Out>(v.x, v.y);
  }
};

// table[in][out] = &F<In, Out>::fn for the pairs of has_op whose input is in part `Part` (null
// elsewhere): F is a class template with a static member function `fn`, instantiated only for
// those pairs.
template <template <xpose_type_t, xpose_type_t> class F, int Part = -1>
struct OpTable {
  using Fn = decltype(&F<XPOSE_TYPE_F32, XPOSE_TYPE_F32>::fn);
  template <int In, int Out>
  static constexpr Fn entry() {
    if constexpr (has_op(In, Out) && in_part(In, Part))
      return &F<static_cast<xpose_type_t>(In), static_cast<xpose_type_t>(Out)>::fn;
    else
      return nullptr;
  }
  template <int In, int... Out>
  static constexpr void row(Fn* r, std::integer_sequence<int, Out...>) {
    ((r[Out] = entry<In, Out>()), ...);
  }
  template <int... In>
  static constexpr auto make(std::integer_sequence<int, In...>) {
    struct Table {
      Fn at[kNumTypes][kNumTypes] = {};
    } t{};
    (row<In>(t.at[In], std::make_integer_sequence<int, kNumTypes>{}), ...);
    return t;
  }
  static constexpr auto table = make(std::make_integer_sequence<int, kNumTypes>{});
  // The instantiation for an ElemOp's types; null if none.
  static Fn find(const ElemOp& op) {
    if (!valid_type(op.in_type) || !valid_type(op.out_type)) return nullptr;
    return table.at[op.in_type][op.out_type];
  }
};

}  // namespace xpose::detail
