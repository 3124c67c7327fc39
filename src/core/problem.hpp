// A validated, normalized transposition request: the single internal form every backend plans
// from. Column-major, extent-1 dimensions dropped, dimensions adjacent in the same order in input
// and output fused (TTLG's index fusion), so rank <= 1 means a plain copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/layout.hpp"
#include "xpose/xpose.h"

namespace xpose::detail {

struct Problem {
  int rank = 0;          // normalized rank; 0 or 1 is a plain copy of `volume` elements
  Extents extent{};      // input extents, extent[0] is stride-1
  Perm perm{};           // output dimension i is input dimension perm[i]
  size_t elem_size = 0;  // 1, 2, 4, 8 or 16 bytes
  int64_t volume = 0;    // elements; 0 for an empty tensor

  bool is_copy() const { return rank <= 1; }
  int64_t bytes() const { return volume * static_cast<int64_t>(elem_size); }
  // Extent of output dimension i.
  int64_t out_extent(int i) const { return extent[perm[i]]; }
  // Compact input layout over the normalized extents.
  Layout input() const { return make_compact(rank, extent.data()); }
  // out[j] == in[gather()(j)] for every linear output index j.
  Layout gather() const { return permute(input(), perm.data()); }
  // For each input dimension k, its stride in the output.
  Extents output_strides() const;
  // "extents (e0,e1,..) perm (p0,p1,..) 8 B".
  std::string to_string() const;

  friend bool operator==(const Problem&, const Problem&) = default;
};

size_t hash_value(const Problem& p);

// Validates every argument (messages name the argument and the reason, as xpose_last_error()
// reports them) and normalizes the request. The user's layout (column- or row-major) is folded
// in here; nothing downstream sees it.
xpose_status_t make_problem(int rank, const int64_t* extents, const int* perm, size_t elem_size,
                            xpose_layout_t layout, Problem* out);

// Validates `options` (NULL means the defaults) and writes the filled-in options to `out`.
xpose_status_t resolve_options(const xpose_options_t* options, xpose_options_t* out);

// Checks the execute-time pointers of a problem: non-NULL when there is data, no overlap.
xpose_status_t check_buffers(const Problem& p, const void* in, const void* out);

}  // namespace xpose::detail
