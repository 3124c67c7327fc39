// The typed schema's element operations compiled for AVX-512 (F, BW, VL, DQ), used when the CPU
// has them. AVX-512F implies FMA in GCC, so contraction is switched off here: the scaling rule
// rounds each product and sum separately. No trapping math: the conversions' selects over
// float operations stay branch-free.
#include "cpu/typed_ops.hpp"

#if defined(__x86_64__) && !defined(__clang__)
// GCC 12 flags the deliberately undefined source operand inside its own AVX-512 intrinsics
// (typed_fast_avx512.hpp) as uninitialized; the warning is about the header, not this code.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off", "no-trapping-math")
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq")
#define XPOSE_TYPED_OPS_NAME typed_row_op_avx512_impl
#define XPOSE_TYPED_FAST "cpu/typed_fast_avx512.hpp"
#include "cpu/typed_ops_body.hpp"
#pragma GCC pop_options

namespace xpose::detail::cpu {
RowOp typed_row_op_avx512(const OpKey& key) {
  const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  return has ? typed_row_op_avx512_impl(key) : nullptr;
}
}  // namespace xpose::detail::cpu
#else
namespace xpose::detail::cpu {
RowOp typed_row_op_avx512(const OpKey&) { return nullptr; }
}  // namespace xpose::detail::cpu
#endif
