// CUDA backend of the in-place swaps (core/backend.hpp's InplaceRequest). One thread block of
// 32 x 8 threads exchanges the tiles (x, y) and (y, x) of one item through shared memory (a
// diagonal tile is transposed in place); the items are the cells of the lower triangle of
// tiles, decoded by a pairing::Enumeration (V1, V1R, banded V1B; the full grid and the super
// grid kept for comparison), so that no block is idle and the scheme decides which tiles are in
// flight together. The grid is folded (blocks stride over items), so any size fits.
// Swapped elements that are not a 1/2/4/8/16-byte word (a leading dimension that stays, of odd
// byte size) are swapped by one warp per cell pair, in the widest word the alignment allows.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/backend.hpp"
#include "core/status.hpp"
#include "cuda/runtime.hpp"
#include "inplace/geometry.hpp"

namespace xpose::detail {
namespace {

using inplace::SwapGeometry;
using inplace::TileJob;
constexpr int kRows = 8;  // a block is 32 x kRows threads
constexpr uint64_t kMaxGrid = 2147483647u;

// An element of N bytes with alignment 1, for data not aligned to its element size.
template <int N>
struct Bytes {
  unsigned char b[N];
};

// Tile edge for a word of `bytes` bytes (inplace::kGpuTile).
constexpr int tile_for(size_t bytes) {
  return inplace::kGpuTile[bytes >= 16 ? 4 : bytes >= 8 ? 3 : bytes >= 4 ? 2 : bytes >= 2 ? 1 : 0];
}

// One block per tile pair: both kT x kT tiles through padded shared memory (conflict-free
// transposed reads for 4-byte and wider words), each thread moving kT/32 x kT/kRows elements.
// The loops count iterations with compile-time bounds so that they unroll and every load of a
// phase is in flight before the first shared-memory store.
template <class T, int kT>
__global__ void __launch_bounds__(32 * kRows) swap_tiles_kernel(SwapGeometry g, T* data) {
  __shared__ T lower[kT][kT + 1];
  __shared__ T upper[kT][kT + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t s = g.row_stride;
  for (uint64_t item = blockIdx.x; item < g.items(); item += gridDim.x) {
    TileJob j;
    if (!g.job(item, &j)) continue;  // block-uniform
    const bool diagonal = j.x0 == j.y0;
    const int ex = g.n - j.x0 < kT ? static_cast<int>(g.n - j.x0) : kT;
    const int ey = g.n - j.y0 < kT ? static_cast<int>(g.n - j.y0) : kT;
    T* a = data + j.base + j.x0 + j.y0 * s;  // a[i + r*s] = M(x0 + i, y0 + r)
    T* b = data + j.base + j.y0 + j.x0 * s;  // b[i + r*s] = M(y0 + i, x0 + r)
    __syncthreads();  // the previous item's shared reads are done
#pragma unroll
    for (int q = 0; q < kT / kRows; ++q)
#pragma unroll
      for (int k = 0; k < kT / 32; ++k) {
        const int r = ty + q * kRows, c = tx + k * 32;
        if (c < ex && r < ey) lower[r][c] = a[c + r * s];
      }
    if (!diagonal) {
#pragma unroll
      for (int q = 0; q < kT / kRows; ++q)
#pragma unroll
        for (int k = 0; k < kT / 32; ++k) {
          const int r = ty + q * kRows, c = tx + k * 32;
          if (c < ey && r < ex) upper[r][c] = b[c + r * s];
        }
    }
    __syncthreads();
    // M(x0 + i, y0 + r) takes M(y0 + r, x0 + i) = upper[i][r], and the other way round.
#pragma unroll
    for (int q = 0; q < kT / kRows; ++q)
#pragma unroll
      for (int k = 0; k < kT / 32; ++k) {
        const int r = ty + q * kRows, c = tx + k * 32;
        if (c < ex && r < ey) a[c + r * s] = diagonal ? lower[c][r] : upper[c][r];
      }
    if (!diagonal) {
#pragma unroll
      for (int q = 0; q < kT / kRows; ++q)
#pragma unroll
        for (int k = 0; k < kT / 32; ++k) {
          const int r = ty + q * kRows, c = tx + k * 32;
          if (c < ey && r < ex) b[c + r * s] = lower[c][r];
        }
    }
  }
}

// One warp per cell pair: the two swapped elements of `words` U each trade places.
template <class U>
__global__ void __launch_bounds__(256) swap_chunks_kernel(SwapGeometry g, U* data, int64_t words) {
  const uint64_t warps = static_cast<uint64_t>(gridDim.x) * (blockDim.x / 32);
  const int lane = threadIdx.x % 32;
  for (uint64_t item = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; item < g.items();
       item += warps) {
    TileJob j;  // tile edge 1: (x0, y0) is the cell
    if (!g.job(item, &j) || j.x0 == j.y0) continue;
    U* a = data + (j.base + j.x0 + j.y0 * g.row_stride) * words;
    U* b = data + (j.base + j.y0 + j.x0 * g.row_stride) * words;
    for (int64_t k = lane; k < words; k += 32) {
      const U t = a[k];
      a[k] = b[k];
      b[k] = t;
    }
  }
}

xpose_status_t launch_status(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return XPOSE_SUCCESS;
  return fail(XPOSE_ERROR_DEVICE, std::string(what) + " launch failed: " + cudaGetErrorString(e));
}

template <class T>
xpose_status_t launch_tiles(const SwapGeometry& g, void* data, cudaStream_t stream) {
  const uint64_t items = g.items();
  if (items == 0) return XPOSE_SUCCESS;
  const dim3 block(32, kRows);
  swap_tiles_kernel<T, tile_for(sizeof(T))><<<static_cast<unsigned>(std::min(items, kMaxGrid)), block, 0, stream>>>(
      g, static_cast<T*>(data));
  return launch_status("in-place tile swap");
}

template <class U>
xpose_status_t launch_chunks(const SwapGeometry& g, void* data, int64_t words,
                             cudaStream_t stream) {
  const uint64_t blocks = (g.items() + 7) / 8;
  if (blocks == 0) return XPOSE_SUCCESS;
  swap_chunks_kernel<U><<<static_cast<unsigned>(std::min(blocks, kMaxGrid)), 256, 0, stream>>>(
      g, static_cast<U*>(data), words);
  return launch_status("in-place chunk swap");
}

// The tile kernel for a `unit`-byte word: native words when `data` is aligned to the unit
// (all offsets are multiples of it), else alignment-1 bytes.
xpose_status_t launch_words(size_t unit, bool aligned, const SwapGeometry& g, void* data,
                            cudaStream_t st) {
  switch (unit) {
    case 1: return launch_tiles<uint8_t>(g, data, st);
    case 2: return aligned ? launch_tiles<uint16_t>(g, data, st) : launch_tiles<Bytes<2>>(g, data, st);
    case 4: return aligned ? launch_tiles<uint32_t>(g, data, st) : launch_tiles<Bytes<4>>(g, data, st);
    case 8: return aligned ? launch_tiles<uint2>(g, data, st) : launch_tiles<Bytes<8>>(g, data, st);
    default: return aligned ? launch_tiles<uint4>(g, data, st) : launch_tiles<Bytes<16>>(g, data, st);
  }
}

// Chunked elements: the widest word dividing both the chunk size and the address.
xpose_status_t launch_chunked(size_t chunk, uintptr_t address, const SwapGeometry& g,
                              void* data, cudaStream_t st) {
  size_t word = 16;
  while (word > 1 && (chunk % word != 0 || address % word != 0)) word /= 2;
  const auto words = static_cast<int64_t>(chunk / word);
  switch (word) {
    case 16: return launch_chunks<uint4>(g, data, words, st);
    case 8: return launch_chunks<uint2>(g, data, words, st);
    case 4: return launch_chunks<uint32_t>(g, data, words, st);
    case 2: return launch_chunks<uint16_t>(g, data, words, st);
    default: return launch_chunks<uint8_t>(g, data, words, st);
  }
}

}  // namespace

xpose_status_t cuda_transpose_inplace(const InplaceRequest& r, const xpose_options_t& options,
                                      void* data, void* stream) {
  DeviceGuard guard(options.device);
  XPOSE_TRY(guard.status());
  const inplace::Folding f = inplace::fold(r.elem_size, r.inner);
  const auto scheme =
      r.scheme < 0 ? pairing::Scheme::kV1B : static_cast<pairing::Scheme>(r.scheme);
  const int64_t w = r.w > 0 ? r.w : inplace::kGpuBandWidth[inplace::log2_size(f.unit ? f.unit : 4)];
  const int64_t region = r.region > 0 ? r.region : inplace::kDefaultRegion;
  const SwapGeometry g =
      inplace::make_geometry(r.n, r.mid, r.outer, f.unit ? tile_for(f.unit) : 1, scheme, w, region);
  const auto address = reinterpret_cast<uintptr_t>(data);
  const auto st = static_cast<cudaStream_t>(stream);
  xpose_status_t status = XPOSE_SUCCESS;
  inplace::for_each_launch(g, [&](const SwapGeometry& launch) {
    if (status != XPOSE_SUCCESS) return;
    status = f.unit ? launch_words(f.unit, address % f.unit == 0, launch, data, st)
                    : launch_chunked(f.chunk, address, launch, data, st);
  });
  return status;
}

}  // namespace xpose::detail
