// Property tests of the layout algebra (src/core/layout.hpp) and of make_problem's normalization:
// "for every index i, f(i) == g(i)" on many random cases.
#include <gtest/gtest.h>

#include <numeric>

#include "core/layout.hpp"
#include "core/problem.hpp"
#include "reference.hpp"

namespace {

using namespace xpose::detail;
using xpose_test::Rng;

// Offset of linear index i computed from explicit coordinates, independently of Layout::operator().
int64_t offset_by_coordinates(const Layout& l, int64_t i) {
  std::vector<int64_t> coord(l.rank);
  for (int k = 0; k < l.rank; ++k) {
    coord[k] = i % l.extent[k];
    i /= l.extent[k];
  }
  int64_t off = 0;
  for (int k = 0; k < l.rank; ++k) off += coord[k] * l.stride[k];
  return off;
}

// Random extents of `rank` in 1..max_extent with the volume kept at most `max_volume`.
std::vector<int64_t> random_extents(Rng& rng, int rank, int64_t max_extent, int64_t max_volume) {
  std::vector<int64_t> e(rank, 1);
  int64_t v = 1;
  for (int k = 0; k < rank; ++k) {
    const int64_t x = 1 + static_cast<int64_t>(rng.below(max_extent));
    if (v * x <= max_volume) {
      e[k] = x;
      v *= x;
    }
  }
  return e;
}

// A random layout: random extents (1 included), strides either arbitrary or compact-then-permuted
// (the gather layouts transpositions make, where coalescing has something to merge).
Layout random_layout(Rng& rng) {
  const int rank = static_cast<int>(rng.below(9));
  const auto e = random_extents(rng, rank, 6, 4096);
  Layout l = make_compact(rank, e.data());
  if (rng.below(3) == 0) {
    for (int k = 0; k < rank; ++k) l.stride[k] = static_cast<int64_t>(rng.below(50));
  } else {
    const auto p = rng.permutation(rank);
    l = permute(l, p.data());
  }
  return l;
}

TEST(Layout, CompactStridesAndSize) {
  const int64_t e[4] = {3, 1, 4, 5};
  const Layout l = make_compact(4, e);
  EXPECT_EQ(l.size(), 60);
  EXPECT_EQ(to_string(l), "(3,1,4,5):(1,3,3,12)");
  for (int64_t i = 0; i < l.size(); ++i) EXPECT_EQ(l(i), i);
  EXPECT_EQ(make_compact(0, nullptr).size(), 1);
  EXPECT_EQ(to_string(make_compact(0, nullptr)), "():()");
}

TEST(Layout, OperatorMatchesCoordinates) {
  Rng rng(xpose_test::test_seed());
  for (int t = 0; t < 300; ++t) {
    const Layout l = random_layout(rng);
    for (int64_t i = 0; i < l.size(); ++i)
      ASSERT_EQ(l(i), offset_by_coordinates(l, i)) << to_string(l) << " i " << i;
  }
}

TEST(Layout, CoalesceKeepsTheImageOfEveryIndex) {
  Rng rng(xpose_test::test_seed() ^ 1);
  for (int t = 0; t < 1000; ++t) {
    const Layout l = random_layout(rng);
    const Layout c = coalesce(l);
    ASSERT_EQ(c.size(), l.size()) << to_string(l) << " -> " << to_string(c);
    ASSERT_LE(c.rank, l.rank);
    for (int64_t i = 0; i < l.size(); ++i)
      ASSERT_EQ(c(i), l(i)) << to_string(l) << " -> " << to_string(c) << " at " << i << " "
                            << xpose_test::seed_note();
    // Fewest modes: no extent 1, no two neighbours that could still merge.
    for (int k = 0; k < c.rank; ++k) {
      EXPECT_NE(c.extent[k], 1) << to_string(c);
      if (k + 1 < c.rank) EXPECT_NE(c.stride[k + 1], c.stride[k] * c.extent[k]) << to_string(c);
    }
    EXPECT_EQ(coalesce(c), c) << "coalesce is idempotent: " << to_string(c);
  }
}

TEST(Layout, CoalesceExamples) {
  const int64_t e[3] = {4, 5, 6};
  EXPECT_EQ(to_string(coalesce(make_compact(3, e))), "(120):(1)");
  const int p[3] = {2, 0, 1};
  EXPECT_EQ(to_string(coalesce(permute(make_compact(3, e), p))), "(6,20):(20,1)");
  const int64_t ones[3] = {1, 1, 1};
  EXPECT_EQ(coalesce(make_compact(3, ones)).rank, 0);
}

TEST(Layout, PermuteInverseComposeLaws) {
  Rng rng(xpose_test::test_seed() ^ 2);
  for (int t = 0; t < 500; ++t) {
    const Layout l = random_layout(rng);
    const int r = l.rank;
    const auto a = rng.permutation(r), b = rng.permutation(r);
    const Perm ia = inverse(r, a.data());
    // Mode i of permute(l, a) is mode a[i] of l.
    const Layout pa = permute(l, a.data());
    for (int i = 0; i < r; ++i) {
      EXPECT_EQ(pa.extent[i], l.extent[a[i]]);
      EXPECT_EQ(pa.stride[i], l.stride[a[i]]);
    }
    // Permuting by a then b is permuting by compose(a, b).
    const Perm ab = compose(r, a.data(), b.data());
    EXPECT_EQ(permute(pa, b.data()), permute(l, ab.data()));
    // inverse undoes: both compositions are the identity, and permuting back restores l.
    const Perm left = compose(r, a.data(), ia.data()), right = compose(r, ia.data(), a.data());
    for (int i = 0; i < r; ++i) {
      EXPECT_EQ(left[i], i);
      EXPECT_EQ(right[i], i);
    }
    EXPECT_EQ(permute(pa, ia.data()), l);
    const Perm iia = inverse(r, ia.data());
    for (int i = 0; i < r; ++i) EXPECT_EQ(iia[i], a[i]);
    // A permutation of modes permutes the coordinate space, not the set of offsets.
    std::vector<int64_t> offsets_l, offsets_pa;
    for (int64_t i = 0; i < l.size(); ++i) {
      offsets_l.push_back(l(i));
      offsets_pa.push_back(pa(i));
    }
    std::sort(offsets_l.begin(), offsets_l.end());
    std::sort(offsets_pa.begin(), offsets_pa.end());
    EXPECT_EQ(offsets_l, offsets_pa);
  }
}

// The user's gather map, from tests/reference.hpp (no library code), must equal the normalized
// problem's gather layout at every output index, in both layouts.
TEST(Normalization, GatherLayoutEqualsTheUsersAtEveryIndex) {
  Rng rng(xpose_test::test_seed() ^ 3);
  for (int t = 0; t < 1500; ++t) {
    const int rank = static_cast<int>(rng.below(9));
    const auto e = random_extents(rng, rank, 7, 20000);
    const auto perm = rng.permutation(rank);
    const size_t elem = size_t{1} << rng.below(5);
    const xpose_layout_t layout = rng.below(2) ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
    Problem p;
    ASSERT_EQ(make_problem(rank, e.data(), perm.data(), elem, layout, &p), XPOSE_SUCCESS);
    const std::string what = "extents " + xpose_test::str(e) + " perm " + xpose_test::str(perm) +
                             (layout ? " row-major" : " col-major") + " -> " + p.to_string();
    const int64_t volume = xpose_test::volume_of(e);
    ASSERT_EQ(p.volume, volume) << what;
    ASSERT_EQ(p.elem_size, elem) << what;
    const xpose_test::ReferenceMap user(e, perm, layout);
    const Layout g = p.gather();
    ASSERT_EQ(g.size(), volume) << what;
    for (int64_t j = 0; j < volume; ++j)
      ASSERT_EQ(g(j), user.source(j)) << what << " at output index " << j;
  }
}

// The normalized form is canonical: a valid permutation, no extent 1, nothing left to fuse,
// and a plain copy exactly when the user's request is one.
TEST(Normalization, IsFullyReduced) {
  Rng rng(xpose_test::test_seed() ^ 4);
  for (int t = 0; t < 1500; ++t) {
    const int rank = static_cast<int>(rng.below(9));
    const auto e = random_extents(rng, rank, 5, 20000);
    const auto perm = rng.permutation(rank);
    const xpose_layout_t layout = rng.below(2) ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
    Problem p;
    ASSERT_EQ(make_problem(rank, e.data(), perm.data(), 4, layout, &p), XPOSE_SUCCESS);
    const std::string what = xpose_test::str(e) + " " + xpose_test::str(perm) + " -> " + p.to_string();
    std::vector<int> sorted(p.perm.begin(), p.perm.begin() + p.rank);
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < p.rank; ++i) {
      EXPECT_EQ(sorted[i], i) << what;
      EXPECT_GT(p.extent[i], 1) << what;
      if (i + 1 < p.rank) EXPECT_NE(p.perm[i + 1], p.perm[i] + 1) << "unfused: " << what;
    }
    // Output strides: the output offset of each input dimension's unit step.
    const Extents os = p.output_strides();
    int64_t s = 1;
    for (int i = 0; i < p.rank; ++i) {
      EXPECT_EQ(os[p.perm[i]], s) << what;
      s *= p.out_extent(i);
    }
    // Moving only extent-1 dimensions is a copy.
    std::vector<int> kept;
    for (int k : perm)
      if (e[k] > 1) kept.push_back(k);
    EXPECT_EQ(p.is_copy(), std::is_sorted(kept.begin(), kept.end())) << what;
  }
}

TEST(Normalization, Examples) {
  Problem p;
  const int64_t e[4] = {4, 1, 5, 6};
  const int perm[4] = {2, 0, 1, 3};
  ASSERT_EQ(make_problem(4, e, perm, 8, XPOSE_COL_MAJOR, &p), XPOSE_SUCCESS);
  EXPECT_EQ(p.to_string(), "extents (4,5,6) perm (1,0,2) 8 B");
  // Row-major {2,3,4} with axes (2,0,1): out[k][i][j] = in[i][j][k]; i and j stay adjacent, so
  // it is the transpose of a matrix with a stride-1 extent 4 and 6 columns.
  const int64_t r[3] = {2, 3, 4};
  const int axes[3] = {2, 0, 1};
  ASSERT_EQ(make_problem(3, r, axes, 4, XPOSE_ROW_MAJOR, &p), XPOSE_SUCCESS);
  EXPECT_EQ(p.to_string(), "extents (4,6) perm (1,0) 4 B");
  const int64_t d[2] = {7, 9};
  const int id[2] = {0, 1};
  ASSERT_EQ(make_problem(2, d, id, 2, XPOSE_COL_MAJOR, &p), XPOSE_SUCCESS);
  EXPECT_TRUE(p.is_copy());
  EXPECT_EQ(p.volume, 63);
}

}  // namespace
