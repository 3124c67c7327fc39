// CUDA graphs (issue 14): xpose_execute, and xpose_transpose on a warm plan cache, captured by
// stream capture and replayed with the same pointers, for plans of each kernel (tile, narrow,
// narrow2d, rows, unaligned pieces): 100 replays, the output poisoned and checked against the
// reference at replays 1, 50 and 100.
#include <gtest/gtest.h>

#include <vector>

#include "gpu_util.hpp"

using namespace xpose_test;

namespace {

struct GraphCase {
  std::vector<int64_t> ext;
  std::vector<int> perm;
  size_t es;
  size_t offset;  // of both pointers, bytes
};

// Captures `enqueue` (on a non-default stream) into a graph and replays it 100 times, checking
// the output after replays 1, 50 and 100 with the output poisoned before each.
template <class Enqueue>
void replay_and_check(const GraphCase& c, const std::vector<uint8_t>& in, DeviceBuffers& bufs,
                      const std::string& what, Enqueue enqueue) {
  const int rank = static_cast<int>(c.ext.size());
  const size_t bytes = in.size();
  std::vector<uint8_t> want(bytes + kGuard, kPoison), got(bytes + kGuard);
  reference(rank, c.ext.data(), c.perm.data(), c.es, XPOSE_COL_MAJOR, in.data(), want.data());
  ASSERT_EQ(cudaMemcpy(bufs.in + c.offset, in.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  // From pageable memory the copy may still be in flight when cudaMemcpy returns, and the
  // non-blocking stream below does not wait for the legacy stream.
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  const xpose_status_t st = enqueue(s);
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess) << what;
  ASSERT_EQ(st, XPOSE_SUCCESS) << what << ": " << xpose_last_error();
  size_t nodes = 0;
  ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  EXPECT_EQ(nodes, 1u) << what << ": one kernel node per call";
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess) << what;
  for (int r = 1; r <= 100; ++r) {
    const bool check = r == 1 || r == 50 || r == 100;
    if (check) ASSERT_EQ(cudaMemsetAsync(bufs.out, kPoison, bufs.capacity, s), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess) << what;
    if (!check) continue;
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess) << what;
    ASSERT_EQ(cudaMemcpy(got.data(), bufs.out + c.offset, bytes + kGuard, cudaMemcpyDeviceToHost),
              cudaSuccess);
    size_t bad = 0;
    for (size_t i = 0; i < bytes + kGuard; ++i) bad += got[i] != want[i];
    EXPECT_EQ(bad, 0u) << what << ": replay " << r;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

const GraphCase kCases[] = {
    {{301, 257}, {1, 0}, 4, 0},           // tile kernel
    {{64, 33, 17}, {2, 0, 1}, 8, 0},      // tile kernel, rank 3
    {{509, 131}, {1, 0}, 2, 0},           // narrow kernel
    {{77, 65, 9}, {1, 2, 0}, 1, 3},       // narrow kernel, unaligned
    {{4099, 2053}, {1, 0}, 1, 5},         // narrow 2D tiles (narrow2d.cu)
    {{13, 1031, 1200}, {2, 1, 0}, 1, 5},  // narrow kernel, tiles round-robin when captured
    {{1000, 7, 9}, {0, 2, 1}, 4, 0},      // rows
    {{4096}, {0}, 8, 0},                  // copy
    {{129, 67}, {1, 0}, 8, 4},            // tile kernel in pieces (pointers off the element size)
};

TEST(CudaGraph, CapturedExecuteReplays) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CapturedExecuteReplays"));
  DeviceBuffers bufs(size_t{1} << 24);
  for (const GraphCase& c : kCases) {
    const int rank = static_cast<int>(c.ext.size());
    int64_t vol = 1;
    for (const int64_t e : c.ext) vol *= e;
    const std::vector<uint8_t> in = random_bytes(rng, static_cast<size_t>(vol) * c.es);
    xpose_options_t o = cuda_options();
    xpose_plan_t plan = nullptr;
    ASSERT_EQ(xpose_plan_create(&plan, rank, c.ext.data(), c.perm.data(), c.es, &o),
              XPOSE_SUCCESS)
        << xpose_last_error();
    char desc[4096];
    xpose_plan_describe(plan, desc, sizeof desc);
    replay_and_check(c, in, bufs, std::string("xpose_execute: ") + desc, [&](cudaStream_t s) {
      return xpose_execute(plan, bufs.in + c.offset, bufs.out + c.offset, s);
    });
    xpose_plan_destroy(plan);
    // xpose_transpose: warm once (its plan is made and cached outside the capture), then
    // captured, it finds the plan and only launches.
    const auto call = [&](cudaStream_t s) {
      return xpose_transpose(rank, c.ext.data(), c.perm.data(), c.es, bufs.in + c.offset,
                             bufs.out + c.offset, &o, s);
    };
    ASSERT_EQ(call(nullptr), XPOSE_SUCCESS) << xpose_last_error();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    replay_and_check(c, in, bufs, std::string("xpose_transpose: ") + desc, call);
  }
}

}  // namespace
