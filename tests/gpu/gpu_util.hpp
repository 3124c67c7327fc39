// Helpers of the GPU tests: seeds (printed, replayable through XPOSE_TEST_SEED), a naive CPU
// reference transposition, and device buffers with poisoned outputs and guard bytes.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "xpose/xpose.h"

namespace xpose_test {

inline uint64_t test_seed(const char* test) {
  static const uint64_t base = [] {
    const char* env = std::getenv("XPOSE_TEST_SEED");
    return env ? std::strtoull(env, nullptr, 0) : std::random_device{}() * 2654435761ull;
  }();
  std::printf("[seed] %s: XPOSE_TEST_SEED=%llu\n", test, static_cast<unsigned long long>(base));
  return base;
}

// Skips the calling test when there is no usable CUDA device (CI compiles and runs these
// tests on machines without one).
#define XPOSE_REQUIRE_GPU()                                                   \
  do {                                                                        \
    int count_ = 0;                                                           \
    if (cudaGetDeviceCount(&count_) != cudaSuccess || count_ == 0) {          \
      cudaGetLastError();                                                     \
      GTEST_SKIP() << "no usable CUDA device";                                \
    }                                                                         \
  } while (0)

inline xpose_options_t cuda_options(xpose_layout_t layout = XPOSE_COL_MAJOR) {
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CUDA;
  o.layout = layout;
  return o;
}

// out[o] = in[i] for every element, the naive way, in either layout.
inline void reference(int rank, const int64_t* ext, const int* perm, size_t es,
                      xpose_layout_t layout, const uint8_t* in, uint8_t* out) {
  std::vector<int64_t> s_in(rank), s_out_pos(rank), s_out(rank), c(rank, 0);
  const auto strides = [&](const std::vector<int64_t>& e, std::vector<int64_t>& s) {
    int64_t v = 1;
    if (layout == XPOSE_COL_MAJOR)
      for (int k = 0; k < rank; ++k) s[k] = v, v *= e[k];
    else
      for (int k = rank - 1; k >= 0; --k) s[k] = v, v *= e[k];
  };
  std::vector<int64_t> e(ext, ext + rank), oe(rank);
  for (int i = 0; i < rank; ++i) oe[i] = e[perm[i]];
  strides(e, s_in);
  strides(oe, s_out_pos);
  for (int i = 0; i < rank; ++i) s_out[perm[i]] = s_out_pos[i];
  int64_t vol = 1;
  for (int k = 0; k < rank; ++k) vol *= e[k];
  for (int64_t n = 0; n < vol; ++n) {
    int64_t io = 0, oo = 0;
    for (int k = 0; k < rank; ++k) io += c[k] * s_in[k], oo += c[k] * s_out[k];
    std::memcpy(out + oo * es, in + io * es, es);
    for (int k = 0; k < rank && ++c[k] == e[k]; ++k) c[k] = 0;
  }
}

constexpr size_t kGuard = 64;
constexpr uint8_t kPoison = 0xA5;

// A problem of a case list: extents and permutation.
struct Case {
  std::vector<int64_t> ext;
  std::vector<int> perm;
};

// `bytes` random non-zero bytes (a tensor that zeros and poison cannot pass for).
inline std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t bytes) {
  std::vector<uint8_t> v(bytes);
  for (auto& b : v) b = static_cast<uint8_t>(1 + rng() % 255);
  return v;
}

// Device input and output with room for misalignment and guard bytes past the end.
struct DeviceBuffers {
  uint8_t* in = nullptr;
  uint8_t* out = nullptr;
  size_t capacity = 0;
  explicit DeviceBuffers(size_t bytes) : capacity(bytes + kGuard + 32) {
    EXPECT_EQ(cudaMalloc(&in, capacity), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&out, capacity), cudaSuccess);
  }
  ~DeviceBuffers() {
    cudaFree(in);
    cudaFree(out);
  }
};

// Runs launch(in, out) (an xpose_status_t) on `host` copied to bufs.in + a and on bufs.out + b,
// poisoned, and returns what it wrote: the tensor's bytes and kGuard past them (empty when a
// CUDA call or the launch failed, which it reports).
template <class Launch>
std::vector<uint8_t> launch_on(DeviceBuffers& bufs, const std::vector<uint8_t>& host, size_t a,
                               size_t b, Launch launch) {
  std::vector<uint8_t> got(host.size() + kGuard);
  if (cudaMemcpy(bufs.in + a, host.data(), host.size(), cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemset(bufs.out, kPoison, bufs.capacity) != cudaSuccess) {
    ADD_FAILURE() << "staging the input failed";
    return {};
  }
  const xpose_status_t st = launch(bufs.in + a, bufs.out + b);
  const cudaError_t sync = cudaDeviceSynchronize();
  if (st != XPOSE_SUCCESS || sync != cudaSuccess ||
      cudaMemcpy(got.data(), bufs.out + b, got.size(), cudaMemcpyDeviceToHost) != cudaSuccess) {
    ADD_FAILURE() << "launch status " << st << ", " << cudaGetErrorString(sync);
    return {};
  }
  return got;
}

// Case `c` (es-byte elements, `layout`) on random bytes, launched by launch(a, b, in, out) at each
// pair of byte offsets (a, b) of `offsets` (launch_on), against the reference: the number of
// launches, or -1 at the first whose output differed (a failure naming `what` and the offsets).
template <class Launch>
int launches_match(DeviceBuffers& bufs, std::mt19937_64& rng, const Case& c, size_t es,
                   xpose_layout_t layout, const std::vector<std::pair<size_t, size_t>>& offsets,
                   const std::string& what, Launch launch) {
  const int rank = static_cast<int>(c.ext.size());
  size_t bytes = es;
  for (const int64_t e : c.ext) bytes *= static_cast<size_t>(e);
  const std::vector<uint8_t> in = random_bytes(rng, bytes);
  std::vector<uint8_t> want(bytes + kGuard, kPoison);
  reference(rank, c.ext.data(), c.perm.data(), es, layout, in.data(), want.data());
  int runs = 0;
  for (auto [a, b] : offsets) {
    const auto got = launch_on(bufs, in, a, b, [&](const uint8_t* src, uint8_t* dst) {
      return launch(a, b, src, dst);
    });
    if (got != want) {
      ADD_FAILURE() << what << " offsets " << a << "/" << b;
      return -1;
    }
    ++runs;
  }
  return runs;
}

// Plans (forced when `schema`), runs at the given byte offsets on `bufs`, and compares against
// the reference on random non-zero data, with the output poisoned and guard bytes checked.
// Returns the plan status (the comparison is asserted only on success).
inline xpose_status_t check_case(DeviceBuffers& bufs, std::mt19937_64& rng, int rank,
                                 const int64_t* ext, const int* perm, size_t es,
                                 xpose_layout_t layout = XPOSE_COL_MAJOR,
                                 const char* schema = nullptr, size_t in_off = 0,
                                 size_t out_off = 0, std::string* describe = nullptr) {
  int64_t vol = 1;
  for (int k = 0; k < rank; ++k) vol *= ext[k];
  const size_t bytes = static_cast<size_t>(vol) * es;
  std::string what = "rank " + std::to_string(rank) + " extents (";
  for (int k = 0; k < rank; ++k) what += std::to_string(ext[k]) + (k + 1 < rank ? "," : "");
  what += ") perm (";
  for (int k = 0; k < rank; ++k) what += std::to_string(perm[k]) + (k + 1 < rank ? "," : "");
  what += ") " + std::to_string(es) + " B" + (layout == XPOSE_ROW_MAJOR ? " row-major" : "") +
          (schema ? std::string(" schema ") + schema : "") + " offsets " +
          std::to_string(in_off) + "/" + std::to_string(out_off);
  xpose_options_t o = cuda_options(layout);
  xpose_plan_t plan = nullptr;
  const xpose_status_t st =
      schema ? xpose_plan_create_forced(&plan, rank, ext, perm, es, &o, schema)
             : xpose_plan_create(&plan, rank, ext, perm, es, &o);
  if (st != XPOSE_SUCCESS) return st;
  char desc[4096];
  xpose_plan_describe(plan, desc, sizeof desc);
  if (describe) *describe = desc;
  const std::vector<uint8_t> in = random_bytes(rng, bytes);
  std::vector<uint8_t> want(bytes + kGuard, kPoison), got(bytes + kGuard);
  reference(rank, ext, perm, es, layout, in.data(), want.data());
  EXPECT_EQ(cudaMemcpy(bufs.in + in_off, in.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemset(bufs.out, kPoison, bufs.capacity), cudaSuccess);
  EXPECT_EQ(xpose_execute(plan, bufs.in + in_off, bufs.out + out_off, nullptr), XPOSE_SUCCESS)
      << what << ": " << xpose_last_error();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
  EXPECT_EQ(cudaMemcpy(got.data(), bufs.out + out_off, bytes + kGuard, cudaMemcpyDeviceToHost),
            cudaSuccess);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < bytes + kGuard; ++i)
    if (got[i] != want[i] && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << what << ": first wrong byte " << first
                     << (first >= bytes ? " (guard past the end)" : "") << "\nplan: " << desc;
  xpose_plan_destroy(plan);
  return XPOSE_SUCCESS;
}

// A random problem of a kernel's class (ext, perm: column-major, at most 16 MB - 64 bytes, else
// skipped) through the public API at pointer offsets 0-3 (check_case): `taken` counts those
// whose plan names `kernel`. Asserts; callers return on HasFailure().
inline void check_random_case(DeviceBuffers& bufs, std::mt19937_64& rng,
                              const std::vector<int64_t>& ext, const std::vector<int>& perm,
                              size_t es, const char* kernel, int* taken) {
  int64_t vol = 1;
  for (const int64_t e : ext) vol *= e;
  if (vol * static_cast<int64_t>(es) > (int64_t{1} << 24) - 64) return;
  std::string plan;
  ASSERT_EQ(check_case(bufs, rng, static_cast<int>(ext.size()), ext.data(), perm.data(), es,
                       XPOSE_COL_MAJOR, nullptr, rng() % 4, rng() % 4, &plan),
            XPOSE_SUCCESS)
      << xpose_last_error();
  *taken += plan.find(kernel) != std::string::npos;
}

}  // namespace xpose_test
