// AVX-512BW block transposes of 1- and 2-byte elements: 16 rows x 64 columns of bytes and 8 x 32
// of words (unpack ladders in the four 128-bit lanes, narrow_blocks.hpp), so each output row of a
// block is one 64-byte store. Tiles smaller than a block along a side (a few rows of J, as in
// (3, n) perm (1, 0)) take that side in one block with masked loads and stores instead of the
// scalar loop (a 128-bit block for tiles at most 16 bytes wide). Compiled for AVX-512BW/VL
// through a target pragma and used only when the CPU has both.
#include "cpu/kernels.hpp"

#if defined(__x86_64__)
// GCC 12 flags the deliberately undefined source operand inside its own AVX-512 shuffle
// intrinsics as uninitialized; the warning is about the header, not this code.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstdint>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
#endif

#include "cpu/narrow_blocks512.hpp"

namespace xpose::detail::cpu {
namespace {

// The top-left nr x nc part (1..R rows, 1..4R columns) of a block: rows beyond nr are masked
// off the loads (never touched: masked lanes do not fault), columns beyond nc are not loaded,
// and each of the nr output rows is one masked store of its nc elements.
template <size_t E>
void block_masked(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                  int nc) {
  using K = NarrowBlock<Ops512, E>;
  const auto rmask = static_cast<__mmask16>((1u << (nr * E)) - 1);
  const auto bytes = static_cast<unsigned>(nc * E);
  const __mmask64 cmask = bytes >= 64 ? ~__mmask64{0} : (__mmask64{1} << bytes) - 1;
  auto lane = [&](int col) {
    return col < nc ? _mm_maskz_loadu_epi8(rmask, in + icol[col]) : _mm_setzero_si128();
  };
  __m512i a[K::kR];
  for (int c = 0; c < K::kR; ++c)
    a[c] = Ops512::join(lane(c), lane(c + K::kR), lane(c + 2 * K::kR), lane(c + 3 * K::kR));
  ladder<Ops512, K::kRounds, E == 1 ? 0 : 1>(a);
  for (int r = 0; r < nr; ++r)
    _mm512_mask_storeu_epi8(out + orow[r], cmask, a[bit_reverse(r, K::kRounds)]);
}

// The top-left nr x nc part (1..R each) of a 128-bit block, masked as block_masked: for tiles
// at most R columns wide (8-byte output rows of (27,10,8,..) perm (2,0,..) bytes), where the
// 512-bit block would shuffle three empty lanes.
template <size_t E>
void block_masked128(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                     int nc) {
  using K = NarrowBlock<Ops128, E>;
  const auto rmask = static_cast<__mmask16>((1u << (nr * E)) - 1);
  const auto cmask = static_cast<__mmask16>((1u << (nc * E)) - 1);
  __m128i a[K::kR];
  for (int c = 0; c < K::kR; ++c)
    a[c] = c < nc ? _mm_maskz_loadu_epi8(rmask, in + icol[c]) : _mm_setzero_si128();
  ladder<Ops128, K::kRounds, E == 1 ? 0 : 1>(a);
  for (int r = 0; r < nr; ++r)
    _mm_mask_storeu_epi8(out + orow[r], cmask, a[bit_reverse(r, K::kRounds)]);
}

// 1-byte tiles of at least 64 rows by one block of columns, a band of 64 rows at a time: each
// column's 64 bytes are copied by one load into a 4 KiB buffer (a line per column) and the
// blocks read them there. Read in place, the 64 columns of a block at a power-of-two
// stride share one cache set, so each line left L1 between the four 16-row blocks that use it
// ((4096, 2048) perm (1, 0): 6.8 GB/s per thread warm, against 35 GB/s at a stride of 4160).
// Only where the columns crowd into few sets (under 16 of the 64 L1 sets for a block's first
// columns): elsewhere the copy is a quarter more work for nothing. Bytes only: on the 2-byte
// quick cases (32 columns a block) it made one thread 0.88x as fast (cold, geomean of q01-q08;
// 1.24x faster with 1-byte elements).
bool tile_packed(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                 int nc) {
  using K = NarrowBlock<Ops512, 1>;
  constexpr int kRows = 64;
  if (nr < kRows || nc < K::kC) return false;
  uint64_t sets = 0;
  for (int j = 0; j < K::kC; ++j)
    sets |= uint64_t{1} << ((reinterpret_cast<uintptr_t>(in + icol[j]) >> 6) & 63);
  if (std::popcount(sets) >= 16) return false;
  alignas(64) char pack[K::kC * 64];
  int64_t pcol[K::kC];
  for (int j = 0; j < K::kC; ++j) pcol[j] = 64 * j;
  overlapped_steps(nc, K::kC, [&](int c) {
    overlapped_steps(nr, kRows, [&](int r) {
      for (int j = 0; j < K::kC; ++j)
        _mm512_store_si512(pack + 64 * j, _mm512_loadu_si512(in + r + icol[c + j]));
      for (int q = 0; q < kRows; q += K::kR) K::block(pack + q, pcol, out + c, orow + r + q);
    });
  });
  return true;
}

template <size_t E>
void tile_narrow(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                 int nc, size_t) {
  using K = NarrowBlock<Ops512, E>;
  if constexpr (E == 1) {
    if (tile_packed(in, icol, out, orow, nr, nc)) return;
  }
  if (tile_overlapped<K>(in, icol, out, orow, nr, nc) ||
      tile_overlapped<NarrowBlock<Ops128, E>>(in, icol, out, orow, nr, nc))
    return;
  const int br = std::min(nr, K::kR), bc = std::min(nc, K::kC);
  if (nc <= K::kR) {  // one 128-bit block wide
    side_steps(nr, K::kR, [&](int r) {
      block_masked128<E>(in + r * static_cast<int64_t>(E), icol, out, orow + r, br, nc);
    });
    return;
  }
  side_steps(nc, K::kC, [&](int c) {
    side_steps(nr, K::kR, [&](int r) {
      block_masked<E>(in + r * static_cast<int64_t>(E), icol + c, out + c * static_cast<int64_t>(E),
                      orow + r, br, bc);
    });
  });
}

}  // namespace
}  // namespace xpose::detail::cpu

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace xpose::detail::cpu {

const NarrowKernels* avx512bw_kernels() {
  static constexpr NarrowKernels kKernels{{tile_narrow<1>, "avx512bw-16x64", 16, 64},
                                          {tile_narrow<2>, "avx512bw-8x32", 8, 32}};
  const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512vl");
  return has ? &kKernels : nullptr;
}

}  // namespace xpose::detail::cpu

#else

namespace xpose::detail::cpu {
const NarrowKernels* avx512bw_kernels() { return nullptr; }
}  // namespace xpose::detail::cpu

#endif
