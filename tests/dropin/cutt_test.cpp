// A program written against cuTT's C API, built against the installed xpose (xpose::cutt):
// the result codes of bad input (no GPU needed), then, where a GPU is usable, random
// transpositions planned with cuttPlan and cuttPlanMeasure on a stream, checked against a naive
// loop (output poisoned first, bytes past its end checked), and plans made, executed and
// destroyed from several threads at once. Usage: cutt_test [seed [cases]]; exit status 0 when
// every check passes ("no GPU" skips the GPU part).
#include <xpose/cutt.h>

#include "naive.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

int failures = 0;

void expect(cuttResult got, cuttResult want, const char* what) {
  if (got == want) return;
  std::printf("FAILED: %s returned %d, expected %d (%s)\n", what, int(got), int(want),
              xpose_last_error());
  ++failures;
}

void bad_input() {
  int dim[3] = {4, 5, 6}, perm[3] = {2, 0, 1}, twice[3] = {2, 0, 0}, negative[3] = {4, -5, 6};
  cuttHandle h = 77;
  expect(cuttPlan(&h, 3, dim, twice, 8, 0), CUTT_INVALID_PARAMETER, "repeated permutation");
  expect(cuttPlan(&h, 3, negative, perm, 8, 0), CUTT_INVALID_PARAMETER, "negative dim");
  expect(cuttPlan(&h, 3, dim, perm, 3, 0), CUTT_INVALID_PARAMETER, "sizeofType 3");
  expect(cuttPlan(&h, 40, dim, perm, 8, 0), CUTT_INVALID_PARAMETER, "rank 40");
  expect(cuttPlan(&h, 3, nullptr, perm, 8, 0), CUTT_INVALID_PARAMETER, "dim NULL");
  expect(cuttPlan(nullptr, 3, dim, perm, 8, 0), CUTT_INVALID_PARAMETER, "handle NULL");
  expect(cuttPlanMeasure(&h, 3, dim, perm, 8, 0, dim, dim), CUTT_INVALID_PARAMETER,
         "cuttPlanMeasure with idata == odata");
  if (h != 77) std::printf("FAILED: a failed cuttPlan wrote the handle\n"), ++failures;
  expect(cuttExecute(12345, dim, perm), CUTT_INVALID_PLAN, "cuttExecute of an unknown handle");
  expect(cuttDestroy(12345), CUTT_INVALID_PLAN, "cuttDestroy of an unknown handle");
}

bool gpu_usable() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

constexpr size_t kGuard = 256;  // bytes past the output's end that must stay poisoned

// One random problem: plan (heuristic or measured) on a fresh stream, execute twice, compare.
bool random_case(std::mt19937_64& rng, int index) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const size_t sizes[] = {4, 8, 1, 2, 16};  // cuTT's 4 and 8 first, then what xpose adds
  const size_t elem = sizes[index % 5];
  const int rank = pick(1, 6);
  std::vector<int> dim(rank), perm(rank);
  for (int k = 0; k < rank; ++k) {
    dim[k] = pick(1, rank <= 2 ? 300 : rank <= 4 ? 24 : 9);
    perm[k] = k;
  }
  std::shuffle(perm.begin(), perm.end(), rng);
  size_t bytes = elem;
  for (int d : dim) bytes *= d;
  std::vector<char> in(bytes), want(bytes), got(bytes + kGuard);
  for (char& c : in) c = static_cast<char>(pick(1, 255));
  naive(rank, dim.data(), perm.data(), elem, in.data(), want.data());
  void *d_in = nullptr, *d_out = nullptr;
  cudaStream_t stream = nullptr;
  cudaMalloc(&d_in, bytes);
  cudaMalloc(&d_out, bytes + kGuard);
  cudaStreamCreate(&stream);
  cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0xA5, bytes + kGuard);
  const bool measure = index % 3 == 2;
  cuttHandle plan = 0;
  cuttResult r = measure ? cuttPlanMeasure(&plan, rank, dim.data(), perm.data(), elem, stream,
                                           d_in, d_out)
                         : cuttPlan(&plan, rank, dim.data(), perm.data(), elem, stream);
  if (r == CUTT_SUCCESS) r = cuttExecute(plan, d_in, d_out);
  if (r == CUTT_SUCCESS) r = cuttExecute(plan, d_in, d_out);  // a plan is reusable
  cudaStreamSynchronize(stream);
  cudaMemcpy(got.data(), d_out, bytes + kGuard, cudaMemcpyDeviceToHost);
  const cuttResult destroyed = cuttDestroy(plan);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaStreamDestroy(stream);
  bool ok = r == CUTT_SUCCESS && destroyed == CUTT_SUCCESS && plan != 0 &&
            std::memcmp(got.data(), want.data(), bytes) == 0;
  for (size_t i = bytes; i < bytes + kGuard; ++i) ok = ok && got[i] == char(0xA5);
  if (!ok) {
    std::printf("FAILED case %d: rank %d elem %zu%s result %d destroy %d (%s) dim", index, rank,
                elem, measure ? " measured" : "", int(r), int(destroyed), xpose_last_error());
    for (int k = 0; k < rank; ++k) std::printf(" %d", dim[k]);
    std::printf(" perm");
    for (int k = 0; k < rank; ++k) std::printf(" %d", perm[k]);
    std::printf("\n");
  }
  return ok;
}

// Result codes that need a plan on a device.
void gpu_result_codes() {
  int dim[2] = {64, 48}, perm[2] = {1, 0};
  void* d = nullptr;
  cudaMalloc(&d, 2 * 64 * 48 * sizeof(float));
  float* buf = static_cast<float*>(d);
  cuttHandle plan = 0;
  expect(cuttPlan(&plan, 2, dim, perm, sizeof(float), 0), CUTT_SUCCESS, "cuttPlan 64x48");
  expect(cuttExecute(plan, buf, buf), CUTT_INVALID_PARAMETER, "cuttExecute with idata == odata");
  expect(cuttExecute(plan, buf, buf + 1), CUTT_INVALID_PARAMETER, "overlapping idata and odata");
  expect(cuttExecute(plan, buf, buf + 64 * 48), CUTT_SUCCESS, "cuttExecute");
  expect(cuttDestroy(plan), CUTT_SUCCESS, "cuttDestroy");
  expect(cuttExecute(plan, buf, buf + 64 * 48), CUTT_INVALID_PLAN, "cuttExecute after destroy");
  expect(cuttDestroy(plan), CUTT_INVALID_PLAN, "cuttDestroy twice");
  cudaDeviceSynchronize();
  cudaFree(d);
}

// Plans made, executed and destroyed by several threads at once, each checking its results.
bool threads_at_once() {
  constexpr int kThreads = 8, kRounds = 20;
  std::atomic<int> wrong{0};
  std::vector<std::thread> team;
  for (int t = 0; t < kThreads; ++t)
    team.emplace_back([t, &wrong] {
      int dim[3] = {17 + t, 9, 5 + t % 3}, perm[3] = {2, 0, 1};
      const size_t n = size_t(dim[0]) * dim[1] * dim[2];
      std::vector<float> in(n), want(n), got(n);
      for (size_t i = 0; i < n; ++i) in[i] = float(i + 1) + 0.5f * t;
      naive(3, dim, perm, sizeof(float), reinterpret_cast<const char*>(in.data()),
            reinterpret_cast<char*>(want.data()));
      float *d_in = nullptr, *d_out = nullptr;
      cudaStream_t stream = nullptr;
      cudaMalloc(&d_in, n * sizeof(float));
      cudaMalloc(&d_out, n * sizeof(float));
      cudaStreamCreate(&stream);
      cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
      for (int r = 0; r < kRounds; ++r) {
        cudaMemsetAsync(d_out, 0, n * sizeof(float), stream);
        cuttHandle plan = 0;
        bool ok = cuttPlan(&plan, 3, dim, perm, sizeof(float), stream) == CUTT_SUCCESS &&
                  cuttExecute(plan, d_in, d_out) == CUTT_SUCCESS &&
                  cuttDestroy(plan) == CUTT_SUCCESS;  // while the kernel may still run
        cudaMemcpyAsync(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
        wrong += !ok || got != want;
      }
      cudaStreamDestroy(stream);
      cudaFree(d_in);
      cudaFree(d_out);
    });
  for (std::thread& th : team) th.join();
  std::printf("threads: %d of %d rounds wrong\n", wrong.load(), kThreads * kRounds);
  return wrong == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : std::random_device{}();
  const int cases = argc > 2 ? std::atoi(argv[2]) : 60;
  std::printf("seed %llu (replay: cutt_test %llu %d)\n", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed), cases);
  cuttInitialize();
  bad_input();
  if (!gpu_usable()) {
    int dim[2] = {8, 8}, perm[2] = {1, 0};
    cuttHandle h = 0;
    expect(cuttPlan(&h, 2, dim, perm, 4, 0), CUTT_INTERNAL_ERROR, "cuttPlan without a GPU");
    std::printf("no GPU: result codes checked (%d wrong), transpositions skipped\n", failures);
    return failures != 0;
  }
  gpu_result_codes();
  std::mt19937_64 rng(seed);
  int wrong = 0;
  for (int i = 0; i < cases; ++i) wrong += !random_case(rng, i);
  std::printf("random cases: %d of %d wrong\n", wrong, cases);
  const bool threads_ok = threads_at_once();
  cuttFinalize();
  const bool ok = failures == 0 && wrong == 0 && threads_ok;
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
