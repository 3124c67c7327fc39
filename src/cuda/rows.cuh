// What the row kernels (rows.cu, rows_typed.cu) share: their block size and the offsets of a
// row from its index.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/params.hpp"

namespace xpose::detail {

inline constexpr int kRowThreads = 256;

// Input and output byte offsets of row `row` (its coordinates over the row dims).
__device__ __forceinline__ void row_offsets(const RowParams& p, uint64_t row, int64_t* ib,
                                            int64_t* ob) {
  int64_t i = 0, o = 0;
  for (int k = 0; k < p.n_dims; ++k) {
    const uint64_t q = p.dim[k].extent.div(row);
    const int64_t c = static_cast<int64_t>(row - q * p.dim[k].extent.d);
    row = q;
    i += c * p.dim[k].in_stride;
    o += c * p.dim[k].out_stride;
  }
  *ib = i;
  *ob = o;
}

}  // namespace xpose::detail
