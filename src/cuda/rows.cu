// FVI-Match-Large / TiledCopy (TTLG Alg. 7, cuTT TiledCopy) and plain copy: the leading input
// dimension stays leading, so the tensor is a set of rows contiguous in both input and output.
// Rows are cut into chunks of kRowChunkBytes; one warp copies one chunk with accesses as wide as
// the pointers and the row length allow (16 bytes when aligned), 8 loads in flight per lane
// before the stores. No shared memory. The row's offsets come from a 64-bit fast-division decode
// of its index, once per chunk. The grid is folded (warps stride over chunks), so any size fits
// the launch limits. A plain copy is one row.
#include <cuda_runtime.h>

#include "cuda/elem_types.cuh"
#include "cuda/runtime.hpp"

namespace xpose::detail {
namespace {

constexpr int kRowThreads = 256;
constexpr int kUnroll = 8;

template <class V>
__device__ __forceinline__ void copy_chunk(const V* __restrict__ src, V* __restrict__ dst, int n,
                                           int lane) {
  for (int base = 0; base < n; base += 32 * kUnroll) {
    V v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + u * 32 + lane;
      if (i < n) v[u] = src[i];
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + u * 32 + lane;
      if (i < n) dst[i] = v[u];
    }
  }
}

template <class V>
__global__ void __launch_bounds__(kRowThreads)
    rows_kernel(const __grid_constant__ RowParams p, const unsigned char* __restrict__ in,
                unsigned char* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int64_t warps_per_block = kRowThreads / 32;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * warps_per_block;
  for (int64_t item = blockIdx.x * warps_per_block + threadIdx.x / 32; item < p.items;
       item += stride) {
    const uint64_t row = p.chunks.div(static_cast<uint64_t>(item));
    const int64_t chunk = item - static_cast<int64_t>(row * p.chunks.d);
    int64_t ib = 0, ob = 0;
    uint64_t rest = row;
    for (int k = 0; k < p.n_dims; ++k) {
      const uint64_t q = p.dim[k].extent.div(rest);
      const int64_t c = static_cast<int64_t>(rest - q * p.dim[k].extent.d);
      rest = q;
      ib += c * p.dim[k].in_stride;
      ob += c * p.dim[k].out_stride;
    }
    const int64_t begin = chunk * kRowChunkBytes;
    const int64_t left = p.row_bytes - begin;
    const int n = static_cast<int>((left < kRowChunkBytes ? left : kRowChunkBytes) /
                                   static_cast<int64_t>(sizeof(V)));
    copy_chunk(reinterpret_cast<const V*>(in + ib + begin), reinterpret_cast<V*>(out + ob + begin),
               n, lane);
  }
}

template <int Log2>
cudaError_t launch_one(const RowParams& p, const void* in, void* out, cudaStream_t stream,
                       unsigned grid) {
  rows_kernel<Elem<Log2>><<<grid, kRowThreads, 0, stream>>>(
      p, static_cast<const unsigned char*>(in), static_cast<unsigned char*>(out));
  return cudaGetLastError();
}

using LaunchFn = cudaError_t (*)(const RowParams&, const void*, void*, cudaStream_t, unsigned);
// The dispatch table: one instantiation per access width.
constexpr LaunchFn kLaunch[5] = {&launch_one<0>, &launch_one<1>, &launch_one<2>, &launch_one<3>,
                                 &launch_one<4>};

}  // namespace

xpose_status_t launch_rows(const RowParams& p, int vec_log2, const void* in, void* out,
                           void* stream, unsigned grid) {
  return launch_status(kLaunch[vec_log2](p, in, out, static_cast<cudaStream_t>(stream), grid),
                       "rows");
}

}  // namespace xpose::detail
