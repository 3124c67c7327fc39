// Cells (cells_kernel.cuh): the plain launches, by element size (1-16 bytes) and the output's
// alignment; typed cells (p.op converts or scales) go to cells_typed.cu.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/cells_kernel.cuh"

namespace xpose::detail {

xpose_status_t launch_cells(const CellParams& p, int elem_size, const void* in, void* out,
                            void* stream, unsigned grid) {
  const auto s = static_cast<cudaStream_t>(stream);
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  if (p.op.in_type != XPOSE_TYPE_BYTES) return launch_cells_typed(p, in, out, stream, grid);
  const uintptr_t at = reinterpret_cast<uintptr_t>(out);
  cudaError_t e;
  if (elem_size == 1)
    e = launch_one<1, 1>(p, src, dst, s, grid);
  else if (elem_size == 2)
    e = at % 2 == 0 ? launch_one<2, 2>(p, src, dst, s, grid)
                    : launch_one<2, 1>(p, src, dst, s, grid);
  else if (at % 4 != 0)  // wider elements off words: bytes (pointers off their size are rare)
    e = elem_size == 4   ? launch_one<4, 1>(p, src, dst, s, grid)
        : elem_size == 8 ? launch_one<8, 1>(p, src, dst, s, grid)
                         : launch_one<16, 1>(p, src, dst, s, grid);
  else
    e = elem_size == 4   ? launch_one<4, 4>(p, src, dst, s, grid)
        : elem_size == 8 ? launch_one<8, 4>(p, src, dst, s, grid)
                         : launch_one<16, 4>(p, src, dst, s, grid);
  return launch_status(e, "cells");
}

}  // namespace xpose::detail
