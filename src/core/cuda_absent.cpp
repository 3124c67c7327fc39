// The CUDA entry points of a build made without a CUDA compiler: every request for the CUDA
// backend is answered XPOSE_ERROR_UNSUPPORTED, and AUTO chooses the CPU.
#include "core/backend.hpp"
#include "core/status.hpp"

namespace xpose::detail {

namespace {
constexpr const char* kNoCuda = "the CUDA backend was not built (no CUDA compiler at configure time)";
}

bool cuda_usable(std::string* why) {
  if (why) *why = kNoCuda;
  return false;
}

xpose_status_t cuda_resolve_device(int, int*) { return fail(XPOSE_ERROR_UNSUPPORTED, kNoCuda); }

xpose_status_t cuda_make_plan(const Problem&, const xpose_options_t&, const std::string&,
                              BackendPlanPtr*) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoCuda);
}

xpose_status_t cuda_candidates(const Problem&, const xpose_options_t&, bool,
                               std::vector<Candidate>*) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoCuda);
}

xpose_status_t cuda_transpose_inplace(const InplaceRequest&, const xpose_options_t&, void*, void*) {
  return fail(XPOSE_ERROR_UNSUPPORTED, kNoCuda);
}

}  // namespace xpose::detail
