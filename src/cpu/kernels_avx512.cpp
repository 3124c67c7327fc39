// AVX-512 block transposes: 8x8 for 8-byte elements (one cache line per row); 4-byte elements
// keep AVX2's 8x8 (a 16x16 float tile needs 16 registers of shuffles for no bandwidth gain).
// Compiled for AVX-512F through a target pragma and used only when the CPU has it.
#include "cpu/kernels.hpp"

#if defined(__x86_64__)
// GCC 12 flags the deliberately undefined source operand inside its own AVX-512 shuffle
// intrinsics as uninitialized; the warning is about the header, not this code.
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <cstring>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif

#include "cpu/tile_loop.hpp"

namespace xpose::detail::cpu {
namespace {

struct Avx512Block8 {
  static constexpr int kB = 8;
  static constexpr size_t kE = 8;
  static void block(const char* in, const int64_t* icol, char* out, const int64_t* orow) {
    __m512d r[8], t[8], u[8];
    for (int q = 0; q < 8; ++q) r[q] = _mm512_loadu_pd(in + icol[q]);
    for (int q = 0; q < 8; q += 2) {
      t[q] = _mm512_unpacklo_pd(r[q], r[q + 1]);      // a0 b0 | a2 b2 | a4 b4 | a6 b6
      t[q + 1] = _mm512_unpackhi_pd(r[q], r[q + 1]);  // a1 b1 | a3 b3 | a5 b5 | a7 b7
    }
    for (int q = 0; q < 8; q += 4) {  // 128-bit lanes: rows {0, 4}, {1, 5}, {2, 6}, {3, 7}
      u[q] = _mm512_shuffle_f64x2(t[q], t[q + 2], 0x88);
      u[q + 1] = _mm512_shuffle_f64x2(t[q + 1], t[q + 3], 0x88);
      u[q + 2] = _mm512_shuffle_f64x2(t[q], t[q + 2], 0xDD);
      u[q + 3] = _mm512_shuffle_f64x2(t[q + 1], t[q + 3], 0xDD);
    }
    for (int q = 0; q < 4; ++q) {
      _mm512_storeu_pd(out + orow[q], _mm512_shuffle_f64x2(u[q], u[q + 4], 0x88));
      _mm512_storeu_pd(out + orow[q + 4], _mm512_shuffle_f64x2(u[q], u[q + 4], 0xDD));
    }
  }
};

void tile8(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr, int nc,
           size_t) {
  tile_blocked<Avx512Block8>(in, icol, out, orow, nr, nc);
}

}  // namespace
}  // namespace xpose::detail::cpu

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace xpose::detail::cpu {

const IsaKernels* avx512_kernels() {
  const IsaKernels* avx2 = avx2_kernels();
  if (avx2 == nullptr || !__builtin_cpu_supports("avx512f")) return nullptr;
  static const IsaKernels kKernels{avx2->k4, {tile8, "avx512-8x8"}};
  return &kKernels;
}

}  // namespace xpose::detail::cpu

#else

namespace xpose::detail::cpu {
const IsaKernels* avx512_kernels() { return nullptr; }
}  // namespace xpose::detail::cpu

#endif
