// The plan value behind xpose_plan_t and the thread-safe plan cache behind xpose_transpose.
#pragma once

#include <string>

#include "core/backend.hpp"
#include "core/problem.hpp"

namespace xpose::detail {

struct Plan {
  Problem problem;
  xpose_options_t options{};  // resolved: backend is CPU or CUDA, device an ordinal (CUDA)
  BackendPlanPtr impl;        // null for an empty tensor: nothing to do

  xpose_status_t execute(const void* in, void* out, void* stream) const;
  // The backend model's predicted seconds of one execute (0 for an empty tensor).
  xpose_status_t predict(double* seconds) const;
  std::string describe() const;
  // describe() with its first line what execute runs for these pointers (BackendPlan::runs_for).
  std::string describe_for(const void* in, const void* out) const;
};

// Validates, normalizes, chooses the backend and plans. `schema` (NULL or "" = the planner's
// choice) forces a schema. Plans are taken from (or added to) the process-wide cache when
// `use_cache`; forced plans are never cached. `desc`: xpose_plan_create_ex's (NULL = dense,
// opaque elements).
xpose_status_t make_plan(int rank, const int64_t* extents, const int* perm, size_t elem_size,
                         const xpose_options_t* options, const char* schema, bool use_cache,
                         Plan* out, const xpose_desc_t* desc = nullptr);

// The plan of an xpose_transpose or xpose_predict request: make_plan's with the cache, through
// a per-thread memo of the last kCallMemo requests as the caller passed them (a repeated request
// skips validation, normalization and the cache's hash, lock and copies). `*out` stays valid
// until this thread's next call.
inline constexpr int kCallMemo = 4;
xpose_status_t call_plan(int rank, const int64_t* extents, const int* perm, size_t elem_size,
                         const xpose_options_t* options, const Plan** out);

// The candidates the chosen backend's planner considers for this request (`xpose explain`);
// `measure_all` times every one of them.
xpose_status_t plan_candidates(int rank, const int64_t* extents, const int* perm,
                               size_t elem_size, const xpose_options_t* options, bool measure_all,
                               Plan* plan, std::vector<Candidate>* candidates,
                               const xpose_desc_t* desc = nullptr);

// Resolves options->backend: AUTO becomes CUDA when a device is usable (decided once per
// process), else the CPU; CUDA without a usable device is XPOSE_ERROR_UNSUPPORTED with the reason;
// for CUDA, options->device becomes an ordinal.
xpose_status_t choose_backend(xpose_options_t* options);

// Number of plans in the cache (tests and diagnostics).
size_t plan_cache_size();

}  // namespace xpose::detail

struct xpose_plan_s {
  xpose::detail::Plan plan;
};
