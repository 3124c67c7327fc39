// SSE2 block transposes (the x86-64 baseline): 16x16 for 1-byte, 8x8 for 2-byte (unpack ladders,
// narrow_blocks.hpp), 4x4 for 4-byte and 2x2 for 8-byte elements.
#include "cpu/kernels.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

#include "cpu/narrow_blocks.hpp"
#include "cpu/tile_loop.hpp"

namespace xpose::detail::cpu {
namespace {

struct Sse2Block4 {
  static constexpr int kB = 4;
  static constexpr size_t kE = 4;
  static void block(const char* in, const int64_t* icol, char* out, const int64_t* orow) {
    __m128 r0 = _mm_loadu_ps(reinterpret_cast<const float*>(in + icol[0]));
    __m128 r1 = _mm_loadu_ps(reinterpret_cast<const float*>(in + icol[1]));
    __m128 r2 = _mm_loadu_ps(reinterpret_cast<const float*>(in + icol[2]));
    __m128 r3 = _mm_loadu_ps(reinterpret_cast<const float*>(in + icol[3]));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(reinterpret_cast<float*>(out + orow[0]), r0);
    _mm_storeu_ps(reinterpret_cast<float*>(out + orow[1]), r1);
    _mm_storeu_ps(reinterpret_cast<float*>(out + orow[2]), r2);
    _mm_storeu_ps(reinterpret_cast<float*>(out + orow[3]), r3);
  }
};

struct Sse2Block8 {
  static constexpr int kB = 2;
  static constexpr size_t kE = 8;
  static void block(const char* in, const int64_t* icol, char* out, const int64_t* orow) {
    const __m128d r0 = _mm_loadu_pd(reinterpret_cast<const double*>(in + icol[0]));
    const __m128d r1 = _mm_loadu_pd(reinterpret_cast<const double*>(in + icol[1]));
    _mm_storeu_pd(reinterpret_cast<double*>(out + orow[0]), _mm_unpacklo_pd(r0, r1));
    _mm_storeu_pd(reinterpret_cast<double*>(out + orow[1]), _mm_unpackhi_pd(r0, r1));
  }
};

// Tiles of at least one block through overlapping blocks; smaller ones element by element.
template <size_t E>
void tile_narrow(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                 int nc, size_t) {
  if (!tile_overlapped<NarrowBlock<Ops128, E>>(in, icol, out, orow, nr, nc))
    tile_scalar<E>(in, icol, out, orow, 0, nr, 0, nc);
}

void tile4(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr, int nc,
           size_t) {
  tile_blocked<Sse2Block4>(in, icol, out, orow, nr, nc);
}

void tile8(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr, int nc,
           size_t) {
  tile_blocked<Sse2Block8>(in, icol, out, orow, nr, nc);
}

}  // namespace

const IsaKernels* sse2_kernels() {
  static constexpr IsaKernels kKernels{{tile_narrow<1>, "sse2-16x16", 16, 16},
                                       {tile_narrow<2>, "sse2-8x8", 8, 8},
                                       {tile4, "sse2-4x4"},
                                       {tile8, "sse2-2x2"},
                                       {}};
  return &kKernels;
}

}  // namespace xpose::detail::cpu

#else

namespace xpose::detail::cpu {
const IsaKernels* sse2_kernels() { return nullptr; }
}  // namespace xpose::detail::cpu

#endif
