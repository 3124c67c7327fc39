// The host part of CUDA plan creation, reachable without a GPU: cuda_make_plan (core/backend.hpp)
// is device_info() then cuda_plan_on. Tests time heuristic planning on a fake device with it and
// compare the views' choices. Host C++ only (backend.cpp).
#pragma once

#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cuda/runtime.hpp"

namespace xpose::detail {

// Plans `p` (normalized, non-empty) for a device with properties `dev` and ordinal
// options.device: no CUDA call unless options.planning is XPOSE_PLAN_MEASURE.
xpose_status_t cuda_plan_on(const Problem& p, const DeviceInfo& dev,
                            const xpose_options_t& options, const std::string& schema,
                            BackendPlanPtr* plan);

// Each view of a CUDA plan, in the order execute tries them: "align N: SUMMARY (a=A:TA c=C:TC,
// PREDICTED us) on PROBLEM" (summarize(), the tile's runs, the prediction to 6 digits); empty for
// a plan of another backend.
std::vector<std::string> cuda_plan_views(const BackendPlan& plan);

}  // namespace xpose::detail
