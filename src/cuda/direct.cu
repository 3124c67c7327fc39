// Direct (planner.hpp): tensors up to ~1 MB, and plain ones of 4-16 byte elements in L2 whose
// reads stay within a share of it (direct_in_l2), one thread per output element. Its input
// offset is decoded from its output index over the output's dims (32-bit fast divisions); the
// element moves in pieces of 2^Piece bytes, the widest both pointers allow. Output stores
// coalesce; the scattered input reads hit L2 (the rule bounds the sectors a warp's reads touch).
// No shared memory, no barrier: a block is a decode, a load and a store, where a tile kernel's
// setup, barriers and pipeline took 1.2-2.6 us more than a launch (docs/perf/middle-h100.md),
// and its small tiles of a few hundred elements in L2 ran 1.6x slower (docs/perf/middle-h200.md).
#include <cuda_runtime.h>

#include "core/status.hpp"
#include "cuda/elem_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/runtime.hpp"

namespace xpose::detail {
namespace {

template <int Log2, int Piece>
__global__ void __launch_bounds__(kDirectThreads)
    direct_kernel(const __grid_constant__ DirectParams p, const unsigned char* __restrict__ in,
                  unsigned char* __restrict__ out) {
  const uint32_t j = blockIdx.x * kDirectThreads + threadIdx.x;
  if (j >= static_cast<uint32_t>(p.volume)) return;
  uint32_t rest = j, off = 0;
  for (int k = 0; k < p.n_dims; ++k) {
    const uint32_t q = p.dim[k].extent.div(rest);
    off += (rest - q * p.dim[k].extent.d) * static_cast<uint32_t>(p.dim[k].in_stride);
    rest = q;
  }
  using P = Elem<Piece>;
  constexpr int kPieces = 1 << (Log2 - Piece);
  const P* src = reinterpret_cast<const P*>(in + (static_cast<size_t>(off) << Log2));
  P* dst = reinterpret_cast<P*>(out + (static_cast<size_t>(j) << Log2));
#pragma unroll
  for (int i = 0; i < kPieces; ++i) dst[i] = src[i];
}

template <int Log2, int Piece>
cudaError_t launch_one(const DirectParams& p, const void* in, void* out, cudaStream_t stream,
                       unsigned grid) {
  return launch_kernel(&direct_kernel<Log2, Piece>, grid, kDirectThreads, 0, stream, p,
                       static_cast<const unsigned char*>(in), static_cast<unsigned char*>(out));
}

using LaunchFn = cudaError_t (*)(const DirectParams&, const void*, void*, cudaStream_t, unsigned);
// [element size][piece width], pieces no wider than the element (null above).
template <int Log2, int Piece>
constexpr LaunchFn kFn = Piece <= Log2 ? &launch_one<Log2, (Piece <= Log2 ? Piece : Log2)> : nullptr;
template <int Log2>
constexpr LaunchFn kRow[5] = {kFn<Log2, 0>, kFn<Log2, 1>, kFn<Log2, 2>, kFn<Log2, 3>,
                              kFn<Log2, 4>};
constexpr const LaunchFn* kLaunch[5] = {kRow<0>, kRow<1>, kRow<2>, kRow<3>, kRow<4>};

}  // namespace

xpose_status_t launch_direct(const DirectParams& p, int log2_elem, int log2_piece, const void* in,
                             void* out, void* stream, unsigned grid) {
  const int piece = log2_piece < log2_elem ? log2_piece : log2_elem;
  return launch_status(
      kLaunch[log2_elem][piece](p, in, out, static_cast<cudaStream_t>(stream), grid), "direct");
}

}  // namespace xpose::detail
