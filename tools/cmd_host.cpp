// `xpose bench-host`: the host's side of a call (issue 14). Plan creation for fresh shapes (a
// new random problem each time, as when shapes change every step; no plan cache), and the host
// time of one enqueue on a made plan: xpose_execute, xpose_transpose on a plan-cache hit, and a
// cudaMemcpyAsync of the same bytes (on the CPU backend: the execute's wall time).
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <set>

#include "args.hpp"
#include "commands.hpp"
#include "gpu.hpp"
#include "runner.hpp"
#include "timing.hpp"

namespace xpose_tool {
namespace {

const char* kHelp =
    "usage: xpose bench-host [--problems N] [--seed S] [options]\n"
    "\n"
    "Plan creation: N (default 1000) random problems, each planned once as on a plan-cache\n"
    "miss: ranks 2-12, elements of 1, 2, 4, 8 or 16 bytes, 4 KiB to 1 GiB (log-uniform),\n"
    "random extents and permutation, from seed S (default: a new one, printed). Prints the\n"
    "median, p90, p99 and maximum in us.\n"
    "Per call: for small and middle tensors, the host's microseconds per enqueue of a made\n"
    "plan (xpose_execute), of xpose_transpose finding its plan in the cache, and of a\n"
    "cudaMemcpyAsync of the same bytes: medians of 50 batches of 100 calls, each batch timed on\n"
    "the host before a wait for the device (so the GPU never holds the host back).\n"
    "\n"
    "  --problems N             random problems to plan\n"
    "  --seed S                 their seed\n";

// A random problem: rank 2-12, a random element size, about `bytes` bytes.
Case random_problem(std::mt19937_64& rng, size_t* elem) {
  Case c;
  c.suite = "host";
  const int rank = 2 + static_cast<int>(rng() % 11);
  *elem = size_t{1} << (rng() % 5);
  const double log_bytes = 12 + static_cast<double>(rng() % 1000) / 1000.0 * 18;  // 4K-1G
  const double volume = std::exp2(log_bytes) / static_cast<double>(*elem);
  // Extents of random weights whose product is about `volume`.
  std::vector<double> w(rank);
  double sum = 0;
  for (double& x : w) sum += x = 0.2 + static_cast<double>(rng() % 1000) / 1000.0;
  for (int k = 0; k < rank; ++k)
    c.extents.push_back(std::max<int64_t>(
        1, static_cast<int64_t>(std::llround(std::pow(volume, w[k] / sum)))));
  c.perm.resize(rank);
  for (int k = 0; k < rank; ++k) c.perm[k] = k;
  std::shuffle(c.perm.begin(), c.perm.end(), rng);
  return c;
}

void plan_creation(const Settings& base, int problems, uint64_t seed) {
  // The process's first plans on a device also read its properties and set up the kernels
  // (each element size's instantiations): once per process, reported apart.
  double first_us = 0;
  for (const size_t elem : {1, 2, 4, 8, 16}) {
    Settings s = base;
    s.elem = elem;
    double t = 0;
    create_fresh_plan(Case{"host", "first", {64, 48, 32}, {2, 0, 1}}, s, &t);
    first_us += t;
  }
  std::printf("first plans of the process (device setup, once): %.1f ms\n", first_us / 1e3);
  std::mt19937_64 rng(seed);
  std::vector<double> us;
  std::vector<double> by_elem[5];
  for (int i = 0; i < problems; ++i) {
    Settings s = base;
    Case c = random_problem(rng, &s.elem);
    double t = 0;
    create_fresh_plan(c, s, &t);
    us.push_back(t);
    by_elem[std::countr_zero(s.elem)].push_back(t);
  }
  std::printf("plan creation, %d fresh random problems (seed %llu): median %.1f us, p90 %.1f, "
              "p99 %.1f, max %.1f (targets: median <= 15, p99 <= 40)\n",
              problems, static_cast<unsigned long long>(seed), median(us), percentile(us, 90),
              percentile(us, 99), percentile(us, 100));
  for (int e = 0; e < 5; ++e)
    if (!by_elem[e].empty())
      std::printf("  %2d-byte elements: %4zu problems, median %.1f us, p99 %.1f\n", 1 << e,
                  by_elem[e].size(), median(by_elem[e]), percentile(by_elem[e], 99));
}

// Host microseconds per call of `call`: medians of 50 batches of 100, a wait after each batch.
double host_us(const Settings& s, const std::function<void()>& call) {
  for (int i = 0; i < 100; ++i) call();
  if (s.on_gpu()) gpu::synchronize();
  std::vector<double> per;
  for (int b = 0; b < 50; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) call();
    per.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                      .count() / 100);
    if (s.on_gpu()) gpu::synchronize();
  }
  return median(per);
}

struct CallCase {
  const char* name;
  std::vector<int64_t> extents;
  std::vector<int> perm;
  size_t elem;
};

void per_call(const Settings& base) {
  const CallCase cases[] = {
      {"f32 2D 4 KiB", {32, 32}, {1, 0}, 4},
      {"fp16 4D 64 KiB", {32, 16, 8, 8}, {1, 3, 0, 2}, 2},
      {"f64 6D 1 MiB", {8, 8, 8, 8, 8, 4}, {4, 2, 0, 5, 3, 1}, 8},
      {"f32 2D 16 MiB", {2048, 2048}, {1, 0}, 4},
  };
  std::printf("\nhost us per call (medians of 50 batches of 100 calls)\n\n");
  std::printf("| %-16s | xpose_execute | xpose_transpose (cached) | cudaMemcpyAsync |\n", "case");
  std::printf("|------------------|--------------:|-------------------------:|----------------:|\n");
  for (const CallCase& cc : cases) {
    Settings s = base;
    s.elem = cc.elem;
    const Case c{"host", cc.name, cc.extents, cc.perm};
    const size_t bytes = static_cast<size_t>(c.volume()) * s.elem;
    Workspace ws(s, bytes);
    ws.prepare(bytes, 3);
    const PlanHandle plan = create_public_plan(c, s);
    void* stream = s.on_gpu() ? gpu::stream() : nullptr;
    const xpose_options_t o = s.options();
    const int rank = static_cast<int>(c.extents.size());
    const double exec = host_us(s, [&] {
      check_status(xpose_execute(plan.get(), ws.in(), ws.out(), stream), "execute");
    });
    const double cached = host_us(s, [&] {
      check_status(xpose_transpose(rank, c.extents.data(), c.perm.data(), s.elem, ws.in(),
                                   ws.out(), &o, stream),
                   "transpose");
    });
    char copy[32] = "-";
    if (s.on_gpu())
      std::snprintf(copy, sizeof copy, "%.2f", host_us(s, [&] {
                      gpu::copy_async(ws.out(), ws.in(), bytes, stream);
                    }));
    std::printf("| %-16s | %13.2f | %24.2f | %15s |\n", cc.name, exec, cached, copy);
  }
}

}  // namespace

int bench_host_command(const std::vector<std::string>& argv) {
  std::set<std::string> flags = kSettingFlags;
  flags.insert({"--problems", "--seed"});
  const ParsedArgs args = parse_args("bench-host", argv, flags, kSettingSwitches);
  if (args.has("--help")) {
    std::printf("%s%s", kHelp, settings_help());
    return 0;
  }
  if (!args.positional.empty())
    throw UsageError("bench-host: unexpected argument '" + args.positional[0] + "'");
  Settings s = parse_settings(args);
  resolve_backend(&s);
  const int problems =
      args.get("--problems")
          ? static_cast<int>(parse_int("--problems", *args.get("--problems"), 1, 1 << 20))
          : 1000;
  const uint64_t seed =
      args.get("--seed")
          ? static_cast<uint64_t>(parse_int("--seed", *args.get("--seed"), 0, INT64_MAX))
          : std::random_device{}();
  std::printf("host costs, backend %s%s\n\n", s.on_gpu() ? "cuda on " : "cpu",
              s.on_gpu() ? gpu::device_name().c_str() : "");
  plan_creation(s, problems, seed);
  per_call(s);
  return 0;
}

}  // namespace xpose_tool
