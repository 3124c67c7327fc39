// A program written against LibreTT's API for CUDA, built against the installed xpose
// (xpose::cutt): result codes of bad input (no GPU needed), then, where a GPU is usable, random
// transpositions planned with librettPlan and librettPlanMeasure on a stream held in a
// librett_gpuStream_t, checked against a naive loop with the bytes past the output's end.
// Usage: librett_test [seed [cases]]; exit status 0 when every check passes.
#include <xpose/librett.h>

#include "naive.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace {

int failures = 0;

void expect(librettResult got, librettResult want, const char* what) {
  if (got == want) return;
  std::printf("FAILED: %s returned %d, expected %d (%s)\n", what, int(got), int(want),
              xpose_last_error());
  ++failures;
}

constexpr size_t kGuard = 64;

bool random_case(std::mt19937_64& rng, int index, librett_gpuStream_t& stream) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const size_t elem = index % 2 ? sizeof(double) : sizeof(float);
  const int rank = pick(2, 5);
  std::vector<int> dim(rank), perm(rank);
  for (int k = 0; k < rank; ++k) {
    dim[k] = pick(2, rank == 2 ? 200 : 20);
    perm[k] = k;
  }
  std::shuffle(perm.begin(), perm.end(), rng);
  size_t bytes = elem;
  for (int d : dim) bytes *= d;
  std::vector<char> in(bytes), want(bytes), got(bytes + kGuard);
  for (char& c : in) c = static_cast<char>(pick(1, 255));
  naive(rank, dim.data(), perm.data(), elem, in.data(), want.data());
  void *d_in = nullptr, *d_out = nullptr;
  cudaMalloc(&d_in, bytes);
  cudaMalloc(&d_out, bytes + kGuard);
  cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0x5A, bytes + kGuard);
  librettHandle plan = 0;
  librettResult r =
      index % 4 == 3
          ? librettPlanMeasure(&plan, rank, dim.data(), perm.data(), elem, stream, d_in, d_out)
          : librettPlan(&plan, rank, dim.data(), perm.data(), elem, stream);
  if (r == LIBRETT_SUCCESS) r = librettExecute(plan, d_in, d_out);
  cudaStreamSynchronize(stream);
  cudaMemcpy(got.data(), d_out, bytes + kGuard, cudaMemcpyDeviceToHost);
  expect(librettDestroy(plan), LIBRETT_SUCCESS, "librettDestroy");
  cudaFree(d_in);
  cudaFree(d_out);
  bool ok = r == LIBRETT_SUCCESS && std::memcmp(got.data(), want.data(), bytes) == 0;
  for (size_t i = bytes; i < bytes + kGuard; ++i) ok = ok && got[i] == char(0x5A);
  if (!ok) std::printf("FAILED case %d: rank %d elem %zu result %d\n", index, rank, elem, int(r));
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : std::random_device{}();
  const int cases = argc > 2 ? std::atoi(argv[2]) : 40;
  std::printf("seed %llu (replay: librett_test %llu %d)\n",
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed), cases);
  librettInitialize();
  int dim[3] = {4, 5, 6}, perm[3] = {2, 0, 1}, bad[3] = {0, 3, 1};
  librettHandle h = 0;
  librett_gpuStream_t none = 0;
  expect(librettPlan(&h, 3, dim, bad, 8, none), LIBRETT_INVALID_PARAMETER, "bad permutation");
  expect(librettPlan(&h, 3, dim, perm, 5, none), LIBRETT_INVALID_PARAMETER, "sizeofType 5");
  expect(librettPlanMeasure(&h, 3, dim, perm, 8, none, dim, dim), LIBRETT_INVALID_PARAMETER,
         "librettPlanMeasure with idata == odata");
  expect(librettExecute(999, dim, perm), LIBRETT_INVALID_PLAN, "unknown handle");
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU: result codes checked (%d wrong), transpositions skipped\n", failures);
    return failures != 0;
  }
  librett_gpuStream_t stream;
  cudaStreamCreate(&stream);
  std::mt19937_64 rng(seed);
  int wrong = 0;
  for (int i = 0; i < cases; ++i) wrong += !random_case(rng, i, stream);
  cudaStreamDestroy(stream);
  librettFinalize();
  std::printf("random cases: %d of %d wrong\n%s\n", wrong, cases,
              wrong == 0 && failures == 0 ? "ok" : "FAILED");
  return wrong == 0 && failures == 0 ? 0 : 1;
}
