// Typed cells (cells_typed.cu: the dense conversions of narrow_typed.cu, fp8, f16 and bf16 to
// those or f32, scaled or not, where the first k >= 2 input dims stay the output's first) against
// the naive reference (typed_check.hpp): random problems with cells of 2-4 dims, input dim 0
// first among them or not, for every type pair, both pointers at every offset their element
// sizes allow within 16 bytes, the heuristic plan (both kinds must take cells for every pair, and
// never rows: typed rows keep the narrow kernel); every input value bit for bit; larger problems.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cuda/host_plan.hpp"
#include "gpu_util.hpp"
#include "typed_check.hpp"

namespace {

using namespace xpose_test;
using xpose::detail::KernelSpec;

const xpose_type_t kIns[] = {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F16,
                             XPOSE_TYPE_BF16};
const xpose_type_t kOuts[] = {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F16,
                              XPOSE_TYPE_BF16, XPOSE_TYPE_F32};

// A problem of the class: cells of 2-4 dims (a closed prefix in another order; `fvi`: with input
// dim 0 first), outer dims shuffled; ~150 K elements at least (smaller ones take the general
// kernel: analytic.cpp direct_fits), up to ~max_volume.
TypedCase cell_case(xpose_type_t a, xpose_type_t b, bool fvi, int64_t max_volume,
                    std::mt19937_64& rng) {
  TypedCase c;
  c.in_type = a, c.out_type = b, c.elem_size = type_size(a);
  c.alpha[0] = a == b || rng() % 2 ? (rng() % 2 ? -1.5 : 0.75) : 1;
  const int k = fvi ? 3 + static_cast<int>(rng() % 2) : 2 + static_cast<int>(rng() % 3);
  const int rank = k + 2 + static_cast<int>(rng() % 2);
  int64_t volume = 1;
  for (int d = 0; d < rank; ++d) {
    int64_t e = d < k ? 2 + static_cast<int64_t>(rng() % (k == 2 ? 60 : 12))
                      : 1 + static_cast<int64_t>(rng() % 40);
    if (d >= k) e = std::max<int64_t>(1, std::min(e, max_volume / volume));
    if (d == rank - 1) e = std::max(e, (150000 + volume - 1) / volume);
    c.extents.push_back(e);
    volume *= e;
  }
  c.perm.resize(rank);
  for (int d = 0; d < rank; ++d) c.perm[d] = d;
  const auto first = c.perm.begin() + (fvi ? 1 : 0);
  do std::shuffle(first, c.perm.begin() + k, rng);
  while (std::is_sorted(first, c.perm.begin() + k));
  std::shuffle(c.perm.begin() + k, c.perm.end(), rng);
  return c;
}

TEST(TypedCellsGpu, EveryPairAnyOffset) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("TypedCellsGpu.EveryPairAnyOffset"));
  int runs = 0, cells = 0, fvi = 0;
  for (const xpose_type_t a : kIns)
    for (const xpose_type_t b : kOuts) {
      int met[2] = {};
      for (int n = 0; n < 24 && (n < 8 || met[0] == 0 || met[1] == 0); ++n) {
        const TypedCase c = cell_case(a, b, n % 2 == 1, n < 20 ? 300000 : 2000000, rng);
        std::string desc;
        KernelSpec spec;
        if (!check_at_any_offset(c, nullptr, rng, &desc, &spec)) continue;
        ++runs;
        if (HasFailure()) return;
        if (!spec.choice.cells) continue;
        EXPECT_NE(desc.find(" cells"), std::string::npos) << desc;
        EXPECT_EQ(spec.cells.rows, 0) << desc;
        ++met[n % 2];
      }
      EXPECT_GT(met[0], 0) << case_text(cell_case(a, b, false, 1, rng));
      EXPECT_GT(met[1], 0) << case_text(cell_case(a, b, true, 1, rng));
      cells += met[0], fvi += met[1];
    }
  std::printf("%d runs: %d by typed cells, %d of them with input dim 0 first\n", runs,
              cells + fvi, fvi);
}

// Every input value (each 2-byte value 4 times, each 1-byte value 1024 times), NaNs, infinities,
// subnormals and overflow included, through cells of two shapes to every output type, scaled and
// not, against the reference bit for bit.
TEST(TypedCellsGpu, EveryInputValue) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("TypedCellsGpu.EveryInputValue"));
  struct Shape {
    std::vector<int64_t> extents;
    std::vector<int> perm;
  };
  // 262144 elements (the general kernel takes 131072 and fewer): cells of 16 x 8, and of 8 x 8 x 8
  // with input dim 0 first.
  const Shape shapes[] = {{{16, 8, 64, 32}, {1, 0, 3, 2}}, {{8, 8, 8, 512}, {0, 2, 1, 3}}};
  int runs = 0;
  for (const xpose_type_t a : kIns)
    for (const xpose_type_t b : kOuts)
      for (const double alpha : {1.0, -1.5})
        for (const Shape& s : shapes) {
          if (a == b && alpha == 1) continue;  // plain
          TypedCase c;
          c.extents = s.extents, c.perm = s.perm;
          c.in_type = a, c.out_type = b, c.elem_size = type_size(a);
          c.alpha[0] = alpha;
          std::vector<uint8_t> in(262144 * c.elem_size);
          for (size_t i = 0; i < 262144; ++i)
            for (size_t k = 0; k < c.elem_size; ++k)
              in[i * c.elem_size + k] = static_cast<uint8_t>((i & 0xffff) >> (8 * k));
          std::string desc;
          ASSERT_EQ(check_typed(c, nullptr, 0, rng, &desc, &in), XPOSE_SUCCESS) << case_text(c);
          KernelSpec spec;
          ASSERT_TRUE(first_view_spec(c, nullptr, &spec)) << case_text(c);
          EXPECT_TRUE(spec.choice.cells && spec.cells.rows == 0) << desc;
          ++runs;
          if (HasFailure()) return;
        }
  std::printf("%d runs of every input value\n", runs);
}

// Larger problems (~2-8 M elements), heuristic plans, pointers on and off 16 bytes.
TEST(TypedCellsGpu, LargerProblems) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("TypedCellsGpu.LargerProblems"));
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int>>> shapes = {
      {{17, 17, 17, 17, 17}, {0, 4, 1, 3, 2}},   // rows: the narrow kernel
      {{19, 11, 16, 5, 9, 8, 5, 4}, {0, 2, 1, 6, 3, 7, 5, 4}},  // cells of 19 x 11 x 16
      {{16, 126, 1500}, {1, 0, 2}},              // cells of 16 x 126
      {{7, 51, 8, 10, 23, 32}, {1, 0, 5, 4, 3, 2}}};
  const std::pair<xpose_type_t, xpose_type_t> pairs[] = {
      {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3}, {XPOSE_TYPE_F16, XPOSE_TYPE_F32},
      {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_BF16}, {XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F32}};
  int cells = 0;
  for (const auto& [a, b] : pairs)
    for (const auto& [ext, perm] : shapes) {
      TypedCase c;
      c.extents = ext, c.perm = perm;
      c.in_type = a, c.out_type = b, c.elem_size = type_size(a);
      std::string desc;
      const size_t shift = rng() % 2 ? 0 : type_size(a) * (1 + rng() % 3);
      EXPECT_EQ(check_typed(c, nullptr, shift, rng, &desc, nullptr, false, 0), XPOSE_SUCCESS);
      cells += desc.substr(0, desc.find('\n')).find(" cells") != std::string::npos;
      if (HasFailure()) return;
    }
  std::printf("%d of %zu plans in typed cells\n", cells, std::size(pairs) * shapes.size());
  EXPECT_EQ(cells, 12);
}

}  // namespace
