// Narrow 2D tiles (params.hpp, Narrow2dParams): the Tiled schema where each run is one dimension,
// for plain elements of 1 and 2 bytes and for dense conversions (and scalings) from floating
// types of 1 and 2 bytes to those or to f32. A tile is the input run (input dim 0) x the
// output run (the output's dim 0); every other dimension is a grid dimension. Per tile, one
// block:
// - load: the aligned 4-byte words that cover each row (input run) go by cp.async into shared
//   memory, row r into plane r % K (K = 4 / output element bytes: the rows of an output word) at
//   row r / K, its bytes at the row's own shift (its address mod 4);
// - write: lane l of a warp takes output word kf + l (+ 32, ...) of the warp's output runs
//   (rows warp, warp + 8, ...). The word's pieces come from consecutive rows at one column: K
//   output elements, each converted from one shared load of an input element, or for plain
//   2-byte elements whose pointers are off 2 bytes, bytes gathered one by one; consecutive
//   lanes read consecutive rows of one plane, an odd number of words apart (no bank conflict),
//   and the rows and shifts of a lane's word are the same in every output run of the warp (runs
//   8 apart start at the same offset mod 4), so each word is 4 / piece shared loads at constant
//   offsets and one aligned 4-byte store;
// - the partial words at both ends of each output run, a thread each, as the fewest aligned
//   stores of 1 and 2 bytes that hold only the run's bytes. Where runs start off words, a tile
//   after the first along the runs also loads the K rows before it (halo) and writes the word
//   that straddles its start, and a tile before the last leaves the word that straddles its
//   end to the next: partial words only at a run's two ends (14142^2 1 B: 224 -> 187 us, 9 %
//   fewer L2 write sectors; session 18). Sector tiles (Narrow2dParams::sector: plain problems
//   above L2 whose runs start off 32-byte sectors) do the same at sectors: 32 / EO rows of
//   halo, and each warp writes groups of runs 32 apart, which share their offset mod 32, so
//   that no sector is written by two blocks (1-2 B problems of 30-300 MB 1.17-1.21x, session 22).
//   Where a tile holds the output runs' dim whole and the output's next dim is a grid dim
//   (chains, Narrow2dParams::chain_grid; plain moves), a run continues in the next tile along
//   that dim: tiles take their halo rows from the last rows of the tile before along it
//   ((119, 14161, 119) perm (2, 1, 0) 1 B 0.46 -> 0.69 of a copy, session 25).
// A block per tile (the loop only folds grids past 2^31 - 1 blocks): 1-byte tiles (34 KB, 40
// registers) six per SM, 2-byte ones (17 KB, 32 registers) eight keep their loads in flight
// without a pipeline; a persistent grid of the same tiles ran at 0.5-0.85x of that
// (docs/perf/narrow-h100.md, session 17). Plain 1-byte plans with few tiles take short ones, 128
// x 128 bytes (the OB template argument; planner.hpp kNarrow2dShortTilesPerSm, session 21).
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/bytes.cuh"
#include "cuda/elem_op.cuh"
#include "cuda/elem_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/runtime.hpp"
#include "cuda/tile_walk.cuh"

namespace xpose::detail {
namespace {

// What a tile moves. kIn, kOut: bytes of an input element (a column of the tile) and of an
// output element (a row); an output word is built of pieces of kPiece bytes, each from one
// shared load of kLoad bytes through apply.
//
// Plain elements of ES bytes, in pieces of G bytes (ES, or 1 when a pointer is not a multiple
// of ES).
template <int ES, int G>
struct PlainMove {
  static constexpr bool kPlain = true;
  static constexpr int kIn = ES, kOut = ES, kPiece = G, kLoad = G;
  __device__ __forceinline__ static uint32_t apply(const ElemOp&, uint32_t x) { return x; }
};

// A typed element operation (elem_op.cuh) without beta, alpha's test S made at launch: a piece is
// an output element converted (and scaled) from an input element. Both pointers are multiples
// of their element sizes (the plan's view).
template <xpose_type_t In, xpose_type_t Out, ScaleIs S>
struct ConvertMove {
  using Op = TypedOp<In, Out>;
  static constexpr bool kPlain = false;
  static constexpr int kIn = sizeof(typename Op::in_t), kOut = sizeof(typename Op::out_t);
  static constexpr int kPiece = kOut, kLoad = kIn;
  __device__ __forceinline__ static uint32_t apply(const ElemOp& op, uint32_t x) {
    return Op::template convert<S>(op, static_cast<typename Op::in_t>(x));
  }
};

// kSector: sector tiles (Narrow2dParams::sector), with 32 / EO rows of halo, else K.
template <class M, int OB, bool kSector>
struct Narrow2dTile {
  static constexpr int K = 4 / M::kOut;                  // rows of an output word
  static constexpr int H = kSector ? 32 / M::kOut : K;   // rows of halo
  static constexpr int TI = kNarrow2dInBytes / M::kIn;   // input-run elements (output runs)
  static constexpr int TJ = OB / M::kOut;                // output-run elements (rows)
  static constexpr int P = kNarrow2dRowWords * 4;        // bytes of a row in shared memory
  static constexpr int PLANE = (TJ + H) / K * P;         // bytes of a plane
  static constexpr int WARPS = kNarrow2dThreads / 32;
  static constexpr int RUNS = TI / WARPS;                // output runs of a warp
  static constexpr int GROUPS = 32 / WARPS;              // sector tiles: run groups of a warp
  static constexpr int GROUP_RUNS = TI / 32;             // ... and runs of a group
};

__device__ __forceinline__ void copy_word_async(uint32_t dst, const uint8_t* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src));
}

// Shared-memory address of row jj - H's first byte (column 0): rows from -H (the halo before
// the tile) are stored from jj = 0, at their shift in the input, where a chain's halo rows lie
// chain32 bytes further (Narrow2dParams::chain_delta; 0 otherwise). Unsigned, so that the
// divisions are shifts.
template <class M, int OB, bool kSector>
__device__ __forceinline__ uint32_t row_at(uint32_t base, uint32_t jj, uint32_t in32,
                                           uint32_t row32, uint32_t chain32) {
  using T = Narrow2dTile<M, OB, kSector>;
  constexpr uint32_t K = T::K, H = T::H;
  const uint32_t at = in32 + (jj - H) * row32 + (jj < H ? chain32 : 0u);
  return base + (jj % K) * T::PLANE + (jj / K) * T::P + (at & 3u);
}

// Byte b (>= -H EO) of an output run, relative to the tile's first row: the shared-memory
// address of its row's byte at column 0 (row b / EO rounded down, the byte within that element).
template <class M, int OB, bool kSector>
__device__ __forceinline__ uint32_t byte_at(uint32_t base, int b, uint32_t in32, uint32_t row32,
                                            uint32_t chain32) {
  constexpr uint32_t EO = M::kOut;
  const uint32_t bb = static_cast<uint32_t>(b + Narrow2dTile<M, OB, kSector>::H * EO);
  return row_at<M, OB, kSector>(base, bb / EO, in32, row32, chain32) + bb % EO;
}


// The whole words of sector tiles' output runs i0, i0 + 32, ... (fewer than vi), by one warp:
// the runs share their offset t mod 32; lane l takes words k = kf + l, + 32, ... of each, from
// the sector at or before the run's start (halo tiles) or its first whole word, to the sector at
// or before its end (tiles a tile follows along the runs) or its last whole word.
template <class M, int OB>
__device__ __forceinline__ void write_words(const Narrow2dParams& p, uint32_t base,
                                            uint8_t* tout, int i0, int vi, int vj, bool halo,
                                            bool last, uint32_t in32, uint32_t row32,
                                            uint32_t chain32, int lane) {
  using T = Narrow2dTile<M, OB, true>;
  constexpr int EI = M::kIn, EO = M::kOut, G = M::kPiece;
  uint8_t* run0 = tout + i0 * p.out_row;
  const int t = static_cast<int>(reinterpret_cast<uintptr_t>(run0) & 31);
  const int end = t + vj * EO;
  const int kf = halo ? 0 : (t + 3) >> 2;
  const int kl = last ? end >> 2 : (end & ~31) >> 2;
  const int64_t step = 32 * p.out_row;
  for (int k = kf + lane; k < kl; k += 32) {
    uint32_t at[4 / G];
#pragma unroll
    for (int g = 0; g < 4 / G; ++g)  // byte m = g * G of the word
      at[g] = byte_at<M, OB, true>(base, 4 * k - t + g * G, in32, row32, chain32) + i0 * EI;
    uint8_t* o = run0 - t + 4 * k;
    const auto word = [&](int i) {
      uint32_t v = 0;
#pragma unroll
      for (int g = 0; g < 4 / G; ++g)
        v |= M::apply(p.op, load_shared<M::kLoad>(at[g] + i * EI)) << (8 * G * g);
      return v;
    };
    // Full tiles unrolled (a predicate per store instead ran 0.92x on 14142^2, 1 B).
    if (vi == T::TI) {
#pragma unroll
      for (int r = 0; r < T::GROUP_RUNS; ++r)
        *reinterpret_cast<uint32_t*>(o + r * step) = word(32 * r);
    } else {
      for (int i = 0; i + i0 < vi; i += 32, o += step) *reinterpret_cast<uint32_t*>(o) = word(i);
    }
  }
}

// kChain: the plan's chain (Narrow2dParams::chain_grid >= 0; plain moves only), an
// instantiation of its own: the chain's offsets in the others' address arithmetic cost 2-byte
// tiles (32 registers) 5 %.
template <class M, int OB, bool kSector, bool kChain>
__global__ void __launch_bounds__(kNarrow2dThreads, M::kOut == 1 ? 6 : 8)
    narrow2d_kernel(const __grid_constant__ Narrow2dParams p, const uint8_t* __restrict__ in,
                    uint8_t* __restrict__ out) {
  using T = Narrow2dTile<M, OB, kSector>;
  constexpr int EI = M::kIn, EO = M::kOut, G = M::kPiece;
  extern __shared__ uint4 smem_raw[];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
  const uint8_t* in_end = in + p.in_bytes;
  const uint32_t row32 = static_cast<uint32_t>(p.in_row);
  // Whether output runs may start off 4-byte words (never for 4-byte output elements), or for
  // sector tiles off 32-byte sectors (the planner's choice: they do).
  const bool split = kSector || (EO < 4 && (p.split || (reinterpret_cast<uintptr_t>(out) & 3u)));
  constexpr uint32_t kAlign = kSector ? 31 : 3;  // the offset a tile's halo covers
  for (int64_t tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
    // The tile's position along the output runs (0 of 1 when not blocked), or along a chain.
    uint64_t c1 = 0;
    const TileBase b = walk_tile(p.grid, p.n_grid, p.slot_tile, p.num_tiles,
                                 static_cast<uint64_t>(tile), &c1, kChain ? p.chain_grid : -1);
    const int vi = static_cast<int>(b.lim0), vj = static_cast<int>(b.lim1);
    // Halo rows and the words that straddle the tile's ends (above).
    const bool halo = split && c1 > 0;
    const bool last = !split || static_cast<int64_t>(c1) + 1 == p.run_tiles;
    const int r0 = halo ? -T::H : 0;
    const uint8_t* tin = in + b.in * EI;
    uint8_t* tout = out + b.out * EO;
    const uint32_t in32 = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(tin));
    const int run = vi * EI;
    // A chain's halo rows: the last rows of the tile before along the chain's dim.
    const bool chain = kChain && halo;
    const int64_t chain_delta = kChain ? p.chain_delta : 0;
    const uint32_t chain32 = static_cast<uint32_t>(chain_delta);
    const uint8_t* hin = tin + (chain ? chain_delta : 0);  // where the halo rows' walk starts
    // Whether every row's words lie inside the input (all but the tensor's first and last).
    const uintptr_t lo = reinterpret_cast<uintptr_t>(hin + r0 * p.in_row) & ~uintptr_t{3};
    const uintptr_t hi = reinterpret_cast<uintptr_t>(tin + (vj - 1) * p.in_row) + run;
    const uintptr_t lo2 = chain ? reinterpret_cast<uintptr_t>(tin) & ~uintptr_t{3} : lo;
    const uintptr_t hi2 = chain ? reinterpret_cast<uintptr_t>(hin - p.in_row) + run : hi;
    const bool inside = (lo < lo2 ? lo : lo2) >= reinterpret_cast<uintptr_t>(in) &&
                        (((hi > hi2 ? hi : hi2) + 3) & ~uintptr_t{3}) <=
                            reinterpret_cast<uintptr_t>(in_end);
    // Warp w loads rows r0 + w, + 8, ...: rows 8 apart lie in one plane at one shift (8 is a
    // multiple of K, and 8 in_row of 4), so a row's place in shared memory and in the input is
    // a step from the last. Its lanes walk the rows' words, 33 slots a row (the words that
    // cover 128 bytes at any shift), 32 at a time: lane l starts at word l of the first row, and
    // a step moves it to word 32 of its row from word 0, else one word back on the next row.
    // Each copy instruction takes consecutive words, a row's last with the next row's first.
    // Before, a block's threads took words by a division of their index, about 25 instructions
    // a copy (session 19: a quarter of the kernel's instructions; rows of 32 words a warp, with
    // word 32 copied apart, ran 0.78-0.93x on 1-byte rows off words).
    struct RowWalk {
      const uint8_t* x;  // lane's first word
      uint32_t d;        // its place in shared memory
      int rows, span;    // rows of the warp, bytes of a row's words
    };
    const auto row_walk = [&](int first, int end, const uint8_t* src) {
      const int r = first + warp;
      RowWalk w;
      w.rows = r < end ? (end - 1 - r) / 8 + 1 : 0;
      const uint32_t shift =
          (static_cast<uint32_t>(reinterpret_cast<uintptr_t>(src)) + r * row32) & 3u;
      w.span = static_cast<int>(shift) + run;
      w.x = src + r * p.in_row - shift + 4 * lane;
      w.d = row_at<M, OB, kSector>(base, r + T::H, in32, row32, chain32) - shift + 4 * lane;
      return w;
    };
    const int64_t src_step = 8 * p.in_row - 4;  // a step to the next row, a word back
    constexpr uint32_t dst_step = 8 / T::K * T::P - 4;
    const auto load = [&](RowWalk w, auto async) {
      const auto copy = [&](uint32_t d, const uint8_t* x) {
        if constexpr (decltype(async)::value) {
          copy_word_async(d, x);
        } else {
          uint8_t* b = reinterpret_cast<uint8_t*>(smem_raw) + (d - base);
          for (int e = 0; e < 4; ++e)
            if (x + e >= in && x + e < in_end) b[e] = x[e];
        }
      };
#pragma unroll 1
      for (int s = 0, j = 0, k = lane; s < w.rows + (w.rows + 31) / 32; ++s) {
        if (j < w.rows && 4 * k < w.span) copy(w.d, w.x);
        const bool wrap = k == 0;
        k = wrap ? 32 : k - 1;
        j += wrap ? 0 : 1;
        w.x += wrap ? 128 : src_step;
        w.d += wrap ? 128u : dst_step;
      }
    };
    // A chain's halo rows lie apart from the tile's: a walk of their own.
    const RowWalk rows = row_walk(chain ? 0 : r0, vj, tin);
    const RowWalk halo_rows = row_walk(chain ? r0 : 0, 0, hin);
    if (inside) {
      if (chain) load(halo_rows, std::true_type{});
      load(rows, std::true_type{});
    } else {
      if (chain) load(halo_rows, std::false_type{});
      load(rows, std::false_type{});
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    __syncthreads();
    // Whole words. Words count from the word (sector tiles: the sector) at or before a run's
    // start: from there where the tile has halo rows, else from its first whole word; to the one
    // at or before its end where a tile follows along the runs (which writes that word or
    // sector), else to its last whole word. The runs of a warp share their offset t mod 4
    // (runs 8 apart), for sector tiles their offset mod 32 (groups of runs 32 apart).
    if constexpr (kSector) {
#pragma unroll 1
      for (int q = 0; q < T::GROUPS; ++q) {
        const int i0 = warp + T::WARPS * q;
        if (i0 >= vi) break;
        write_words<M, OB>(p, base, tout, i0, vi, vj, halo, last, in32, row32, chain32, lane);
      }
    } else {
      // Word tiles: write_words' loop for runs 8 apart at words, kept apart. Through a version of
      // that function for both tiles, one-wave 1 MB 2-byte problems ran 0.86x (session 22, call
      // 16): its code differs from this one's.
      uint8_t* run0 = tout + warp * p.out_row;
      const int t = static_cast<int>(reinterpret_cast<uintptr_t>(run0) & 3);
      const int kf = t > 0 && !halo ? 1 : 0, kl = (t + vj * EO) >> 2;
      const int64_t step = (kNarrow2dThreads / 32) * p.out_row;
      for (int k = kf + lane; k < kl; k += 32) {
        uint32_t at[4 / G];
#pragma unroll
        for (int g = 0; g < 4 / G; ++g)  // byte m = g * G of the word
          at[g] = byte_at<M, OB, kSector>(base, 4 * k - t + g * G, in32, row32, chain32) +
                  warp * EI;
        uint8_t* o = run0 - t + 4 * k;
        const auto word = [&](int i) {
          uint32_t v = 0;
#pragma unroll
          for (int g = 0; g < 4 / G; ++g)
            v |= M::apply(p.op, load_shared<M::kLoad>(at[g] + i * EI)) << (8 * G * g);
          return v;
        };
        // Full tiles unrolled (a predicate per store instead ran 0.92x on 14142^2, 1 B).
        if (vi == T::TI) {
#pragma unroll
          for (int r = 0; r < T::RUNS; ++r)
            *reinterpret_cast<uint32_t*>(o + r * step) = word(8 * r);
        } else {
          for (int i = 0; i + warp < vi; i += 8, o += step)
            *reinterpret_cast<uint32_t*>(o) = word(i);
        }
      }
    }
    // The partial words at the two ends of each output run.
    for (int x = threadIdx.x; x < 2 * vi; x += kNarrow2dThreads) {
      const int i = x >> 1;
      uint8_t* run_i = tout + i * p.out_row;
      const int t = static_cast<int>(reinterpret_cast<uintptr_t>(run_i) & kAlign);
      const int span = t + vj * EO, kl = span >> 2;
      const int kf = kSector ? (halo ? 0 : (t + 3) >> 2) : (t > 0 && !halo ? 1 : 0);
      int k;
      if ((x & 1) == 0) {
        if ((t & 3) == 0 || halo) continue;
        k = t >> 2;
      } else {
        if ((span & 3) == 0 || kl < kf || !last) continue;
        k = kl;
      }
      const int m_lo = halo ? 0 : max(0, t - 4 * k), m_hi = min(4, span - 4 * k);
      uint32_t v = 0;
      for (int m = m_lo; m < m_hi; m += G) {
        const uint32_t a =
            byte_at<M, OB, kSector>(base, 4 * k - t + m, in32, row32, chain32) + i * EI;
        v |= M::apply(p.op, load_shared<M::kLoad>(a)) << (8 * m);
      }
      store_word_part(run_i - t + 4 * k, v, m_lo, m_hi);
    }
    __syncthreads();
  }
}

// The kernel of the plan's tile: plain 1-byte tiles whose output runs fit a short tile's take it
// (narrow2d_out_bytes, planner.hpp kNarrow2dShortTilesPerSm); the others a full tile's; plain
// plans with Narrow2dParams::sector its sector tiles.
template <class M, int OB, bool kSector>
cudaError_t launch_tiles(const Narrow2dParams& p, const uint8_t* in, uint8_t* out,
                         cudaStream_t stream, unsigned grid) {
  const auto smem = static_cast<unsigned>(narrow2d_smem_bytes(M::kOut, OB, kSector));
  if constexpr (M::kPlain) {
    if (p.chain_grid >= 0)
      return launch_kernel(&narrow2d_kernel<M, OB, kSector, true>, grid, kNarrow2dThreads, smem,
                           stream, p, in, out);
  }
  return launch_kernel(&narrow2d_kernel<M, OB, kSector, false>, grid, kNarrow2dThreads, smem,
                       stream, p, in, out);
}

template <class M>
cudaError_t launch_one(const Narrow2dParams& p, const uint8_t* in, uint8_t* out,
                       cudaStream_t stream, unsigned grid) {
  constexpr int kShort = kNarrow2dShortOutBytes, kFull = kNarrow2dOutBytes;
  if constexpr (std::is_same_v<M, PlainMove<1, 1>>) {
    if (narrow2d_out_bytes(p.tj) == kShort)
      return p.sector ? launch_tiles<M, kShort, true>(p, in, out, stream, grid)
                      : launch_tiles<M, kShort, false>(p, in, out, stream, grid);
  }
  if constexpr (std::is_same_v<M, PlainMove<1, 1>> || std::is_same_v<M, PlainMove<2, 2>>) {
    if (p.sector) return launch_tiles<M, kFull, true>(p, in, out, stream, grid);
  }
  return launch_tiles<M, kFull, false>(p, in, out, stream, grid);
}

template <xpose_type_t In, xpose_type_t Out>
cudaError_t launch_pair(const Narrow2dParams& p, const uint8_t* in, uint8_t* out, cudaStream_t s,
                        unsigned grid) {
  return p.op.scale ? launch_one<ConvertMove<In, Out, ScaleIs::On>>(p, in, out, s, grid)
                    : launch_one<ConvertMove<In, Out, ScaleIs::Off>>(p, in, out, s, grid);
}

// The typed instantiations: pairs of the types narrow2d_converts (narrow_plan.cpp) takes.
template <xpose_type_t In>
cudaError_t launch_from(const Narrow2dParams& p, const uint8_t* in, uint8_t* out,
                        cudaStream_t s, unsigned grid) {
  switch (p.op.out_type) {
    case XPOSE_TYPE_F8_E4M3: return launch_pair<In, XPOSE_TYPE_F8_E4M3>(p, in, out, s, grid);
    case XPOSE_TYPE_F8_E5M2: return launch_pair<In, XPOSE_TYPE_F8_E5M2>(p, in, out, s, grid);
    case XPOSE_TYPE_F16: return launch_pair<In, XPOSE_TYPE_F16>(p, in, out, s, grid);
    case XPOSE_TYPE_BF16: return launch_pair<In, XPOSE_TYPE_BF16>(p, in, out, s, grid);
    case XPOSE_TYPE_F32: return launch_pair<In, XPOSE_TYPE_F32>(p, in, out, s, grid);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_typed(const Narrow2dParams& p, const uint8_t* in, uint8_t* out,
                         cudaStream_t s, unsigned grid) {
  switch (p.op.in_type) {
    case XPOSE_TYPE_F8_E4M3: return launch_from<XPOSE_TYPE_F8_E4M3>(p, in, out, s, grid);
    case XPOSE_TYPE_F8_E5M2: return launch_from<XPOSE_TYPE_F8_E5M2>(p, in, out, s, grid);
    case XPOSE_TYPE_F16: return launch_from<XPOSE_TYPE_F16>(p, in, out, s, grid);
    case XPOSE_TYPE_BF16: return launch_from<XPOSE_TYPE_BF16>(p, in, out, s, grid);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

xpose_status_t launch_narrow2d(const Narrow2dParams& p, int elem_size, const void* in, void* out,
                               void* stream, unsigned grid) {
  const auto s = static_cast<cudaStream_t>(stream);
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  cudaError_t e;
  if (p.op.in_type != XPOSE_TYPE_BYTES)
    e = launch_typed(p, src, dst, s, grid);
  else if (elem_size == 1)
    e = launch_one<PlainMove<1, 1>>(p, src, dst, s, grid);
  else if ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) % 2 == 0)
    e = launch_one<PlainMove<2, 2>>(p, src, dst, s, grid);
  else
    e = launch_one<PlainMove<2, 1>>(p, src, dst, s, grid);
  return launch_status(e, "narrow2d");
}

}  // namespace xpose::detail
