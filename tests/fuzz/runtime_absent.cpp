// The CUDA runtime seam (src/cuda/runtime.hpp, implemented by runtime.cu and the kernel files)
// for the fuzzers' build, which compiles the CUDA backend's host code with clang and no CUDA:
// no device exists, so the planner is reached only through cuda_plan_on with a fake device
// (tests/fake_device.hpp), and anything that would touch a GPU answers XPOSE_ERROR_UNSUPPORTED.
#include "core/backend.hpp"
#include "core/status.hpp"
#include "cuda/runtime.hpp"

namespace xpose::detail {
namespace {
constexpr const char* kNoRuntime = "fuzzer build: the CUDA runtime is not linked";
}

bool cuda_usable(std::string* why) {
  if (why) *why = kNoRuntime;
  return false;
}

xpose_status_t cuda_resolve_device(int, int*) { return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime); }

const DeviceInfo* device_info(int, std::string* why) {
  if (why) *why = kNoRuntime;
  return nullptr;
}

xpose_status_t launch_tiled(const TiledParams&, int, const void*, void*, void*, unsigned,
                            unsigned, unsigned, int) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime);
}

xpose_status_t launch_rows(const RowParams&, int, const void*, void*, void*, unsigned) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime);
}

xpose_status_t launch_narrow(const NarrowParams&, int, const void*, void*, void*, unsigned, int) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime);
}

xpose_status_t launch_narrow2d(const Narrow2dParams&, int, const void*, void*, void*, unsigned) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime);
}

xpose_status_t launch_wide2d(const Narrow2dParams&, int, int, const void*, void*, void*,
                             unsigned) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime);
}

xpose_status_t launch_thin2d(const Narrow2dParams&, int, const void*, void*, void*, unsigned,
                             unsigned) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime);
}

xpose_status_t launch_cells(const CellParams&, int, const void*, void*, void*, unsigned) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime);
}

xpose_status_t launch_direct(const DirectParams&, int, int, const void*, void*, void*, unsigned) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime);
}

xpose_status_t launch_general(const GeneralParams&, const void*, void*, void*, unsigned) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime);
}

void tiled_kernel_regs(int regs[5]) {
  for (int k = 0; k < 5; ++k) regs[k] = 0;
}

int narrow_kernel_setup(int) { return 0; }

DeviceGuard::DeviceGuard(int) : status_(fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime)) {}
DeviceGuard::~DeviceGuard() = default;

xpose_status_t time_runs(int, Scratch, Scratch, const std::vector<TimedRun>&, int,
                         std::vector<double>*) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime);
}

xpose_status_t cuda_transpose_inplace(const InplaceRequest&, const xpose_options_t&, void*,
                                      void*) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoRuntime);
}

}  // namespace xpose::detail
