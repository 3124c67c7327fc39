// Large tensors (above 2^31 elements, above 4 GiB), one plan on two streams at once, and plan
// creation time. Data is generated and checked on the device: element i of the input holds a
// hash of i; every output element is checked against the hash of its input index.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "device_check.cuh"
#include "gpu_util.hpp"

using namespace xpose_test;

namespace {

template <class T>
void run_large(const Shape& s, uint64_t salt) {
  const int64_t n = s.volume();
  const size_t bytes = static_cast<size_t>(n) * sizeof(T);
  if (!device_has(2 * bytes)) GTEST_SKIP() << "not enough device memory";
  T *in = nullptr, *out = nullptr;
  ASSERT_EQ(cudaMalloc(&in, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, bytes + kGuard), cudaSuccess);
  cudaMemset(out, kPoison, bytes + kGuard);
  fill_on_device(in, s, salt);
  xpose_options_t o = cuda_options();
  xpose_plan_t plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, s.rank, s.ext, s.perm, sizeof(T), &o), XPOSE_SUCCESS)
      << xpose_last_error();
  char desc[2048];
  xpose_plan_describe(plan, desc, sizeof desc);
  std::printf("%s", desc);
  ASSERT_EQ(xpose_execute(plan, in, out, nullptr), XPOSE_SUCCESS) << xpose_last_error();
  EXPECT_EQ(mismatches_on_device(out, s, salt), 0u);
  EXPECT_TRUE(guard_intact(reinterpret_cast<uint8_t*>(out) + bytes, kGuard, kPoison));
  xpose_plan_destroy(plan);
  cudaFree(in);
  cudaFree(out);
}

TEST(CudaLarge, Above2Pow31Elements1Byte) {
  XPOSE_REQUIRE_GPU();
  const Shape s{2, {46341, 46343}, {1, 0}};  // 2147581563 elements > 2^31
  run_large<uint8_t>(s, test_seed("Above2Pow31Elements1Byte"));
}

TEST(CudaLarge, Above4GiB8Byte) {
  XPOSE_REQUIRE_GPU();
  const Shape s{3, {1201, 1003, 500}, {2, 0, 1}};  // 4.8 GB each way
  run_large<unsigned long long>(s, test_seed("Above4GiB8Byte"));
}

TEST(CudaLarge, Above2Pow31ElementsRows2Byte) {
  XPOSE_REQUIRE_GPU();
  const Shape s{3, {70001, 2, 15373}, {0, 2, 1}};  // 2.15e9 elements, rows kernel
  run_large<uint16_t>(s, test_seed("Above2Pow31ElementsRows2Byte"));
}

TEST(CudaConcurrency, OnePlanTwoStreams) {
  XPOSE_REQUIRE_GPU();
  const uint64_t salt = test_seed("OnePlanTwoStreams");
  const Shape s{3, {301, 257, 129}, {2, 0, 1}};
  const int64_t n = 301LL * 257 * 129;
  uint32_t* buf[4];
  for (auto& b : buf) ASSERT_EQ(cudaMalloc(&b, n * 4), cudaSuccess);
  fill_on_device(buf[0], s, salt);
  fill_on_device(buf[1], s, salt ^ 7);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  xpose_options_t o = cuda_options();
  xpose_plan_t plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, s.rank, s.ext, s.perm, 4, &o), XPOSE_SUCCESS);
  cudaStream_t st[2];
  for (auto& x : st) cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
  for (int rep = 0; rep < 20; ++rep)
    for (int k = 0; k < 2; ++k)
      ASSERT_EQ(xpose_execute(plan, buf[k], buf[2 + k], st[k]), XPOSE_SUCCESS);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(mismatches_on_device(buf[2], s, salt), 0u);
  EXPECT_EQ(mismatches_on_device(buf[3], s, salt ^ 7), 0u);
  for (auto& x : st) cudaStreamDestroy(x);
  for (auto& b : buf) cudaFree(b);
  xpose_plan_destroy(plan);
}

// Heuristic plan creation in a warm process: every shape distinct, so the cache never answers.
TEST(CudaPlanning, PlanCreationMedianUnder50us) {
  XPOSE_REQUIRE_GPU();
  xpose_options_t o = cuda_options();
  xpose_plan_t plan = nullptr;
  const int64_t warm[2] = {5, 7};
  const int wp[2] = {1, 0};
  ASSERT_EQ(xpose_plan_create(&plan, 2, warm, wp, 8, &o), XPOSE_SUCCESS);
  xpose_plan_destroy(plan);
  std::vector<double> us;
  for (int i = 0; i < 400; ++i) {
    const int64_t ext[8] = {5 + i % 7, 3, 2 + i / 7 % 5, 4, 35, 33, 37 + i / 35, 40};
    const int perm[8] = {7, 2, 5, 0, 3, 1, 6, 4};
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(xpose_plan_create(&plan, 8, ext, perm, 8, &o), XPOSE_SUCCESS);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                     .count());
    xpose_plan_destroy(plan);
  }
  std::sort(us.begin(), us.end());
  std::printf("plan creation rank 8: median %.1f us, p90 %.1f us\n", us[us.size() / 2],
              us[us.size() * 9 / 10]);
  EXPECT_LE(us[us.size() / 2], 50.0);
}

TEST(CudaPlanning, MeasureModeChoosesAndRuns) {
  XPOSE_REQUIRE_GPU();
  const int64_t ext[3] = {64, 48, 100};
  const int perm[3] = {2, 0, 1};
  xpose_options_t o = cuda_options();
  o.planning = XPOSE_PLAN_MEASURE;
  xpose_plan_t plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, 3, ext, perm, 8, &o), XPOSE_SUCCESS) << xpose_last_error();
  char desc[4096];
  xpose_plan_describe(plan, desc, sizeof desc);
  std::printf("%s", desc);
  EXPECT_NE(std::string(desc).find("measured"), std::string::npos);
  xpose_plan_destroy(plan);
}

}  // namespace
