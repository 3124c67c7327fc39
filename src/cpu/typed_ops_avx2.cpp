// The typed schema's element operations compiled for AVX2 with F16C (every AVX2 CPU has it),
// used when the CPU has both, with the hand-written rows of typed_fast_avx2.hpp. Target pragma
// without FMA (the scaling rule rounds products and sums separately) and no trapping math (the
// conversions' selects over float operations stay branch-free).
#include "cpu/typed_ops.hpp"

#if defined(__x86_64__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off", "no-trapping-math")
#pragma GCC target("avx2,f16c")
#define XPOSE_TYPED_OPS_NAME typed_row_op_avx2_impl
#define XPOSE_TYPED_FAST "cpu/typed_fast_avx2.hpp"
#include "cpu/typed_ops_body.hpp"
#pragma GCC pop_options

namespace xpose::detail::cpu {
RowOp typed_row_op_avx2(const OpKey& key) {
  const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return has ? typed_row_op_avx2_impl(key) : nullptr;
}
}  // namespace xpose::detail::cpu
#else
namespace xpose::detail::cpu {
RowOp typed_row_op_avx2(const OpKey&) { return nullptr; }
}  // namespace xpose::detail::cpu
#endif
