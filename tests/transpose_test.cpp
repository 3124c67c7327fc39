// Transpositions through the public C and C++ APIs on the CPU backend, checked element by element
// against tests/reference.hpp (which works from the user's request, not the normalized one).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <thread>

#include "reference.hpp"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"

namespace {

using xpose_test::GuardedBuffer;
using xpose_test::Rng;
using xpose_test::str;

struct Request {
  std::vector<int64_t> extents;
  std::vector<int> perm;
  size_t elem = 8;
  xpose_layout_t layout = XPOSE_COL_MAJOR;
  int threads = 1;
  size_t in_misalign = 0, out_misalign = 0;
};

std::string describe(const Request& r) {
  return "extents " + str(r.extents) + " perm " + str(r.perm) + " elem " +
         std::to_string(r.elem) + (r.layout == XPOSE_ROW_MAJOR ? " row-major" : " col-major") +
         " threads " + std::to_string(r.threads) + " misalign " + std::to_string(r.in_misalign) +
         "/" + std::to_string(r.out_misalign) + " " + xpose_test::seed_note();
}

enum class Path { kCached, kPlan };

// Runs `r` through the chosen API path and compares every element with the reference, and the
// guard bytes around the output with their poison.
testing::AssertionResult transposes_correctly(const Request& r, Path path, uint64_t seed) {
  const int64_t volume = xpose_test::volume_of(r.extents);
  const size_t bytes = static_cast<size_t>(volume) * r.elem;
  GuardedBuffer in(bytes, r.in_misalign), out(bytes, r.out_misalign);
  xpose_test::fill_random(in.data(), bytes, seed);
  std::vector<unsigned char> want(bytes);
  xpose_test::reference_transpose(r.extents, r.perm, r.elem, r.layout, in.data(), want.data());
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CPU;
  o.layout = r.layout;
  o.num_threads = r.threads;
  const int rank = static_cast<int>(r.extents.size());
  xpose_status_t st;
  if (path == Path::kCached) {
    st = xpose_transpose(rank, r.extents.data(), r.perm.data(), r.elem, in.data(), out.data(), &o,
                         nullptr);
  } else {
    xpose_plan_t plan = nullptr;
    st = xpose_plan_create(&plan, rank, r.extents.data(), r.perm.data(), r.elem, &o);
    if (st == XPOSE_SUCCESS) st = xpose_execute(plan, in.data(), out.data(), nullptr);
    xpose_plan_destroy(plan);
  }
  if (st != XPOSE_SUCCESS)
    return testing::AssertionFailure() << describe(r) << ": status " << xpose_status_string(st)
                                       << ": " << xpose_last_error();
  if (*xpose_last_error() != '\0')
    return testing::AssertionFailure() << describe(r) << ": last error not cleared on success";
  if (!out.guards_intact())
    return testing::AssertionFailure() << describe(r) << ": wrote outside the output";
  const int64_t bad = xpose_test::first_mismatch(out.data(), want.data(), volume, r.elem);
  if (bad >= 0)
    return testing::AssertionFailure() << describe(r) << ": first wrong output element " << bad;
  return testing::AssertionSuccess();
}

// Every permutation of `extents` (all orders), each element size and both layouts; stops at the
// first few failures so that one bug does not print thousands of lines.
void check_all_perms(const std::vector<int64_t>& extents, const std::vector<size_t>& elems) {
  const int rank = static_cast<int>(extents.size());
  std::vector<int> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  int failures = 0, index = 0;
  do {
    for (size_t elem : elems)
      for (xpose_layout_t layout : {XPOSE_COL_MAJOR, XPOSE_ROW_MAJOR}) {
        Request r{extents, perm, elem, layout};
        const Path path = index % 2 ? Path::kPlan : Path::kCached;
        const testing::AssertionResult ok =
            transposes_correctly(r, path, xpose_test::test_seed() + index++);
        EXPECT_TRUE(ok);
        if (!ok && ++failures >= 5) FAIL() << "stopping after 5 failures";
      }
  } while (std::next_permutation(perm.begin(), perm.end()));
}

const std::vector<size_t> kAllElems = {1, 2, 4, 8, 16};

TEST(TransposeAllPerms, Rank1) {
  for (auto e : std::vector<std::vector<int64_t>>{{33}, {1}, {32}, {7}})
    check_all_perms(e, kAllElems);
}

TEST(TransposeAllPerms, Rank2) {
  for (auto e : std::vector<std::vector<int64_t>>{{31, 33}, {7, 1}, {1, 5}, {32, 3}, {33, 32}})
    check_all_perms(e, kAllElems);
}

TEST(TransposeAllPerms, Rank3) {
  for (auto e : std::vector<std::vector<int64_t>>{{7, 32, 5}, {33, 1, 3}, {2, 31, 3}, {1, 7, 1}})
    check_all_perms(e, kAllElems);
}

TEST(TransposeAllPerms, Rank4) {
  for (auto e : std::vector<std::vector<int64_t>>{{5, 3, 7, 2}, {2, 33, 1, 3}, {32, 1, 2, 5}})
    check_all_perms(e, kAllElems);
}

TEST(TransposeAllPerms, Rank5) {
  check_all_perms({3, 2, 5, 1, 7}, {1, 8});
  check_all_perms({2, 3, 2, 5, 3}, {4, 16});
  check_all_perms({31, 1, 2, 1, 3}, {2});
}

TEST(TransposeAllPerms, Rank6) {
  check_all_perms({2, 3, 1, 5, 2, 3}, {8});
  check_all_perms({3, 2, 2, 1, 2, 5}, {1});
  check_all_perms({2, 1, 3, 2, 1, 7}, {16});
}

// Sizes large enough that the backend splits the work over threads and tiles.
TEST(Transpose, MediumTensorsOnSeveralThreads) {
  Rng rng(xpose_test::test_seed());
  const std::vector<std::vector<int64_t>> shapes = {
      {333, 257}, {64, 65, 33}, {31, 32, 33, 7}, {5, 7, 31, 3, 33}, {2, 33, 3, 32, 5, 7}};
  for (const auto& e : shapes)
    for (int k = 0; k < 4; ++k) {
      Request r{e, rng.permutation(static_cast<int>(e.size())), kAllElems[rng.below(5)],
                rng.below(2) ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR, 2 + k % 3};
      EXPECT_TRUE(transposes_correctly(r, Path::kPlan, rng.next()));
    }
}

TEST(Transpose, RandomHighRanksWithSmallExtents) {
  Rng rng(xpose_test::test_seed() ^ 0x32);
  for (int t = 0; t < 150; ++t) {
    const int rank = 7 + static_cast<int>(rng.below(26));  // 7..32
    std::vector<int64_t> e(rank, 1);
    int64_t volume = 1;
    for (int k = 0; k < rank; ++k) {
      const int64_t x = 1 + static_cast<int64_t>(rng.below(3));
      if (volume * x <= (1 << 14)) {
        e[k] = x;
        volume *= x;
      }
    }
    Request r{e, rng.permutation(rank), kAllElems[rng.below(5)],
              rng.below(2) ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR};
    EXPECT_TRUE(transposes_correctly(r, t % 2 ? Path::kPlan : Path::kCached, rng.next()));
  }
}

TEST(Transpose, UnalignedPointers) {
  Rng rng(xpose_test::test_seed() ^ 0xa1);
  for (size_t elem : kAllElems)
    for (size_t in_off : {1, 3, 8})
      for (size_t out_off : {0, 5, 12}) {
        Request r{{37, 41, 3}, {1, 2, 0}, elem, XPOSE_COL_MAJOR, 2, in_off, out_off};
        EXPECT_TRUE(transposes_correctly(r, Path::kPlan, rng.next()));
        r.extents = {64, 64};
        r.perm = {1, 0};
        EXPECT_TRUE(transposes_correctly(r, Path::kCached, rng.next()));
      }
}

TEST(Transpose, RankZeroIsOneElement) {
  for (size_t elem : kAllElems) {
    GuardedBuffer in(16), out(16);
    xpose_test::fill_random(in.data(), 16, xpose_test::test_seed());
    xpose_options_t o;
    xpose_options_init(&o);
    o.backend = XPOSE_BACKEND_CPU;
    ASSERT_EQ(xpose_transpose(0, nullptr, nullptr, elem, in.data(), out.data(), &o, nullptr),
              XPOSE_SUCCESS)
        << xpose_last_error();
    EXPECT_EQ(std::memcmp(in.data(), out.data(), elem), 0) << "elem " << elem;
    for (size_t b = elem; b < 16; ++b) EXPECT_EQ(out.data()[b], GuardedBuffer::kPoison) << b;
    EXPECT_TRUE(out.guards_intact());
  }
}

TEST(Transpose, EmptyTensorTouchesNothing) {
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CPU;
  for (const auto& e : std::vector<std::vector<int64_t>>{{0}, {3, 0, 2}, {0, 0}, {5, 7, 0}}) {
    std::vector<int> perm(e.size());
    std::iota(perm.rbegin(), perm.rend(), 0);
    GuardedBuffer in(64), out(64);
    const int rank = static_cast<int>(e.size());
    EXPECT_EQ(xpose_transpose(rank, e.data(), perm.data(), 8, in.data(), out.data(), &o, nullptr),
              XPOSE_SUCCESS)
        << str(e) << ": " << xpose_last_error();
    EXPECT_TRUE(out.untouched()) << str(e);
    xpose_plan_t plan = nullptr;
    ASSERT_EQ(xpose_plan_create(&plan, rank, e.data(), perm.data(), 8, &o), XPOSE_SUCCESS);
    EXPECT_EQ(xpose_execute(plan, in.data(), out.data(), nullptr), XPOSE_SUCCESS);
    EXPECT_TRUE(out.untouched()) << str(e);
    // Nothing to touch, so no buffer is needed either.
    EXPECT_EQ(xpose_execute(plan, nullptr, nullptr, nullptr), XPOSE_SUCCESS) << str(e);
    xpose_plan_destroy(plan);
  }
}

TEST(Transpose, CachedAndPlannedPathsAgree) {
  Rng rng(xpose_test::test_seed() ^ 0xcace);
  for (int t = 0; t < 20; ++t) {
    Request r{{3 + static_cast<int64_t>(rng.below(40)), 1 + static_cast<int64_t>(rng.below(9)),
               2 + static_cast<int64_t>(rng.below(30))},
              rng.permutation(3), kAllElems[rng.below(5)]};
    const uint64_t seed = rng.next();
    // Twice each: the second cached call takes its plan from the cache.
    EXPECT_TRUE(transposes_correctly(r, Path::kCached, seed));
    EXPECT_TRUE(transposes_correctly(r, Path::kCached, seed + 1));
    EXPECT_TRUE(transposes_correctly(r, Path::kPlan, seed + 2));
  }
}

TEST(TransposeCpp, PlanExecuteAndMove) {
  const std::vector<int64_t> e = {6, 5, 4};
  const std::vector<int> perm = {2, 0, 1};
  std::vector<double> in(120), out(120, 0.0), want(120);
  std::iota(in.begin(), in.end(), 1.0);
  xpose_test::reference_transpose(e, perm, 8, XPOSE_COL_MAJOR,
                                  reinterpret_cast<unsigned char*>(in.data()),
                                  reinterpret_cast<unsigned char*>(want.data()));
  xpose::Plan plan = xpose::make_plan<double>(e, perm, xpose::Options().with_backend(XPOSE_BACKEND_CPU));
  xpose::Plan moved = std::move(plan);
  EXPECT_EQ(plan.get(), nullptr);
  moved.execute(in.data(), out.data());
  EXPECT_EQ(out, want);
  EXPECT_NE(moved.describe().find("backend cpu"), std::string::npos) << moved.describe();
  xpose::Plan other({3, 4}, {1, 0}, 4, xpose::Options().with_backend(XPOSE_BACKEND_CPU));
  other = std::move(moved);  // releases other's plan, takes moved's
  std::fill(out.begin(), out.end(), 0.0);
  other.execute(in.data(), out.data());
  EXPECT_EQ(out, want);
}

TEST(TransposeCpp, RowMajorThroughTranspose) {
  // numpy: a = arange(24).reshape(2,3,4); a.transpose(2,0,1)[k][i][j] = a[i][j][k].
  std::vector<int32_t> in(24), out(24);
  std::iota(in.begin(), in.end(), 0);
  xpose::transpose<int32_t>({2, 3, 4}, {2, 0, 1}, in.data(), out.data(),
                            xpose::Options().with_backend(XPOSE_BACKEND_CPU).with_layout(XPOSE_ROW_MAJOR));
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(out[(k * 2 + i) * 3 + j], (i * 3 + j) * 4 + k);
}

TEST(TransposeCpp, ErrorCarriesStatusAndMessage) {
  try {
    xpose::make_plan<float>({4, 5, 6}, {0, 1, 3});
    FAIL() << "no exception";
  } catch (const xpose::Error& e) {
    EXPECT_EQ(e.status(), XPOSE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("perm[2] = 3"), std::string::npos) << e.what();
  }
  try {
    xpose::Plan p({4, 5}, {0}, 8);
    FAIL() << "no exception";
  } catch (const xpose::Error& e) {
    EXPECT_EQ(e.status(), XPOSE_ERROR_INVALID_ARGUMENT);
  }
  xpose::Plan plan = xpose::make_plan<double>({4, 4}, {1, 0}, xpose::Options().with_backend(XPOSE_BACKEND_CPU));
  double buf[16] = {};
  try {
    plan.execute(buf, buf);
    FAIL() << "no exception";
  } catch (const xpose::Error& e) {
    EXPECT_EQ(e.status(), XPOSE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("overlap"), std::string::npos) << e.what();
  }
}

TEST(TransposeCpp, DescriptorStridesAreCheckedAgainstTheRank) {
  const auto cpu = xpose::Options().with_backend(XPOSE_BACKEND_CPU);
  try {
    xpose::make_plan<float, float>({4, 5}, {1, 0}, xpose::Desc().with_in_strides({1, 4, 20}), cpu);
    FAIL() << "no exception";
  } catch (const xpose::Error& e) {
    EXPECT_EQ(e.status(), XPOSE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("3 entries for rank 2"), std::string::npos) << e.what();
  }
  // Dense strides, no conversion, no scaling: the plain plan.
  std::vector<float> in(20), out(20), want(20);
  std::iota(in.begin(), in.end(), 1.0f);
  xpose::Plan plan = xpose::make_plan<float, float>(
      {4, 5}, {1, 0}, xpose::Desc().with_in_strides({1, 4}).with_out_strides({1, 5}), cpu);
  plan.execute(in.data(), out.data());
  xpose_test::reference_transpose({4, 5}, {1, 0}, 4, XPOSE_COL_MAJOR,
                                  reinterpret_cast<unsigned char*>(in.data()),
                                  reinterpret_cast<unsigned char*>(want.data()));
  EXPECT_EQ(out, want);
}

// Many threads plan (through the cache and not) and execute at once, and one shared plan runs
// on every thread concurrently.
TEST(TransposeConcurrency, PlansAndExecutionsFromManyThreads) {
  const std::vector<Request> requests = {
      {{33, 31}, {1, 0}, 8},         {{7, 32, 5}, {2, 0, 1}, 4},   {{5, 3, 7, 2}, {3, 1, 0, 2}, 2},
      {{64, 65, 3}, {1, 0, 2}, 16},  {{2, 3, 5, 7, 2}, {4, 3, 2, 1, 0}, 1}};
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CPU;
  o.num_threads = 1;
  xpose_plan_t shared = nullptr;
  ASSERT_EQ(xpose_plan_create(&shared, 2, requests[0].extents.data(), requests[0].perm.data(), 8, &o),
            XPOSE_SUCCESS);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 10; ++round) {
        const Request& r = requests[(t + round) % requests.size()];
        const Path path = (t + round) % 2 ? Path::kPlan : Path::kCached;
        if (!transposes_correctly(r, path, xpose_test::test_seed() + t * 100 + round)) ++failures;
        GuardedBuffer in(33 * 31 * 8), out(33 * 31 * 8);
        xpose_test::fill_random(in.data(), in.size(), t + round);
        std::vector<unsigned char> want(in.size());
        xpose_test::reference_transpose({33, 31}, {1, 0}, 8, XPOSE_COL_MAJOR, in.data(), want.data());
        if (xpose_execute(shared, in.data(), out.data(), nullptr) != XPOSE_SUCCESS ||
            std::memcmp(out.data(), want.data(), want.size()) != 0)
          ++failures;
      }
    });
  for (auto& th : threads) th.join();
  xpose_plan_destroy(shared);
  EXPECT_EQ(failures.load(), 0) << xpose_test::seed_note();
}

}  // namespace
