// The cells' kernels (params.hpp CellParams): plain 1- and 2-byte problems whose first k >= 2
// input dims are the output's first k in another order, so that a cell (those dims whole) is one
// contiguous stretch of either tensor and the problem is a permutation of cells, each transposed
// inside.
// The narrow kernel took them as packed or packed-split tiles at 0.3-0.6 of a copy on the H200
// ((16, 16, 16, 16, 256) perm (1, 0, 3, 2, 4) 2 B at 0.34), its tiles' runs cut at the cells'
// edges; these tiles ran 122 such problems 1.53x faster by geometric mean (0.83-3.28x; session
// 31, docs/perf/cells-h200.md). A block takes a tile of cells consecutive in the output, one
// stretch of it:
// - each cell's input offset is decoded a tile ahead (a thread a cell), and the cells are loaded
//   a 16-byte piece a thread at each cell's own shift (two aligned loads and a funnel shift
//   where a cell does not start on 16 bytes) into a slot per cell;
// - the threads write the tile's stretch a 4-byte word each, every element loaded from its
//   cell's slot at the offset that the block's table gives for its place in the cell's output
//   order (the table, built once per block, folds in the slots' padding against bank
//   conflicts); the partial words at the stretch's two ends are stored in pieces that hold only
//   the tile's bytes. (A warp a cell, with tiles of cells consecutive in the input, ran cells of
//   64-300 bytes at 0.5-0.7x of this: short scattered stretches, idle lanes.)
// Blocks loop over tiles (grid: kCellBlocksPerSm a SM at most), so that a block builds its table
// once for many tiles. Cells of one dim (k = 1: rows, input dim 0 stays first) take rows_kernel
// below: no table, loads by cp.async a tile ahead, the output in 16-byte chunks.
//
// Their stores go through a store policy (PlainCellStore; cells_typed.cu's TypedCellStore
// converts). cells.cu launches plain cells, cells_typed.cu typed ones; this header is theirs
// alone.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/bytes.cuh"
#include "cuda/elem_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/runtime.hpp"
#include "cuda/tile_walk.cuh"

namespace xpose::detail {
namespace {


constexpr int kInFlight = 4;  // 16-byte pieces a thread loads before storing them

// The 16 bytes at `src`, any alignment; bytes outside the input [in, in_end) read as zero
// (they land in a slot's tail, never in a cell).
__device__ __forceinline__ uint4 load_piece(const uint8_t* src, const uint8_t* in,
                                            const uint8_t* in_end) {
  const int shift = static_cast<int>(reinterpret_cast<uintptr_t>(src) & 15);
  const uint8_t* a = src - shift;
  if (a >= in && a + (shift ? 32 : 16) <= in_end) {
    const uint4 c0 = *reinterpret_cast<const uint4*>(a);
    if (shift == 0) return c0;
    return realign16(c0, *reinterpret_cast<const uint4*>(a + 16), shift);
  }
  uint4 v;
  uint8_t* d = reinterpret_cast<uint8_t*>(&v);
  for (int j = 0; j < 16; ++j) d[j] = src + j >= in && src + j < in_end ? src[j] : 0;
  return v;
}

// Bytes [lo, hi) of the output word that starts at byte t of a tile's output stretch (t + lo
// >= 0), in pieces of G bytes: byte t + m is byte b of cell q, element b / ES of the cell's
// output order, byte b % ES of it, in the slot of cell q (from `data`) through the table. A word
// spans at most two cells.
template <int ES, int G>
__device__ __forceinline__ uint32_t gather(uint32_t table, uint32_t data, const CellParams& p,
                                           int t, int lo, int hi) {
  const int q = static_cast<int>(p.cells.div(static_cast<uint32_t>(t + lo)));
  const int b0 = t - q * p.cell_bytes;
  const uint32_t slot = data + static_cast<uint32_t>(q * p.slot_bytes);
  uint32_t v = 0;
  if (lo == 0 && hi == 4 && b0 <= p.cell_bytes - 4) {
    // A whole word within cell q: its entries follow the first's (b0 is a multiple of ES where
    // G == ES). Against the per-piece path below, cells off words ran 1.09x (session 31).
    const uint32_t tb = table + 2 * static_cast<uint32_t>(b0 / ES);
#pragma unroll
    for (int m = 0; m < 4; m += G) {
      uint32_t at;
      if constexpr (G == ES) {
        at = load_shared<2>(tb + 2 * (m / ES));
      } else {
        const int b = b0 + m;
        at = load_shared<2>(tb + 2 * static_cast<uint32_t>(b / ES - b0 / ES)) + b % ES;
      }
      v |= load_shared<G>(slot + at) << (8 * m);
    }
    return v;
  }
#pragma unroll
  for (int m = 0; m < 4; m += G) {
    if (m < lo || m >= hi) continue;
    const int b = b0 + m, next = b >= p.cell_bytes;
    const int c = b - next * p.cell_bytes;
    const uint32_t at = load_shared<2>(table + 2 * static_cast<uint32_t>(c / ES)) + c % ES;
    v |= load_shared<G>(slot + next * p.slot_bytes + at) << (8 * m);
  }
  return v;
}

// The whole word at byte b (a multiple of 4) of a cell that starts on a word: its elements'
// table entries are one aligned 4- or 8-byte load.
template <int ES>
__device__ __forceinline__ uint32_t gather_aligned(uint32_t table, uint32_t slot, int b) {
  const uint32_t t = table + 2 * static_cast<uint32_t>(b / ES);
  if constexpr (ES == 2) {
    uint32_t e;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(e) : "r"(t));
    return load_shared<2>(slot + (e & 0xFFFFu)) | load_shared<2>(slot + (e >> 16)) << 16;
  } else {
    uint32_t e0, e1;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n" : "=r"(e0), "=r"(e1) : "r"(t));
    return load_shared<1>(slot + (e0 & 0xFFFFu)) | load_shared<1>(slot + (e0 >> 16)) << 8 |
           load_shared<1>(slot + (e1 & 0xFFFFu)) << 16 | load_shared<1>(slot + (e1 >> 16)) << 24;
  }
}

// The stores of the write phases: the bytes as they are (PlainCellStore), or converted
// (cells_typed.cu's TypedCellStore, whose `out` is the output as a tensor of ES-byte elements).
struct PlainCellStore {
  __device__ __forceinline__ explicit PlainCellStore(const CellParams&) {}
  // A whole aligned 4-byte word.
  __device__ __forceinline__ void word(uint8_t* at, uint32_t w) const {
    *reinterpret_cast<uint32_t*>(at) = w;
  }
  // Bytes [lo, hi) of the word at `word`.
  __device__ __forceinline__ void part(uint8_t* word, uint32_t v, int lo, int hi) const {
    store_word_part(word, v, lo, hi);
  }
  // A whole aligned 16-byte chunk.
  __device__ __forceinline__ void chunk(uint8_t* at, const uint4& v) const {
    *reinterpret_cast<uint4*>(at) = v;
  }
};

// ES-byte elements; G: the pieces the output is written in where it starts off ES bytes (G <
// ES: a pointer off the element size). St: the store policy.
template <int ES, int G, class St = PlainCellStore>
__global__ void __launch_bounds__(kCellThreads, kCellBlocksPerSm)
    cells_kernel(const __grid_constant__ CellParams p, const uint8_t* __restrict__ in,
                 uint8_t* __restrict__ out) {
  const St st(p);
  // Shared memory: the offset table, the cells' input offsets (two buffers: a tile's are
  // decoded during the tile before it), the slots.
  extern __shared__ uint4 smem_raw[];
  const uint32_t table = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  int64_t* cell_at = reinterpret_cast<int64_t*>(reinterpret_cast<uint8_t*>(smem_raw) +
                                                p.table_bytes);
  const int nb = p.cells_per_tile;
  const uint32_t data = table + static_cast<uint32_t>(p.table_bytes + ((16 * nb + 15) & ~15));
  const int tid = static_cast<int>(threadIdx.x);
  const int pad_log = p.pad_log, cell_bytes = p.cell_bytes, slot_bytes = p.slot_bytes;
  const int ppc = static_cast<int>(p.pieces.d);
  const uint8_t* in_end = in + p.in_bytes;

  // The table: element j of a cell's output order -> its byte in the slot.
  for (int j = tid; j < p.cell_elems; j += kCellThreads)
    store_shared<2>(table + 2 * static_cast<uint32_t>(j),
                    cell_padded(cell_source(p, static_cast<uint32_t>(j)) * ES, pad_log));

  // Cell c of the output's order: its offset in the input.
  const auto decode = [&](int64_t c) {
    return walk_tile(p.grid, p.n_grid, p.slot_tile, p.num_cells, static_cast<uint64_t>(c)).in *
           ES;
  };
  if (static_cast<int64_t>(blockIdx.x) * nb + tid < p.num_cells && tid < nb)
    cell_at[tid] = decode(static_cast<int64_t>(blockIdx.x) * nb + tid);
  __syncthreads();
  int buf = 0;
  for (int64_t tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x, buf ^= nb) {
    const int64_t first = tile * nb;
    const int n = static_cast<int>(min(static_cast<int64_t>(nb), p.num_cells - first));
    const int64_t* at = cell_at + buf;
    const int pieces = n * ppc;
    for (int x0 = tid; x0 < pieces; x0 += kInFlight * kCellThreads) {
      uint4 v[kInFlight];
      uint32_t dst[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int x = x0 + u * kCellThreads;
        if (x >= pieces) continue;
        const int q = static_cast<int>(p.pieces.div(static_cast<uint32_t>(x)));
        const int c = x - q * ppc;
        v[u] = load_piece(in + at[q] + 16 * c, in, in_end);
        dst[u] = data + static_cast<uint32_t>(q * slot_bytes) + cell_padded(16u * c, pad_log);
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        if (x0 + u * kCellThreads >= pieces) continue;
        if (pad_log == 0) {
          asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst[u]), "r"(v[u].x),
                       "r"(v[u].y), "r"(v[u].z), "r"(v[u].w));
        } else {  // a piece lies within one stretch between pads: four words
          asm volatile(
              "st.shared.u32 [%0], %1;\n st.shared.u32 [%0+4], %2;\n"
              " st.shared.u32 [%0+8], %3;\n st.shared.u32 [%0+12], %4;\n" ::"r"(dst[u]),
              "r"(v[u].x), "r"(v[u].y), "r"(v[u].z), "r"(v[u].w));
        }
      }
    }
    // The next tile's cells, decoded while this one's loads land.
    const int64_t next = first + static_cast<int64_t>(gridDim.x) * nb;
    if (tid < nb && next + tid < p.num_cells) cell_at[(buf ^ nb) + tid] = decode(next + tid);
    __syncthreads();
    // The tile's output: one stretch of its n cells. Thread x stores words x, x + threads, ..:
    // word k holds the stretch's bytes 4k - a .. 4k - a + 3 (a: the stretch's shift in its first
    // word), the partial words at its two ends in pieces that hold only the tile's bytes.
    uint8_t* o = out + first * cell_bytes;
    const int a = static_cast<int>(reinterpret_cast<uintptr_t>(o) & 3);
    uint32_t* w = reinterpret_cast<uint32_t*>(o - a);
    const int end = a + n * cell_bytes, whole = end >> 2;
    if (a == 0 && (cell_bytes & 3) == 0) {  // every word within one cell, on its words
#pragma unroll 4
      for (int k = tid; k < whole; k += kCellThreads) {
        const int q = static_cast<int>(p.cells.div(static_cast<uint32_t>(4 * k)));
        st.word(reinterpret_cast<uint8_t*>(w + k),
                gather_aligned<ES>(table, data + static_cast<uint32_t>(q * slot_bytes),
                                   4 * k - q * cell_bytes));
      }
    } else {
#pragma unroll 4
      for (int k = (a > 0) + tid; k < whole; k += kCellThreads)
        st.word(reinterpret_cast<uint8_t*>(w + k), gather<ES, G>(table, data, p, 4 * k - a, 0, 4));
    }
    if (tid == 0 && a > 0) st.part(o - a, gather<ES, G>(table, data, p, -a, a, 4), a, 4);
    if (tid == kCellThreads - 1 && (end & 3) != 0)
      st.part(reinterpret_cast<uint8_t*>(w + whole),
              gather<ES, G>(table, data, p, 4 * whole - a, 0, end & 3), 0, end & 3);
    __syncthreads();
  }
}

// Rows (CellParams::rows): cells of one dim, no transpose inside. A row's aligned 16-byte
// input chunks go by cp.async into its slot as they lie (its first byte at the slot's start plus
// its input address mod 16), two buffers of slots, so a tile's loads are in flight while the
// tile before it is written; the writes realign the rows' bytes to the output's 16-byte chunks.
// The rows' input offsets are decoded two tiles ahead (three buffers).
__device__ __forceinline__ uint4 shared_piece(uint32_t a) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(a));
  return v;
}

// The 16 shared bytes at `a`, any alignment.
__device__ __forceinline__ uint4 shared_window(uint32_t a) {
  const uint32_t base = a & ~15u;
  return realign16(shared_piece(base), shared_piece(base + 16), static_cast<int>(a & 15));
}

struct RowTile {
  uint32_t slots;      // shared address of the tile's slot buffer
  const int64_t* at;   // the rows' input offsets (bytes)
  uintptr_t in;        // the input's address: a row's shift is (in + at[q]) mod 16
  int slot_bytes, row_bytes;
  __device__ uint32_t start(int q) const {  // shared address of row q's first byte
    return slots + static_cast<uint32_t>(q * slot_bytes) +
           static_cast<uint32_t>((in + static_cast<uintptr_t>(at[q])) & 15);
  }
};

// 16 bytes of the tile's stretch from byte b0 of row q on; where the row ends within them (d, its
// bytes left, under 16; rows of at least 16 bytes), the rest from row q + 1, shifted to byte d.
__device__ __forceinline__ uint4 row_chunk(const RowTile& t, int q, int b0) {
  uint4 x = shared_window(t.start(q) + static_cast<uint32_t>(b0));
  const int d = t.row_bytes - b0;
  if (d < 16) {
    const uint4 y = shared_window(t.start(q + 1) - static_cast<uint32_t>(d));
    // Word j keeps its first clamp(d - 4j, 0, 4) bytes from x, the others from y.
    const auto merge = [d](uint32_t a, uint32_t c, int j) {
      const int keep = min(max(d - 4 * j, 0), 4);
      return __byte_perm(a, c, 0x7654u - (0x4444u & ((1u << (4 * keep)) - 1u)));
    };
    x = make_uint4(merge(x.x, y.x, 0), merge(x.y, y.y, 1), merge(x.z, y.z, 2),
                   merge(x.w, y.w, 3));
  }
  return x;
}

// Bytes [lo, hi) of the word at byte s of the stretch (s + lo >= 0), byte by byte.
__device__ __forceinline__ uint32_t row_word(const RowTile& t, const FastDiv32& rows, int s,
                                             int lo, int hi) {
  uint32_t v = 0;
  for (int m = lo; m < hi; ++m) {
    const int b = s + m, q = static_cast<int>(rows.div(static_cast<uint32_t>(b)));
    v |= load_shared<1>(t.start(q) + static_cast<uint32_t>(b - q * t.row_bytes)) << (8 * m);
  }
  return v;
}

// Starts the loads of n rows into `slots` (one cp.async group): piece c of row q is the aligned
// 16-byte chunk c from the one holding its first byte; pieces past the row are left out, and
// pieces that reach outside the input [in, in_end) move their inside bytes one by one (as
// narrow.cu's load_rows_as does; one helper for both changed the narrow kernel's registers, 76
// -> 78 for quads, and its gathered tiles ran 0.99x: session 32, call 10).
__device__ __forceinline__ void load_rows(const CellParams& p, const uint8_t* in,
                                          const uint8_t* in_end, const int64_t* at, int n,
                                          uint8_t* slots) {
  const int ppr = static_cast<int>(p.pieces.d);
  for (int i = threadIdx.x; i < n * ppr; i += kCellThreads) {
    const int q = static_cast<int>(p.pieces.div(static_cast<uint32_t>(i)));
    const int c = i - q * ppr;
    const uint8_t* first = in + at[q];
    const int shift = static_cast<int>(reinterpret_cast<uintptr_t>(first) & 15);
    if (16 * c >= shift + p.cell_bytes) continue;
    const uint8_t* src = first - shift + 16 * c;
    uint8_t* dst = slots + q * p.slot_bytes + 16 * c;
    if (src >= in && src + 16 <= in_end) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(
                       static_cast<unsigned>(__cvta_generic_to_shared(dst))),
                   "l"(src));
    } else {
      for (int j = 0; j < 16; ++j)
        if (src + j >= in && src + j < in_end) dst[j] = src[j];
    }
  }
  asm volatile("cp.async.commit_group;\n" ::);
}

template <int ES, class St = PlainCellStore>
__global__ void __launch_bounds__(kCellThreads, kCellBlocksPerSm)
    rows_kernel(const __grid_constant__ CellParams p, const uint8_t* __restrict__ in,
                uint8_t* __restrict__ out) {
  const St st(p);
  extern __shared__ uint4 smem_raw[];
  const int nb = p.cells_per_tile, rb = p.cell_bytes;
  int64_t* offsets = reinterpret_cast<int64_t*>(smem_raw);  // three buffers of nb
  uint8_t* slots = reinterpret_cast<uint8_t*>(smem_raw) + ((24 * nb + 15) & ~15);
  const uint32_t slots_sa = static_cast<uint32_t>(__cvta_generic_to_shared(slots));
  const int buf_bytes = nb * p.slot_bytes;
  const int tid = static_cast<int>(threadIdx.x);
  const uint8_t* in_end = in + p.in_bytes;
  const auto decode = [&](int64_t c) {
    return walk_tile(p.grid, p.n_grid, p.slot_tile, p.num_cells, static_cast<uint64_t>(c)).in *
           ES;
  };
  const int64_t step = static_cast<int64_t>(gridDim.x) * nb;
  int64_t first = static_cast<int64_t>(blockIdx.x) * nb;
  if (tid < nb) {
    if (first + tid < p.num_cells) offsets[tid] = decode(first + tid);
    if (first + step + tid < p.num_cells) offsets[nb + tid] = decode(first + step + tid);
  }
  __syncthreads();
  const auto rows_at = [&](int64_t f) {  // rows of the tile from row f on
    return static_cast<int>(min(static_cast<int64_t>(nb), p.num_cells - f));
  };
  if (first < p.num_cells) load_rows(p, in, in_end, offsets, rows_at(first), slots);
  // Iteration k: tile k's rows are in slot buffer k & 1 and offset buffer k mod 3; tile k + 1's
  // loads go to the other slot buffer (written by tile k - 1, before its last barrier), tile
  // k + 2's offsets to the third buffer (read by tile k - 1's writes).
  for (int k = 0, o3 = 0; first < p.num_cells; ++k, first += step, o3 = o3 == 2 ? 0 : o3 + 1) {
    const int n = rows_at(first);
    const int64_t next = first + step, later = next + step;
    const int n3 = o3 == 2 ? 0 : o3 + 1, l3 = n3 == 2 ? 0 : n3 + 1;
    if (next < p.num_cells) {
      load_rows(p, in, in_end, offsets + n3 * nb, rows_at(next), slots + ((k + 1) & 1) * buf_bytes);
      if (tid < nb && later + tid < p.num_cells) offsets[l3 * nb + tid] = decode(later + tid);
      asm volatile("cp.async.wait_group 1;\n" ::);
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::);
    }
    __syncthreads();
    const RowTile t{slots_sa + static_cast<uint32_t>((k & 1) * buf_bytes), offsets + o3 * nb,
                    reinterpret_cast<uintptr_t>(in), p.slot_bytes, rb};
    // The tile's stretch: its whole aligned 16-byte chunks a thread each, then the words of its
    // partial chunks at either end, a thread a word.
    uint8_t* o = out + first * rb;
    const int a16 = static_cast<int>(reinterpret_cast<uintptr_t>(o) & 15);
    uint4* c = reinterpret_cast<uint4*>(o - a16);
    const int end = a16 + n * rb, c0 = a16 > 0, c1 = end >> 4;
    for (int kk = c0 + tid; kk < c1; kk += kCellThreads) {
      const int s = 16 * kk - a16;
      const int q = static_cast<int>(p.cells.div(static_cast<uint32_t>(s)));
      st.chunk(reinterpret_cast<uint8_t*>(c + kk), row_chunk(t, q, s - q * rb));
    }
    if (tid < 8) {
      const int kw = tid < 4 ? tid : 4 * c1 + tid - 4;  // a word of o - a16
      const int lo = max(0, a16 - 4 * kw), hi = min(4, end - 4 * kw);
      if ((tid < 4 ? c0 > 0 : (end & 15) != 0) && lo < hi) {
        uint8_t* w = reinterpret_cast<uint8_t*>(c) + 4 * kw;
        const uint32_t v = row_word(t, p.cells, 4 * kw - a16, lo, hi);
        if (lo == 0 && hi == 4)
          st.word(w, v);
        else
          st.part(w, v, lo, hi);
      }
    }
    __syncthreads();
  }
}

template <int ES, int G, class St = PlainCellStore>
cudaError_t launch_one(const CellParams& p, const uint8_t* in, uint8_t* out, cudaStream_t stream,
                       unsigned grid) {
  if (p.rows)
    return launch_kernel(&rows_kernel<ES, St>, grid, kCellThreads,
                         static_cast<unsigned>(cell_smem_bytes(p)), stream, p, in, out);
  return launch_kernel(&cells_kernel<ES, G, St>, grid, kCellThreads,
                       static_cast<unsigned>(cell_smem_bytes(p)), stream, p, in, out);
}

}  // namespace
}  // namespace xpose::detail
