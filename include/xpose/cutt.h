/* xpose/cutt.h: cuTT's C API over xpose (CUDA backend). A program written for cuTT switches to
 * xpose by including this header instead of "cutt.h" and linking the target xpose::cutt.
 *
 * Written for this project from cuTT's documented interface (its README and public header: the
 * names, types, argument order and result codes below); the semantics are cuTT's:
 * - column-major: dim[0] is the stride-1 dimension; output dimension i is input dimension
 *   permutation[i] (the output tensor has extents dim[permutation[i]]);
 * - the stream is bound to the plan when it is made; cuttExecute enqueues on it and returns;
 * - a plan belongs to the device that was current when it was made: cuttExecute on another
 *   current device returns CUTT_INVALID_DEVICE;
 * - cuttPlanMeasure chooses by timing candidates (on scratch buffers; idata and odata are
 *   checked but neither read nor written).
 * Where xpose accepts more than cuTT (any rank 0..32, extents 0 and 1, elements of 1, 2, 4, 8 or
 * 16 bytes), so does this interface. What xpose rejects returns CUTT_INVALID_PARAMETER, and
 * xpose_last_error() (xpose/xpose.h) then says why. Handles are never 0. All functions may be
 * called from several threads at once; docs/dropin.md has the details. */
#ifndef XPOSE_CUTT_H
#define XPOSE_CUTT_H

#include <stddef.h>

#include <cuda_runtime.h>

#include "xpose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Handle type that is used to store and access cuTT plans. */
typedef unsigned int cuttHandle;

typedef enum cuttResult_t {
  CUTT_SUCCESS,            /* success */
  CUTT_INVALID_PLAN,       /* the handle names no plan (never made, or destroyed) */
  CUTT_INVALID_PARAMETER,  /* bad rank, dim, permutation, sizeofType or data pointers */
  CUTT_INVALID_DEVICE,     /* executed while another device than the plan's is current */
  CUTT_INTERNAL_ERROR,     /* out of memory, no usable CUDA device, a CUDA error */
  CUTT_UNDEFINED_ERROR     /* anything else */
} cuttResult;

/* Nothing to set up or release (cuTT's Umpire builds use them); kept for source compatibility. */
XPOSE_API void cuttInitialize(void);
XPOSE_API void cuttFinalize(void);

/* Makes a plan for transposing a tensor of `rank` dimensions dim[0..rank-1] by `permutation`,
 * elements of sizeofType bytes, to run on `stream` (0: the default stream). */
XPOSE_API cuttResult cuttPlan(cuttHandle* handle, int rank, int* dim, int* permutation,
                              size_t sizeofType, cudaStream_t stream);

/* As cuttPlan, the choice made by timing the best candidates instead of the model alone. */
XPOSE_API cuttResult cuttPlanMeasure(cuttHandle* handle, int rank, int* dim, int* permutation,
                                     size_t sizeofType, cudaStream_t stream, void* idata,
                                     void* odata);

XPOSE_API cuttResult cuttDestroy(cuttHandle handle);

/* Transposes idata (product(dim) elements) into odata, which must not overlap it. */
XPOSE_API cuttResult cuttExecute(cuttHandle handle, void* idata, void* odata);

#ifdef __cplusplus
}
#endif

#endif /* XPOSE_CUTT_H */
