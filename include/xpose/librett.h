/* xpose/librett.h: LibreTT's API for CUDA over xpose. A program written for LibreTT switches to
 * xpose by including this header instead of "librett.h" and linking the target xpose::cutt.
 *
 * Written for this project from LibreTT's documented interface (its public header: the names,
 * types, argument order and result codes below); semantics as cuTT's (xpose/cutt.h): column-major,
 * output dimension i is input dimension permutation[i], the stream bound at plan time, a plan
 * bound to the device current when it was made, handles never 0, safe from several threads.
 * LibreTT's HIP and SYCL builds are not offered: librett_gpuStream_t is cudaStream_t, and
 * LIBRETT_USES_CUDA is defined for code that tests it.
 *
 * One difference in form: LibreTT takes the stream as `librett_gpuStream_t&`; here it is taken by
 * value, which accepts every call the reference accepts and also 0 or NULL (as LibreTT's first
 * releases and cuTT did). Usable from C and C++. */
#ifndef XPOSE_LIBRETT_H
#define XPOSE_LIBRETT_H

#if defined(LIBRETT_USES_HIP) || defined(LIBRETT_USES_SYCL)
#error "xpose's LibreTT interface is for CUDA only (LIBRETT_USES_HIP or LIBRETT_USES_SYCL is set)"
#endif
#ifndef LIBRETT_USES_CUDA
#define LIBRETT_USES_CUDA 1
#endif

#include <stddef.h>

#include <cuda_runtime.h>

#include "xpose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef cudaStream_t librett_gpuStream_t;

/* Handle type that is used to store and access LibreTT plans. */
typedef unsigned int librettHandle;

typedef enum librettResult_t {
  LIBRETT_SUCCESS,            /* success */
  LIBRETT_INVALID_PLAN,       /* the handle names no plan (never made, or destroyed) */
  LIBRETT_INVALID_PARAMETER,  /* bad rank, dim, permutation, sizeofType or data pointers */
  LIBRETT_INVALID_DEVICE,     /* executed while another device than the plan's is current */
  LIBRETT_INTERNAL_ERROR,     /* out of memory, no usable CUDA device, a CUDA error */
  LIBRETT_UNDEFINED_ERROR     /* anything else */
} librettResult;

/* Nothing to set up or release (LibreTT's Umpire builds use them); kept for compatibility. */
XPOSE_API void librettInitialize(void);
XPOSE_API void librettFinalize(void);

XPOSE_API librettResult librettPlan(librettHandle* handle, int rank, int* dim, int* permutation,
                                    size_t sizeofType, librett_gpuStream_t stream);

/* As librettPlan, the choice made by timing candidates (on scratch buffers; idata and odata are
 * checked but neither read nor written). */
XPOSE_API librettResult librettPlanMeasure(librettHandle* handle, int rank, int* dim,
                                           int* permutation, size_t sizeofType,
                                           librett_gpuStream_t stream, void* idata, void* odata);

XPOSE_API librettResult librettDestroy(librettHandle handle);

XPOSE_API librettResult librettExecute(librettHandle handle, void* idata, void* odata);

#ifdef __cplusplus
}
#endif

#endif /* XPOSE_LIBRETT_H */
