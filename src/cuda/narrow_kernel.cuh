// The tile kernel for narrow elements (1 and 2 bytes): the tile of the planner (input run x
// output run) with both of its sides moved in wide, aligned accesses at any extent and pointer
// (params.hpp, NarrowParams). Moving one narrow element per access, as tiled.cu does, left each
// load with 1-2 bytes in flight and ran 1- and 2-byte transposes at 0.25-0.33 of a copy.
//
// Per block, once: tables in shared memory give each row (input run) its global offset and
// blocked-slot coordinates, each span (output run) its global offset, shared-memory base and
// coordinates, and, where the output run is not evenly spaced in shared memory, each output-run
// element its shared-memory offset. Per tile:
// - load: the aligned 16-byte chunks that cover each row go by cp.async into a raw buffer (two
//   buffers, so the next tile's loads are in flight during this tile's work); bytes of a chunk
//   outside the tensor are left out;
// - realign: 16-byte chunks of the raw rows, shifted to the row's start (bytes.cuh), are stored
//   into the rows (gathered tiles: a word of padding after each NarrowParams::row_break bytes,
//   where the write phase's lanes would meet on banks). Gathered tiles with raw rows
//   (NarrowParams::raw_rows) skip it: their rows sit in the raw buffers at offsets congruent to
//   their input addresses modulo 16 plus the tile's, so the write phase gathers from the raw
//   copies (three buffers, one barrier a tile);
// - write, disjoint runs (`tiled`: the rows are the output run's positions, the spans are the
//   input run's positions, i.e. columns; write_quads): a lane takes a shared-memory word of
//   columns x 4 rows (one 16-byte load: rows are kept by column word) and the 4 rows before
//   them, transposes both 4x4-byte blocks (2x2 halfwords) with byte permutes and funnel-shifts
//   each column's bytes to the column's own output alignment, storing one whole aligned word a
//   column (4 bytes for one-byte elements, 8 for two-byte ones) under a predicate; lanes on
//   consecutive units of a word of columns, so their loads are consecutive 16-byte chunks and a
//   warp's store is contiguous. The partial words at the spans' ends follow, a thread each
//   (write_quad_ends).
// - write, other tiles: a position is four aligned 4-byte words of a span, a group apart; each
//   word's elements are gathered from the rows (bytes or halfwords, at evenly spaced offsets or
//   from the table) and stored whole, or element by element at the span's ends
//   (write_gathered). Eight positions of one span sit side by side in a warp (a sector), or 32
//   on spans of 4 KB and more (a line).
// The write phases are narrow_write.cuh's; their stores go through a store policy (PlainStore
// there; narrow_typed.cu's ConvertStore converts). narrow.cu launches plain tiles, narrow_typed.cu
// typed ones; this header is theirs alone.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/bytes.cuh"
#include "cuda/launch.cuh"
#include "cuda/narrow_write.cuh"
#include "cuda/runtime.hpp"
#include "cuda/tile_order.cuh"
#include "cuda/tile_walk.cuh"

namespace xpose::detail {
namespace {

struct RowEntry {
  int64_t global;
  uint32_t coord;
  int32_t shared;  // raw rows (NarrowParams::raw_rows): the row's offset in a raw buffer
};

// The rows' bytes as the realignment reads them from the raw buffers: the input's own (plain
// loads), or its elements converted to the tile's (narrow_loads.cu's ConvertLoad: f32 inputs in
// tiles of their output's fp8 elements, 2^kLog2 input bytes a tile byte). chunk(row, k, shift):
// the tile's 16 bytes k of the row whose raw copy starts at `row`, its first byte `shift` bytes
// in.
struct PlainLoad {
  static constexpr int kLog2 = 0;
  __device__ __forceinline__ explicit PlainLoad(const NarrowParams&) {}
  __device__ __forceinline__ uint4 chunk(const uint8_t* row, int k, int shift) const {
    const uint4* c = reinterpret_cast<const uint4*>(row) + k;
    return realign16(c[0], c[1], shift);
  }
};

// Write phases (NarrowParams::quad, n_tab and raw_rows; raw rows always have a table).
enum class Write { Quads, Evenly, Table, Raw };

// A divisor known only on the device (a tile's count of units): FastDiv32::make's numbers.
__device__ __forceinline__ FastDiv32 device_div(uint32_t d) {
  FastDiv32 f;
  f.d = d;
  f.s = d > 1 ? 32 - __clz(d - 1) : 0;
  f.m = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << f.s) - d)) / d + 1);
  return f;
}

// Starts the loads of a tile's rows into `raw`: row r at r x raw_pitch holds the aligned
// 16-byte chunks that cover it (from the boundary at or before its first byte), each moved by
// one thread with cp.async; kRaw (raw rows): from the chunk boundary that puts its first byte at
// T + its offset (RowEntry::shared), T the tile's input address modulo 16. Chunks that reach
// outside [in, in_end) (the tensor's two ends) move their bytes inside it one by one.
// `valid(r, entry)`: whether row r is in this tile. Ends: the tile is away from the tensor's
// ends (std::true_type), or not (std::false_type: every chunk is checked), or CheckEnds: tested
// here. L: the input's elements are 2^L times the tile's (narrow loads, Ld::kLog2: the rows'
// offsets and lengths in the tile's bytes are scaled to the input's). (cells.cu's rows load their
// chunks the same way.)
struct CheckEnds {};
template <class Ends, bool kRaw = false, int L = 0, class Valid>
__device__ __forceinline__ void load_rows_as(const NarrowParams& p, const uint8_t* in,
                                             const uint8_t* in_end, int64_t tile_in,
                                             const RowEntry* rows, const TileBase& b,
                                             uint8_t* raw, Valid valid, int positions) {
  const int len = run_bytes(p.rd, b) << L;
  const uint8_t* tile = in + tile_in;
  bool clear;
  if constexpr (std::is_same_v<Ends, CheckEnds>)
    clear = tile_in >= 16 && tile_in + p.in_reach <= p.in_bytes;
  else
    clear = Ends::value;
  // Lanes on consecutive chunks of a row (coalesced), rows one after the other.
  for (int i = threadIdx.x; i < positions; i += kNarrowThreads) {
    const int r = static_cast<int>(p.raw_div.div(static_cast<uint32_t>(i)));
    const int at = (i - r * p.raw_per_row) * kNarrowChunk;
    const RowEntry e = rows[r];
    const uint8_t* first = tile + (e.global << L);
    const int shift = static_cast<int>(reinterpret_cast<uintptr_t>(first) & 15);
    if (!valid(r, e) || at >= shift + len) continue;
    const uint8_t* src = first - shift + at;
    uint8_t* dst =
        raw + at +
        (kRaw ? e.shared + static_cast<int>(reinterpret_cast<uintptr_t>(tile) & 15) - shift
              : r * p.raw_pitch);
    if (clear || (src >= in && src + kNarrowChunk <= in_end)) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(
                       static_cast<unsigned>(__cvta_generic_to_shared(dst))),
                   "l"(src));
    } else {
      for (int j = 0; j < kNarrowChunk; ++j)
        if (src + j >= in && src + j < in_end) dst[j] = src[j];
    }
  }
}

// The loads of a tile's rows as one group of cp.async. Quad tiles (disjoint runs) have valid
// rows by prefix (their first run_bytes(wr) / ES) and a loop for tiles away from the tensor's
// ends, without checks; the others test each row's coordinates, and the ends in the loop (split
// like the quads', the gathered write phases ran 3-4 % slower: session 16).
template <int ES, Write W, int L>
__device__ __forceinline__ void load_rows(const NarrowParams& p, const uint8_t* in,
                                          const uint8_t* in_end, int64_t tile_in,
                                          const RowEntry* rows, const TileBase& b,
                                          uint8_t* raw, bool halo) {
  if constexpr (W == Write::Quads) {
    const int prefix = run_bytes(p.wr, b) / ES;
    const auto valid = [prefix](int r, const RowEntry&) { return r < prefix; };
    if (tile_in >= 16 && tile_in + p.in_reach <= p.in_bytes)
      load_rows_as<std::true_type, false, L>(p, in, in_end, tile_in, rows, b, raw, valid,
                                             p.raw_positions);
    else
      load_rows_as<std::false_type, false, L>(p, in, in_end, tile_in, rows, b, raw, valid,
                                              p.raw_positions);
    // The halo rows: the tile before's last rows (whole), into raw rows rd.runs and on.
    if (halo)
      load_rows_as<CheckEnds>(p, in, in_end, tile_in - p.halo_in_step,
                              rows + p.rd.runs - kNarrowHaloRows, b,
                              raw + p.rd.runs * p.raw_pitch,
                              [](int, const RowEntry&) { return true; },
                              kNarrowHaloRows * p.raw_per_row);
  } else {
    const auto valid = [&b](int, const RowEntry& e) { return inside(e.coord, b); };
    load_rows_as<CheckEnds, W == Write::Raw, L>(p, in, in_end, tile_in, rows, b, raw, valid,
                                                p.raw_positions);
  }
  asm volatile("cp.async.commit_group;\n" ::);
}

// Each row's bytes from its start, out of the raw copy: 16-byte chunks through two aligned
// loads and a funnel shift. Row layout: lanes hold consecutive chunks of a row, 16 bytes
// apart, four banks of 32 per 4-byte store, so each group of eight lanes stores its words in
// another order (rotated by lane / 8) and the four groups' stores meet in distinct banks.
// Column words (quads, realign_quad_rows): lanes on consecutive rows at one chunk, each chunk's
// four words to four column words, the lanes' rows side by side in each (no conflict): `n` rows
// from row0 on (rows[0 ..] their entries, raw rows from `raw`, the first `valid` in the tile).
template <class Ld>
__device__ __forceinline__ void realign_quad_rows(const Ld& ld, const NarrowParams& p,
                                                  uintptr_t tile, int len, const RowEntry* rows,
                                                  const uint8_t* raw, int n, const FastDiv32& by_n,
                                                  int row0, int valid, uint8_t* data) {
  const int column_bytes = 4 * p.column_words;
  const int positions = n * p.rd.per_run;
  for (int i = threadIdx.x; i < positions; i += kNarrowThreads) {
    const int k = static_cast<int>(by_n.div(static_cast<uint32_t>(i)));
    const int r = i - k * n;
    if (r >= valid || 16 * k >= len) continue;
    const uint4 v = ld.chunk(raw + r * p.raw_pitch, k,
                             static_cast<int>((tile + (rows[r].global << Ld::kLog2)) & 15));
    uint8_t* dst = data + column_word(p, 4 * k, row0 + r);
    *reinterpret_cast<uint32_t*>(dst) = v.x;
    *reinterpret_cast<uint32_t*>(dst + column_bytes) = v.y;
    *reinterpret_cast<uint32_t*>(dst + 2 * column_bytes) = v.z;
    *reinterpret_cast<uint32_t*>(dst + 3 * column_bytes) = v.w;
  }
}

template <int ES, Write W, class Ld>
__device__ __forceinline__ void realign_rows(const Ld& ld, const NarrowParams& p, const uint8_t* in,
                                             int64_t tile_in, const RowEntry* rows,
                                             const TileBase& b, const uint8_t* raw,
                                             uint8_t* data, bool halo) {
  const int len = run_bytes(p.rd, b);
  const uintptr_t tile = reinterpret_cast<uintptr_t>(in) + tile_in;
  const int positions = p.rd.runs * p.rd.per_run;
  if constexpr (W == Write::Quads) {
    realign_quad_rows(ld, p, tile, len, rows, raw, p.rd.runs, p.rows_div, 0,
                      run_bytes(p.wr, b) / ES, data);
    // The halo rows into the padding rows before row 0 (the unit before the first).
    if (halo)
      realign_quad_rows(ld, p, tile - p.halo_in_step, len, rows + p.rd.runs - kNarrowHaloRows,
                        raw + p.rd.runs * p.raw_pitch, kNarrowHaloRows,
                        device_div(kNarrowHaloRows), -kNarrowHaloRows, kNarrowHaloRows, data);
    return;
  }
  const int rot = (threadIdx.x >> 3) & 3;  // y_j = word (j + rot) & 3
  const auto realign = [&](auto padded) {
    for (int i = threadIdx.x; i < positions; i += kNarrowThreads) {
      const int r = static_cast<int>(p.rd.div.div(static_cast<uint32_t>(i)));
      const int k = i - r * p.rd.per_run, at = k * kNarrowChunk;
      const RowEntry e = rows[r];
      if (!inside(e.coord, b) || at >= len) continue;
      const uint4 v = ld.chunk(raw + r * p.raw_pitch, k,
                               static_cast<int>((tile + (e.global << Ld::kLog2)) & 15));
      uint32_t y0 = v.x, y1 = v.y, y2 = v.z, y3 = v.w;
      if (rot & 1) {
        const uint32_t t = y0;
        y0 = y1, y1 = y2, y2 = y3, y3 = t;
      }
      if (rot & 2) {
        const uint32_t t0 = y0, t1 = y1;
        y0 = y2, y1 = y3, y2 = t0, y3 = t1;
      }
      uint32_t* d = reinterpret_cast<uint32_t*>(data + r * p.pitch + at);  // 4-byte aligned
      if constexpr (decltype(padded)::value) {
        // `at` and row_break are multiples of 16 (tests/gpu/narrow_plan_test.cpp): the chunk
        // lies in one stretch between paddings, a word of padding after each before it.
        d += static_cast<int>(p.break_div.div(static_cast<uint32_t>(at))) * (kNarrowRowPad / 4);
      }
      d[rot] = y0, d[(rot + 1) & 3] = y1, d[(rot + 2) & 3] = y2, d[(rot + 3) & 3] = y3;
    }
  };
  if (p.row_break) realign(std::true_type{});
  else realign(std::false_type{});
}

// A tile's walk position, and for quads its units a column (write_quads divides by them) and
// its place along the dim that continues its runs (NarrowParams::halo): whether it takes halo
// rows (a tile before it) and writes the word across its runs' ends (no tile after it).
struct TileInfo : TileBase {
  FastDiv32 units;
  bool halo, last;
};

template <int ES, Write W, bool kHalo>
__device__ __forceinline__ TileInfo tile_info(const NarrowParams& p, uint64_t t) {
  TileInfo i;
  uint64_t c1 = 0;
  static_cast<TileBase&>(i) = walk_tile(p.grid, p.n_grid, p.slot_tile, p.num_tiles, t,
                                        kHalo ? &c1 : nullptr, kHalo ? p.halo_grid : -1);
  if (W == Write::Quads)  // quad words a column spans, at most
    i.units = device_div((run_bytes(p.wr, i) + 2 * kQuadWord<ES> - 2) / kQuadWord<ES>);
  i.halo = kHalo && c1 > 0;
  i.last = !kHalo || static_cast<int64_t>(c1) + 1 == p.halo_tiles;
  return i;
}

// The tile the block moves after tile t (its counter's next, or round-robin) into slot `slot` of
// later[] and, decoded, of ahead[].
template <int ES, Write W, bool kHalo>
__device__ __forceinline__ void deal_after(const NarrowParams& p, TileOrder& order,
                                           int64_t* later, TileInfo* ahead, int64_t t,
                                           int slot) {
  later[slot] = order.after(t);
  if (later[slot] < p.num_tiles) ahead[slot] = tile_info<ES, W, kHalo>(p, later[slot]);
}

// kHalo: the plan's quads take halo rows (NarrowParams::halo; 1-byte quads only), an
// instantiation of its own: in the others, the halo's work cost 1 % (H100, session 25).
// kBlocks: the blocks an SM the launch bounds keep registers for (params.hpp kNarrowSmallBlocks).
// St: the write phases' store policy (narrow_write.cuh PlainStore; narrow_typed.cu's
// ConvertStore, whose `out` is the output as a tensor of ES-byte elements). Ld: the load policy
// (PlainLoad; narrow_loads.cu's ConvertLoad, whose input elements are 2^Ld::kLog2 x ES bytes:
// the tile's offsets, in ES-byte elements, scaled to the input's bytes where loads use them).
template <int ES, int G, Write W, bool kHalo = false, bool kDealWarp = false,
          int kBlocks = kNarrowBlocks, class St = PlainStore, class Ld = PlainLoad>
__global__ void __launch_bounds__(narrow_block_threads(kDealWarp), kBlocks)
    narrow_kernel(const __grid_constant__ NarrowParams p, const uint8_t* __restrict__ in,
                  uint8_t* __restrict__ out, const TileDeal deal) {
  const St st(p);
  const Ld ld(p);
  constexpr int L = Ld::kLog2;
  static_assert(L == 0 || (W != Write::Raw && !kHalo), "converting loads realign their rows");
  extern __shared__ uint4 smem_raw[];
  // Raw buffers of raw_bytes: two, or three with raw rows (no `data`: data_bytes is 0).
  constexpr int kBuffers = W == Write::Raw ? 3 : 2;
  uint8_t* raw = reinterpret_cast<uint8_t*>(smem_raw);
  uint8_t* data = raw + kBuffers * p.raw_bytes;
  RowEntry* rows = reinterpret_cast<RowEntry*>(data + p.data_bytes);
  SpanEntry* spans = reinterpret_cast<SpanEntry*>(rows + p.rd.runs);
  QuadColumn* columns = reinterpret_cast<QuadColumn*>(spans + p.wr.runs);  // quads only
  uint16_t* offs = reinterpret_cast<uint16_t*>(spans + p.wr.runs);            // tables only
  // Tiles in order, by the launch's counter, or round-robin (a null one; tile_order.cuh). The
  // tile after the next is taken and decoded by one thread an iteration ahead (a 64-bit division
  // per grid dim: by every thread, it cost ~14 % of the kernel's instructions) and handed over
  // through shared memory. In gathered tiles that thread is the block's last: the phases' loops
  // give their leftover iterations to the first threads, so the last warp has the least else to
  // do before each barrier (H100, session 26, 1-2 B `dtypes`: packed, packed-split and fvi-small
  // 1.05-1.06x). 1-byte quads with rows of 64 bytes and more keep thread 0: with the last, they
  // ran 0.88-1.09x (1.00x in all). Other quads (NarrowParams::deal_warp) have a warp of their
  // own that deals (kDealWarp, narrow_block_threads): after the first barrier, while the others
  // realign and write, so the moves never wait for it; it hands the tile over through barrier
  // kDealtBarrier (bar.arrive; the movers bar.sync), and the second barrier, kMoversBarrier, is
  // the movers' alone (H200, session 34: 2-byte quads 1.07x, 0.88-1.22x; session 35: 1-byte
  // quads with rows under 64 bytes 1.05x, longer ones 0.95-0.97x, the slowest 0.76x with 8 %
  // more DRAM traffic; gathered tiles 0.97-0.99x, so they keep their dealing thread).
  constexpr int kThreads = narrow_block_threads(kDealWarp);
  constexpr int kMoversBarrier = 1, kDealtBarrier = 2;  // named barriers (0: __syncthreads)
  const bool mover = !kDealWarp || threadIdx.x < kNarrowThreads;
  const bool dealer =
      threadIdx.x == (kDealWarp ? kNarrowThreads : W == Write::Quads ? 0 : kNarrowThreads - 1);
  if (mover) {
    for (int i = threadIdx.x; i < p.rd.runs; i += kNarrowThreads) {
      const Decoded<int64_t> d = decode_index<int64_t>(p.rd.dim, p.rd.n_dims, i);
      rows[i] = {d.global, d.coord, W == Write::Raw ? d.shared : 0};
    }
    for (int i = threadIdx.x; i < p.wr.runs; i += kNarrowThreads) {
      const Decoded<int64_t> d = decode_index<int64_t>(p.wr.dim, p.wr.n_dims, i);
      spans[i] = {d.global, d.coord, d.shared};
    }
    if (W == Write::Table || W == Write::Raw)
      for (int o = threadIdx.x; o < p.out_run; o += kNarrowThreads)
        offs[o] = static_cast<uint16_t>(decode_index<int64_t>(p.tab, p.n_tab, o).shared);
  }
  __shared__ TileInfo ahead[2];
  __shared__ int64_t later[2];  // the tiles of ahead[]
  __shared__ TileOrder order;
  int64_t t = blockIdx.x;
  __syncthreads();
  const uint8_t* in_end = in + p.in_bytes;
  TileInfo b;
  if (t < p.num_tiles) {
    b = tile_info<ES, W, kHalo>(p, t);
    if (mover) load_rows<ES, W, L>(p, in, in_end, (b.in * ES) << L, rows, b, raw, kHalo && b.halo);
    if (dealer) {
      order.start(deal, p.num_tiles);
      deal_after<ES, W, kHalo>(p, order, later, ahead, t, 0);
    }
  }
  __syncthreads();
  // Iteration k reads raw buffer k & 1; the next tile's loads go to the other buffer, which the
  // previous iteration finished reading (before its second barrier), and stay in flight
  // through this one. Two barriers a tile: the first also keeps this realignment from
  // overwriting the rows and column entries that the previous write phase still reads (a third,
  // after the write phase, bought nothing: 1.00x, session 26). The slot of later[] and ahead[]
  // that iteration k reads was dealt before iteration k - 1's second barrier or, by the deal
  // warp, in iteration k - 1, which it marks by arriving at kDealtBarrier (the movers wait there at
  // the top of iteration k; the deal warp's next arrival comes after the next first barrier).
  // Raw rows: one barrier a tile. Iteration k's write phase reads raw buffer k mod 3 and the
  // next tile's loads go to buffer k + 1 mod 3, which iteration k - 2's write phase read before
  // iteration k - 1's barrier.
  int buf = 0;  // the raw buffer of tile t
  for (uint32_t k = 0; t < p.num_tiles; ++k) {
    const int s = k & 1;
    const int next_buf = W == Write::Raw ? (buf == 2 ? 0 : buf + 1) : s ^ 1;
    if (kDealWarp && mover && k > 0)
      asm volatile("bar.sync %0, %1;\n" ::"n"(kDealtBarrier), "n"(kThreads) : "memory");
    const int64_t next = later[s];
    TileInfo nb;
    if (next < p.num_tiles) {
      nb = ahead[s];
      if (!kDealWarp && dealer) deal_after<ES, W, kHalo>(p, order, later, ahead, next, s ^ 1);
      if (mover)
        load_rows<ES, W, L>(p, in, in_end, (nb.in * ES) << L, rows, nb,
                            raw + next_buf * p.raw_bytes, kHalo && nb.halo);
      asm volatile("cp.async.wait_group 1;\n" ::);
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::);
    }
    __syncthreads();
    if constexpr (W == Write::Raw) {  // from this tile's raw buffer, T past each row's offset
      const int shift = static_cast<int>((reinterpret_cast<uintptr_t>(in) + b.in * ES) & 15);
      write_gathered<ES, G, true>(st, p, out + b.out * ES, raw + buf * p.raw_bytes + shift,
                                  spans, offs, b);
    } else {
      if (kDealWarp && !mover && next < p.num_tiles) {  // iteration k + 1 follows
        if (dealer) deal_after<ES, W, kHalo>(p, order, later, ahead, next, s ^ 1);
        __syncwarp();
        asm volatile("bar.arrive %0, %1;\n" ::"n"(kDealtBarrier), "n"(kThreads) : "memory");
      }
      if (mover) {
        realign_rows<ES, W>(ld, p, in, (b.in * ES) << L, rows, b, raw + buf * p.raw_bytes, data,
                            kHalo && b.halo);
        if constexpr (W == Write::Quads)
          place_quads<ES>(p, out, b.out * ES, run_bytes(p.rd, b) / ES, run_bytes(p.wr, b),
                          spans, columns);
      }
      if constexpr (kDealWarp) {
        if (mover)
          asm volatile("bar.sync %0, %1;\n" ::"n"(kMoversBarrier), "n"(kNarrowThreads)
                       : "memory");
      } else {
        __syncthreads();
      }
      if (mover) {
        if constexpr (W == Write::Quads) {
          write_quads<ES>(st, p, out, data, columns, run_bytes(p.rd, b) / ES, b.units,
                          kHalo && b.halo);
          write_quad_ends<ES>(st, p, out, data, columns, run_bytes(p.rd, b) / ES,
                              run_bytes(p.wr, b), kHalo && b.halo, !kHalo || b.last);
        } else {
          write_gathered<ES, G, W == Write::Table>(st, p, out + b.out * ES, data, spans, offs,
                                                   b);
        }
      }
    }
    buf = next_buf;
    b = nb;
    t = next;
  }
}

// Launches of more tiles than the fixed rounds take, whose tiles share sectors, deal the rest by
// a counter (tile_order.cuh) where made outside stream capture (a graph's replays would repeat
// the counter's base) and a slot is free; otherwise round-robin. The capture query is a host call
// on these launches only (over 2 x grid tiles of 16 KB: ~13 MB and more); others make the launch
// alone.
template <int ES, int G, Write W, bool kHalo = false, bool kDealWarp = false,
          int kBlocks = kNarrowBlocks, class St = PlainStore, class Ld = PlainLoad>
cudaError_t launch_one(const NarrowParams& p, const uint8_t* in, uint8_t* out,
                       cudaStream_t stream, unsigned grid, int device) {
  TileDeal deal{};
  const bool shared = p.shared_sectors != 0 ||
                      (reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) % 32;
  if (shared && counts_tiles(p.num_tiles, grid)) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusActive;
    if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) cudaGetLastError();
    if (capture == cudaStreamCaptureStatusNone)
      deal = tile_deal_claim(device, deal_tickets(p.num_tiles, grid));
  }
  const cudaError_t e = launch_kernel(&narrow_kernel<ES, G, W, kHalo, kDealWarp, kBlocks, St, Ld>,
                                      grid, narrow_block_threads(kDealWarp),
                                      static_cast<unsigned>(p.smem_bytes), stream, p, in, out,
                                      deal);
  if (e != cudaSuccess) tile_deal_cancel(device, deal);
  return e;
}

// The launch bounds of the realigned gathered tiles' instantiations: four blocks for one-byte
// elements (params.hpp kNarrowSmallBlocks), three otherwise.
template <int ES>
constexpr int kGatheredBlocks = ES == 1 ? kNarrowSmallBlocks : kNarrowBlocks;

}  // namespace
}  // namespace xpose::detail
