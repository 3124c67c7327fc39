// Cells (cells_kernel.cuh): the plain launches, by element size and the output's alignment;
// typed cells (p.op converts or scales) go to cells_typed.cu.
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
  cudaError_t e;
  if (elem_size == 1)
    e = launch_one<1, 1>(p, src, dst, s, grid);
  else if (reinterpret_cast<uintptr_t>(out) % 2 == 0)
    e = launch_one<2, 2>(p, src, dst, s, grid);
  else
    e = launch_one<2, 1>(p, src, dst, s, grid);
  return launch_status(e, "cells");
}

}  // namespace xpose::detail
