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

}  // namespace xpose::detail
