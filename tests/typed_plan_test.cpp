// The typed tiles' pipeline on the fake H100, without a GPU (planner.cpp typed_pipeline): random
// typed problems of real and complex pairs, dense or padded, with and without beta, planned as
// execute runs them. Every typed tile's block must fit the shared-memory opt-in of the kernels
// (tiled.cu), beta's old outputs are staged only with beta and where the write phase moves
// words or elements of 4 bytes and more, right after the buffers, and only staged plans take
// the deep pipeline. The kernels' side of it (the staged values, both depths) is checked on
// the GPU by tests/gpu/typed_gpu_test.cpp.
#include <gtest/gtest.h>

#ifdef XPOSE_HAVE_CUDA
#include <algorithm>
#include <vector>

#include "core/problem.hpp"
#include "core/types.hpp"
#include "cuda/host_plan.hpp"
#include "fake_device.hpp"
#include "reference.hpp"

namespace {

using namespace xpose::detail;

constexpr xpose_type_t kReal[] = {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F16,
                                  XPOSE_TYPE_BF16,    XPOSE_TYPE_F32,     XPOSE_TYPE_F64};
constexpr xpose_type_t kComplex[] = {XPOSE_TYPE_C32, XPOSE_TYPE_C64};

struct Counts {
  int tiles = 0, staged = 0, deep = 0;
};

// Checks the typed tile views of one plan; counts what they do.
void check_views(const BackendPlan& plan, const Problem& p, Counts* n) {
  for (const PlanView& v : cuda_plan_views(plan)) {
    const KernelSpec& s = v.spec;
    if (s.choice.general || is_direct(s.choice.schema) || is_rows(s.choice.schema)) continue;
    if (s.choice.narrow) continue;  // narrow.cu, narrow2d.cu: plain problems (erased conversions)
    if (s.choice.narrow2d) continue;  // narrow2d.cu's conversions: no pipeline, one buffer
    const TiledParams& t = s.tiled;
    if (t.op.in_type == XPOSE_TYPE_BYTES) continue;  // erased conversions: plain tiles
    ++n->tiles;
    const int in_size = static_cast<int>(type_info(static_cast<xpose_type_t>(t.op.in_type)).size);
    const int out_size =
        static_cast<int>(type_info(static_cast<xpose_type_t>(t.op.out_type)).size);
    EXPECT_LE(s.smem_bytes, static_cast<unsigned>(kMaxTileStages * kMaxTileSmemBytes))
        << p.to_string();
    EXPECT_EQ(s.choice.stages, t.stages) << p.to_string();
    const int64_t buffer = int64_t{t.buffer_elems} * in_size;
    if (t.old_offset == 0) {
      EXPECT_LE(t.stages, 2) << p.to_string();
      EXPECT_EQ(s.smem_bytes, static_cast<unsigned>(t.stages * buffer)) << p.to_string();
      continue;
    }
    ++n->staged;
    n->deep += t.stages == kTypedDeepStages;
    EXPECT_TRUE(t.op.accumulate) << p.to_string();
    EXPECT_TRUE(out_size >= 4 || t.out_group_slot != kNoGroup) << p.to_string();
    EXPECT_TRUE(t.stages == 2 || t.stages == kTypedDeepStages) << p.to_string();
    EXPECT_EQ(t.old_offset, t.stages * buffer) << p.to_string();
    EXPECT_EQ(t.old_offset % 16, 0) << p.to_string();
    const int64_t old = int64_t{kElemsPerThread} * s.choice.threads * std::max(out_size, 4);
    EXPECT_EQ(s.smem_bytes, static_cast<unsigned>(t.stages * (buffer + old))) << p.to_string();
    EXPECT_LE(s.smem_bytes, static_cast<unsigned>(kTypedBlockSmemBytes)) << p.to_string();
  }
}

// A random typed problem of ranks 2-5: extents multiples of 4 (grouped phases) when `even`;
// strides over 1-7 elements more per dim when `padded`; beta 0 or 1, alpha 1 or 0.5; 2^16 to
// 2^28 elements (only planned, nothing is allocated).
xpose_status_t random_typed(xpose_test::Rng& rng, bool even, bool padded, Problem* p) {
  const bool complex = rng.below(4) == 0;
  const xpose_type_t in = complex ? kComplex[rng.below(2)] : kReal[rng.below(6)];
  const xpose_type_t out = complex ? kComplex[rng.below(2)] : kReal[rng.below(6)];
  const int rank = 2 + static_cast<int>(rng.below(4));
  std::vector<int64_t> ext(rank);
  const int64_t per_dim = int64_t{1} << (18 / rank + static_cast<int>(rng.below(3)));
  for (int64_t& e : ext) {
    e = std::max<int64_t>(2, per_dim / 2 + static_cast<int64_t>(rng.below(per_dim)));
    if (even) e += e % 4 == 0 ? 0 : 4 - e % 4;
  }
  const std::vector<int> perm = rng.permutation(rank);
  std::vector<int64_t> in_s(rank), out_s(rank);
  int64_t si = 1, so = 1;
  for (int k = 0; k < rank; ++k) {
    in_s[k] = si, out_s[k] = so;
    si *= ext[k] + (padded ? 1 + static_cast<int64_t>(rng.below(7)) : 0);
    so *= ext[perm[k]] + (padded ? 1 + static_cast<int64_t>(rng.below(7)) : 0);
  }
  xpose_desc_t d;
  xpose_desc_init(&d);
  d.in_type = in;
  d.out_type = out;
  d.beta[0] = rng.below(2) == 0 ? 0.0 : 1.0;
  d.alpha[0] = rng.below(2) == 0 ? 1.0 : 0.5;
  if (padded) d.in_strides = in_s.data(), d.out_strides = out_s.data();
  return make_problem_ex(rank, ext.data(), perm.data(), type_info(in).size, &d, XPOSE_COL_MAJOR,
                         p);
}

TEST(TypedPlan, StagedOldOutputsAndDepthFitTheBlock) {
  xpose_test::Rng rng(xpose_test::test_seed() ^ 0x5a7ed);
  SCOPED_TRACE(xpose_test::seed_note());
  const DeviceInfo dev = xpose_test::fake_h100();
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CUDA;
  o.device = 0;
  Counts n;
  for (int i = 0; i < 600; ++i) {
    Problem p;
    ASSERT_EQ(random_typed(rng, i % 2 == 0, i % 3 == 0, &p), XPOSE_SUCCESS);
    BackendPlanPtr plan;
    ASSERT_EQ(cuda_plan_on(p, dev, o, "", &plan), XPOSE_SUCCESS) << p.to_string();
    check_views(*plan, p, &n);
  }
  // The corpus reaches every case above: tiles, staged old outputs, the deep pipeline.
  EXPECT_GT(n.tiles, 100);
  EXPECT_GT(n.staged, 20);
  EXPECT_GT(n.deep, 10);
}

}  // namespace

#endif  // XPOSE_HAVE_CUDA
