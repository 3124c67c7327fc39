// The narrow kernel's plain launches (narrow_kernel.cuh): 1- and 2-byte elements moved as bytes,
// and the kernel's per-device setup (the tile counters' table, shared-memory opt-ins).
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/elem_types.cuh"
#include "cuda/narrow_kernel.cuh"

namespace xpose::detail {
namespace {

// The counters of tile_order.cuh: one table per device (this module's), zero at load; launches
// of narrow_typed.cu deal from it too (TileDeal holds the counter's address).
__device__ unsigned long long tile_counters[kTileSlots];

// The write phase of the block, for elements of ES bytes gathered G bytes at a time. 1-byte quads
// without the deal warp launched four blocks an SM (NarrowParams::four_blocks) take their
// instantiation bounded to that.
template <int ES, int G>
cudaError_t launch_write(const NarrowParams& p, const uint8_t* in, uint8_t* out,
                         cudaStream_t stream, unsigned grid, int device) {
  constexpr auto Quads = Write::Quads;
  constexpr int k4 = kNarrowSmallBlocks;
  if (p.quad) {
    if constexpr (ES == 1) {
      if (p.deal_warp)
        return p.halo ? launch_one<1, 1, Quads, true, true>(p, in, out, stream, grid, device)
                      : launch_one<1, 1, Quads, false, true>(p, in, out, stream, grid, device);
      if (p.four_blocks)
        return p.halo ? launch_one<1, 1, Quads, true, false, k4>(p, in, out, stream, grid, device)
                      : launch_one<1, 1, Quads, false, false, k4>(p, in, out, stream, grid,
                                                                   device);
      return p.halo ? launch_one<1, 1, Quads, true>(p, in, out, stream, grid, device)
                    : launch_one<1, 1, Quads>(p, in, out, stream, grid, device);
    }
    return launch_one<ES, ES, Quads, false, true>(p, in, out, stream, grid, device);
  }
  constexpr int kg = kGatheredBlocks<ES>;
  if (p.raw_rows) return launch_one<ES, G, Write::Raw>(p, in, out, stream, grid, device);
  if (p.n_tab > 0)
    return launch_one<ES, G, Write::Table, false, false, kg>(p, in, out, stream, grid, device);
  return launch_one<ES, G, Write::Evenly, false, false, kg>(p, in, out, stream, grid, device);
}

// An instantiation, and whether it may launch more than kNarrowBlocks blocks an SM
// (Choice::raw_grid and realigned_grid: raw rows, and those bounded to more).
struct NarrowKernel {
  const void* fn;
  bool four;
};
template <int ES, int G, Write W, bool kHalo = false, bool kDealWarp = false,
          int kBlocks = kNarrowBlocks>
NarrowKernel narrow_instance() {
  return {reinterpret_cast<const void*>(narrow_kernel<ES, G, W, kHalo, kDealWarp, kBlocks>),
          W == Write::Raw || kBlocks > kNarrowBlocks};
}

}  // namespace

xpose_status_t launch_narrow(const NarrowParams& p, int elem_size, const void* in, void* out,
                             void* stream, unsigned grid, int device) {
  if (p.in_log2 > 0) return launch_narrow_loads(p, in, out, stream, grid, device);
  if (p.op.in_type != XPOSE_TYPE_BYTES)
    return launch_narrow_typed(p, in, out, stream, grid, device);
  const auto s = static_cast<cudaStream_t>(stream);
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  cudaError_t e;
  // Two-byte elements gathered by halfwords where they sit on halfwords: in the output, and
  // in the raw rows the write phase reads (the input's alignment).
  const uintptr_t at = reinterpret_cast<uintptr_t>(out) |
                       (p.raw_rows ? reinterpret_cast<uintptr_t>(in) : uintptr_t{0});
  if (elem_size == 1)
    e = launch_write<1, 1>(p, src, dst, s, grid, device);
  else if (at % 2 == 0)
    e = launch_write<2, 2>(p, src, dst, s, grid, device);
  else
    e = launch_write<2, 1>(p, src, dst, s, grid, device);
  return launch_status(e, "narrow");
}

int narrow_kernel_setup(int ordinal, int* four_regs) {
  void* counters = nullptr;
  if (cudaGetSymbolAddress(&counters, tile_counters) == cudaSuccess)
    tile_deal_setup(ordinal, static_cast<unsigned long long*>(counters));
  cudaGetLastError();
  narrow_typed_setup();
  narrow_loads_setup();
  constexpr auto Quads = Write::Quads;
  constexpr int k4 = kNarrowSmallBlocks, g1 = kGatheredBlocks<1>, g2 = kGatheredBlocks<2>;
  const NarrowKernel kernels[] = {narrow_instance<1, 1, Quads>(),
                                  narrow_instance<1, 1, Quads, true>(),
                                  narrow_instance<1, 1, Quads, false, false, k4>(),
                                  narrow_instance<1, 1, Quads, true, false, k4>(),
                                  narrow_instance<1, 1, Quads, false, true>(),
                                  narrow_instance<1, 1, Quads, true, true>(),
                                  narrow_instance<1, 1, Write::Evenly, false, false, g1>(),
                                  narrow_instance<1, 1, Write::Table, false, false, g1>(),
                                  narrow_instance<1, 1, Write::Raw>(),
                                  narrow_instance<2, 2, Quads, false, true>(),
                                  narrow_instance<2, 2, Write::Evenly, false, false, g2>(),
                                  narrow_instance<2, 2, Write::Table, false, false, g2>(),
                                  narrow_instance<2, 2, Write::Raw>(),
                                  narrow_instance<2, 1, Write::Evenly, false, false, g2>(),
                                  narrow_instance<2, 1, Write::Table, false, false, g2>(),
                                  narrow_instance<2, 1, Write::Raw>()};
  // Each one's shared-memory opt-in; the most registers of any, and of those that may run four
  // blocks an SM: the planner sizes the grid to the blocks that fit (analytic.cpp
  // narrow_resident).
  int regs = 0;
  *four_regs = 0;
  for (const NarrowKernel& k : kernels) {
    cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kNarrowMaxSmemBytes);
    cudaFuncAttributes a{};
    if (cudaFuncGetAttributes(&a, k.fn) != cudaSuccess) continue;
    regs = std::max(regs, a.numRegs);
    if (k.four) *four_regs = std::max(*four_regs, a.numRegs);
  }
  cudaGetLastError();
  return regs;
}

}  // namespace xpose::detail
