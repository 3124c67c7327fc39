// The C API: argument checks, exception barrier, status mapping. Nothing here knows a backend.
#include <cstring>
#include <memory>

#include "core/plan.hpp"
#include "core/status.hpp"
#include "xpose/xpose.h"

using namespace xpose::detail;


extern "C" {

void xpose_options_init(xpose_options_t* options) {
  if (options == nullptr) return;
  options->backend = XPOSE_BACKEND_AUTO;
  options->layout = XPOSE_COL_MAJOR;
  options->planning = XPOSE_PLAN_HEURISTIC;
  options->num_threads = 0;
  options->device = -1;
}

xpose_status_t xpose_plan_create(xpose_plan_t* plan, int rank, const int64_t* extents,
                                 const int* perm, size_t elem_size,
                                 const xpose_options_t* options) {
  return xpose_plan_create_ex(plan, rank, extents, perm, elem_size, nullptr, options);
}

void xpose_desc_init(xpose_desc_t* desc) {
  if (desc == nullptr) return;
  *desc = xpose_desc_t{};
  desc->struct_size = sizeof(xpose_desc_t);
  desc->in_type = XPOSE_TYPE_BYTES;
  desc->out_type = XPOSE_TYPE_BYTES;
  desc->alpha[0] = 1;
}

xpose_status_t xpose_plan_create_ex(xpose_plan_t* plan, int rank, const int64_t* extents,
                                    const int* perm, size_t elem_size, const xpose_desc_t* desc,
                                    const xpose_options_t* options) {
  return guarded([&] {
    if (plan == nullptr) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "plan is NULL");
    *plan = nullptr;
    auto p = std::make_unique<xpose_plan_s>();
    XPOSE_TRY(make_plan(rank, extents, perm, elem_size, options, nullptr, /*use_cache=*/true,
                        &p->plan, desc));
    *plan = p.release();
    return XPOSE_SUCCESS;
  });
}

xpose_status_t xpose_plan_create_forced(xpose_plan_t* plan, int rank, const int64_t* extents,
                                        const int* perm, size_t elem_size,
                                        const xpose_options_t* options, const char* schema) {
  return guarded([&] {
    if (plan == nullptr) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "plan is NULL");
    *plan = nullptr;
    if (schema == nullptr) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "schema is NULL");
    auto p = std::make_unique<xpose_plan_s>();
    XPOSE_TRY(make_plan(rank, extents, perm, elem_size, options, schema, /*use_cache=*/false,
                        &p->plan));
    *plan = p.release();
    return XPOSE_SUCCESS;
  });
}

xpose_status_t xpose_execute(xpose_plan_t plan, const void* in, void* out, void* stream) {
  return guarded([&] {
    if (plan == nullptr) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "plan is NULL");
    return plan->plan.execute(in, out, stream);
  });
}

xpose_status_t xpose_plan_destroy(xpose_plan_t plan) {
  return guarded([&] {
    delete plan;
    return XPOSE_SUCCESS;
  });
}

xpose_status_t xpose_transpose(int rank, const int64_t* extents, const int* perm,
                               size_t elem_size, const void* in, void* out,
                               const xpose_options_t* options, void* stream) {
  return guarded([&] {
    const Plan* p = nullptr;
    XPOSE_TRY(call_plan(rank, extents, perm, elem_size, options, &p));
    return p->execute(in, out, stream);
  });
}

xpose_status_t xpose_predict(int rank, const int64_t* extents, const int* perm,
                             size_t elem_size, const xpose_options_t* options, double* seconds) {
  return guarded([&] {
    if (seconds == nullptr) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "seconds is NULL");
    const Plan* p = nullptr;
    XPOSE_TRY(call_plan(rank, extents, perm, elem_size, options, &p));
    return p->predict(seconds);
  });
}

xpose_status_t xpose_plan_predict(xpose_plan_t plan, double* seconds) {
  return guarded([&] {
    if (plan == nullptr) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "plan is NULL");
    return plan->plan.predict(seconds);
  });
}

const char* xpose_status_string(xpose_status_t status) {
  switch (status) {
    case XPOSE_SUCCESS: return "success";
    case XPOSE_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case XPOSE_ERROR_UNSUPPORTED: return "unsupported";
    case XPOSE_ERROR_OUT_OF_MEMORY: return "out of memory";
    case XPOSE_ERROR_DEVICE: return "device error";
    case XPOSE_ERROR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

const char* xpose_last_error(void) { return last_error(); }

size_t xpose_plan_describe(xpose_plan_t plan, char* buffer, size_t size) {
  std::string text;
  if (guarded([&] {
        if (plan == nullptr) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "plan is NULL");
        text = plan->plan.describe();
        return XPOSE_SUCCESS;
      }) != XPOSE_SUCCESS)
    text.clear();
  if (buffer != nullptr && size > 0) {
    const size_t n = text.size() < size - 1 ? text.size() : size - 1;
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return text.size();
}

}  // extern "C"
