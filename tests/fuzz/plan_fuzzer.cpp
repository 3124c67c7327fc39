// libFuzzer target: plan creation on the CPU backend with hostile arguments, through the C API
// (xpose_plan_create, xpose_plan_create_ex with a hostile descriptor, xpose_plan_create_forced
// with any schema text, xpose_predict,
// xpose_plan_predict, xpose_plan_describe, xpose_plan_destroy). Nothing is executed. A finding
// is a sanitizer report, a crash, or a broken promise of API.md (check_status).
#include <cmath>
#include <cstring>
#include <string>

#include "hostile_args.hpp"

using namespace xpose_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const Request r = hostile_request(in);
  xpose_options_t o =
      hostile_options(in, in.ConsumeBool() ? XPOSE_BACKEND_CPU : XPOSE_BACKEND_AUTO);
  // Measure planning runs the candidates on scratch buffers of the tensor's size: kept to small
  // tensors, so that the fuzzer plans rather than transposes gigabytes.
  // The field may hold any int: read as one, since loading an out-of-range enum is undefined.
  int planning;
  std::memcpy(&planning, &o.planning, sizeof planning);
  if (planning == XPOSE_PLAN_MEASURE && !volume_at_most(r, 1 << 16))
    o.planning = XPOSE_PLAN_HEURISTIC;
  const bool use_options = in.ConsumeIntegralInRange<int>(0, 15) > 0;
  const int mode = in.ConsumeIntegralInRange<int>(0, 5);  // 0 forced, 1-2 ex, else plain
  const bool forced = mode == 0, ex = mode == 1 || mode == 2;
  const std::string schema = hostile_schema(
      in, {"copy", "direct", "super", "matrix", "blocked", "cells"}, {"ti", "to", "nt"});
  const Desc desc = hostile_desc(in, r);

  xpose_plan_t plan = nullptr;
  const xpose_status_t s =
      forced ? xpose_plan_create_forced(&plan, r.rank, r.extents_ptr(), r.perm_ptr(), r.elem_size,
                                        use_options ? &o : nullptr, schema.c_str())
      : ex   ? xpose_plan_create_ex(&plan, r.rank, r.extents_ptr(), r.perm_ptr(), r.elem_size,
                                    desc.get(), use_options ? &o : nullptr)
             : xpose_plan_create(&plan, r.rank, r.extents_ptr(), r.perm_ptr(), r.elem_size,
                                 use_options ? &o : nullptr);
  check_status(s);
  require((s == XPOSE_SUCCESS) == (plan != nullptr), "a plan exactly when creation succeeded");

  double predicted = -1;
  const xpose_status_t ps = xpose_predict(r.rank, r.extents_ptr(), r.perm_ptr(), r.elem_size,
                                          use_options ? &o : nullptr, &predicted);
  check_status(ps);
  if (ps == XPOSE_SUCCESS) require(std::isfinite(predicted) && predicted >= 0, "predict >= 0");
  if (!forced && !ex)
    require((ps == XPOSE_SUCCESS) == (s == XPOSE_SUCCESS), "predict plans alike");
  if (plan == nullptr) return 0;

  double seconds = -1;
  check_status(xpose_plan_predict(plan, &seconds));
  require(std::isfinite(seconds) && seconds >= 0, "plan_predict >= 0");
  char text[64];
  const size_t n = xpose_plan_describe(plan, text, in.ConsumeIntegralInRange<size_t>(0, sizeof text));
  require(n > 0, "a description");
  check_status(xpose_plan_destroy(plan));
  return 0;
}
