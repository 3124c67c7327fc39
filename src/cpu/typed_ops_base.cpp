// The typed schema's element operations for baseline x86-64 (and any other target): the
// fallback of typed_ops_avx2.cpp / typed_ops_avx512.cpp. No trapping math: the conversions'
// selects over float operations stay branch-free (nothing here reads the FP exception flags).
#include "cpu/typed_ops.hpp"

#pragma GCC optimize("no-trapping-math")

#define XPOSE_TYPED_OPS_NAME typed_row_op_base
#include "cpu/typed_ops_body.hpp"
