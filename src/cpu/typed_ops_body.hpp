// The element operations of typed_ops.hpp, instantiated once per instruction set: a file defines
// XPOSE_TYPED_OPS_NAME (the entry point it defines) and includes this under its target pragma.
// No include guard: every inclusion is a separate instantiation.
#include "cpu/typed_ops.hpp"

#ifndef XPOSE_TYPED_OPS_NAME
#error "define XPOSE_TYPED_OPS_NAME before including typed_ops_body.hpp"
#endif
namespace xpose::detail::cpu {
namespace {

// Hand-written contiguous rows of an operation: run(x, y, n, alpha, beta) does the first
// elements of a row of n and returns how many (row() does the rest element by element), where
// the including file provides them (XPOSE_TYPED_FAST, a header of specializations with kHas).
template <xpose_type_t IT, xpose_type_t OT, bool kA, bool kB>
struct FastRow {
  static constexpr bool kHas = false;
  static int64_t run(const char*, char*, int64_t, float, float) { return 0; }
};

}  // namespace
}  // namespace xpose::detail::cpu

#ifdef XPOSE_TYPED_FAST
#include XPOSE_TYPED_FAST
#endif

namespace xpose::detail::cpu {
namespace {

// Unaligned, aliasing views of element storage (user buffers have any alignment).
template <size_t N> struct Raw;
template <> struct Raw<1> { typedef uint8_t type __attribute__((aligned(1), may_alias)); };
template <> struct Raw<2> { typedef uint16_t type __attribute__((aligned(1), may_alias)); };
template <> struct Raw<4> { typedef uint32_t type __attribute__((aligned(1), may_alias)); };
template <> struct Raw<8> { typedef uint64_t type __attribute__((aligned(1), may_alias)); };
template <> struct Raw<16> {
  typedef unsigned __int128 type __attribute__((aligned(1), may_alias));
};

template <xpose_type_t T> using BitsOf = typename cvt::FormatOf<T>::type::Bits;

// Real floating types: one value per element.
template <xpose_type_t IT, xpose_type_t OT, bool kA, bool kB>
struct FloatOp {
  using C = std::conditional_t<cvt::computes_in_f64(IT, OT), double, float>;
  using In = BitsOf<IT>;
  using Out = BitsOf<OT>;
  using Fast = FastRow<IT, OT, kA, kB>;
  static constexpr int kParts = 1;
  XPOSE_CVT static void at(const typename Raw<sizeof(In)>::type* x,
                           typename Raw<sizeof(Out)>::type* y, C ar, C, C br, C) {
    const C v = cvt::load_as<IT, C>(*x);
    const C w = kB ? cvt::load_as<OT, C>(*y) : C{0};
    *y = cvt::store_from<OT, C>(cvt::axpby<kA, kB>(ar, v, br, w));
  }
};

// Complex types: two components per element.
template <xpose_type_t IT, xpose_type_t OT, bool kA, bool kB>
struct ComplexOp {
  using C = std::conditional_t<cvt::computes_in_f64(IT, OT), double, float>;
  using In = BitsOf<IT>;
  using Out = BitsOf<OT>;
  using Fast = FastRow<XPOSE_TYPE_BYTES, XPOSE_TYPE_BYTES, false, false>;  // none
  static constexpr int kParts = 2;
  XPOSE_CVT static void at(const typename Raw<sizeof(In)>::type* x,
                           typename Raw<sizeof(Out)>::type* y, C ar, C ai, C br, C bi) {
    const cvt::Complex<C> v{cvt::load_as<IT, C>(x[0]), cvt::load_as<IT, C>(x[1])};
    cvt::Complex<C> w{0, 0};
    if constexpr (kB) w = {cvt::load_as<OT, C>(y[0]), cvt::load_as<OT, C>(y[1])};
    const cvt::Complex<C> r = cvt::axpby<kA, kB>(cvt::Complex<C>{ar, ai}, v,
                                                 cvt::Complex<C>{br, bi}, w);
    y[0] = cvt::store_from<OT, C>(r.re);
    y[1] = cvt::store_from<OT, C>(r.im);
  }
};

// Integers and opaque elements: y = x (+ y when beta = 1), wrap-around.
template <size_t N, bool kB>
struct IntOp {
  using C = float;  // unused
  using In = typename Raw<N>::type;
  using Out = In;
  using Fast = FastRow<XPOSE_TYPE_BYTES, XPOSE_TYPE_BYTES, false, false>;  // none
  static constexpr int kParts = 1;
  XPOSE_CVT static void at(const In* x, Out* y, C, C, C, C) {
    *y = kB ? cvt::wrap_add(*x, *y) : *x;
  }
};

template <class Op>
void row(const char* src, int64_t ss, int64_t sr, char* dst, int64_t ds, int64_t dr, int64_t n,
         int64_t rows, const Scalars& s) {
  using C = typename Op::C;
  using In = typename Raw<sizeof(typename Op::In)>::type;
  using Out = typename Raw<sizeof(typename Op::Out)>::type;
  constexpr int P = Op::kParts;
  const bool d = sizeof(C) == 8;
  const C ar = d ? C(s.ad[0]) : C(s.af[0]), ai = d ? C(s.ad[1]) : C(s.af[1]);
  const C br = d ? C(s.bd[0]) : C(s.bf[0]), bi = d ? C(s.bd[1]) : C(s.bf[1]);
  if (ss == int64_t{P * sizeof(In)} && ds == int64_t{P * sizeof(Out)}) {
    for (int64_t r = 0; r < rows; ++r) {
      int64_t e = 0;
      if constexpr (Op::Fast::kHas) e = Op::Fast::run(src + r * sr, dst + r * dr, n, ar, br);
      const In* __restrict x = reinterpret_cast<const In*>(src + r * sr);
      Out* __restrict y = reinterpret_cast<Out*>(dst + r * dr);
      for (; e < n; ++e) Op::at(x + P * e, y + P * e, ar, ai, br, bi);
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t e = 0; e < n; ++e)
      Op::at(reinterpret_cast<const In*>(src + r * sr + e * ss),
             reinterpret_cast<Out*>(dst + r * dr + e * ds), ar, ai, br, bi);
}

template <template <xpose_type_t, xpose_type_t, bool, bool> class Op, xpose_type_t IT,
          xpose_type_t OT>
RowOp pick_scaling(bool a, bool b) {
  if (a) return b ? &row<Op<IT, OT, true, true>> : &row<Op<IT, OT, true, false>>;
  return b ? &row<Op<IT, OT, false, true>> : &row<Op<IT, OT, false, false>>;
}

template <xpose_type_t IT>
RowOp pick_float_out(const OpKey& k) {
  switch (k.out) {
    case XPOSE_TYPE_F8_E4M3: return pick_scaling<FloatOp, IT, XPOSE_TYPE_F8_E4M3>(k.alpha, k.beta);
    case XPOSE_TYPE_F8_E5M2: return pick_scaling<FloatOp, IT, XPOSE_TYPE_F8_E5M2>(k.alpha, k.beta);
    case XPOSE_TYPE_F16: return pick_scaling<FloatOp, IT, XPOSE_TYPE_F16>(k.alpha, k.beta);
    case XPOSE_TYPE_BF16: return pick_scaling<FloatOp, IT, XPOSE_TYPE_BF16>(k.alpha, k.beta);
    case XPOSE_TYPE_F32: return pick_scaling<FloatOp, IT, XPOSE_TYPE_F32>(k.alpha, k.beta);
    case XPOSE_TYPE_F64: return pick_scaling<FloatOp, IT, XPOSE_TYPE_F64>(k.alpha, k.beta);
    default: return nullptr;
  }
}

template <xpose_type_t IT>
RowOp pick_complex_out(const OpKey& k) {
  switch (k.out) {
    case XPOSE_TYPE_C32: return pick_scaling<ComplexOp, IT, XPOSE_TYPE_C32>(k.alpha, k.beta);
    case XPOSE_TYPE_C64: return pick_scaling<ComplexOp, IT, XPOSE_TYPE_C64>(k.alpha, k.beta);
    default: return nullptr;
  }
}

template <size_t N>
RowOp pick_int(const OpKey& k) {
  return k.alpha || k.in != k.out ? nullptr : k.beta ? &row<IntOp<N, true>> : &row<IntOp<N, false>>;
}

RowOp pick(const OpKey& k) {
  switch (k.in) {
    case XPOSE_TYPE_F8_E4M3: return pick_float_out<XPOSE_TYPE_F8_E4M3>(k);
    case XPOSE_TYPE_F8_E5M2: return pick_float_out<XPOSE_TYPE_F8_E5M2>(k);
    case XPOSE_TYPE_F16: return pick_float_out<XPOSE_TYPE_F16>(k);
    case XPOSE_TYPE_BF16: return pick_float_out<XPOSE_TYPE_BF16>(k);
    case XPOSE_TYPE_F32: return pick_float_out<XPOSE_TYPE_F32>(k);
    case XPOSE_TYPE_F64: return pick_float_out<XPOSE_TYPE_F64>(k);
    case XPOSE_TYPE_C32: return pick_complex_out<XPOSE_TYPE_C32>(k);
    case XPOSE_TYPE_C64: return pick_complex_out<XPOSE_TYPE_C64>(k);
    default: break;
  }
  switch (k.elem_size) {  // integers and BYTES
    case 1: return pick_int<1>(k);
    case 2: return pick_int<2>(k);
    case 4: return pick_int<4>(k);
    case 8: return pick_int<8>(k);
    case 16: return pick_int<16>(k);
    default: return nullptr;
  }
}

}  // namespace

RowOp XPOSE_TYPED_OPS_NAME(const OpKey& key) { return pick(key); }

}  // namespace xpose::detail::cpu
