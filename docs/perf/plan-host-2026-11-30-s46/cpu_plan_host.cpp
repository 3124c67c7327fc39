// CPU plan creation (cpu_make_plan, heuristic, all threads) timed per problem, the fastest of 3,
// for the problems of one element size among N drawn as `xpose bench-host` draws them (ranks
// 2-12, 4 KiB-1 GiB log-uniform). Session 46 (docs/perf/README.md).
//   cpu_plan_host SEED N ELEM   median, p90, p99 in us, then the 12 slowest problems
// Build as plan_host.cpp (no -Itests needed).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/problem.hpp"

using namespace xpose::detail;

int main(int argc, char** argv) {
  if (argc != 4) return std::fprintf(stderr, "usage: cpu_plan_host SEED N ELEM\n"), 2;
  std::mt19937_64 rng(std::stoull(argv[1]));
  const int n = std::stoi(argv[2]);
  const size_t only = std::stoul(argv[3]);
  xpose_options_t o, r;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CPU;
  resolve_options(&o, &r);
  std::vector<std::pair<double, std::string>> rs;
  for (int i = 0; i < n; ++i) {
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
    Problem p;
    if (elem != only || make_problem(rank, ext.data(), perm.data(), elem, XPOSE_COL_MAJOR, &p) !=
                            XPOSE_SUCCESS || p.volume == 0)
      continue;
    double best = 1e30;
    BackendPlanPtr plan;
    for (int k = 0; k < 3; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      cpu_make_plan(p, r, "", &plan);
      best = std::min(best, std::chrono::duration<double, std::micro>(
                                std::chrono::steady_clock::now() - t0).count());
    }
    const std::string d = plan->describe();
    rs.emplace_back(best, p.to_string() + " -> " + d.substr(0, d.find('\n')));
  }
  std::sort(rs.begin(), rs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<double> us;
  for (const auto& x : rs) us.push_back(x.first);
  std::sort(us.begin(), us.end());
  std::printf("%zu problems: median %.1f us, p90 %.1f, p99 %.1f\n", us.size(), us[us.size() / 2],
              us[us.size() * 9 / 10], us[us.size() * 99 / 100]);
  for (size_t i = 0; i < 12 && i < rs.size(); ++i)
    std::printf("%6.1f %s\n", rs[i].first, rs[i].second.c_str());
}
