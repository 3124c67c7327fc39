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

template <xpose_type_t In, xpose_type_t Out>
struct TypedOp {
  using in_t = typename StorageOf<In>::type;
  using out_t = typename StorageOf<Out>::type;
  using C = std::conditional_t<cvt::computes_in_f64(In, Out), double, float>;

  // `y`, the output's old value, is read only when op.accumulate.
  __device__ __forceinline__ static out_t apply(const ElemOp& op, in_t x, out_t y) {
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
        r = op.scale ? cvt::axpby<true, true>(a, xc, b, yc) : cvt::axpby<false, true>(a, xc, b, yc);
      } else {
        r = op.scale ? cvt::axpby<true, false>(a, xc, b, xc) : xc;
      }
      out_t o;
      o.x = cvt::store_from<Out, C>(r.re);
      o.y = cvt::store_from<Out, C>(r.im);
      return o;
    } else {
      const C xc = cvt::load_as<In, C>(x);
      const C a = static_cast<C>(op.alpha[0]), b = static_cast<C>(op.beta[0]);
      C r;
      if (op.accumulate) {
        const C yc = cvt::load_as<Out, C>(y);
        r = op.scale ? cvt::axpby<true, true>(a, xc, b, yc) : cvt::axpby<false, true>(a, xc, b, yc);
      } else {
        r = op.scale ? cvt::axpby<true, false>(a, xc, b, xc) : xc;
      }
      return cvt::store_from<Out, C>(r);
    }
  }
};

// table[in][out] = &F<In, Out>::fn for the pairs of has_op (null elsewhere): F is a class
// template with a static member function `fn`, instantiated only for those pairs.
template <template <xpose_type_t, xpose_type_t> class F>
struct OpTable {
  using Fn = decltype(&F<XPOSE_TYPE_F32, XPOSE_TYPE_F32>::fn);
  template <int In, int Out>
  static constexpr Fn entry() {
    if constexpr (has_op(In, Out))
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
