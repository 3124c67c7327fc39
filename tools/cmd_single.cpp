// `xpose bench-single`: what single use (plan, execute, destroy, no plan cache) costs against
// repeated execution of one plan, for tensors of about 200 MB (issue 4: single use at >= 0.85
// of repeated use), and the time of a warm xpose_predict.
#include <chrono>
#include <cstdio>
#include <functional>

#include "args.hpp"
#include "commands.hpp"
#include "dataset.hpp"
#include "gpu.hpp"
#include "runner.hpp"
#include "timing.hpp"

namespace xpose_tool {
namespace {

const char* kHelp =
    "usage: xpose bench-single [--bytes B] [--iters N] [--rounds R] [options]\n"
    "\n"
    "For tensors of about B bytes (default 200000000) of ranks 2 to 8, times N iterations\n"
    "(default 100 on the GPU, 3 on the CPU) of\n"
    "  repeated  xpose_execute of one plan made beforehand, and\n"
    "  single    a fresh plan (made as on a plan-cache miss) + xpose_execute +\n"
    "            xpose_plan_destroy,\n"
    "each two ways: pipelined (every iteration enqueued, one wait at the end: on the GPU the\n"
    "host's planning overlaps the previous asynchronous execute, as in a stream of work) and\n"
    "synchronous (a wait after every execute: planning is not hidden). Times are wall clock per\n"
    "iteration (GPU: CUDA events around the pipelined loop too); ratio = repeated / single\n"
    "(1: single use costs nothing extra). The four loops run in turn, R rounds: times and\n"
    "ratios are the medians of the rounds, so a slow spell of the host touches one round.\n"
    "Also the warm xpose_predict time, in us per call.\n"
    "\n"
    "  --bytes B                tensor size in bytes\n"
    "  --iters N                iterations per loop and round\n"
    "  --rounds R               rounds (default 5)\n";

struct Variant {
  int rank;
  Shape shape;
  std::vector<int> perm;
};

const Variant kVariants[] = {
    {2, Shape::Equal, {1, 0}},
    {3, Shape::Equal, {2, 1, 0}},
    {3, Shape::Increasing, {0, 2, 1}},
    {4, Shape::Valley, {3, 1, 0, 2}},
    {5, Shape::Peaked, {4, 2, 0, 3, 1}},
    {6, Shape::Decreasing, {5, 3, 1, 0, 2, 4}},
    {8, Shape::Equal, {7, 2, 5, 0, 3, 1, 6, 4}},
};

struct Timing {
  double wall_us = 0;   // per iteration
  double event_us = 0;  // per iteration, GPU pipelined only
};

// N iterations of `body`; `sync` waits for the device after each.
Timing time_loop(const Settings& s, int iters, bool sync, const std::function<void()>& body) {
  Timing t;
  const auto t0 = std::chrono::steady_clock::now();
  if (s.on_gpu()) {
    const double ms = gpu::time_ms(
        [&](void*) {
          for (int i = 0; i < iters; ++i) {
            body();
            if (sync) gpu::synchronize();
          }
        },
        1)[0];
    t.event_us = 1e3 * ms / iters;
  } else {
    for (int i = 0; i < iters; ++i) body();
  }
  t.wall_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                  .count() / iters;
  return t;
}

// Mean microseconds of a warm xpose_predict (the plan cache holds the plan).
double predict_us(const Case& c, const Settings& s) {
  const xpose_options_t o = s.options();
  const int rank = static_cast<int>(c.extents.size());
  double seconds = 0;
  check_status(xpose_predict(rank, c.extents.data(), c.perm.data(), s.elem, &o, &seconds),
               "xpose_predict");
  constexpr int kCalls = 20000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i)
    xpose_predict(rank, c.extents.data(), c.perm.data(), s.elem, &o, &seconds);
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
             .count() / kCalls;
}

}  // namespace

int bench_single_command(const std::vector<std::string>& argv) {
  std::set<std::string> flags = kSettingFlags;
  flags.insert({"--bytes", "--iters", "--rounds"});
  const ParsedArgs args = parse_args("bench-single", argv, flags, kSettingSwitches);
  if (args.has("--help")) {
    std::printf("%s%s", kHelp, settings_help());
    return 0;
  }
  if (!args.positional.empty())
    throw UsageError("bench-single: unexpected argument '" + args.positional[0] + "'");
  Settings s = parse_settings(args);
  resolve_backend(&s);
  const int64_t bytes = args.get("--bytes")
                            ? parse_int("--bytes", *args.get("--bytes"), 1 << 10, int64_t{1} << 40)
                            : 200000000;
  const int iters = args.get("--iters")
                        ? static_cast<int>(parse_int("--iters", *args.get("--iters"), 1, 1 << 20))
                        : s.on_gpu() ? 100 : 3;
  const int rounds =
      args.get("--rounds") ? static_cast<int>(parse_int("--rounds", *args.get("--rounds"), 1, 99))
                           : 5;
  const int64_t volume = bytes / static_cast<int64_t>(s.elem);
  std::printf("single use vs repeated use, %s, %zu-byte elements, %d iterations x %d rounds, us "
              "per iteration (medians of the rounds)\n\n",
              s.on_gpu() ? gpu::device_name().c_str() : "cpu", s.elem, iters, rounds);
  std::printf("| %-34s | plan | repeated | single | ratio | rep. sync | single sync | ratio "
              "| predict |\n",
              "extents perm");
  std::printf("|------------------------------------|-----:|---------:|-------:|------:|---------"
              "-:|------------:|------:|--------:|\n");
  Workspace ws(s, static_cast<size_t>(bytes));
  void* stream = s.on_gpu() ? gpu::stream() : nullptr;
  const auto execute = [&](xpose_plan_t plan) {
    check_status(xpose_execute(plan, ws.in(), ws.out(), stream), "execute");
  };
  std::vector<double> ratios, sync_ratios;
  uint64_t seed = 1;
  for (const Variant& v : kVariants) {
    const Case c{"single", std::to_string(v.rank) + "d",
                 shaped_extents(v.rank, v.shape, volume, 0.1, seed++), v.perm};
    ws.prepare(static_cast<size_t>(c.volume()) * s.elem, 7);
    double plan_us = 0;
    const PlanHandle plan = create_fresh_plan(c, s, &plan_us);
    execute(plan.get());  // warm-up
    const auto repeated = [&] { execute(plan.get()); };
    const auto single = [&] {
      double us = 0;
      execute(create_fresh_plan(c, s, &us).get());
    };
    single();
    time_loop(s, iters, false, repeated);  // clocks up to speed before anything is timed
    // Per round: wall and event times of repeated, single, repeated sync, single sync.
    std::vector<double> t[4], ev[2], ratio[2];
    for (int r = 0; r < rounds; ++r) {
      const Timing got[4] = {
          time_loop(s, iters, false, repeated), time_loop(s, iters, false, single),
          time_loop(s, iters, true, repeated), time_loop(s, iters, true, single)};
      for (int k = 0; k < 4; ++k) t[k].push_back(got[k].wall_us);
      for (int k = 0; k < 2; ++k) ev[k].push_back(got[k].event_us);
      for (int k = 0; k < 2; ++k) ratio[k].push_back(got[2 * k].wall_us / got[2 * k + 1].wall_us);
    }
    ratios.push_back(median(ratio[0]));
    sync_ratios.push_back(median(ratio[1]));
    const std::string name = join(c.extents, false) + " " + join(c.perm, false);
    std::printf("| %-34s | %4.0f | %8.1f | %6.1f | %5.3f | %9.1f | %11.1f | %5.3f | %7.2f |\n",
                name.c_str(), plan_us, median(t[0]), median(t[1]), ratios.back(), median(t[2]),
                median(t[3]), sync_ratios.back(), predict_us(c, s));
    if (s.on_gpu())
      std::printf("|   CUDA events, pipelined           |      | %8.1f | %6.1f | %5.3f |\n",
                  median(ev[0]), median(ev[1]), median(ev[0]) / median(ev[1]));
  }
  std::printf("\nratio repeated/single: pipelined min %.3f median %.3f; synchronous min %.3f "
              "median %.3f (target >= 0.85)\n",
              percentile(ratios, 0), median(ratios), percentile(sync_ratios, 0),
              median(sync_ratios));
  return 0;
}

}  // namespace xpose_tool
