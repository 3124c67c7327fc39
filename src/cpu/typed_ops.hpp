// Element operations of the typed CPU schema (typed_plan.cpp): a row of n elements read at one
// byte step and written at another, each converted, scaled or accumulated by the rule of
// src/core/convert.hpp. Included by one translation unit per instruction set (typed_ops*.cpp,
// under that ISA's target pragma, through typed_ops_body.hpp), each of which instantiates every
// operation: the conversion
// code is branch-free so that the contiguous loops vectorize at that ISA's width.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/convert.hpp"
#include "xpose/xpose.h"

namespace xpose::detail::cpu {

// The scalars of a plan in both compute types (alpha/beta rounded once from the user's doubles).
struct Scalars {
  float af[2] = {1, 0}, bf[2] = {0, 0};
  double ad[2] = {1, 0}, bd[2] = {0, 0};
};

// Applies the plan's element operation to n elements: element e is read at src + e * src_step
// and written (and, with beta, first read) at dst + e * dst_step; steps in bytes, any sign.
using RowOp = void (*)(const char* src, int64_t src_step, char* dst, int64_t dst_step, int64_t n,
                       const Scalars& s);

// What an operation does: its two types (BYTES: opaque `elem_size`-byte elements), whether alpha
// multiplies and whether beta reads the output.
struct OpKey {
  xpose_type_t in = XPOSE_TYPE_BYTES, out = XPOSE_TYPE_BYTES;
  size_t elem_size = 0;  // input bytes
  bool alpha = false, beta = false;
};

// The operation of `key` compiled for baseline x86-64 (SSE2) and for AVX2 / AVX-512 (nullptr
// when this CPU or build lacks the ISA). Every key make_problem_ex admits has one.
RowOp typed_row_op_base(const OpKey& key);
RowOp typed_row_op_avx2(const OpKey& key);
RowOp typed_row_op_avx512(const OpKey& key);

}  // namespace xpose::detail::cpu
