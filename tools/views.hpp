// Typed, strided and scaled runs of a case (`--type`, `--out-type`, `--alpha`, `--beta`,
// `--pad`): the xpose_desc_t of xpose_plan_create_ex, the padded tensors' strides and offsets,
// and the bytes the plan moves, which size the same-run copy it is compared with.
#pragma once

#include <cstdint>
#include <vector>

#include "common.hpp"

namespace xpose_tool {

struct CaseViews {
  bool extended = false;  // a descriptor is needed (types, scalars or padding)
  std::vector<int64_t> in_strides, out_strides;  // per dim in the case's layout; empty: dense
  int64_t in_offset = 0, out_offset = 0;         // elements from the buffer start to index 0
  int64_t in_span = 0, out_span = 0;             // elements of the (padded) buffers
  size_t in_elem = 0, out_elem = 0;
  xpose_desc_t desc{};                           // strides point into this value's vectors

  int64_t in_bytes() const { return in_span * static_cast<int64_t>(in_elem); }
  int64_t out_bytes() const { return out_span * static_cast<int64_t>(out_elem); }
  // Bytes read plus written by the plan, halved: the size of the copy that moves as many.
  int64_t copy_bytes(int64_t volume, const Settings& s) const;
};

// The views of case `c` under settings `s` (whose elem is the case's element size). Padding:
// each extent of each tensor gets 1 to s.pad elements before and after, drawn from the case's
// name, so every run of a suite pads alike.
CaseViews case_views(const Case& c, const Settings& s);

// xpose_plan_create_ex (or the plain entry points when nothing is extended); forced schemas go
// through xpose_plan_create_forced and take no descriptor.
xpose_status_t create_plan(const Case& c, const Settings& s, const CaseViews& v,
                           xpose_plan_t* plan);

}  // namespace xpose_tool
