// cuTT's C API (include/xpose/cutt.h) over the shared plan table (gpu_plans.hpp).
#include <xpose/cutt.h>

#include "gpu_plans.hpp"

namespace {

using xpose::dropin::GpuResult;
using xpose::dropin::guarded;

static_assert(CUTT_SUCCESS == int(GpuResult::Success) &&
              CUTT_INVALID_PLAN == int(GpuResult::InvalidPlan) &&
              CUTT_INVALID_PARAMETER == int(GpuResult::InvalidParameter) &&
              CUTT_INVALID_DEVICE == int(GpuResult::InvalidDevice) &&
              CUTT_INTERNAL_ERROR == int(GpuResult::Internal) &&
              CUTT_UNDEFINED_ERROR == int(GpuResult::Undefined));

xpose::dropin::GpuPlanTable& table() {
  static xpose::dropin::GpuPlanTable plans;  // cuTT's handles only
  return plans;
}

}  // namespace

extern "C" {

void cuttInitialize(void) {}
void cuttFinalize(void) {}

cuttResult cuttPlan(cuttHandle* handle, int rank, int* dim, int* permutation, size_t sizeofType,
                    cudaStream_t stream) {
  return guarded<cuttResult>([&] {
    return table().plan(handle, rank, dim, permutation, sizeofType, stream, false, nullptr,
                        nullptr);
  });
}

cuttResult cuttPlanMeasure(cuttHandle* handle, int rank, int* dim, int* permutation,
                           size_t sizeofType, cudaStream_t stream, void* idata, void* odata) {
  return guarded<cuttResult>([&] {
    return table().plan(handle, rank, dim, permutation, sizeofType, stream, true, idata, odata);
  });
}

cuttResult cuttDestroy(cuttHandle handle) {
  return guarded<cuttResult>([&] { return table().destroy(handle); });
}

cuttResult cuttExecute(cuttHandle handle, void* idata, void* odata) {
  return guarded<cuttResult>([&] { return table().execute(handle, idata, odata); });
}

}  // extern "C"
