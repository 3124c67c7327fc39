// Plan creation on the host without a GPU, for random problems drawn as `xpose bench-host`
// draws them (ranks 2-12, elements of 1-16 bytes, 4 KiB-1 GiB log-uniform). Session 46
// (docs/perf/README.md).
//   plan_host time SEED N     CUDA (cuda_plan_on with the tests' fake H100): per problem the
//                             fastest of 3 plan creations; median, p90, p99, max
//   plan_host choices SEED N  each problem's CUDA heuristic choice and prediction, a line each
//   ... SEED N LO_MIB HI_MIB MIN_ELEM: only the problems drawn of LO-HI MiB and elements of at
//   least MIN_ELEM bytes
//   plan_host cpu SEED N ELEM the CPU backend (cpu_make_plan, heuristic, all threads) for the
//                             problems of ELEM bytes: median, p90, p99, then the 12 slowest
// Build against a tree's library (build-carry configured as in docs/cuda.md):
//   g++ -O2 -std=c++20 -DXPOSE_HAVE_CUDA=1 -Isrc -Iinclude -Itests -isystem /usr/local/cuda/include \
//     plan_host.cpp build-carry/src/libxpose_internal.a -fopenmp \
//     /usr/local/cuda/lib/libcudart_static.a -ldl -lrt -lpthread -o plan_host
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cuda/host_plan.hpp"
#include "fake_device.hpp"  // tests/: the H100 figures the planner tests use

using namespace xpose::detail;

namespace {

// bench-host's next random problem, normalized (false: empty or invalid).
bool draw(std::mt19937_64& rng, Problem* p) {
  const int rank = 2 + static_cast<int>(rng() % 11);
  const size_t elem = size_t{1} << (rng() % 5);
  const double bytes = std::exp2(12 + static_cast<double>(rng() % 1000) / 1000.0 * 18);
  std::vector<double> w(rank);
  double sum = 0;
  for (double& x : w) sum += x = 0.2 + static_cast<double>(rng() % 1000) / 1000.0;
  std::vector<int64_t> ext;
  for (int k = 0; k < rank; ++k)
    ext.push_back(std::max<int64_t>(1, std::llround(std::pow(bytes / elem, w[k] / sum))));
  std::vector<int> perm(rank);
  for (int k = 0; k < rank; ++k) perm[k] = k;
  std::shuffle(perm.begin(), perm.end(), rng);
  return make_problem(rank, ext.data(), perm.data(), elem, XPOSE_COL_MAJOR, p) == XPOSE_SUCCESS &&
         p->volume > 0;
}

// The fastest of 3 runs of `plan`, in us.
template <class F>
double fastest(F&& plan) {
  double best = 1e30;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    plan();
    best = std::min(best, std::chrono::duration<double, std::micro>(
                              std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

void print_quantiles(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  const auto q = [&](double f) { return us[std::min(us.size() - 1, size_t(f * us.size()))]; };
  std::printf("%zu problems: median %.1f us, p90 %.1f, p99 %.1f, max %.1f\n", us.size(), q(0.5),
              q(0.9), q(0.99), us.back());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (!((argc == 4 || argc == 7) && (mode == "time" || mode == "choices")) &&
      !(argc == 5 && mode == "cpu"))
    return std::fprintf(stderr, "usage: plan_host time|choices SEED N [LO_MIB HI_MIB MIN_ELEM]\n"
                                "       plan_host cpu SEED N ELEM\n"), 2;
  std::mt19937_64 rng(std::stoull(argv[2]));
  const int n = std::stoi(argv[3]);
  std::vector<double> us;
  Problem p;
  if (mode == "cpu") {
    const size_t only = std::stoul(argv[4]);
    xpose_options_t o, r;
    xpose_options_init(&o);
    o.backend = XPOSE_BACKEND_CPU;
    resolve_options(&o, &r);
    std::vector<std::pair<double, std::string>> slow;
    for (int i = 0; i < n; ++i) {
      if (!draw(rng, &p) || p.elem_size != only) continue;
      BackendPlanPtr plan;
      us.push_back(fastest([&] { cpu_make_plan(p, r, "", &plan); }));
      const std::string d = plan->describe();
      slow.emplace_back(us.back(), p.to_string() + " -> " + d.substr(0, d.find('\n')));
    }
    print_quantiles(us);
    std::sort(slow.rbegin(), slow.rend());
    for (size_t i = 0; i < 12 && i < slow.size(); ++i)
      std::printf("%6.1f %s\n", slow[i].first, slow[i].second.c_str());
    return 0;
  }
  const double lo = argc == 7 ? std::stod(argv[4]) : 0, hi = argc == 7 ? std::stod(argv[5]) : 1e9;
  const size_t min_elem = argc == 7 ? std::stoul(argv[6]) : 1;
  const DeviceInfo d = xpose_test::fake_h100();
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CUDA;
  o.device = 0;
  for (int i = 0; i <= n; ++i) {  // problem 0 loads the models: not counted
    if (!draw(rng, &p)) continue;
    const double mib = static_cast<double>(p.bytes()) / (1 << 20);
    if (i > 0 && (mib < lo || mib > hi || p.elem_size < min_elem)) continue;
    if (mode == "choices") {
      Choice c;
      const bool ok = best_choice(p, d, nullptr, &c);
      std::printf("%s: %s %.9g\n", p.to_string().c_str(), ok ? summarize(p, c).c_str() : "-",
                  c.predicted);
      continue;
    }
    BackendPlanPtr plan;
    const double t = fastest([&] { cuda_plan_on(p, d, o, "", &plan); });
    if (i > 0) us.push_back(t);
  }
  if (mode == "time") print_quantiles(us);
}
