/* xpose/hptt.h: HPTT's C interface over xpose's CPU backend. A program written for HPTT's C
 * interface switches to xpose by including this header instead of <hptt.h> and linking the target
 * xpose::hptt. Usable from C (C99 complex types) and C++ (where GCC and Clang take `_Complex` as
 * an extension, as HPTT's own header does; useRowMajor then defaults to 0).
 *
 * Written for this project from HPTT's documented C interface (its README and public header: the
 * names, argument order and types below). Each call computes
 *     B[i_perm[0], i_perm[1], ...] = alpha * op(A[i_0, i_1, ...]) + beta * B[i_perm[0], ...]
 * on the calling thread's behalf with numThreads threads (<= 0: all hardware threads), op the
 * identity or, for conjA, the complex conjugate. Output dimension i is input dimension perm[i].
 * sizeA[i] are A's extents; outerSizeA[i] >= sizeA[i] the padded extents of the tensor A is a
 * sub-tensor of, outerSizeB[i] >= sizeA[perm[i]] those of B (NULL: not padded). Column-major
 * (index 0 stride-1) unless useRowMajor is nonzero (the last index stride-1). beta == 0: B is only
 * written, never read. Arithmetic as xpose_plan_create_ex (docs/api.md): each product and sum
 * rounded once in the element type, no fused multiply-add.
 *
 * Where HPTT prints a message and exits the process on bad input (dim < 1, a size <= 0, perm not
 * a permutation, an outer size below its size), and on anything xpose cannot do, these functions
 * return without writing to B; xpose_hptt_last_error() then says why. docs/dropin.md. */
#ifndef XPOSE_HPTT_H
#define XPOSE_HPTT_H

#include "xpose.h"

#ifdef __cplusplus
#define XPOSE_HPTT_ROW_MAJOR_DEFAULT = 0
extern "C" {
#else
#include <stdbool.h>
#define XPOSE_HPTT_ROW_MAJOR_DEFAULT
#endif

XPOSE_API void sTensorTranspose(const int* perm, const int dim, const float alpha, const float* A,
                                const int* sizeA, const int* outerSizeA, const float beta,
                                float* B, const int* outerSizeB, const int numThreads,
                                const int useRowMajor XPOSE_HPTT_ROW_MAJOR_DEFAULT);

XPOSE_API void dTensorTranspose(const int* perm, const int dim, const double alpha,
                                const double* A, const int* sizeA, const int* outerSizeA,
                                const double beta, double* B, const int* outerSizeB,
                                const int numThreads,
                                const int useRowMajor XPOSE_HPTT_ROW_MAJOR_DEFAULT);

XPOSE_API void cTensorTranspose(const int* perm, const int dim, const float _Complex alpha,
                                bool conjA, const float _Complex* A, const int* sizeA,
                                const int* outerSizeA, const float _Complex beta,
                                float _Complex* B, const int* outerSizeB, const int numThreads,
                                const int useRowMajor XPOSE_HPTT_ROW_MAJOR_DEFAULT);

XPOSE_API void zTensorTranspose(const int* perm, const int dim, const double _Complex alpha,
                                bool conjA, const double _Complex* A, const int* sizeA,
                                const int* outerSizeA, const double _Complex beta,
                                double _Complex* B, const int* outerSizeB, const int numThreads,
                                const int useRowMajor XPOSE_HPTT_ROW_MAJOR_DEFAULT);

/* xpose's addition: why the calling thread's last *TensorTranspose call wrote nothing, or "" when
 * it succeeded (thread-local; valid until that thread's next call). */
XPOSE_API const char* xpose_hptt_last_error(void);

#ifdef __cplusplus
}
#endif
#undef XPOSE_HPTT_ROW_MAJOR_DEFAULT

#endif /* XPOSE_HPTT_H */
