// Correctness of the CUDA backend against a naive CPU reference (public API only).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "gpu_util.hpp"

using namespace xpose_test;

namespace {

const size_t kElemSizes[] = {1, 2, 4, 8, 16};

TEST(CudaCorrectness, AllPermutationsRanks1To5) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("AllPermutationsRanks1To5"));
  const std::vector<std::vector<int64_t>> shapes = {
      {1001}, {37, 19}, {13, 7, 11}, {5, 9, 3, 7}, {3, 5, 7, 2, 9}};
  DeviceBuffers bufs(10395 * 16);
  int cases = 0;
  for (const auto& ext : shapes) {
    const int rank = static_cast<int>(ext.size());
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    do {
      for (size_t es : kElemSizes) {
        ASSERT_EQ(check_case(bufs, rng, rank, ext.data(), perm.data(), es), XPOSE_SUCCESS)
            << xpose_last_error();
        ++cases;
        if (HasFailure()) return;
      }
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  std::printf("%d cases\n", cases);
}

// Random ranks up to 16, both layouts, extents 1..9 (extent-1 dims exercise normalization).
TEST(CudaCorrectness, RandomRanksUpTo16) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("RandomRanksUpTo16"));
  DeviceBuffers bufs(size_t{1} << 23);
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 16);
    const size_t es = kElemSizes[rng() % 5];
    std::vector<int64_t> ext(rank);
    int64_t vol = 1;
    for (int k = 0; k < rank; ++k) {
      ext[k] = 1 + static_cast<int64_t>(rng() % (rank > 8 ? 3 : 9));
      if (rank <= 3) ext[k] = 1 + static_cast<int64_t>(rng() % 90);
      if (vol * ext[k] * static_cast<int64_t>(es) > (int64_t{1} << 22)) ext[k] = 1;
      vol *= ext[k];
    }
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const xpose_layout_t layout = rng() % 2 ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
    ASSERT_EQ(check_case(bufs, rng, rank, ext.data(), perm.data(), es, layout), XPOSE_SUCCESS)
        << xpose_last_error();
    if (HasFailure()) return;
  }
}

// Pointers at every misalignment that matters, for each kind of kernel (tiles on pointers that
// are not multiples of the element size move it in pieces of 1, 2, 4 or 8 bytes).
TEST(CudaCorrectness, UnalignedPointers) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("UnalignedPointers"));
  struct Case { std::vector<int64_t> ext; std::vector<int> perm; };
  const std::vector<Case> cases = {{{5000}, {0}},                 // copy
                                   {{300, 7, 5}, {0, 2, 1}},      // rows
                                   {{4, 33, 17}, {0, 2, 1}},      // fvi-small (fused view)
                                   {{67, 45}, {1, 0}},            // tiled
                                   {{6, 5, 40, 3}, {2, 1, 0, 3}}};
  DeviceBuffers bufs(size_t{1} << 20);
  const std::pair<size_t, size_t> offsets[] = {{1, 3}, {4, 4}, {8, 0}, {2, 6}, {16, 16}};
  for (const Case& c : cases)
    for (size_t es : {size_t{2}, size_t{4}, size_t{8}, size_t{16}})
      for (auto [a, b] : offsets)
        ASSERT_EQ(check_case(bufs, rng, static_cast<int>(c.ext.size()), c.ext.data(),
                             c.perm.data(), es, XPOSE_COL_MAJOR, nullptr, a, b),
                  XPOSE_SUCCESS)
            << xpose_last_error();
}

TEST(CudaCorrectness, RowMajorMatchesReversedColumnMajor) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("RowMajor"));
  DeviceBuffers bufs(size_t{1} << 20);
  const int64_t ext[4] = {7, 30, 5, 11};
  const int perms[3][4] = {{3, 2, 1, 0}, {0, 1, 3, 2}, {1, 3, 0, 2}};
  for (const auto& perm : perms)
    for (size_t es : kElemSizes)
      ASSERT_EQ(check_case(bufs, rng, 4, ext, perm, es, XPOSE_ROW_MAJOR), XPOSE_SUCCESS);
}

// Small tensors (the direct kernel, forced and as the heuristic's choice): random ranks
// and extents, every element size, pointers at any byte offset.
TEST(CudaCorrectness, DirectSmallTensorsAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("DirectSmallTensorsAnyAlignment"));
  DeviceBuffers bufs(size_t{1} << 19);
  int direct = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = 2 + static_cast<int>(rng() % 9);
    const size_t es = size_t{1} << (rng() % 5);
    std::vector<int64_t> ext(rank);
    std::vector<int> perm(rank);
    int64_t volume = 1;  // at most 2^17 elements and 256 KiB: direct applies
    const int64_t max_volume = std::min<int64_t>(int64_t{1} << 17, (256 << 10) / int64_t(es));
    for (int k = 0; k < rank; ++k) {
      ext[k] = 1 + static_cast<int64_t>(rng() % 9);
      while (volume * ext[k] > max_volume) ext[k] = std::max<int64_t>(1, ext[k] / 2);
      volume *= ext[k];
      perm[k] = k;
    }
    std::shuffle(perm.begin(), perm.end(), rng);
    const size_t in_off = rng() % 16, out_off = rng() % 16;
    for (const char* schema : {"direct", static_cast<const char*>(nullptr)}) {
      std::string desc;
      const xpose_status_t st = check_case(bufs, rng, rank, ext.data(), perm.data(), es,
                                           XPOSE_COL_MAJOR, schema, in_off, out_off, &desc);
      // Forced, it applies unless normalization left a plain copy.
      if (st != XPOSE_SUCCESS) {
        EXPECT_NE(std::string(xpose_last_error()).find("plain copy"), std::string::npos)
            << xpose_last_error();
        continue;
      }
      direct += desc.find("direct") != std::string::npos;
      if (HasFailure()) return;
    }
  }
  std::printf("%d plans ran the direct kernel\n", direct);
  EXPECT_GT(direct, 300);
}

// Plain problems of 4-16 byte elements in L2 that take the direct kernel (planner.hpp
// direct_in_l2): random ranks and shapes of 1-8 MB, pointers at random whole-element offsets
// within 16 bytes (DirectSmallTensorsAnyAlignment covers any byte offset).
TEST(CudaCorrectness, DirectInL2) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("DirectInL2"));
  DeviceBuffers bufs(size_t{8} << 20);
  int direct = 0;
  for (int iter = 0; iter < 200 && (iter < 40 || direct < 15); ++iter) {
    const int rank = 2 + static_cast<int>(rng() % 7);
    const size_t es = size_t{4} << (rng() % 3);
    const int64_t want = ((int64_t{1} << 20) + static_cast<int64_t>(rng() % (7 << 20))) /
                         static_cast<int64_t>(es);  // 1-8 MB
    std::vector<int64_t> ext(rank);
    std::vector<int> perm(rank);
    int64_t volume = 1;
    for (int k = 0; k < rank; ++k) {
      const auto most = static_cast<int64_t>(std::pow(static_cast<double>(want / volume),
                                                      1.0 / (rank - k)));
      ext[k] = std::max<int64_t>(2, most / 2 + static_cast<int64_t>(rng() % (most + 1)));
      while (ext[k] > 2 && volume * ext[k] * static_cast<int64_t>(es) > (int64_t{8} << 20))
        ext[k] /= 2;
      volume *= ext[k];
      perm[k] = k;
    }
    do std::shuffle(perm.begin(), perm.end(), rng);
    while (std::is_sorted(perm.begin(), perm.end()));
    std::string desc;
    ASSERT_EQ(check_case(bufs, rng, rank, ext.data(), perm.data(), es, XPOSE_COL_MAJOR, nullptr,
                         (rng() % 4) * es % 16, (rng() % 4) * es % 16, &desc),
              XPOSE_SUCCESS)
        << xpose_last_error();
    direct += desc.find("direct") != std::string::npos;
    if (HasFailure()) return;
  }
  std::printf("%d plans in L2 ran the direct kernel\n", direct);
  EXPECT_GE(direct, 15);
}

// Every schema forced on problems it accepts; at least one problem must accept each.
TEST(CudaCorrectness, ForcedSchemas) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("ForcedSchemas"));
  struct Case { std::vector<int64_t> ext; std::vector<int> perm; };
  const std::vector<Case> cases = {
      {{3001}, {0}},        {{300, 7, 5}, {0, 2, 1}}, {{6, 33, 17}, {0, 2, 1}},
      {{67, 45}, {1, 0}},   {{40, 3, 50}, {2, 1, 0}}, {{4, 3, 40, 5}, {1, 0, 3, 2}},
      {{2, 3, 4, 5, 6}, {4, 2, 0, 1, 3}},             {{8, 9, 70}, {1, 2, 0}},
      {{5, 3, 2, 4, 35, 33}, {5, 4, 3, 2, 1, 0}},    {{3, 90, 2, 60}, {1, 3, 0, 2}},
      {{700, 300}, {1, 0}},  {{500, 130, 3}, {1, 0, 2}}};
  const char* schemas[] = {"copy", "rows", "fvi-small", "tiled", "packed", "packed-split",
                           "orthogonal-arbitrary", "tiled:in=64,out=16,threads=128",
                           "fvi-small:in=40,out=40,threads=64", "packed-split:threads=512",
                           "tiled:in=64,out=64,threads=1024", "packed:threads=1024",
                           "tiled:stages=2", "packed-split:stages=3",
                           "tiled:in=64,out=64,threads=1024,stages=4", "packed:stages=4",
                           "tiled:in=32,out=32,band=3", "tiled:band=8", "packed-split:band=2",
                           "direct"};
  DeviceBuffers bufs(size_t{1} << 22);
  for (const char* schema : schemas) {
    int accepted = 0;
    for (const Case& c : cases)
      for (size_t es : {size_t{1}, size_t{8}, size_t{16}}) {
        std::string desc;
        const xpose_status_t st = check_case(bufs, rng, static_cast<int>(c.ext.size()),
                                             c.ext.data(), c.perm.data(), es, XPOSE_COL_MAJOR,
                                             schema, 0, 0, &desc);
        if (st == XPOSE_SUCCESS) {
          ++accepted;
          const std::string name = std::string(schema).substr(0, std::string(schema).find(':'));
          if (name != "orthogonal-arbitrary")
            EXPECT_NE(desc.find(name == "copy" ? "copy" : name), std::string::npos) << desc;
        } else {
          EXPECT_EQ(st, XPOSE_ERROR_INVALID_ARGUMENT);
          EXPECT_NE(std::string(xpose_last_error()).find("does not apply"), std::string::npos)
              << xpose_last_error();
        }
        if (HasFailure()) return;
      }
    std::printf("schema %s accepted %d cases\n", schema, accepted);
    EXPECT_GT(accepted, 0) << schema;
  }
}

TEST(CudaErrors, UnknownSchemaAndBadDevice) {
  XPOSE_REQUIRE_GPU();
  const int64_t ext[2] = {10, 20};
  const int perm[2] = {1, 0};
  xpose_options_t o = cuda_options();
  xpose_plan_t plan = nullptr;
  EXPECT_EQ(xpose_plan_create_forced(&plan, 2, ext, perm, 4, &o, "bogus"),
            XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("packed-split"), std::string::npos);
  EXPECT_EQ(xpose_plan_create_forced(&plan, 2, ext, perm, 4, &o, "copy"),
            XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("does not apply"), std::string::npos);
  EXPECT_EQ(xpose_plan_create_forced(&plan, 2, ext, perm, 4, &o, "tiled:threads=33"),
            XPOSE_ERROR_INVALID_ARGUMENT);
  o.device = 1000;
  EXPECT_EQ(xpose_plan_create(&plan, 2, ext, perm, 4, &o), XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("options->device"), std::string::npos);
}

// The model's prediction is served for CUDA plans: positive, the same through both entry points,
// and within an order of magnitude of a copy of the bytes at the device's memory bandwidth.
TEST(CudaPredict, PlanAndRequestAgree) {
  XPOSE_REQUIRE_GPU();
  const int64_t ext[3] = {256, 256, 256};
  const int perm[3] = {2, 0, 1};
  xpose_options_t o = cuda_options();
  double direct = -1, planned = -1;
  ASSERT_EQ(xpose_predict(3, ext, perm, 8, &o, &direct), XPOSE_SUCCESS) << xpose_last_error();
  xpose_plan_t plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, 3, ext, perm, 8, &o), XPOSE_SUCCESS);
  ASSERT_EQ(xpose_plan_predict(plan, &planned), XPOSE_SUCCESS);
  xpose_plan_destroy(plan);
  EXPECT_DOUBLE_EQ(planned, direct);
  const double bytes = 2.0 * 256 * 256 * 256 * 8;  // read + write
  std::printf("predicted %.1f us, %.0f GB/s\n", direct * 1e6, bytes / direct / 1e9);
  EXPECT_GT(bytes / direct, 300e9);
  EXPECT_LT(bytes / direct, 30e12);
}

}  // namespace
