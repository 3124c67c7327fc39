// The CUDA planner and its arithmetic, on the host: these run without a GPU (in CI too), on a
// DeviceInfo with H100 SXM figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>

#include "core/problem.hpp"
#include "cuda/fast_div.hpp"
#include "cuda/planner.hpp"
#include "../fake_device.hpp"
#include "gpu_util.hpp"

using namespace xpose::detail;

namespace {

// The analytic model: these expectations are its own, whatever coefficients files the build
// embeds (an unknown architecture has none).
DeviceInfo h100() {
  DeviceInfo d = xpose_test::fake_h100();
  d.arch = 0;
  return d;
}

using xpose_test::problem;

TEST(CudaFastDiv, MatchesDivision) {
  std::mt19937_64 rng(xpose_test::test_seed("CudaFastDiv"));
  for (int i = 0; i < 20000; ++i) {
    const uint32_t d32 = 1 + static_cast<uint32_t>(rng() % (i % 2 ? 100 : 0x7FFFFFFF));
    const uint32_t n32 = static_cast<uint32_t>(rng() % 0x80000000u);
    ASSERT_EQ(FastDiv32::make(d32).div(n32), n32 / d32) << n32 << "/" << d32;
    const uint64_t d64 = 1 + rng() % (i % 3 == 0 ? 1000 : (i % 3 == 1 ? (1ull << 40) : (1ull << 62)));
    const uint64_t n64 = rng() >> 1;
    ASSERT_EQ(FastDiv64::make(d64).div(n64), n64 / d64) << n64 << "/" << d64;
  }
  for (uint64_t d : std::initializer_list<uint64_t>{1, 2, 3, 7, 1ull << 31, (1ull << 62) + 1, (1ull << 63) - 1})
    for (uint64_t n : {uint64_t{0}, uint64_t{1}, d - 1, d, (uint64_t{1} << 63) - 1})
      ASSERT_EQ(FastDiv64::make(d).div(n), n / d) << n << "/" << d;
}

TEST(CudaPlanner, SchemasByCaseClass) {
  const DeviceInfo dev = h100();
  std::vector<Choice> c;
  enumerate_choices(problem({1 << 20}, {0}, 8), dev, nullptr, &c);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].schema, Schema::Copy);
  enumerate_choices(problem({4096, 64, 64}, {0, 2, 1}, 8), dev, nullptr, &c);
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c[0].schema, Schema::Rows) << summarize(problem({4096, 64, 64}, {0, 2, 1}, 8), c[0]);
  enumerate_choices(problem({4, 2048, 1024}, {0, 2, 1}, 8), dev, nullptr, &c);  // above L2
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c[0].schema, Schema::FviSmall);
  enumerate_choices(problem({4096, 4096}, {1, 0}, 8), dev, nullptr, &c);
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c[0].schema, Schema::Tiled);
  // Every candidate's predicted time is positive and the list is sorted.
  for (size_t i = 1; i < c.size(); ++i) EXPECT_LE(c[i - 1].predicted, c[i].predicted);
  EXPECT_GT(c[0].predicted, 0);
}

TEST(CudaPlanner, ModelPredictsNearCopyForLargeTranspose) {
  const DeviceInfo dev = h100();
  std::vector<Choice> copy, tr;
  enumerate_choices(problem({int64_t{1} << 25}, {0}, 8), dev, nullptr, &copy);
  enumerate_choices(problem({8192, 4096}, {1, 0}, 8), dev, nullptr, &tr);
  ASSERT_FALSE(copy.empty());
  ASSERT_FALSE(tr.empty());
  const double ratio = copy[0].predicted / tr[0].predicted;
  EXPECT_GT(ratio, 0.7);
  EXPECT_LE(ratio, 1.01);
}

// The tile kernel's first candidate (the analytic ranking), wide2d.cu's tiles aside.
Choice tile_kernel_first(const Problem& p, const DeviceInfo& dev) {
  std::vector<Choice> all;
  enumerate_choices(p, dev, nullptr, &all, false);
  for (const Choice& c : all)
    if (!c.narrow2d) return c;
  ADD_FAILURE() << p.to_string() << ": no tile kernel candidate";
  return Choice{};
}

// Tensors that fit in L2 with their output (analytic.hpp l2_threads_exponent): smaller blocks,
// more of them per SM; larger tensors keep the big blocks the DRAM model ranks first, and
// 16-byte elements keep their choice.
TEST(CudaPlanner, L2ResidentTensorsTakeSmallerBlocks) {
  const DeviceInfo dev = h100();
  const Choice mid = tile_kernel_first(problem({1024, 1024}, {1, 0}, 4), dev);
  const Choice big = tile_kernel_first(problem({8192, 8192}, {1, 0}, 4), dev);
  EXPECT_LE(mid.threads, 256);
  EXPECT_GT(big.threads, mid.threads);
  DeviceInfo no_l2 = dev;
  no_l2.l2_bytes = 0;  // unknown: no L2 term
  const Choice plain16 = tile_kernel_first(problem({256, 1024}, {1, 0}, 16), dev);
  const Choice plain16_no_l2 = tile_kernel_first(problem({256, 1024}, {1, 0}, 16), no_l2);
  EXPECT_EQ(plain16.threads, plain16_no_l2.threads);
  EXPECT_EQ(plain16.predicted, plain16_no_l2.predicted);
}

// wide2d.cu's tile (plain elements of 4-16 bytes, one-dim runs of >= 32 elements): ranked at
// kWide2dL2Factor of the tile kernel's same tile in the L2 band, where it is the choice of
// these square matrices, and at kWide2dFactor above it; never for dims under 32 elements.
TEST(CudaPlanner, Wide2dTakesOneDimRunsOfAWarp) {
  const DeviceInfo dev = h100();
  for (const size_t es : {4, 8, 16}) {
    const Problem p = problem({1024, 1024}, {1, 0}, es);
    Choice c;
    ASSERT_TRUE(best_choice(p, dev, nullptr, &c, false));
    EXPECT_TRUE(c.narrow2d) << summarize(p, c);
    EXPECT_EQ(c.factor, kWide2dL2Factor);
    EXPECT_EQ(c.threads, kWide2dThreads);
    EXPECT_EQ(c.in_run, kWide2dTile);
    EXPECT_EQ(c.out_run, kWide2dTile);
    EXPECT_NE(summarize(p, c).find("wide2d"), std::string::npos);
    KernelSpec spec;
    build_spec(p, c, &spec);
    EXPECT_EQ(spec.smem_bytes, 0u);  // static shared memory
    EXPECT_EQ(spec.narrow2d.num_tiles, (1024 / kWide2dTile) * (1024 / kWide2dTile));
  }
  std::vector<Choice> all;
  enumerate_choices(problem({8192, 8192}, {1, 0}, 4), dev, nullptr, &all, false);
  const auto w = std::find_if(all.begin(), all.end(), [](const Choice& c) { return c.narrow2d; });
  ASSERT_NE(w, all.end());
  EXPECT_EQ(w->factor, kWide2dFactor);
  for (const auto& [ext, perm] : std::vector<std::pair<std::vector<int64_t>, std::vector<int>>>{
           {{31, 100000}, {1, 0}}, {{100000, 31}, {1, 0}}, {{1000, 3000}, {0, 1}}}) {
    enumerate_choices(problem(ext, perm, 4), dev, nullptr, &all, false);
    for (const Choice& c : all) EXPECT_FALSE(c.narrow2d);
  }
  EXPECT_FALSE(wide2d_takes(problem({64, 64}, {1, 0}, 2)));
}

// wide2d.cu's packed tile for 1- and 2-byte elements: a candidate where both run dims hold a
// multiple of 4 / elem_size elements (at least 32) and the tensors fit in L2, ranked at
// kPacked2dL2Factor of narrow2d's prediction, 128 x 128 bytes a tile; not above L2, not for odd
// dims.
TEST(CudaPlanner, Packed2dTakesEvenRunsInL2) {
  const DeviceInfo dev = h100();
  for (const size_t es : {1, 2}) {
    const int64_t per_word = 4 / static_cast<int64_t>(es);
    const Problem p = problem({1024, 512, 3}, {1, 0, 2}, es);
    ASSERT_TRUE(packed2d_takes(p));
    Choice c;
    ASSERT_TRUE(best_choice(p, dev, nullptr, &c, false));
    EXPECT_TRUE(c.narrow2d && c.wide2d) << summarize(p, c);
    EXPECT_EQ(c.factor, kPacked2dL2Factor);
    EXPECT_EQ(c.threads, kWide2dThreads);
    EXPECT_NE(summarize(p, c).find("wide2d"), std::string::npos);
    KernelSpec spec;
    build_spec(p, c, &spec);
    EXPECT_EQ(spec.smem_bytes, 0u);
    const int64_t side = kWide2dTile * per_word;  // 128 bytes of elements
    EXPECT_EQ(spec.narrow2d.ti, side);
    EXPECT_EQ(spec.narrow2d.tj, side);
    EXPECT_EQ(spec.narrow2d.num_tiles, (1024 / side) * (512 / side) * 3);
    // Above L2, odd or short run dims: no packed candidate.
    for (const auto& [ext, perm] : std::vector<std::pair<std::vector<int64_t>, std::vector<int>>>{
             {{16384, 16384}, {1, 0}}, {{1023, 512}, {1, 0}}, {{1024, 511}, {1, 0}},
             {{1024, 16, 64}, {1, 0, 2}}}) {
      const Problem q = problem(ext, perm, es);
      std::vector<Choice> all;
      enumerate_choices(q, dev, nullptr, &all, false);
      for (const Choice& x : all) EXPECT_FALSE(x.wide2d) << q.to_string() << summarize(q, x);
    }
  }
  EXPECT_FALSE(packed2d_takes(problem({1024, 1024}, {1, 0}, 4)));
  EXPECT_FALSE(packed2d_takes(problem({1026, 1024}, {1, 0}, 1)));
  EXPECT_TRUE(packed2d_takes(problem({1026, 1024}, {1, 0}, 2)));
}

// Plain problems of 4 bytes and more in L2 take the direct kernel where its reads stay within
// kDirectL2Share of L2 (planner.hpp direct_in_l2); the fake H100 has 50 MiB of L2.
TEST(CudaPlanner, DirectInL2) {
  const DeviceInfo dev = h100();
  // A thread's element its own sector (output dim 0 strided in the input): 32 / element size.
  EXPECT_DOUBLE_EQ(direct_read_factor(problem({1000, 500}, {1, 0}, 8)), 4.0);
  EXPECT_DOUBLE_EQ(direct_read_factor(problem({1000, 500}, {1, 0}, 16)), 2.0);
  // Input dim 0 first and long: whole sectors.
  EXPECT_DOUBLE_EQ(direct_read_factor(problem({256, 30, 40}, {0, 2, 1}, 4)), 1.0);
  // Cells of 13 x 8 transposed: a warp reads 4 of a cell's 8 columns, 8 rows 52 bytes apart.
  EXPECT_NEAR(direct_read_factor(problem({13, 8, 2, 41, 8, 16}, {1, 0, 5, 4, 3, 2}, 4)), 3.19,
              0.01);
  // A warp's 32 outputs from 8 x 4 positions of two strided dims: a sector each.
  EXPECT_DOUBLE_EQ(direct_read_factor(problem({16, 16, 8, 8, 8, 8}, {4, 2, 0, 5, 3, 1}, 4)), 8.0);
  struct Want {
    std::vector<int64_t> ext;
    std::vector<int> perm;
    size_t es;
    bool direct;
  };
  for (const Want& w : std::vector<Want>{
           {{13, 8, 2, 41, 8, 16}, {1, 0, 5, 4, 3, 2}, 4, true},   // 4.2 MiB of cells
           {{6, 24, 1136}, {0, 2, 1}, 16, true},                   // 96-byte rows, 2.5 MiB
           {{16, 8, 8, 8, 8, 8}, {4, 2, 0, 5, 3, 1}, 8, true},     // 4 MiB, factor 4
           {{16, 16, 8, 8, 8, 8}, {4, 2, 0, 5, 3, 1}, 4, false},   // 4 MiB, factor 8
           {{16, 16, 16, 8, 8, 8}, {4, 2, 0, 5, 3, 1}, 8, false},  // 16 MiB, factor 4
           {{1000, 500}, {1, 0}, 8, false},                        // wide2d's
           {{700, 30, 40}, {0, 2, 1}, 8, false},                   // rows of 5600 bytes
           {{13, 8, 2, 41, 8, 16}, {1, 0, 5, 4, 3, 2}, 2, false},  // 2-byte elements
           {{40, 40, 40, 40, 8}, {3, 1, 4, 0, 2}, 8, false}}) {    // 164 MB: not in L2
    const Problem p = problem(w.ext, w.perm, w.es);
    EXPECT_EQ(direct_in_l2(p, dev), w.direct) << p.to_string();
    Choice best;
    ASSERT_TRUE(best_choice(p, dev, nullptr, &best));
    EXPECT_EQ(is_direct(best.schema), w.direct) << p.to_string() << " " << summarize(p, best);
    std::vector<Choice> all;
    enumerate_choices(p, dev, nullptr, &all);
    ASSERT_FALSE(all.empty());
    EXPECT_EQ(is_direct(all.front().schema), w.direct) << p.to_string();
  }
}

TEST(CudaPlanner, SpecsStayWithinLimits) {
  const DeviceInfo dev = h100();
  std::mt19937_64 rng(xpose_test::test_seed("SpecsStayWithinLimits"));
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = 2 + static_cast<int>(rng() % 10);
    std::vector<int64_t> ext(rank);
    std::vector<int> perm(rank);
    for (int k = 0; k < rank; ++k) ext[k] = 2 + static_cast<int64_t>(rng() % 40), perm[k] = k;
    std::shuffle(perm.begin(), perm.end(), rng);
    const size_t es = size_t{1} << (rng() % 5);
    const Problem p = problem(ext, perm, es);
    std::vector<Choice> c;
    enumerate_choices(p, dev, nullptr, &c);
    ASSERT_FALSE(c.empty()) << p.to_string();
    KernelSpec spec;
    build_spec(p, c[0], &spec);
    if (c[0].schema == Schema::Copy || c[0].schema == Schema::Rows) continue;
    if (is_direct(c[0].schema)) {  // tensors of a few KB, or in L2: a thread per element
      EXPECT_TRUE((p.bytes() <= direct_max_bytes() && p.volume <= direct_max_elems()) ||
                  direct_in_l2(p, dev))
          << p.to_string();
      EXPECT_EQ(spec.direct.volume, p.volume);
      EXPECT_EQ(spec.direct.n_dims, p.rank);
      EXPECT_GE(int64_t{spec.choice.grid} * kDirectThreads, p.volume);
      EXPECT_EQ(spec.smem_bytes, 0u);
      continue;
    }
    EXPECT_TRUE(p.bytes() > direct_max_bytes() || p.volume > direct_max_elems())
        << summarize(p, c[0]);
    EXPECT_FALSE(direct_in_l2(p, dev)) << summarize(p, c[0]);
    if (c[0].cells) {  // tiles of cells: within 48 KB (no opt-in), blocks looping over tiles
      EXPECT_LE(es, 2u);
      EXPECT_EQ(spec.smem_bytes, unsigned(cell_smem_bytes(spec.cells)));
      EXPECT_LE(spec.smem_bytes, 48u << 10);
      EXPECT_GE(spec.choice.grid, 1u);
      EXPECT_LE(int64_t{spec.choice.grid}, spec.cells.num_tiles);
      continue;
    }
    EXPECT_EQ(c[0].narrow, es <= 2) << summarize(p, c[0]);
    if (c[0].narrow2d) {  // 2D tiles: a block per tile, no shared-memory opt-in (wide2d: static)
      const int out_bytes = es == 1 ? narrow2d_out_bytes(c[0].out_run) : kNarrow2dOutBytes;
      EXPECT_EQ(spec.smem_bytes,
                c[0].wide2d ? 0u
                : c[0].thin ? unsigned(thin2d_smem_bytes(spec.narrow2d, int(es)))
                            : unsigned(narrow2d_smem_bytes(int(es), out_bytes,
                                                           spec.narrow2d.sector)));
      EXPECT_LE(spec.smem_bytes, 48u << 10);
      // A block a tile; past 2^31 - 1 tiles the blocks loop over them.
      EXPECT_EQ(int64_t{spec.choice.grid},
                std::min<int64_t>(spec.narrow2d.num_tiles, INT32_MAX));
      continue;
    }
    if (c[0].narrow) {  // narrow tiles: their shared memory with tables, no opt-in
      EXPECT_LE(spec.smem_bytes, unsigned(kNarrowMaxSmemBytes));
      EXPECT_LE(int64_t{spec.narrow.data_bytes}, spec.smem_bytes);
      EXPECT_LE(c[0].tile_volume * int64_t(es), kNarrowTileBytes);
      EXPECT_GE(spec.choice.grid, 1u);
      continue;
    }
    // kMaxTileStages buffers at most (160 KB), within the H100's 227 KB per block, and as
    // many buffers as the kernel's pipeline uses (one through registers below 4 bytes).
    EXPECT_LE(spec.smem_bytes, unsigned(kMaxTileStages) * kMaxTileSmemBytes);
    EXPECT_LE(spec.smem_bytes, 227u << 10);
    EXPECT_EQ(spec.smem_bytes, unsigned(spec.tiled.stages * spec.tiled.buffer_elems) * es);
    EXPECT_EQ(spec.tiled.stages == 1, es < 4) << summarize(p, c[0]);
    EXPECT_LE(spec.tiled.volume, c[0].threads * kElemsPerThread);
    EXPECT_GE(spec.choice.grid, 1u);
    EXPECT_EQ(summarize(p, c[0]).find(','), std::string::npos);
  }
}

TEST(CudaPlanner, ParseSchema) {
  SchemaRequest r;
  std::string why;
  EXPECT_TRUE(parse_schema("tiled:in=64,out=32,threads=256", &r, &why));
  EXPECT_EQ(r.in_run, 64);
  EXPECT_EQ(r.threads, 256);
  EXPECT_FALSE(parse_schema("nope", &r, &why));
  EXPECT_NE(why.find("packed-split"), std::string::npos);
  EXPECT_FALSE(parse_schema("tiled:foo=1", &r, &why));
  EXPECT_FALSE(parse_schema("tiled:in=", &r, &why));
  EXPECT_TRUE(parse_schema("packed:stages=4", &r, &why));
  EXPECT_EQ(r.stages, 4);
  EXPECT_FALSE(parse_schema("tiled:stages=5", &r, &why));
  EXPECT_FALSE(parse_schema("tiled:stages=1", &r, &why));
}

// The planner alone (no device query) for rank-8 problems; generous bound for shared CI boxes.
TEST(CudaPlanner, EnumerationIsFast) {
  const DeviceInfo dev = h100();
  const Problem p = problem({5, 3, 2, 4, 35, 33, 37, 40}, {7, 2, 5, 0, 3, 1, 6, 4}, 8);
  std::vector<Choice> c;
  KernelSpec spec;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) {
    enumerate_choices(p, dev, nullptr, &c);
    build_spec(p, c[0], &spec);
  }
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
      200;
  std::printf("enumerate + build, rank 8: %.1f us (%zu candidates)\n", us, c.size());
  EXPECT_LT(us, 500.0);
}

// Heuristic planning's best_choice finds enumerate_choices' first, with the embedded models of
// the H100 (narrow trees that do not know raw rows: prefer_raw_rows) and of the H200 (trees
// that know them: the lowest prediction of those they ranked, unless a cells or thin2d
// candidate leads), on random 1- and 2-byte problems of the narrow trees' sizes.
TEST(CudaPlanner, HeuristicFirstWithNarrowTrees) {
  if (std::getenv("XPOSE_MODEL_FILE")) GTEST_SKIP() << "XPOSE_MODEL_FILE replaces the models";
  std::mt19937_64 rng(xpose_test::test_seed("HeuristicFirstWithNarrowTrees"));
  for (const char* name : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}) {
    DeviceInfo dev = xpose_test::fake_h100();
    dev.name = name;
    const bool knows_raw = std::string(name) == "NVIDIA H200";
    int checked = 0;
    for (int n = 0; n < 60; ++n) {
      const int rank = 2 + static_cast<int>(rng() % 7);
      const size_t es = 1 + rng() % 2;
      std::vector<int64_t> ext(rank);
      std::vector<int> perm(rank);
      const double side = std::pow((40e6 + static_cast<double>(rng() % 200000000)) /
                                       static_cast<double>(es), 1.0 / rank);
      for (int i = 0; i < rank; ++i) {
        ext[i] = std::max<int64_t>(2, std::llround(side * (0.5 + (rng() % 1000) / 1000.0)));
        perm[i] = i;
      }
      std::shuffle(perm.begin(), perm.end(), rng);
      const Problem p = problem(ext, perm, es);
      std::vector<Choice> all;
      enumerate_choices(p, dev, nullptr, &all);
      Choice best;
      ASSERT_TRUE(best_choice(p, dev, nullptr, &best));
      ASSERT_FALSE(all.empty());
      SCOPED_TRACE(p.to_string() + " on " + name);
      EXPECT_EQ(summarize(p, best), summarize(p, all.front()));
      EXPECT_EQ(best.predicted, all.front().predicted);
      if (!knows_raw || all.front().model == nullptr) continue;  // a lead, or not ranked
      for (const Choice& c : all)
        if (c.model == all.front().model) EXPECT_GE(c.predicted, all.front().predicted);
      ++checked;
    }
    if (knows_raw) EXPECT_GT(checked, 20);
  }
}

// Small narrow tiles run kNarrowSmallBlocks blocks an SM where the registers of the
// instantiations that may (DeviceInfo::narrow_four_regs) and their shared memory allow: raw-row
// tiles (1 and 2 bytes) and realigned 1-byte gathered tiles of under
// kNarrowGatheredFourBlockBytes, 1-byte quads without the deal warp of at most
// kNarrowQuadFourBlockBytes (Choice::raw_grid, realigned_grid: the grids build_spec launches
// them with, marked NarrowParams::four_blocks). Other tiles, and unknown registers, keep the grid
// of kNarrowBlocks.
TEST(CudaPlanner, SmallNarrowTilesRunFourBlocksAnSm) {
  DeviceInfo dev = h100();
  dev.narrow_regs = 72;
  dev.narrow_four_regs = 64;
  int raw = 0, gathered = 0, quads = 0, launches = 0;
  for (const size_t es : {size_t{1}, size_t{2}})
    for (const auto& [ext, perm] : std::vector<std::pair<std::vector<int64_t>, std::vector<int>>>{
             {{11, 17, 45, 10, 19, 7, 7}, {6, 1, 0, 2, 5, 4, 3}},
             {{24, 24, 24, 24, 24, 24}, {2, 0, 3, 5, 4, 1}},
             {{53, 4, 4, 30, 22, 4, 19}, {3, 6, 0, 4, 2, 1, 5}},
             {{80238, 120, 21}, {2, 1, 0}},
             {{6, 97, 37, 10, 71, 12}, {4, 2, 1, 0, 3, 5}}}) {
      const Problem p = problem(ext, perm, es);
      std::vector<Choice> all;
      enumerate_choices(p, dev, nullptr, &all, false);
      for (const Choice& c : all) {
        if (!c.narrow || c.narrow2d || c.cells) continue;
        SCOPED_TRACE(summarize(p, c));
        const int64_t bytes = c.tile_volume * static_cast<int64_t>(es);
        const bool quad = c.schema == Schema::Tiled;
        const unsigned four_grid =
            static_cast<unsigned>(std::min<int64_t>(c.num_tiles, kNarrowSmallBlocks * dev.sms));
        if (c.raw_grid != c.grid) {
          EXPECT_TRUE(c.raw_rows);
          EXPECT_LT(bytes, kNarrowGatheredFourBlockBytes);
          EXPECT_EQ(c.raw_grid, four_grid);
          ++raw;
        }
        if (c.realigned_grid != c.grid) {
          EXPECT_EQ(es, 1u);
          EXPECT_EQ(c.realigned_grid, four_grid);
          if (quad) {
            EXPECT_LE(bytes, kNarrowQuadFourBlockBytes);
            EXPECT_FALSE(narrow_deal_warp(true, 1, c.in_run, false));
            ++quads;
          } else {
            EXPECT_LT(bytes, kNarrowGatheredFourBlockBytes);
            ++gathered;
          }
        }
        KernelSpec spec;
        build_spec(p, c, &spec);
        const unsigned grid = spec.narrow.raw_rows ? c.raw_grid : c.realigned_grid;
        EXPECT_EQ(spec.choice.grid, std::max(grid, c.grid));
        EXPECT_EQ(spec.narrow.four_blocks != 0, spec.choice.grid > c.grid);
        if (spec.narrow.four_blocks)
          EXPECT_LE((spec.narrow.smem_bytes + 1024) * kNarrowSmallBlocks, dev.smem_per_sm);
        launches += spec.narrow.four_blocks;
      }
      DeviceInfo unknown = dev;
      unknown.narrow_four_regs = 0;  // no query: three blocks
      enumerate_choices(p, unknown, nullptr, &all, false);
      for (const Choice& c : all) {
        EXPECT_EQ(c.raw_grid, c.grid) << summarize(p, c);
        EXPECT_EQ(c.realigned_grid, c.grid) << summarize(p, c);
      }
    }
  EXPECT_GT(raw, 0);
  EXPECT_GT(gathered, 0);
  EXPECT_GT(quads, 0);
  EXPECT_GT(launches, 0);
}

}  // namespace

namespace {
// Odd square matrices: rows sit badly on cache lines, so the model must ask for long runs on
// both sides (short 128-byte runs ran at 0.39 of copy on the H100, docs/perf/cuda-h100.md).
TEST(CudaPlanner, MisalignedRowsGetLongRuns) {
  const DeviceInfo dev = h100();
  const Problem p = problem({13961, 13961}, {1, 0}, 8);
  std::vector<Choice> c;
  enumerate_choices(p, dev, nullptr, &c);
  ASSERT_FALSE(c.empty());
  std::printf("%s\n", summarize(p, c[0]).c_str());
  EXPECT_GE(c[0].in_run, 32);
  EXPECT_GE(c[0].out_run, 32);
}

// Narrow tiles whose runs are one dim each (input dim 0, and the output's dim 0) take
// narrow2d.cu's tile of 128 x 256 bytes (or the whole dim), a block per tile, the run dim with
// fewer tiles walked first (2-byte output dims of odd length or under a tile too); forced run
// targets keep the narrow kernel's own tiles; runs under 64 bytes are not taken.
TEST(CudaPlanner, NarrowOneDimRunsTakeNarrow2d) {
  const DeviceInfo dev = h100();
  struct Want {
    std::vector<int64_t> ext;
    std::vector<int> perm;
    size_t es;
    int64_t ti, tj;          // tile extents
    int64_t tiles0, tiles1;  // tiles of input dim 0, of dim perm[0]
  };
  for (const Want& w : {Want{{14142, 14142}, {1, 0}, 1, 128, 256, 111, 56},
                        Want{{194484, 1031}, {1, 0}, 1, 128, 256, 1520, 5},
                        Want{{585, 585, 585}, {1, 0, 2}, 1, 128, 256, 5, 3},
                        Want{{1000, 3002, 7}, {1, 0, 2}, 2, 64, 128, 16, 24},
                        Want{{85, 300, 9}, {1, 0, 2}, 2, 64, 128, 2, 3},
                        Want{{1000, 3001}, {1, 0}, 2, 64, 128, 16, 24},
                        Want{{1000, 100, 5}, {1, 0, 2}, 2, 64, 100, 16, 1},
                        // 1 byte, fewer than 3 full tiles per SM: output runs of 128 bytes
                        Want{{1000, 3001}, {1, 0}, 1, 128, 128, 8, 24},
                        Want{{301, 500, 3}, {1, 0, 2}, 1, 128, 128, 3, 4}}) {
    const Problem p = problem(w.ext, w.perm, w.es);
    std::vector<Choice> c;
    enumerate_choices(p, dev, nullptr, &c);
    const auto narrow2d = [](const Choice& x) { return x.narrow2d && !x.wide2d; };
    const auto it = std::find_if(c.begin(), c.end(), narrow2d);
    ASSERT_NE(it, c.end()) << p.to_string();
    EXPECT_EQ(std::count_if(c.begin(), c.end(), narrow2d), 1);
    KernelSpec spec;
    build_spec(p, *it, &spec);
    const Narrow2dParams& n = spec.narrow2d;
    const int64_t es = static_cast<int64_t>(w.es), j = p.perm[0];
    EXPECT_EQ(n.ti, w.ti);
    EXPECT_EQ(n.tj, w.tj);
    EXPECT_EQ(n.in_row, p.input().stride[j] * es);
    EXPECT_EQ(n.out_row, p.output_strides()[0] * es);
    EXPECT_EQ(n.num_tiles, w.tiles0 * w.tiles1 * (p.volume / p.extent[0] / p.extent[j]));
    EXPECT_EQ(int64_t{spec.choice.grid}, n.num_tiles);
    ASSERT_GE(n.n_grid, 2);
    if (w.tiles1 > 1) {  // both run dims blocked: the one with fewer tiles first
      EXPECT_EQ(static_cast<int64_t>(n.grid[0].count.d), std::min(w.tiles0, w.tiles1));
      EXPECT_EQ(static_cast<int64_t>(n.grid[1].count.d), std::max(w.tiles0, w.tiles1));
    }
    EXPECT_NE(summarize(p, *it).find("narrow2d"), std::string::npos);
    // Forced runs: the narrow kernel's tiles.
    SchemaRequest req;
    std::string why;
    ASSERT_TRUE(parse_schema("tiled:in=64,out=64", &req, &why)) << why;
    enumerate_choices(p, dev, &req, &c);
    ASSERT_FALSE(c.empty());
    for (const Choice& x : c) EXPECT_FALSE(x.narrow2d) << summarize(p, x);
  }
  // Runs of fewer than 64 bytes: no narrow2d candidate (thin2d.cu's tile instead).
  for (const Problem& p : {problem({1000, 40}, {1, 0}, 1), problem({20, 5000}, {1, 0}, 2),
                           problem({1000, 31}, {1, 0}, 2)}) {
    std::vector<Choice> c;
    enumerate_choices(p, dev, nullptr, &c);
    for (const Choice& x : c) EXPECT_FALSE(x.narrow2d && !x.thin) << summarize(p, x);
  }
}

// Typed problems whose input dim 0 stays leading take rows from 1.5 KB of input row (8 KB with
// beta and no conversion; never with beta and a conversion; rows_typed.cu); their tiles
// (forced, or below that) with rows of >= 256 elements are tiles of whole rows (or, for inputs of
// 4 bytes and more, of even pieces of rows longer than a tile); shorter rows, and 1- and 2-byte
// inputs with rows longer than a tile, keep the planner's targets; dense conversions without beta
// from 1- and 2-byte inputs, and from f32 to fp8, take the narrow kernel's tiles
// (narrow_typed.cu, narrow_loads.cu) at its targets; plain problems are untouched.
TEST(CudaPlanner, TypedLongRowsTakeRowsOrTilesOfWholeRows) {
  const DeviceInfo dev = xpose_test::fake_h100();
  struct Case {
    std::vector<int64_t> extents;
    std::vector<int> perm;
    xpose_type_t in, out;
    double beta;
    int64_t min_run;  // 0: not constrained; -1: the narrow kernel's tiles
  };
  const Case cases[] = {
      {{1351, 206, 90}, {0, 2, 1}, XPOSE_TYPE_F32, XPOSE_TYPE_BF16, 0, 1351},
      {{1351, 206, 90}, {0, 2, 1}, XPOSE_TYPE_F16, XPOSE_TYPE_F32, 0.5, 1351},
      {{1800, 120, 230}, {0, 2, 1}, XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3, 0.5, 1800},
      {{5000, 800, 10}, {0, 2, 1}, XPOSE_TYPE_F32, XPOSE_TYPE_F16, 0, 1667},
      {{386, 43, 59, 26}, {0, 3, 1, 2}, XPOSE_TYPE_F32, XPOSE_TYPE_F32, 1, 386},
      {{5000, 800, 10}, {0, 2, 1}, XPOSE_TYPE_F16, XPOSE_TYPE_F32, 0.5, 0},  // 2-byte pieces
      {{17, 17, 17, 17, 17, 17}, {0, 5, 1, 4, 3, 2}, XPOSE_TYPE_F32, XPOSE_TYPE_BF16, 0, 0},
      {{1351, 206, 90}, {0, 2, 1}, XPOSE_TYPE_F16, XPOSE_TYPE_F32, 0, -1},
      {{700, 206, 90}, {0, 2, 1}, XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3, 0, -1},
      {{300, 206, 90}, {0, 2, 1}, XPOSE_TYPE_F32, XPOSE_TYPE_F8_E4M3, 0, -1},
      {{300, 206, 90}, {0, 2, 1}, XPOSE_TYPE_F32, XPOSE_TYPE_F8_E5M2, 0.5, 300},
  };
  for (const Case& k : cases) {
    xpose_desc_t d;
    xpose_desc_init(&d);
    d.in_type = k.in, d.out_type = k.out;
    d.beta[0] = k.beta;
    const size_t es = k.in == XPOSE_TYPE_F32 ? 4 : 2;
    Problem p;
    ASSERT_EQ(make_problem_ex(static_cast<int>(k.extents.size()), k.extents.data(),
                              k.perm.data(), es, &d, XPOSE_COL_MAJOR, &p),
              XPOSE_SUCCESS);
    std::vector<Choice> c;
    enumerate_choices(p, dev, nullptr, &c);
    ASSERT_FALSE(c.empty());
    const int64_t row = p.extent[0] * static_cast<int64_t>(es);
    const bool rows = k.beta == 0 ? row >= 1536 : k.in == k.out && row >= 8192;
    EXPECT_EQ(c.size() == 1 && c[0].schema == Schema::Rows, rows) << summarize(p, c[0]);
    SchemaRequest tiles;
    std::string why;
    ASSERT_TRUE(parse_schema("fvi-small", &tiles, &why)) << why;
    enumerate_choices(p, dev, &tiles, &c);
    ASSERT_FALSE(c.empty());
    SCOPED_TRACE(summarize(p, c[0]));
    EXPECT_EQ(c[0].schema, Schema::FviSmall);
    for (const Choice& x : c) {
      if (is_direct(x.schema)) continue;
      EXPECT_EQ(x.narrow, k.min_run < 0);
      EXPECT_GE(x.in_run, k.min_run);
      EXPECT_GE(x.out_run, k.min_run);
    }
    if (k.min_run == 0) EXPECT_LE(c[0].in_run, 512);
  }
  // The same shape, plain: its candidates still include runs cut to the targets.
  std::vector<Choice> c;
  enumerate_choices(problem({1351, 206, 90}, {0, 2, 1}, 4), dev, nullptr, &c);
  EXPECT_TRUE(std::any_of(c.begin(), c.end(), [](const Choice& x) {
    return !is_rows(x.schema) && x.in_run < 1351;
  }));
}
}  // namespace

// V1BF walk order: a bijection of the tiles, band by band, for band widths that divide the
// first grid dimension and ones that leave a narrower last band, with and without outer dims.
TEST(CudaPlanner, BandedTileOrderIsABijection) {
  const DeviceInfo dev = h100();
  struct Case { std::vector<int64_t> ext; std::vector<int> perm; };
  for (const Case& c : {Case{{700, 300}, {1, 0}}, Case{{1000, 999}, {1, 0}},
                        Case{{500, 130, 3}, {1, 0, 2}}, Case{{64, 4096}, {1, 0}}})
    for (const int band : {2, 3, 5, 8}) {
      const Problem p = problem(c.ext, c.perm, 4);
      SchemaRequest req;
      std::string why;
      ASSERT_TRUE(parse_schema("tiled:in=32,out=32,band=" + std::to_string(band), &req, &why));
      std::vector<Choice> choices;
      enumerate_choices(p, dev, &req, &choices);
      ASSERT_FALSE(choices.empty());
      KernelSpec spec;
      build_spec(p, choices.front(), &spec);
      const TiledParams& tp = spec.tiled;
      const uint64_t g0 = tp.grid[0].count.d, g1 = tp.grid[1].count.d;
      if (g0 <= static_cast<uint64_t>(band)) {  // one band: the plain order
        EXPECT_EQ(tp.band_w.d, 1u);
        continue;
      }
      ASSERT_EQ(tp.band_w.d, static_cast<uint64_t>(band)) << p.to_string();
      std::vector<int> seen(static_cast<size_t>(tp.num_tiles), 0);
      for (uint32_t t = 0; t < static_cast<uint32_t>(tp.num_tiles); ++t) {
        const uint64_t m = banded_tile(tp, t);
        ASSERT_LT(m, static_cast<uint64_t>(tp.num_tiles));
        ++seen[m];
        // Position t's band is the band of the column it maps to.
        const uint64_t lo = uint64_t{t} % (g0 * g1);
        EXPECT_EQ((m % (g0 * g1)) % g0 / static_cast<uint64_t>(band),
                  lo / (static_cast<uint64_t>(band) * g1));
      }
      for (const int s : seen) ASSERT_EQ(s, 1);
    }
}
