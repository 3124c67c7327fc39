// Thin 2D tiles (params.hpp, Narrow2dParams::thin): plain 1- and 2-byte transposes whose runs are
// one dim each, where one run dim holds fewer than kNarrow2dMinBytes and lies beside the other in
// one tensor (narrow_plan.cpp thin2d_takes). A tile holds the short dim whole, so its side of that
// tensor is one contiguous stretch; the other side is `s` rows (s: the short dim's extent) of
// the long dim. The stretch is kept in shared memory in its own order, with `thin_skew` words
// after every 32 (against bank conflicts: narrow_plan.cpp thin2d_skew), and an element's place
// in it is a multiply-add from its row and column, then a step of s elements to the next:
// - flat output (thin 1; an interleave, as NCHW -> NHWC with few channels): the rows are input
//   rows. Each thread loads aligned 16-byte chunks of them into registers (four in flight) and
//   stores each element at its place in the output's order; the pieces of a row's first and
//   last chunks that lie outside the row land in guard bytes before and after the stretch
//   (thin2d_guard), so that no warp diverges at rows' ends (with a path of their own, rows off
//   16 bytes ran at 0.38-0.68 of a copy, with the guards 0.70-0.89). Then lanes copy the
//   stretch to the output a 4-byte word each.
// - flat input (thin 2): the stretch is the input, loaded word by word by cp.async at its own
//   shift; the rows are output runs, and each lane gathers an aligned 4-byte word of one from the
//   stretch (2 or 4 shared loads) and stores it whole.
// Partial words (at a stretch's or a run's ends) are stored in aligned pieces of 1 and 2 bytes
// that hold only their own bytes. The narrow kernel (narrow.cu) took these problems as
// packed-split tiles, a shared-memory offset read per gathered element, at 0.44-0.67 of a copy
// on the H200; these tiles ran them 0.99-2.97x faster (docs/perf/thin-h200.md). A block per tile
// (the loop only folds grids past 2^31 - 1 blocks).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/bytes.cuh"
#include "cuda/elem_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/runtime.hpp"
#include "cuda/tile_walk.cuh"

namespace xpose::detail {
namespace {

constexpr int kWarps = kThin2dThreads / 32;
constexpr int kInFlight = 4;  // flat output: 16-byte chunks a thread loads before storing them

// Shared-memory address of byte f of the stretch: skew words after every 32 (skew4 = 4 skew).
__device__ __forceinline__ uint32_t flat_at(uint32_t base, uint32_t f, uint32_t skew4) {
  return base + f + (f >> 7) * skew4;
}

// Byte y of a row (flat output: row r, input element y / ES) or of a run (flat input: run i,
// output element y / ES) is byte f of the stretch: element (y / ES) s + r (or + i) of it, from
// the stretch's first byte at `at` (its offset in its first word).
template <int ES>
__device__ __forceinline__ uint32_t stretch_byte(int y, int s, int r, int at) {
  const int e = y / ES;
  return static_cast<uint32_t>(at + (e * s + r) * ES + (y - e * ES));
}

// Flat output: ES-byte elements moved in pieces of G bytes (G < ES: a pointer off ES).
template <int ES, int G>
__global__ void __launch_bounds__(kThin2dThreads)
    thin2d_flat_out(const __grid_constant__ Narrow2dParams p, const uint8_t* __restrict__ in,
                    uint8_t* __restrict__ out) {
  extern __shared__ uint4 smem_raw[];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t skew4 = 4u * static_cast<uint32_t>(p.thin_skew);
  const int s = p.tj;                                  // rows: the short dim, whole
  const int cpr = static_cast<int>(p.thin_load.d);     // chunks of a row's slot
  const int chunks = s * cpr;
  const int guard = thin2d_guard(s);
  const uint8_t* in_end = in + p.in_bytes;
  for (int64_t tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
    const TileBase b = walk_tile(p.grid, p.n_grid, p.slot_tile, p.num_tiles,
                                 static_cast<uint64_t>(tile));
    const int row_bytes = static_cast<int>(b.lim0) * ES;
    const uint8_t* tin = in + b.in * ES;
    uint8_t* tout = out + b.out * ES;
    // The stretch starts `guard` bytes into shared memory, so that the bytes of a row's first
    // and last chunks outside the row (up to 16 elements before and after it) land outside the
    // stretch: every chunk stores all of its pieces, and warps do not diverge at rows' ends.
    const int t = guard + static_cast<int>(reinterpret_cast<uintptr_t>(tout) & 3);
    // Chunk x: row r = x / cpr, the aligned 16 bytes c = x % cpr of it (from the boundary at or
    // before its first byte): row bytes y0 .. y0 + 15, y0 = 16 c - the row's shift.
    for (int x0 = static_cast<int>(threadIdx.x); x0 < chunks; x0 += kInFlight * kThin2dThreads) {
      uint4 v[kInFlight];
      int y0[kInFlight], r[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int x = x0 + u * kThin2dThreads;
        r[u] = static_cast<int>(p.thin_load.div(static_cast<uint32_t>(x)));
        const uint8_t* row = tin + r[u] * p.in_row;
        const int shift = static_cast<int>(reinterpret_cast<uintptr_t>(row) & 15);
        y0[u] = 16 * (x - r[u] * cpr) - shift;
        if (x >= chunks || y0[u] >= row_bytes) {
          y0[u] = row_bytes;  // nothing to store
          continue;
        }
        const uint8_t* src = row + y0[u];
        if (src >= in && src + 16 <= in_end) {
          v[u] = *reinterpret_cast<const uint4*>(src);
        } else {  // at the tensor's ends: its own bytes only
          uint8_t* d = reinterpret_cast<uint8_t*>(&v[u]);
          for (int j = 0; j < 16; ++j) d[j] = src + j >= in && src + j < in_end ? src[j] : 0;
        }
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const uint32_t w[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
        if (G == ES && y0[u] < row_bytes) {
          // Its elements s apart in the stretch (those outside the row in the guards).
          uint32_t f = stretch_byte<ES>(y0[u], s, r[u], t);
#pragma unroll
          for (int j = 0; j < 16; j += ES, f += static_cast<uint32_t>(s * ES))
            store_shared<ES>(flat_at(base, f, skew4), w[j / 4] >> (8 * (j % 4)));
        } else if (y0[u] < row_bytes) {
#pragma unroll
          for (int j = 0; j < 16; j += G) {
            const int y = y0[u] + j;
            if (y < 0 || y >= row_bytes) continue;
            store_shared<G>(flat_at(base, stretch_byte<ES>(y, s, r[u], t), skew4),
                            w[j / 4] >> (8 * (j % 4)));
          }
        }
      }
    }
    __syncthreads();
    // The stretch's words, a lane each; those at its two ends in pieces.
    const int end = t - guard + row_bytes * s;  // from the word of the stretch's start
    const int words = (end + 3) >> 2;
    uint32_t* o = reinterpret_cast<uint32_t*>(tout - (t - guard));
    constexpr uint32_t kStep = 4 * kThin2dThreads;  // bytes of the stretch a pass moves
    uint32_t a = flat_at(base, guard + 4 * threadIdx.x, skew4);
    for (int k = static_cast<int>(threadIdx.x); k < words;
         k += kThin2dThreads, a += kStep + (kStep >> 7) * skew4) {
      const uint32_t v = load_shared<4>(a);
      const int t0 = t - guard;
      if (4 * k >= t0 && 4 * k + 4 <= end)
        o[k] = v;
      else
        store_word_part(reinterpret_cast<uint8_t*>(o + k), v, 4 * k < t0 ? t0 - 4 * k : 0,
                   end - 4 * k < 4 ? end - 4 * k : 4);
    }
    __syncthreads();
  }
}

// Flat input: the same elements and pieces; kSkew: thin_skew > 0 (without, each gathered
// element's address is one add).
template <int ES, int G, bool kSkew>
__global__ void __launch_bounds__(kThin2dThreads)
    thin2d_flat_in(const __grid_constant__ Narrow2dParams p, const uint8_t* __restrict__ in,
                   uint8_t* __restrict__ out) {
  extern __shared__ uint4 smem_raw[];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t skew4 = kSkew ? 4u * static_cast<uint32_t>(p.thin_skew) : 0u;
  const int s = p.ti;  // output runs: the short dim, whole
  const uint8_t* in_end = in + p.in_bytes;
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
  // A run's words in 2^log_parts pieces of part_words, a warp each (Narrow2dParams).
  const int log_parts = p.thin_parts_log, part_words = p.thin_part_words;
  for (int64_t tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
    const TileBase b = walk_tile(p.grid, p.n_grid, p.slot_tile, p.num_tiles,
                                 static_cast<uint64_t>(tile));
    const int run_bytes = static_cast<int>(b.lim1) * ES;  // of each output run
    const uint8_t* tin = in + b.in * ES;
    uint8_t* tout = out + b.out * ES;
    const int shift = static_cast<int>(reinterpret_cast<uintptr_t>(tin) & 3);
    const int words = (shift + run_bytes * s + 3) >> 2;
    const uint8_t* w0 = tin - shift;
    const bool inside = w0 >= in && w0 + 4 * words <= in_end;
    {
      constexpr uint32_t kStep = 4 * kThin2dThreads;
      uint32_t d = flat_at(base, 4 * threadIdx.x, skew4);
      for (int k = static_cast<int>(threadIdx.x); k < words;
           k += kThin2dThreads, d += kStep + (kStep >> 7) * skew4) {
        const uint8_t* src = w0 + 4 * k;
        if (inside || (src >= in && src + 4 <= in_end)) {
          asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(d), "l"(src));
        } else {
          for (int j = 0; j < 4; ++j)
            if (src + j >= in && src + j < in_end)
              asm volatile("st.shared.u8 [%0], %1;\n" ::"r"(d + j), "r"(uint32_t{src[j]}));
        }
      }
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    __syncthreads();
    // Run i's whole words, a lane each: word k holds run bytes 4 k - t .. 4 k - t + 3.
    for (int z = warp; z < (s << log_parts); z += kWarps) {
      const int i = z >> log_parts, part = z & ((1 << log_parts) - 1);
      uint8_t* run = tout + i * p.out_row;
      const int t = static_cast<int>(reinterpret_cast<uintptr_t>(run) & 3);
      const int k_end = min((t + run_bytes) >> 2, (part + 1) * part_words);
      int k = max(t > 0 ? 1 : 0, part * part_words) + lane;
      uint32_t* o = reinterpret_cast<uint32_t*>(run - t) + k;
      if constexpr (G == ES) {
        uint32_t f = stretch_byte<ES>(4 * k - t, s, i, shift);
        const auto df = static_cast<uint32_t>(128 * s);  // 32 words further
        for (; k < k_end; k += 32, f += df, o += 32) {
          uint32_t v = 0;
#pragma unroll
          for (int j = 0; j < 4; j += ES)
            v |= load_shared<ES>(flat_at(base, f + static_cast<uint32_t>(j * s), skew4))
                 << (8 * j);
          *o = v;
        }
      } else {
        for (; k < k_end; k += 32, o += 32) {
          uint32_t v = 0;
#pragma unroll
          for (int j = 0; j < 4; j += G)
            v |= load_shared<G>(flat_at(base, stretch_byte<ES>(4 * k - t + j, s, i, shift), skew4))
                 << (8 * j);
          *o = v;
        }
      }
    }
    // The partial words at the runs' two ends, a thread each.
    for (int x = static_cast<int>(threadIdx.x); x < 2 * s; x += kThin2dThreads) {
      const int i = x >> 1;
      uint8_t* run = tout + i * p.out_row;
      const int t = static_cast<int>(reinterpret_cast<uintptr_t>(run) & 3);
      const int end = t + run_bytes;
      const int k = (x & 1) == 0 ? 0 : end >> 2;
      if ((x & 1) == 0 ? t == 0 : (end & 3) == 0 || (t > 0 && k == 0)) continue;
      const int lo = k == 0 ? t : 0, hi = min(4, end - 4 * k);
      uint32_t v = 0;
      for (int m = lo; m < hi; m += G)
        v |= load_shared<G>(flat_at(base, stretch_byte<ES>(4 * k + m - t, s, i, shift), skew4))
             << (8 * m);
      store_word_part(run - t + 4 * k, v, lo, hi);
    }
    __syncthreads();
  }
}

template <int ES, int G>
cudaError_t launch_one(const Narrow2dParams& p, const uint8_t* in, uint8_t* out,
                       cudaStream_t stream, unsigned grid, unsigned smem) {
  if (p.thin == 1)
    return launch_kernel(&thin2d_flat_out<ES, G>, grid, kThin2dThreads, smem, stream, p, in, out);
  if (p.thin_skew > 0)
    return launch_kernel(&thin2d_flat_in<ES, G, true>, grid, kThin2dThreads, smem, stream, p, in,
                         out);
  return launch_kernel(&thin2d_flat_in<ES, G, false>, grid, kThin2dThreads, smem, stream, p, in,
                       out);
}

}  // namespace

xpose_status_t launch_thin2d(const Narrow2dParams& p, int elem_size, const void* in, void* out,
                             void* stream, unsigned grid, unsigned smem_bytes) {
  const auto s = static_cast<cudaStream_t>(stream);
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  cudaError_t e;
  if (p.thin != 1 && p.thin != 2)
    e = cudaErrorInvalidValue;
  else if (elem_size == 1)
    e = launch_one<1, 1>(p, src, dst, s, grid, smem_bytes);
  else if ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) % 2 == 0)
    e = launch_one<2, 2>(p, src, dst, s, grid, smem_bytes);
  else
    e = launch_one<2, 1>(p, src, dst, s, grid, smem_bytes);
  return launch_status(e, "thin2d");
}

}  // namespace xpose::detail
