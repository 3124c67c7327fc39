// The narrow kernel's typed launches: dense conversions without beta from a floating type of 1 or
// 2 bytes (fp8 e4m3/e5m2, f16, bf16) to one of those or to f32, scaled by alpha or not
// (narrow_plan.cpp narrow_converts). The tile is the input's plain tile (narrow_kernel.cuh: its
// rows, spans, quads and gathered words in the input's bytes); only the stores differ: the kernel
// writes to the output as if it held elements of the input's size, and ConvertStore
// (convert_store.cuh) converts each whole word it is handed into one aligned store. The
// instantiations are per element sizes (ES, EO) and write phase: 24, where one a pair would have
// made 80.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/convert_store.cuh"
#include "cuda/elem_op.cuh"
#include "cuda/elem_types.cuh"
#include "cuda/narrow_kernel.cuh"

namespace xpose::detail {
namespace {

// The write phases of narrow.cu's plain launches for the same plans, but quads always with the
// deal warp and without halo rows (narrow_plan.cpp sets them so for typed tiles).
template <int ES, int EO>
struct TypedKernels {
  using St = ConvertStore<ES, EO>;
  static constexpr int kg = kGatheredBlocks<ES>;
  static cudaError_t launch(const NarrowParams& p, const uint8_t* in, uint8_t* vout,
                            cudaStream_t s, unsigned grid, int device) {
    if (p.quad)
      return launch_one<ES, ES, Write::Quads, false, true, kNarrowBlocks, St>(p, in, vout, s,
                                                                            grid, device);
    if (p.raw_rows)
      return launch_one<ES, ES, Write::Raw, false, false, kNarrowBlocks, St>(p, in, vout, s,
                                                                           grid, device);
    if (p.n_tab > 0)
      return launch_one<ES, ES, Write::Table, false, false, kg, St>(p, in, vout, s, grid, device);
    return launch_one<ES, ES, Write::Evenly, false, false, kg, St>(p, in, vout, s, grid, device);
  }
  static void opt_in() {
    const void* fns[] = {
        reinterpret_cast<const void*>(narrow_kernel<ES, ES, Write::Quads, false, true,
                                                    kNarrowBlocks, St>),
        reinterpret_cast<const void*>(narrow_kernel<ES, ES, Write::Raw, false, false,
                                                    kNarrowBlocks, St>),
        reinterpret_cast<const void*>(narrow_kernel<ES, ES, Write::Table, false, false, kg, St>),
        reinterpret_cast<const void*>(narrow_kernel<ES, ES, Write::Evenly, false, false, kg, St>)};
    for (const void* fn : fns)
      cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kNarrowMaxSmemBytes);
  }
};

template <int ES>
cudaError_t launch_from(const NarrowParams& p, int eo, const uint8_t* in, uint8_t* vout,
                        cudaStream_t s, unsigned grid, int device) {
  switch (eo) {
    case 1: return TypedKernels<ES, 1>::launch(p, in, vout, s, grid, device);
    case 2: return TypedKernels<ES, 2>::launch(p, in, vout, s, grid, device);
    case 4: return TypedKernels<ES, 4>::launch(p, in, vout, s, grid, device);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

xpose_status_t launch_narrow_typed(const NarrowParams& p, const void* in, void* out,
                                   void* stream, unsigned grid, int device) {
  const auto s = static_cast<cudaStream_t>(stream);
  const auto* src = static_cast<const uint8_t*>(in);
  const auto es = static_cast<int>(type_info(static_cast<xpose_type_t>(p.op.in_type)).size);
  const auto eo = static_cast<int>(type_info(static_cast<xpose_type_t>(p.op.out_type)).size);
  cudaError_t e = cudaErrorInvalidValue;
  if (es > 0 && eo > 0) {
    // The virtual output: element i's ES bytes at (out / EO + i) x ES (never dereferenced).
    auto* vout = reinterpret_cast<uint8_t*>(reinterpret_cast<uintptr_t>(out) / eo * es);
    if (es == 1) e = launch_from<1>(p, eo, src, vout, s, grid, device);
    if (es == 2) e = launch_from<2>(p, eo, src, vout, s, grid, device);
  }
  return launch_status(e, "narrow (typed)");
}

void narrow_typed_setup() {
  TypedKernels<1, 1>::opt_in();
  TypedKernels<1, 2>::opt_in();
  TypedKernels<1, 4>::opt_in();
  TypedKernels<2, 1>::opt_in();
  TypedKernels<2, 2>::opt_in();
  TypedKernels<2, 4>::opt_in();
}

}  // namespace xpose::detail
