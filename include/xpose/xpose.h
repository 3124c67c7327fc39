/* xpose: tensor transposition at memory-copy speed on NVIDIA GPUs and multicore CPUs.
 *
 * The contract of this header is ../shared/API.md (docs/api.md in this repository restates it).
 * Summary: a tensor is `volume` elements of `elem_size` bytes (1, 2, 4, 8 or 16); output dimension
 * i is input dimension perm[i]; column-major by default (extents[0] is stride-1). Every call
 * returns a status; on failure xpose_last_error() names the argument and the reason and the
 * output is left untouched. */
#ifndef XPOSE_XPOSE_H
#define XPOSE_XPOSE_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define XPOSE_API __declspec(dllexport)
#elif defined(__GNUC__)
#define XPOSE_API __attribute__((visibility("default")))
#else
#define XPOSE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define XPOSE_VERSION_MAJOR 0
#define XPOSE_VERSION_MINOR 1
#define XPOSE_VERSION_PATCH 0
#define XPOSE_MAX_RANK 32

typedef struct xpose_plan_s* xpose_plan_t;

typedef enum {
  XPOSE_SUCCESS = 0,
  XPOSE_ERROR_INVALID_ARGUMENT = 1,
  XPOSE_ERROR_UNSUPPORTED = 2,   /* valid request this build/device cannot do, e.g. CUDA without a GPU */
  XPOSE_ERROR_OUT_OF_MEMORY = 3,
  XPOSE_ERROR_DEVICE = 4,        /* a CUDA runtime error, message carries CUDA's text */
  XPOSE_ERROR_INTERNAL = 5
} xpose_status_t;

typedef enum { XPOSE_BACKEND_AUTO = 0, XPOSE_BACKEND_CPU = 1, XPOSE_BACKEND_CUDA = 2 } xpose_backend_t;
typedef enum { XPOSE_COL_MAJOR = 0, XPOSE_ROW_MAJOR = 1 } xpose_layout_t;
typedef enum { XPOSE_PLAN_HEURISTIC = 0, XPOSE_PLAN_MEASURE = 1 } xpose_planning_t;

typedef struct {
  xpose_backend_t backend;    /* AUTO: CUDA when a usable device exists, else CPU */
  xpose_layout_t layout;      /* default XPOSE_COL_MAJOR */
  xpose_planning_t planning;  /* default XPOSE_PLAN_HEURISTIC */
  int num_threads;            /* CPU backend; 0 = all hardware threads */
  int device;                 /* CUDA device ordinal; -1 = the current device */
} xpose_options_t;

/* Fills the defaults above. */
XPOSE_API void xpose_options_init(xpose_options_t* options);

/* Plans the transposition of a tensor of `rank` dimensions. `extents` and `perm` may be NULL
 * when rank is 0. The plan is immutable and may be executed from several threads and streams. */
XPOSE_API xpose_status_t xpose_plan_create(xpose_plan_t* plan, int rank, const int64_t* extents,
                                           const int* perm, size_t elem_size,
                                           const xpose_options_t* options /* NULL = defaults */);

/* Expert and testing extension: like xpose_plan_create, but with the schema (and optionally its
 * parameters) forced instead of chosen by the planner, e.g. "copy", "tiled", "packed" on CUDA or
 * "blocked" on the CPU; docs/cpu.md and docs/cuda.md list each backend's names and parameters.
 * A schema that does not apply to the (normalized) problem is XPOSE_ERROR_INVALID_ARGUMENT with a
 * message saying why. Forced plans bypass the plan cache. */
XPOSE_API xpose_status_t xpose_plan_create_forced(xpose_plan_t* plan, int rank,
                                                  const int64_t* extents, const int* perm,
                                                  size_t elem_size, const xpose_options_t* options,
                                                  const char* schema);

/* Transposes `in` into `out` (which must not overlap). CUDA backend: enqueues on `stream`
 * (a cudaStream_t; NULL = default stream) and returns; allocates nothing, never synchronizes.
 * CPU backend: runs to completion on the calling thread's team; `stream` is ignored. */
XPOSE_API xpose_status_t xpose_execute(xpose_plan_t plan, const void* in, void* out, void* stream);

/* Releases a plan; NULL is a no-op. */
XPOSE_API xpose_status_t xpose_plan_destroy(xpose_plan_t plan);

/* One call: plan (through a thread-safe cache keyed on the normalized problem) and execute. */
XPOSE_API xpose_status_t xpose_transpose(int rank, const int64_t* extents, const int* perm,
                                         size_t elem_size, const void* in, void* out,
                                         const xpose_options_t* options, void* stream);

XPOSE_API const char* xpose_status_string(xpose_status_t status);

/* Thread-local; "" when the last call on this thread succeeded. */
XPOSE_API const char* xpose_last_error(void);

/* Performance model: the predicted execution time (seconds) of the plan the planner would choose,
 * without executing. The CPU model is bandwidth-based; the CUDA model is the planner's analytic
 * model of the device (docs/cuda.md). Prediction plans through the cache, so a repeated query
 * costs a lookup. XPOSE_ERROR_UNSUPPORTED when the backend has no model for the plan. */
XPOSE_API xpose_status_t xpose_predict(int rank, const int64_t* extents, const int* perm,
                                       size_t elem_size, const xpose_options_t* options,
                                       double* seconds);
XPOSE_API xpose_status_t xpose_plan_predict(xpose_plan_t plan, double* seconds);

/* Human-readable description of a plan (normalized problem, backend, schema and parameters).
 * Returns the length needed (without the NUL); writes at most `size` bytes including the NUL. */
XPOSE_API size_t xpose_plan_describe(xpose_plan_t plan, char* buffer, size_t size);

/* In-place: `data` is both input and output. Supported at least for square matrices
 * (rank 2, equal extents, perm {1,0}) and the 3D involutions whose extents make them in-place
 * (e.g. perm {1,0,2} with extents[0] == extents[1]); other requests return
 * XPOSE_ERROR_UNSUPPORTED with a message saying what is supported.
 * This build supports every request that, after normalization (extent-1 dimensions dropped,
 * adjacent dimensions fused), is the identity or swaps two dimensions of equal extent and keeps
 * the others: square matrices and batches of them, perm {1,0,2} with extents[0] == extents[1]
 * (T_yxz), perm {2,1,0} with extents[0] == extents[2] (T_zyx), perm {0,2,1} with
 * extents[1] == extents[2]. Same validation and backend choice as xpose_transpose; the CUDA
 * backend enqueues on `stream`, allocates nothing and does not synchronize. */
XPOSE_API xpose_status_t xpose_transpose_inplace(int rank, const int64_t* extents, const int* perm,
                                                 size_t elem_size, void* data,
                                                 const xpose_options_t* options, void* stream);

/* ---- Typed elements, strides, scaling and conversion (docs/api.md) ----
 * One extended entry point plans a permutation of a strided view into a strided view, with a
 * change of element type on the way and out = alpha * in' + beta * out. */
typedef enum {
  XPOSE_TYPE_BYTES = 0,   /* opaque elements of elem_size bytes, as xpose_plan_create */
  XPOSE_TYPE_I8, XPOSE_TYPE_U8, XPOSE_TYPE_I16, XPOSE_TYPE_U16, XPOSE_TYPE_I32, XPOSE_TYPE_U32,
  XPOSE_TYPE_I64, XPOSE_TYPE_U64,
  XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F16, XPOSE_TYPE_BF16, XPOSE_TYPE_F32,
  XPOSE_TYPE_F64,
  XPOSE_TYPE_C32,         /* complex: two f32 (re, im) */
  XPOSE_TYPE_C64          /* complex: two f64 */
} xpose_type_t;

typedef struct {
  size_t struct_size;          /* sizeof(xpose_desc_t), set by xpose_desc_init: later versions
                                  may add fields at the end without breaking callers */
  xpose_type_t in_type;        /* default XPOSE_TYPE_BYTES (elem_size gives the size) */
  xpose_type_t out_type;       /* default XPOSE_TYPE_BYTES, meaning: the same as in_type */
  const int64_t* in_strides;   /* rank entries, in input elements, per input dimension, in the
                                  layout's order; NULL = dense */
  const int64_t* out_strides;  /* rank entries, in output elements, per output dimension;
                                  NULL = dense */
  double alpha[2];             /* {re, im}, default {1, 0} */
  double beta[2];              /* {re, im}, default {0, 0}: out is written and never read */
} xpose_desc_t;

/* Fills the defaults above. */
XPOSE_API void xpose_desc_init(xpose_desc_t* desc);

/* Like xpose_plan_create; desc == NULL is exactly xpose_plan_create. elem_size must match a typed
 * in_type's size (or be 0 with a typed in_type). With strides, execute's `in` and `out` point at
 * the element whose indices are all 0; strides may be negative, an input stride may be 0
 * (broadcast); output strides under which two output elements share an address are
 * XPOSE_ERROR_INVALID_ARGUMENT. Conversions: between any two of F8_E4M3, F8_E5M2, F16, BF16,
 * F32, F64 (round to nearest even) and between C32 and C64; integer and BYTES types only to
 * themselves. Scaling: floating types use alpha[0], beta[0], complex types both parts; integer
 * and BYTES types take alpha = {1, 0} and beta = {0, 0} or {1, 0} only. */
XPOSE_API xpose_status_t xpose_plan_create_ex(xpose_plan_t* plan, int rank, const int64_t* extents,
                                              const int* perm, size_t elem_size,
                                              const xpose_desc_t* desc,
                                              const xpose_options_t* options);

#ifdef __cplusplus
}
#endif

#endif /* XPOSE_XPOSE_H */
