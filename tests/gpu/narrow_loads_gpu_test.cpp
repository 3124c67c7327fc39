// The narrow kernel's converting loads (narrow_loads.cu: dense conversions without beta from f32
// to e4m3 and e5m2, scaled or not, in tiles of the output's 1-byte elements) against the naive
// reference (typed_check.hpp): random shapes of ranks 2-5 with odd extents and extents of 1,
// every tile schema forced and the heuristic plan, both pointers at every offset their element
// sizes allow within 16 bytes (quads and gathered tiles evenly and by table must be met); every
// rounding case of f32 bit for bit; larger problems whose tiles are dealt by the launch's
// counter. The plans' blocks are checked without a device (NarrowLoadsPlan: raw rows that hold
// what the loads read).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "cuda/host_plan.hpp"
#include "cuda/planner.hpp"
#include "cuda/runtime.hpp"
#include "cuda/tile_shape.hpp"
#include "gpu_util.hpp"
#include "typed_check.hpp"

namespace {

using namespace xpose_test;
using xpose::detail::KernelSpec;

const xpose_type_t kOuts[] = {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F8_E5M2};

// Without a device (the fake H100): every narrow candidate of random f32 conversions has a block
// whose raw rows hold the chunks the loads bring and the realignment reads, in the input's bytes.
TEST(NarrowLoadsPlan, RawRowsHoldWhatTheLoadsRead) {
  using namespace xpose::detail;
  const DeviceInfo dev = fake_h100();
  std::mt19937_64 rng(test_seed("NarrowLoadsPlan.RawRowsHoldWhatTheLoadsRead"));
  int blocks = 0, quads = 0;
  for (int n = 0; n < 200; ++n) {
    const TypedCase c = dense_case(XPOSE_TYPE_F32, kOuts[n % 2], n % 4 < 2 ? 40000 : 4000000, rng);
    Problem p;
    ASSERT_EQ(normalize(c, &p), XPOSE_SUCCESS);
    if (p.rank < 2) continue;
    ASSERT_TRUE(narrow_loads(p)) << case_text(c);
    constexpr int L = 2;
    std::vector<Choice> all;
    enumerate_choices(p, dev, nullptr, &all);
    for (const Choice& t : all) {
      if (!t.narrow) continue;
      ASSERT_FALSE(t.narrow2d || t.cells || t.thin || t.wide2d) << summarize(p, t);
      KernelSpec spec;
      build_spec(p, t, &spec);
      const NarrowParams& np = spec.narrow;
      SCOPED_TRACE(case_text(c) + " " + summarize(p, t));
      EXPECT_EQ(np.in_log2, L);
      EXPECT_EQ(np.raw_rows, 0);
      EXPECT_EQ(np.halo, 0);
      EXPECT_TRUE(!np.quad || np.deal_warp);
      EXPECT_LE(np.smem_bytes, kNarrowMaxSmemBytes);
      EXPECT_EQ(np.in_bytes, p.bytes());
      // Loads: every chunk of a row's input bytes from the chunk boundary at or before it.
      EXPECT_GE(int64_t{np.raw_per_row} * kNarrowChunk, (int64_t{np.rd.full} << L) + 15);
      // Realignment: chunks up to 2^L x (the tile row's chunks) + 1, inside the raw row.
      EXPECT_GE(np.raw_pitch, kNarrowChunk * ((((np.rd.full + 15) / 16) << L) + 1));
      EXPECT_GE(np.raw_bytes, np.rd.runs * np.raw_pitch);
      ++blocks;
      quads += np.quad;
      if (HasFailure()) return;
    }
  }
  std::printf("%d narrow blocks of converting loads, %d quads\n", blocks, quads);
  EXPECT_GT(quads, 0);
  EXPECT_GT(blocks - quads, 0);
}

TEST(NarrowLoadsGpu, EveryPairEverySchemaAnyOffset) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("NarrowLoadsGpu.EveryPairEverySchemaAnyOffset"));
  const char* schemas[] = {nullptr, "tiled", "packed", "packed-split", "fvi-small"};
  // Write phases met: quads, evenly, table.
  int met[3] = {};
  int narrow = 0, runs = 0;
  for (const xpose_type_t b : kOuts)
    for (int n = 0; n < 20; ++n) {
      const TypedCase c = dense_case(XPOSE_TYPE_F32, b, n < 16 ? 40000 : 400000, rng);
      for (const char* schema : schemas) {
        std::string desc;
        KernelSpec spec;
        if (!check_at_any_offset(c, schema, rng, &desc, &spec)) continue;
        ++runs;
        if (HasFailure()) return;
        if (!spec.choice.narrow) continue;
        ++narrow;
        EXPECT_NE(desc.find(" narrow"), std::string::npos) << desc;
        EXPECT_EQ(spec.narrow.in_log2, 2) << case_text(c);
        const auto& np = spec.narrow;
        ++met[np.quad ? 0 : np.n_tab > 0 ? 2 : 1];
        if (HasFailure()) return;
      }
    }
  std::printf("%d runs, %d in converting loads: quads %d, gathered evenly %d, by table %d\n", runs,
              narrow, met[0], met[1], met[2]);
  for (int m = 0; m < 3; ++m) EXPECT_GT(met[m], 0) << m;
}

// Every f32 rounding case into each output type, scaled and not, bit for bit: the high 16 bits
// take every value (every sign, exponent and bf16 mantissa: NaNs, infinities, subnormals,
// overflow), the low 16 bits, one value a run, each of the ties and their neighbours and random
// bits; through quads and gathered tiles.
TEST(NarrowLoadsGpu, EveryRoundingCase) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("NarrowLoadsGpu.EveryRoundingCase"));
  std::vector<uint32_t> lows = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff,
                                0x1000, 0x0fff, 0x0800, 0x07ff, 0x4000, 0x3fff};
  for (int j = 0; j < 4; ++j) lows.push_back(static_cast<uint32_t>(rng() & 0xffff));
  std::vector<uint8_t> in(65536 * 4);
  struct Shape {
    std::vector<int64_t> extents;
    std::vector<int> perm;
    const char* schema;
  };
  int runs = 0, gathered = 0;
  for (const uint32_t low : lows) {
    for (uint32_t hi = 0; hi < 65536; ++hi) {
      const uint32_t bits = (hi << 16) | low;
      std::memcpy(&in[hi * 4], &bits, 4);
    }
    // 65536 elements in three dims (none fused: 2D problems in L2 keep the typed tiles): quads,
    // and gathered tiles of two schemas.
    const Shape shapes[] = {{{64, 4, 256}, {2, 1, 0}, "tiled"},
                            {{4, 64, 256}, {0, 2, 1}, "fvi-small"},
                            {{8, 32, 256}, {1, 0, 2}, "packed-split"}};
    for (const xpose_type_t b : kOuts)
      for (const double alpha : {1.0, -1.5})
        for (const Shape& s : shapes) {
          TypedCase c;
          c.extents = s.extents, c.perm = s.perm;
          c.in_type = XPOSE_TYPE_F32, c.out_type = b, c.elem_size = 4;
          c.alpha[0] = alpha;
          std::string desc;
          ASSERT_EQ(check_typed(c, s.schema, 0, rng, &desc, &in), XPOSE_SUCCESS) << case_text(c);
          EXPECT_NE(desc.find(" narrow"), std::string::npos) << desc;
          ++runs;
          gathered += std::string(s.schema) != "tiled";
          if (HasFailure()) return;
        }
  }
  std::printf("%d runs of the rounding cases, %d in gathered tiles\n", runs, gathered);
  EXPECT_EQ(gathered, 2 * runs / 3);
}

// Larger problems (~2-8 M elements), heuristic plans: tiles beyond the fixed rounds are dealt by
// the launch's counter (tile_order.cuh) where pointers are off 32 bytes or tiles share sectors.
TEST(NarrowLoadsGpu, LargerProblems) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("NarrowLoadsGpu.LargerProblems"));
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int>>> shapes = {
      {{17, 17, 17, 17, 17}, {0, 4, 1, 3, 2}}, {{33, 45, 61, 23}, {2, 0, 3, 1}},
      {{5, 130, 9, 7, 31}, {3, 1, 4, 0, 2}},   {{2291, 2937}, {1, 0}}};  // 2D: above L2
  int narrow = 0;
  for (const xpose_type_t b : kOuts)
    for (const auto& [ext, perm] : shapes) {
      TypedCase c;
      c.extents = ext, c.perm = perm;
      c.in_type = XPOSE_TYPE_F32, c.out_type = b, c.elem_size = 4;
      std::string desc;
      const size_t shift = rng() % 2 ? 0 : 4 * (1 + rng() % 3);
      EXPECT_EQ(check_typed(c, nullptr, shift, rng, &desc, nullptr, false, 0), XPOSE_SUCCESS);
      narrow += desc.substr(0, desc.find('\n')).find(" narrow") != std::string::npos;
      if (HasFailure()) return;
    }
  std::printf("%d of %zu plans in converting loads\n", narrow, std::size(kOuts) * shapes.size());
  EXPECT_EQ(static_cast<size_t>(narrow), std::size(kOuts) * shapes.size());
}

}  // namespace
