// The reference the GPU drop-in tests compare with: a naive column-major transposition.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

// out(j) = in(i) with output dimension d being input dimension perm[d] (column-major).
inline void naive(int rank, const int* dim, const int* perm, size_t elem, const char* in,
                  char* out) {
  int64_t volume = 1;
  for (int k = 0; k < rank; ++k) volume *= dim[k];
  std::vector<int64_t> in_stride(rank), idx(rank, 0);
  for (int k = 0, s = 1; k < rank; s *= dim[k], ++k) in_stride[k] = s;
  for (int64_t o = 0; o < volume; ++o) {
    int64_t i = 0;
    for (int d = 0; d < rank; ++d) i += idx[d] * in_stride[perm[d]];
    std::memcpy(out + o * elem, in + i * elem, elem);
    for (int d = 0; d < rank && ++idx[d] == dim[perm[d]]; ++d) idx[d] = 0;
  }
}
