// Correctness check of a transposition, from the user's request (extents, perm, layout) directly
// and not through the library's normalization, so it also checks the normalization.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"
#include "views.hpp"

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
// `in_strides` / `out_strides` (per dim in the layout's order, elements; empty: dense) place
// the tensors' elements; `in` and `out` point at index 0.
CheckResult check_transpose(const Case& c, size_t elem, xpose_layout_t layout,
                            const unsigned char* in, const unsigned char* out,
                            int64_t max_samples, uint64_t seed,
                            const std::vector<int64_t>& in_strides = {},
                            const std::vector<int64_t>& out_strides = {});

// A typed run (--type with --out-type, --alpha, --beta; views of tools/views.hpp): every sampled
// output element equals the value rule (docs/api.md) applied to its input element, and to the
// zero bytes the output held before the run.
CheckResult check_typed(const Case& c, const Settings& s, const CaseViews& v,
                        const unsigned char* in, const unsigned char* out, int64_t max_samples,
                        uint64_t seed);

}  // namespace xpose_tool
