// Heuristic CUDA plan creation's host work without a GPU (CUDA builds, on the fake H100 with the
// embedded sm_90 regression): validation, normalization and cuda_plan_on, which is everything
// cuda_make_plan does once it has the device's properties. Prints the median and p90 of the
// rank-8 problems of CudaPlanning.PlanCreationMedianUnder50us (tests/gpu/cuda_large_test.cu);
// timing is only printed (CI is a loaded 2-core machine), with a bound that only a gross
// regression breaks.
//
// The choice check: every view of every plan of a fixed corpus (those 400 problems and 300
// random ones of ranks 1-12, extents 1-40, elements of 1-16 bytes, a fixed seed) holds the first
// candidate of the full ranking (enumerate_choices, the regression for the first view only) and
// build_spec's parameter block for it, as execute rebuilds it from the plan. The views are also
// written to the file XPOSE_PLAN_VIEWS names, one line per plan, so that a change meant to leave
// every choice alone can be checked against a build from before it with a diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#ifdef XPOSE_HAVE_CUDA
#include "core/problem.hpp"
#include "core/splitmix.hpp"
#include "cuda/host_plan.hpp"
#include "fake_device.hpp"
#endif

namespace {

#ifdef XPOSE_HAVE_CUDA

using namespace xpose::detail;

struct Request {
  std::vector<int64_t> ext;
  std::vector<int> perm;
  size_t elem = 8;
};

// The problems of CudaPlanning.PlanCreationMedianUnder50us.
std::vector<Request> rank8_requests() {
  std::vector<Request> r;
  for (int i = 0; i < 400; ++i)
    r.push_back({{5 + i % 7, 3, 2 + i / 7 % 5, 4, 35, 33, 37 + i / 35, 40},
                 {7, 2, 5, 0, 3, 1, 6, 4},
                 8});
  return r;
}

// Random problems from a fixed seed (the corpus must not change from run to run): ranks 1-12,
// extents 1-40 (halved until the tensor is at most 16 GiB), elements of 1-16 bytes; a third keep
// their leading dimension (the fused and row views).
std::vector<Request> random_requests(int n) {
  SplitMix64 rng(20261125);
  std::vector<Request> out;
  for (int i = 0; i < n; ++i) {
    Request r;
    const int rank = 1 + static_cast<int>(rng.below(12));
    r.elem = size_t{1} << rng.below(5);
    r.ext.resize(rank);
    for (int64_t& e : r.ext) e = 1 + static_cast<int64_t>(rng.below(40));
    const auto bytes = [&] {
      double v = static_cast<double>(r.elem);
      for (const int64_t e : r.ext) v *= static_cast<double>(e);
      return v;
    };
    while (bytes() > 16.0 * (1 << 30)) {
      int64_t& e = r.ext[rng.below(rank)];
      e = std::max<int64_t>(1, e / 2);
    }
    r.perm.resize(rank);
    for (int k = 0; k < rank; ++k) r.perm[k] = k;
    for (int k = rank - 1; k > 0; --k) std::swap(r.perm[k], r.perm[rng.below(k + 1)]);
    if (i % 3 == 0) std::swap(r.perm[0], *std::find(r.perm.begin(), r.perm.end(), 0));
    out.push_back(std::move(r));
  }
  return out;
}

xpose_options_t heuristic() {
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CUDA;
  o.device = 0;
  return o;
}

// What plan creation does on a cache miss once the device's properties are known.
xpose_status_t plan(const Request& r, const DeviceInfo& dev, const xpose_options_t& o,
                    BackendPlanPtr* out) {
  Problem p;
  const xpose_status_t s = make_problem(static_cast<int>(r.ext.size()), r.ext.data(),
                                        r.perm.data(), r.elem, XPOSE_COL_MAJOR, &p);
  return s != XPOSE_SUCCESS ? s : cuda_plan_on(p, dev, o, "", out);
}

TEST(CudaPlanSpeed, Rank8HostPlanCreation) {
  const DeviceInfo dev = xpose_test::fake_h100();
  const xpose_options_t o = heuristic();
  const std::vector<Request> reqs = rank8_requests();
  BackendPlanPtr warm;
  ASSERT_EQ(plan(reqs[0], dev, o, &warm), XPOSE_SUCCESS);
  // Plans are kept (as the plan cache keeps them), so freeing one is not timed.
  constexpr int kRounds = 5;
  std::vector<BackendPlanPtr> plans(reqs.size() * kRounds);
  std::vector<double> us;
  for (int round = 0; round < kRounds; ++round)
    for (size_t i = 0; i < reqs.size(); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const xpose_status_t s = plan(reqs[i], dev, o, &plans[round * reqs.size() + i]);
      us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
              .count());
      ASSERT_EQ(s, XPOSE_SUCCESS) << i;
    }
  std::sort(us.begin(), us.end());
  const double median = us[us.size() / 2];
  std::printf("host plan creation, rank 8, fake H100: median %.1f us, p90 %.1f us (%zu plans)\n",
              median, us[us.size() * 9 / 10], us.size());
  EXPECT_LT(median, 2000.0);
}

// Every field of a kernel spec's block in use (rows, 2D tiles or tiled), arrays whole.
std::string block_fields(const KernelSpec& s) {
  std::string f;
  const auto num = [&](long long v) { f += std::to_string(v) + ","; };
  const auto div32 = [&](const FastDiv32& d) { num(d.d), num(d.m), num(d.s); };
  const auto div64 = [&](const FastDiv64& d) {
    num(static_cast<long long>(d.d)), num(static_cast<long long>(d.m)), num(d.s), num(d.m32);
  };
  num(s.log2_elem), num(s.smem_bytes);
  if (is_rows(s.choice.schema)) {
    const RowParams& r = s.rows;
    num(r.row_bytes), num(r.items), div64(r.chunks), num(r.n_dims);
    for (const RowDim& d : r.dim) div64(d.extent), num(d.in_stride), num(d.out_stride);
    return f;
  }
  const auto grid = [&](const GridDim& d) {
    div64(d.count), num(d.in_step), num(d.out_step), num(d.extent), num(d.tile), num(d.slot);
  };
  if (s.choice.narrow2d) {
    const Narrow2dParams& n = s.narrow2d;
    num(n.ti), num(n.tj), num(n.in_row), num(n.out_row), num(n.in_bytes), num(n.slot_tile[0]);
    num(n.slot_tile[1]), num(n.n_grid), num(n.num_tiles), num(n.run_tiles), num(n.split);
    num(n.sector), num(n.chain_grid), num(n.chain_delta);
    num(n.op.in_type), num(n.op.out_type);
    for (const GridDim& d : n.grid) grid(d);
    return f;
  }
  const TiledParams& t = s.tiled;
  num(t.n_in), num(t.n_out), num(t.n_grid), num(t.volume), num(t.wide), num(t.buffer_elems);
  num(t.stages), num(t.slot_tile[0]), num(t.slot_tile[1]), num(t.num_tiles);
  div32(t.band_plane), div32(t.band_span), div32(t.band_w), div32(t.band_last);
  num(t.band_last_start), num(t.band_g0);
  for (const TileDim& d : t.in) div32(d.extent), num(d.smem_stride), num(d.slot), num(d.stride);
  for (const TileDim& d : t.out) div32(d.extent), num(d.smem_stride), num(d.slot), num(d.stride);
  for (const GridDim& d : t.grid) grid(d);
  return f;
}

// "align N: SUMMARY (a=A:TA c=C:TC, PREDICTED us) on PROBLEM" ("align 1 unaligned: ..." for
// the view for any pointer that runs the tile before it in pieces).
std::string describe_view(const PlanView& v) {
  const Choice& c = v.spec.choice;
  char tile[96];
  std::snprintf(tile, sizeof tile, " (a=%d:%lld c=%d:%lld, %.6g us)", c.a,
                static_cast<long long>(c.ta), c.c, static_cast<long long>(c.tc),
                c.predicted * 1e6);
  return "align " + std::to_string(v.align) + (v.unaligned ? " unaligned: " : ": ") +
         summarize(v.problem, c) + tile + " on " + v.problem.to_string();
}

TEST(CudaPlanSpeed, CorpusViewsHoldTheRankingsFirst) {
  const DeviceInfo dev = xpose_test::fake_h100();
  const xpose_options_t o = heuristic();
  std::vector<Request> reqs = rank8_requests();
  for (Request& r : random_requests(300)) reqs.push_back(std::move(r));
  const char* path = std::getenv("XPOSE_PLAN_VIEWS");
  std::ofstream file;
  if (path && *path) file.open(path);
  int planned = 0, views = 0, by_narrow_trees = 0;
  for (const Request& r : reqs) {
    Problem q;
    ASSERT_EQ(make_problem(static_cast<int>(r.ext.size()), r.ext.data(), r.perm.data(), r.elem,
                           XPOSE_COL_MAJOR, &q),
              XPOSE_SUCCESS);
    if (q.volume == 0) continue;
    BackendPlanPtr p;
    ASSERT_EQ(cuda_plan_on(q, dev, o, "", &p), XPOSE_SUCCESS) << q.to_string();
    const std::vector<PlanView> plan_views = cuda_plan_views(*p);
    ASSERT_FALSE(plan_views.empty()) << q.to_string();
    // The last view takes any pointer: a row kernel (which picks its own width), or the tile
    // before it in pieces.
    EXPECT_EQ(plan_views.back().align, 1u) << q.to_string();
    if (file.is_open()) file << q.to_string();
    for (size_t i = 0; i < plan_views.size(); ++i) {
      const PlanView& v = plan_views[i];
      SCOPED_TRACE(q.to_string() + ", view " + describe_view(v));
      if (v.unaligned) {
        ASSERT_GT(i, 0u);
        EXPECT_EQ(i + 1, plan_views.size());
        const PlanView& tile = plan_views[i - 1];
        EXPECT_GT(tile.align, 1u);
        EXPECT_EQ(v.problem.to_string(), tile.problem.to_string());
        EXPECT_EQ(summarize(v.problem, v.spec.choice), summarize(tile.problem, tile.spec.choice));
        EXPECT_EQ(block_fields(v.spec), block_fields(tile.spec));
        if (file.is_open()) file << " | " << describe_view(v);
        ++views;
        EXPECT_NE(v.spec.choice.schema, Schema::Rows);
        EXPECT_NE(v.spec.choice.schema, Schema::Copy);
        continue;
      }
      std::vector<Choice> ranked;
      enumerate_choices(v.problem, dev, nullptr, &ranked, i == 0);
      ASSERT_FALSE(ranked.empty());
      const Choice& c = v.spec.choice;  // as built: launch grids of small narrow tiles differ
      KernelSpec ref;
      build_spec(v.problem, ranked[0], &ref);
      EXPECT_EQ(summarize(v.problem, c), summarize(v.problem, ref.choice));
      EXPECT_EQ(c.a, ranked[0].a);
      EXPECT_EQ(c.ta, ranked[0].ta);
      EXPECT_EQ(c.c, ranked[0].c);
      EXPECT_EQ(c.tc, ranked[0].tc);
      EXPECT_EQ(c.predicted, ranked[0].predicted);
      EXPECT_EQ(c.model, ranked[0].model);
      by_narrow_trees += c.model && v.problem.elem_size <= 2;
      EXPECT_EQ(block_fields(v.spec), block_fields(ref));
      if (file.is_open()) file << " | " << describe_view(v);
      ++views;
    }
    if (file.is_open()) file << "\n";
    ++planned;
  }
  std::printf("planned %d problems (%d views, %d ranked by narrow trees)%s%s\n", planned, views,
              by_narrow_trees, path && *path ? ", views written to " : "",
              path && *path ? path : "");
  // The embedded model's narrow trees, where it has them, ranked some 1- and 2-byte views.
  const Regression* model = process_models().find(dev.arch, dev.name);
  if (model && model->ranks_narrow()) EXPECT_GT(by_narrow_trees, 0);
}

#endif  // XPOSE_HAVE_CUDA

}  // namespace
