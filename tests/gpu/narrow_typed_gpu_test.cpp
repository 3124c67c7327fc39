// The narrow kernel's typed tiles (narrow_typed.cu: dense conversions without beta from fp8, f16
// and bf16 to those or to f32, scaled or not) against the naive reference (typed_check.hpp): every
// type pair, random shapes of ranks 2-5 with odd extents and extents of 1, every tile schema
// forced and the heuristic plan, both pointers at every offset their element sizes allow within
// 16 bytes; every write phase (quads, gathered evenly, by table, from raw rows) must be met, and
// larger problems whose tiles are dealt by the launch's counter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "cuda/host_plan.hpp"
#include "cuda/planner.hpp"
#include "cuda/runtime.hpp"
#include "gpu_util.hpp"
#include "typed_check.hpp"

namespace {

using namespace xpose_test;
using xpose::detail::KernelSpec;

const xpose_type_t kIns[] = {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F16,
                             XPOSE_TYPE_BF16};
const xpose_type_t kOuts[] = {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F16,
                              XPOSE_TYPE_BF16, XPOSE_TYPE_F32};

TEST(NarrowTypedGpu, EveryPairEverySchemaAnyOffset) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("NarrowTypedGpu.EveryPairEverySchemaAnyOffset"));
  const char* schemas[] = {nullptr, "tiled", "packed", "packed-split", "fvi-small"};
  // Write phases met, per input size: quads, evenly, table, raw rows.
  int met[3][4] = {};
  int narrow = 0, runs = 0;
  for (const xpose_type_t a : kIns)
    for (const xpose_type_t b : kOuts)
      for (int n = 0; n < 6; ++n) {
        const TypedCase c = dense_case(a, b, n < 5 ? 40000 : 400000, rng);
        const size_t ia = type_size(a);
        for (const char* schema : schemas) {
          std::string desc;
          KernelSpec spec;
          if (!check_at_any_offset(c, schema, rng, &desc, &spec)) continue;
          ++runs;
          if (HasFailure()) return;
          if (!spec.choice.narrow || spec.choice.narrow2d || spec.choice.cells) continue;
          ++narrow;
          EXPECT_NE(desc.find(" narrow"), std::string::npos) << desc;
          EXPECT_EQ(spec.narrow.halo, 0) << case_text(c);
          const auto& np = spec.narrow;
          const int mode = np.quad ? 0 : np.raw_rows ? 3 : np.n_tab > 0 ? 2 : 1;
          if (np.quad) EXPECT_EQ(np.deal_warp, 1) << case_text(c);
          ++met[ia][mode];
          if (HasFailure()) return;
        }
      }
  std::printf("%d runs, %d in narrow typed tiles; 1 B in: quads %d evenly %d table %d raw %d; "
              "2 B in: quads %d evenly %d table %d raw %d\n",
              runs, narrow, met[1][0], met[1][1], met[1][2], met[1][3], met[2][0], met[2][1],
              met[2][2], met[2][3]);
  // Heuristic and forced plans: quads and raw rows for both input sizes (realigned gathered
  // tiles: RealignedGatheredTiles).
  for (int es = 1; es <= 2; ++es) {
    EXPECT_GT(met[es][0], 0) << es;
    EXPECT_GT(met[es][3], 0) << es;
  }
}

// Every input value (all 65536 of a 2-byte type, each 1-byte value 256 times), NaNs, infinities,
// subnormals and overflow included, through quads and gathered tiles to every output type,
// scaled and not, against the reference bit for bit (convert2's two-lane conversions and their
// NaN and overflow fix-ups, the single conversions of partial words).
TEST(NarrowTypedGpu, EveryInputValue) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("NarrowTypedGpu.EveryInputValue"));
  int runs = 0, gathered = 0;
  for (const xpose_type_t a : kIns)
    for (const xpose_type_t b : kOuts)
      for (const double alpha : {1.0, -1.5})
        for (const char* schema : {"tiled", "packed", "packed-split"}) {
          if (a == b && alpha == 1) continue;  // plain
          TypedCase c;
          c.extents = {64, 4, 256}, c.perm = {2, 1, 0};  // 65536 elements, three dims
          c.in_type = a, c.out_type = b, c.elem_size = type_size(a);
          c.alpha[0] = alpha;
          std::vector<uint8_t> in(65536 * c.elem_size);
          for (size_t i = 0; i < 65536; ++i)
            for (size_t k = 0; k < c.elem_size; ++k)
              in[i * c.elem_size + k] = static_cast<uint8_t>(i >> (8 * k));
          std::string desc;
          const xpose_status_t st = check_typed(c, schema, 0, rng, &desc, &in);
          if (st != XPOSE_SUCCESS && std::string(schema) != "tiled") continue;  // not this shape
          ASSERT_EQ(st, XPOSE_SUCCESS) << case_text(c);
          EXPECT_NE(desc.find(" narrow"), std::string::npos) << desc;
          ++runs;
          gathered += std::string(schema) != "tiled";
          if (HasFailure()) return;
        }
  std::printf("%d runs of every input value, %d in gathered tiles\n", runs, gathered);
  EXPECT_GE(runs - gathered, 36);
  EXPECT_GE(gathered, 36);
}

// Gathered typed tiles realigned (RawRows::Never: evenly spaced rows, by table, padded rows),
// which heuristic plans rarely take since raw rows fit most small tiles: every gathered candidate
// of odd shapes, launched directly at element offsets of both pointers.
TEST(NarrowTypedGpu, RealignedGatheredTiles) {
  XPOSE_REQUIRE_GPU();
  using namespace xpose::detail;
  std::mt19937_64 rng(test_seed("NarrowTypedGpu.RealignedGatheredTiles"));
  const DeviceInfo* dev = device_info(0, nullptr);  // the kernels' shared memory set up
  ASSERT_NE(dev, nullptr);
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int>>> shapes = {
      {{14, 28, 67, 5}, {3, 0, 2, 1}},      {{11, 56, 60, 28}, {1, 3, 2, 0}},
      {{15, 15, 15, 15, 3}, {2, 0, 4, 1, 3}}, {{9, 11, 43, 9, 7}, {3, 0, 4, 1, 2}},
      {{3, 39, 77, 4}, {0, 3, 2, 1}},        {{33, 5, 130}, {2, 1, 0}}};
  const std::pair<xpose_type_t, xpose_type_t> pairs[] = {
      {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3}, {XPOSE_TYPE_F16, XPOSE_TYPE_F32},
      {XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_BF16}, {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F32},
      {XPOSE_TYPE_BF16, XPOSE_TYPE_BF16}};
  int runs = 0, table = 0, padded = 0;
  for (const auto& [a, b] : pairs)
    for (const auto& [ext, perm] : shapes) {
      TypedCase c;
      c.extents = ext, c.perm = perm, c.in_type = a, c.out_type = b;
      c.elem_size = type_size(a);
      c.alpha[0] = a == b ? -1.5 : 1;
      Problem p;
      ASSERT_EQ(normalize(c, &p), XPOSE_SUCCESS);
      const size_t ia = type_size(a), oa = type_size(b);
      const size_t in_bytes = static_cast<size_t>(p.volume) * ia;
      const size_t out_bytes = static_cast<size_t>(p.volume) * oa;
      std::vector<uint8_t> in(in_bytes), want(out_bytes);
      fill_values(a, ia, in, rng);
      reference_typed(c, in.data(), want.data());
      const size_t room = 2 * kGuard + 16;
      Buffer din(in_bytes + room), dout(out_bytes + room);
      for (const char* schema : {"packed", "packed-split", "fvi-small"}) {
        SchemaRequest req;
        std::string why;
        ASSERT_TRUE(parse_schema(schema, &req, &why)) << why;
        std::vector<Choice> all;
        enumerate_choices(p, *dev, &req, &all);
        for (const Choice& t : all) {
          if (!t.narrow || t.narrow2d || t.cells || t.schema == Schema::Tiled) continue;
          KernelSpec spec;
          build_spec(p, t, &spec);
          build_narrow(p, t, &spec.narrow, RawRows::Never);
          ASSERT_EQ(spec.narrow.raw_rows, 0);
          const size_t in_shift = ia * (rng() % (16 / ia)), out_shift = oa * (rng() % (16 / oa));
          uint8_t* const in_at = din.p + kGuard + in_shift;
          uint8_t* const out_at = dout.p + kGuard + out_shift;
          ASSERT_EQ(cudaMemcpy(in_at, in.data(), in_bytes, cudaMemcpyHostToDevice), cudaSuccess);
          ASSERT_EQ(cudaMemset(dout.p, kPoison, out_bytes + room), cudaSuccess);
          ASSERT_EQ(launch_narrow(spec.narrow, static_cast<int>(ia), in_at, out_at, nullptr,
                                  spec.choice.grid, 0),
                    XPOSE_SUCCESS);
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
          std::vector<uint8_t> got(out_bytes + room);
          ASSERT_EQ(cudaMemcpy(got.data(), dout.p, got.size(), cudaMemcpyDeviceToHost),
                    cudaSuccess);
          size_t bad = 0;
          for (size_t i = 0; i < got.size(); ++i) {
            const size_t at = i - (kGuard + out_shift);  // wraps for bytes before the tensor
            bad += got[i] != (at < out_bytes ? want[at] : kPoison);
          }
          ASSERT_EQ(bad, 0u) << case_text(c) << " " << summarize(p, t) << " shifts " << in_shift
                             << "/" << out_shift << " table " << spec.narrow.n_tab << " padded "
                             << spec.narrow.row_break;
          ++runs;
          table += spec.narrow.n_tab > 0;
          padded += spec.narrow.row_break > 0;
        }
      }
    }
  std::printf("%d realigned gathered launches, %d by table, %d with padded rows\n", runs, table,
              padded);
  EXPECT_GT(table, 0);
  EXPECT_GT(runs - table, 0);
}

// Larger problems (~2-8 M elements): the heuristic plan, and every pair of input sizes; tiles
// beyond the fixed rounds are dealt by the launch's counter (tile_order.cuh) where pointers are
// off 32 bytes or tiles share sectors.
TEST(NarrowTypedGpu, LargerProblems) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed("NarrowTypedGpu.LargerProblems"));
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int>>> shapes = {
      {{17, 17, 17, 17, 17}, {0, 4, 1, 3, 2}}, {{33, 45, 61, 23}, {2, 0, 3, 1}},
      {{5, 130, 9, 7, 31}, {3, 1, 4, 0, 2}},   {{1291, 1937}, {1, 0}}};
  const std::pair<xpose_type_t, xpose_type_t> pairs[] = {
      {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3}, {XPOSE_TYPE_F16, XPOSE_TYPE_F32},
      {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_BF16}, {XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F32}};
  int narrow = 0;
  for (const auto& [a, b] : pairs)
    for (const auto& [ext, perm] : shapes) {
      TypedCase c;
      c.extents = ext, c.perm = perm;
      c.in_type = a, c.out_type = b, c.elem_size = type_size(a);
      std::string desc;
      const size_t shift = rng() % 2 ? 0 : type_size(a) * (1 + rng() % 3);
      EXPECT_EQ(check_typed(c, nullptr, shift, rng, &desc, nullptr, false, 0), XPOSE_SUCCESS);
      narrow += desc.substr(0, desc.find('\n')).find(" narrow grid") != std::string::npos ||
                desc.substr(0, desc.find('\n')).find(" narrow pad") != std::string::npos;
      if (HasFailure()) return;
    }
  std::printf("%d of %zu plans in narrow typed tiles\n", narrow,
              std::size(pairs) * shapes.size());
  EXPECT_GE(narrow, 8);
}

}  // namespace
