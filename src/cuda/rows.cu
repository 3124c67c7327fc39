// FVI-Match-Large / TiledCopy (TTLG Alg. 7, cuTT TiledCopy) and plain copy: the leading input
// dimension stays leading, so the tensor is a set of rows contiguous in both input and output.
// Rows are cut into chunks of kRowChunkBytes; one warp copies one chunk with accesses as wide as
// the pointers and the row length allow (16 bytes when aligned), 8 loads in flight per lane
// before the stores. No shared memory. The row's offsets come from a 64-bit fast-division decode
// of its index, once per chunk. The grid is folded (warps stride over chunks), so any size fits
// the launch limits. A plain copy is one row.
//
// Typed rows (conversions, scalars; strided or not) go to rows_typed.cu; plain ones are dense
// (strided plain problems take tiles, planner.cpp rows_take). Loads stay within the bytes the
// input reaches (RowParams::in_begin, in_end).
//
// Rows that allow no access of 4 bytes (odd lengths of narrow elements, pointers off 4-byte
// multiples) go through rows_realign_kernel instead: a lane takes one aligned 16-byte word of a
// row's output, loads the two aligned input chunks that hold its bytes and funnel-shifts them
// into place (bytes.cuh), and stores the word whole, or in aligned pieces at the row's two ends.
// Lanes take the words of consecutive rows side by side, so short rows fill warps too; long
// rows (RowParams::chunk_words, planner.cpp build_rows) go a warp to a chunk of a row's words
// (rows_realign_long_kernel).
#include <cuda_runtime.h>

#include "cuda/bytes.cuh"
#include "cuda/elem_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/rows.cuh"
#include "cuda/runtime.hpp"

namespace xpose::detail {
namespace {

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
    int64_t ib, ob;
    row_offsets(p, row, &ib, &ob);
    const int64_t begin = chunk * kRowChunkBytes;
    const int64_t left = p.row_bytes - begin;
    const int n = static_cast<int>((left < kRowChunkBytes ? left : kRowChunkBytes) /
                                   static_cast<int64_t>(sizeof(V)));
    copy_chunk(reinterpret_cast<const V*>(in + ib + begin), reinterpret_cast<V*>(out + ob + begin),
               n, lane);
  }
}

// Bytes [lo, hi) of the aligned 16-byte word at `d` (lo < hi <= 16), from `v`, as the fewest
// aligned stores.
__device__ __forceinline__ void store_part(uint8_t* d, int lo, int hi, const uint4& v) {
  uint32_t w[4] = {v.x, v.y, v.z, v.w};
  int j = lo;
  const auto bytes_at = [&](int at, int n) {  // n of 1, 2, 4 bytes at `at` (aligned)
    const uint64_t pair = (static_cast<uint64_t>(w[(at >> 2) + (at >> 2 < 3)]) << 32) | w[at >> 2];
    return static_cast<uint32_t>(pair >> (8 * (at & 3))) & (n == 4 ? ~0u : (1u << (8 * n)) - 1);
  };
  if ((j & 1) && j < hi) d[j] = static_cast<uint8_t>(bytes_at(j, 1)), ++j;
  if ((j & 2) && j + 2 <= hi) *reinterpret_cast<uint16_t*>(d + j) = bytes_at(j, 2), j += 2;
  if ((j & 4) && j + 4 <= hi) *reinterpret_cast<uint32_t*>(d + j) = bytes_at(j, 4), j += 4;
  if (j + 8 <= hi) {
    *reinterpret_cast<uint2*>(d + j) = make_uint2(bytes_at(j, 4), bytes_at(j + 4, 4));
    j += 8;
  }
  if (j + 4 <= hi) *reinterpret_cast<uint32_t*>(d + j) = bytes_at(j, 4), j += 4;
  if (j + 2 <= hi) *reinterpret_cast<uint16_t*>(d + j) = bytes_at(j, 2), j += 2;
  if (j < hi) d[j] = static_cast<uint8_t>(bytes_at(j, 1));
}

__global__ void __launch_bounds__(kRowThreads)
    rows_realign_kernel(const __grid_constant__ RowParams p, const unsigned char* __restrict__ in,
                        unsigned char* __restrict__ out) {
  const int64_t items = static_cast<int64_t>(p.words_div.d) * (p.items / p.chunks.d);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kRowThreads;
  const uint8_t* in_begin = in + p.in_begin;
  const uint8_t* in_end = in + p.in_end;
  for (int64_t item = blockIdx.x * int64_t{kRowThreads} + threadIdx.x; item < items;
       item += stride) {
    const uint64_t row = p.words_div.div(static_cast<uint64_t>(item));
    const int64_t word = item - static_cast<int64_t>(row * p.words_div.d);
    int64_t ib, ob;
    row_offsets(p, row, &ib, &ob);
    // Output word `word` of the row: [a, a + 16), a 16-byte aligned; its bytes in the row.
    uint8_t* dst = out + ob;
    uint8_t* a = reinterpret_cast<uint8_t*>(reinterpret_cast<uintptr_t>(dst) & ~uintptr_t{15}) +
                 16 * word;
    const int64_t first = a - dst;  // row byte at a
    if (first >= p.row_bytes) continue;
    const int lo = first < 0 ? static_cast<int>(-first) : 0;
    const int hi = p.row_bytes - first < 16 ? static_cast<int>(p.row_bytes - first) : 16;
    const uint8_t* src = in + ib + first;  // input of row byte `first` (bytes [lo, hi) are used)
    const int shift = static_cast<int>(reinterpret_cast<uintptr_t>(src) & 15);
    const uint4* c = reinterpret_cast<const uint4*>(src - shift);
    uint4 v;
    if (reinterpret_cast<const uint8_t*>(c) >= in_begin &&
        reinterpret_cast<const uint8_t*>(c + 2) <= in_end) {
      v = realign16(c[0], c[1], shift);
    } else {  // a tensor's end: only the bytes of the row
      uint32_t x[4] = {0, 0, 0, 0};
      for (int j = lo; j < hi; ++j) x[j >> 2] |= static_cast<uint32_t>(src[j]) << (8 * (j & 3));
      v = make_uint4(x[0], x[1], x[2], x[3]);
    }
    if (lo == 0 && hi == 16)
      *reinterpret_cast<uint4*>(a) = v;
    else
      store_part(a, lo, hi, v);
  }
}

// Long rows (RowParams::chunk_words), realigned as above but a warp to a chunk of at most
// kRealignChunkWords consecutive output words of one row (lane l: words l, l + 32, ...; a row's
// chunks even): the row's offsets, its realignment shift (the same for every word of a row) and
// whether its chunks lie inside the input are found once a chunk, and each lane loads the
// chunks of all its words (up to four) before it realigns them. On the H200, 2-byte rows of 2 KB
// ran at 0.63 of a copy a word a lane and 0.77 this way, at about the same instructions a word
// (ncu: 6.6 warp instructions, issue slots 64-67 % busy): the gain is loads in flight
// (docs/perf/rows-h200.md).
__global__ void __launch_bounds__(kRowThreads, 4)
    rows_realign_long_kernel(const __grid_constant__ RowParams p,
                             const unsigned char* __restrict__ in,
                             unsigned char* __restrict__ out) {
  constexpr int kPerLane = kRealignChunkWords / 32;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int64_t warps_per_block = kRowThreads / 32;
  const int64_t items = static_cast<int64_t>(p.word_chunks.d) * (p.items / p.chunks.d);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * warps_per_block;
  const uintptr_t in_lo = reinterpret_cast<uintptr_t>(in) + static_cast<uintptr_t>(p.in_begin);
  const uintptr_t in_hi = reinterpret_cast<uintptr_t>(in) + static_cast<uintptr_t>(p.in_end);
  for (int64_t item = blockIdx.x * warps_per_block + threadIdx.x / 32; item < items;
       item += stride) {
    const uint64_t row = p.word_chunks.div(static_cast<uint64_t>(item));
    const int chunk = static_cast<int>(item - static_cast<int64_t>(row * p.word_chunks.d));
    int64_t ib, ob;
    row_offsets(p, row, &ib, &ob);
    // Word w of the row: [a0 + 16 w, +16), a0 the aligned address at or before the row's first
    // output byte; its bytes come from the aligned input chunks w and w + 1 from `c`, `shift`
    // bytes into chunk w. `nw` words hold the row; the last holds `tail` of its bytes.
    const uintptr_t dst = reinterpret_cast<uintptr_t>(out) + static_cast<uintptr_t>(ob);
    uint4* const a0 = reinterpret_cast<uint4*>(dst & ~uintptr_t{15});
    const int lead = static_cast<int>(dst & 15);  // bytes of word 0 before the row
    const uintptr_t src = reinterpret_cast<uintptr_t>(in) + static_cast<uintptr_t>(ib) -
                          static_cast<uintptr_t>(lead);
    const int shift = static_cast<int>(src & 15);
    const uintptr_t c = src - static_cast<uintptr_t>(shift);
    const int nw = static_cast<int>((p.row_bytes + lead + 15) >> 4);
    const int tail = static_cast<int>(p.row_bytes + lead - 16 * int64_t{nw - 1});
    const int w0 = chunk * p.chunk_words;
    const int w1 = min(nw, w0 + p.chunk_words);
    const bool inside = c + 16 * static_cast<uintptr_t>(w0) >= in_lo &&
                        c + 16 * static_cast<uintptr_t>(w1) + 16 <= in_hi;
    const uint4* const cp = reinterpret_cast<const uint4*>(c);
    uint4 c0[kPerLane], c1[kPerLane];
#pragma unroll
    for (int u = 0; u < kPerLane; ++u) {
      const int w = w0 + lane + 32 * u;
      if (inside && w < w1) {
        c0[u] = cp[w];
        c1[u] = cp[w + 1];
      }
    }
#pragma unroll
    for (int u = 0; u < kPerLane; ++u) {
      const int w = w0 + lane + 32 * u;
      if (w >= w1) continue;
      const int lo = w == 0 ? lead : 0;
      const int hi = w == nw - 1 ? tail : 16;
      uint4 v;
      if (inside) {
        v = realign16(c0[u], c1[u], shift);
      } else {  // a tensor's end: only the bytes of the row
        const auto* s = reinterpret_cast<const uint8_t*>(src) + 16 * int64_t{w};
        uint32_t x[4] = {0, 0, 0, 0};
        for (int j = lo; j < hi; ++j) x[j >> 2] |= static_cast<uint32_t>(s[j]) << (8 * (j & 3));
        v = make_uint4(x[0], x[1], x[2], x[3]);
      }
      if (lo == 0 && hi == 16)
        a0[w] = v;
      else
        store_part(reinterpret_cast<uint8_t*>(a0 + w), lo, hi, v);
    }
  }
}

template <int Log2>
cudaError_t launch_one(const RowParams& p, const void* in, void* out, cudaStream_t stream,
                       unsigned grid) {
  return launch_kernel(&rows_kernel<Elem<Log2>>, grid, kRowThreads, 0, stream, p,
                       static_cast<const unsigned char*>(in), static_cast<unsigned char*>(out));
}

using LaunchFn = cudaError_t (*)(const RowParams&, const void*, void*, cudaStream_t, unsigned);
// The dispatch table: one instantiation per access width.
constexpr LaunchFn kLaunch[5] = {&launch_one<0>, &launch_one<1>, &launch_one<2>, &launch_one<3>,
                                 &launch_one<4>};

}  // namespace

xpose_status_t launch_rows(const RowParams& p, int vec_log2, const void* in, void* out,
                           void* stream, unsigned grid) {
  if (p.op.in_type != XPOSE_TYPE_BYTES) return launch_rows_typed(p, in, out, stream, grid);
  const auto s = static_cast<cudaStream_t>(stream);
  if (vec_log2 < 2) {
    return launch_status(launch_kernel(p.chunk_words > 0 ? &rows_realign_long_kernel
                                                         : &rows_realign_kernel,
                                       grid, kRowThreads, 0, s, p,
                                       static_cast<const unsigned char*>(in),
                                       static_cast<unsigned char*>(out)),
                         "rows");
  }
  return launch_status(kLaunch[vec_log2](p, in, out, s, grid), "rows");
}

}  // namespace xpose::detail
