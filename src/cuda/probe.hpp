// The CUDA planner's candidates as `xpose calibrate` sees them: the view the planner plans first
// for aligned pointers, every candidate with the terms of its cost, and the timing of any of
// them on scratch buffers, the way measure planning times its best few (backend.cpp).
// Host C++ only.
#pragma once

#include <vector>

#include "core/problem.hpp"
#include "cuda/planner.hpp"
#include "xpose/xpose.h"

namespace xpose::detail {

struct Probe {
  const DeviceInfo* dev = nullptr;
  Problem view;                 // w leading elements fused when the leading dimension stays
  std::vector<Choice> choices;  // every candidate, best predicted first
};

// `p` normalized and non-empty, `device` an ordinal.
xpose_status_t cuda_probe(const Problem& p, int device, Probe* out);

// Median seconds of each of `choices` (of `view`) over `reps` rounds that take every choice in
// turn, on scratch buffers of the view's size (XPOSE_ERROR_OUT_OF_MEMORY when they do not fit).
xpose_status_t cuda_time_choices(const DeviceInfo& dev, const Problem& view,
                                 const std::vector<Choice>& choices, int reps,
                                 std::vector<double>* seconds);

}  // namespace xpose::detail
