// Wide 2D tiles (params.hpp, Narrow2dParams): the Tiled schema where each run is one dimension,
// for plain elements of 4, 8 and 16 bytes. A block of 32 x 8 threads takes a tile of 32 x 32
// elements (input dim 0 x the output's dim 0, input dim perm[0]; every other dimension is a grid
// dimension): lane x loads element x of rows y, y + 8, y + 16, y + 24 (input runs), stores
// them in a padded shared tile, and after one barrier stores element x of output runs y, y + 8,
// ... from its column. Nothing else: a block's setup is its tile's walk (32-bit arithmetic
// below 2^31 elements), 32 registers (16-byte elements: up to 48) and 4-17 KB of shared memory,
// so up to eight blocks (2048 threads) run per SM. The tile kernel (tiled.cu) holds 64
// registers for its pipeline and decoded positions, one or two blocks of up to 1024 threads per
// SM: at 1-16 MB, where a block moves one to eight tiles, its setup was about half of its
// instructions and the transposition took about twice a copy's time (docs/perf/middle-h100.md,
// session 20).
// A block per tile (the loop only folds grids past 2^31 - 1 blocks). Pointers that are not
// multiples of the element size move each element in pieces of 2^Piece bytes, the widest both
// allow.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/status.hpp"
#include "cuda/elem_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/runtime.hpp"
#include "cuda/tile_walk.cuh"

namespace xpose::detail {
namespace {

constexpr int kRows = kWide2dThreads / kWide2dTile;  // rows of the tile a pass takes
constexpr int kPasses = kWide2dTile / kRows;

// Off: the offsets' type, uint32_t for tensors of fewer than 2^31 elements (then the walk and
// every address are 32-bit arithmetic: the 64-bit kernel issued twice the instructions of a
// plain 32 x 8 transposition, ~325 per warp at 4 MB), else int64_t.
template <int Log2, int Piece, class Off>
__global__ void __launch_bounds__(kWide2dThreads)
    wide2d_kernel(const __grid_constant__ Narrow2dParams p, const uint8_t* __restrict__ in,
                  uint8_t* __restrict__ out) {
  using T = Elem<Log2>;
  __shared__ T tile[kWide2dTile][kWide2dTile + 1];  // [row of the input][element of the row]
  const int x = static_cast<int>(threadIdx.x % kWide2dTile);
  const int y = static_cast<int>(threadIdx.x / kWide2dTile);
  const auto in_row = static_cast<Off>(p.in_row >> Log2);  // elements
  const auto out_row = static_cast<Off>(p.out_row >> Log2);
  const T* const src = reinterpret_cast<const T*>(in);
  T* const dst = reinterpret_cast<T*>(out);
  for (int64_t t = blockIdx.x; t < p.num_tiles; t += gridDim.x) {
    const TileBaseOf<Off> b =
        walk_tile_as<Off, Off>(p.grid, p.n_grid, p.slot_tile, static_cast<Off>(t));
    const int vi = static_cast<int>(b.lim0), vj = static_cast<int>(b.lim1);
    const Off rd = b.in + static_cast<Off>(y) * in_row + static_cast<Off>(x);
    T v[kPasses];
#pragma unroll
    for (int k = 0; k < kPasses; ++k)
      if (x < vi && y + k * kRows < vj)
        v[k] = load_pieces<Piece>(src + (rd + static_cast<Off>(k * kRows) * in_row));
#pragma unroll
    for (int k = 0; k < kPasses; ++k)
      if (x < vi && y + k * kRows < vj) tile[y + k * kRows][x] = v[k];
    __syncthreads();
    const Off wr = b.out + static_cast<Off>(y) * out_row + static_cast<Off>(x);
#pragma unroll
    for (int k = 0; k < kPasses; ++k)
      if (x < vj && y + k * kRows < vi)
        store_pieces<Piece>(dst + (wr + static_cast<Off>(k * kRows) * out_row),
                            tile[x][y + k * kRows]);
    __syncthreads();
  }
}

template <int Log2, int Piece>
cudaError_t launch_one(const Narrow2dParams& p, const void* in, void* out, cudaStream_t stream,
                       unsigned grid) {
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  if ((p.in_bytes >> Log2) < (int64_t{1} << 31))
    return launch_kernel(&wide2d_kernel<Log2, Piece, uint32_t>, grid, kWide2dThreads, 0, stream,
                         p, src, dst);
  return launch_kernel(&wide2d_kernel<Log2, Piece, int64_t>, grid, kWide2dThreads, 0, stream, p,
                       src, dst);
}

using LaunchFn = cudaError_t (*)(const Narrow2dParams&, const void*, void*, cudaStream_t,
                                 unsigned);
// [element size 4, 8, 16][piece width], pieces no wider than the element (null above).
template <int Log2, int Piece>
constexpr LaunchFn kFn =
    Piece <= Log2 ? &launch_one<Log2, (Piece <= Log2 ? Piece : Log2)> : nullptr;
template <int Log2>
constexpr LaunchFn kRow[5] = {kFn<Log2, 0>, kFn<Log2, 1>, kFn<Log2, 2>, kFn<Log2, 3>,
                              kFn<Log2, 4>};
constexpr const LaunchFn* kLaunch[3] = {kRow<2>, kRow<3>, kRow<4>};

}  // namespace

xpose_status_t launch_wide2d(const Narrow2dParams& p, int log2_elem, int log2_piece,
                             const void* in, void* out, void* stream, unsigned grid) {
  if (log2_elem < 2 || log2_elem > 4)
    return fail(XPOSE_ERROR_INTERNAL, "wide2d takes elements of 4, 8 and 16 bytes");
  const int piece = log2_piece < log2_elem ? log2_piece : log2_elem;
  return launch_status(
      kLaunch[log2_elem - 2][piece](p, in, out, static_cast<cudaStream_t>(stream), grid),
      "wide2d");
}

}  // namespace xpose::detail
