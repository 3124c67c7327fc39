// Wide 2D tiles (wide2d.cu: Tiled with one-dim runs for plain elements of 4, 8 and 16 bytes, and
// of 1 and 2 bytes packed in 4-byte words) on the device: the kernel launched on shapes around
// the tile's edges, batched, row-major too, at pointer offsets that leave the elements (words)
// whole or split them into pieces (8- and 16-byte elements 4 bytes off, any element or word 1-3
// bytes off), whatever the planner ranks first; and random problems of the band it is for,
// through the public API.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "../fake_device.hpp"
#include "core/problem.hpp"
#include "cuda/planner.hpp"
#include "cuda/runtime.hpp"
#include "gpu_util.hpp"

using namespace xpose_test;
using namespace xpose::detail;

namespace {

TEST(CudaWide2d, TileEdgesAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaWide2d"));
  const std::vector<Case> cases = {
      {{32, 32}, {1, 0}},          {{33, 33}, {1, 0}},           {{31, 64}, {1, 0}},
      {{64, 31}, {1, 0}},          {{1000, 70}, {1, 0}},         {{70, 1000}, {1, 0}},
      {{64, 33, 3}, {1, 0, 2}},    {{40, 2, 3, 50}, {3, 1, 2, 0}}, {{129, 255}, {1, 0}},
      {{100, 5, 134}, {2, 0, 1}},  {{33, 7, 65, 2}, {2, 1, 0, 3}}, {{257, 40}, {1, 0}},
      // packed 1- and 2-byte words: run dims multiples of 4 (2), at and around a tile's 128
      // bytes
      {{128, 64}, {1, 0}},         {{132, 68}, {1, 0}},          {{64, 132}, {1, 0}},
      {{256, 128}, {1, 0}},        {{260, 132}, {1, 0}},         {{132, 260}, {1, 0}},
      {{124, 96, 3}, {1, 0, 2}},   {{64, 2, 3, 68}, {3, 1, 2, 0}}, {{1000, 72}, {1, 0}},
      {{72, 1000}, {1, 0}},        {{68, 5, 260}, {2, 0, 1}},    {{34, 34}, {1, 0}},
      {{66, 3, 98, 2}, {2, 1, 0, 3}}};
  const std::vector<std::pair<size_t, size_t>> offsets = {{0, 0}, {4, 4}, {8, 0},
                                                           {1, 3}, {2, 6}, {0, 12}};
  const xpose::detail::DeviceInfo dev = xpose_test::fake_h100();
  DeviceBuffers bufs(size_t{1} << 22);
  int runs = 0;
  for (const Case& c : cases)
    for (size_t es : {size_t{1}, size_t{2}, size_t{4}, size_t{8}, size_t{16}})
      for (xpose_layout_t layout : {XPOSE_COL_MAJOR, XPOSE_ROW_MAJOR}) {
        const int rank = static_cast<int>(c.ext.size());
        Problem p;
        ASSERT_EQ(make_problem(rank, c.ext.data(), c.perm.data(), es, layout, &p), XPOSE_SUCCESS);
        // Not wide2d's: runs under 32 elements (packed: under 64 bytes or not in whole words), or
        // the leading dim stays (row-major views).
        if (es <= 2 ? !packed2d_takes(p) : !wide2d_takes(p)) continue;
        std::vector<Choice> all;
        enumerate_choices(p, dev, nullptr, &all);
        const auto w =
            std::find_if(all.begin(), all.end(), [](const Choice& x) { return x.wide2d; });
        ASSERT_NE(w, all.end()) << p.to_string();
        KernelSpec spec;
        build_spec(p, *w, &spec);
        const int n = launches_match(
            bufs, rng, c, es, layout, offsets, p.to_string() + " " + summarize(p, *w),
            [&](size_t a, size_t b, const uint8_t* src, uint8_t* dst) {
              const int piece =
                  std::min(std::max(2, spec.log2_elem), std::countr_zero(a | b | 16));
              return launch_wide2d(spec.narrow2d, spec.log2_elem, piece, src, dst, nullptr,
                                   spec.choice.grid);
            });
        ASSERT_GE(n, 0);
        runs += n;
      }
  std::printf("%d wide2d launches checked\n", runs);
  EXPECT_GE(runs, 400);
}

// Random problems of up to 16 MB (the band wide2d is for), 1-16 byte elements: every plan the
// planner makes, checked.
TEST(CudaWide2d, RandomMiddleSizes) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaWide2dRandom"));
  DeviceBuffers bufs(size_t{1} << 24);
  int taken = 0;
  for (int iter = 0; iter < 100; ++iter) {
    const int rank = 2 + static_cast<int>(rng() % 4);
    const size_t es = size_t{1} << (rng() % 5);
    // 1- and 2-byte elements: mostly whole words along every dim (the packed tiles')
    const int64_t unit = es <= 2 && rng() % 4 != 0 ? 4 / static_cast<int64_t>(es) : 1;
    std::vector<int64_t> ext(rank);
    int64_t vol = 1;
    for (int k = 0; k < rank; ++k) {
      const auto most = static_cast<uint64_t>(rank == 2 ? 1500 : rank == 3 ? 150 : 40);
      ext[k] = unit * (1 + static_cast<int64_t>(rng() % most));
      if (vol * ext[k] * static_cast<int64_t>(es) > (int64_t{1} << 24) - 64) ext[k] = 1;
      vol *= ext[k];
    }
    std::vector<int> perm(rank);
    for (int k = 0; k < rank; ++k) perm[k] = k;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::string plan;
    ASSERT_EQ(check_case(bufs, rng, rank, ext.data(), perm.data(), es, XPOSE_COL_MAJOR, nullptr,
                         std::min<size_t>(es, 4) * (rng() % 4),
                         std::min<size_t>(es, 4) * (rng() % 4), &plan),
              XPOSE_SUCCESS)
        << xpose_last_error();
    taken += plan.find("wide2d") != std::string::npos;
    if (HasFailure()) return;
  }
  std::printf("100 random problems checked, %d by wide2d\n", taken);
}

}  // namespace
