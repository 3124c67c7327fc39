// Thin 2D tiles (thin2d.cu: one-dim runs of plain 1- and 2-byte elements, one run dim under 64
// bytes beside the other in one tensor). On the device: the kernel launched on both modes (flat
// output, flat input) at short extents 2-63, long ones around a tile's rows and with several
// tiles, batched, row-major too, at pointer offsets that split 2-byte elements or leave them
// whole; random problems of the class through the public API. Without a GPU: the stretch's skew
// against a count of the kernel's bank conflicts, and the planner's choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
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

Problem problem(std::vector<int64_t> ext, std::vector<int> perm, size_t es,
                xpose_layout_t layout = XPOSE_COL_MAJOR) {
  Problem p;
  EXPECT_EQ(make_problem(static_cast<int>(ext.size()), ext.data(), perm.data(), es, layout, &p),
            XPOSE_SUCCESS);
  return p;
}

// The most distinct 4-byte words that one bank serves in one warp access, over the accesses of
// the shared stretch that thin2d.cu makes for the short dim's extent s.
int worst_conflict(int thin, int s, int es, int skew) {
  const auto at = [&](int f) { return (f + (f >> 7) * 4 * skew) / 4; };  // a word of the stretch
  int worst = 0;
  const auto count = [&](const std::vector<int>& words) {
    std::map<int, std::set<int>> banks;
    for (int w : words) banks[w % 32].insert(w);
    for (const auto& [bank, ws] : banks) worst = std::max(worst, static_cast<int>(ws.size()));
  };
  for (int shift = 0; shift < (thin == 1 ? 16 : 4); shift += es)
    for (int row = 0; row < std::min(s, 3); ++row)
      for (int g = 0; g < (thin == 1 ? 16 : 4); g += es) {
        std::vector<int> words;
        for (int lane = 0; lane < 32; ++lane) {
          if (thin == 1) {  // lane: a 16-byte chunk of input row `row`, element i stored
            const int i = (16 * lane + g - shift) / es;
            if (16 * lane + g - shift >= 0) words.push_back(at((i * s + row) * es));
          } else {  // lane: a word of output run `row`, element jj loaded
            const int jj = (4 * lane + g) / es;
            words.push_back(at(shift + (jj * s + row) * es));
          }
        }
        count(words);
      }
  return worst;
}

TEST(CudaThin2d, SkewKeepsBankConflictsTwoWay) {
  for (int es : {1, 2})
    for (int thin : {1, 2})
      for (int s = 2; s * es < kNarrow2dMinBytes; ++s) {
        const int w = worst_conflict(thin, s, es, thin2d_skew(thin, s));
        // Flat output with s = 32 (1 byte) and flat input with s = 60: no skew does better.
        const int allowed = (thin == 1 && s == 32) ? 4 : (thin == 2 && s == 60) ? 3 : 2;
        EXPECT_LE(w, allowed) << "thin " << thin << " s " << s << " es " << es;
      }
}

TEST(CudaThin2d, PlannerTakesThinProblems) {
  const DeviceInfo dev = fake_h100();
  struct Want {
    std::vector<int64_t> ext;
    std::vector<int> perm;
    size_t es;
    int thin;
  };
  const std::vector<Want> cases = {
      {{5153632, 22}, {1, 0}, 2, 1},   {{22, 5153632}, {1, 0}, 2, 2},
      {{50176, 3, 256}, {1, 0, 2}, 2, 1}, {{3, 50176, 256}, {1, 0, 2}, 1, 2},
      {{1000000, 63}, {1, 0}, 1, 1},    {{1000000, 64}, {1, 0}, 1, 0},  // narrow2d's
      {{1000000, 32}, {1, 0}, 2, 0},    {{31, 1000000}, {1, 0}, 2, 2},
      {{131, 31, 31892}, {1, 0, 2}, 1, 0},  // tiles of 4 KB: the narrow kernel's
      {{600, 31, 10000}, {1, 0, 2}, 1, 1},  // cells of 18600 bytes: too large (cells.cu)
      {{40, 7, 30000}, {1, 2, 0}, 2, 0},  // the short dim is not beside the long one
      {{3000, 5, 7}, {1, 0, 2}, 4, 0}};   // 4-byte elements: the tile kernel
  for (const Want& w : cases) {
    const Problem p = problem(w.ext, w.perm, w.es);
    EXPECT_EQ(thin2d_takes(p), w.thin) << p.to_string();
    Choice best;
    ASSERT_TRUE(best_choice(p, dev, nullptr, &best)) << p.to_string();
    EXPECT_EQ(best.thin, w.thin) << p.to_string() << " " << summarize(p, best);
    std::vector<Choice> all;
    enumerate_choices(p, dev, nullptr, &all);
    ASSERT_FALSE(all.empty());
    EXPECT_EQ(all.front().thin, w.thin) << p.to_string() << " " << summarize(p, all[0]);
    if (w.thin == 0) continue;
    EXPECT_NE(summarize(p, best).find("thin2d"), std::string::npos);
    KernelSpec spec;
    build_spec(p, best, &spec);
    EXPECT_EQ(spec.narrow2d.thin, w.thin);
    const int64_t s = w.thin == 1 ? best.out_run : best.in_run;
    const int64_t row = (w.thin == 1 ? best.in_run : best.out_run) * static_cast<int64_t>(w.es);
    EXPECT_EQ(s, p.extent[w.thin == 1 ? p.perm[0] : 0]);
    // Rows of equal length along the long dim, at most kThin2dMaxRowBytes.
    const int64_t tile = row / static_cast<int64_t>(w.es), e = p.extent[w.thin == 1 ? 0 : 1];
    const int64_t tiles = (e + tile - 1) / tile;
    EXPECT_LE(row, kThin2dMaxRowBytes);
    EXPECT_GE(e - (tiles - 1) * tile, tile - tiles) << p.to_string() << " " << tile;
    EXPECT_LE(spec.smem_bytes, 48u * 1024);
  }
}

TEST(CudaThin2d, TileEdgesAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaThin2d"));
  const std::vector<Case> cases = {
      // flat output: (long, short) perm (1, 0) and batched; long dims from a few tiles' rows
      // down to what a tile of half the target's bytes takes (thin2d_takes)
      {{7001, 2}, {1, 0}},         {{4099, 3}, {1, 0}},         {{9000, 5}, {1, 0}},
      {{2049, 22}, {1, 0}},        {{700, 31}, {1, 0}},         {{1000, 63}, {1, 0}},
      {{3001, 3, 5}, {1, 0, 2}},   {{1997, 4, 3, 2}, {1, 0, 3, 2}}, {{5000, 7, 3}, {1, 0, 2}},
      {{640, 60}, {1, 0}},         {{3333, 2}, {1, 0}},         {{300, 21, 3}, {1, 0, 2}},
      // flat input: (short, long) perm (1, 0) and batched, the short dim anywhere in the output
      {{2, 7001}, {1, 0}},         {{3, 4099}, {1, 0}},         {{5, 9000}, {1, 0}},
      {{22, 2049}, {1, 0}},        {{31, 700}, {1, 0}},         {{63, 1000}, {1, 0}},
      {{3, 3001, 5}, {1, 0, 2}},   {{4, 1997, 3, 2}, {1, 2, 0, 3}}, {{7, 5000, 3}, {1, 2, 0}},
      {{60, 640}, {1, 0}},         {{2, 3333}, {1, 0}},         {{21, 300, 3}, {1, 2, 0}}};
  const std::vector<std::pair<size_t, size_t>> offsets = {{0, 0}, {2, 2}, {4, 0},
                                                           {1, 3}, {3, 1}, {0, 14}};
  const DeviceInfo dev = fake_h100();
  DeviceBuffers bufs(size_t{1} << 22);
  int runs = 0;
  for (const Case& c : cases)
    for (size_t es : {size_t{1}, size_t{2}})
      for (xpose_layout_t layout : {XPOSE_COL_MAJOR, XPOSE_ROW_MAJOR}) {
        const int rank = static_cast<int>(c.ext.size());
        Problem p;
        ASSERT_EQ(make_problem(rank, c.ext.data(), c.perm.data(), es, layout, &p), XPOSE_SUCCESS);
        if (!thin2d_takes(p)) continue;  // row-major views, short dims of 64 bytes and more
        std::vector<Choice> all;
        enumerate_choices(p, dev, nullptr, &all);
        const auto w = std::find_if(all.begin(), all.end(), [](const Choice& x) { return x.thin; });
        ASSERT_NE(w, all.end()) << p.to_string();
        KernelSpec spec;
        build_spec(p, *w, &spec);
        const int n = launches_match(
            bufs, rng, c, es, layout, offsets, p.to_string() + " " + summarize(p, *w),
            [&](size_t, size_t, const uint8_t* src, uint8_t* dst) {
              return launch_thin2d(spec.narrow2d, static_cast<int>(es), src, dst, nullptr,
                                   spec.choice.grid, spec.smem_bytes);
            });
        ASSERT_GE(n, 0);
        runs += n;
      }
  std::printf("%d thin2d launches checked\n", runs);
  EXPECT_GE(runs, 300);
}

// Random problems of the class (a short dim beside a long one, 1- and 2-byte elements, ranks 2-5,
// up to 16 MB) through the public API, at random pointer offsets; those whose tiles would hold
// under kThin2dMinTileBytes go to other kernels.
TEST(CudaThin2d, RandomThinProblems) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaThin2dRandom"));
  DeviceBuffers bufs(size_t{1} << 24);
  int taken = 0;
  for (int iter = 0; iter < 80; ++iter) {
    const int rank = 2 + static_cast<int>(rng() % 4);
    const size_t es = 1 + rng() % 2;
    std::vector<int64_t> ext(rank);
    for (int k = 0; k < rank; ++k) ext[k] = 1 + static_cast<int64_t>(rng() % 6);
    const int64_t shorter = 2 + static_cast<int64_t>(rng() % (64 / es - 2));
    const int64_t longer = 32 + static_cast<int64_t>(rng() % 40000);
    // Flat output: output dims k, 0, then the others in any order; flat input: 1, then the others.
    const bool flat_out = rng() % 2 == 0;
    const int k = flat_out ? 1 + static_cast<int>(rng() % (rank - 1)) : 1;
    std::vector<int> perm = {k};
    if (flat_out) perm.push_back(0);
    std::vector<int> rest;
    for (int d = 0; d < rank; ++d)
      if (d != k && (d != 0 || !flat_out)) rest.push_back(d);
    std::shuffle(rest.begin(), rest.end(), rng);
    perm.insert(perm.end(), rest.begin(), rest.end());
    ext[flat_out ? 0 : 1] = longer;
    ext[flat_out ? k : 0] = shorter;
    check_random_case(bufs, rng, ext, perm, es, "thin2d", &taken);
    if (HasFailure()) return;
  }
  std::printf("random thin problems checked, %d by thin2d\n", taken);
  EXPECT_GE(taken, 20);
}

}  // namespace
