// AVX2 block transposes: 16 rows x 32 columns of 1-byte and 8 x 16 of 2-byte elements (unpack
// ladders in both 128-bit lanes, narrow_blocks.hpp), 8x8 for 4-byte and 4x4 for 8-byte elements.
// Compiled for AVX2 through a target pragma (the library is built for baseline x86-64) and used
// only when the CPU has it.
#include "cpu/kernels.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstring>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#include "cpu/f32_block8.hpp"
#include "cpu/narrow_blocks.hpp"
#include "cpu/tile_loop.hpp"

namespace xpose::detail::cpu {
namespace {

// 256-bit registers: lane 0 from one column, lane 1 from the column R further (so that each
// register of the transposed block is one output row of 2R elements).
struct Ops256 {
  using V = __m256i;
  static constexpr int kLanes = 2;
  template <int L>
  static V lo(V a, V b) {
    if constexpr (L == 0) return _mm256_unpacklo_epi8(a, b);
    else if constexpr (L == 1) return _mm256_unpacklo_epi16(a, b);
    else if constexpr (L == 2) return _mm256_unpacklo_epi32(a, b);
    else return _mm256_unpacklo_epi64(a, b);
  }
  template <int L>
  static V hi(V a, V b) {
    if constexpr (L == 0) return _mm256_unpackhi_epi8(a, b);
    else if constexpr (L == 1) return _mm256_unpackhi_epi16(a, b);
    else if constexpr (L == 2) return _mm256_unpackhi_epi32(a, b);
    else return _mm256_unpackhi_epi64(a, b);
  }
  static V load(const char* const* p) {
    return _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p[1]),
                               reinterpret_cast<const __m128i*>(p[0]));
  }
  static void store(char* p, V v) { _mm256_storeu_si256(reinterpret_cast<V*>(p), v); }
};

// Tiles of at least one 256-bit block through overlapping ones, else of one 128-bit block, else
// element by element.
template <size_t E>
void tile_narrow(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                 int nc, size_t) {
  if (!tile_overlapped<NarrowBlock<Ops256, E>>(in, icol, out, orow, nr, nc) &&
      !tile_overlapped<NarrowBlock<Ops128, E>>(in, icol, out, orow, nr, nc))
    tile_scalar<E>(in, icol, out, orow, 0, nr, 0, nc);
}

struct Avx2Block4 {
  static constexpr int kB = 8;
  static constexpr size_t kE = 4;
  static void block(const char* in, const int64_t* icol, char* out, const int64_t* orow) {
    __m256 r[8], s[8];
    for (int q = 0; q < 8; ++q) r[q] = _mm256_loadu_ps(reinterpret_cast<const float*>(in + icol[q]));
    transpose8x8_halves(r, s);
    for (int q = 0; q < 4; ++q) {
      _mm256_storeu_ps(reinterpret_cast<float*>(out + orow[q]),
                       _mm256_permute2f128_ps(s[q], s[q + 4], 0x20));
      _mm256_storeu_ps(reinterpret_cast<float*>(out + orow[q + 4]),
                       _mm256_permute2f128_ps(s[q], s[q + 4], 0x31));
    }
  }
};

struct Avx2Block8 {
  static constexpr int kB = 4;
  static constexpr size_t kE = 8;
  static void block(const char* in, const int64_t* icol, char* out, const int64_t* orow) {
    const __m256d r0 = _mm256_loadu_pd(reinterpret_cast<const double*>(in + icol[0]));
    const __m256d r1 = _mm256_loadu_pd(reinterpret_cast<const double*>(in + icol[1]));
    const __m256d r2 = _mm256_loadu_pd(reinterpret_cast<const double*>(in + icol[2]));
    const __m256d r3 = _mm256_loadu_pd(reinterpret_cast<const double*>(in + icol[3]));
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(reinterpret_cast<double*>(out + orow[0]), _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(reinterpret_cast<double*>(out + orow[1]), _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(reinterpret_cast<double*>(out + orow[2]), _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(reinterpret_cast<double*>(out + orow[3]), _mm256_permute2f128_pd(t1, t3, 0x31));
  }
};

void tile4(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr, int nc,
           size_t) {
  tile_blocked<Avx2Block4>(in, icol, out, orow, nr, nc);
}

void tile8(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr, int nc,
           size_t) {
  tile_blocked<Avx2Block8>(in, icol, out, orow, nr, nc);
}

}  // namespace
}  // namespace xpose::detail::cpu

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace xpose::detail::cpu {

const IsaKernels* avx2_kernels() {
  static constexpr IsaKernels kKernels{{tile_narrow<1>, "avx2-16x32", 16, 32},
                                       {tile_narrow<2>, "avx2-8x16", 8, 16},
                                       {tile4, "avx2-8x8"},
                                       {tile8, "avx2-4x4"},
                                       {}};
  return __builtin_cpu_supports("avx2") ? &kKernels : nullptr;
}

}  // namespace xpose::detail::cpu

#else

namespace xpose::detail::cpu {
const IsaKernels* avx2_kernels() { return nullptr; }
}  // namespace xpose::detail::cpu

#endif
