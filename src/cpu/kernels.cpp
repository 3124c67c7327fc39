// Scalar tile kernels (every element size), run-time ISA selection (or a forced ISA), and the
// streaming row copy.
#include "cpu/kernels.hpp"

#include <cstring>
#include <iterator>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu/tile_loop.hpp"

namespace xpose::detail::cpu {
namespace {

template <size_t E>
void tile_fixed(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                int nc, size_t) {
  tile_scalar<E>(in, icol, out, orow, 0, nr, 0, nc);
}

// Elements of any size `eb` that is a multiple of U (super-elements of `super` plans): each
// element is copied as eb / U fixed-size units, so the compiler emits plain U-byte moves.
template <size_t U>
void tile_units(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                int nc, size_t eb) {
  const size_t units = eb / U;
  for (int c = 0; c < nc; ++c) {
    const char* src = in + icol[c];
    for (int r = 0; r < nr; ++r) {
      const char* s = src + r * eb;
      char* d = out + orow[r] + c * eb;
      for (size_t u = 0; u < units; ++u) std::memcpy(d + u * U, s + u * U, U);
    }
  }
}

// One element of any size eb >= 2 in at most two fixed-size moves of the largest power of two
// P <= eb (the second one ending at eb, overlapping the first), or in 16-byte moves and one
// overlapping 16-byte tail from 16 bytes up: odd super-elements (a 13- or 386-byte leading run
// of 1-byte elements) took eb / 2 or eb moves of 1 or 2 bytes.
template <size_t P>
inline void move_pair(char* d, const char* s, size_t eb) {
  char a[P], b[P];
  std::memcpy(a, s, P);
  std::memcpy(b, s + eb - P, P);
  std::memcpy(d, a, P);
  std::memcpy(d + eb - P, b, P);
}

inline void move_any(char* d, const char* s, size_t eb) {
  if (eb >= 16) {
    for (size_t u = 0; u + 16 < eb; u += 16) std::memcpy(d + u, s + u, 16);
    std::memcpy(d + eb - 16, s + eb - 16, 16);
  } else if (eb >= 8) {
    move_pair<8>(d, s, eb);
  } else if (eb >= 4) {
    move_pair<4>(d, s, eb);
  } else {
    move_pair<2>(d, s, eb);
  }
}

void tile_any(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr, int nc,
              size_t eb) {
  for (int c = 0; c < nc; ++c) {
    const char* src = in + icol[c];
    for (int r = 0; r < nr; ++r) move_any(out + orow[r] + c * eb, src + r * eb, eb);
  }
}

TileKernel scalar_kernel(size_t eb) {
  switch (eb) {
    case 1: return {tile_fixed<1>, "scalar"};
    case 2: return {tile_fixed<2>, "scalar"};
    case 4: return {tile_fixed<4>, "scalar"};
    case 8: return {tile_fixed<8>, "scalar"};
    case 16: return {tile_fixed<16>, "scalar"};
    default: break;
  }
  if (eb % 16 == 0) return {tile_units<16>, "scalar-units16"};
  if (eb % 8 == 0) return {tile_units<8>, "scalar-units8"};
  return {tile_any, "scalar-any"};
}

// The widest ISA table this CPU supports, detected once (immutable afterwards).
const IsaKernels* best_isa() {
  static const IsaKernels* const best = [] {
    const IsaKernels* k = avx512_kernels();
    if (k == nullptr) k = avx2_kernels();
    if (k == nullptr) k = sse2_kernels();
    return k;
  }();
  return best;
}

constexpr const char* kIsaNames[] = {"best", "scalar", "sse2", "avx2", "avx512"};

}  // namespace

bool parse_isa(const std::string& name, Isa* isa) {
  for (int i = 0; i < static_cast<int>(std::size(kIsaNames)); ++i)
    if (name == kIsaNames[i]) {
      *isa = static_cast<Isa>(i);
      return true;
    }
  return false;
}

TileKernel select_tile_kernel(size_t eb, Isa which) {
  const IsaKernels* isa = nullptr;
  switch (which) {
    case Isa::kBest: isa = best_isa(); break;
    case Isa::kScalar: return scalar_kernel(eb);
    case Isa::kSse2: isa = sse2_kernels(); break;
    case Isa::kAvx2: isa = avx2_kernels(); break;
    case Isa::kAvx512: isa = avx512_kernels(); break;
  }
  if (isa == nullptr) return which == Isa::kBest ? scalar_kernel(eb) : TileKernel{};
  switch (eb) {
    case 1: return isa->k1;
    case 2: return isa->k2;
    case 4: return isa->k4;
    case 8: return isa->k8;
    default: break;
  }
  if (isa->units8.fn != nullptr && eb > 16 && eb % 8 == 0) return isa->units8;
  return scalar_kernel(eb);
}

void copy_bytes(char* dst, const char* src, size_t n, bool nt) {
#if defined(__x86_64__)
  // Only whole destination lines are streamed: a partial non-temporal line is flushed from the
  // write-combining buffer as a partial write, which the memory controller turns into a
  // read-modify-write (measured 10x slower than regular stores, docs/perf/cpu-2core.md).
  const size_t head = (64 - (reinterpret_cast<uintptr_t>(dst) & 63)) & 63;
  if (nt && n >= head + 64) {
    std::memcpy(dst, src, head);
    size_t i = head;
    for (; i + 64 <= n; i += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
      const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
    }
    std::memcpy(dst + i, src + i, n - i);
    return;
  }
#endif
  (void)nt;
  std::memcpy(dst, src, n);
}

void stream_bytes(char* dst, const char* src, size_t n) {
#if defined(__x86_64__)
  size_t i = 0;
  for (; i < n && (reinterpret_cast<uintptr_t>(dst + i) & 7) != 0; ++i) dst[i] = src[i];
  for (; i + 8 <= n && (reinterpret_cast<uintptr_t>(dst + i) & 15) != 0; i += 8) {
    long long v;
    std::memcpy(&v, src + i, 8);
    _mm_stream_si64(reinterpret_cast<long long*>(dst + i), v);
  }
  for (; i + 16 <= n; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  for (; i + 8 <= n; i += 8) {
    long long v;
    std::memcpy(&v, src + i, 8);
    _mm_stream_si64(reinterpret_cast<long long*>(dst + i), v);
  }
  std::memcpy(dst + i, src + i, n - i);
#else
  std::memcpy(dst, src, n);
#endif
}

void store_fence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

}  // namespace xpose::detail::cpu
