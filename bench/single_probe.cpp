// Where the single-use overhead of a fresh CUDA plan goes (docs/perf/README.md, session 4). For
// the rank-8 shape of `xpose bench-single` (8,8,9,9,8,8,8,8) perm (7,2,5,0,3,1,6,4), 8-byte
// elements, the mean over 200 iterations of
//   plan + destroy;
//   execute + wait, one plan (repeated use);
//   execute + wait, each of 200 plans made beforehand (is a fresh plan slower to launch?);
//   plan + execute + wait + destroy (single use);
//   plan + execute of the old plan + wait + destroy (planning without a fresh launch);
// three times. Plans are made as on a plan-cache miss (make_plan without the cache). The timed
// loops check nothing; a first plan and execute, checked, stop the probe when either fails.
// Build (a library built for sm_90 in BUILD, e.g. build-carry of bench/build_carry.sh):
//   g++ -O2 -std=c++20 -Iinclude -Isrc -isystem /usr/local/cuda/include bench/single_probe.cpp
//       BUILD/src/libxpose_internal.a -fopenmp -L/usr/local/cuda/lib64 -lcudart_static -ldl
//       -lrt -lpthread -o .carry/single_probe
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "core/plan.hpp"
#include "xpose/xpose.h"

namespace {

constexpr int kRank = 8;
constexpr int64_t kExtents[kRank] = {8, 8, 9, 9, 8, 8, 8, 8};
constexpr int kPerm[kRank] = {7, 2, 5, 0, 3, 1, 6, 4};
constexpr int kIters = 200;

xpose_plan_t fresh_plan(const xpose_options_t& o, xpose_status_t* status = nullptr) {
  auto* p = new xpose_plan_s;
  const xpose_status_t st =
      xpose::detail::make_plan(kRank, kExtents, kPerm, 8, &o, nullptr, /*use_cache=*/false,
                               &p->plan);
  if (status) *status = st;
  return p;
}

template <class F>
double mean_us(F body) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kIters; ++i) body(i);
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
         kIters;
}

}  // namespace

int main() {
  size_t bytes = 8;
  for (const int64_t e : kExtents) bytes *= static_cast<size_t>(e);
  void *in = nullptr, *out = nullptr;
  cudaStream_t stream = nullptr;
  if (cudaMalloc(&in, bytes) != cudaSuccess || cudaMalloc(&out, bytes) != cudaSuccess ||
      cudaStreamCreate(&stream) != cudaSuccess) {
    std::fprintf(stderr, "single_probe: needs a CUDA device with %zu free bytes x 2\n", bytes);
    return 1;
  }
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CUDA;
  const auto run = [&](xpose_plan_t p) {
    xpose_execute(p, in, out, stream);
    cudaStreamSynchronize(stream);
  };
  xpose_status_t st = XPOSE_SUCCESS;
  xpose_plan_t first = fresh_plan(o, &st);
  if (st == XPOSE_SUCCESS) st = xpose_execute(first, in, out, stream);
  const cudaError_t sync = cudaStreamSynchronize(stream);
  xpose_plan_destroy(first);
  if (st != XPOSE_SUCCESS || sync != cudaSuccess) {
    std::fprintf(stderr, "single_probe: %s\n",
                 st != XPOSE_SUCCESS ? xpose_last_error() : cudaGetErrorString(sync));
    return 1;
  }
  std::printf("us per iteration: plan+destroy | repeated | fresh plans, launch only | single | "
              "plan + repeated\n");
  for (int rep = 0; rep < 3; ++rep) {
    xpose_plan_t base = fresh_plan(o);
    for (int i = 0; i < 20; ++i) run(base);
    const double plan = mean_us([&](int) { xpose_plan_destroy(fresh_plan(o)); });
    const double repeated = mean_us([&](int) { run(base); });
    std::vector<xpose_plan_t> made(kIters);
    for (xpose_plan_t& p : made) p = fresh_plan(o);
    const double launch = mean_us([&](int i) { run(made[i]); });
    for (xpose_plan_t p : made) xpose_plan_destroy(p);
    const double single = mean_us([&](int) {
      xpose_plan_t p = fresh_plan(o);
      run(p);
      xpose_plan_destroy(p);
    });
    const double planned = mean_us([&](int) {
      xpose_plan_t p = fresh_plan(o);
      run(base);
      xpose_plan_destroy(p);
    });
    std::printf("%.1f | %.1f | %.1f | %.1f | %.1f\n", plan, repeated, launch, single, planned);
    xpose_plan_destroy(base);
  }
  return 0;
}
