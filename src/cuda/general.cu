// The general kernel (params.hpp GeneralParams): any non-plain problem, at any size, rank and
// pointer alignment. A thread per output element, grid-stride; its input and output offsets are
// decoded from its index over the output's dims (64-bit fast divisions, strides of any sign),
// then the element operation (elem_op.cuh) converts, scales and accumulates. Small typed
// tensors run it as `direct` (a launch is their time); larger ones where no tile fits (rank <= 1)
// or where the pointers are not multiples of their element sizes (typed tiles move whole
// elements only): then elements move byte by byte.
#include <cuda_runtime.h>

#include "core/status.hpp"
#include "cuda/elem_op.cuh"
#include "cuda/elem_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/runtime.hpp"

namespace xpose::detail {
namespace {

// A strided plain problem: elements of 2^Log2 bytes moved as they are.
template <int Log2>
struct MoveOp {
  using in_t = Elem<Log2>;
  using out_t = Elem<Log2>;
  __device__ __forceinline__ static out_t apply(const ElemOp&, in_t x, out_t) { return x; }
};

template <class T>
__device__ __forceinline__ T load(const unsigned char* p, bool aligned) {
  if (aligned) return *reinterpret_cast<const T*>(p);
  T v;
  memcpy(&v, p, sizeof(T));
  return v;
}

template <class T>
__device__ __forceinline__ void store(unsigned char* p, const T& v, bool aligned) {
  if (aligned)
    *reinterpret_cast<T*>(p) = v;
  else
    memcpy(p, &v, sizeof(T));
}

// `aligned`: in and out are multiples of their element sizes (one uniform branch per element).
template <class Op>
__global__ void __launch_bounds__(kGeneralThreads)
    general_kernel(const __grid_constant__ GeneralParams p, const unsigned char* __restrict__ in,
                   unsigned char* __restrict__ out, int aligned) {
  using I = typename Op::in_t;
  using O = typename Op::out_t;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kGeneralThreads;
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * kGeneralThreads + threadIdx.x; j < p.volume;
       j += step) {
    uint64_t rest = static_cast<uint64_t>(j);
    int64_t at_in = 0, at_out = 0;
    for (int k = 0; k < p.n_dims; ++k) {
      const uint64_t q = p.dim[k].extent.div(rest);
      const auto c = static_cast<int64_t>(rest - q * p.dim[k].extent.d);
      at_in += c * p.dim[k].in_stride;
      at_out += c * p.dim[k].out_stride;
      rest = q;
    }
    const unsigned char* src = in + at_in * static_cast<int64_t>(sizeof(I));
    unsigned char* dst = out + at_out * static_cast<int64_t>(sizeof(O));
    const O y = p.op.accumulate ? load<O>(dst, aligned) : O{};
    store(dst, Op::apply(p.op, load<I>(src, aligned), y), aligned);
  }
}

template <class Op>
cudaError_t launch_op(const GeneralParams& p, const void* in, void* out, cudaStream_t stream,
                      unsigned grid) {
  using I = typename Op::in_t;
  using O = typename Op::out_t;
  const int aligned = reinterpret_cast<uintptr_t>(in) % sizeof(I) == 0 &&
                      reinterpret_cast<uintptr_t>(out) % sizeof(O) == 0;
  void* args[] = {const_cast<GeneralParams*>(&p), &in, &out, const_cast<int*>(&aligned)};
  return cudaLaunchKernel(reinterpret_cast<const void*>(&general_kernel<Op>), dim3(grid),
                          dim3(kGeneralThreads), args, 0, stream);
}

template <xpose_type_t In, xpose_type_t Out>
struct TypedLaunch {
  static cudaError_t fn(const GeneralParams& p, const void* in, void* out, cudaStream_t stream,
                        unsigned grid) {
    return launch_op<TypedOp<In, Out>>(p, in, out, stream, grid);
  }
};

using LaunchFn = cudaError_t (*)(const GeneralParams&, const void*, void*, cudaStream_t, unsigned);
constexpr LaunchFn kMove[5] = {&launch_op<MoveOp<0>>, &launch_op<MoveOp<1>>,
                               &launch_op<MoveOp<2>>, &launch_op<MoveOp<3>>,
                               &launch_op<MoveOp<4>>};

}  // namespace

xpose_status_t launch_general(const GeneralParams& p, const void* in, void* out, void* stream,
                              unsigned grid) {
  const LaunchFn fn = p.op.in_type == XPOSE_TYPE_BYTES ? kMove[p.log2_elem]
                                                       : OpTable<TypedLaunch>::find(p.op);
  if (!fn)
    return fail(XPOSE_ERROR_UNSUPPORTED, "no CUDA kernel converts type " +
                                             std::to_string(p.op.in_type) + " to type " +
                                             std::to_string(p.op.out_type));
  return launch_status(fn(p, in, out, static_cast<cudaStream_t>(stream), grid), "general");
}

}  // namespace xpose::detail
