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
// Shared by tiled.cu (plain tiles) and the typed tiles' files (tiled_typed_*.cu: one
// instantiation per type pair, in two files that compile in parallel).
//
// Pointers that are not multiples of the element size take the same tile with every element
// moved through global memory in pieces of 2^Piece bytes, the widest both pointers allow: the
// plan's own tile, so a plan needs no view of its own for them (API.md: any alignment works,
// aligned data may be faster).
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/elem_op.cuh"
#include "cuda/elem_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/tile_walk.cuh"

namespace xpose::detail::tiles {

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
  return walk_tile(p.grid, p.n_grid, p.slot_tile, p.num_tiles, rest);
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

// The typed write phase. Outputs of 1 and 2 bytes grouped by the planner
// (TiledParams::out_group_slot) are written a word at a time: a position is G = 4 / size
// elements along the output's dim 0, out_group_smem apart in shared memory, assembled in a
// register and stored as one aligned 4-byte word (the offsets then count words; one element
// per store kept 1-2 bytes per store instruction). Old output values (beta != 0) are staged in
// shared memory by cp.async with the tile's input (issue_old_loads, where the planner gave
// them room), else read by read_old before the tile's input is waited for, so their latency
// overlaps it; Old holds a position's word (a group, or an element as the low bytes) or
// element.
template <class Op>
using Old = std::conditional_t<(sizeof(typename Op::out_t) < 4), uint32_t, typename Op::out_t>;

template <class Op>
__device__ __forceinline__ bool grouped_writes(const TiledParams& p) {
  return sizeof(typename Op::out_t) < 4 && p.out_group_slot != kNoGroup;
}

// The tile's limits for grouped positions: the grouped dim's slot counts groups.
template <class Op>
__device__ __forceinline__ TileBase write_base(const TiledParams& p, TileBase b) {
  constexpr uint32_t G = 4 / sizeof(typename Op::out_t) > 1 ? 4 / sizeof(typename Op::out_t) : 1;
  if (p.out_group_slot == 0) b.lim0 /= G;
  if (p.out_group_slot == 1) b.lim1 /= G;
  return b;
}

template <class Op, class Off>
__device__ __forceinline__ void read_old(const TiledParams& p, typename Op::out_t* out,
                                         const Positions<Off>& wr, const TileBase& b,
                                         Old<Op>* y) {
  if (!p.op.accumulate) return;
  if constexpr (sizeof(typename Op::out_t) < 4) {
    if (grouped_writes<Op>(p)) {
      const uint32_t* dst = reinterpret_cast<const uint32_t*>(out) + b.out;
      const TileBase g = write_base<Op>(p, b);
#pragma unroll
      for (int e = 0; e < kElemsPerThread; ++e)
        if (inside(wr.coord[e], g)) y[e] = *at(dst, wr.global[e]);
      return;
    }
  }
  const typename Op::out_t* dst = out + b.out;
#pragma unroll
  for (int e = 0; e < kElemsPerThread; ++e)
    if (inside(wr.coord[e], b)) y[e] = *at(dst, wr.global[e]);
}

// out = op(x, old) for a thread's positions, x from the tile `cur` in shared memory. A position
// of one real element (Op::kLeanWrite) reads and converts its slot whether or not it is in the
// tile (unused positions read slot 0: decode_positions) and only its store is predicated: a
// branch a position cost three instructions of ~20. Grouped positions keep the branch: their G
// conversions at once ran grouped bf16 -> e4m3 tiles at 0.68-0.77x (session 15, not
// profiled). S: op.scale, tested once a tile by write_tile (Op::kLeanWrite).
template <class Op, ScaleIs S, class Off>
__device__ __forceinline__ void write_typed(const TiledParams& p, const typename Op::in_t* cur,
                                            typename Op::out_t* out, const Positions<Off>& wr,
                                            const TileBase& b, const Old<Op>* y) {
  using O = typename Op::out_t;
  if constexpr (sizeof(O) < 4) {
    if (grouped_writes<Op>(p)) {
      constexpr int G = 4 / sizeof(O);
      uint32_t* dst = reinterpret_cast<uint32_t*>(out) + b.out;
      const TileBase g = write_base<Op>(p, b);
#pragma unroll
      for (int e = 0; e < kElemsPerThread; ++e)
        if (inside(wr.coord[e], g)) {
          uint32_t w = 0;
#pragma unroll
          for (int j = 0; j < G; ++j) {
            const auto old = static_cast<O>(y[e] >> (8 * sizeof(O) * j));
            const O r = Op::template apply<S>(
                p.op, cur[wr.shared[e] + j * p.out_group_smem], old);
            w |= static_cast<uint32_t>(r) << (8 * sizeof(O) * j);
          }
          *at(dst, wr.global[e]) = w;
        }
      return;
    }
  }
  O* const dst = out + b.out;
#pragma unroll
  for (int e = 0; e < kElemsPerThread; ++e) {
    if constexpr (Op::kLeanWrite) {
      const O r = Op::template apply<S>(p.op, cur[wr.shared[e]], static_cast<O>(y[e]));
      if (inside(wr.coord[e], b)) *at(dst, wr.global[e]) = r;
    } else if (inside(wr.coord[e], b)) {
      *at(dst, wr.global[e]) = Op::template apply<S>(p.op, cur[wr.shared[e]], static_cast<O>(y[e]));
    }
  }
}

template <class Op, class Off>
__device__ __forceinline__ void write_tile(const TiledParams& p, const typename Op::in_t* cur,
                                           typename Op::out_t* out, const Positions<Off>& wr,
                                           const TileBase& b, const Old<Op>* y) {
  if constexpr (!Op::kLeanWrite)
    write_typed<Op, ScaleIs::Unknown>(p, cur, out, wr, b, y);
  else if (p.op.scale)
    write_typed<Op, ScaleIs::On>(p, cur, out, wr, b, y);
  else
    write_typed<Op, ScaleIs::Off>(p, cur, out, wr, b, y);
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
}

__device__ __forceinline__ void commit_group() { asm volatile("cp.async.commit_group;\n" ::); }

// beta's old outputs at a tile's write positions, by cp.async into the staging slots `olds`
// (TiledParams::old_offset: [position][thread], so that each thread reads back its own): the
// write phase's words (grouped outputs of 1 and 2 bytes) or elements.
template <class Op, class Off>
__device__ __forceinline__ void issue_old_loads(const TiledParams& p,
                                                const typename Op::out_t* out, Old<Op>* olds,
                                                const TileBase& b, const Positions<Off>& wr) {
  using W = Old<Op>;
  const W* src = reinterpret_cast<const W*>(out) + b.out;
  const TileBase g = write_base<Op>(p, b);
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(olds + threadIdx.x));
  const unsigned row = blockDim.x * static_cast<unsigned>(sizeof(W));
#pragma unroll
  for (int e = 0; e < kElemsPerThread; ++e)
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n"
        " @p cp.async.ca.shared.global [%0], [%1], %3;\n}\n" ::"r"(dst + e * row),
        "l"(at(src, wr.global[e])), "r"(static_cast<int>(inside(wr.coord[e], g))),
        "n"(sizeof(W)));
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
// `next`: the tile `ahead` of the iterations of either parity, in the kernel's static shared
// memory (one array for every depth a kernel instantiates).
template <int S, class Op, class Off, class R = typename Op::in_t>
__device__ __forceinline__ void tiles_pipelined(const TiledParams& p, const R* in,
                                                typename Op::out_t* out, R* tile, int buf_elems,
                                                const Positions<Off>& rd, TileBase* next,
                                                TileBase* first) {
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
  int64_t t = blockIdx.x;
  if (t >= p.num_tiles) return;
  // Typed tiles decode their write positions first: beta's staged old outputs (old_async)
  // join each tile's group of loads.
  Old<Op>* const olds =
      reinterpret_cast<Old<Op>*>(reinterpret_cast<char*>(tile) + p.old_offset);
  const bool old_async = !Op::kPlain && p.old_offset != 0;
  const int old_elems = kElemsPerThread * static_cast<int>(blockDim.x);
  Positions<Off> wr;
  if constexpr (!Op::kPlain) decode_positions(p.out, p.n_out, p.write_volume, p.out_step, wr);
  // The first tiles are walked by thread 0 and handed over in `first`: walked by every warp,
  // they were a third of the instructions of a block that moves two tiles (4 MB).
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
      const int64_t ts = t + static_cast<int64_t>(s) * gridDim.x;
      if (ts < p.num_tiles) first[s] = decode_tile(p, ts);
    }
  }
  __syncthreads();
  TileBase b[S - 1];
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    const int64_t ts = t + static_cast<int64_t>(s) * gridDim.x;
    if (ts < p.num_tiles) {
      b[s] = first[s];
      issue_tile_loads(in, tile + s * buf_elems, read_base(b[s]), rd);
      if (old_async) issue_old_loads<Op>(p, out, olds + s * old_elems, b[s], wr);
    }
    commit_group();
  }
  // Plain tiles decode the write positions while the first loads are in flight: at 1-16 MB a
  // block moves ~2 tiles, and the decodes before its first load were its critical path.
  if constexpr (Op::kPlain) decode_positions(p.out, p.n_out, p.volume, p.out_step, wr);
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
      if (old_async) issue_old_loads<Op>(p, out, olds + ahead_buf * old_elems, nb, wr);
    }
    commit_group();
    if (threadIdx.x == 0 && ahead + step < p.num_tiles)
      next[parity ^ 1] = decode_tile(p, ahead + step);
    // Typed tiles: the old output, staged with the tile or else read here, in flight with the
    // wait.
    Old<Op> y[kElemsPerThread] = {};
    if constexpr (!Op::kPlain)
      if (!old_async) read_old<Op>(p, out, wr, b[0], y);
    wait_groups<S - 1>();
    __syncthreads();
    if constexpr (!Op::kPlain)
      if (old_async) {
#pragma unroll
        for (int e = 0; e < kElemsPerThread; ++e)
          y[e] = olds[buf * old_elems + e * static_cast<int>(blockDim.x) + threadIdx.x];
      }
    // Every position reads its slot of the buffer (the full tile's; unused positions read slot
    // 0), so that only the stores are predicated; 16-byte elements with 64-bit offsets read
    // under the predicate too (four 16-byte values held at once spilled there).
    const T* cur = reinterpret_cast<const T*>(tile + buf * buf_elems);
    typename Op::out_t* const dst = out + b[0].out;
    if constexpr (!Op::kPlain) {
      write_tile<Op>(p, cur, out, wr, b[0], y);
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

// Typed tiles' depths (planner.cpp typed_pipeline): two instantiations, not the plain tiles'
// three.
template <class Op, class Off, class R>
__device__ __forceinline__ void typed_pipelined(const TiledParams& p, const R* in,
                                                typename Op::out_t* out, R* tile, int buf_elems,
                                                const Positions<Off>& rd, TileBase* next,
                                                TileBase* first) {
  if (p.stages >= kTypedDeepStages)
    tiles_pipelined<kTypedDeepStages, Op>(p, in, out, tile, buf_elems, rd, next, first);
  else
    tiles_pipelined<2, Op>(p, in, out, tile, buf_elems, rd, next, first);
}

// Typed tiles of 1- and 2-byte inputs read one element at a time (not grouped: odd leading
// extents, strides), through registers: the next tile's loads are issued as soon as this
// tile's values are in shared memory, so they are in flight during its write phase (loaded at
// the top of each tile, as the plain path does, a block had no load in flight while it wrote:
// +1-14 % on 12 of the 14 such cases of cutt-random, docs/perf/typed-h100.md). As in
// tiles_pipelined, thread 0 decodes the tile after next (decoded by every warp, the 64-bit
// divisions were ~45 % of the instructions here), into a ring of three bases in shared memory,
// `bases`: slot k % 3 holds the tile of iteration k, read where it is used (kept in registers
// across the write phase, the bases spilled).
template <class Op, class Off>
__device__ __forceinline__ void typed_tiles_through_registers(const TiledParams& p,
                                                              const typename Op::in_t* in,
                                                              typename Op::out_t* out,
                                                              typename Op::in_t* tile,
                                                              const Positions<Off>& rd,
                                                              const Positions<Off>& wr,
                                                              TileBase* bases) {
  using T = typename Op::in_t;
  int64_t t = blockIdx.x;
  if (t >= p.num_tiles) return;
  T v[kElemsPerThread];
  const auto load = [&](const TileBase& b) {
#pragma unroll
    for (int e = 0; e < kElemsPerThread; ++e)
      if (inside(rd.coord[e], b)) v[e] = in[b.in + rd.global[e]];
  };
  const int64_t step = gridDim.x;
  if (threadIdx.x == 0) {
    bases[0] = decode_tile(p, t);
    if (t + step < p.num_tiles) bases[1] = decode_tile(p, t + step);
  }
  __syncthreads();
  load(bases[0]);
  for (int slot = 0; t < p.num_tiles; t += step) {
    const int next = slot == 2 ? 0 : slot + 1, after = next == 2 ? 0 : next + 1;
    Old<Op> y[kElemsPerThread] = {};
    {
      const TileBase b = bases[slot];
      read_old<Op>(p, out, wr, b, y);
#pragma unroll
      for (int e = 0; e < kElemsPerThread; ++e)
        if (inside(rd.coord[e], b)) tile[rd.shared[e]] = v[e];
    }
    __syncthreads();  // bases[next] was written before the last iteration's second barrier
    if (t + step < p.num_tiles) load(bases[next]);
    // bases[after] was last read in the last iteration's write phase.
    if (threadIdx.x == 0 && t + 2 * step < p.num_tiles)
      bases[after] = decode_tile(p, t + 2 * step);
    write_tile<Op>(p, tile, out, wr, bases[slot], y);
    __syncthreads();
    slot = next;
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
  // tiles_pipelined: the next tiles (two) and the first ones (from 3); typed_tiles_through_
  // registers: three.
  __shared__ TileBase next[3 + kMaxTileStages - 1];
  static_assert(sizeof(next) <= kTileStaticSmemBytes, "the planner counts this shared memory");
  TileBase* const first = next + 3;
  Positions<Off> rd;
  decode_positions(p.in, p.n_in, Op::kPlain ? p.volume : p.read_volume, p.in_step, rd);
  if constexpr (!Op::kPlain && sizeof(T) < 4) {
    if (p.group_slot != kNoGroup) {  // whole groups of elements, pipelined like wide ones
      typed_pipelined<Op>(p, reinterpret_cast<const uint32_t*>(in), out,
                          reinterpret_cast<uint32_t*>(smem_raw),
                          p.buffer_elems / static_cast<int>(4 / sizeof(T)), rd, next, first);
    } else {
      Positions<Off> wr;
      decode_positions(p.out, p.n_out, p.write_volume, p.out_step, wr);
      typed_tiles_through_registers<Op>(p, in, out, tile, rd, wr, next);
    }
  } else if constexpr (!Op::kPlain) {
    typed_pipelined<Op>(p, in, out, tile, p.buffer_elems, rd, next, first);
  } else if constexpr (sizeof(T) >= 4 && (1 << Piece) == sizeof(T)) {
    if (p.stages >= 4)
      tiles_pipelined<4, Op>(p, in, out, tile, p.buffer_elems, rd, next, first);
    else if (p.stages == 3)
      tiles_pipelined<3, Op>(p, in, out, tile, p.buffer_elems, rd, next, first);
    else
      tiles_pipelined<2, Op>(p, in, out, tile, p.buffer_elems, rd, next, first);
  } else {
    Positions<Off> wr;
    decode_positions(p.out, p.n_out, p.volume, p.out_step, wr);
    tiles_through_registers<Piece, Op>(p, in, out, tile, rd, wr);
  }
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

// The typed tiles of the pairs whose input has 1 or 2 bytes (tiled_typed_narrow.cu) and of the
// others (tiled_typed_wide.cu): the launch of an ElemOp's pair (null if none), and the
// shared-memory opt-in of every instantiation.
using TypedTileFn = decltype(&TypedTile<XPOSE_TYPE_F32, XPOSE_TYPE_F32>::fn);
TypedTileFn typed_tile_narrow(const ElemOp& op);
TypedTileFn typed_tile_wide(const ElemOp& op);
void typed_tile_setup_narrow(int smem);
void typed_tile_setup_wide(int smem);

// Part `part` of the pairs (elem_op.cuh in_part) as the two functions above.
template <int Part>
TypedTileFn find_typed_tile(const ElemOp& op) {
  return OpTable<TypedTile, Part>::find(op);
}
template <int Part>
void setup_typed_tiles(int smem) {
  for (const auto& row : OpTable<TypedTileSetup, Part>::table.at)
    for (const auto fn : row)
      if (fn) fn(smem);
}

}  // namespace xpose::detail::tiles
