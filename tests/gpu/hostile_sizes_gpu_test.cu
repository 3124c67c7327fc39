// Hostile sizes on the GPU (issue 17): a tensor just above 2^32 elements and tensors above 8 GiB,
// through the planner's choice and every CUDA schema that can be forced on them, in place
// included, each result checked on the device (device_check.cuh) with guard bytes after the
// output; measure planning without the device memory for its scratch is
// XPOSE_ERROR_OUT_OF_MEMORY. Each test skips when the device lacks the memory; on an H100 each
// takes seconds.
#include <gtest/gtest.h>

#include <string>

#include "device_check.cuh"
#include "gpu_util.hpp"
#include "inplace/inplace.hpp"

using namespace xpose_test;

namespace {

// The schema names xpose_plan_create_forced takes on CUDA (docs/cuda.md); "" is the planner's.
const char* const kSchemas[] = {"", "copy", "rows", "fvi-small", "tiled", "packed", "packed-split"};

template <class T>
struct Device {
  T* p = nullptr;
  explicit Device(size_t bytes) { EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess); }
  ~Device() { cudaFree(p); }
};

std::string name(const Shape& s, size_t es, xpose_layout_t layout) {
  std::string t = "extents (";
  for (int k = 0; k < s.rank; ++k) t += std::to_string(s.ext[k]) + (k + 1 < s.rank ? "," : "");
  t += ") perm (";
  for (int k = 0; k < s.rank; ++k) t += std::to_string(s.perm[k]) + (k + 1 < s.rank ? "," : "");
  return t + ") " + std::to_string(es) + " B" + (layout == XPOSE_ROW_MAJOR ? " row-major" : "");
}

// Runs `s` (in `layout`) through the planner's choice and every schema that accepts it, each
// output poisoned first and checked on the device with its guard bytes. Returns how many ran.
template <class T>
int run_every_schema(const Shape& s, xpose_layout_t layout, uint64_t salt) {
  const size_t bytes = static_cast<size_t>(s.volume()) * sizeof(T);
  if (!device_has(2 * bytes + kGuard)) {
    std::printf("skipped %s: not enough device memory\n", name(s, sizeof(T), layout).c_str());
    return -1;
  }
  Device<T> in(bytes), out(bytes + kGuard);
  fill_on_device(in.p, s, salt);
  const Shape cm = s.column_major(layout);
  const xpose_options_t o = cuda_options(layout);
  int ran = 0;
  for (const char* schema : kSchemas) {
    const std::string what = name(s, sizeof(T), layout) + " schema '" + schema + "'";
    xpose_plan_t plan = nullptr;
    const xpose_status_t st =
        *schema ? xpose_plan_create_forced(&plan, s.rank, s.ext, s.perm, sizeof(T), &o, schema)
                : xpose_plan_create(&plan, s.rank, s.ext, s.perm, sizeof(T), &o);
    if (*schema == '\0') EXPECT_EQ(st, XPOSE_SUCCESS) << what << ": " << xpose_last_error();
    if (st != XPOSE_SUCCESS) {
      EXPECT_EQ(st, XPOSE_ERROR_INVALID_ARGUMENT) << what << ": " << xpose_last_error();
      continue;
    }
    char desc[256];
    xpose_plan_describe(plan, desc, sizeof desc);
    std::printf("%s: %s", what.c_str(), desc);
    EXPECT_EQ(cudaMemset(out.p, kPoison, bytes + kGuard), cudaSuccess);
    EXPECT_EQ(xpose_execute(plan, in.p, out.p, nullptr), XPOSE_SUCCESS)
        << what << ": " << xpose_last_error();
    EXPECT_EQ(mismatches_on_device(out.p, cm, salt), 0u) << what;
    EXPECT_TRUE(guard_intact(reinterpret_cast<uint8_t*>(out.p) + bytes, kGuard, kPoison))
        << what << ": wrote past the output";
    xpose_plan_destroy(plan);
    ++ran;
  }
  return ran;
}

// (65537 x 65537) = 2^32 + 2^17 + 1 elements of 1 byte: a transpose (the narrow kernel), the
// same with the leading dim staying (rows, fvi-small), a copy, and 2-byte elements.
TEST(HostileSizesGpu, JustAbove2To32Elements) {
  XPOSE_REQUIRE_GPU();
  const uint64_t salt = test_seed("HostileSizesGpu.JustAbove2To32Elements");
  EXPECT_NE(run_every_schema<uint8_t>({2, {65537, 65537}, {1, 0}}, XPOSE_COL_MAJOR, salt), 0);
  EXPECT_NE(run_every_schema<uint8_t>({3, {257, 65537, 256}, {0, 2, 1}}, XPOSE_COL_MAJOR, salt), 0);
  EXPECT_NE(run_every_schema<uint8_t>({3, {3, 65537, 21846}, {0, 2, 1}}, XPOSE_ROW_MAJOR, salt), 0);
  EXPECT_NE(run_every_schema<uint8_t>({2, {65537, 65537}, {0, 1}}, XPOSE_COL_MAJOR, salt), 0);
  EXPECT_NE(run_every_schema<uint16_t>({3, {4097, 1025, 1023}, {2, 0, 1}}, XPOSE_COL_MAJOR, salt), 0);
}

// Above 8 GiB of 4-, 8- and 16-byte elements: byte offsets past 2^33, 4-byte element indices
// past 2^31.
TEST(HostileSizesGpu, Above8GiB) {
  XPOSE_REQUIRE_GPU();
  const uint64_t salt = test_seed("HostileSizesGpu.Above8GiB");
  EXPECT_NE(run_every_schema<uint32_t>({2, {46341, 46349}, {1, 0}}, XPOSE_COL_MAJOR, salt), 0);
  EXPECT_NE(run_every_schema<unsigned long long>({4, {33, 1025, 257, 127}, {3, 1, 0, 2}},
                                                 XPOSE_COL_MAJOR, salt), 0);
  EXPECT_NE(run_every_schema<Pair>({3, {5, 10243, 10487}, {0, 2, 1}}, XPOSE_ROW_MAJOR, salt), 0);
}

// In place through every forced scheme (InplaceForce: V1, V1R, V1B, full grid, super grid) and
// the backend's choice: a square of 65537^2 one-byte elements (above 2^32) and one of 46341^2
// four-byte elements (above 8 GiB), and a batch of squares above 8 GiB (T_yxz).
template <class T>
void run_inplace(const Shape& s, uint64_t salt) {
  const size_t bytes = static_cast<size_t>(s.volume()) * sizeof(T);
  if (!device_has(bytes + kGuard)) GTEST_SKIP() << "not enough device memory";
  Device<T> data(bytes + kGuard);
  const xpose::detail::InplaceForce forces[] = {{-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {2, 0, 0},
                                                {3, 0, 0}, {4, 0, 0}};
  const xpose_options_t o = cuda_options();
  for (const auto& f : forces) {
    const std::string what = name(s, sizeof(T), XPOSE_COL_MAJOR) + " in place, scheme " +
                             std::to_string(f.scheme);
    EXPECT_EQ(cudaMemset(reinterpret_cast<uint8_t*>(data.p) + bytes, kPoison, kGuard),
              cudaSuccess);
    fill_on_device(data.p, s, salt);
    EXPECT_EQ(xpose::detail::transpose_inplace(s.rank, s.ext, s.perm, sizeof(T), data.p, &o,
                                               nullptr, &f),
              XPOSE_SUCCESS)
        << what << ": " << xpose_last_error();
    EXPECT_EQ(mismatches_on_device(data.p, s, salt), 0u) << what;
    EXPECT_TRUE(guard_intact(reinterpret_cast<uint8_t*>(data.p) + bytes, kGuard, kPoison))
        << what << ": wrote past the data";
  }
}

TEST(HostileSizesGpu, InplaceJustAbove2To32Elements) {
  XPOSE_REQUIRE_GPU();
  run_inplace<uint8_t>({2, {65537, 65537}, {1, 0}}, test_seed("HostileSizesGpu.Inplace2To32"));
}

TEST(HostileSizesGpu, InplaceAbove8GiB) {
  XPOSE_REQUIRE_GPU();
  const uint64_t salt = test_seed("HostileSizesGpu.Inplace8GiB");
  run_inplace<uint32_t>({2, {46341, 46341}, {1, 0}}, salt);
  run_inplace<uint16_t>({3, {32768, 32768, 5}, {1, 0, 2}}, salt);
}

// Measure planning times candidates on scratch buffers of the tensor's size: 2 x 8 TiB cannot be
// had, which is XPOSE_ERROR_OUT_OF_MEMORY with a message, not a crash; the device stays usable.
TEST(HostileSizesGpu, MeasurePlanningWithoutScratchMemoryIsOutOfMemory) {
  XPOSE_REQUIRE_GPU();
  const int64_t ext[2] = {int64_t{1} << 20, int64_t{1} << 20};
  const int perm[2] = {1, 0};
  xpose_options_t o = cuda_options();
  o.planning = XPOSE_PLAN_MEASURE;
  xpose_plan_t plan = nullptr;
  EXPECT_EQ(xpose_plan_create(&plan, 2, ext, perm, 8, &o), XPOSE_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(plan, nullptr);
  EXPECT_NE(std::string(xpose_last_error()).find("no device memory"), std::string::npos)
      << xpose_last_error();
  // The heuristic plan of the same request exists (nothing is allocated at plan time).
  o.planning = XPOSE_PLAN_HEURISTIC;
  EXPECT_EQ(xpose_plan_create(&plan, 2, ext, perm, 8, &o), XPOSE_SUCCESS) << xpose_last_error();
  xpose_plan_destroy(plan);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
