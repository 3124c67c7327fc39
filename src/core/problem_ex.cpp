// make_problem_ex: xpose_plan_create_ex's descriptor (types, scalars, strides) validated, then
// the request normalized with both tensors' strides and stripped of what changes nothing, so a
// strided or typed request that is really a dense permutation gets the dense plan.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/problem.hpp"
#include "core/status.hpp"
#include "core/types.hpp"

namespace xpose::detail {
namespace {

xpose_status_t bad(std::string message) {
  return fail(XPOSE_ERROR_INVALID_ARGUMENT, std::move(message));
}

std::string pair(const double* v) { return scalar_string(v, true); }

// Types: valid enumerators, elem_size consistent with in_type, an allowed conversion. Writes
// the resolved types (out BYTES = in) and the input element size.
xpose_status_t check_types(const xpose_desc_t& d, size_t elem_size, xpose_type_t* in,
                           xpose_type_t* out, size_t* in_size) {
  const int ri = raw_enum(d.in_type), ro = raw_enum(d.out_type);
  if (!valid_type(ri))
    return bad("desc->in_type = " + std::to_string(ri) + " is not an xpose_type_t");
  if (!valid_type(ro))
    return bad("desc->out_type = " + std::to_string(ro) + " is not an xpose_type_t");
  *in = static_cast<xpose_type_t>(ri);
  *out = ro == XPOSE_TYPE_BYTES ? *in : static_cast<xpose_type_t>(ro);
  const TypeInfo& ti = type_info(*in);
  *in_size = elem_size;
  if (*in != XPOSE_TYPE_BYTES) {
    if (elem_size != 0 && elem_size != ti.size)
      return bad("elem_size = " + std::to_string(elem_size) + " does not match desc->in_type " +
                 ti.name + " (" + std::to_string(ti.size) + " bytes; 0 also means that)");
    *in_size = ti.size;
  }
  if (!converts_to(*in, *out))
    return fail(XPOSE_ERROR_UNSUPPORTED,
                std::string("desc: no conversion from ") + ti.name + " to " +
                    type_info(*out).name +
                    " (floating types convert to each other, c32 to c64 and back; integer and "
                    "BYTES types only to themselves)");
  return XPOSE_SUCCESS;
}

// Scalars: NaN where it is used is an error; integer and BYTES types take a copy or an
// addition. Writes the scalars the kernels use (unused imaginary parts zeroed).
xpose_status_t check_scalars(const xpose_desc_t& d, xpose_type_t type, Problem* p) {
  const TypeKind kind = type_info(type).kind;
  const double* a = d.alpha;
  const double* b = d.beta;
  if (kind == TypeKind::Bytes || kind == TypeKind::Integer) {
    const bool copy_or_add = a[0] == 1 && a[1] == 0 && (b[0] == 0 || b[0] == 1) && b[1] == 0;
    if (!copy_or_add)
      return fail(XPOSE_ERROR_UNSUPPORTED,
                  "desc->alpha = " + pair(a) + ", desc->beta = " + pair(b) + " on " +
                      type_info(type).name +
                      " elements: integer and BYTES types take alpha = {1, 0} and beta = {0, 0} "
                      "or {1, 0}");
  }
  const int used = kind == TypeKind::Complex ? 2 : 1;
  for (int i = 0; i < used; ++i) {
    if (std::isnan(a[i])) return bad("desc->alpha = " + pair(a) + " is NaN");
    if (std::isnan(b[i])) return bad("desc->beta = " + pair(b) + " is NaN");
  }
  p->alpha[0] = a[0];
  p->alpha[1] = used == 2 ? a[1] : 0;
  p->beta[0] = b[0];
  p->beta[1] = used == 2 ? b[1] : 0;
  return XPOSE_SUCCESS;
}

// One dimension of a strided request: extent, input and output strides, where it came from.
struct Mode {
  int64_t extent, in, out;
  int in_dim, out_dim;  // the dimension's index among the input's and the output's dims
};

// [lo, hi]: the element offsets a tensor reaches; false when they pass 2^63 bytes.
bool reach(const Mode* m, int n, bool output, size_t elem, int64_t* lo, int64_t* hi) {
  *lo = *hi = 0;
  for (int k = 0; k < n; ++k) {
    int64_t r;
    if (__builtin_mul_overflow(m[k].extent - 1, output ? m[k].out : m[k].in, &r)) return false;
    if (__builtin_add_overflow(r < 0 ? *lo : *hi, r, r < 0 ? lo : hi)) return false;
  }
  int64_t bytes;
  return !__builtin_mul_overflow(*lo, static_cast<int64_t>(elem), &bytes) &&
         !__builtin_add_overflow(*hi, int64_t{1}, &bytes) &&
         !__builtin_mul_overflow(*hi + 1, static_cast<int64_t>(elem), &bytes) &&
         !__builtin_sub_overflow(*hi + 1, *lo, &bytes) &&
         !__builtin_mul_overflow(*hi + 1 - *lo, static_cast<int64_t>(elem), &bytes);
}

// Output elements must not share an address. The test is sufficient, not exact: taken in order
// of |stride|, each stride must pass the reach of the smaller ones (every slice, padding,
// reversal or permutation of a dense array passes; interleavings that happen not to collide
// are refused too).
xpose_status_t check_no_alias(const Mode* m, int n) {
  Mode s[kMaxRank];
  std::copy(m, m + n, s);
  std::sort(s, s + n, [](const Mode& a, const Mode& b) {
    return std::abs(a.out) < std::abs(b.out) ||
           (std::abs(a.out) == std::abs(b.out) && a.out_dim < b.out_dim);
  });
  int64_t span = 0;  // |stride| x (extent - 1) of the modes so far: below 2^63 (reach() passed)
  for (int k = 0; k < n; ++k) {
    if (std::abs(s[k].out) <= span)
      return bad("out_strides[" + std::to_string(s[k].out_dim) + "] = " +
                 std::to_string(s[k].out) + " makes output elements share an address (in order "
                 "of size, each output stride must exceed the reach of the smaller ones, " +
                 std::to_string(span) + " here)");
    span += std::abs(s[k].out) * (s[k].extent - 1);
  }
  return XPOSE_SUCCESS;
}

// Merges modes a and b (b continues a in both tensors) until none do: TTLG's index fusion,
// with both tensors' strides.
int fuse(Mode* m, int n) {
  for (bool merged = true; merged;) {
    merged = false;
    for (int a = 0; a < n && !merged; ++a)
      for (int b = 0; b < n && !merged; ++b) {
        // (extent - 1) x stride fits in 64 bits (reach()), extent x stride may not.
        int64_t in_next, out_next;
        if (a == b || __builtin_mul_overflow(m[a].in, m[a].extent, &in_next) ||
            __builtin_mul_overflow(m[a].out, m[a].extent, &out_next) || m[b].in != in_next ||
            m[b].out != out_next)
          continue;
        m[a].extent *= m[b].extent;
        m[a].in_dim = std::min(m[a].in_dim, m[b].in_dim);
        m[a].out_dim = std::min(m[a].out_dim, m[b].out_dim);
        std::copy(m + b + 1, m + n, m + b);
        --n;
        merged = true;
      }
  }
  return n;
}

// Normalized problem from the modes: input dims in order of |input stride| (then of the user's
// dims), output dims in the user's order; strided unless the strides are the dense ones.
void order_modes(Mode* m, int n, Problem* p) {
  std::sort(m, m + n, [](const Mode& a, const Mode& b) {
    return std::abs(a.in) < std::abs(b.in) ||
           (std::abs(a.in) == std::abs(b.in) && a.in_dim < b.in_dim);
  });
  p->rank = n;
  int by_out[kMaxRank];
  for (int k = 0; k < n; ++k) {
    p->extent[k] = m[k].extent;
    p->in_stride[k] = m[k].in;
    p->out_stride[k] = m[k].out;
    by_out[k] = k;
  }
  std::sort(by_out, by_out + n, [&](int a, int b) { return m[a].out_dim < m[b].out_dim; });
  for (int i = 0; i < n; ++i) p->perm[i] = by_out[i];
  Problem dense = *p;
  fill_dense(&dense);
  p->strided = p->in_stride != dense.in_stride || p->out_stride != dense.out_stride;
}

// Strides (user order and layout) to modes over the column-major dims, extent-1 dims dropped.
int make_modes(int rank, const int64_t* extents, const int* perm, const xpose_desc_t& d,
               bool row_major, Mode* m) {
  int64_t dense_in[kMaxRank], dense_out[kMaxRank], col_out[kMaxRank];
  int inv[kMaxRank];
  for (int i = 0; i < rank; ++i) inv[perm[i]] = i;
  // Dense strides in the user's layout: the fastest dim is 0 (column-major) or rank - 1.
  int64_t si = 1, so = 1;
  for (int j = 0; j < rank; ++j) {
    const int k = row_major ? rank - 1 - j : j;
    dense_in[k] = si;
    dense_out[k] = so;
    si *= extents[k];
    so *= extents[perm[k]];
  }
  int n = 0;
  for (int k = 0; k < rank; ++k) col_out[k] = d.out_strides ? d.out_strides[k] : dense_out[k];
  for (int j = 0; j < rank; ++j) {
    const int k = row_major ? rank - 1 - j : j;  // user dim of column-major input dim j
    if (extents[k] == 1) continue;
    m[n++] = Mode{extents[k], d.in_strides ? d.in_strides[k] : dense_in[k], col_out[inv[k]],
                  j, row_major ? rank - 1 - inv[k] : inv[k]};
  }
  return n;
}

}  // namespace

xpose_status_t make_problem_ex(int rank, const int64_t* extents, const int* perm,
                               size_t elem_size, const xpose_desc_t* desc,
                               xpose_layout_t layout, Problem* out) {
  if (desc == nullptr) return make_problem(rank, extents, perm, elem_size, layout, out);
  xpose_desc_t d;
  if (desc->struct_size != sizeof(xpose_desc_t))
    return bad("desc->struct_size = " + std::to_string(desc->struct_size) + " is not " +
               std::to_string(sizeof(xpose_desc_t)) + " (call xpose_desc_init first)");
  std::memcpy(&d, desc, sizeof d);
  xpose_type_t in_type, out_type;
  size_t in_size;
  XPOSE_TRY(check_types(d, elem_size, &in_type, &out_type, &in_size));
  // What the dense path checks (rank, extents, perm, 64-bit sizes); then the dense problem is
  // the start, and strides and types go on it.
  Problem p;
  XPOSE_TRY(make_problem(rank, extents, perm, in_size, layout, &p));
  const size_t out_size = out_type == XPOSE_TYPE_BYTES ? in_size : type_info(out_type).size;
  XPOSE_TRY(check_scalars(d, in_type, &p));
  if (p.volume > 0 && (d.in_strides || d.out_strides)) {
    Mode m[kMaxRank];
    int n = make_modes(rank, extents, perm, d, layout == XPOSE_ROW_MAJOR, m);
    if (!reach(m, n, false, in_size, &p.in_lo, &p.in_hi))
      return bad("in_strides reach past 2^63 bytes");
    if (!reach(m, n, true, out_size, &p.out_lo, &p.out_hi))
      return bad("out_strides reach past 2^63 bytes");
    XPOSE_TRY(check_no_alias(m, n));
    n = fuse(m, n);
    order_modes(m, n, &p);
    if (!p.strided) p.in_lo = p.out_lo = 0, p.in_hi = p.out_hi = p.volume - 1;
  }
  // Typed only where the values matter: a conversion or scaling (integers: an addition).
  const bool scales = p.alpha[0] != 1 || p.alpha[1] != 0 || p.reads_out();
  if (in_type != out_type || scales) {
    const bool integer = type_info(in_type).kind != TypeKind::Floating &&
                         type_info(in_type).kind != TypeKind::Complex;
    p.in_type = integer ? unsigned_type(in_size) : in_type;
    p.out_type = integer ? p.in_type : out_type;
    if (p.in_type == XPOSE_TYPE_BYTES)
      return fail(XPOSE_ERROR_UNSUPPORTED,
                  "desc->beta = {1, 0} on BYTES elements of 16 bytes: there is no 16-byte integer "
                  "addition (use XPOSE_TYPE_C64 or XPOSE_TYPE_F64 elements)");
  } else {
    p.alpha[0] = 1, p.alpha[1] = 0, p.beta[0] = 0, p.beta[1] = 0;
  }
  p.out_elem_size = out_size;
  *out = p;
  return XPOSE_SUCCESS;
}

}  // namespace xpose::detail
