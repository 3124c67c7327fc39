// Correctness check of a transposition, from the user's request (extents, perm, layout) directly
// and not through the library's normalization, so it also checks the normalization.
#pragma once

#include <cstdint>
#include <string>

#include "common.hpp"

namespace xpose_tool {

struct CheckResult {
  int64_t checked = 0;
  int64_t wrong = 0;
  std::string first_wrong;  // "out[12] (coords (2,0,1)) != in[37]" for the first mismatch
  bool ok() const { return wrong == 0; }
};

// Compares output elements with the input elements the index map sends them to: every element
// when the volume is at most `max_samples`, else the first, the last and `max_samples` random
// positions drawn from `seed`.
CheckResult check_transpose(const Case& c, size_t elem, xpose_layout_t layout,
                            const unsigned char* in, const unsigned char* out,
                            int64_t max_samples, uint64_t seed);

}  // namespace xpose_tool
