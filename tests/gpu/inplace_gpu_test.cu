// xpose_transpose_inplace on the CUDA backend: results against the naive reference for every
// element size, both layouts, the 3D involutions, misaligned data and every forced scheme
// (V1, V1R, V1B with several w, full grid, super grid), and one case of more than 2^31
// elements checked on the device. Skipped without a usable GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "gpu_util.hpp"
#include "inplace/inplace.hpp"

namespace {

using xpose::detail::InplaceForce;
using namespace xpose_test;

std::string describe(const std::vector<int64_t>& e, const std::vector<int>& p, size_t es,
                     xpose_layout_t layout, const InplaceForce& f, size_t offset) {
  std::string s = "extents (";
  for (auto v : e) s += std::to_string(v) + ",";
  s += ") perm (";
  for (auto v : p) s += std::to_string(v) + ",";
  return s + ") " + std::to_string(es) + " B layout " + std::to_string(layout) + " scheme " +
         std::to_string(f.scheme) + " w " + std::to_string(f.w) + " region " +
         std::to_string(f.region) + " offset " + std::to_string(offset);
}

// Random data in place on the device (at `offset` bytes into a guarded allocation), compared
// with the reference and the guard bytes after it.
void check_inplace(std::mt19937_64& rng, const std::vector<int64_t>& ext,
                   const std::vector<int>& perm, size_t es, xpose_layout_t layout = XPOSE_COL_MAJOR,
                   InplaceForce force = {}, size_t offset = 0) {
  const std::string what = describe(ext, perm, es, layout, force, offset);
  const int rank = static_cast<int>(ext.size());
  int64_t vol = 1;
  for (auto v : ext) vol *= v;
  const size_t bytes = static_cast<size_t>(vol) * es;
  std::vector<uint8_t> in(bytes), want(bytes + kGuard, kPoison), got(bytes + kGuard);
  for (auto& b : in) b = static_cast<uint8_t>(1 + rng() % 255);
  reference(rank, ext.data(), perm.data(), es, layout, in.data(), want.data());
  uint8_t* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, bytes + kGuard + 32), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, kPoison, bytes + kGuard + 32), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d + offset, in.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const xpose_options_t o = cuda_options(layout);
  EXPECT_EQ(xpose::detail::transpose_inplace(rank, ext.data(), perm.data(), es, d + offset, &o,
                                             stream, &force),
            XPOSE_SUCCESS)
      << what << ": " << xpose_last_error();
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess) << what;
  EXPECT_EQ(cudaMemcpy(got.data(), d + offset, bytes + kGuard, cudaMemcpyDeviceToHost),
            cudaSuccess);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < bytes + kGuard; ++i)
    if (got[i] != want[i] && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << what << ": first wrong byte " << first;
  cudaStreamDestroy(stream);
  cudaFree(d);
}

TEST(InplaceGpu, SquaresEveryElementSizeAndLayout) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("InplaceGpu.Squares"));
  for (size_t es : {1, 2, 4, 8, 16})
    for (int64_t n : {1, 2, 31, 32, 33, 64, 100, 257})
      for (auto layout : {XPOSE_COL_MAJOR, XPOSE_ROW_MAJOR})
        check_inplace(rng, {n, n}, {1, 0}, es, layout);
}

// 1- and 2-byte elements take the word tiles (transposed in registers): rows on words (n a
// multiple of 4 / size) and realigned rows (other n, offset data), whole tiles, partial edge
// tiles, the diagonal, planes of a batch, more items than resident blocks (n = 4000, 4001),
// and data whose last word reaches past its end (odd n^2).
TEST(InplaceGpu, NarrowWordTiles) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("InplaceGpu.NarrowWordTiles"));
  for (size_t es : {1, 2}) {
    for (int64_t n : {4, 62, 63, 124, 125, 128, 132, 249, 250, 256, 260, 388, 1028, 4000, 4001})
      check_inplace(rng, {n, n}, {1, 0}, es, n % 8 ? XPOSE_COL_MAJOR : XPOSE_ROW_MAJOR);
    for (size_t offset : {1, 2, 3})
      check_inplace(rng, {250, 250}, {1, 0}, es, XPOSE_COL_MAJOR, {}, offset);
    check_inplace(rng, {132, 132, 3}, {1, 0, 2}, es);  // planes adjacent in memory
    check_inplace(rng, {260, 3, 260}, {2, 1, 0}, es);  // planes far apart
    check_inplace(rng, {2, 66, 66}, {0, 2, 1}, es);    // folded into words of 2 elements
  }
}

// Rows off vectors or lines take 64 x 64 tiles: 4-byte elements whose rows do not start on 8
// bytes (odd n, data 4 bytes past 8 or not on 4) one element per access; 8-byte ones whose rows
// start on 16 bytes but not on 128-byte lines (even n not a multiple of 16) in pairs, and not
// on 16 bytes (data 8 bytes past 16) one at a time. Partial edge tiles on either side of 64,
// more items than resident blocks, the diagonal, planes of a batch.
TEST(InplaceGpu, WideTilesOffLines) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("InplaceGpu.WideTiles") + 5);
  for (int64_t n : {63, 65, 127, 129, 191, 4001})
    check_inplace(rng, {n, n}, {1, 0}, 4, n % 4 == 1 ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR);
  for (size_t offset : {1, 2, 4})
    check_inplace(rng, {130, 130}, {1, 0}, 4, XPOSE_COL_MAJOR, {}, offset);
  check_inplace(rng, {129, 129, 3}, {1, 0, 2}, 4);  // planes adjacent in memory
  check_inplace(rng, {67, 3, 67}, {2, 1, 0}, 4);    // planes far apart
  for (int64_t n : {2, 62, 66, 126, 130, 194, 4002})
    check_inplace(rng, {n, n}, {1, 0}, 8, n % 4 == 0 ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR);
  for (size_t offset : {8, 16})
    check_inplace(rng, {130, 130}, {1, 0}, 8, XPOSE_COL_MAJOR, {}, offset);
  check_inplace(rng, {130, 130, 3}, {1, 0, 2}, 8);
  check_inplace(rng, {66, 3, 66}, {2, 1, 0}, 8);
}

TEST(InplaceGpu, RandomSizesAndMisalignedData) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("InplaceGpu.Random") + 1);
  const size_t sizes[] = {1, 2, 4, 8, 16};
  for (int i = 0; i < 48; ++i) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % 700);
    const size_t es = sizes[rng() % 5];
    // Offsets 0..15: unaligned words, and aligned words that are not aligned to the kernel's
    // vector accesses (rows that start part-way into a vector).
    check_inplace(rng, {n, n}, {1, 0}, es, rng() % 2 ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR, {},
                  rng() % 16);
  }
}

TEST(InplaceGpu, ThreeDimensionalInvolutions) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("InplaceGpu.Involutions") + 2);
  for (size_t es : {1, 2, 4, 8, 16})
    for (auto layout : {XPOSE_COL_MAJOR, XPOSE_ROW_MAJOR}) {
      check_inplace(rng, {97, 97, 3}, {1, 0, 2}, es, layout);    // T_yxz
      check_inplace(rng, {130, 2, 130}, {2, 1, 0}, es, layout);  // T_zyx
      check_inplace(rng, {64, 5, 64}, {2, 1, 0}, es, layout);
      check_inplace(rng, {2, 45, 45}, {0, 2, 1}, es, layout);    // folded words
      check_inplace(rng, {3, 45, 45}, {0, 2, 1}, es, layout);    // chunks
      check_inplace(rng, {5, 33, 3, 33}, {0, 3, 2, 1}, es, layout);
    }
}

TEST(InplaceGpu, EveryForcedScheme) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("InplaceGpu.Schemes") + 3);
  std::vector<InplaceForce> forces = {{0, 0, 0}, {1, 0, 0}, {3, 0, 0}, {4, 0, 1}, {4, 0, 3},
                                      {4, 0, 64}};
  for (int64_t w : {1, 2, 3, 8, 64, 100000}) forces.push_back({2, w, 0});
  for (const InplaceForce& f : forces)
    for (size_t es : {4, 8}) {
      check_inplace(rng, {333, 333}, {1, 0}, es, XPOSE_COL_MAJOR, f);
      check_inplace(rng, {150, 150, 2}, {1, 0, 2}, es, XPOSE_COL_MAJOR, f);
      check_inplace(rng, {150, 3, 150}, {2, 1, 0}, es, XPOSE_COL_MAJOR, f);
      check_inplace(rng, {3, 70, 70}, {0, 2, 1}, es, XPOSE_COL_MAJOR, f);
    }
}

TEST(InplaceGpu, UnsupportedTouchesNothing) {
  XPOSE_REQUIRE_GPU();
  const int64_t ext[] = {64, 32};
  const int perm[] = {1, 0};
  uint8_t* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64 * 32 * 4), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 7, 64 * 32 * 4), cudaSuccess);
  const xpose_options_t o = cuda_options();
  EXPECT_EQ(xpose_transpose_inplace(2, ext, perm, 4, d, &o, nullptr), XPOSE_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(xpose_last_error()).find("square"), std::string::npos);
  std::vector<uint8_t> h(64 * 32 * 4);
  ASSERT_EQ(cudaMemcpy(h.data(), d, h.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  for (uint8_t b : h) ASSERT_EQ(b, 7);
  cudaFree(d);
}

// A value per element index, the same on host and device.
__host__ __device__ uint8_t tag(uint64_t i) {
  i ^= i >> 31;
  i *= 0x9e3779b97f4a7c15ull;
  return static_cast<uint8_t>(i >> 56);
}

__global__ void fill_tags(uint8_t* d, uint64_t count) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += uint64_t(gridDim.x) * blockDim.x)
    d[i] = tag(i);
}

// After the transpose, position x + y n holds the element that was at y + x n.
__global__ void count_wrong(const uint8_t* d, uint64_t n, unsigned long long* wrong) {
  unsigned long long local = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n * n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t x = i % n, y = i / n;
    local += d[i] != tag(y + x * n);
  }
  if (local) atomicAdd(wrong, local);
}

TEST(InplaceGpu, MoreThan2To31ElementsCheckedOnDevice) {
  XPOSE_REQUIRE_GPU();
  const uint64_t n = 46500;  // 2.16e9 one-byte elements
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  if (free_bytes < n * n + (1 << 28)) GTEST_SKIP() << "not enough device memory";
  uint8_t* d = nullptr;
  unsigned long long* wrong = nullptr;
  ASSERT_EQ(cudaMalloc(&d, n * n), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&wrong, sizeof *wrong), cudaSuccess);
  ASSERT_EQ(cudaMemset(wrong, 0, sizeof *wrong), cudaSuccess);
  fill_tags<<<4096, 256>>>(d, n * n);
  const int64_t ext[] = {int64_t(n), int64_t(n)};
  const int perm[] = {1, 0};
  const xpose_options_t o = cuda_options();
  ASSERT_EQ(xpose_transpose_inplace(2, ext, perm, 1, d, &o, nullptr), XPOSE_SUCCESS)
      << xpose_last_error();
  count_wrong<<<4096, 256>>>(d, n, wrong);
  unsigned long long h = 1;
  ASSERT_EQ(cudaMemcpy(&h, wrong, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h, 0ull);
  cudaFree(wrong);
  cudaFree(d);
}

// Chien's 3D transposes (x,y,z) -> (y,z,x) and its inverse run through the out-of-place planner.
TEST(InplaceGpu, ChienRotationsOutOfPlace) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("InplaceGpu.Chien") + 4);
  DeviceBuffers bufs(size_t(200) * 130 * 70 * 8);
  for (size_t es : {4, 8})
    for (const std::vector<int64_t>& e : std::vector<std::vector<int64_t>>{{200, 130, 70}, {33, 1000, 7}}) {
      const int rot[] = {1, 2, 0}, inv[] = {2, 0, 1};
      EXPECT_EQ(check_case(bufs, rng, 3, e.data(), rot, es), XPOSE_SUCCESS) << xpose_last_error();
      EXPECT_EQ(check_case(bufs, rng, 3, e.data(), inv, es), XPOSE_SUCCESS) << xpose_last_error();
    }
}

}  // namespace
