// Byte and word block transposes through unpack ladders, shared by the per-ISA kernel files.
// Included by each kernels_*.cpp AFTER its `#pragma GCC target` (as tile_loop.hpp), so the
// blocks are compiled for that ISA; everything here has internal linkage. x86-64 only.
//
// A block of E-byte elements (E = 1 or 2) is R = 16 / E rows (one 16-byte lane of each input
// column) by R * lanes columns: register c holds lane l = column c + l * R. Round b of the
// ladder pairs registers i and i | 2^b and interleaves them in units of 2^b elements
// (punpckl/h bw, wd, dq, qdq for bytes; wd, dq, qdq for words); after log2(R) rounds register
// i holds, in lane l, row bit_reverse(i) of columns l * R .. l * R + R - 1, so each output row
// is one register, stored whole (R * lanes contiguous elements).
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace xpose::detail::cpu {
namespace {

constexpr int bit_reverse(int v, int bits) {
  int r = 0;
  for (int b = 0; b < bits; ++b) r |= ((v >> b) & 1) << (bits - 1 - b);
  return r;
}

// Round B.. of the ladder on 2^kRounds registers; unit level kFirst + B: 0 = bytes .. 3 = qwords.
template <class Ops, int kRounds, int kFirst, int B = 0>
inline void ladder(typename Ops::V* a) {
  if constexpr (B < kRounds) {
    for (int i = 0; i < (1 << kRounds); ++i) {
      if ((i >> B) & 1) continue;
      const int j = i | (1 << B);
      const typename Ops::V lo = Ops::template lo<kFirst + B>(a[i], a[j]);
      const typename Ops::V hi = Ops::template hi<kFirst + B>(a[i], a[j]);
      a[i] = lo;
      a[j] = hi;
    }
    ladder<Ops, kRounds, kFirst, B + 1>(a);
  }
}

// 128-bit registers (SSE2, the x86-64 baseline; VEX-encoded inside AVX2/AVX-512 files).
struct Ops128 {
  using V = __m128i;
  static constexpr int kLanes = 1;
  template <int L>
  static V lo(V a, V b) {
    if constexpr (L == 0) return _mm_unpacklo_epi8(a, b);
    else if constexpr (L == 1) return _mm_unpacklo_epi16(a, b);
    else if constexpr (L == 2) return _mm_unpacklo_epi32(a, b);
    else return _mm_unpacklo_epi64(a, b);
  }
  template <int L>
  static V hi(V a, V b) {
    if constexpr (L == 0) return _mm_unpackhi_epi8(a, b);
    else if constexpr (L == 1) return _mm_unpackhi_epi16(a, b);
    else if constexpr (L == 2) return _mm_unpackhi_epi32(a, b);
    else return _mm_unpackhi_epi64(a, b);
  }
  static V load(const char* const* p) { return _mm_loadu_si128(reinterpret_cast<const V*>(p[0])); }
  static void store(char* p, V v) { _mm_storeu_si128(reinterpret_cast<V*>(p), v); }
};

// One full block (see the top of the file) through Ops.
template <class Ops, size_t E>
struct NarrowBlock {
  static constexpr size_t kE = E;
  static constexpr int kRounds = E == 1 ? 4 : 3;  // log2 of the rows
  static constexpr int kR = 1 << kRounds;
  static constexpr int kC = kR * Ops::kLanes;
  static void block(const char* in, const int64_t* icol, char* out, const int64_t* orow) {
    typename Ops::V a[kR];
    for (int c = 0; c < kR; ++c) {
      const char* p[Ops::kLanes];
      for (int l = 0; l < Ops::kLanes; ++l) p[l] = in + icol[c + l * kR];
      a[c] = Ops::load(p);
    }
    ladder<Ops, kRounds, E == 1 ? 0 : 1>(a);
    for (int r = 0; r < kR; ++r) Ops::store(out + orow[r], a[bit_reverse(r, kRounds)]);
  }
};

// Block starts along a side of n elements in steps of k, the last one moved back to end at n
// (it overlaps the one before: those elements are transposed twice, to the same place). The
// caller needs n >= k. Calls f(start) for each.
template <class F>
inline void overlapped_steps(int n, int k, const F& f) {
  for (int s = 0;; s += k) {
    const int at = std::min(s, n - k);
    f(at);
    if (at == n - k) return;
  }
}

// A whole nr x nc tile through K's blocks when it holds at least one (false otherwise, nothing
// written). Ragged edges are covered by overlapping blocks instead of scalar tails (the output
// never aliases the input). Column blocks outside, rows inside, as tile_blocked.
template <class K>
inline bool tile_overlapped(const char* in, const int64_t* icol, char* out, const int64_t* orow,
                            int nr, int nc) {
  if (nr < K::kR || nc < K::kC) return false;
  overlapped_steps(nc, K::kC, [&](int c) {
    overlapped_steps(nr, K::kR, [&](int r) {
      K::block(in + r * static_cast<int64_t>(K::kE), icol + c, out + c * static_cast<int64_t>(K::kE),
               orow + r);
    });
  });
  return true;
}

}  // namespace
}  // namespace xpose::detail::cpu
