// Micro-kernels of the CPU backend: 2D tile transposes in registers (SIMD for 1-, 2-, 4- and
// 8-byte elements, per ISA, chosen at run time or forced by name) with a scalar fallback for every
// element size, and the row copy with optional non-temporal stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

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
  // Rows x columns of the register block of the 1- and 2-byte kernels (the cost model counts
  // them: a block cut by a tile edge costs a whole one); 0 for the others.
  int block_rows = 0, block_cols = 0;
};

// Instruction sets of the tile kernels. kBest: the widest this CPU runs (detected once); the
// others force one (tests, the `isa=` key of a forced schema, the in-place force).
enum class Isa { kBest, kScalar, kSse2, kAvx2, kAvx512 };

// Parses "best", "scalar", "sse2", "avx2" or "avx512"; false when unknown.
bool parse_isa(const std::string& name, Isa* isa);

// The tile kernel of `isa` for `eb`-byte elements (any eb >= 1): that ISA's SIMD kernel where
// it has one for eb, else the scalar one. fn is nullptr when this build or CPU lacks `isa`.
TileKernel select_tile_kernel(size_t eb, Isa isa = Isa::kBest);

// Copies n bytes. When `nt`, the 16-byte-aligned body of the destination is written with
// non-temporal stores (the caller issues store_fence() before its writes must be visible).
void copy_bytes(char* dst, const char* src, size_t n, bool nt);

// Copies n bytes with non-temporal stores down to 8-byte pieces, partial lines included: for
// writers whose consecutive calls continue the same output stream (`direct`), where the
// write-combining buffer joins the pieces of a line. Needs store_fence() like copy_bytes.
void stream_bytes(char* dst, const char* src, size_t n);

// Orders this thread's non-temporal stores before its later stores (sfence on x86).
void store_fence();

// Per-ISA kernel tables: nullptr when this build or CPU lacks the ISA. k1 .. k8: 1- to 8-byte
// elements; units8: any multiple of 8 bytes (super-elements), fn nullptr where the ISA has none.
struct IsaKernels {
  TileKernel k1, k2, k4, k8, units8;
};
const IsaKernels* sse2_kernels();
const IsaKernels* avx2_kernels();
const IsaKernels* avx512_kernels();

// AVX-512BW byte and word kernels (kernels_avx512bw.cpp), which avx512_kernels() uses when the
// CPU has AVX-512BW and VL; nullptr otherwise (AVX-512F alone keeps AVX2's).
struct NarrowKernels {
  TileKernel k1, k2;
};
const NarrowKernels* avx512bw_kernels();

}  // namespace xpose::detail::cpu
