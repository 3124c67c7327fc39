// One kernel launch as one CUDA API call: cudaLaunchKernel returns the launch's own error, where
// <<<...>>> needs a cudaGetLastError after it (a second call on every execute, docs/cuda.md).
#pragma once

#include <cuda_runtime.h>

namespace xpose::detail {

template <class Params, class In, class Out, class... Extra>
cudaError_t launch_kernel(void (*kernel)(Params, In*, Out*, Extra...), unsigned grid,
                          unsigned threads, unsigned smem_bytes, cudaStream_t stream,
                          const Params& p, In* in, Out* out, Extra... extra) {
  void* args[] = {const_cast<Params*>(&p), &in, &out, &extra...};
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(grid), dim3(threads), args,
                          smem_bytes, stream);
}

}  // namespace xpose::detail
