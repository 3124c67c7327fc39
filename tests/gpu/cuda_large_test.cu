// Large tensors (above 2^31 elements, above 4 GiB), one plan on two streams at once, and plan
// creation time. Data is generated and checked on the device: element i of the input holds a
// hash of i; every output element is checked against the hash of its input index.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "gpu_util.hpp"

using namespace xpose_test;

namespace {

__host__ __device__ inline uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  return x | 1;  // never zero
}

struct Shape {
  int rank;
  int64_t ext[4];
  int perm[4];
};

template <class T>
__global__ void fill(T* in, int64_t n, uint64_t salt) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x)
    in[i] = static_cast<T>(mix(static_cast<uint64_t>(i) ^ salt));
}

// Column-major: output index j has coordinates over the output extents; input dim perm[i] has
// coordinate o_i.
template <class T>
__global__ void check(const T* out, Shape s, int64_t n, uint64_t salt,
                      unsigned long long* bad) {
  int64_t s_in[4];
  int64_t v = 1;
  for (int k = 0; k < s.rank; ++k) s_in[k] = v, v *= s.ext[k];
  unsigned long long local = 0;
  for (int64_t j = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; j < n;
       j += int64_t{gridDim.x} * blockDim.x) {
    int64_t rest = j, i = 0;
    for (int d = 0; d < s.rank; ++d) {
      const int64_t e = s.ext[s.perm[d]];
      i += (rest % e) * s_in[s.perm[d]];
      rest /= e;
    }
    local += out[j] != static_cast<T>(mix(static_cast<uint64_t>(i) ^ salt));
  }
  if (local) atomicAdd(bad, local);
}

template <class T>
void run_large(const Shape& s, uint64_t salt) {
  int64_t n = 1;
  for (int k = 0; k < s.rank; ++k) n *= s.ext[k];
  const size_t bytes = static_cast<size_t>(n) * sizeof(T);
  size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  if (free_b < 2 * bytes + (size_t{1} << 28)) GTEST_SKIP() << "not enough device memory";
  T *in = nullptr, *out = nullptr;
  ASSERT_EQ(cudaMalloc(&in, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, bytes + kGuard), cudaSuccess);
  unsigned long long* bad = nullptr;
  ASSERT_EQ(cudaMalloc(&bad, sizeof *bad), cudaSuccess);
  cudaMemset(bad, 0, sizeof *bad);
  cudaMemset(out, kPoison, bytes + kGuard);
  fill<<<4096, 256>>>(in, n, salt);
  xpose_options_t o = cuda_options();
  xpose_plan_t plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, s.rank, s.ext, s.perm, sizeof(T), &o), XPOSE_SUCCESS)
      << xpose_last_error();
  char desc[2048];
  xpose_plan_describe(plan, desc, sizeof desc);
  std::printf("%s", desc);
  ASSERT_EQ(xpose_execute(plan, in, out, nullptr), XPOSE_SUCCESS) << xpose_last_error();
  check<<<4096, 256>>>(out, s, n, salt, bad);
  unsigned long long nbad = 0;
  uint8_t guard[kGuard];
  ASSERT_EQ(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(guard, reinterpret_cast<uint8_t*>(out) + bytes, kGuard,
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(nbad, 0u);
  for (uint8_t g : guard) EXPECT_EQ(g, kPoison);
  xpose_plan_destroy(plan);
  cudaFree(in);
  cudaFree(out);
  cudaFree(bad);
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
  fill<<<1024, 256>>>(buf[0], n, salt);
  fill<<<1024, 256>>>(buf[1], n, salt ^ 7);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  xpose_options_t o = cuda_options();
  xpose_plan_t plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, s.rank, s.ext, s.perm, 4, &o), XPOSE_SUCCESS);
  cudaStream_t st[2];
  for (auto& x : st) cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
  for (int rep = 0; rep < 20; ++rep)
    for (int k = 0; k < 2; ++k)
      ASSERT_EQ(xpose_execute(plan, buf[k], buf[2 + k], st[k]), XPOSE_SUCCESS);
  unsigned long long* bad = nullptr;
  cudaMalloc(&bad, sizeof *bad);
  cudaMemset(bad, 0, sizeof *bad);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  check<<<1024, 256>>>(buf[2], s, n, salt, bad);
  check<<<1024, 256>>>(buf[3], s, n, salt ^ 7, bad);
  unsigned long long nbad = 1;
  cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost);
  EXPECT_EQ(nbad, 0u);
  for (auto& x : st) cudaStreamDestroy(x);
  for (auto& b : buf) cudaFree(b);
  cudaFree(bad);
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
