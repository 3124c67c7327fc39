// `xpose run`: one transposition, timed against a same-run copy, plan-creation times, checked.
#include <cstdio>

#include "args.hpp"
#include "commands.hpp"
#include "gpu.hpp"
#include "runner.hpp"
#include "timing.hpp"
#include "views.hpp"

namespace xpose_tool {
namespace {

const char* kRunHelp =
    "usage: xpose run --extents E0,E1,... --perm P0,P1,... [options]\n"
    "\n"
    "Runs one transposition of random data into a poisoned output, checks sampled positions\n"
    "against the index map, and prints the median time, the bandwidth (read + write), the\n"
    "ratio to a copy of the same bytes measured in the same run (>1: faster than a copy),\n"
    "plan-creation times and the plan.\n"
    "\n"
    "  --extents LIST           extents, comma-separated (column-major unless --layout row)\n"
    "  --perm LIST              output dimension i is input dimension perm[i]\n";

// Plan-creation times in µs: the first fresh plan (cold), then fresh plans warm, then the
// public, cached path.
struct PlanTimes {
  double first_us = 0, warm_us = 0, cached_us = 0;
  int warm_count = 0;
};

PlanTimes time_planning(const Case& c, const Settings& s, double first_us) {
  PlanTimes t;
  t.first_us = first_us;
  // Measure planning runs candidates on real buffers, so fewer repetitions keep it bearable.
  t.warm_count = s.planning == XPOSE_PLAN_MEASURE ? 3 : 21;
  std::vector<double> warm, cached;
  for (int r = 0; r < t.warm_count; ++r) {
    double us = 0;
    create_fresh_plan(c, s, &us);
    warm.push_back(us);
  }
  create_public_plan(c, s);  // fills the cache
  for (int r = 0; r < t.warm_count; ++r)
    cached.push_back(cpu_time_ms([&] { create_public_plan(c, s); }, 1)[0] * 1e3);
  t.warm_us = median(warm);
  t.cached_us = median(cached);
  return t;
}

void print_header(const Case& c, const Settings& s) {
  std::printf("problem     extents %s perm %s, %zu-byte elements, %s, %lld elements\n",
              join(c.extents).c_str(), join(c.perm).c_str(), s.elem, layout_name(s.layout),
              static_cast<long long>(c.volume()));
  if (s.misalign > 0)
    std::printf("pointers    in and out %d bytes past an aligned address\n", s.misalign);
  if (s.on_gpu())
    std::printf("backend     cuda on %s\n", gpu::device_name().c_str());
  else
    std::printf("backend     cpu, %d threads\n", resolve_threads(s.threads));
}

void print_measurement(const Case& c, const Settings& s, const Measurement& m,
                       const PlanTimes& t) {
  const size_t bytes = static_cast<size_t>(case_views(c, s).copy_bytes(c.volume(), s));
  if (m.empty) {
    std::printf("time        empty tensor: nothing to do\n");
  } else {
    std::printf("time        %.4f ms (median of %zu, min %.4f ms)\n", m.ms, m.samples.size(),
                percentile(m.samples, 0));
    std::printf("bandwidth   %.2f GB/s (read + write)\n", m.bandwidth_gbs(bytes));
    std::printf("copy        %.4f ms, %.2f GB/s (%s)\n", m.copy_ms,
                m.copy_ms > 0 ? 2.0 * bytes / (m.copy_ms * 1e6) : 0.0,
                s.on_gpu() ? "cudaMemcpyAsync device to device" : "parallel memcpy");
    std::printf("ratio       %.3f (copy time / transposition time; > 1 is faster than a copy)\n",
                m.ratio());
  }
  std::printf("plan        first %.1f us, warm %.1f us (median of %d fresh plans), cached %.1f us\n",
              t.first_us, t.warm_us, t.warm_count, t.cached_us);
  if (m.empty)
    std::printf("check       nothing to check\n");
  else if (m.check.ok())
    std::printf("check       ok (%lld positions)\n", static_cast<long long>(m.check.checked));
  else
    std::printf("check       FAILED: %lld of %lld positions wrong; first: %s\n",
                static_cast<long long>(m.check.wrong), static_cast<long long>(m.check.checked),
                m.check.first_wrong.c_str());
  std::printf("plan description:\n");
  std::string text = m.plan;
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    std::printf("  %s\n", text.substr(start, end - start).c_str());
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

}  // namespace

int run_command(const std::vector<std::string>& argv) {
  Case c;
  Settings s;
  if (!parse_single_case("run", argv, kRunHelp, &c, &s)) return 0;
  Workspace ws(s, workspace_bytes(c, s));
  const Measurement m = measure_case(c, s, ws, 0x5eed);
  print_header(c, s);
  print_measurement(c, s, m, time_planning(c, s, m.plan_us));
  return m.check.ok() ? 0 : 1;
}

}  // namespace xpose_tool
