// Rows for typed problems (conversions, alpha / beta; rows_typed.cu) whose dim 0 stays first and
// is contiguous in both tensors, against the naive reference (typed_check.hpp): every type pair,
// rows of 2-3000 elements, padded row dims of either sign, both pointers at every element
// offset within 16 bytes, plain conversions of normalized rank 1; and which problems the planner
// gives rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../fake_device.hpp"
#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cuda/host_plan.hpp"
#include "gpu_util.hpp"
#include "typed_check.hpp"

namespace {

using namespace xpose_test;

// A random problem whose dim 0 stays first: rank 1-4, dim 0 of 2..max_row elements, row dims
// of 2-12 (at most 200000 elements); strides padded on both sides (dim 0 contiguous), row dims
// negated with probability 0.3 (no broadcast: a stride-0 dim would lead the normalized input);
// scalars as random_case's.
TypedCase fvi_case(xpose_type_t in, xpose_type_t out, size_t elem_size, int64_t max_row,
                   std::mt19937_64& rng) {
  TypedCase c = random_case(in, out, elem_size, 2, rng);
  c.layout = XPOSE_COL_MAJOR;
  const int rank = 1 + static_cast<int>(rng() % 4);
  c.extents.assign(1, 2 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_row - 1)));
  int64_t volume = c.extents[0];
  for (int k = 1; k < rank; ++k) {
    const int64_t e = 2 + static_cast<int64_t>(rng() % 11);
    if (volume * e > 200000) break;
    c.extents.push_back(e);
    volume *= e;
  }
  const int rank_kept = static_cast<int>(c.extents.size());
  c.perm.resize(rank_kept);
  for (int k = 0; k < rank_kept; ++k) c.perm[k] = k;
  std::shuffle(c.perm.begin() + 1, c.perm.end(), rng);
  c.in_strides.clear();
  c.out_strides.clear();
  const auto padded = [&](const std::vector<int64_t>& ext) {
    std::vector<int64_t> s = random_strides(c, ext, rng, 0, 0, true);
    for (size_t k = 1; k < s.size(); ++k)
      if (rng() % 10 < 3) s[k] = -s[k];
    return s;
  };
  const unsigned strides = static_cast<unsigned>(rng() % 4);  // none, in, out, both
  if (strides & 1) c.in_strides = padded(c.extents);
  if (strides & 2) c.out_strides = padded(c.out_extents());
  return c;
}

TEST(RowsGpu, EveryTypePairAtEveryOffset) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("RowsGpu.EveryTypePairAtEveryOffset"));
  struct Pair { xpose_type_t in, out; size_t es; };
  std::vector<Pair> pairs;
  for (auto a : kFloating)
    for (auto b : kFloating) pairs.push_back({a, b, 0});
  for (auto a : kComplex)
    for (auto b : kComplex) pairs.push_back({a, b, 0});
  for (auto a : kIntegers) pairs.push_back({a, a, 0});
  int rows = 0, cases = 0;
  for (const Pair& pr : pairs)
    for (int n = 0; n < 6; ++n) {
      const TypedCase c = fvi_case(pr.in, pr.out, pr.es, n % 2 ? 3000 : 150, rng);
      const size_t ie = c.in_elem(), oe = c.out_elem();
      const size_t shift = ie * (rng() % std::max<size_t>(1, 16 / ie));
      const size_t out_shift = oe * (rng() % std::max<size_t>(1, 16 / oe));
      std::string desc;
      EXPECT_EQ(check_typed(c, nullptr, shift, rng, &desc, nullptr, false, out_shift),
                XPOSE_SUCCESS);
      rows += desc.substr(0, desc.find('\n')).find("rows") != std::string::npos;
      ++cases;
      // Rows forced on every such problem (short rows too) that stays typed: with no conversion,
      // alpha 1 and beta 0 it is plain (strided plain problems take tiles, dense ones rows.cu).
      const bool plain = c.in_type == c.out_type && c.alpha[0] == 1 && c.alpha[1] == 0 &&
                         c.beta[0] == 0 && c.beta[1] == 0;
      if (HasFailure()) return;
      if (plain) continue;
      EXPECT_EQ(check_typed(c, "rows", shift, rng, &desc, nullptr, false, out_shift),
                XPOSE_SUCCESS);
      EXPECT_NE(desc.find("rows"), std::string::npos) << desc;
      if (HasFailure()) return;
    }
  std::printf("%d of %d problems planned as rows\n", rows, cases);
  EXPECT_GT(rows, cases / 8);  // rank 1 (a quarter of them) at least
}

// Conversions and scaled copies of normalized rank 1 (identity permutations, dense) take rows,
// not the general kernel, at sizes around the groups and chunks of rows_typed.cu.
TEST(RowsGpu, PlainConversions) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("RowsGpu.PlainConversions"));
  const std::pair<xpose_type_t, xpose_type_t> pairs[] = {
      {XPOSE_TYPE_F32, XPOSE_TYPE_BF16},     {XPOSE_TYPE_F16, XPOSE_TYPE_F32},
      {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3}, {XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F64},
      {XPOSE_TYPE_F64, XPOSE_TYPE_F8_E4M3},  {XPOSE_TYPE_C64, XPOSE_TYPE_C32},
      {XPOSE_TYPE_F32, XPOSE_TYPE_F32}};
  for (const auto& [a, b] : pairs)
    for (int64_t n : {1, 7, 16, 17, 4095, 4097, 70001}) {
      TypedCase c;
      c.extents = {n, 3};
      c.perm = {0, 1};
      c.in_type = a, c.out_type = b, c.elem_size = type_size(a);
      c.alpha[0] = n % 2 ? 1 : -1.5;
      c.beta[0] = a == b || n == 17 ? 0.5 : 0;
      const size_t shift = c.in_elem() * (rng() % std::max<size_t>(1, 16 / c.in_elem()));
      std::string desc;
      EXPECT_EQ(check_typed(c, nullptr, shift, rng, &desc), XPOSE_SUCCESS);
      EXPECT_EQ(desc.substr(0, desc.find('\n')).find("rows"), 0u) << case_text(c) << "\n" << desc;
      if (HasFailure()) return;
    }
}

// The planner's rule (no device: the fake H100): typed problems over 1 MB (smaller ones of rank
// >= 2 take the direct kernel) whose dim 0 stays first take rows from 1 KB of input row (and at
// rank 1), tiles below, and keep the general kernel as their view for pointers off the element
// sizes; strided plain problems keep their tiles.
TEST(RowsPlanner, NonPlainRowsByRule) {
  using namespace xpose::detail;
  struct Kind {
    xpose_type_t in, out;
    std::vector<int64_t> ext, out_strides;
    std::vector<int> perm;
    bool rows;
  };
  const Kind kinds[] = {
      {XPOSE_TYPE_F32, XPOSE_TYPE_BF16, {1000, 30, 20}, {}, {0, 2, 1}, true},
      {XPOSE_TYPE_F32, XPOSE_TYPE_BF16, {64, 30, 20}, {}, {0, 2, 1}, false},
      {XPOSE_TYPE_F32, XPOSE_TYPE_BF16, {200, 90, 80}, {}, {0, 2, 1}, false},
      {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3, {900, 60, 40}, {}, {0, 2, 1}, true},
      {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3, {300, 60, 80}, {}, {0, 2, 1}, false},
      {XPOSE_TYPE_F16, XPOSE_TYPE_F32, {12345}, {}, {0}, true},
      {XPOSE_TYPE_F32, XPOSE_TYPE_F32, {40, 50}, {}, {0, 1}, true},  // beta: rank 1
      {XPOSE_TYPE_BYTES, XPOSE_TYPE_BYTES, {600, 900}, {1, 605}, {0, 1}, false},
      {XPOSE_TYPE_BYTES, XPOSE_TYPE_BYTES, {600, 900}, {1, 905}, {1, 0}, false}};
  for (const Kind& k : kinds) {
    TypedCase c;
    c.extents = k.ext, c.perm = k.perm, c.in_type = k.in, c.out_type = k.out;
    c.elem_size = k.in == XPOSE_TYPE_BYTES ? 4 : type_size(k.in);
    c.out_strides = k.out_strides;
    if (k.in == k.out && k.in != XPOSE_TYPE_BYTES) c.beta[0] = 1;
    Problem p;
    ASSERT_EQ(normalize(c, &p), XPOSE_SUCCESS);
    BackendPlanPtr plan;
    ASSERT_EQ(plan_on_fake_h100(p, &plan), XPOSE_SUCCESS) << case_text(c);
    const std::vector<PlanView> views = cuda_plan_views(*plan);
    const bool rows = is_rows(views[0].spec.choice.schema);
    EXPECT_EQ(rows, k.rows) << case_text(c) << "\n" << plan->describe();
    if (rows && p.typed()) {
      EXPECT_EQ(views[0].align, c.in_elem());
      EXPECT_EQ(views[0].out_align, c.out_elem());
      if (c.in_elem() > 1 || c.out_elem() > 1)
        EXPECT_TRUE(views.back().spec.choice.general) << plan->describe();
    }
  }
}

}  // namespace
