// A naive reference for xpose_plan_create_ex in the USER's terms (rank, extents, perm, layout and
// the descriptor's types, strides and scalars), never through the library's normalization: for
// every input multi-index, the input and output offsets from the user's strides, then the value
// rule of docs/cpu.md ("Conversion and scaling") element by element. Host code; the CPU and GPU
// tests both use it.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/convert.hpp"
#include "core/types.hpp"
#include "xpose/xpose.h"

namespace xpose_test {

// Bytes of one element of `type` (BYTES: `bytes_size`), from the library's type table.
inline size_t type_size(xpose_type_t type, size_t bytes_size = 0) {
  return type == XPOSE_TYPE_BYTES ? bytes_size : xpose::detail::type_info(type).size;
}

inline bool is_floating(xpose_type_t t) {
  return xpose::detail::type_info(t).kind == xpose::detail::TypeKind::Floating;
}
inline bool is_complex(xpose_type_t t) {
  return xpose::detail::type_info(t).kind == xpose::detail::TypeKind::Complex;
}

// One request as the user writes it. Empty stride vectors mean dense in `layout`.
struct TypedCase {
  std::vector<int64_t> extents;
  std::vector<int> perm;
  xpose_type_t in_type = XPOSE_TYPE_BYTES, out_type = XPOSE_TYPE_BYTES;
  size_t elem_size = 4;  // input element bytes (BYTES); typed cases: type_size(in_type)
  std::vector<int64_t> in_strides, out_strides;  // per input dim / per output dim
  double alpha[2] = {1, 0}, beta[2] = {0, 0};
  xpose_layout_t layout = XPOSE_COL_MAJOR;
  xpose_planning_t planning = XPOSE_PLAN_HEURISTIC;  // how tests that plan it make the plan

  int rank() const { return static_cast<int>(extents.size()); }
  size_t in_elem() const { return type_size(in_type, elem_size); }
  size_t out_elem() const {
    return type_size(out_type == XPOSE_TYPE_BYTES ? in_type : out_type, elem_size);
  }
  xpose_type_t resolved_out() const { return out_type == XPOSE_TYPE_BYTES ? in_type : out_type; }
  // Dense strides of `ext` in the layout: column-major has dim 0 fastest.
  std::vector<int64_t> dense(const std::vector<int64_t>& ext) const {
    std::vector<int64_t> s(ext.size());
    int64_t v = 1;
    for (size_t n = 0; n < ext.size(); ++n) {
      const size_t k = layout == XPOSE_ROW_MAJOR ? ext.size() - 1 - n : n;
      s[k] = v;
      v *= ext[k];
    }
    return s;
  }
  std::vector<int64_t> out_extents() const {
    std::vector<int64_t> e(extents.size());
    for (size_t i = 0; i < e.size(); ++i) e[i] = extents[perm[i]];
    return e;
  }
  std::vector<int64_t> input_strides() const {
    return in_strides.empty() ? dense(extents) : in_strides;
  }
  std::vector<int64_t> output_strides() const {
    return out_strides.empty() ? dense(out_extents()) : out_strides;
  }
  int64_t volume() const {
    int64_t v = 1;
    for (int64_t e : extents) v *= e;
    return v;
  }
  // The descriptor of this case (strides point into this object).
  xpose_desc_t desc() const {
    xpose_desc_t d;
    xpose_desc_init(&d);
    d.in_type = in_type;
    d.out_type = out_type;
    d.in_strides = in_strides.empty() ? nullptr : in_strides.data();
    d.out_strides = out_strides.empty() ? nullptr : out_strides.data();
    for (int c = 0; c < 2; ++c) d.alpha[c] = alpha[c], d.beta[c] = beta[c];
    return d;
  }
};

// [lo, hi]: the element offsets that extents with strides reach (0, 0 when empty or rank 0).
inline void reach(const std::vector<int64_t>& ext, const std::vector<int64_t>& stride,
                  int64_t* lo, int64_t* hi) {
  *lo = *hi = 0;
  for (size_t k = 0; k < ext.size(); ++k) {
    if (ext[k] == 0) { *lo = *hi = 0; return; }
    const int64_t far = (ext[k] - 1) * stride[k];
    (far < 0 ? *lo : *hi) += far;
  }
}

namespace detail_ref {

using namespace xpose::detail::cvt;

template <xpose_type_t T>
double load(const unsigned char* p) {
  typename FormatOf<T>::type::Bits b;
  std::memcpy(&b, p, sizeof b);
  return load_as<T, double>(b);  // exact; rounded to f32 below where f32 computes
}
inline double load_real(xpose_type_t t, const unsigned char* p) {
  switch (t) {
    case XPOSE_TYPE_F8_E4M3: return load<XPOSE_TYPE_F8_E4M3>(p);
    case XPOSE_TYPE_F8_E5M2: return load<XPOSE_TYPE_F8_E5M2>(p);
    case XPOSE_TYPE_F16: return load<XPOSE_TYPE_F16>(p);
    case XPOSE_TYPE_BF16: return load<XPOSE_TYPE_BF16>(p);
    case XPOSE_TYPE_F32: case XPOSE_TYPE_C32: return load<XPOSE_TYPE_F32>(p);
    default: return load<XPOSE_TYPE_F64>(p);
  }
}
template <xpose_type_t T>
void store(unsigned char* p, double v, bool f64) {
  auto b = f64 ? store_from<T, double>(v) : store_from<T, float>(static_cast<float>(v));
  std::memcpy(p, &b, sizeof b);
}
template <>
inline void store<XPOSE_TYPE_F64>(unsigned char* p, double v, bool) {
  const auto b = store_from<XPOSE_TYPE_F64, double>(v);
  std::memcpy(p, &b, sizeof b);
}
inline void store_real(xpose_type_t t, unsigned char* p, double v, bool f64) {
  switch (t) {
    case XPOSE_TYPE_F8_E4M3: return store<XPOSE_TYPE_F8_E4M3>(p, v, f64);
    case XPOSE_TYPE_F8_E5M2: return store<XPOSE_TYPE_F8_E5M2>(p, v, f64);
    case XPOSE_TYPE_F16: return store<XPOSE_TYPE_F16>(p, v, f64);
    case XPOSE_TYPE_BF16: return store<XPOSE_TYPE_BF16>(p, v, f64);
    case XPOSE_TYPE_F32: case XPOSE_TYPE_C32: return store<XPOSE_TYPE_F32>(p, v, f64);
    default: return store<XPOSE_TYPE_F64>(p, v, true);
  }
}

// One operation of the compute type, rounded: f32 results are rounded from the exact double
// result of f32 operands (a product of two floats and a sum of two floats are exact in double,
// so this is one rounding, as f32 arithmetic does).
inline double mul(double a, double b, bool f64) {
  const double r = a * b;
  return f64 ? r : static_cast<double>(static_cast<float>(r));
}
inline double add(double a, double b, bool f64) {
  const double r = a + b;
  return f64 ? r : static_cast<double>(static_cast<float>(r));
}
inline double scalar(double s, bool f64) { return f64 ? s : static_cast<float>(s); }

// out element at `o` from input element at `i`, by the value rule.
inline void element(const TypedCase& c, const unsigned char* i, unsigned char* o) {
  const xpose_type_t it = c.in_type, ot = c.resolved_out();
  const bool alpha = c.alpha[0] != 1 || (is_complex(it) && c.alpha[1] != 0);
  const bool beta = c.beta[0] != 0 || (is_complex(it) && c.beta[1] != 0);
  // Integers and BYTES: copy or wrap-around add; a same-type unscaled floating element is copied
  // as it is (make_problem_ex erases that request to BYTES: NaN payloads survive).
  if ((!is_floating(it) && !is_complex(it)) || (it == ot && !alpha && !beta)) {
    unsigned __int128 x = 0, y = 0;
    const size_t n = c.in_elem();
    std::memcpy(&x, i, n);
    std::memcpy(&y, o, n);
    const unsigned __int128 r = beta ? x + y : x;
    std::memcpy(o, &r, n);
    return;
  }
  const bool f64 = computes_in_f64(it, ot);
  const int parts = is_complex(it) ? 2 : 1;
  const size_t ih = c.in_elem() / parts, oh = c.out_elem() / parts;
  double x[2] = {0, 0}, y[2] = {0, 0}, r[2];
  for (int p = 0; p < parts; ++p) {
    x[p] = load_real(it, i + p * ih);
    if (beta) y[p] = load_real(ot, o + p * oh);
  }
  const double ar = scalar(c.alpha[0], f64), ai = scalar(c.alpha[1], f64);
  const double br = scalar(c.beta[0], f64), bi = scalar(c.beta[1], f64);
  if (parts == 1) {
    r[0] = alpha ? mul(ar, x[0], f64) : x[0];
    if (beta) r[0] = add(r[0], mul(br, y[0], f64), f64);
  } else {
    r[0] = x[0], r[1] = x[1];
    if (alpha) {
      r[0] = add(mul(ar, x[0], f64), -mul(ai, x[1], f64), f64);
      r[1] = add(mul(ar, x[1], f64), mul(ai, x[0], f64), f64);
    }
    if (beta) {
      const double s0 = add(mul(br, y[0], f64), -mul(bi, y[1], f64), f64);
      const double s1 = add(mul(br, y[1], f64), mul(bi, y[0], f64), f64);
      r[0] = add(r[0], s0, f64);
      r[1] = add(r[1], s1, f64);
    }
  }
  for (int p = 0; p < parts; ++p) {
    if ((alpha || beta) && r[p] != r[p]) r[p] = NAN;  // arithmetic NaNs are positive
    store_real(ot, o + p * oh, r[p], f64);
  }
}

}  // namespace detail_ref

// Applies case `c` to `in` and `out`, which point at the elements whose indices are all 0 (the
// buffers must cover reach() of each side). `out` holds the prior output (read when beta != 0).
inline void reference_typed(const TypedCase& c, const unsigned char* in, unsigned char* out) {
  const int rank = c.rank();
  const std::vector<int64_t> is = c.input_strides(), os = c.output_strides();
  std::vector<int64_t> os_of_input(rank);  // the output stride of input dim k
  for (int i = 0; i < rank; ++i) os_of_input[c.perm[i]] = os[i];
  const int64_t volume = c.volume();
  std::vector<int64_t> idx(rank, 0);
  for (int64_t n = 0; n < volume; ++n) {
    int64_t io = 0, oo = 0;
    for (int k = 0; k < rank; ++k) io += idx[k] * is[k], oo += idx[k] * os_of_input[k];
    detail_ref::element(c, in + io * static_cast<int64_t>(c.in_elem()),
                        out + oo * static_cast<int64_t>(c.out_elem()));
    for (int k = 0; k < rank && ++idx[k] == c.extents[k]; ++k) idx[k] = 0;
  }
}

}  // namespace xpose_test
