// Heuristic CUDA plan creation's host work without a GPU (CUDA builds, on the fake H100 with the
// embedded sm_90 regression): validation, normalization and cuda_plan_on, which is everything
// cuda_make_plan does once it has the device's properties. Prints the median and p90 of the
// rank-8 problems of CudaPlanning.PlanCreationMedianUnder50us (tests/gpu/cuda_large_test.cu);
// timing is only printed (CI is a loaded 2-core machine), with a bound that only a gross
// regression breaks.
//
// The choice check: the views of every plan of a fixed corpus (those 400 problems and 300
// random ones of ranks 1-12, extents 1-40, elements of 1-16 bytes, a fixed seed) are written to
// the file XPOSE_PLAN_VIEWS names, one line per plan, so that a change meant to leave every
// choice alone can be checked with a diff of the files before and after it.
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

TEST(CudaPlanSpeed, CorpusViews) {
  const DeviceInfo dev = xpose_test::fake_h100();
  const xpose_options_t o = heuristic();
  std::vector<Request> reqs = rank8_requests();
  for (Request& r : random_requests(300)) reqs.push_back(std::move(r));
  const char* path = std::getenv("XPOSE_PLAN_VIEWS");
  std::ofstream file;
  if (path && *path) file.open(path);
  int planned = 0;
  for (const Request& r : reqs) {
    BackendPlanPtr p;
    Problem q;
    ASSERT_EQ(make_problem(static_cast<int>(r.ext.size()), r.ext.data(), r.perm.data(), r.elem,
                           XPOSE_COL_MAJOR, &q),
              XPOSE_SUCCESS);
    if (q.volume == 0) continue;
    ASSERT_EQ(cuda_plan_on(q, dev, o, "", &p), XPOSE_SUCCESS) << q.to_string();
    const std::vector<std::string> views = cuda_plan_views(*p);
    ASSERT_FALSE(views.empty()) << q.to_string();
    // The last view takes any pointer: bytes, or a row kernel (which picks its own width).
    const std::string& last = views.back();
    EXPECT_TRUE(last.rfind("align 1:", 0) == 0) << last;
    ++planned;
    if (file.is_open()) {
      file << q.to_string();
      for (const std::string& v : views) file << " | " << v;
      file << "\n";
    }
  }
  std::printf("planned %d problems%s%s\n", planned, path && *path ? ", views written to " : "",
              path && *path ? path : "");
}

#endif  // XPOSE_HAVE_CUDA

}  // namespace
