// The write phases of the narrow kernel (narrow.cu): a tile's rows, realigned in shared memory,
// stored to the output runs (spans) in aligned words. Quads (disjoint runs): 4x4-byte blocks
// transposed by byte permutes, a word a column (write_quads, write_quad_ends); other tiles:
// words gathered from the rows (write_gathered). Every global store goes through a store policy:
// PlainStore (below) stores the bytes; narrow_typed.cu's ConvertStore converts them. Included by
// narrow_kernel.cuh alone.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/params.hpp"
#include "cuda/tile_walk.cuh"

namespace xpose::detail {
namespace {

// A span (output run) of a tile: its global offset from the tile's output base, its
// blocked-slot coordinates and its shared-memory base.
struct SpanEntry {
  int64_t global;
  uint32_t coord;
  int32_t shared;
};

// Bytes of a run of this tile: the full run, or as far as its blocked last dim reaches.
__device__ __forceinline__ int run_bytes(const NarrowPhase& ph, const TileBase& b) {
  if (ph.slot < 0) return ph.full;
  return ph.unit * static_cast<int>(ph.slot == 0 ? b.lim0 : b.lim1);
}

// Shared memory of the rows. Quads keep them by column word: word g of row r at word
// g x column_words + 8 + r (narrow_column_words), so four consecutive rows of a column word are
// one 16-byte load; the others keep row r at r x pitch.
__device__ __forceinline__ int column_word(const NarrowParams& p, int g, int r) {
  return 4 * (g * p.column_words + 8 + r);
}

// Bytes [8 - tau, 16 - tau) of the 16 bytes p0 p1 v0 v1 (words, little-endian), tau in 0..7:
// a column's 8 bytes before and 8 bytes of this unit, shifted to its output's 8-byte boundary.
__device__ __forceinline__ uint2 shift8(uint32_t p0, uint32_t p1, uint32_t v0, uint32_t v1,
                                        int tau) {
  const bool late = tau <= 4;  // the result starts in p1 (or v0)
  const uint32_t a = late ? p1 : p0, b = late ? v0 : p1, c = late ? v1 : v0;
  const unsigned bits = 8u * (late ? 4 - tau : 8 - tau);
  return make_uint2(__funnelshift_rc(a, b, bits), __funnelshift_rc(b, c, bits));
}

// Rows k4 .. k4 + 3 of a word of columns (one word a row) as column words: col[c] holds column
// c's 4 / ES elements... for one-byte elements the 4x4 byte transpose, four words; for two-byte
// ones two words per column, rows (0,1) and (2,3).
template <int ES>
__device__ __forceinline__ void columns_of(const uint4& x, uint32_t (&col)[4]) {
  if constexpr (ES == 1) {
    const uint32_t lo01 = __byte_perm(x.x, x.y, 0x5140), hi01 = __byte_perm(x.x, x.y, 0x7362);
    const uint32_t lo23 = __byte_perm(x.z, x.w, 0x5140), hi23 = __byte_perm(x.z, x.w, 0x7362);
    col[0] = __byte_perm(lo01, lo23, 0x5410), col[1] = __byte_perm(lo01, lo23, 0x7632);
    col[2] = __byte_perm(hi01, hi23, 0x5410), col[3] = __byte_perm(hi01, hi23, 0x7632);
  } else {
    col[0] = __byte_perm(x.x, x.y, 0x5410), col[1] = __byte_perm(x.z, x.w, 0x5410);
    col[2] = __byte_perm(x.x, x.y, 0x7632), col[3] = __byte_perm(x.z, x.w, 0x7632);
  }
}

// The output words of the quads: 4 bytes for one-byte elements, 8 for two-byte ones, so that a
// lane's unit of 4 rows (one 16-byte load of a column word) is one word of each of its columns.
template <int ES>
inline constexpr int kQuadWord = 4 * ES;

// A column of a quad tile, per tile: its span's start rounded down to a quad word (an offset
// from the output), how far past that the span starts, and the last multiple of the word size at
// which a whole word of the span starts (bytes + tau - word; -1 for a column outside this tile,
// which stores nothing). 16 bytes, one load.
struct alignas(16) QuadColumn {
  int64_t word;
  int32_t tau;
  int32_t hi;
};

// The columns' entries of this tile (a thread a column; entries up to the next multiple of 4,
// so that a word of columns reads its four without a check).
template <int ES>
__device__ __forceinline__ void place_quads(const NarrowParams& p, const uint8_t* out,
                                           int64_t tile_out, int cols, int bytes,
                                           const SpanEntry* spans, QuadColumn* columns) {
  constexpr int kW = kQuadWord<ES>;
  const int n = (p.wr.runs + 3) & ~3;
  for (int c = threadIdx.x; c < n; c += kNarrowThreads) {
    const int64_t off = tile_out + (c < p.wr.runs ? spans[c].global : 0);
    const int tau = static_cast<int>((reinterpret_cast<uintptr_t>(out) + off) & (kW - 1));
    columns[c] = {off - tau, tau, c < cols ? bytes + tau - kW : -1};
  }
}

// The 4 rows of one column (`c`, of 4 / ES) out of a 16-byte load of a column word: for one-byte
// elements its byte of each row, for two-byte ones its halfword of rows 0, 1 (w = 0) or 2, 3.
template <int ES>
__device__ __forceinline__ uint32_t column_of(const uint4& x, int c, int w) {
  if constexpr (ES == 1) {
    const uint32_t lo = __byte_perm(x.x, x.y, 0x40 + 17 * c);  // byte c of x, of y
    const uint32_t hi = __byte_perm(x.z, x.w, 0x40 + 17 * c);
    return __byte_perm(lo, hi, 0x5410);
  } else {
    const uint32_t a = w ? x.z : x.x, b = w ? x.w : x.y;
    return __byte_perm(a, b, c ? 0x7632 : 0x5410);
  }
}

// A column's word from its bytes before the unit (p) and its bytes of the unit (v), shifted to
// the column's output alignment tau: one-byte elements, bytes [4 - tau, 8 - tau) of p0 v0;
// two-byte ones, bytes [8 - tau, 16 - tau) of p0 p1 v0 v1 (shift8).
template <int ES>
__device__ __forceinline__ uint2 quad_word(uint32_t p0, uint32_t p1, uint32_t v0, uint32_t v1,
                                           int tau) {
  if constexpr (ES == 1) return make_uint2(__funnelshift_rc(p0, v0, 32u - 8u * tau), 0u);
  else return shift8(p0, p1, v0, v1, tau);
}

// A column's entry in one 16-byte shared-memory load.
__device__ __forceinline__ QuadColumn load_column(const QuadColumn* columns, int c) {
  const uint4 x = reinterpret_cast<const uint4*>(columns)[c];
  return {static_cast<int64_t>((uint64_t{x.y} << 32) | x.x), static_cast<int32_t>(x.z),
          static_cast<int32_t>(x.w)};
}

// A global store under a predicate, without a branch around it (the write loops' stores are
// conditional per column; branches cost each of them a convergence barrier).
__device__ __forceinline__ void store_if(bool p, uint8_t* at, uint2 v, bool wide) {
  if (wide)
    asm volatile(
        "{\n .reg .pred q;\n setp.ne.b32 q, %0, 0;\n @q st.global.v2.b32 [%1], {%2, %3};\n}" ::
            "r"(static_cast<int>(p)), "l"(at), "r"(v.x), "r"(v.y));
  else
    asm volatile("{\n .reg .pred q;\n setp.ne.b32 q, %0, 0;\n @q st.global.b32 [%1], %2;\n}" ::
                     "r"(static_cast<int>(p)), "l"(at), "r"(v.x));
}

// The stores of a plain tile (bytes as they are). The write phases' stores go through a policy
// like it (narrow_typed.cu's ConvertStore converts elements): `at` and `d` are addresses of the
// output as the tile sees it, ES bytes an element.
struct PlainStore {
  __device__ __forceinline__ explicit PlainStore(const NarrowParams&) {}
  // A quad word (4 elements) at `at`, a multiple of 4 x ES, where `p`.
  template <int ES>
  __device__ __forceinline__ void quad(bool p, uint8_t* at, uint2 v) const {
    store_if(p, at, v, ES == 2);
  }
  // A whole aligned 4-byte word of gathered elements.
  __device__ __forceinline__ void word(uint8_t* at, uint32_t w) const {
    *reinterpret_cast<uint32_t*>(at) = w;
  }
  // Bytes [lo, hi) of v (8 bytes from d, d a multiple of 8) as the fewest aligned pieces of 4,
  // 2 and 1 bytes.
  __device__ __forceinline__ void bytes(uint8_t* d, int lo, int hi, uint64_t v) const {
    int j = lo;
    if ((j & 1) && j < hi) d[j] = static_cast<uint8_t>(v >> (8 * j)), ++j;
    if ((j & 2) && j + 2 <= hi)
      *reinterpret_cast<uint16_t*>(d + j) = static_cast<uint16_t>(v >> (8 * j)), j += 2;
    if (j + 4 <= hi)
      *reinterpret_cast<uint32_t*>(d + j) = static_cast<uint32_t>(v >> (8 * j)), j += 4;
    if (j + 2 <= hi)
      *reinterpret_cast<uint16_t*>(d + j) = static_cast<uint16_t>(v >> (8 * j)), j += 2;
    if (j < hi) d[j] = static_cast<uint8_t>(v >> (8 * j));
  }
  // The pieces of G bytes of `word` (a word from dst + lo) that lie in [0, len).
  template <int G>
  __device__ __forceinline__ void edge(uint8_t* dst, int lo, int len, uint32_t word) const {
#pragma unroll
    for (int j = 0; j < kNarrowWord; j += G) {
      const int ob = lo + j;
      if (ob < 0 || ob >= len) continue;
      if (G == 1)
        dst[ob] = static_cast<uint8_t>(word >> (8 * j));
      else
        *reinterpret_cast<uint16_t*>(dst + ob) = static_cast<uint16_t>(word >> (8 * j));
    }
  }
};

// The whole words of a quad tile (disjoint runs): a lane takes a word of columns (4 / ES of
// them) and 4 rows (a unit: one 16-byte load) with the unit before them, transposes both by
// byte permutes and stores one aligned word a column, shifted to the column's output alignment.
// Lanes on consecutive units of a word of columns: their loads are consecutive 16-byte chunks (no
// bank conflict) and a warp's store is contiguous. The partial words at the spans' ends are
// write_quad_ends'.
template <int ES, class St>
__device__ __forceinline__ void write_quads(const St& st, const NarrowParams& p, uint8_t* out,
                                           const uint8_t* data, const QuadColumn* columns,
                                           int cols, const FastDiv32& units, bool halo) {
  constexpr int kCols = 4 / ES, kW = kQuadWord<ES>;
  const int n = (cols + kCols - 1) / kCols * static_cast<int>(units.d);
  for (int i = threadIdx.x; i < n; i += kNarrowThreads) {
    const int g = static_cast<int>(units.div(static_cast<uint32_t>(i)));
    const int u = i - g * static_cast<int>(units.d);
    const uint4* at = reinterpret_cast<const uint4*>(data + column_word(p, g, 4 * u));
    uint32_t prev[4], cur[4];  // see columns_of
    columns_of<ES>(at[-1], prev);
    columns_of<ES>(at[0], cur);
    const int first = kW * u;
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      const QuadColumn e = load_column(columns, kCols * g + c);
      uint2 v;
      if constexpr (ES == 1)
        v = quad_word<ES>(prev[c], 0, cur[c], 0, e.tau);
      else  // column c's halfwords: words 2c, 2c + 1 of columns_of
        v = quad_word<ES>(prev[2 * c], prev[2 * c + 1], cur[2 * c], cur[2 * c + 1], e.tau);
      // With halo rows, the word across the column's start too (the unit before is theirs).
      st.template quad<ES>((halo || first >= e.tau) && first <= e.hi, out + e.word + first, v);
    }
  }
}

// The partial words at the spans' two ends (a thread each): the column's word as write_quads
// forms it, stored as the fewest aligned pieces of 4, 2 and 1 bytes that hold only the span's
// bytes. With halo rows, the word at the start also holds the tile before's (write_quads
// stores it whole where the span reaches its end); a tile before the last leaves the one at
// the end to the next.
template <int ES, class St>
__device__ __forceinline__ void write_quad_ends(const St& st, const NarrowParams& p, uint8_t* out,
                                                const uint8_t* data, const QuadColumn* columns,
                                                int cols, int bytes, bool halo, bool last) {
  constexpr int kCols = 4 / ES, kW = kQuadWord<ES>;
  for (int i = threadIdx.x; i < 2 * cols; i += kNarrowThreads) {
    const int col = i >> 1;
    const QuadColumn e = load_column(columns, col);
    const int words = (bytes + e.tau + kW - 1) / kW;
    const int u = (i & 1) ? words - 1 : 0;
    if ((i & 1) && (words == 1 || !last)) continue;  // the first word is the last; the next's
    const int lo = u == 0 && halo ? 0 : max(e.tau - kW * u, 0);
    const int hi = min(bytes + e.tau - kW * u, kW);
    if (lo == 0 && hi == kW) continue;  // whole: write_quads stored it
    const int g = col / kCols, c = col - g * kCols;
    const uint4* at = reinterpret_cast<const uint4*>(data + column_word(p, g, 4 * u));
    const uint4 x = at[-1], y = at[0];
    const uint2 v2 = quad_word<ES>(column_of<ES>(x, c, 0), column_of<ES>(x, c, 1),
                                   column_of<ES>(y, c, 0), column_of<ES>(y, c, 1), e.tau);
    const uint64_t v = (uint64_t{v2.y} << 32) | v2.x;
    st.bytes(out + e.word + kW * u, lo, hi, v);
  }
}

template <int ES, int G, bool kTable>
__device__ __forceinline__ uint32_t gather_word(const uint8_t* data, int base, int lin,
                                                const uint16_t* offs, int lo, int len,
                                                bool whole) {
  uint32_t word = 0;
#pragma unroll
  for (int j = 0; j < kNarrowWord; j += G) {
    const int ob = lo + j;
    if (!whole && (ob < 0 || ob >= len)) continue;
    const int el = ob / ES;
    const int at = base + (kTable ? offs[el] : el * lin) + (ob - el * ES);
    const uint32_t v = G == 1 ? data[at] : *reinterpret_cast<const uint16_t*>(data + at);
    word |= v << (8 * j);
  }
  return word;
}

// A write position is kNarrowWords words of one span, a group apart: the span's decode and
// alignment are paid once per 16 bytes. A group (1 << group_shift positions side by side) is a
// sector of a span, four spans a warp, or, for long spans, a line of one span (params.hpp
// kNarrowLineGroup). G: bytes gathered per shared-memory load (2: 2-byte elements on a 2-byte
// aligned output).
template <int ES, int G, bool kTable, class St>
__device__ __forceinline__ void write_gathered(const St& st, const NarrowParams& p, uint8_t* base,
                                           const uint8_t* data, const SpanEntry* spans,
                                           const uint16_t* offs, const TileBase& b) {
  const int len = run_bytes(p.wr, b);
  const int shift = p.group_shift;
  for (int i = threadIdx.x; i < p.wr.positions; i += kNarrowThreads) {
    const int q = i >> shift;
    const int group = static_cast<int>(p.wr.div.div(static_cast<uint32_t>(q)));
    const SpanEntry e = spans[q - group * p.wr.runs];
    if (!inside(e.coord, b)) continue;
    uint8_t* dst = base + e.global;
    // Words count from the 32-byte sector holding the span's start, so a group is whole sectors.
    const int first = (((group * kNarrowWords) << shift) + (i & ((1 << shift) - 1))) * kNarrowWord -
                      static_cast<int>(reinterpret_cast<uintptr_t>(dst) & 31u);
#pragma unroll
    for (int m = 0; m < kNarrowWords; ++m) {
      const int lo = first + (m << shift) * kNarrowWord;
      if (lo >= len) break;
      if (lo >= 0 && lo + kNarrowWord <= len) {
        st.word(dst + lo,
                gather_word<ES, G, kTable>(data, e.shared, p.lin_stride, offs, lo, len, true));
      } else {
        st.template edge<G>(dst, lo, len,
                            gather_word<ES, G, kTable>(data, e.shared, p.lin_stride, offs, lo,
                                                       len, false));
      }
    }
  }
}

}  // namespace
}  // namespace xpose::detail
