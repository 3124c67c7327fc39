// Wide 2D tiles (params.hpp, Narrow2dParams): the Tiled schema where each run is one dimension,
// for plain elements of 4, 8 and 16 bytes, and for 1- and 2-byte ones packed in 4-byte words
// (packed2d_kernel below). A block of 32 x 8 threads takes a tile of 32 x 32 elements (input
// dim 0 x the output's dim 0, input dim perm[0]; every other dimension is a grid dimension):
// lane x loads element x of rows y, y + 8, y + 16, y + 24 (input runs), stores them in a padded
// shared tile, and after one barrier stores element x of output runs y, y + 8, ... from its
// column. Nothing else: a block's setup is its tile's walk (32-bit arithmetic
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

// Packed 1- and 2-byte elements (planner.hpp, packed2d_takes): input dim 0 and the output's dim 0
// hold a multiple of P = 4 / ES elements and every tensor offset of a tile's rows and runs is a
// multiple of 4 bytes, so both sides move 4-byte words. A tile is 32 words of input dim 0 (32 P
// elements: the output runs) x 32 P rows (elements of dim perm[0]: output runs of 32 words). The
// loads are wide2d's, in words; row r lies in plane r % P at slot r / P, so that output word w of
// run c, element c of rows P w .. P w + P - 1, is word c / P of slot w in each plane: P shared
// loads whose lanes (consecutive w) read consecutive banks, their elements put side by side by
// byte permutes; a warp stores one run. Tiles of 32 rows (output runs of 8 or 16 words) ran
// 0.87x (1 B) and 0.79x (2 B) of these on the same problems in the L2 band, and capped at 32
// registers (eight blocks an SM) they issued 23 % more instructions and ran 0.8-0.9x (session 21,
// docs/perf/middle-h100.md).
template <int ES>
struct PackedTile {
  static constexpr int P = 4 / ES;
  static constexpr int R = kWide2dTile * P;         // rows
  static constexpr int kRowWords = kWide2dTile + 1;
  static constexpr int kPlane = kWide2dTile * kRowWords;  // words of a plane (R / P slots)
  static constexpr int kRunPasses = R / kRows;      // output runs a thread writes
};

template <int ES>
__device__ __forceinline__ uint32_t gather_word(const uint32_t* tile, int w, int c) {
  using T = PackedTile<ES>;
  const uint32_t* col = tile + w * T::kRowWords + c / T::P;
  const uint32_t e = static_cast<uint32_t>(c % T::P);
  if constexpr (ES == 2) {
    // halfword e of both words: 0x5410 (low halves), 0x7632 (high ones)
    return __byte_perm(col[0], col[T::kPlane], e ? 0x7632u : 0x5410u);
  } else {
    const uint32_t sel = e | (e + 4) << 4;  // byte e of x, then byte e of y
    const uint32_t lo = __byte_perm(col[0], col[T::kPlane], sel);
    const uint32_t hi = __byte_perm(col[2 * T::kPlane], col[3 * T::kPlane], sel);
    return __byte_perm(lo, hi, 0x5410u);
  }
}

template <int ES, int Piece, class Off>
__global__ void __launch_bounds__(kWide2dThreads)
    packed2d_kernel(const __grid_constant__ Narrow2dParams p, const uint8_t* __restrict__ in,
                    uint8_t* __restrict__ out) {
  using T = PackedTile<ES>;
  constexpr int P = T::P;
  __shared__ uint32_t tile[P * T::kPlane];
  // Loads: lane x, rows y + 8 k (all in plane y % P, at slots y / P + 8 k / P); stores: lane x
  // writes word x of runs y + 8 k.
  const int x = static_cast<int>(threadIdx.x % kWide2dTile);
  const int y = static_cast<int>(threadIdx.x / kWide2dTile);
  uint32_t* const mine = tile + (y % P) * T::kPlane + (y / P) * T::kRowWords + x;
  const auto in_row = static_cast<Off>(p.in_row >> 2);  // words
  const auto out_row = static_cast<Off>(p.out_row >> 2);
  const uint32_t* const src = reinterpret_cast<const uint32_t*>(in);
  uint32_t* const dst = reinterpret_cast<uint32_t*>(out);
  for (int64_t t = blockIdx.x; t < p.num_tiles; t += gridDim.x) {
    const TileBaseOf<Off> b =
        walk_tile_as<Off, Off>(p.grid, p.n_grid, p.slot_tile, static_cast<Off>(t));
    const int vi = static_cast<int>(b.lim0) / P, vj = static_cast<int>(b.lim1);  // words, rows
    const Off rd = b.in / P + static_cast<Off>(y) * in_row + static_cast<Off>(x);
#pragma unroll
    for (int k0 = 0; k0 < T::R / kRows; k0 += kPasses) {  // kPasses rows in flight at a time
      uint32_t v[kPasses];
#pragma unroll
      for (int k = 0; k < kPasses; ++k)
        if (x < vi && y + (k0 + k) * kRows < vj)
          v[k] = load_pieces<Piece>(src + (rd + static_cast<Off>((k0 + k) * kRows) * in_row));
#pragma unroll
      for (int k = 0; k < kPasses; ++k)
        if (x < vi && y + (k0 + k) * kRows < vj) mine[(k0 + k) * kRows / P * T::kRowWords] = v[k];
    }
    __syncthreads();
    const Off wr = b.out / P + static_cast<Off>(y) * out_row + static_cast<Off>(x);
#pragma unroll
    for (int k = 0; k < T::kRunPasses; ++k)
      if (x * P < vj && y + k * kRows < vi * P)
        store_pieces<Piece>(dst + (wr + static_cast<Off>(k * kRows) * out_row),
                            gather_word<ES>(tile, x, y + k * kRows));
    __syncthreads();
  }
}

template <int Log2, int Piece>
cudaError_t launch_one(const Narrow2dParams& p, const void* in, void* out, cudaStream_t stream,
                       unsigned grid) {
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  if constexpr (Log2 < 2) {  // packed words (Piece: of a word)
    if ((p.in_bytes >> Log2) < (int64_t{1} << 31))
      return launch_kernel(&packed2d_kernel<1 << Log2, Piece, uint32_t>, grid, kWide2dThreads, 0,
                           stream, p, src, dst);
    return launch_kernel(&packed2d_kernel<1 << Log2, Piece, int64_t>, grid, kWide2dThreads, 0,
                         stream, p, src, dst);
  } else {
    if ((p.in_bytes >> Log2) < (int64_t{1} << 31))
      return launch_kernel(&wide2d_kernel<Log2, Piece, uint32_t>, grid, kWide2dThreads, 0,
                           stream, p, src, dst);
    return launch_kernel(&wide2d_kernel<Log2, Piece, int64_t>, grid, kWide2dThreads, 0, stream,
                         p, src, dst);
  }
}

using LaunchFn = cudaError_t (*)(const Narrow2dParams&, const void*, void*, cudaStream_t,
                                 unsigned);
// [element size 1, 2, 4, 8, 16][piece width], pieces no wider than the element, or than a word
// for packed 1- and 2-byte elements (null above).
template <int Log2>
constexpr int kUnit = Log2 < 2 ? 2 : Log2;  // log2 of what a thread moves
template <int Log2, int Piece>
constexpr LaunchFn kFn =
    Piece <= kUnit<Log2> ? &launch_one<Log2, (Piece <= kUnit<Log2> ? Piece : 0)> : nullptr;
template <int Log2>
constexpr LaunchFn kRow[5] = {kFn<Log2, 0>, kFn<Log2, 1>, kFn<Log2, 2>, kFn<Log2, 3>,
                              kFn<Log2, 4>};
constexpr const LaunchFn* kLaunch[5] = {kRow<0>, kRow<1>, kRow<2>, kRow<3>, kRow<4>};

}  // namespace

xpose_status_t launch_wide2d(const Narrow2dParams& p, int log2_elem, int log2_piece,
                             const void* in, void* out, void* stream, unsigned grid) {
  if (log2_elem < 0 || log2_elem > 4)
    return fail(XPOSE_ERROR_INTERNAL, "wide2d takes elements of 1 to 16 bytes");
  const int unit = log2_elem < 2 ? 2 : log2_elem;
  const int piece = log2_piece < unit ? log2_piece : unit;
  return launch_status(
      kLaunch[log2_elem][piece](p, in, out, static_cast<cudaStream_t>(stream), grid), "wide2d");
}

}  // namespace xpose::detail
