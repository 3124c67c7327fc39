// Element types by byte size: elements are opaque bytes, moved as unsigned words of their size.
// One table maps log2(size) to the type; kernels are instantiated once per entry.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "core/status.hpp"
#include "xpose/xpose.h"

namespace xpose::detail {

template <int Log2>
struct ElemOf;
template <> struct ElemOf<0> { using type = uint8_t; };
template <> struct ElemOf<1> { using type = uint16_t; };
template <> struct ElemOf<2> { using type = uint32_t; };
template <> struct ElemOf<3> { using type = unsigned long long; };
template <> struct ElemOf<4> { using type = uint4; };

template <int Log2>
using Elem = typename ElemOf<Log2>::type;

// log2 of an element size (a power of two).
constexpr int log2_of_size(size_t bytes) { return bytes <= 1 ? 0 : 1 + log2_of_size(bytes / 2); }

// An element in pieces of 2^Piece bytes (Piece < log2 of its size: its address need only be a
// multiple of the piece), assembled in registers.
template <int Piece, class T>
__device__ __forceinline__ T load_pieces(const T* p) {
  using P = Elem<Piece>;
  constexpr int kPieces = static_cast<int>(sizeof(T) / sizeof(P));
  const P* src = reinterpret_cast<const P*>(p);
  P piece[kPieces];
#pragma unroll
  for (int i = 0; i < kPieces; ++i) piece[i] = src[i];
  T v;
  memcpy(&v, piece, sizeof(T));
  return v;
}

template <int Piece, class T>
__device__ __forceinline__ void store_pieces(T* p, const T& v) {
  using P = Elem<Piece>;
  constexpr int kPieces = static_cast<int>(sizeof(T) / sizeof(P));
  P piece[kPieces];
  memcpy(piece, &v, sizeof(T));
  P* dst = reinterpret_cast<P*>(p);
#pragma unroll
  for (int i = 0; i < kPieces; ++i) dst[i] = piece[i];
}

inline xpose_status_t launch_status(cudaError_t e, const char* kernel) {
  if (e == cudaSuccess) return XPOSE_SUCCESS;
  return fail(XPOSE_ERROR_DEVICE, std::string("launching the ") + kernel + " kernel failed: " +
                                      cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

}  // namespace xpose::detail
