// The narrow kernel's converting loads: dense conversions without beta from f32 to fp8 (e4m3 or
// e5m2), scaled by alpha or not (narrow_plan.cpp narrow_loads). The tile is the plain tile of
// 1-byte elements (narrow_kernel.cuh: rows, spans, quads and gathered words in the output's
// bytes), planned on the input as if it held 1-byte elements (tile_shape.hpp narrow_geometry);
// only the loads differ. The rows' raw copies hold the f32 elements (4 input bytes a tile byte:
// the loads scale each row's offset and length by ConvertLoad::kLog2), and the realignment
// converts: each 16 bytes of a row it stores are 16 f32 elements of the raw copy, realigned and
// rounded two at a time. The write phases and their stores are the plain kernel's. Typed tiles
// (tiled.cu), which move an element an access and write fp8 in words of four, ran f32 -> e4m3 at
// 0.53 of a copy on cuTT's recipe (H200, session 43); f32 -> bf16 and f16 keep them (in these
// tiles they ran 0.95-1.06x, docs/perf/typed-h100.md, session 44).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/convert_store.cuh"
#include "cuda/elem_op.cuh"
#include "cuda/elem_types.cuh"
#include "cuda/narrow_kernel.cuh"

namespace xpose::detail {
namespace {

// The load policy (narrow_kernel.cuh PlainLoad's interface) of f32 inputs in tiles of fp8
// elements: 4 input bytes a tile byte. The output type (NarrowFloat<1>'s a or b: e4m3, e5m2)
// and alpha's test are a number the conversion switches on (uniform across the grid), as
// convert_store.cuh's stores do.
class ConvertLoad {
 public:
  static constexpr int kLog2 = 2;
  __device__ __forceinline__ explicit ConvertLoad(const NarrowParams& p)
      : op_(p.op),
        code_((p.op.scale ? 1 : 0) | (p.op.out_type == NarrowFloat<1>::b ? 2 : 0)) {}

  // The tile's 16 bytes k of a row: its 16 f32 elements, from 4 x k chunks on, realigned, as
  // TypedOp<F32, Out>::convert<S> gives them (an unscaled f32 goes to the store as it is:
  // TypedOp::kRawF32), rounded two at a time (elem_op.cuh store_pair).
  __device__ __forceinline__ uint4 chunk(const uint8_t* row, int k, int shift) const {
    const uint4* c = reinterpret_cast<const uint4*>(row) + 4 * k;
    float f[16];
    uint4 lo = c[0];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const uint4 hi = c[i + 1];
      const uint4 v = realign16(lo, hi, shift);
      f[4 * i] = __uint_as_float(v.x), f[4 * i + 1] = __uint_as_float(v.y);
      f[4 * i + 2] = __uint_as_float(v.z), f[4 * i + 3] = __uint_as_float(v.w);
      lo = hi;
    }
    constexpr auto F32 = XPOSE_TYPE_F32, A = NarrowFloat<1>::a, B = NarrowFloat<1>::b;
    constexpr ScaleIs kOff = ScaleIs::Off, kOn = ScaleIs::On;
    switch (code_) {
      case 0: return convert(Pair<F32, A, kOff>{}, f);
      case 1: return convert(Pair<F32, A, kOn>{}, f);
      case 2: return convert(Pair<F32, B, kOff>{}, f);
      default: return convert(Pair<F32, B, kOn>{}, f);
    }
  }

 private:
  template <xpose_type_t Out, ScaleIs S>
  __device__ __forceinline__ uint4 convert(Pair<XPOSE_TYPE_F32, Out, S>, float* f) const {
    if constexpr (S == ScaleIs::On) {
      const float a = static_cast<float>(op_.alpha[0]);
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        const float x = load_value<XPOSE_TYPE_F32, float>(__float_as_uint(f[j]));
        f[j] = cvt::axpby<true, false>(a, x, 0.0f, x);
      }
    }
    uint32_t o[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
      o[j] = store_pair<Out>(f[4 * j], f[4 * j + 1]) |
             (store_pair<Out>(f[4 * j + 2], f[4 * j + 3]) << 16);
    return make_uint4(o[0], o[1], o[2], o[3]);
  }

  const ElemOp& op_;
  int code_;
};

// The write phases of narrow.cu's plain launches of 1-byte elements for the same plans: quads
// with the deal warp (narrow_plan.cpp: typed quads take it) and no halo rows, no raw rows.
constexpr int kg = kGatheredBlocks<1>;
template <Write W, bool kDealWarp, int kBlocks>
constexpr auto kKernel =
    &narrow_kernel<1, 1, W, false, kDealWarp, kBlocks, PlainStore, ConvertLoad>;

}  // namespace

xpose_status_t launch_narrow_loads(const NarrowParams& p, const void* in, void* out,
                                   void* stream, unsigned grid, int device) {
  const auto s = static_cast<cudaStream_t>(stream);
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  using Ld = ConvertLoad;
  cudaError_t e = cudaErrorInvalidValue;
  if (p.op.in_type == XPOSE_TYPE_F32 && p.in_log2 == Ld::kLog2) {
    if (p.quad)
      e = launch_one<1, 1, Write::Quads, false, true, kNarrowBlocks, PlainStore, Ld>(p, src, dst,
                                                                                   s, grid, device);
    else if (p.n_tab > 0)
      e = launch_one<1, 1, Write::Table, false, false, kg, PlainStore, Ld>(p, src, dst, s, grid,
                                                                          device);
    else
      e = launch_one<1, 1, Write::Evenly, false, false, kg, PlainStore, Ld>(p, src, dst, s, grid,
                                                                           device);
  }
  return launch_status(e, "narrow (converting loads)");
}

void narrow_loads_setup() {
  const void* fns[] = {reinterpret_cast<const void*>(kKernel<Write::Quads, true, kNarrowBlocks>),
                       reinterpret_cast<const void*>(kKernel<Write::Table, false, kg>),
                       reinterpret_cast<const void*>(kKernel<Write::Evenly, false, kg>)};
  for (const void* fn : fns)
    cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kNarrowMaxSmemBytes);
}

}  // namespace xpose::detail
