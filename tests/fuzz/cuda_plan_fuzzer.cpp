// libFuzzer target: the CUDA backend's planner on a fake H100 (tests/fake_device.hpp), without a
// GPU or CUDA headers: make_problem (or make_problem_ex with a hostile descriptor: types,
// strides, scalars), then cuda_plan_on (views, candidates, the analytic and
// regression cost models, parameter blocks) with hostile extents and forced schema text, then
// the plan's description, prediction and views. Measure planning reaches the device-less runtime
// (runtime_absent.cpp) and must fail cleanly.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/problem.hpp"
#include "core/status.hpp"
#include "cuda/host_plan.hpp"
#include "fake_device.hpp"
#include "hostile_args.hpp"

using namespace xpose::detail;
using namespace xpose_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const DeviceInfo dev = xpose_test::fake_h100();
  FuzzedDataProvider in(data, size);
  const Request r = hostile_request(in);
  const xpose_layout_t layout = in.ConsumeBool() ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CUDA;
  o.device = 0;
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) o.planning = XPOSE_PLAN_MEASURE;
  const std::string schema =
      in.ConsumeBool() ? ""
                       : hostile_schema(in,
                                        {"copy", "rows", "tiledcopy", "fvi-match-large",
                                         "fvi-small", "tiled", "packed", "packed-split",
                                         "orthogonal-arbitrary"},
                                        {"threads", "in", "out", "stages", "band"});

  const Desc desc = hostile_desc(in, r);
  const bool ex = in.ConsumeBool();

  clear_error();
  Problem p;
  const xpose_status_t s =
      ex ? make_problem_ex(r.rank, r.extents_ptr(), r.perm_ptr(), r.elem_size, desc.get(),
                           layout, &p)
         : make_problem(r.rank, r.extents_ptr(), r.perm_ptr(), r.elem_size, layout, &p);
  check_status(s);
  if (s != XPOSE_SUCCESS || p.volume == 0) return 0;
  if (std::getenv("XPOSE_FUZZ_DEBUG"))
    std::fprintf(stderr, "problem %s, elem %zu -> %zu\n", p.to_string().c_str(), p.elem_size,
                 p.out_elem());
  BackendPlanPtr plan;
  clear_error();
  const xpose_status_t ps = cuda_plan_on(p, dev, o, schema, &plan);
  check_status(ps);
  if (ps != XPOSE_SUCCESS) {
    require(ps != XPOSE_ERROR_DEVICE, "no device error without a device");
    return 0;
  }
  require(plan != nullptr, "a plan on success");
  const double seconds = plan->predicted_seconds();
  require(std::isfinite(seconds) && seconds > 0, "a positive prediction");
  require(!plan->describe().empty(), "a description");
  const std::vector<PlanView> views = cuda_plan_views(*plan);
  require(!views.empty(), "at least one view");
  for (const PlanView& v : views)
    require(v.problem.volume * static_cast<int64_t>(v.problem.elem_size) == p.bytes(),
            "every view moves the problem's bytes");
  return 0;
}
