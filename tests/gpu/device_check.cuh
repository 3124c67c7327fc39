// Large GPU results checked on the device: element i of an input holds value_of<T>(i, salt), a
// hash of its index, and every output element is compared with the hash of the input index the
// transposition maps it from, with the count of mismatches summed on the device. Fill and check
// cost a few passes over memory, so tensors of many GiB are checked in milliseconds.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "xpose/xpose.h"

namespace xpose_test {

__host__ __device__ inline uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  return x | 1;  // never zero
}

// A 16-byte element.
struct alignas(16) Pair {
  unsigned long long lo, hi;
  __host__ __device__ bool operator!=(const Pair& o) const { return lo != o.lo || hi != o.hi; }
};

template <class T>
__host__ __device__ inline T value_of(uint64_t i, uint64_t salt) {
  return static_cast<T>(mix(i ^ salt));
}
template <>
__host__ __device__ inline Pair value_of<Pair>(uint64_t i, uint64_t salt) {
  return {mix(i ^ salt), mix(i ^ ~salt)};
}

constexpr int kCheckMaxRank = 8;

// A column-major request: out dim d is in dim perm[d]. A row-major request is the same tensor
// with its dims reversed (column_major()).
struct Shape {
  int rank;
  int64_t ext[kCheckMaxRank];
  int perm[kCheckMaxRank];
  int64_t volume() const {
    int64_t v = 1;
    for (int k = 0; k < rank; ++k) v *= ext[k];
    return v;
  }
  Shape column_major(xpose_layout_t layout) const {
    if (layout == XPOSE_COL_MAJOR) return *this;
    Shape s = *this;
    for (int k = 0; k < rank; ++k) {
      s.ext[k] = ext[rank - 1 - k];
      s.perm[k] = rank - 1 - perm[rank - 1 - k];
    }
    return s;
  }
};

template <class T>
__global__ void fill_values(T* in, int64_t n, uint64_t salt) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x)
    in[i] = value_of<T>(static_cast<uint64_t>(i), salt);
}

// Adds to *bad the output elements of the column-major transposition `s` that do not hold the
// value of their input index.
template <class T>
__global__ void count_mismatches(const T* out, Shape s, int64_t n, uint64_t salt,
                                 unsigned long long* bad) {
  int64_t s_in[kCheckMaxRank];
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
    local += out[j] != value_of<T>(static_cast<uint64_t>(i), salt);
  }
  if (local) atomicAdd(bad, local);
}

// Fills `in` (s.volume() elements) on `stream`.
template <class T>
void fill_on_device(T* in, const Shape& s, uint64_t salt, cudaStream_t stream = nullptr) {
  fill_values<<<4096, 256, 0, stream>>>(in, s.volume(), salt);
}

// Mismatches of `out` against `in` filled with `salt`, waiting for `stream`; ~0ull when the
// device failed.
template <class T>
unsigned long long mismatches_on_device(const T* out, const Shape& s, uint64_t salt,
                                        cudaStream_t stream = nullptr) {
  unsigned long long* bad = nullptr;
  unsigned long long h = ~0ull;
  if (cudaMalloc(&bad, sizeof *bad) != cudaSuccess) return h;
  cudaMemsetAsync(bad, 0, sizeof *bad, stream);
  count_mismatches<<<4096, 256, 0, stream>>>(out, s, s.volume(), salt, bad);
  if (cudaMemcpyAsync(&h, bad, sizeof h, cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
      cudaStreamSynchronize(stream) != cudaSuccess)
    h = ~0ull;
  cudaFree(bad);
  return h;
}

// Whether the `count` bytes at `p` (device memory) all still hold `poison`.
inline bool guard_intact(const void* p, size_t count, uint8_t poison) {
  uint8_t h[256];
  if (count > sizeof h || cudaMemcpy(h, p, count, cudaMemcpyDeviceToHost) != cudaSuccess)
    return false;
  for (size_t i = 0; i < count; ++i)
    if (h[i] != poison) return false;
  return true;
}

// Whether the device has `bytes` free beyond a 256 MiB margin.
inline bool device_has(size_t bytes) {
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return false;
  return free_b >= bytes + (size_t{1} << 28);
}

}  // namespace xpose_test
