// The cuTT and LibreTT interfaces' common part: a thread-safe table of plans by handle, over the
// public C API (xpose.h) and the CUDA runtime. Each interface keeps its own table and maps
// GpuResult onto its result codes (cutt.cpp, librett.cpp), so the two never see each other's
// handles.
#pragma once

#include <cuda_runtime.h>

#include <xpose/xpose.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace xpose::dropin {

// cuTT's and LibreTT's result codes, by meaning and in their order (each interface checks that
// its enum matches, so a cast maps one onto the other).
enum class GpuResult { Success, InvalidPlan, InvalidParameter, InvalidDevice, Internal, Undefined };

// f() as an interface's result code; exceptions (std::bad_alloc) never cross the C API.
template <class Result, class F>
Result guarded(F&& f) noexcept {
  try {
    return static_cast<Result>(f());
  } catch (...) {
    return static_cast<Result>(GpuResult::Internal);
  }
}

// A plan as the interfaces see it: xpose's plan, the stream bound at plan time and the device
// that was current then (cuTT returns INVALID_DEVICE when another one is current at execute).
struct GpuPlan {
  xpose_plan_t plan = nullptr;
  cudaStream_t stream = nullptr;
  int device = -1;

  GpuPlan() = default;
  GpuPlan(const GpuPlan&) = delete;
  GpuPlan& operator=(const GpuPlan&) = delete;
  ~GpuPlan() { xpose_plan_destroy(plan); }
};

class GpuPlanTable {
 public:
  // Plans rank/dim/permutation/sizeofType as cuTT's cuttPlan (measure: cuttPlanMeasure, whose
  // idata and odata must differ) and stores it under a fresh nonzero handle.
  GpuResult plan(unsigned* handle, int rank, const int* dim, const int* permutation,
                 size_t elem_size, cudaStream_t stream, bool measure, const void* idata,
                 const void* odata);
  // Enqueues the plan on its stream; destroy() of the same handle meanwhile is safe (the plan
  // lives until both are done, and xpose plans own no device memory).
  GpuResult execute(unsigned handle, const void* idata, void* odata);
  GpuResult destroy(unsigned handle);

 private:
  std::shared_ptr<const GpuPlan> find(unsigned handle);

  std::mutex mutex_;  // guards plans_ and next_
  std::unordered_map<unsigned, std::shared_ptr<const GpuPlan>> plans_;
  unsigned next_ = 1;
};

}  // namespace xpose::dropin
