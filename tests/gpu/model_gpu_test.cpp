// The regression model's plumbing on a GPU: the planner knows the device's architecture (so a
// coefficients file can apply) and the calibration path times candidates.
#include <gtest/gtest.h>

#include "core/problem.hpp"
#include "cuda/probe.hpp"
#include "gpu_util.hpp"

using namespace xpose::detail;

TEST(ModelGpu, DeviceInfoKnowsTheArchitecture) {
  XPOSE_REQUIRE_GPU();
  std::string why;
  const DeviceInfo* d = device_info(0, &why);
  ASSERT_NE(d, nullptr) << why;
  int major = 0, minor = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
  EXPECT_EQ(d->arch, 10 * major + minor) << "device_info must fill DeviceInfo::arch";
}

TEST(ModelGpu, ProbeTimesEveryCandidate) {
  XPOSE_REQUIRE_GPU();
  const int64_t ext[4] = {40, 33, 35, 37};
  const int perm[4] = {3, 1, 0, 2};
  Problem p;
  ASSERT_EQ(make_problem(4, ext, perm, 4, XPOSE_COL_MAJOR, &p), XPOSE_SUCCESS);
  Probe probe;
  ASSERT_EQ(cuda_probe(p, 0, &probe), XPOSE_SUCCESS) << xpose_last_error();
  ASSERT_GT(probe.choices.size(), 3u);
  EXPECT_EQ(probe.view, p);  // the leading dimension moves: no fused view
  for (const Choice& c : probe.choices) EXPECT_GT(c.terms.ideal_s, 0) << summarize(p, c);
  const std::vector<Choice> some(probe.choices.begin(), probe.choices.begin() + 3);
  std::vector<double> seconds;
  ASSERT_EQ(cuda_time_choices(*probe.dev, probe.view, some, 3, &seconds), XPOSE_SUCCESS)
      << xpose_last_error();
  ASSERT_EQ(seconds.size(), 3u);
  for (const double s : seconds) {
    EXPECT_GT(s, 1e-7);
    EXPECT_LT(s, 1e-2);
  }
}
