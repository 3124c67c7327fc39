// XPOSE_HD marks functions that the host and CUDA device code share (index arithmetic, pairing
// functions). No CUDA header: under nvcc it expands to __host__ __device__, elsewhere to inline.
#pragma once

#if defined(__CUDACC__)
#define XPOSE_HD __host__ __device__ __forceinline__
#else
#define XPOSE_HD inline
#endif
