// A DeviceInfo with H100 SXM figures, so that the CUDA planner and its cost models run without a
// GPU: in the CPU tests (CI) and in the host-only planner tests of tests/gpu.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "core/problem.hpp"
#include "cuda/runtime.hpp"

namespace xpose_test {

inline xpose::detail::DeviceInfo fake_h100() {
  xpose::detail::DeviceInfo d;
  d.name = "H100 (model)";
  d.arch = 90;
  d.sms = 132;
  d.l2_bytes = 50 << 20;
  d.smem_per_block = 48 << 10;
  d.smem_per_sm = 228 << 10;
  d.regs_per_sm = 65536;
  d.max_threads_per_sm = 2048;
  d.clock_hz = 1.755e9;
  d.dram_bytes_per_s = 3.35e12;
  for (int& r : d.tiled_regs) r = 64;
  d.narrow_regs = 80;
  d.narrow_four_regs = 64;
  return d;
}

// The normalized column-major problem of a request (the request must be valid).
inline xpose::detail::Problem problem(const std::vector<int64_t>& ext, const std::vector<int>& perm,
                                      size_t es) {
  xpose::detail::Problem p;
  EXPECT_EQ(xpose::detail::make_problem(static_cast<int>(ext.size()), ext.data(), perm.data(), es,
                                        XPOSE_COL_MAJOR, &p),
            XPOSE_SUCCESS);
  return p;
}

}  // namespace xpose_test
