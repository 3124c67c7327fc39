// CUDA backend timing harness (no GoogleTest): every case is timed against a same-size
// cudaMemcpyAsync device-to-device copy measured in the same run (8-byte elements unless a
// suite says otherwise), medians of events around batches of launches. Prints a summary per
// suite and writes every case to the CSV given as argv[1].
// Build: nvcc -std=c++20 -O2 -arch=sm_90 tune.cu -I include -L <build>/src -lxpose
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "xpose/xpose.h"

namespace {

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

void* g_in = nullptr;
void* g_out = nullptr;
cudaStream_t g_stream;
cudaEvent_t g_a, g_b;
FILE* g_csv = nullptr;

// Median seconds per call of `fn` over `reps` timed batches of `batch` calls each.
bool g_once = false;  // XPOSE_TUNE_ONCE=1: one launch per case, no timing (for ncu)

template <class F>
double time_it(F fn, int reps, int batch) {
  fn();
  if (g_once) {
    CHECK(cudaStreamSynchronize(g_stream));
    return 1e-6;
  }
  CHECK(cudaStreamSynchronize(g_stream));
  std::vector<float> ms(reps);
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(g_a, g_stream));
    for (int b = 0; b < batch; ++b) fn();
    CHECK(cudaEventRecord(g_b, g_stream));
    CHECK(cudaEventSynchronize(g_b));
    CHECK(cudaEventElapsedTime(&ms[r], g_a, g_b));
  }
  std::nth_element(ms.begin(), ms.begin() + reps / 2, ms.end());
  return 1e-3 * ms[reps / 2] / batch;
}

double copy_time(size_t bytes, int batch) {
  return time_it([&] { CHECK(cudaMemcpyAsync(g_out, g_in, bytes, cudaMemcpyDeviceToDevice, g_stream)); },
                 7, batch);
}

struct Result {
  double ratio, predicted_ratio, measure_ratio;
};

std::string first_impl_line(const std::string& d) {
  // the CUDA summary: the first line that names a grid ("tiled in=.. grid=.. 8B")
  size_t a = 0;
  while (a < d.size()) {
    const size_t b = std::min(d.find('\n', a), d.size());
    const std::string line = d.substr(a, b - a);
    if (line.find(" grid=") != std::string::npos) return line.substr(0, line.find(" on "));
    a = b + 1;
  }
  return "?";
}

double predicted_us(const std::string& d) {
  const size_t p = d.find("predicted ");
  return p == std::string::npos ? -1 : std::atof(d.c_str() + p + 10);
}

Result run_case(const char* suite, const std::vector<int64_t>& ext, const std::vector<int>& perm,
                size_t es, double t_copy, bool also_measure, const char* schema = nullptr) {
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CUDA;
  xpose_plan_t plan;
  const int rank = static_cast<int>(ext.size());
  const xpose_status_t st =
      schema ? xpose_plan_create_forced(&plan, rank, ext.data(), perm.data(), es, &o, schema)
             : xpose_plan_create(&plan, rank, ext.data(), perm.data(), es, &o);
  if (st != XPOSE_SUCCESS) {
    std::fprintf(stderr, "plan failed: %s\n", xpose_last_error());
    std::exit(1);
  }
  char buf[4096];
  xpose_plan_describe(plan, buf, sizeof buf);
  const std::string desc = buf;
  int64_t vol = 1;
  for (auto e : ext) vol *= e;
  const int batch = vol * es < (1 << 22) ? 50 : 1;
  const double t = time_it([&] { xpose_execute(plan, g_in, g_out, g_stream); }, 7, batch);
  CHECK(cudaGetLastError());
  xpose_plan_destroy(plan);
  Result r{t_copy / t, t_copy / (1e-6 * predicted_us(desc)), -1};
  if (also_measure) {
    o.planning = XPOSE_PLAN_MEASURE;
    if (xpose_plan_create(&plan, rank, ext.data(), perm.data(), es, &o) == XPOSE_SUCCESS) {
      r.measure_ratio =
          t_copy / time_it([&] { xpose_execute(plan, g_in, g_out, g_stream); }, 7, batch);
      xpose_plan_destroy(plan);
    }
  }
  std::string shape, p;
  for (int k = 0; k < rank; ++k) shape += (k ? "x" : "") + std::to_string(ext[k]);
  for (int k = 0; k < rank; ++k) p += (k ? " " : "") + std::to_string(perm[k]);
  std::fprintf(g_csv, "%s,%s,%s,%zu,%s,%.3f,%.3f,%.3f,%.3f,%.3f\n", suite, shape.c_str(),
               p.c_str(), es, first_impl_line(desc).c_str(), t * 1e6, t_copy * 1e6,
               predicted_us(desc), r.ratio, r.measure_ratio);
  return r;
}

void summary(const char* suite, std::vector<Result> rs) {
  if (rs.empty()) return;
  std::vector<double> v, pr, m;
  for (auto& r : rs) {
    v.push_back(r.ratio);
    pr.push_back(r.predicted_ratio);
    if (r.measure_ratio > 0) m.push_back(r.measure_ratio);
  }
  std::sort(v.begin(), v.end());
  std::sort(pr.begin(), pr.end());
  std::sort(m.begin(), m.end());
  std::printf("%-22s n=%4zu  median %.3f  p10 %.3f  worst %.3f  best %.3f | model median %.3f",
              suite, v.size(), v[v.size() / 2], v[v.size() / 10], v.front(), v.back(),
              pr[pr.size() / 2]);
  if (!m.empty()) std::printf(" | measure-mode median %.3f (n=%zu)", m[m.size() / 2], m.size());
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  g_csv = std::fopen(argc > 1 ? argv[1] : "/dev/null", "w");
  const char* only = argc > 2 ? argv[2] : "";
  std::fprintf(g_csv, "suite,shape,perm,elem,plan,us,copy_us,predicted_us,ratio,measure_ratio\n");
  const size_t max_bytes = size_t{2700} << 20;
  CHECK(cudaMalloc(&g_in, max_bytes));
  CHECK(cudaMalloc(&g_out, max_bytes));
  CHECK(cudaMemset(g_in, 0x3C, max_bytes));
  CHECK(cudaStreamCreate(&g_stream));
  CHECK(cudaEventCreate(&g_a));
  CHECK(cudaEventCreate(&g_b));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  g_once = std::getenv("XPOSE_TUNE_ONCE") != nullptr;
  const double big = copy_time(size_t{1} << 30, 1);
  std::printf("device %s: cudaMemcpyAsync D2D 1 GiB: %.1f us = %.0f GB/s (read+write)\n",
              prop.name, big * 1e6, 2.0 * (1 << 30) / big / 1e9);
  std::mt19937_64 rng(12345);
  const auto want = [&](const char* s) { return !*only || std::strstr(only, s); };

  if (want("ttlg")) {
    for (int64_t e : {15, 16, 17}) {
      std::vector<Result> rs;
      const std::vector<int64_t> ext(6, e);
      const double tc = copy_time(static_cast<size_t>(std::pow(e, 6)) * 8, 1);
      std::vector<int> perm(6);
      std::iota(perm.begin(), perm.end(), 0);
      int i = 0;
      while (std::next_permutation(perm.begin(), perm.end()))
        rs.push_back(run_case("ttlg6d", ext, perm, 8, tc, i++ % 40 == 0));
      const std::string name = "ttlg6d-" + std::to_string(e);
      summary(name.c_str(), rs);
    }
  }
  if (want("cutt")) {
    std::vector<Result> all;
    for (int ratio : {1, 5, 15}) {
      std::vector<Result> rs;
      for (int rank = 2; rank <= 8; ++rank)
        for (int rep = 0; rep < 8; ++rep) {
          std::vector<double> w(rank);
          for (auto& x : w) x = 1.0 + (ratio - 1) * std::uniform_real_distribution<>(0, 1)(rng);
          w[0] = 1.0;
          if (rank > 1) w[1] = ratio;
          std::shuffle(w.begin(), w.end(), rng);
          const double target = 25e6;  // 200 MB of 8-byte elements
          double prod = 1;
          for (double x : w) prod *= x;
          const double scale = std::pow(target / prod, 1.0 / rank);
          std::vector<int64_t> ext(rank);
          int64_t vol = 1;
          for (int k = 0; k < rank; ++k) vol *= (ext[k] = std::max<int64_t>(2, std::llround(w[k] * scale)));
          std::vector<int> perm(rank);
          std::iota(perm.begin(), perm.end(), 0);
          do std::shuffle(perm.begin(), perm.end(), rng);
          while (std::is_sorted(perm.begin(), perm.end()));
          const double tc = copy_time(vol * 8, 1);
          rs.push_back(run_case("cutt", ext, perm, 8, tc, rep == 0));
        }
      const std::string name = "cutt-ratio" + std::to_string(ratio);
      summary(name.c_str(), rs);
      all.insert(all.end(), rs.begin(), rs.end());
    }
    summary("cutt-all", all);
  }
  if (want("rank812")) {
    for (const auto& ext : {std::vector<int64_t>{5, 3, 2, 4, 35, 33, 37, 40},
                            std::vector<int64_t>{2, 3, 4, 3, 2, 2, 3, 2, 20, 18, 22, 24}}) {
      std::vector<Result> rs;
      int64_t vol = 1;
      for (auto e : ext) vol *= e;
      const double tc = copy_time(vol * 8, 1);
      const int rank = static_cast<int>(ext.size());
      for (int rep = 0; rep < 30; ++rep) {
        std::vector<int> perm(rank);
        std::iota(perm.begin(), perm.end(), 0);
        do std::shuffle(perm.begin(), perm.end(), rng);
        while (std::is_sorted(perm.begin(), perm.end()));
        rs.push_back(run_case(rank == 8 ? "rank8" : "rank12", ext, perm, 8, tc, rep % 10 == 0));
      }
      summary(rank == 8 ? "rank8" : "rank12", rs);
    }
  }
  if (want("square")) {
    std::vector<Result> rs;
    for (int64_t n = 13952; n <= 13968; ++n)
      rs.push_back(run_case("square", {n, n}, {1, 0}, 8, copy_time(n * n * 8, 1), n == 13952));
    summary("square", rs);
  }
  if (want("probe")) {  // a few representative and worst cases, printed one by one
    struct Probe { std::vector<int64_t> ext; std::vector<int> perm; const char* schema; };
    const std::vector<Probe> probes = {
        {{13953, 13953}, {1, 0}, nullptr},
        {{13953, 13953}, {1, 0}, "tiled:in=64,out=64,threads=1024"},
        {{13952, 13952}, {1, 0}, nullptr},
        {{17, 17, 17, 17, 17, 17}, {5, 4, 2, 0, 1, 3}, nullptr},
        {{17, 17, 17, 17, 17, 17}, {5, 4, 2, 0, 1, 3}, "tiled:in=34,out=68,threads=1024"},
        {{15, 15, 15, 15, 15, 15}, {2, 5, 0, 3, 1, 4}, nullptr},
        {{16, 16, 16, 16, 16, 16}, {2, 3, 1, 0, 5, 4}, nullptr},
        {{16, 16, 16, 16, 16, 16}, {2, 3, 1, 0, 5, 4}, "tiled:in=64,out=64,threads=1024"},
        {{11, 11, 11, 11, 11, 11, 11}, {2, 6, 4, 5, 1, 0, 3}, nullptr},
        {{5, 3, 2, 4, 35, 33, 37, 40}, {4, 6, 0, 2, 5, 1, 7, 3}, nullptr}};
    for (const Probe& pr : probes) {
      int64_t vol = 1;
      for (auto e : pr.ext) vol *= e;
      const Result r = run_case("probe", pr.ext, pr.perm, 8, copy_time(vol * 8, 1), false,
                                pr.schema);
      std::printf("probe %-10s %-34s ratio %.3f model %.3f\n", pr.schema ? "forced" : "heuristic",
                  pr.schema ? pr.schema : "", r.ratio, r.predicted_ratio);
    }
  }
  if (want("small")) {
    std::vector<Result> rs;
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int>>> cases = {
        {{256, 512}, {1, 0}},          {{64, 64, 32}, {2, 1, 0}}, {{6, 6, 6, 6, 6, 6}, {5, 3, 1, 0, 2, 4}},
        {{16, 16, 16, 32}, {0, 3, 2, 1}}, {{1000, 100}, {1, 0}},   {{32, 4096}, {1, 0}},
        {{7, 9, 11, 13}, {3, 1, 2, 0}}, {{131072}, {0}}};
    for (const auto& [ext, perm] : cases) {
      int64_t vol = 1;
      for (auto e : ext) vol *= e;
      rs.push_back(run_case("small", ext, perm, 8, copy_time(vol * 8, 50), false));
    }
    summary("small(<=1MB)", rs);
  }
  std::fclose(g_csv);
  return 0;
}
