// Micro-kernels of the CPU backend: 2D tile transposes in registers (SIMD for 4- and 8-byte
// elements, per ISA, chosen at run time) with a scalar fallback for every element size, and the
// row copy with optional non-temporal stores.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xpose::detail::cpu {

// Transposes an nr x nc tile of `eb`-byte elements: element (r, c) is read at
// in + icol[c] + r * eb and written at out + orow[r] + c * eb (byte offsets). Each column
// (fixed c) is contiguous in the input and each row (fixed r) contiguous in the output; any
// alignment. Kernels for a fixed element size ignore `eb`.
using TileFn = void (*)(const char* in, const int64_t* icol, char* out, const int64_t* orow,
                        int nr, int nc, size_t eb);

struct TileKernel {
  TileFn fn = nullptr;
  const char* name = "";  // e.g. "avx512 8x8", "scalar"
};

// The best tile kernel this CPU runs for `eb`-byte elements (any eb >= 1). Detects the ISA once.
TileKernel select_tile_kernel(size_t eb);

// Copies n bytes. When `nt`, the 16-byte-aligned body of the destination is written with
// non-temporal stores (the caller issues store_fence() before its writes must be visible).
void copy_bytes(char* dst, const char* src, size_t n, bool nt);

// Copies n bytes with non-temporal stores down to 8-byte pieces, partial lines included: for
// writers whose consecutive calls continue the same output stream (`direct`), where the
// write-combining buffer joins the pieces of a line. Needs store_fence() like copy_bytes.
void stream_bytes(char* dst, const char* src, size_t n);

// Orders this thread's non-temporal stores before its later stores (sfence on x86).
void store_fence();

// Per-ISA kernel tables: nullptr when this build or CPU lacks the ISA. k4, k8: 4- and 8-byte
// elements; units8: any multiple of 8 bytes (super-elements), fn nullptr where the ISA has none.
struct IsaKernels {
  TileKernel k4, k8, units8;
};
const IsaKernels* sse2_kernels();
const IsaKernels* avx2_kernels();
const IsaKernels* avx512_kernels();

}  // namespace xpose::detail::cpu
