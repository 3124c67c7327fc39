// libFuzzer target: execution of accepted small problems on the CPU backend, checked byte for byte
// against the naive reference (tests/reference.hpp) computed from the user's extents, perm and
// layout: plans chosen by the planner, forced schemas with fuzzed tile sides, and xpose_transpose
// through the plan cache; misaligned buffers with guard bytes; any thread count. A rejected forced
// schema, or overlapping buffers, must leave the output untouched. A quarter of the inputs go to
// xpose_plan_create_ex instead (typed.hpp: types, conversions, padded, reversed and broadcast
// strides, scalars), checked against tests/typed_reference.hpp.
#include <string>
#include <vector>

#include "reference.hpp"
#include "small_requests.hpp"
#include "typed.hpp"

using namespace xpose_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const Request r = small_request(in);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    run_typed(in, r);
    return 0;
  }
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CPU;
  o.layout = in.ConsumeBool() ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
  // Mostly 0-3 threads; now and then any count (the CPU backend caps it at 4 per processor).
  o.num_threads = in.ConsumeIntegralInRange<int>(0, 15) > 0 ? in.ConsumeIntegralInRange<int>(0, 3)
                                                            : in.ConsumeIntegralInRange<int>(0, INT32_MAX);
  const int mode = in.ConsumeIntegralInRange<int>(0, 2);  // 0 planned, 1 forced, 2 xpose_transpose
  std::string schema = hostile_schema(
      in, {"copy", "direct", "super", "matrix", "blocked", "cells"}, {"ti", "to", "nt"});
  const std::vector<int64_t> extents(r.extents.begin(), r.extents.begin() + r.rank);
  const std::vector<int> perm(r.perm.begin(), r.perm.begin() + r.rank);
  const int64_t volume = xpose_test::volume_of(extents);
  const size_t bytes = static_cast<size_t>(volume) * r.elem_size;
  xpose_test::GuardedBuffer src(bytes, in.ConsumeIntegralInRange<int>(0, 15)),
      dst(bytes, in.ConsumeIntegralInRange<int>(0, 15)), want(bytes);
  xpose_test::fill_random(src.data(), bytes, in.ConsumeIntegral<uint64_t>());
  xpose_test::reference_transpose(extents, perm, r.elem_size, o.layout, src.data(), want.data());

  xpose_status_t s;
  if (mode == 2) {
    s = xpose_transpose(r.rank, r.extents.data(), r.perm.data(), r.elem_size, src.data(),
                        dst.data(), &o, nullptr);
  } else {
    xpose_plan_t plan = nullptr;
    s = mode == 1 ? xpose_plan_create_forced(&plan, r.rank, r.extents.data(), r.perm.data(),
                                             r.elem_size, &o, schema.c_str())
                  : xpose_plan_create(&plan, r.rank, r.extents.data(), r.perm.data(),
                                      r.elem_size, &o);
    check_status(s);
    if (s == XPOSE_SUCCESS && bytes > 0 && in.ConsumeIntegralInRange<int>(0, 7) == 0) {
      const size_t shift = in.ConsumeIntegralInRange<size_t>(0, bytes - 1);
      check_status(xpose_execute(plan, src.data(), src.data() + shift, nullptr));
      require(xpose_last_error()[0] != '\0', "overlapping buffers are rejected");
    }
    if (s == XPOSE_SUCCESS) {
      s = xpose_execute(plan, src.data(), dst.data(), nullptr);
      check_status(s);
    }
    xpose_plan_destroy(plan);  // clears the message
  }
  if (mode == 2) check_status(s);
  require(dst.guards_intact(), "nothing written outside the output");
  if (s != XPOSE_SUCCESS) {
    require(mode == 1, "only a forced schema may be rejected");
    require(dst.untouched(), "a rejected request leaves the output untouched");
    return 0;
  }
  require(xpose_test::first_mismatch(dst.data(), want.data(), volume, r.elem_size) < 0,
          "the result equals the reference");
  return 0;
}
