// One plan on many streams at once (API.md: one plan may run concurrently on several streams),
// for the planner's choice and every forced CUDA schema, from several host threads, each with
// its own streams, inputs and outputs; every output checked on the device (device_check.cuh).
// Also plans created and destroyed on other threads while those streams run.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cuda/runtime.hpp"
#include "device_check.cuh"
#include "gpu_util.hpp"

using namespace xpose_test;

namespace {

constexpr int kHostThreads = 4, kStreamsPerThread = 2;

// Executions per stream and plan: 6, or XPOSE_STRESS_REPS (racecheck runs the test with 1,
// docs/reliability.md: its instrumentation serializes every launch of the 4 x 2 streams).
int stress_reps() {
  static const int reps = [] {
    const char* env = std::getenv("XPOSE_STRESS_REPS");
    const int n = env ? std::atoi(env) : 0;
    return n > 0 ? n : 6;
  }();
  return reps;
}

// Every stream of every host thread runs `plan` stress_reps() times, each time on fresh input (its
// own salt) into its own output, then checks it; returns the mismatches found in all.
template <class T>
unsigned long long run_on_streams(xpose_plan_t plan, const Shape& s, uint64_t salt) {
  const size_t bytes = static_cast<size_t>(s.volume()) * sizeof(T);
  std::atomic<unsigned long long> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kHostThreads; ++t)
    threads.emplace_back([&, t] {
      cudaStream_t st[kStreamsPerThread];
      T* in[kStreamsPerThread] = {};
      T* out[kStreamsPerThread] = {};
      unsigned long long* wrong[kStreamsPerThread] = {};  // on the device, summed over the reps
      for (int k = 0; k < kStreamsPerThread; ++k) {
        cudaStreamCreateWithFlags(&st[k], cudaStreamNonBlocking);
        if (cudaMalloc(&in[k], bytes) != cudaSuccess || cudaMalloc(&out[k], bytes) != cudaSuccess ||
            cudaMalloc(&wrong[k], sizeof(unsigned long long)) != cudaSuccess)
          bad += 1;
        cudaMemsetAsync(wrong[k], 0, sizeof(unsigned long long), st[k]);
      }
      // Stream order makes each rep's check see its own input and output; nothing synchronizes
      // until the end, so the streams' kernels overlap.
      for (int rep = 0; rep < stress_reps() && bad == 0; ++rep)
        for (int k = 0; k < kStreamsPerThread; ++k) {
          const uint64_t mine = salt ^ mix(static_cast<uint64_t>(t * 1000 + k * 100 + rep));
          fill_on_device(in[k], s, mine, st[k]);
          cudaMemsetAsync(out[k], 0, bytes, st[k]);
          if (xpose_execute(plan, in[k], out[k], st[k]) != XPOSE_SUCCESS) bad += 1;
          count_mismatches<<<1024, 256, 0, st[k]>>>(out[k], s, s.volume(), mine, wrong[k]);
        }
      for (int k = 0; k < kStreamsPerThread; ++k) {
        unsigned long long h = ~0ull;
        if (cudaMemcpyAsync(&h, wrong[k], sizeof h, cudaMemcpyDeviceToHost, st[k]) != cudaSuccess ||
            cudaStreamSynchronize(st[k]) != cudaSuccess)
          h = ~0ull;
        bad += h;
        cudaFree(in[k]);
        cudaFree(out[k]);
        cudaFree(wrong[k]);
        cudaStreamDestroy(st[k]);
      }
    });
  // Meanwhile: plans of other shapes created and destroyed on this thread.
  const xpose_options_t o = cuda_options();
  for (int i = 0; i < 200; ++i) {
    const int64_t ext[3] = {3 + i % 13, 17 + i, 5 + i % 7};
    const int perm[3] = {2, 0, 1};
    xpose_plan_t other = nullptr;
    if (xpose_plan_create(&other, 3, ext, perm, 4, &o) != XPOSE_SUCCESS) bad += 1;
    xpose_plan_destroy(other);
  }
  for (auto& th : threads) th.join();
  return bad.load();
}

template <class T>
void every_schema_on_streams(const Shape& s, uint64_t salt) {
  const xpose_options_t o = cuda_options();
  int ran = 0;
  for (const char* schema : {"", "copy", "rows", "fvi-small", "tiled", "packed", "packed-split"}) {
    xpose_plan_t plan = nullptr;
    const xpose_status_t st =
        *schema ? xpose_plan_create_forced(&plan, s.rank, s.ext, s.perm, sizeof(T), &o, schema)
                : xpose_plan_create(&plan, s.rank, s.ext, s.perm, sizeof(T), &o);
    if (st != XPOSE_SUCCESS) {
      EXPECT_TRUE(*schema && st == XPOSE_ERROR_INVALID_ARGUMENT) << schema << ": "
                                                                   << xpose_last_error();
      continue;
    }
    EXPECT_EQ(run_on_streams<T>(plan, s, salt), 0u)
        << "schema '" << schema << "', " << sizeof(T) << " B elements";
    xpose_plan_destroy(plan);
    ++ran;
  }
  EXPECT_GE(ran, 2);
}

TEST(CudaStreams, OnePlanOnEightStreamsFromFourThreads) {
  XPOSE_REQUIRE_GPU();
  const uint64_t salt = test_seed("CudaStreams.OnePlanOnEightStreams");
  every_schema_on_streams<uint32_t>({3, {301, 257, 129}, {2, 0, 1}}, salt);
  every_schema_on_streams<unsigned long long>({4, {64, 3, 100, 71}, {0, 3, 1, 2}}, salt);
  every_schema_on_streams<uint8_t>({3, {1000, 999, 7}, {1, 0, 2}}, salt);   // narrow kernel
  every_schema_on_streams<uint16_t>({2, {4099, 2047}, {1, 0}}, salt);
  every_schema_on_streams<Pair>({3, {31, 517, 33}, {2, 1, 0}}, salt);
  every_schema_on_streams<uint32_t>({1, {3000001}, {0}}, salt);              // copy
}

// Narrow launches that deal their tiles by a counter (src/cuda/tile_order.cuh), all from one slot
// of its table: a launch takes it where it is free, and its tiles round-robin where another
// launch's tickets are still being taken.
TEST(CudaStreams, NarrowLaunchesOnOneTileSlot) {
  XPOSE_REQUIRE_GPU();
  const uint64_t salt = test_seed("CudaStreams.NarrowLaunchesOnOneTileSlot");
  struct Restore {
    ~Restore() { xpose::detail::narrow_tile_slots(~0u); }
  } restore;
  xpose::detail::narrow_tile_slots(1);
  every_schema_on_streams<uint16_t>({2, {4099, 3001}, {1, 0}}, salt);
  every_schema_on_streams<uint8_t>({3, {3001, 2999, 3}, {1, 0, 2}}, salt);
}

}  // namespace
