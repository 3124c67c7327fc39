// The typed schema's element operations for baseline x86-64 (and any other target): the
// fallback of typed_ops_avx2.cpp / typed_ops_avx512.cpp.
#include "cpu/typed_ops.hpp"

#define XPOSE_TYPED_OPS_NAME typed_row_op_base
#include "cpu/typed_ops_body.hpp"
