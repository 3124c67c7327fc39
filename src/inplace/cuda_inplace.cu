// CUDA backend of the in-place swaps (core/backend.hpp's InplaceRequest). One thread block of
// 32 x 8 threads exchanges the tiles (x, y) and (y, x) of one item through shared memory (a
// diagonal tile is transposed in place); the items are the cells of the lower triangle of
// tiles, decoded by a pairing::Enumeration (V1, V1R, banded V1B; the full grid and the super
// grid kept for comparison), so that no block is idle and the scheme decides which tiles are in
// flight together. The grid is folded (blocks stride over items), so any size fits. 1- and
// 2-byte elements move as 4-byte words transposed in registers (rows that do not start on a word
// realigned by funnel shifts); 4-byte ones in pairs when every row starts on 8 bytes, else one
// at a time on 64 x 64 tiles; 8-byte ones in pairs on 64 x 64 tiles where rows start on 16
// bytes but not on 128-byte lines (geometry.hpp's gpu_tiles). Swapped elements that are not a
// 1/2/4/8/16-byte word (a leading dimension that stays, of odd byte size) are swapped by one
// warp per cell pair, in the widest word the alignment allows.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/backend.hpp"
#include "core/status.hpp"
#include "cuda/elem_types.cuh"
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

// kV elements moved by one global access (aligned as kV elements: an alignment-1 element
// type, for unaligned data, stays alignment 1).
template <class T, int kV>
struct alignas(alignof(T) * kV) Vec {
  T e[kV];
};

// One phase over the rows r < rows (r = threadIdx.y + R * q) of a tile of `cols` columns
// at g (row stride s): kLoad copies the rows into shared memory (sm[r][c] = g[c + r*s]), else
// writes them from it, transposed (g[c + r*s] = sm[c][r]). Lane x moves the kV-element words
// that start at columns kV * (x + 32 k). With kV > 1 the launch has checked that every row
// starts on a word and holds whole words, so a word is in the tile or out of it. The loop is
// predicated, not branched, so that the compiler issues all of a phase's loads together.
template <bool kLoad, class T, int kV, int kT, int R>
__device__ __forceinline__ void tile_phase(T* g, int64_t s, int cols, int rows, T (*sm)[kT + 1]) {
  static_assert(kT % (32 * kV) == 0, "a row is a whole number of warp accesses");
#pragma unroll
  for (int q = 0; q < kT / R; ++q)
#pragma unroll
    for (int k = 0; k < kT / (32 * kV); ++k) {
      const int r = threadIdx.y + q * R, c = kV * (threadIdx.x + 32 * k);
      if (r >= rows || c >= cols) continue;
      auto* word = reinterpret_cast<Vec<T, kV>*>(g + c + r * s);
      if constexpr (kLoad) {
        const Vec<T, kV> v = *word;
#pragma unroll
        for (int e = 0; e < kV; ++e) sm[r][c + e] = v.e[e];
      } else {
        Vec<T, kV> v;
#pragma unroll
        for (int e = 0; e < kV; ++e) v.e[e] = sm[c + e][r];
        *word = v;
      }
    }
}

// One block of 32 x R threads per tile pair: both kT x kT tiles through padded shared memory
// (conflict-free transposed reads for one-element words of 4 bytes and more, 2-way for the
// 2-element words of 4- and 8-byte elements), every load of a phase in flight before the first
// shared-memory store.
template <class T, int kT, int kV, int R>
__device__ __forceinline__ void swap_tiles(const SwapGeometry& g, T* data, T (*lower)[kT + 1],
                                           T (*upper)[kT + 1]) {
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
    tile_phase<true, T, kV, kT, R>(a, s, ex, ey, lower);
    if (!diagonal) tile_phase<true, T, kV, kT, R>(b, s, ey, ex, upper);
    __syncthreads();
    // M(x0 + i, y0 + r) takes M(y0 + r, x0 + i) = upper[i][r], and the other way round.
    tile_phase<false, T, kV, kT, R>(a, s, ex, ey, diagonal ? lower : upper);
    if (!diagonal) tile_phase<false, T, kV, kT, R>(b, s, ey, ex, lower);
  }
}

template <class T, int kT, int kV>
__global__ void __launch_bounds__(32 * kRows) swap_tiles_kernel(SwapGeometry g, T* data) {
  __shared__ T lower[kT][kT + 1];
  __shared__ T upper[kT][kT + 1];
  swap_tiles<T, kT, kV, kRows>(g, data, lower, upper);
}

// 64 x 64 tiles of one element per access (4 bytes) held to four blocks per SM (64
// registers): left to itself the compiler took 96, two blocks per SM, and odd n ran at 0.80 of
// copy instead of 0.95 (docs/perf/inplace-h100.md, session 22). A kernel of its own: a second
// launch bound on the template gave the other tiles 54-72 registers instead of 40-48.
template <class T, int kT, int kV>
__global__ void __launch_bounds__(32 * kRows, 4) swap_wide_tiles_kernel(SwapGeometry g, T* data) {
  __shared__ T lower[kT][kT + 1];
  __shared__ T upper[kT][kT + 1];
  swap_tiles<T, kT, kV, kRows>(g, data, lower, upper);
}

// 8-byte elements in pairs (16-byte accesses) on 64 x 64 tiles where rows start on 16 bytes
// but not on 128-byte lines (geometry.hpp): 512 threads, the two tiles in 66 KB of dynamic
// shared memory (three blocks per SM).
constexpr int kPairRows = 16;
template <class T, int kT, int kV>
__global__ void __launch_bounds__(32 * kPairRows) swap_pair_tiles_kernel(SwapGeometry g, T* data) {
  extern __shared__ uint4 pair_tiles[];
  auto* lower = reinterpret_cast<T(*)[kT + 1]>(pair_tiles);
  swap_tiles<T, kT, kV, kPairRows>(g, data, lower, lower + kT);
}

// Narrow elements (1 and 2 bytes) on vector rows: a lane moves one 4-byte word of K = 4 / size
// elements per access, from K adjacent rows at a time, and transposes the K x K block in
// registers (byte or halfword permutes) into K words that each hold K elements of one column.
// Shared memory holds a tile transposed, as words: sm[column][row group], the row group
// XOR-swizzled by the column's word, so that both phases are free of bank conflicts. The write
// phase then stores whole words read as words. Per word, the element-wise tile took K shared
// stores and K shared loads of one element and K inserts (1-byte elements: 0.75-0.79 of copy
// where 4-byte elements run at 0.95, docs/perf/inplace-h100.md); this takes one of each and
// about two permutes.
template <int K>
__device__ __forceinline__ void transpose_words(uint32_t (&w)[K]) {
  if constexpr (K == 2) {  // halfwords: (r0c0 r0c1) (r1c0 r1c1) -> (r0c0 r1c0) (r0c1 r1c1)
    const uint32_t c0 = __byte_perm(w[0], w[1], 0x5410), c1 = __byte_perm(w[0], w[1], 0x7632);
    w[0] = c0;
    w[1] = c1;
  } else {  // bytes: pairs of rows interleaved, then pairs of pairs
    const uint32_t a = __byte_perm(w[0], w[1], 0x5140), b = __byte_perm(w[0], w[1], 0x7362);
    const uint32_t c = __byte_perm(w[2], w[3], 0x5140), d = __byte_perm(w[2], w[3], 0x7362);
    w[0] = __byte_perm(a, c, 0x5410);
    w[1] = __byte_perm(a, c, 0x7632);
    w[2] = __byte_perm(b, d, 0x5410);
    w[3] = __byte_perm(b, d, 0x7632);
  }
}

// A tile of up to 32 K columns as 32 row groups of K rows: sm[c][g ^ c / K] holds rows
// K g .. K g + K - 1 of column c.
using WordTile = uint32_t[32];
constexpr unsigned kAllLanes = 0xffffffffu;

// The offset of row r of a tile at g (row stride s bytes) from the 4-byte word it starts in
// (32-bit arithmetic suffices modulo 4).
__device__ __forceinline__ int word_offset(const unsigned char* g, int64_t s, int r) {
  return static_cast<int>((static_cast<uint32_t>(reinterpret_cast<uintptr_t>(g)) +
                           static_cast<uint32_t>(r) * static_cast<uint32_t>(s)) & 3u);
}

// The bytes of the aligned word at p that lie before `end` (the word reaches past the data).
__device__ __noinline__ uint32_t load_tail(const unsigned char* p, const unsigned char* end) {
  uint32_t w = 0;
  for (int i = 0; p + i < end; ++i) w |= static_cast<uint32_t>(p[i]) << (8 * i);
  return w;
}

// Load phase: `rows` rows of `cols` elements at g, row stride s bytes, transposed into sm.
// Words on rows that start on a word (rows and cols multiples of K); with kRealign, rows that
// start anywhere: a row of cols <= 31 K elements lies within the 32 aligned words from the one
// it starts in, which the lanes load (predicated, all before the first is used) and funnel-shift
// into place (lane x: the row's bytes 4x .. 4x + 3; those past the row are never stored).
// kTail: the tile reaches the data's last word, which may reach past `end`.
template <int K, bool kRealign, bool kTail>
__device__ __forceinline__ void narrow_load(const unsigned char* g, int64_t s, int cols, int rows,
                                            const unsigned char* end, WordTile* sm) {
  constexpr int kGroups = 32 / kRows;
  const int x = threadIdx.x, len = cols * (4 / K);
  uint32_t raw[kGroups][K];
#pragma unroll
  for (int q = 0; q < kGroups; ++q)
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int r = K * (threadIdx.y + q * kRows) + k;  // the same for the whole warp
      const int sh = kRealign ? word_offset(g, s, r) : 0;
      const unsigned char* p = g + r * s - sh + 4 * x;
      raw[q][k] = r < rows && 4 * x < sh + len && (!kTail || p + 4 <= end)
                      ? *reinterpret_cast<const uint32_t*>(p) : 0;
    }
#pragma unroll
  for (int q = 0; q < kGroups; ++q) {
    const int group = threadIdx.y + q * kRows;
    uint32_t w[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      w[k] = raw[q][k];
      const int r = K * group + k, sh = kRealign ? word_offset(g, s, r) : 0;
      if constexpr (kTail) {
        const unsigned char* p = g + r * s - sh + 4 * x;
        if (r < rows && 4 * x < sh + len && p + 4 > end) w[k] = load_tail(p, end);
      }
      if constexpr (kRealign)
        w[k] = __funnelshift_r(w[k], __shfl_down_sync(kAllLanes, w[k], 1), 8 * sh);
    }
    transpose_words<K>(w);
#pragma unroll
    for (int j = 0; j < K; ++j) sm[K * x + j][group ^ x] = w[j];
  }
}

// The bytes [lo, hi) (0 <= lo < hi <= 4) of w at the word q: at most a byte, a halfword and a
// byte, each aligned.
__device__ __forceinline__ void store_bytes(unsigned char* q, uint32_t w, int lo, int hi) {
  if (lo & 1) {
    q[lo] = static_cast<unsigned char>(w >> (8 * lo));
    ++lo;
  }
  if (hi - lo >= 2) {
    *reinterpret_cast<uint16_t*>(q + lo) = static_cast<uint16_t>(w >> (8 * lo));
    lo += 2;
  }
  if (lo < hi) q[lo] = static_cast<unsigned char>(w >> (8 * lo));
}

// Write phase: row r of the `rows` x `cols` tile at g is column r of the tile in sm. With
// kRealign, lane x stores the aligned word x of the row (from its word and its left
// neighbour's), whole inside the row, else only the row's own bytes: the others belong to tiles
// that other blocks may be swapping.
template <int K, bool kRealign>
__device__ __forceinline__ void narrow_store(unsigned char* g, int64_t s, int cols, int rows,
                                             const WordTile* sm) {
  const int x = threadIdx.x, len = cols * (4 / K);
#pragma unroll
  for (int q = 0; q < 32 * K / kRows; ++q) {
    const int r = threadIdx.y + q * kRows;  // the same for the whole warp
    if (r >= rows) continue;
    uint32_t w = sm[r][x ^ (r / K)];
    const int sh = kRealign ? word_offset(g, s, r) : 0;
    if constexpr (kRealign) w = __funnelshift_l(__shfl_up_sync(kAllLanes, w, 1), w, 8 * sh);
    unsigned char* p = g + r * s - sh + 4 * x;
    const int first = 4 * x - sh;  // the row byte at p
    if (first >= 0 && first + 4 <= len)
      *reinterpret_cast<uint32_t*>(p) = w;
    else if (kRealign && first + 4 > 0 && first < len)
      store_bytes(p, w, first < 0 ? -first : 0, len - first < 4 ? len - first : 4);
  }
}

// Blocks per SM the word tiles are compiled for (the most that spill little): left alone, the
// compiler gives them 118-222 registers, two blocks or one per SM, and 2-byte elements ran at
// 0.66 of copy (H100, docs/perf/inplace-h100.md); 3-6 blocks keep 64-96 KB in flight per SM.
template <int K, bool kRealign>
constexpr int kWordTileBlocks = K == 4 ? 3 : kRealign ? 4 : 6;

// One item: the tile pair of `job` through lower and upper (the block's shared tiles).
template <int K, bool kRealign>
__device__ __forceinline__ void swap_word_tiles(const SwapGeometry& g, const TileJob& job,
                                                unsigned char* data, const unsigned char* end,
                                                WordTile* lower, WordTile* upper) {
  constexpr int kT = inplace::gpu_word_tile(K, kRealign);
  constexpr int64_t kSize = 4 / K;
  const int64_t s = g.row_stride * kSize;
  const bool diagonal = job.x0 == job.y0;
  const int ex = g.n - job.x0 < kT ? static_cast<int>(g.n - job.x0) : kT;
  const int ey = g.n - job.y0 < kT ? static_cast<int>(g.n - job.y0) : kT;
  unsigned char* a = data + (job.base + job.x0) * kSize + job.y0 * s;
  unsigned char* b = data + (job.base + job.y0) * kSize + job.x0 * s;
  // Realigned rows: only tiles that reach the data's last word check loads against its end
  // (rows on words end on words).
  const unsigned char* last = end - 4;
  if (kRealign && (a + (ey - 1) * s + ex * kSize > last || b + (ex - 1) * s + ey * kSize > last)) {
    narrow_load<K, kRealign, true>(a, s, ex, ey, end, lower);
    if (!diagonal) narrow_load<K, kRealign, true>(b, s, ey, ex, end, upper);
  } else {
    narrow_load<K, kRealign, false>(a, s, ex, ey, end, lower);
    if (!diagonal) narrow_load<K, kRealign, false>(b, s, ey, ex, end, upper);
  }
  __syncthreads();
  narrow_store<K, kRealign>(a, s, ex, ey, diagonal ? lower : upper);
  if (!diagonal) narrow_store<K, kRealign>(b, s, ey, ex, lower);
}

template <int K, bool kRealign>
__global__ void __launch_bounds__(32 * kRows, (kWordTileBlocks<K, kRealign>))
    swap_narrow_kernel(SwapGeometry g, unsigned char* data, const unsigned char* end) {
  __shared__ WordTile lower[32 * K];
  __shared__ WordTile upper[32 * K];
  for (uint64_t item = blockIdx.x; item < g.items(); item += gridDim.x) {
    TileJob job;
    if (!g.job(item, &job)) continue;  // block-uniform
    __syncthreads();  // the previous item's shared reads are done
    swap_word_tiles<K, kRealign>(g, job, data, end, lower, upper);
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

template <class T, int kT, int kV>
xpose_status_t launch_tiles(const SwapGeometry& g, void* data, cudaStream_t stream) {
  const uint64_t items = g.items();
  if (items == 0) return XPOSE_SUCCESS;
  const auto grid = static_cast<unsigned>(std::min(items, kMaxGrid));
  T* d = static_cast<T*>(data);
  if constexpr (sizeof(T) == 8 && kV == 2) {
    // Per launch, not once per process: the attribute belongs to the current device's context.
    constexpr int kSmem = 2 * kT * (kT + 1) * static_cast<int>(sizeof(T));
    const cudaError_t allowed = cudaFuncSetAttribute(
        swap_pair_tiles_kernel<T, kT, kV>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    if (allowed != cudaSuccess) return launch_status(allowed, "in-place tile swap");
    swap_pair_tiles_kernel<T, kT, kV><<<grid, dim3(32, kPairRows), kSmem, stream>>>(g, d);
  } else if constexpr (kT == 64 && kV == 1) {
    swap_wide_tiles_kernel<T, kT, kV><<<grid, dim3(32, kRows), 0, stream>>>(g, d);
  } else {
    swap_tiles_kernel<T, kT, kV><<<grid, dim3(32, kRows), 0, stream>>>(g, d);
  }
  return launch_status(cudaGetLastError(), "in-place tile swap");
}

// `bytes`: the data's size (realigned rows read whole words only below data + bytes).
template <int K, bool kRealign>
xpose_status_t launch_narrow(const SwapGeometry& g, void* data, uint64_t bytes,
                             cudaStream_t stream) {
  const uint64_t items = g.items();
  if (items == 0) return XPOSE_SUCCESS;
  auto* d = static_cast<unsigned char*>(data);
  swap_narrow_kernel<K, kRealign><<<static_cast<unsigned>(std::min(items, kMaxGrid)),
                                    dim3(32, kRows), 0, stream>>>(g, d, d + bytes);
  return launch_status(cudaGetLastError(), "in-place narrow tile swap");
}

template <class U>
xpose_status_t launch_chunks(const SwapGeometry& g, void* data, int64_t words,
                             cudaStream_t stream) {
  const uint64_t blocks = (g.items() + 7) / 8;
  if (blocks == 0) return XPOSE_SUCCESS;
  swap_chunks_kernel<U><<<static_cast<unsigned>(std::min(blocks, kMaxGrid)), 256, 0, stream>>>(
      g, static_cast<U*>(data), words);
  return launch_status(cudaGetLastError(), "in-place chunk swap");
}

// The tile kernel for a `unit`-byte word of the shape `tiles` describes: 1- and 2-byte words as
// word tiles (realigned where rows do not start on words); wider ones native when `data` is
// aligned to the unit (all offsets are multiples of it), else alignment-1 bytes. `bytes`: the
// data's size.
template <int kLog2>
xpose_status_t launch_shape(const inplace::GpuTiles& tiles, const SwapGeometry& g, void* data,
                            uint64_t bytes, cudaStream_t st) {
  constexpr int kV = inplace::kGpuVector[kLog2], kT = inplace::kGpuTile[kLog2];
  if constexpr (kLog2 < 2) {
    static_assert(kV == 4 >> kLog2 && kT == inplace::gpu_word_tile(kV, false),
                  "a word holds kV elements; kGpuTile is the word tiles' edge");
    if (tiles.vector > 1) return launch_narrow<kV, false>(g, data, bytes, st);
    return launch_narrow<kV, true>(g, data, bytes, st);
  } else {
    constexpr int kTs = inplace::kGpuScalarTile[kLog2];
    using T = Elem<kLog2>;
    if constexpr (kLog2 == 3)
      if (tiles.vector == 2) return launch_tiles<T, inplace::kGpuPairTile, 2>(g, data, st);
    if (tiles.vector > 1) return launch_tiles<T, kT, kV>(g, data, st);
    if (tiles.aligned) return launch_tiles<T, kTs, 1>(g, data, st);
    return launch_tiles<Bytes<sizeof(T)>, kTs, 1>(g, data, st);
  }
}

xpose_status_t launch_words(const inplace::GpuTiles& tiles, const SwapGeometry& g, void* data,
                            uint64_t bytes, cudaStream_t st) {
  switch (inplace::log2_size(tiles.unit)) {
    case 0: return launch_shape<0>(tiles, g, data, bytes, st);
    case 1: return launch_shape<1>(tiles, g, data, bytes, st);
    case 2: return launch_shape<2>(tiles, g, data, bytes, st);
    case 3: return launch_shape<3>(tiles, g, data, bytes, st);
    default: return launch_shape<4>(tiles, g, data, bytes, st);
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
  const auto address = reinterpret_cast<uintptr_t>(data);
  const inplace::GpuTiles tiles = inplace::gpu_tiles(f.unit, address, r.n);
  const SwapGeometry g =
      inplace::make_geometry(r.n, r.mid, r.outer, f.unit ? tiles.tile : 1, scheme, w, region);
  const auto st = static_cast<cudaStream_t>(stream);
  const uint64_t bytes = f.chunk * static_cast<uint64_t>(r.n) * static_cast<uint64_t>(r.n) *
                         static_cast<uint64_t>(r.mid) * static_cast<uint64_t>(r.outer);
  xpose_status_t status = XPOSE_SUCCESS;
  inplace::for_each_launch(g, [&](const SwapGeometry& launch) {
    if (status != XPOSE_SUCCESS) return;
    status = f.unit ? launch_words(tiles, launch, data, bytes, st)
                    : launch_chunked(f.chunk, address, launch, data, st);
  });
  return status;
}

}  // namespace xpose::detail
