// The `cells` kernel (cells.hpp): a cell's S bytes in R = ceil(S / 64) registers (the last loaded
// and stored under a mask), each output register the OR of one masked two-source byte permute
// (vpermi2b) per pair of input registers. Compiled for AVX-512 VBMI through a target pragma and
// used only when the CPU has it.
#include "cpu/cells.hpp"

#include "cpu/kernels.hpp"

#if defined(__x86_64__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <cstring>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vbmi"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vbmi")
#endif

namespace xpose::detail::cpu {
namespace {

// Output bytes staged between non-temporal flushes (one stream: the flushes continue it).
constexpr int64_t kStageBytes = 8192;

// One cell: R input registers from `src`, R output registers to `dst` (masked: `last` bytes of
// the last register; `whole`: all 64, for the staging buffer's slack).
template <int R>
inline void move_cell(const CellTables& t, const char* src, char* dst, __mmask64 last,
                      bool whole) {
  constexpr int kPairs = (R + 1) / 2;
  __m512i a[R];
  for (int r = 0; r + 1 < R; ++r) a[r] = _mm512_loadu_si512(src + 64 * r);
  a[R - 1] = _mm512_maskz_loadu_epi8(last, src + 64 * (R - 1));
  for (int o = 0; o < R; ++o) {
    __m512i v = _mm512_setzero_si512();
    for (int q = 0; q < kPairs; ++q) {
      const __m512i idx = _mm512_load_si512(t.idx[o][q]);
      const __m512i b = 2 * q + 1 < R ? a[2 * q + 1] : a[2 * q];
      v = _mm512_or_si512(v, _mm512_maskz_permutex2var_epi8(t.mask[o][q], a[2 * q], idx, b));
    }
    if (o + 1 < R || whole)
      _mm512_storeu_si512(dst + 64 * o, v);
    else
      _mm512_mask_storeu_epi8(dst + 64 * o, last, v);
  }
}

template <int R>
void move_cells(const CellTables& t, const CellWalk& w, const char* in, char* out, int64_t begin,
                int64_t end, bool nt) {
  if (begin >= end) return;
  const int64_t s = t.bytes;
  const int64_t tail = s - 64 * (R - 1);  // 1..64
  const __mmask64 last = tail == 64 ? ~uint64_t{0} : (uint64_t{1} << tail) - 1;
  int64_t coord[kMaxRank]{}, src = 0;  // odometer over the outer dims; input byte offset
  int64_t q = begin;
  for (int i = 0; i < w.rank; ++i) {
    coord[i] = q % w.extent[i];
    q /= w.extent[i];
    src += coord[i] * w.in_stride[i];
  }
  alignas(64) char stage[kStageBytes + kMaxCellBytes + 64];
  int64_t staged = 0, flushed = begin * s;  // bytes in the stage; output offset of its first
  for (int64_t c = begin; c < end; ++c) {
    if (nt) {
      move_cell<R>(t, in + src, stage + staged, last, true);
      staged += s;
      if (staged >= kStageBytes) {
        stream_bytes(out + flushed, stage, static_cast<size_t>(staged));
        flushed += staged;
        staged = 0;
      }
    } else {
      move_cell<R>(t, in + src, out + c * s, last, false);
    }
    for (int i = 0; i < w.rank; ++i) {
      src += w.in_stride[i];
      if (++coord[i] < w.extent[i]) break;
      src -= w.in_stride[i] * w.extent[i];
      coord[i] = 0;
    }
  }
  if (nt && staged > 0) stream_bytes(out + flushed, stage, static_cast<size_t>(staged));
}

void move_any(const CellTables& t, const CellWalk& w, const char* in, char* out, int64_t begin,
              int64_t end, bool nt) {
  switch (t.regs) {
    case 1: return move_cells<1>(t, w, in, out, begin, end, nt);
    case 2: return move_cells<2>(t, w, in, out, begin, end, nt);
    case 3: return move_cells<3>(t, w, in, out, begin, end, nt);
    case 4: return move_cells<4>(t, w, in, out, begin, end, nt);
    case 5: return move_cells<5>(t, w, in, out, begin, end, nt);
    case 6: return move_cells<6>(t, w, in, out, begin, end, nt);
    case 7: return move_cells<7>(t, w, in, out, begin, end, nt);
    default: return move_cells<8>(t, w, in, out, begin, end, nt);
  }
}

}  // namespace
}  // namespace xpose::detail::cpu

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace xpose::detail::cpu {
CellFn cells_kernel() {
  const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512vbmi");
  return has ? &move_any : nullptr;
}
}  // namespace xpose::detail::cpu

#else

namespace xpose::detail::cpu {
CellFn cells_kernel() { return nullptr; }
}  // namespace xpose::detail::cpu

#endif
