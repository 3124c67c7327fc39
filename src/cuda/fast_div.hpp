// Division by a run-time constant without a divide instruction (Granlund-Montgomery, the form
// CUTLASS's FastDivmod uses): q = (umulhi(n, m) + n) >> s with s = ceil(log2 d) and
// m = floor(2^N * (2^s - d) / d) + 1. Exact for every n < 2^(N-1), so the 64-bit form covers
// every non-negative int64 index. Host and device share the arithmetic; the host versions exist
// so the planner and the tests can check the numbers without a GPU. No CUDA header here.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"

namespace xpose::detail {

// 32-bit divisor: numerators must be < 2^31 (tile-internal indices).
struct FastDiv32 {
  uint32_t d = 1, m = 1, s = 0;

  static FastDiv32 make(uint32_t divisor) {
    FastDiv32 f;
    f.d = divisor;
    while ((uint64_t{1} << f.s) < divisor) ++f.s;
    f.m = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << f.s) - divisor)) / divisor + 1);
    return f;
  }

  XPOSE_HD uint32_t div(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    return (__umulhi(n, m) + n) >> s;
#else
    return static_cast<uint32_t>(((static_cast<uint64_t>(n) * m >> 32) + n) >> s);
#endif
  }
};

// 64-bit divisor: numerators must be < 2^63 (any linear index of a tensor). Divisors up to 2^31
// also carry the 32-bit magic number (m32; 0 above), for div32 of numerators below 2^31: a tile
// walk whose index fits in 32 bits divides in 3 instructions instead of ~20.
struct FastDiv64 {
  uint64_t d = 1, m = 1;
  uint32_t s = 0, m32 = 0;

  static FastDiv64 make(uint64_t divisor) {
    FastDiv64 f;
    f.d = divisor;
    while (f.s < 63 && (uint64_t{1} << f.s) < divisor) ++f.s;
    const unsigned __int128 num = (static_cast<unsigned __int128>(1) << 64) *
                                  ((static_cast<unsigned __int128>(1) << f.s) - divisor);
    f.m = static_cast<uint64_t>(num / divisor + 1);
    if (divisor <= (uint64_t{1} << 31)) f.m32 = FastDiv32::make(static_cast<uint32_t>(divisor)).m;
    return f;
  }

  // n < 2^31 and d <= 2^31 (m32 set): the same quotient as div.
  XPOSE_HD uint32_t div32(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    return (__umulhi(n, m32) + n) >> s;
#else
    return static_cast<uint32_t>(((static_cast<uint64_t>(n) * m32 >> 32) + n) >> s);
#endif
  }

  XPOSE_HD uint64_t div(uint64_t n) const {
#if defined(__CUDA_ARCH__)
    return (__umul64hi(n, m) + n) >> s;
#else
    const uint64_t hi =
        static_cast<uint64_t>((static_cast<unsigned __int128>(n) * m) >> 64);
    return (hi + n) >> s;
#endif
  }
};

}  // namespace xpose::detail
