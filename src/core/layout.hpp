// A layout is a map from a column-major coordinate space (extents) to memory offsets (strides),
// in units of elements, as in CuTe: offset(i) = sum_k coord_k(i) * stride[k], where coord(i) is
// the column-major decomposition of the linear index i over `extent`.
//
// A transposition is one layout: the "gather" layout G has the OUTPUT's extents (in output order)
// and, for each output mode, the INPUT stride of that dimension, so that out[j] = in[G(j)] for
// every linear output index j. Normalizing a transposition is coalescing G.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "xpose/xpose.h"

namespace xpose::detail {

inline constexpr int kMaxRank = XPOSE_MAX_RANK;

using Extents = std::array<int64_t, kMaxRank>;
using Perm = std::array<int, kMaxRank>;

struct Layout {
  int rank = 0;
  Extents extent{};
  Extents stride{};

  // Product of the extents (1 for rank 0). Callers guarantee it fits in int64_t.
  int64_t size() const;
  // Offset of linear index `i` (0 <= i < size()).
  int64_t operator()(int64_t i) const;
  friend bool operator==(const Layout&, const Layout&) = default;
};

// Compact column-major layout: stride[0] = 1, stride[k] = stride[k-1] * extent[k-1].
Layout make_compact(int rank, const int64_t* extents);

// Mode i of the result is mode perm[i] of `layout`. `perm` must be a permutation of 0..rank-1.
Layout permute(const Layout& layout, const int* perm);

// Same map i -> offset on [0, size()), with the fewest modes: extent-1 modes dropped, and modes
// k, k+1 merged when stride[k+1] == stride[k] * extent[k]. Rank 0 when size() == 1.
Layout coalesce(const Layout& layout);

// inverse(p)[p[i]] = i.
Perm inverse(int rank, const int* perm);

// compose(a, b)[i] = a[b[i]]: permuting by a, then by b, is permuting by compose(a, b).
Perm compose(int rank, const int* a, const int* b);

// "(e0,e1,...):(s0,s1,...)", "():()" for rank 0.
std::string to_string(const Layout& layout);

}  // namespace xpose::detail
