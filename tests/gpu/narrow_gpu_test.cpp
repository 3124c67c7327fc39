// The narrow kernel (elements of 1 and 2 bytes, src/cuda/narrow.cu) and the realigned row copy
// (rows.cu) on the device: every schema forced on odd extents, at every pointer misalignment
// that matters (the kernels move aligned 16-byte chunks and words whatever the pointers), and
// shapes with many and partial tiles whose first and last chunks meet the tensors' ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "../fake_device.hpp"
#include "core/problem.hpp"
#include "cuda/planner.hpp"
#include "cuda/runtime.hpp"
#include "cuda/tile_deal.hpp"
#include "gpu_util.hpp"

using namespace xpose_test;
using namespace xpose::detail;

namespace {

TEST(CudaNarrow, ForcedSchemasOddExtentsAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaNarrowForced"));
  const std::vector<Case> cases = {
      {{67, 45}, {1, 0}},           {{1001, 3}, {1, 0}},          {{3, 1001}, {1, 0}},
      {{40, 3, 50}, {2, 1, 0}},     {{4, 3, 40, 5}, {1, 0, 3, 2}}, {{8, 9, 70}, {1, 2, 0}},
      {{2, 3, 4, 5, 6}, {4, 2, 0, 1, 3}}, {{5, 3, 2, 4, 35, 33}, {5, 4, 3, 2, 1, 0}},
      {{3, 90, 2, 60}, {1, 3, 0, 2}}, {{700, 300}, {1, 0}},        {{500, 130, 3}, {1, 0, 2}},
      {{6, 33, 17}, {0, 2, 1}},     {{17, 19, 23, 29}, {3, 1, 0, 2}}, {{129, 255}, {1, 0}},
      {{119, 30, 7}, {0, 2, 1}},    {{13, 40, 50}, {0, 2, 1}},    {{3, 70, 90}, {0, 2, 1}},
      {{4099}, {0}},
      // Realigned rows on both sides of 2 KB (from there a warp to a chunk of a row's words;
      // params.hpp realign_long), of two and three chunks.
      {{1023, 3, 5}, {0, 2, 1}},    {{2049, 3, 4}, {0, 2, 1}},    {{2500, 3, 2}, {0, 2, 1}},
      {{4100}, {0}},
      // Gathered spans of 4 KB and more (a line of positions a warp, params.hpp).
      {{15, 225, 7}, {1, 0, 2}},    {{7, 700, 3}, {1, 0, 2}},     {{33, 5, 130}, {2, 1, 0}}};
  // The row and copy kernels take rows of odd length realigned (rows.cu).
  const char* schemas[] = {nullptr, "tiled", "packed", "packed-split", "fvi-small",
                           "tiled:in=16,out=16", "tiled:in=512,out=32", "packed:in=256,out=256",
                           "rows", "copy"};
  const std::pair<size_t, size_t> offsets[] = {{0, 0}, {1, 3}, {3, 1}, {2, 2}, {5, 6}, {15, 13}};
  DeviceBuffers bufs(size_t{1} << 21);
  int runs = 0;
  for (const char* schema : schemas)
    for (const Case& c : cases)
      for (size_t es : {size_t{1}, size_t{2}})
        for (auto [a, b] : offsets) {
          const xpose_status_t st =
              check_case(bufs, rng, static_cast<int>(c.ext.size()), c.ext.data(), c.perm.data(),
                         es, XPOSE_COL_MAJOR, schema, a, b);
          if (st == XPOSE_SUCCESS) ++runs;
          else ASSERT_EQ(st, XPOSE_ERROR_INVALID_ARGUMENT) << xpose_last_error();
          if (HasFailure()) return;
        }
  std::printf("%d narrow runs checked\n", runs);
  EXPECT_GT(runs, 800);
}

// Random shapes up to a few MB: many tiles, edge tiles along both blocked dims, row-major too.
TEST(CudaNarrow, RandomShapesManyTiles) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaNarrowRandom"));
  DeviceBuffers bufs(size_t{1} << 23);
  for (int iter = 0; iter < 120; ++iter) {
    const int rank = 2 + static_cast<int>(rng() % 6);
    const size_t es = 1 + rng() % 2;
    std::vector<int64_t> ext(rank);
    int64_t vol = 1;
    for (int k = 0; k < rank; ++k) {
      ext[k] = 1 + static_cast<int64_t>(rng() % (rank == 2 ? 3000 : rank == 3 ? 200 : 30));
      if (vol * ext[k] * static_cast<int64_t>(es) > (int64_t{1} << 23) - 64) ext[k] = 1;
      vol *= ext[k];
    }
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const xpose_layout_t layout = rng() % 2 ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
    ASSERT_EQ(check_case(bufs, rng, rank, ext.data(), perm.data(), es, layout, nullptr,
                         rng() % 16, rng() % 16),
              XPOSE_SUCCESS)
        << xpose_last_error();
    if (HasFailure()) return;
  }
}

// A case's normalized problem and candidates on the fake H100, random input and the expected
// output.
struct PlannedCase {
  Problem p;
  std::vector<Choice> all;
  std::vector<uint8_t> in, want;
};

PlannedCase plan_case(const Case& c, size_t es, std::mt19937_64& rng) {
  PlannedCase r;
  const int rank = static_cast<int>(c.ext.size());
  EXPECT_EQ(make_problem(rank, c.ext.data(), c.perm.data(), es, XPOSE_COL_MAJOR, &r.p),
            XPOSE_SUCCESS);
  enumerate_choices(r.p, xpose_test::fake_h100(), nullptr, &r.all);
  const size_t bytes = static_cast<size_t>(r.p.volume) * es;
  r.in = random_bytes(rng, bytes);
  r.want.assign(bytes + kGuard, kPoison);
  reference(rank, c.ext.data(), c.perm.data(), es, XPOSE_COL_MAJOR, r.in.data(), r.want.data());
  return r;
}

// Narrow 2D tiles (narrow2d.cu: Tiled, one-dim runs of >= 64 bytes) on shapes around the tiles'
// edges (128 x 256 and 128 x 128 bytes), batched too, at every pointer alignment (2-byte
// elements off 2 bytes gather bytes): the planner's narrow2d candidate launched whatever it
// ranks first (whole-word shapes in L2 rank wide2d.cu's packed tile first,
// tests/gpu/wide2d_gpu_test.cpp), 1-byte ones with output runs of both a full and a short tile,
// full tiles also as sector tiles (halo tiles that start at the sector before them). Shapes
// whose output runs' dim is whole and continued by a grid dim (the last seven, and (70, 2, 3,
// 90)) take chains (Narrow2dParams::chain_grid): halo rows from the tile before along that dim.
TEST(CudaNarrow, Narrow2dTileEdgesAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaNarrow2d"));
  const std::vector<Case> cases = {
      {{128, 256}, {1, 0}},       {{129, 257}, {1, 0}},       {{127, 255}, {1, 0}},
      {{64, 64}, {1, 0}},         {{65, 300, 3}, {1, 0, 2}},  {{300, 65, 2}, {1, 0, 2}},
      {{1000, 78}, {1, 0}},       {{77, 1000}, {1, 0}},       {{300, 200, 2}, {1, 0, 2}},
      {{70, 2, 3, 90}, {3, 1, 2, 0}}, {{513, 1026}, {1, 0}}, {{100, 5, 134}, {2, 0, 1}},
      {{119, 50, 119}, {2, 1, 0}}, {{120, 40, 120}, {2, 1, 0}}, {{70, 9, 5, 83}, {3, 1, 0, 2}},
      {{300, 7, 65}, {2, 1, 0}},  {{65, 3, 2, 66}, {3, 2, 1, 0}}, {{64, 5, 64}, {2, 1, 0}},
      {{131, 3, 250}, {2, 1, 0}}};
  const std::pair<size_t, size_t> offsets[] = {{0, 0}, {1, 3}, {3, 1}, {2, 2}, {0, 1}, {6, 2}};
  DeviceBuffers bufs(size_t{1} << 21);
  int runs = 0, chains = 0;
  for (const Case& c : cases)
    for (size_t es : {size_t{1}, size_t{2}}) {
      const PlannedCase pc = plan_case(c, es, rng);
      const Problem& p = pc.p;
      const std::vector<uint8_t>&in = pc.in, &want = pc.want;
      const auto n = std::find_if(pc.all.begin(), pc.all.end(),
                                  [](const Choice& x) { return x.narrow2d && !x.wide2d; });
      ASSERT_NE(n, pc.all.end()) << p.to_string();
      const int64_t e0 = p.extent[0], e1 = p.extent[p.perm[0]];
      for (const int out_bytes : {kNarrow2dOutBytes, es == 1 ? kNarrow2dShortOutBytes : 0}) {
        if (out_bytes == 0) continue;
        Choice t = *n;  // the tile with output runs of out_bytes (or the whole dim)
        t.out_run = std::min<int64_t>(e1, out_bytes / static_cast<int64_t>(es));
        t.num_tiles = ((e0 + t.in_run - 1) / t.in_run) * ((e1 + t.out_run - 1) / t.out_run) *
                      (p.volume / e0 / e1);
        t.grid = static_cast<unsigned>(t.num_tiles);
        KernelSpec spec;
        build_spec(p, t, &spec);
        ASSERT_EQ(spec.narrow2d.num_tiles, t.num_tiles) << p.to_string();
        // Full tiles also as sector tiles (the planner's choice above 32 MiB only).
        const bool chain = spec.narrow2d.chain_grid >= 0;
        for (const int sector : {0, 1}) {
          // A chain's sector halo takes 32 bytes of the tile before's output runs.
          if (sector && (out_bytes != kNarrow2dOutBytes || (chain && t.out_run * es < 32)))
            continue;
          spec.narrow2d.sector = sector;
          for (auto [a, b] : offsets) {
            const auto got = launch_on(bufs, in, a, b, [&](const uint8_t* src, uint8_t* dst) {
              return launch_narrow2d(spec.narrow2d, static_cast<int>(es), src, dst, nullptr,
                                     spec.choice.grid);
            });
            ASSERT_EQ(got, want) << p.to_string() << " " << summarize(p, t) << " offsets " << a
                                 << "/" << b << " sector " << sector << " chain " << chain;
            ++runs;
            chains += chain;
          }
        }
      }
    }
  std::printf("%d narrow2d launches checked, %d of them chains\n", runs, chains);
  EXPECT_EQ(runs, 570);
  EXPECT_EQ(chains, 222);
}

// Quads with halo rows (NarrowParams::halo: 1-byte quads whose runs start off words): tiles
// after the first along the dim that continues their output runs (the runs' blocked dim, or
// the output's next dim) write the word across their runs' starts from the tile before's last
// rows. Every quad candidate with them of shapes with odd runs (23, all 1 B), at
// pointer offsets that move the runs' words, launched directly.
TEST(CudaNarrow, QuadHaloRowsAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaNarrowHalo"));
  ASSERT_NE(xpose::detail::device_info(0, nullptr), nullptr);  // the kernels' shared memory set up
  const std::vector<Case> cases = {
      {{67, 45, 9}, {2, 1, 0}},          {{13, 7, 61, 5}, {3, 2, 1, 0}},
      {{301, 299}, {1, 0}},              {{45, 45, 45}, {1, 2, 0}},
      {{9, 131, 3, 17}, {1, 3, 0, 2}},   {{3, 5, 7, 11, 13}, {4, 3, 2, 1, 0}},
      {{1001, 3, 5}, {1, 2, 0}},         {{33, 33, 33, 3}, {2, 1, 0, 3}}};
  const std::pair<size_t, size_t> offsets[] = {{0, 0}, {1, 3}, {3, 1}, {2, 2}, {0, 1}, {7, 5}};
  DeviceBuffers bufs(size_t{1} << 21);
  int runs = 0;
  for (const Case& c : cases) {
    const PlannedCase pc = plan_case(c, 1, rng);
    for (const Choice& t : pc.all) {
      if (!t.narrow || t.narrow2d) continue;
      KernelSpec spec;
      build_spec(pc.p, t, &spec);
      if (!spec.narrow.halo) continue;
      // Dealt by a warp of its own or by thread 0, whichever the rule picks (NarrowParams::
      // deal_warp: rows under kNarrowDealWarpRowBytes1), and the other way too.
      for (const int deal_warp : {0, 1}) {
        spec.narrow.deal_warp = deal_warp;
        for (auto [a, b] : offsets) {
          const auto got = launch_on(bufs, pc.in, a, b, [&](const uint8_t* src, uint8_t* dst) {
            return launch_narrow(spec.narrow, 1, src, dst, nullptr, spec.choice.grid, 0);
          });
          ASSERT_EQ(got, pc.want) << pc.p.to_string() << " " << summarize(pc.p, t)
                                  << " offsets " << a << "/" << b << " deal warp " << deal_warp;
          ++runs;
        }
      }
    }
  }
  std::printf("%d quad launches with halo rows checked\n", runs);
  EXPECT_GT(runs, 120);
}

// Gathered tiles with padded rows (NarrowParams::row_break: the output-fastest dim inside the
// row past dims of a multiple of 16 elements): every such candidate of shapes with extents of
// multiples of 8 and odd ones, 1 and 2 bytes, at pointer offsets that move the rows' chunks,
// launched directly.
TEST(CudaNarrow, PaddedRowsAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaNarrowPadded"));
  ASSERT_NE(xpose::detail::device_info(0, nullptr), nullptr);  // the kernels' shared memory set up
  const std::vector<Case> cases = {
      {{24, 24, 24, 8}, {2, 0, 3, 1}},        {{16, 16, 16, 16, 4}, {2, 0, 4, 1, 3}},
      {{32, 3, 48, 5}, {2, 0, 1, 3}},         {{16, 2, 20, 9}, {2, 1, 0, 3}},
      {{16, 3, 35, 7}, {2, 0, 3, 1}},         {{64, 17, 9}, {1, 0, 2}},
      {{16, 5, 33, 3}, {2, 3, 0, 1}}};
  const std::pair<size_t, size_t> offsets[] = {{0, 0}, {1, 3}, {3, 1}, {2, 2}, {0, 1}, {7, 5}};
  DeviceBuffers bufs(size_t{1} << 21);
  int runs = 0;
  for (const size_t es : {size_t{1}, size_t{2}}) {
    for (const Case& c : cases) {
      const PlannedCase pc = plan_case(c, es, rng);
      for (const Choice& t : pc.all) {
        if (!t.narrow || t.narrow2d || t.cells) continue;
        KernelSpec spec;
        build_spec(pc.p, t, &spec);
        if (!spec.narrow.row_break) continue;
        for (auto [a, b] : offsets) {
          if (es == 2 && (a % 2 || b % 2) && a != b) continue;  // one element misaligned: enough
          const auto got = launch_on(bufs, pc.in, a, b, [&](const uint8_t* src, uint8_t* dst) {
            return launch_narrow(spec.narrow, static_cast<int>(es), src, dst, nullptr,
                                 spec.choice.grid, 0);
          });
          ASSERT_EQ(got, pc.want) << pc.p.to_string() << " " << summarize(pc.p, t)
                                  << " offsets " << a << "/" << b;
          ++runs;
        }
      }
    }
  }
  std::printf("%d launches of gathered tiles with padded rows checked\n", runs);
  EXPECT_GT(runs, 400);
}

// Gathered tiles with raw rows (NarrowParams::raw_rows: the write phase gathers from the rows'
// raw copies, at the tile's input address modulo 16): every gathered candidate without padded
// rows of odd and even shapes, 1 and 2 bytes, with raw rows and realigned, at pointer offsets
// that move the rows' chunks (2-byte elements off halfwords in the input gather bytes), launched
// directly.
TEST(CudaNarrow, RawRowsAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaNarrowRaw"));
  ASSERT_NE(xpose::detail::device_info(0, nullptr), nullptr);  // the kernels' shared memory set up
  const std::vector<Case> cases = {
      {{14, 28, 67, 5}, {3, 0, 2, 1}},  {{11, 56, 60, 28}, {1, 3, 2, 0}},
      {{5, 45, 81, 16}, {1, 3, 2, 0}},  {{15, 15, 15, 15, 3}, {2, 0, 4, 1, 3}},
      {{9, 11, 43, 9, 7}, {3, 0, 4, 1, 2}}, {{3, 39, 77, 4}, {0, 3, 2, 1}},
      {{7, 700, 3}, {1, 0, 2}},          {{33, 5, 130}, {2, 1, 0}},
      {{40, 40, 40}, {2, 0, 1}},         {{16, 16, 16, 16}, {3, 1, 0, 2}}};
  const std::pair<size_t, size_t> offsets[] = {{0, 0}, {1, 3}, {3, 1}, {2, 2}, {0, 1}, {7, 5}};
  DeviceBuffers bufs(size_t{1} << 22);
  int runs = 0, raw = 0;
  for (const size_t es : {size_t{1}, size_t{2}}) {
    for (const Case& c : cases) {
      const PlannedCase pc = plan_case(c, es, rng);
      for (const Choice& t : pc.all) {
        if (!t.narrow || t.narrow2d || t.cells) continue;
        for (const RawRows rule : {RawRows::WhereTheyFit, RawRows::Never}) {
          KernelSpec spec;
          build_spec(pc.p, t, &spec);
          build_narrow(pc.p, t, &spec.narrow, rule);
          if (spec.narrow.quad || spec.narrow.row_break) break;
          for (auto [a, b] : offsets) {
            const auto got = launch_on(bufs, pc.in, a, b, [&](const uint8_t* src, uint8_t* dst) {
              return launch_narrow(spec.narrow, static_cast<int>(es), src, dst, nullptr,
                                   spec.choice.grid, 0);
            });
            ASSERT_EQ(got, pc.want) << pc.p.to_string() << " " << summarize(pc.p, t)
                                    << " offsets " << a << "/" << b << " raw rows "
                                    << spec.narrow.raw_rows;
            ++runs;
            raw += spec.narrow.raw_rows;
          }
        }
      }
    }
  }
  std::printf("%d launches of gathered tiles checked, %d with raw rows\n", runs, raw);
  EXPECT_GT(raw, 240);
}

// Small narrow tiles launched four blocks an SM (params.hpp kNarrowSmallBlocks; 1-byte quads then
// take their instantiation bounded to four blocks, NarrowParams::four_blocks) and three: every
// 1-byte candidate of shapes whose small tiles the rules give four blocks, quads with and
// without halo rows and gathered tiles, at pointer offsets that move the rows' chunks.
TEST(CudaNarrow, FourBlocksAnSmAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaNarrowFour"));
  ASSERT_NE(xpose::detail::device_info(0, nullptr), nullptr);  // the kernels' shared memory set up
  const std::vector<Case> cases = {
      {{11, 6, 5, 13, 12, 9, 7}, {3, 2, 4, 1, 6, 0, 5}}, {{6, 97, 37, 10, 3, 4}, {4, 2, 1, 0, 3, 5}},
      {{801, 120, 21}, {2, 1, 0}},                       {{14, 69, 14, 26, 3, 3}, {4, 2, 1, 5, 0, 3}},
      {{67, 45, 9}, {2, 1, 0}},                          {{13, 7, 61, 5}, {3, 2, 1, 0}},
      {{24, 24, 24, 8}, {2, 0, 3, 1}},                   {{9, 131, 3, 17}, {1, 3, 0, 2}}};
  const std::pair<size_t, size_t> offsets[] = {{0, 0}, {1, 3}, {3, 1}, {0, 1}, {7, 5}};
  const unsigned sms = static_cast<unsigned>(fake_h100().sms);
  DeviceBuffers bufs(size_t{1} << 23);
  int runs = 0, four = 0, quads = 0;
  for (const Case& c : cases) {
    const PlannedCase pc = plan_case(c, 1, rng);
    for (const Choice& t : pc.all) {
      if (!t.narrow || t.narrow2d || t.cells) continue;
      KernelSpec spec;
      build_spec(pc.p, t, &spec);
      four += spec.narrow.four_blocks;
      quads += spec.narrow.four_blocks && spec.narrow.quad;
      for (const int fb : {0, 1}) {
        spec.narrow.four_blocks = fb;
        const unsigned grid = static_cast<unsigned>(
            std::min<int64_t>(t.num_tiles, (fb ? kNarrowSmallBlocks : kNarrowBlocks) * sms));
        for (auto [a, b] : offsets) {
          const auto got = launch_on(bufs, pc.in, a, b, [&](const uint8_t* src, uint8_t* dst) {
            return launch_narrow(spec.narrow, 1, src, dst, nullptr, grid, 0);
          });
          ASSERT_EQ(got, pc.want) << pc.p.to_string() << " " << summarize(pc.p, t)
                                  << " offsets " << a << "/" << b << " four blocks " << fb;
          ++runs;
        }
      }
    }
  }
  std::printf("%d launches checked; the rules gave %d candidates four blocks, %d quads\n", runs,
              four, quads);
  EXPECT_GT(four, 8);
  EXPECT_GT(quads, 2);
}

// Tiles past the grid's first two rounds come from a counter of the launch (tile_order.cuh), or
// round-robin (as in captured launches): both orders, and every launch on one slot, on shapes of
// thousands of tiles (the narrow kernel's own tiles: run targets forced where narrow2d.cu would
// take the shape), quad and gathered tiles (which take and decode their tiles in another thread
// of the block: narrow.cu).
TEST(CudaNarrow, TilesInOrderOrRoundRobin) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaNarrowTileOrder"));
  const char* quads = "tiled:in=64,out=64";
  const std::vector<std::pair<Case, const char*>> cases = {
      {{{6007, 4099}, {1, 0}}, quads},
      {{{13, 65, 37, 129}, {3, 1, 0, 2}}, nullptr},
      {{{5000, 333, 13}, {1, 0, 2}}, quads},
      {{{15, 15, 225, 15, 15}, {3, 1, 4, 0, 2}}, "packed-split"},
      {{{15, 3375, 225}, {0, 2, 1}}, "fvi-small"}};
  DeviceBuffers bufs(size_t{1} << 26);
  struct Restore {
    ~Restore() { xpose::detail::narrow_tile_slots(~0u); }
  } restore;
  for (const unsigned slots : {0u, 1u, ~0u}) {
    xpose::detail::narrow_tile_slots(slots);
    for (const auto& [c, schema] : cases)
      for (size_t es : {size_t{1}, size_t{2}}) {
        std::string plan;
        ASSERT_EQ(check_case(bufs, rng, static_cast<int>(c.ext.size()), c.ext.data(),
                             c.perm.data(), es, XPOSE_COL_MAJOR, schema, rng() % 16, rng() % 16,
                             &plan),
                  XPOSE_SUCCESS)
            << xpose_last_error();
        EXPECT_NE(plan.find("narrow "), std::string::npos) << plan;
        if (HasFailure()) break;
      }
  }
}

// A launch that deals in order frees its slot when its last ticket is taken (tile_order.cuh).
// The test above cannot tell: with the slot never freed, every later launch would take its
// tiles round-robin, just as correctly.
TEST(CudaNarrow, TileSlotFreeAfterLaunch) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("CudaNarrowTileSlotFree"));
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  DeviceBuffers bufs(size_t{1} << 26);
  struct Restore {
    ~Restore() { xpose::detail::narrow_tile_slots(~0u); }
  } restore;
  xpose::detail::narrow_tile_slots(1);
  const int64_t ext[] = {6007, 4099};  // ~1,500 tiles of odd rows: dealt in order
  const int perm[] = {1, 0};
  for (int rep = 0; rep < 3; ++rep) {
    ASSERT_EQ(check_case(bufs, rng, 2, ext, perm, 1, XPOSE_COL_MAJOR, "tiled:in=128,out=128", 0, 0),
              XPOSE_SUCCESS)
        << xpose_last_error();
    const xpose::detail::TileDeal deal = xpose::detail::tile_deal_claim(device, 1);
    EXPECT_NE(deal.counter, nullptr) << "the slot is still held after launch " << rep;
    xpose::detail::tile_deal_cancel(device, deal);
  }
}

}  // namespace
