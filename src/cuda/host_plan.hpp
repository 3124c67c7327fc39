// The host part of CUDA plan creation, reachable without a GPU: cuda_make_plan (core/backend.hpp)
// is device_info() then cuda_plan_on. Tests time heuristic planning on a fake device with it and
// check the views' choices and parameter blocks. Host C++ only (backend.cpp).
#pragma once

#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cuda/planner.hpp"
#include "cuda/runtime.hpp"

namespace xpose::detail {

// Plans `p` (normalized, non-empty) for a device with properties `dev` and ordinal
// options.device: no CUDA call unless options.planning is XPOSE_PLAN_MEASURE.
xpose_status_t cuda_plan_on(const Problem& p, const DeviceInfo& dev,
                            const xpose_options_t& options, const std::string& schema,
                            BackendPlanPtr* plan);

// One view of a CUDA plan, as execute launches it.
struct PlanView {
  size_t align = 1;       // execute takes this view when in and out are multiples of it
  size_t out_align = 1;   // ... and out of this (typed views: the output element's size)
  Problem problem;        // the view of the plan's problem (leading elements fused, or as given)
  KernelSpec spec;        // the choice and its parameter block, whole
  bool unaligned = false;  // the view before it again, elements moved in pieces (tiled)
};

// The views of a CUDA plan, in the order execute tries them; empty for a plan of another
// backend.
std::vector<PlanView> cuda_plan_views(const BackendPlan& plan);

}  // namespace xpose::detail
