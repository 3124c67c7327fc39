// xpose_transpose_inplace on the CPU backend: in-place results equal out-of-place ones
// (xpose_transpose) for every element size, odd and even orders, both layouts, the 3D
// involutions and forced schemes; unsupported and bad requests fail without touching the data.
#include <gtest/gtest.h>

#include <cstring>

#include <string>
#include <vector>

#include "inplace/inplace.hpp"
#include "reference.hpp"

namespace {

using xpose::detail::InplaceForce;
using xpose_test::cpu_options;
using xpose_test::GuardedBuffer;
using xpose_test::cpu_options;
using xpose_test::str;

struct InplaceCase {
  std::vector<int64_t> extents;
  std::vector<int> perm;
  size_t elem = 4;
  xpose_layout_t layout = XPOSE_COL_MAJOR;
  InplaceForce force{};
  size_t misalign = 0;
  int threads = 0;

  std::string what() const {
    return "extents " + str(extents) + " perm " + str(perm) + " " + std::to_string(elem) +
           " B" + (layout == XPOSE_ROW_MAJOR ? " row-major" : "") + " scheme " +
           std::to_string(force.scheme) + " w " + std::to_string(force.w) + " region " +
           std::to_string(force.region) + " misalign " + std::to_string(misalign) + " threads " +
           std::to_string(threads) + " " + xpose_test::seed_note();
  }
};

// Random data, transposed out of place by xpose_transpose and in place by transpose_inplace;
// the two must match byte for byte and the guards must hold.
void expect_inplace_matches(const InplaceCase& c, uint64_t seed) {
  SCOPED_TRACE(c.what());
  const int rank = static_cast<int>(c.extents.size());
  const size_t bytes = static_cast<size_t>(xpose_test::volume_of(c.extents)) * c.elem;
  GuardedBuffer data(bytes, c.misalign), want(bytes);
  xpose_test::fill_random(data.data(), bytes, seed);
  const xpose_options_t o = cpu_options(c.layout, c.threads);
  ASSERT_EQ(xpose_transpose(rank, c.extents.data(), c.perm.data(), c.elem, data.data(),
                            want.data(), &o, nullptr),
            XPOSE_SUCCESS)
      << xpose_last_error();
  ASSERT_EQ(xpose::detail::transpose_inplace(rank, c.extents.data(), c.perm.data(), c.elem,
                                             data.data(), &o, nullptr, &c.force),
            XPOSE_SUCCESS)
      << xpose_last_error();
  EXPECT_EQ(xpose_test::first_mismatch(data.data(), want.data(),
                                       xpose_test::volume_of(c.extents), c.elem),
            -1);
  EXPECT_TRUE(data.guards_intact());
}

TEST(InplaceCpu, SquareEveryElementSizeAndLayout) {
  const uint64_t seed = xpose_test::test_seed();
  for (size_t elem : {1, 2, 4, 8, 16})
    for (int64_t n : {2, 3, 7, 16, 31, 32, 33, 64, 65, 100, 129})
      for (auto layout : {XPOSE_COL_MAJOR, XPOSE_ROW_MAJOR})
        expect_inplace_matches({{n, n}, {1, 0}, elem, layout}, seed + n);
}

TEST(InplaceCpu, RandomSquaresAndMisalignedData) {
  xpose_test::Rng rng(xpose_test::test_seed() + 11);
  const size_t sizes[] = {1, 2, 4, 8, 16};
  for (int i = 0; i < 40; ++i) {
    InplaceCase c;
    const int64_t n = 1 + static_cast<int64_t>(rng.below(300));
    c.extents = {n, n};
    c.perm = {1, 0};
    c.elem = sizes[rng.below(5)];
    c.layout = rng.below(2) ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
    c.misalign = rng.below(static_cast<uint64_t>(c.elem));
    c.threads = static_cast<int>(rng.below(4));
    expect_inplace_matches(c, rng.next());
  }
}

TEST(InplaceCpu, OrderOneAndIdentityAreNoOps) {
  const uint64_t seed = xpose_test::test_seed();
  expect_inplace_matches({{1, 1}, {1, 0}, 8}, seed);
  expect_inplace_matches({{5, 7, 3}, {0, 1, 2}, 4}, seed);
  expect_inplace_matches({{5, 1, 1}, {2, 1, 0}, 2}, seed);  // normalizes to a copy
}

TEST(InplaceCpu, ThreeDimensionalInvolutions) {
  const uint64_t seed = xpose_test::test_seed() + 3;
  for (size_t elem : {1, 4, 8, 16})
    for (auto layout : {XPOSE_COL_MAJOR, XPOSE_ROW_MAJOR}) {
      expect_inplace_matches({{37, 37, 3}, {1, 0, 2}, elem, layout}, seed);   // T_yxz
      expect_inplace_matches({{64, 64, 2}, {1, 0, 2}, elem, layout}, seed);
      expect_inplace_matches({{45, 3, 45}, {2, 1, 0}, elem, layout}, seed);   // T_zyx
      expect_inplace_matches({{33, 2, 33}, {2, 1, 0}, elem, layout}, seed);
      expect_inplace_matches({{4, 29, 29}, {0, 2, 1}, elem, layout}, seed);   // folded words
      expect_inplace_matches({{3, 29, 29}, {0, 2, 1}, elem, layout}, seed);   // chunks
      expect_inplace_matches({{5, 17, 3, 17}, {0, 3, 2, 1}, elem, layout}, seed);
      expect_inplace_matches({{6, 23, 23, 4}, {0, 2, 1, 3}, elem, layout}, seed);
    }
}

TEST(InplaceCpu, EveryForcedScheme) {
  const uint64_t seed = xpose_test::test_seed() + 5;
  std::vector<InplaceForce> forces = {{0, 0, 0}, {1, 0, 0}, {3, 0, 0}, {4, 0, 1}, {4, 0, 3},
                                      {4, 0, 64}};
  for (int64_t w : {1, 2, 3, 8, 1000}) forces.push_back({2, w, 0});
  for (const InplaceForce& f : forces)
    for (size_t elem : {2, 8}) {
      InplaceCase sq{{203, 203}, {1, 0}, elem};
      sq.force = f;
      expect_inplace_matches(sq, seed);
      InplaceCase yxz{{70, 70, 3}, {1, 0, 2}, elem};
      yxz.force = f;
      expect_inplace_matches(yxz, seed);
      InplaceCase zyx{{70, 2, 70}, {2, 1, 0}, elem};
      zyx.force = f;
      expect_inplace_matches(zyx, seed);
      InplaceCase chunks{{3, 41, 41}, {0, 2, 1}, elem};
      chunks.force = f;
      expect_inplace_matches(chunks, seed);
    }
}

// A request that cannot be in place (or is not supported) changes nothing.
void expect_rejected(const std::vector<int64_t>& ext, const std::vector<int>& perm, size_t elem,
                     xpose_status_t want, const std::string& message_part,
                     const xpose_options_t* options = nullptr, bool null_data = false) {
  SCOPED_TRACE("extents " + str(ext) + " perm " + str(perm) + " elem " + std::to_string(elem));
  const size_t bytes = 4096;
  GuardedBuffer data(bytes);
  xpose_options_t o = cpu_options(XPOSE_COL_MAJOR);
  EXPECT_EQ(xpose_transpose_inplace(static_cast<int>(ext.size()), ext.data(), perm.data(), elem,
                                    null_data ? nullptr : data.data(), options ? options : &o,
                                    nullptr),
            want);
  EXPECT_NE(std::string(xpose_last_error()).find(message_part), std::string::npos)
      << xpose_last_error();
  EXPECT_TRUE(data.untouched());
}

TEST(InplaceCpu, UnsupportedRequestsSaySoAndTouchNothing) {
  const auto U = XPOSE_ERROR_UNSUPPORTED;
  expect_rejected({3, 4}, {1, 0}, 4, U, "square matrices");
  expect_rejected({4, 4, 4}, {1, 2, 0}, 4, U, "normalizes to");   // a rotation
  expect_rejected({4, 5, 4}, {1, 0, 2}, 4, U, "T_yxz");
  expect_rejected({4, 2, 5}, {2, 1, 0}, 4, U, "T_zyx");
  expect_rejected({2, 2, 2, 2}, {1, 0, 3, 2}, 4, U, "in-place");   // two swaps
}

TEST(InplaceCpu, BadInputsAreInvalidArguments) {
  const auto I = XPOSE_ERROR_INVALID_ARGUMENT;
  expect_rejected({8, 8}, {1, 0}, 3, I, "elem_size = 3");
  expect_rejected({8, 8}, {1, 1}, 4, I, "perm[1] = 1 repeats");
  expect_rejected({8, 8}, {1, 2}, 4, I, "out of range");
  expect_rejected({8, -8}, {1, 0}, 4, I, "negative");
  expect_rejected({8, 8}, {1, 0}, 4, I, "data is NULL", nullptr, /*null_data=*/true);
  xpose_options_t bad = cpu_options(XPOSE_COL_MAJOR);
  const int seven = 7;  // as a C caller may store it; C++ may not create this enum value
  std::memcpy(&bad.backend, &seven, sizeof seven);
  expect_rejected({8, 8}, {1, 0}, 4, I, "options->backend", &bad);
  EXPECT_EQ(xpose_transpose_inplace(-1, nullptr, nullptr, 4, nullptr, nullptr, nullptr), I);
}

TEST(InplaceCpu, EmptyTensorSucceedsWithoutData) {
  const int64_t ext[] = {0, 0};
  const int perm[] = {1, 0};
  const xpose_options_t o = cpu_options(XPOSE_COL_MAJOR);
  EXPECT_EQ(xpose_transpose_inplace(2, ext, perm, 4, nullptr, &o, nullptr), XPOSE_SUCCESS);
  EXPECT_STREQ(xpose_last_error(), "");
}

TEST(InplaceCpu, SchemeNamesRoundTrip) {
  for (int s = 0; s <= 4; ++s)
    EXPECT_EQ(xpose::detail::inplace_scheme_from_name(xpose::detail::inplace_scheme_name(s)), s);
  EXPECT_EQ(xpose::detail::inplace_scheme_from_name("v9"), -1);
}

}  // namespace
