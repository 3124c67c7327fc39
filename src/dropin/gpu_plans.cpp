// GpuPlanTable (gpu_plans.hpp): cuTT's semantics over xpose_plan_create / xpose_execute.
#include "gpu_plans.hpp"

#include <vector>

namespace xpose::dropin {
namespace {

GpuResult from_status(xpose_status_t s) {
  switch (s) {
    case XPOSE_SUCCESS: return GpuResult::Success;
    case XPOSE_ERROR_INVALID_ARGUMENT: return GpuResult::InvalidParameter;
    // No usable device (UNSUPPORTED) is not the caller's parameters: cuTT would fail inside CUDA.
    case XPOSE_ERROR_UNSUPPORTED:
    case XPOSE_ERROR_OUT_OF_MEMORY:
    case XPOSE_ERROR_DEVICE:
    case XPOSE_ERROR_INTERNAL: return GpuResult::Internal;
  }
  return GpuResult::Undefined;
}

// cuTT's int extents as xpose's; out-of-range ranks and NULL dims stay for xpose to name.
std::vector<int64_t> extents_of(int rank, const int* dim) {
  std::vector<int64_t> extents;
  if (dim != nullptr && rank > 0 && rank <= XPOSE_MAX_RANK) extents.assign(dim, dim + rank);
  return extents;
}

}  // namespace

GpuResult GpuPlanTable::plan(unsigned* handle, int rank, const int* dim, const int* permutation,
                             size_t elem_size, cudaStream_t stream, bool measure,
                             const void* idata, const void* odata) {
  if (handle == nullptr || (measure && idata == odata)) return GpuResult::InvalidParameter;
  const std::vector<int64_t> extents = extents_of(rank, dim);
  xpose_options_t options;
  xpose_options_init(&options);
  options.backend = XPOSE_BACKEND_CUDA;
  options.device = -1;  // the current device, resolved by xpose at plan time
  options.planning = measure ? XPOSE_PLAN_MEASURE : XPOSE_PLAN_HEURISTIC;
  auto made = std::make_shared<GpuPlan>();
  made->stream = stream;
  const int64_t* ext = extents.empty() ? nullptr : extents.data();
  const xpose_status_t s =
      xpose_plan_create(&made->plan, rank, ext, permutation, elem_size, &options);
  if (s != XPOSE_SUCCESS) return from_status(s);
  if (cudaGetDevice(&made->device) != cudaSuccess) return GpuResult::Internal;
  std::lock_guard lock(mutex_);
  while (next_ == 0 || plans_.count(next_) != 0) ++next_;  // 0 is never a handle
  *handle = next_++;
  plans_.emplace(*handle, std::move(made));
  return GpuResult::Success;
}

std::shared_ptr<const GpuPlan> GpuPlanTable::find(unsigned handle) {
  std::lock_guard lock(mutex_);
  const auto it = plans_.find(handle);
  return it == plans_.end() ? nullptr : it->second;
}

GpuResult GpuPlanTable::execute(unsigned handle, const void* idata, void* odata) {
  const std::shared_ptr<const GpuPlan> p = find(handle);
  if (!p) return GpuResult::InvalidPlan;
  if (idata == odata) return GpuResult::InvalidParameter;
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) return GpuResult::Internal;
  if (device != p->device) return GpuResult::InvalidDevice;
  return from_status(xpose_execute(p->plan, idata, odata, p->stream));
}

GpuResult GpuPlanTable::destroy(unsigned handle) {
  std::shared_ptr<const GpuPlan> p;  // released after the lock, outside it
  {
    std::lock_guard lock(mutex_);
    const auto it = plans_.find(handle);
    if (it == plans_.end()) return GpuResult::InvalidPlan;
    p = std::move(it->second);
    plans_.erase(it);
  }
  return GpuResult::Success;
}

}  // namespace xpose::dropin
