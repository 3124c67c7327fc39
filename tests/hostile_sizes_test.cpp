// Hostile sizes, planned but not executed (issue 17): empty tensors whose other extents multiply
// past 64 bits, and valid requests of up to 2^63 - 2 bytes through every CPU schema that applies.
// Each case was once a signed overflow (undefined behaviour) that the ASan+UBSan stage of .ci/run
// reports; where the overflow had a visible effect (an offset outside the tensor), the checks here
// catch it without a sanitizer too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "core/status.hpp"
#include "cpu/plans.hpp"
#include "cuda/tile_shape.hpp"
#include "reference.hpp"
#include "xpose/xpose.h"

#ifdef XPOSE_HAVE_CUDA
#include <cmath>

#include "cuda/host_plan.hpp"
#include "fake_device.hpp"
#endif

namespace {

using xpose_test::cpu_options;
using xpose_test::str;

constexpr int64_t kMax = INT64_MAX;
constexpr int64_t k2p62 = int64_t{1} << 62;

std::string describe(xpose_plan_t plan) {
  std::string text(xpose_plan_describe(plan, nullptr, 0), '\0');
  xpose_plan_describe(plan, text.data(), text.size() + 1);
  return text;
}

struct Request {
  std::vector<int64_t> extents;
  std::vector<int> perm;
  size_t elem;
};

// Extents {2^62, 16, 0}: the volume product of the non-zero extents overflowed in make_problem
// after validation had accepted the empty tensor.
TEST(HostileSizes, EmptyTensorsWithHugeExtentsPlanAndRunAsEmpty) {
  const Request cases[] = {{{k2p62, 16, 0}, {2, 0, 1}, 8},
                           {{0, kMax, kMax}, {1, 2, 0}, 1},
                           {{kMax, 3, 0, kMax}, {3, 2, 1, 0}, 16},
                           {{kMax, kMax}, {1, 0}, 1}};
  for (const Request& r : cases) {
    const bool empty = std::find(r.extents.begin(), r.extents.end(), 0) != r.extents.end();
    for (xpose_layout_t layout : {XPOSE_COL_MAJOR, XPOSE_ROW_MAJOR}) {
      SCOPED_TRACE(str(r.extents) + " perm " + str(r.perm) + " layout " + std::to_string(layout));
      const xpose_options_t o = cpu_options(layout);
      const int rank = static_cast<int>(r.extents.size());
      xpose_plan_t plan = nullptr;
      const xpose_status_t s =
          xpose_plan_create(&plan, rank, r.extents.data(), r.perm.data(), r.elem, &o);
      if (!empty) {  // {kMax, kMax}: a real overflow, reported as such
        EXPECT_EQ(s, XPOSE_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(xpose_last_error()).find("overflows 64 bits"), std::string::npos);
        continue;
      }
      ASSERT_EQ(s, XPOSE_SUCCESS) << xpose_last_error();
      EXPECT_NE(describe(plan).find("volume 0"), std::string::npos) << describe(plan);
      EXPECT_EQ(xpose_execute(plan, nullptr, nullptr, nullptr), XPOSE_SUCCESS);
      double seconds = -1;
      EXPECT_EQ(xpose_plan_predict(plan, &seconds), XPOSE_SUCCESS);
      EXPECT_EQ(seconds, 0.0);
      EXPECT_EQ(xpose_plan_destroy(plan), XPOSE_SUCCESS);
      EXPECT_EQ(xpose_transpose(rank, r.extents.data(), r.perm.data(), r.elem, nullptr, nullptr,
                                &o, nullptr),
                XPOSE_SUCCESS)
          << xpose_last_error();
    }
  }
}

// Every byte offset a tile geometry holds (tile rows and columns, the next segment's columns,
// the outer loops' last steps) lies inside the tensor: {2^62 - 1, 2} perm {1, 0} added the
// segment stride (the whole tensor) to columns past its end and overflowed.
void expect_offsets_inside(const xpose::detail::cpu::TileGeometry& g, int64_t bytes) {
  for (int c = 0; c < g.to + xpose::detail::cpu::line_ext(g.eb); ++c) {
    EXPECT_GE(g.icol[c], 0) << "icol[" << c << "]";
    EXPECT_LT(g.icol[c], bytes) << "icol[" << c << "]";
  }
  for (int r = 0; r < g.ti; ++r) {
    EXPECT_GE(g.orow[r], 0) << "orow[" << r << "]";
    EXPECT_LT(g.orow[r], bytes) << "orow[" << r << "]";
  }
  for (int l = 0; l < g.loops; ++l) {  // (extent - 1) steps stay below `bytes`
    if (g.loop[l].extent < 2) continue;
    EXPECT_LE(g.loop[l].in_stride, (bytes - 1) / (g.loop[l].extent - 1)) << "loop " << l;
    EXPECT_LE(g.loop[l].out_stride, (bytes - 1) / (g.loop[l].extent - 1)) << "loop " << l;
  }
}

TEST(HostileSizes, PlansOfNearly2To63BytesKeepEveryOffsetInTheTensor) {
  using namespace xpose::detail;
  const Request cases[] = {{{k2p62 - 1, 2}, {1, 0}, 1},
                           {{2, k2p62 - 1}, {1, 0}, 1},
                           {{int64_t{1} << 31, int64_t{1} << 31}, {1, 0}, 1},
                           {{3, int64_t{1} << 40, 1 << 20}, {2, 0, 1}, 1},
                           {{7, 5, int64_t{1} << 56}, {1, 2, 0}, 2},
                           {{(int64_t{1} << 58) - 1, 3, 5}, {0, 2, 1}, 1},
                           {{65, int64_t{1} << 50, 2}, {2, 1, 0}, 4},
                           {{k2p62 / 17, 17}, {1, 0}, 1},
                           {{1 << 20, k2p62 >> 24}, {1, 0}, 16},
                           // 2^63 - 2 bytes, 2^63 as a double: the tile model's byte count
                           // converted back to int64_t overflowed (plan_fuzzer)
                           {{3, kMax / 3}, {1, 0}, 1}};
  for (const Request& r : cases) {
    SCOPED_TRACE(str(r.extents) + " perm " + str(r.perm) + " " + std::to_string(r.elem) + " B");
    const int rank = static_cast<int>(r.extents.size());
    const xpose_options_t o = cpu_options();
    for (const char* schema : {"", "copy", "direct", "super", "matrix", "blocked", "cells"}) {
      SCOPED_TRACE(std::string("schema '") + schema + "'");
      xpose_plan_t plan = nullptr;
      const xpose_status_t s =
          *schema ? xpose_plan_create_forced(&plan, rank, r.extents.data(), r.perm.data(), r.elem,
                                             &o, schema)
                  : xpose_plan_create(&plan, rank, r.extents.data(), r.perm.data(), r.elem, &o);
      if (*schema == '\0') ASSERT_EQ(s, XPOSE_SUCCESS) << xpose_last_error();
      if (s != XPOSE_SUCCESS) {
        EXPECT_EQ(s, XPOSE_ERROR_INVALID_ARGUMENT) << xpose_last_error();
        continue;
      }
      double seconds = -1;
      EXPECT_EQ(xpose_plan_predict(plan, &seconds), XPOSE_SUCCESS);
      EXPECT_GT(seconds, 0.0);
      EXPECT_FALSE(describe(plan).empty());
      xpose_plan_destroy(plan);
    }
    Problem p;
    ASSERT_EQ(make_problem(rank, r.extents.data(), r.perm.data(), r.elem, XPOSE_COL_MAJOR, &p),
              XPOSE_SUCCESS)
        << last_error();
    if (p.rank < 2 || p.perm[0] == 0) continue;
    for (bool matrix : {false, true}) {
      cpu::TileRequest req;
      req.matrix = matrix;
      cpu::TileGeometry g;
      std::string why;
      if (!cpu::make_tile_geometry(cpu::shape_of(p), req, &g, &why)) continue;
      SCOPED_TRACE(matrix ? "matrix" : "blocked");
      expect_offsets_inside(g, p.bytes());
    }
  }
}

// A thread count no machine has: libgomp failed to start a team of 100000 threads and the process
// crashed. Capped at 4 per processor, the results stay right, out of place and in place.
TEST(HostileSizes, HugeThreadCountsAreCapped) {
  const int64_t n = 2048;
  const std::vector<int64_t> extents = {n, n};
  const std::vector<int> perm = {1, 0};
  const size_t bytes = static_cast<size_t>(n * n) * 4;
  std::vector<unsigned char> in(bytes), out(bytes), want(bytes);
  xpose_test::fill_random(in.data(), bytes, xpose_test::test_seed());
  xpose_test::reference_transpose(extents, perm, 4, XPOSE_COL_MAJOR, in.data(), want.data());
  for (int threads : {100000, INT32_MAX}) {
    SCOPED_TRACE("num_threads " + std::to_string(threads));
    const xpose_options_t o = cpu_options(XPOSE_COL_MAJOR, threads);
    ASSERT_EQ(xpose_transpose(2, extents.data(), perm.data(), 4, in.data(), out.data(), &o,
                              nullptr),
              XPOSE_SUCCESS)
        << xpose_last_error();
    EXPECT_EQ(out, want);
    out = in;
    ASSERT_EQ(xpose_transpose_inplace(2, extents.data(), perm.data(), 4, out.data(), &o, nullptr),
              XPOSE_SUCCESS)
        << xpose_last_error();
    EXPECT_EQ(out, want);
  }
}

// The CUDA planner's ceil_div (a host header, tested in every build): (a + b - 1) / b overflowed
// for volumes near 2^63 (found by cuda_plan_fuzzer: a rank-1 copy of INT64_MAX bytes).
TEST(HostileSizes, CudaCeilDivDoesNotOverflow) {
  using xpose::detail::cuda_tile::ceil_div;
  EXPECT_EQ(ceil_div(kMax, 4097), kMax / 4097 + 1);
  EXPECT_EQ(ceil_div(kMax, 1), kMax);
  EXPECT_EQ(ceil_div(kMax - 1, 2), kMax / 2);
  EXPECT_EQ(ceil_div(0, 7), 0);
  EXPECT_EQ(ceil_div(14, 7), 2);
  EXPECT_EQ(ceil_div(15, 7), 3);
}

#ifdef XPOSE_HAVE_CUDA
// The CUDA planner on a fake H100, without a GPU: requests of up to 2^63 - 1 bytes plan, with a
// finite positive prediction, through every schema that accepts them.
TEST(HostileSizes, CudaPlannerPlansNearly2To63Bytes) {
  using namespace xpose::detail;
  const DeviceInfo dev = xpose_test::fake_h100();
  const Request cases[] = {{{kMax}, {0}, 1},
                           {{k2p62 - 1, 2}, {1, 0}, 1},
                           {{2, k2p62 - 1}, {1, 0}, 1},
                           {{int64_t{1} << 31, int64_t{1} << 31}, {1, 0}, 1},
                           {{3, int64_t{1} << 40, 1 << 20}, {2, 0, 1}, 1},
                           {{7, 5, int64_t{1} << 56}, {1, 2, 0}, 2},
                           {{(int64_t{1} << 58) - 1, 3, 5}, {0, 2, 1}, 1},
                           {{1 << 20, k2p62 >> 24}, {1, 0}, 16}};
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CUDA;
  o.device = 0;
  for (const Request& r : cases) {
    SCOPED_TRACE(str(r.extents) + " perm " + str(r.perm) + " " + std::to_string(r.elem) + " B");
    Problem p;
    ASSERT_EQ(make_problem(static_cast<int>(r.extents.size()), r.extents.data(), r.perm.data(),
                           r.elem, XPOSE_COL_MAJOR, &p),
              XPOSE_SUCCESS)
        << last_error();
    for (const char* schema : {"", "copy", "rows", "fvi-small", "tiled", "packed",
                               "packed-split"}) {
      SCOPED_TRACE(std::string("schema '") + schema + "'");
      BackendPlanPtr plan;
      const xpose_status_t s = cuda_plan_on(p, dev, o, schema, &plan);
      if (*schema == '\0') ASSERT_EQ(s, XPOSE_SUCCESS) << last_error();
      if (s != XPOSE_SUCCESS) {
        EXPECT_EQ(s, XPOSE_ERROR_INVALID_ARGUMENT) << last_error();
        continue;
      }
      EXPECT_TRUE(std::isfinite(plan->predicted_seconds()));
      EXPECT_GT(plan->predicted_seconds(), 0.0);
      EXPECT_FALSE(plan->describe().empty());
    }
  }
}
#endif  // XPOSE_HAVE_CUDA

}  // namespace
