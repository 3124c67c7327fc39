// LibreTT's API (include/xpose/librett.h) over the shared plan table (gpu_plans.hpp).
#include <xpose/librett.h>

#include "gpu_plans.hpp"

namespace {

using xpose::dropin::GpuResult;
using xpose::dropin::guarded;

static_assert(LIBRETT_SUCCESS == int(GpuResult::Success) &&
              LIBRETT_INVALID_PLAN == int(GpuResult::InvalidPlan) &&
              LIBRETT_INVALID_PARAMETER == int(GpuResult::InvalidParameter) &&
              LIBRETT_INVALID_DEVICE == int(GpuResult::InvalidDevice) &&
              LIBRETT_INTERNAL_ERROR == int(GpuResult::Internal) &&
              LIBRETT_UNDEFINED_ERROR == int(GpuResult::Undefined));

xpose::dropin::GpuPlanTable& table() {
  static xpose::dropin::GpuPlanTable plans;  // LibreTT's handles only
  return plans;
}

}  // namespace

extern "C" {

void librettInitialize(void) {}
void librettFinalize(void) {}

librettResult librettPlan(librettHandle* handle, int rank, int* dim, int* permutation,
                          size_t sizeofType, librett_gpuStream_t stream) {
  return guarded<librettResult>([&] {
    return table().plan(handle, rank, dim, permutation, sizeofType, stream, false, nullptr,
                        nullptr);
  });
}

librettResult librettPlanMeasure(librettHandle* handle, int rank, int* dim, int* permutation,
                                 size_t sizeofType, librett_gpuStream_t stream, void* idata,
                                 void* odata) {
  return guarded<librettResult>([&] {
    return table().plan(handle, rank, dim, permutation, sizeofType, stream, true, idata, odata);
  });
}

librettResult librettDestroy(librettHandle handle) {
  return guarded<librettResult>([&] { return table().destroy(handle); });
}

librettResult librettExecute(librettHandle handle, void* idata, void* odata) {
  return guarded<librettResult>([&] { return table().execute(handle, idata, odata); });
}

}  // extern "C"
