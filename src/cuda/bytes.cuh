// Bytes at any alignment out of aligned 16-byte chunks: what lets a kernel move runs of narrow
// elements (odd extents, any pointer) in wide accesses. Words hold bytes in memory order,
// little-endian.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace xpose::detail {

// The 16 bytes that start `shift` (0..15) bytes into the 32 bytes of two consecutive aligned
// chunks, as four words.
__device__ __forceinline__ uint4 realign16(const uint4& c0, const uint4& c1, int shift) {
  uint32_t x0 = c0.x, x1 = c0.y, x2 = c0.z, x3 = c0.w, x4 = c1.x, x5 = c1.y;
  if (shift & 8) {
    x0 = x2, x1 = x3, x2 = x4, x3 = x5, x4 = c1.z, x5 = c1.w;
  }
  if (shift & 4) {
    x0 = x1, x1 = x2, x2 = x3, x3 = x4, x4 = x5;
  }
  const unsigned bits = 8u * (shift & 3);
  return make_uint4(__funnelshift_r(x0, x1, bits), __funnelshift_r(x1, x2, bits),
                    __funnelshift_r(x2, x3, bits), __funnelshift_r(x3, x4, bits));
}

// G (1, 2 or 4) bytes of shared memory at `a`, zero-extended.
template <int G>
__device__ __forceinline__ uint32_t load_shared(uint32_t a) {
  uint32_t v;
  if constexpr (G == 1)
    asm volatile("ld.shared.u8 %0, [%1];\n" : "=r"(v) : "r"(a));
  else if constexpr (G == 2)
    asm volatile("ld.shared.u16 %0, [%1];\n" : "=r"(v) : "r"(a));
  else
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(a));
  return v;
}

// The low G (1 or 2) bytes of `v` into shared memory at `a`.
template <int G>
__device__ __forceinline__ void store_shared(uint32_t a, uint32_t v) {
  if constexpr (G == 1)
    asm volatile("st.shared.u8 [%0], %1;\n" ::"r"(a), "r"(v));
  else
    asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(a), "r"(v));
}

// Bytes [lo, hi) of `v` (a partial word: not [0, 4)) at `word`, in aligned stores of 1 and 2
// bytes that touch no other byte.
__device__ __forceinline__ void store_word_part(uint8_t* word, uint32_t v, int lo, int hi) {
  if ((lo & 1) && lo < hi) word[lo] = static_cast<uint8_t>(v >> (8 * lo)), ++lo;
  if (lo + 2 <= hi) {
    *reinterpret_cast<uint16_t*>(word + lo) = static_cast<uint16_t>(v >> (8 * lo));
    lo += 2;
  }
  if (lo < hi) word[lo] = static_cast<uint8_t>(v >> (8 * lo));
}

}  // namespace xpose::detail
