// Typed cells: dense conversions without beta from fp8 (e4m3, e5m2), f16 or bf16 to one of those
// or to f32, scaled by alpha or not (narrow_plan.cpp narrow_converts), whose first k >= 2 input
// dims stay the output's first (cell_plan.cpp cell_dims; typed rows, k = 1, keep the narrow
// kernel). The cells are the input's plain cells (cells_kernel.cuh: slots and table in the
// input's bytes); only the stores differ: the kernel writes to the output as a tensor of
// input-sized elements and ConvertStore (convert_store.cuh) converts each word into one aligned
// store of the output's elements.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/cells_kernel.cuh"
#include "cuda/convert_store.cuh"

namespace xpose::detail {
namespace {

// The stores of typed cells (cells_kernel.cuh PlainCellStore's interface): elements of ES bytes
// in, of EO bytes out, at the real address of each virtual one.
template <int ES, int EO>
class TypedCellStore {
 public:
  __device__ __forceinline__ explicit TypedCellStore(const CellParams& p) : st_(p.op) {}
  __device__ __forceinline__ void word(uint8_t* at, uint32_t w) const { st_.word(at, w); }
  __device__ __forceinline__ void part(uint8_t* word, uint32_t v, int lo, int hi) const {
    st_.bytes(word, lo, hi, v);
  }

 private:
  ConvertStore<ES, EO> st_;
};

template <int ES, int EO>
cudaError_t launch_cells(const CellParams& p, const uint8_t* in, uint8_t* vout, cudaStream_t s,
                         unsigned grid) {
  return launch_kernel(&cells_kernel<ES, ES, TypedCellStore<ES, EO>>, grid, kCellThreads,
                       static_cast<unsigned>(cell_smem_bytes(p)), s, p, in, vout);
}

template <int ES>
cudaError_t launch_from(const CellParams& p, int eo, const uint8_t* in, uint8_t* vout,
                        cudaStream_t s, unsigned grid) {
  switch (eo) {
    case 1: return launch_cells<ES, 1>(p, in, vout, s, grid);
    case 2: return launch_cells<ES, 2>(p, in, vout, s, grid);
    case 4: return launch_cells<ES, 4>(p, in, vout, s, grid);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

xpose_status_t launch_cells_typed(const CellParams& p, const void* in, void* out, void* stream,
                                  unsigned grid) {
  const auto s = static_cast<cudaStream_t>(stream);
  const auto* src = static_cast<const uint8_t*>(in);
  const auto es = static_cast<int>(type_info(static_cast<xpose_type_t>(p.op.in_type)).size);
  const auto eo = static_cast<int>(type_info(static_cast<xpose_type_t>(p.op.out_type)).size);
  cudaError_t e = cudaErrorInvalidValue;
  if (es > 0 && eo > 0 && !p.rows) {
    // The virtual output: element i's ES bytes at (out / EO + i) x ES (never dereferenced).
    auto* vout = reinterpret_cast<uint8_t*>(reinterpret_cast<uintptr_t>(out) / eo * es);
    if (es == 1) e = launch_from<1>(p, eo, src, vout, s, grid);
    if (es == 2) e = launch_from<2>(p, eo, src, vout, s, grid);
  }
  return launch_status(e, "cells (typed)");
}

}  // namespace xpose::detail
