// A validated, normalized transposition request: the single internal form every backend plans
// from. Column-major, extent-1 dimensions dropped, dimensions adjacent in the same order in input
// and output fused (TTLG's index fusion), so rank <= 1 means a plain copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/layout.hpp"
#include "xpose/xpose.h"

namespace xpose::detail {

// A scalar {re, im} of a typed problem, compared bit for bit: -0.0 and +0.0 scale to results of
// different signs, so plans (and the plan cache's keys) must tell them apart.
struct Scalar {
  double v[2];
  double& operator[](int i) { return v[i]; }
  const double& operator[](int i) const { return v[i]; }
  operator const double*() const { return v; }
  friend bool operator==(const Scalar& a, const Scalar& b) {
    return std::memcmp(a.v, b.v, sizeof a.v) == 0;
  }
};

struct Problem {
  int rank = 0;          // normalized rank; 0 or 1 is a plain copy of `volume` elements (plain())
  Extents extent{};      // input extents, extent[0] is stride-1 (strided: the smallest |stride|)
  Perm perm{};           // output dimension i is input dimension perm[i]
  size_t elem_size = 0;  // bytes of an input element: 1, 2, 4, 8 or 16
  int64_t volume = 0;    // elements; 0 for an empty tensor

  // Typed, strided and scaled problems (xpose_plan_create_ex, docs/api.md). The default, a
  // "plain" problem, is a dense permutation of opaque elements, what xpose_plan_create makes:
  // types BYTES, alpha {1, 0}, beta {0, 0}, dense strides. make_problem erases what does not
  // change the result: a typed problem with no conversion and no scaling is BYTES, strides equal
  // to the dense ones are not `strided`, scalars of types that ignore them are the defaults.
  xpose_type_t in_type = XPOSE_TYPE_BYTES;
  xpose_type_t out_type = XPOSE_TYPE_BYTES;  // equal to in_type unless converting
  size_t out_elem_size = 0;                  // bytes of an output element (0: elem_size)
  bool strided = false;   // in_stride / out_stride are not the dense strides
  // Valid when `strided` (make_problem fills them always; Problems built by hand in tests may
  // leave them zero, so use input() and output_strides(), which fall back on the dense ones).
  Extents in_stride{};    // input dim k's stride in the input, in input elements (any sign, or 0)
  Extents out_stride{};   // input dim k's stride in the output, in output elements
  // The element offsets, relative to the base pointers, of the first and last bytes' elements
  // each tensor reaches: [in_lo, in_hi] and [out_lo, out_hi] (0 and volume-1 when dense).
  int64_t in_lo = 0, in_hi = 0, out_lo = 0, out_hi = 0;
  Scalar alpha{{1, 0}};
  Scalar beta{{0, 0}};

  // A dense permutation of opaque bytes: every path that predates xpose_plan_create_ex.
  bool plain() const { return !strided && !typed(); }
  // Converts or scales (the element values matter), strided or not.
  bool typed() const { return in_type != XPOSE_TYPE_BYTES; }
  bool converts() const { return in_type != out_type; }
  // out is read: out = alpha * in' + beta * out with beta != 0.
  bool reads_out() const { return beta[0] != 0 || beta[1] != 0; }
  bool is_copy() const { return rank <= 1 && plain(); }
  // Bytes read from the input (dense or not), and written to the output.
  int64_t bytes() const { return volume * static_cast<int64_t>(elem_size); }
  size_t out_elem() const { return out_elem_size ? out_elem_size : elem_size; }
  int64_t out_bytes() const { return volume * static_cast<int64_t>(out_elem()); }
  // Extent of output dimension i.
  int64_t out_extent(int i) const { return extent[perm[i]]; }
  // Input layout over the normalized extents (in_stride; compact when not strided).
  Layout input() const;
  // out[j] == in[gather()(j)] for every linear output index j (dense output).
  Layout gather() const { return permute(input(), perm.data()); }
  // For each input dimension k, its stride in the output (out_stride when strided).
  Extents output_strides() const;
  // "extents (e0,e1,..) perm (p0,p1,..) 8 B".
  std::string to_string() const;

  friend bool operator==(const Problem&, const Problem&) = default;
};

size_t hash_value(const Problem& p);

// A scalar as messages and to_string() print it: "2.5", or "{2.5, -1}" when `complex`.
std::string scalar_string(const double* v, bool complex);

// Validates every argument (messages name the argument and the reason, as xpose_last_error()
// reports them) and normalizes the request. The user's layout (column- or row-major) is folded
// in here; nothing downstream sees it.
xpose_status_t make_problem(int rank, const int64_t* extents, const int* perm, size_t elem_size,
                            xpose_layout_t layout, Problem* out);
// The same with xpose_plan_create_ex's descriptor (NULL: make_problem above): types, strides
// and scalars validated (messages name the field), normalized with the dims (dims fuse only
// where both tensors' strides allow) and erased where they change nothing.
xpose_status_t make_problem_ex(int rank, const int64_t* extents, const int* perm,
                               size_t elem_size, const xpose_desc_t* desc,
                               xpose_layout_t layout, Problem* out);

// The checks of make_problem on the dims (rank, extents, perm, elem_size, 64-bit sizes).
xpose_status_t validate_request(int rank, const int64_t* extents, const int* perm,
                                size_t elem_size);

// Fills the fields of a dense, untyped problem from rank, extent, perm, elem_size, volume:
// dense strides, offsets reach, out_elem_size.
void fill_dense(Problem* p);

// Validates `options` (NULL means the defaults) and writes the filled-in options to `out`.
xpose_status_t resolve_options(const xpose_options_t* options, xpose_options_t* out);

// Checks the execute-time pointers of a problem: non-NULL when there is data, and the byte
// ranges the two tensors reach ([in_lo, in_hi], [out_lo, out_hi]) do not overlap.
xpose_status_t check_buffers(const Problem& p, const void* in, const void* out);

}  // namespace xpose::detail
