// Tiled / Packed / PackedSplit / FVI-Match-Small (cuTT's Tiled, Packed, PackedSplit; TTLG's
// Orthogonal-Distinct, Orthogonal-Arbitrary, FVI-Match-Small): one kernel over a tile staged in
// padded shared memory. The planner (planner.cpp) decides the tile; the kernel only walks it.
//
// Each thread owns kElemsPerThread fixed positions of the tile in each phase. Their global and
// shared-memory offsets are the same in every tile, so they are decoded once per block (32-bit
// fast division over the tile's dimensions; only a thread's first position where the planner
// found the others a fixed step away, params.hpp TileStep) and kept in registers; a tile then
// costs one 64-bit decode of its index (the grid is folded: blocks stride over tiles, so any
// number of tiles fits the launch limits) and, per element, one load, one shared store, one
// shared load and one store. Blocked dimensions (at most two) make edge tiles partial: each
// position carries its coordinates along them, checked against the tile's limits.
//
// Pointers that are not multiples of the element size take the same tile with every element
// moved through global memory in pieces of 2^Piece bytes, the widest both pointers allow: the
// plan's own tile, so a plan needs no view of its own for them (API.md: any alignment works,
// aligned data may be faster).
#include <cuda_runtime.h>

#include <array>

#include "core/status.hpp"
#include "cuda/elem_op.cuh"
#include "cuda/elem_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/runtime.hpp"
#include "cuda/tile_walk.cuh"

namespace xpose::detail {
namespace {

// The element operation of the write phase: a plain move of T (plain problems, the kernel as it
// was before typed problems), or a typed one (elem_op.cuh).
template <class T>
struct PlainOp {
  using in_t = T;
  using out_t = T;
  static constexpr bool kPlain = true;
};
template <class Typed>
struct WithOp : Typed {
  static constexpr bool kPlain = false;
};

// A thread's positions in one phase: global offset (relative to the tile's base), shared-memory
// offset, and coordinates along the blocked slots packed as (slot1 << 16) | slot0.
template <class Off>
struct Positions {
  Off global[kElemsPerThread];
  int32_t shared[kElemsPerThread];
  uint32_t coord[kElemsPerThread];
};

template <class Off>
__device__ __forceinline__ void decode_positions(const TileDim* dims, int n, int volume,
                                                 const TileStep& step, Positions<Off>& pos) {
  Decoded<Off> first;
  first.coord = kNoSlot;
  if (step.linear && threadIdx.x < static_cast<uint32_t>(volume))
    first = decode_index<Off>(dims, n, threadIdx.x);
#pragma unroll
  for (int e = 0; e < kElemsPerThread; ++e) {
    const uint32_t idx = threadIdx.x + static_cast<uint32_t>(e) * blockDim.x;
    Decoded<Off> d;
    d.coord = kNoSlot;
    if (idx < static_cast<uint32_t>(volume)) {
      if (step.linear) {
        d.global = first.global + static_cast<Off>(e * step.global);
        d.shared = first.shared + e * step.shared;
        d.coord = first.coord + static_cast<uint32_t>(e) * step.coord;
      } else {
        d = decode_index<Off>(dims, n, idx);
      }
    }
    pos.global[e] = d.global;
    pos.shared[e] = d.shared;
    pos.coord[e] = d.coord;
  }
}

__device__ __forceinline__ TileBase decode_tile(const TiledParams& p, int64_t tile) {
  uint64_t rest = static_cast<uint64_t>(tile);
  if (p.band_w.d > 1) rest = banded_tile(p, static_cast<uint32_t>(rest));
  return walk_tile(p.grid, p.n_grid, p.slot_tile, rest);
}

// An element in pieces of 2^Piece bytes (Piece < log2 of its size: its address need only be a
// multiple of the piece), assembled in registers.
template <int Piece, class T>
__device__ __forceinline__ T load_pieces(const T* p) {
  using P = Elem<Piece>;
  constexpr int kPieces = static_cast<int>(sizeof(T) / sizeof(P));
  const P* src = reinterpret_cast<const P*>(p);
  P piece[kPieces];
#pragma unroll
  for (int i = 0; i < kPieces; ++i) piece[i] = src[i];
  T v;
  memcpy(&v, piece, sizeof(T));
  return v;
}

template <int Piece, class T>
__device__ __forceinline__ void store_pieces(T* p, const T& v) {
  using P = Elem<Piece>;
  constexpr int kPieces = static_cast<int>(sizeof(T) / sizeof(P));
  P piece[kPieces];
  memcpy(piece, &v, sizeof(T));
  P* dst = reinterpret_cast<P*>(p);
#pragma unroll
  for (int i = 0; i < kPieces; ++i) dst[i] = piece[i];
}

// Off: type of the tile-relative offsets (int32 unless the planner saw them overflow).
// The cap of 64 registers (two blocks of 512 threads per SM) keeps enough loads in flight.
// Read phase through registers (1- and 2-byte elements: cp.async moves 4 bytes at least; and
// every size in pieces, Piece < log2(sizeof(T))).
// `base + off` elements as one multiply-add of the 32-bit offset into the 64-bit pointer
// (mad.wide): written in C++ the compiler adds the offset to the tile's 64-bit base first and
// scales after, four instructions per element (ncu, docs/perf/middle-h100.md).
template <class T>
__device__ __forceinline__ T* at(T* base, int32_t off) {
  T* p;
  asm("mad.wide.s32 %0, %1, %2, %3;" : "=l"(p) : "r"(off), "n"(static_cast<int>(sizeof(T))),
      "l"(base));
  return p;
}
template <class T>
__device__ __forceinline__ T* at(T* base, int64_t off) {
  return base + off;
}

// Outputs of 1 and 2 bytes grouped by the planner (TiledParams::out_group_slot): a position is
// G = 4 / size elements along the output's dim 0, out_group_smem apart in shared memory,
// assembled in a register and stored as one aligned 4-byte word (`dst` and the offsets count
// words). One element per store kept 1-2 bytes per store instruction.
template <class Op, class Off>
__device__ __forceinline__ void write_grouped(const TiledParams& p, const typename Op::in_t* cur,
                                              uint32_t* dst, const Positions<Off>& wr,
                                              TileBase b) {
  using O = typename Op::out_t;
  constexpr int G = 4 / sizeof(O);
  if (p.out_group_slot == 0) b.lim0 /= G;
  if (p.out_group_slot == 1) b.lim1 /= G;
  uint32_t y[kElemsPerThread] = {};
  if (p.op.accumulate) {
#pragma unroll
    for (int e = 0; e < kElemsPerThread; ++e)
      if (inside(wr.coord[e], b)) y[e] = *at(dst, wr.global[e]);
  }
#pragma unroll
  for (int e = 0; e < kElemsPerThread; ++e)
    if (inside(wr.coord[e], b)) {
      uint32_t w = 0;
#pragma unroll
      for (int j = 0; j < G; ++j) {
        const auto old = static_cast<O>(y[e] >> (8 * sizeof(O) * j));
        const O r = Op::apply(p.op, cur[wr.shared[e] + j * p.out_group_smem], old);
        w |= static_cast<uint32_t>(r) << (8 * sizeof(O) * j);
      }
      *at(dst, wr.global[e]) = w;
    }
}

// The typed write of a thread's positions from the tile `cur` in shared memory: out = op(x,
// out), the old values read first when the operation accumulates (all loads before the
// stores, as in the plain write).
template <class Op, class Off>
__device__ __forceinline__ void write_typed(const TiledParams& p, const typename Op::in_t* cur,
                                            typename Op::out_t* out, const Positions<Off>& wr,
                                            const TileBase& b) {
  using O = typename Op::out_t;
  if constexpr (sizeof(O) < 4) {
    if (p.out_group_slot != kNoGroup) {
      write_grouped<Op>(p, cur, reinterpret_cast<uint32_t*>(out) + b.out, wr, b);
      return;
    }
  }
  O* const dst = out + b.out;
  O y[kElemsPerThread] = {};
  if (p.op.accumulate) {
#pragma unroll
    for (int e = 0; e < kElemsPerThread; ++e)
      if (inside(wr.coord[e], b)) y[e] = *at(dst, wr.global[e]);
  }
#pragma unroll
  for (int e = 0; e < kElemsPerThread; ++e)
    if (inside(wr.coord[e], b)) *at(dst, wr.global[e]) = Op::apply(p.op, cur[wr.shared[e]], y[e]);
}

template <int Piece, class Op, class Off>
__device__ __forceinline__ void tiles_through_registers(const TiledParams& p,
                                                        const typename Op::in_t* in,
                                                        typename Op::out_t* out,
                                                        typename Op::in_t* tile,
                                                        const Positions<Off>& rd,
                                                        const Positions<Off>& wr) {
  using T = typename Op::in_t;
  for (int64_t t = blockIdx.x; t < p.num_tiles; t += gridDim.x) {
    const TileBase b = decode_tile(p, t);
    T v[kElemsPerThread];
#pragma unroll
    for (int e = 0; e < kElemsPerThread; ++e)
      if (inside(rd.coord[e], b)) {
        if constexpr ((1 << Piece) < sizeof(T))
          v[e] = load_pieces<Piece>(in + b.in + rd.global[e]);
        else
          v[e] = in[b.in + rd.global[e]];
      }
#pragma unroll
    for (int e = 0; e < kElemsPerThread; ++e)
      if (inside(rd.coord[e], b)) tile[rd.shared[e]] = v[e];
    __syncthreads();
    if constexpr (Op::kPlain) {
#pragma unroll
      for (int e = 0; e < kElemsPerThread; ++e)
        if (inside(wr.coord[e], b)) v[e] = tile[wr.shared[e]];
#pragma unroll
      for (int e = 0; e < kElemsPerThread; ++e)
        if (inside(wr.coord[e], b)) {
          if constexpr ((1 << Piece) < sizeof(T))
            store_pieces<Piece>(out + b.out + wr.global[e], v[e]);
          else
            out[b.out + wr.global[e]] = v[e];
        }
    } else {
      write_typed<Op>(p, tile, out, wr, b);
    }
    __syncthreads();
  }
}

// One predicated cp.async per position (no branch per element: the positions' addresses stay
// in registers instead of being rebuilt in each branch).
template <class T, class Off>
__device__ __forceinline__ void issue_tile_loads(const T* in, T* buf, const TileBase& b,
                                                 const Positions<Off>& rd) {
  const T* src = in + b.in;
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(buf));
#pragma unroll
  for (int e = 0; e < kElemsPerThread; ++e)
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n"
        " @p cp.async.ca.shared.global [%0], [%1], %3;\n}\n" ::"r"(
            dst + static_cast<unsigned>(rd.shared[e]) * static_cast<unsigned>(sizeof(T))),
        "l"(at(src, rd.global[e])), "r"(static_cast<int>(inside(rd.coord[e], b))),
        "n"(sizeof(T)));
  asm volatile("cp.async.commit_group;\n" ::);
}

template <int N>
__device__ __forceinline__ void wait_groups() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Read phase by cp.async straight into shared memory, S buffers deep: the loads of the next S-1
// tiles are in flight while this tile is written out, without registers to hold them. Every
// iteration commits one group (empty past the last tile), so waiting for all but the newest
// S-1 groups always means "this tile's loads are done". Only the pending tiles' output bases
// and limits stay in registers (rotated, never indexed at run time). The tile index is decoded
// (a 64-bit division per grid dimension) by one thread, one iteration ahead, and handed to
// the others through shared memory across the iteration's barriers: decoded by every thread,
// it sat between the barrier and the next loads, ~40 instructions per thread and dimension.
// R: the unit of the read phase, the element (T) or, for typed tiles of 1- and 2-byte
// elements, a group of 4 / sizeof(T) of them along input dim 0 (params.hpp `group_slot`);
// `buf_elems` and the tile bases' input offsets count R units.
template <int S, class Op, class Off, class R = typename Op::in_t>
__device__ __forceinline__ void tiles_pipelined(const TiledParams& p, const R* in,
                                                typename Op::out_t* out, R* tile, int buf_elems,
                                                const Positions<Off>& rd) {
  using T = typename Op::in_t;
  // Grouped reads: the blocked slot along dim 0 (if any) is limited in groups.
  constexpr uint32_t kGroup = sizeof(R) / sizeof(T);
  const auto read_base = [&](TileBase b) {
    if constexpr (kGroup > 1) {
      if (p.group_slot == 0) b.lim0 /= kGroup;
      if (p.group_slot == 1) b.lim1 /= kGroup;
    }
    return b;
  };
  __shared__ TileBase next[2];  // the tile `ahead` of the iteration of that parity
  static_assert(sizeof(next) <= kTileStaticSmemBytes, "the planner counts this shared memory");
  int64_t t = blockIdx.x;
  if (t >= p.num_tiles) return;
  TileBase b[S - 1];
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    const int64_t ts = t + static_cast<int64_t>(s) * gridDim.x;
    if (ts < p.num_tiles) {
      b[s] = decode_tile(p, ts);
      issue_tile_loads(in, tile + s * buf_elems, read_base(b[s]), rd);
    } else {
      asm volatile("cp.async.commit_group;\n" ::);
    }
  }
  // The write positions are decoded while the first loads are in flight: at 1-16 MB a block
  // moves ~2 tiles, and the decodes before its first load were its critical path.
  Positions<Off> wr;
  decode_positions(p.out, p.n_out, Op::kPlain ? p.volume : p.write_volume, p.out_step, wr);
  const int64_t step = gridDim.x;
  if (threadIdx.x == 0 && t + (S - 1) * step < p.num_tiles)
    next[0] = decode_tile(p, t + (S - 1) * step);
  __syncthreads();
  int buf = 0;  // buffer of tile t
  for (int parity = 0; t < p.num_tiles; t += step, parity ^= 1) {
    const int64_t ahead = t + (S - 1) * step;
    const int ahead_buf = buf == 0 ? S - 1 : buf - 1;  // the buffer written out last iteration
    TileBase nb;
    if (ahead < p.num_tiles) {
      nb = next[parity];
      issue_tile_loads(in, tile + ahead_buf * buf_elems, read_base(nb), rd);
    } else {
      asm volatile("cp.async.commit_group;\n" ::);
    }
    if (threadIdx.x == 0 && ahead + step < p.num_tiles)
      next[parity ^ 1] = decode_tile(p, ahead + step);
    wait_groups<S - 1>();
    __syncthreads();
    // Every position reads its slot of the buffer (the full tile's; unused positions read slot
    // 0), so that only the stores are predicated; 16-byte elements with 64-bit offsets read
    // under the predicate too (four 16-byte values held at once spilled there).
    const T* cur = reinterpret_cast<const T*>(tile + buf * buf_elems);
    typename Op::out_t* const dst = out + b[0].out;
    if constexpr (!Op::kPlain) {
      write_typed<Op>(p, cur, out, wr, b[0]);
    } else if constexpr (sizeof(T) == 16 && sizeof(Off) == 8) {
#pragma unroll
      for (int e = 0; e < kElemsPerThread; ++e)
        if (inside(wr.coord[e], b[0])) *at(dst, wr.global[e]) = cur[wr.shared[e]];
    } else {
      T v[kElemsPerThread];
#pragma unroll
      for (int e = 0; e < kElemsPerThread; ++e) v[e] = cur[wr.shared[e]];
#pragma unroll
      for (int e = 0; e < kElemsPerThread; ++e)
        if (inside(wr.coord[e], b[0])) *at(dst, wr.global[e]) = v[e];
    }
    __syncthreads();
#pragma unroll
    for (int s = 0; s + 1 < S - 1; ++s) b[s] = b[s + 1];
    b[S - 2] = nb;
    buf = buf + 1 == S ? 0 : buf + 1;
  }
}

// Off: type of the tile-relative offsets (int32 unless the planner saw them overflow).
// MaxThreads: kTileThreadsSmall (two blocks per SM) or kMaxTileThreads (one block per SM, big
// tiles); either way the cap is 64 registers, which keeps enough loads in flight.
// Piece: log2 of the global access width; below log2(sizeof(T)), in and out need only be
// multiples of 2^Piece bytes (one buffer, each element moved in pieces).
template <class Op, class Off, int MaxThreads, int Piece>
__global__ void __launch_bounds__(MaxThreads, kMaxTileThreads / MaxThreads)
    tiled_kernel(const __grid_constant__ TiledParams p, const typename Op::in_t* __restrict__ in,
                 typename Op::out_t* __restrict__ out) {
  using T = typename Op::in_t;
  extern __shared__ uint4 smem_raw[];
  T* tile = reinterpret_cast<T*>(smem_raw);
  Positions<Off> rd;
  decode_positions(p.in, p.n_in, Op::kPlain ? p.volume : p.read_volume, p.in_step, rd);
  if constexpr (!Op::kPlain && sizeof(T) < 4) {
    if (p.group_slot != kNoGroup) {  // whole groups of elements, pipelined like wide ones
      tiles_pipelined<2, Op>(p, reinterpret_cast<const uint32_t*>(in), out,
                             reinterpret_cast<uint32_t*>(smem_raw),
                             p.buffer_elems / static_cast<int>(4 / sizeof(T)), rd);
      return;
    }
  }
  if constexpr (sizeof(T) >= 4 && (1 << Piece) == sizeof(T)) {
    // Typed tiles: the planner's depth (2) only, a third of the instantiations' code.
    if constexpr (!Op::kPlain)
      tiles_pipelined<2, Op>(p, in, out, tile, p.buffer_elems, rd);
    else if (p.stages >= 4)
      tiles_pipelined<4, Op>(p, in, out, tile, p.buffer_elems, rd);
    else if (p.stages == 3)
      tiles_pipelined<3, Op>(p, in, out, tile, p.buffer_elems, rd);
    else
      tiles_pipelined<2, Op>(p, in, out, tile, p.buffer_elems, rd);
  } else {
    Positions<Off> wr;
    decode_positions(p.out, p.n_out, Op::kPlain ? p.volume : p.write_volume, p.out_step, wr);
    tiles_through_registers<Piece, Op>(p, in, out, tile, rd, wr);
  }
}

template <int Log2, class Off, int MaxThreads, int Piece>
cudaError_t launch_one(const TiledParams& p, const void* in, void* out, cudaStream_t stream,
                       unsigned grid, unsigned threads, unsigned smem) {
  using T = Elem<Log2>;
  return launch_kernel(&tiled_kernel<PlainOp<T>, Off, MaxThreads, Piece>, grid, threads, smem,
                       stream, p, static_cast<const T*>(in), static_cast<T*>(out));
}

// Typed tiles: one instantiation per type pair (elem_op.cuh), big blocks (the 64-register cap
// of either block size; any thread count), 32-bit offsets (the planner offers typed problems
// no tile that needs more), whole elements (pointers that are not multiples of the element
// sizes take the general kernel).
template <class Op>
constexpr auto kTypedKernel =
    &tiled_kernel<Op, int32_t, kMaxTileThreads, log2_of_size(sizeof(typename Op::in_t))>;

template <xpose_type_t In, xpose_type_t Out>
struct TypedTile {
  using Op = WithOp<TypedOp<In, Out>>;
  static cudaError_t fn(const TiledParams& p, const void* in, void* out, cudaStream_t stream,
                        unsigned grid, unsigned threads, unsigned smem) {
    return launch_kernel(kTypedKernel<Op>, grid, threads, smem, stream, p,
                         static_cast<const typename Op::in_t*>(in),
                         static_cast<typename Op::out_t*>(out));
  }
  static void allow_smem(int smem) {
    cudaFuncSetAttribute(kTypedKernel<Op>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  }
};

template <xpose_type_t In, xpose_type_t Out>
struct TypedTileSetup {
  static void fn(int smem) { TypedTile<In, Out>::allow_smem(smem); }
};

// Per device, once: registers of the small-block instantiation, and the shared-memory opt-in
// (kMaxTileStages buffers of up to kMaxTileSmemBytes) for every instantiation.
template <class T, int MaxThreads, int Piece>
void allow_smem() {
  constexpr int kSmem = kMaxTileStages * kMaxTileSmemBytes + 64;
  cudaFuncSetAttribute(tiled_kernel<PlainOp<T>, int32_t, MaxThreads, Piece>,
                       cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(tiled_kernel<PlainOp<T>, int64_t, MaxThreads, Piece>,
                       cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
}

// The piece widths below the element's own (big-block instantiations only, kPieceFn).
template <int Log2, int Piece = 0>
void allow_smem_pieces() {
  if constexpr (Piece < Log2) {
    allow_smem<Elem<Log2>, kMaxTileThreads, Piece>();
    allow_smem_pieces<Log2, Piece + 1>();
  }
}

template <int Log2>
int setup_one() {
  using T = Elem<Log2>;
  allow_smem<T, kTileThreadsSmall, Log2>();
  allow_smem<T, kMaxTileThreads, Log2>();
  allow_smem_pieces<Log2>();
  cudaGetLastError();
  cudaFuncAttributes a{};
  return cudaFuncGetAttributes(&a, tiled_kernel<PlainOp<T>, int32_t, kTileThreadsSmall, Log2>) ==
                 cudaSuccess
             ? a.numRegs
             : 0;
}

using LaunchFn = cudaError_t (*)(const TiledParams&, const void*, void*, cudaStream_t, unsigned,
                                 unsigned, unsigned);
// The instantiation for elements of 2^Log2 bytes moved in pieces of 2^Piece bytes (Piece ==
// Log2: the aligned kernel); null for pieces wider than the element. Narrower pieces (the path
// for unaligned pointers) exist for big blocks only, which launch_tiled uses for any block size:
// the same 64-register cap, half the instantiations (the binary grew by 4.8 MB with both).
template <int Log2, int Piece, int MaxThreads>
constexpr bool kInstantiated =
    Piece == Log2 || (Piece < Log2 && MaxThreads == kMaxTileThreads);
template <int Log2, int Piece, class Off, int MaxThreads>
constexpr LaunchFn kPieceFn =
    kInstantiated<Log2, Piece, MaxThreads>
        ? &launch_one<Log2, Off, MaxThreads,
                      (kInstantiated<Log2, Piece, MaxThreads> ? Piece : Log2)>
        : nullptr;
template <int Log2, class Off, int MaxThreads>
constexpr std::array<LaunchFn, 5> kPieceRow = {
    kPieceFn<Log2, 0, Off, MaxThreads>, kPieceFn<Log2, 1, Off, MaxThreads>,
    kPieceFn<Log2, 2, Off, MaxThreads>, kPieceFn<Log2, 3, Off, MaxThreads>,
    kPieceFn<Log2, 4, Off, MaxThreads>};
template <class Off, int MaxThreads>
constexpr std::array<LaunchFn, 5> kPieces[5] = {
    kPieceRow<0, Off, MaxThreads>, kPieceRow<1, Off, MaxThreads>, kPieceRow<2, Off, MaxThreads>,
    kPieceRow<3, Off, MaxThreads>, kPieceRow<4, Off, MaxThreads>};
// The dispatch table: [block size][offset width] -> [element size][piece width].
constexpr const std::array<LaunchFn, 5>* kLaunch[2][2] = {
    {kPieces<int32_t, kTileThreadsSmall>, kPieces<int64_t, kTileThreadsSmall>},
    {kPieces<int32_t, kMaxTileThreads>, kPieces<int64_t, kMaxTileThreads>}};

}  // namespace

xpose_status_t launch_tiled(const TiledParams& p, int log2_elem, const void* in, void* out,
                            void* stream, unsigned grid, unsigned threads, unsigned smem_bytes,
                            int log2_piece) {
  if (p.op.in_type != XPOSE_TYPE_BYTES) {
    const auto fn = OpTable<TypedTile>::find(p.op);
    if (!fn)
      return fail(XPOSE_ERROR_UNSUPPORTED, "no CUDA tile kernel converts type " +
                                               std::to_string(p.op.in_type) + " to type " +
                                               std::to_string(p.op.out_type));
    return launch_status(fn(p, in, out, static_cast<cudaStream_t>(stream), grid, threads,
                            smem_bytes),
                         "tiled");
  }
  const int piece = log2_piece < 0 || log2_piece > log2_elem ? log2_elem : log2_piece;
  const int big = threads > kTileThreadsSmall || piece < log2_elem ? 1 : 0;
  const LaunchFn fn = kLaunch[big][p.wide ? 1 : 0][log2_elem][piece];
  return launch_status(fn(p, in, out, static_cast<cudaStream_t>(stream), grid, threads,
                          smem_bytes),
                       "tiled");
}

void tiled_kernel_regs(int regs[5]) {
  constexpr int kSmem = kMaxTileStages * kMaxTileSmemBytes + 64;
  for (const auto& row : OpTable<TypedTileSetup>::table.at)
    for (const auto fn : row)
      if (fn) fn(kSmem);
  regs[0] = setup_one<0>();
  regs[1] = setup_one<1>();
  regs[2] = setup_one<2>();
  regs[3] = setup_one<3>();
  regs[4] = setup_one<4>();
}

}  // namespace xpose::detail
