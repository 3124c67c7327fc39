#include "runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "args.hpp"
#include "gpu.hpp"
#include "timing.hpp"
#include "views.hpp"

namespace xpose_tool {

void resolve_backend(Settings* s) {
  std::string why;
  const bool tool_gpu = gpu::usable(&why);
  if (s->backend == XPOSE_BACKEND_CUDA && !tool_gpu)
    throw ToolError("--backend cuda: " + why);
  if (s->backend != XPOSE_BACKEND_AUTO) return;
  xpose_options_t o = s->options();
  o.backend = XPOSE_BACKEND_CUDA;
  const int64_t extents[2] = {2, 2};
  const int perm[2] = {1, 0};
  xpose_plan_t probe = nullptr;
  const xpose_status_t st = xpose_plan_create(&probe, 2, extents, perm, s->elem, &o);
  xpose_plan_destroy(probe);
  if (st == XPOSE_SUCCESS && tool_gpu) {
    s->backend = XPOSE_BACKEND_CUDA;
  } else if (st == XPOSE_SUCCESS || st == XPOSE_ERROR_UNSUPPORTED) {
    s->backend = XPOSE_BACKEND_CPU;
  } else {
    check_status(st, "--backend auto: probing the CUDA backend");
  }
}

bool parse_single_case(const std::string& command, const std::vector<std::string>& argv,
                       const char* help, Case* c, Settings* s,
                       const std::set<std::string>& own_switches, std::set<std::string>* given) {
  std::set<std::string> flags = kSettingFlags;
  flags.insert({"--extents", "--perm"});
  const ParsedArgs args = parse_args(command, argv, flags, with_settings(own_switches));
  if (given) *given = args.switches;
  if (args.has("--help")) {
    std::printf("%s%s", help, settings_help());
    return false;
  }
  if (!args.positional.empty())
    throw UsageError(command + ": unexpected argument '" + args.positional[0] + "'");
  *c = parse_case(args);
  *s = parse_settings(args);
  resolve_backend(s);
  return true;
}

namespace {
double now_us() {
  using namespace std::chrono;
  return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

PlanHandle create_fresh_plan(const Case& c, const Settings& s, double* us) {
  PlanHandle plan(new xpose_plan_s);
  const xpose_options_t o = s.options();
  const CaseViews v = case_views(c, s);
  const double t0 = now_us();
  const xpose_status_t st = xpose::detail::make_plan(
      static_cast<int>(c.extents.size()), c.extents.data(), c.perm.data(), v.in_elem, &o,
      s.schema.empty() ? nullptr : s.schema.c_str(), /*use_cache=*/false, &plan->plan,
      v.extended ? &v.desc : nullptr);
  *us = now_us() - t0;
  check_status(st, "plan");
  return plan;
}

PlanHandle create_public_plan(const Case& c, const Settings& s) {
  // The public API forces schemas of plain problems only (xpose_plan_create_forced).
  if (!s.schema.empty() && s.extended()) {
    double us = 0;
    return create_fresh_plan(c, s, &us);
  }
  xpose_plan_t p = nullptr;
  check_status(create_plan(c, s, case_views(c, s), &p), "plan");
  return PlanHandle(p);
}

std::string describe(xpose_plan_t plan) {
  std::string text(xpose_plan_describe(plan, nullptr, 0), '\0');
  xpose_plan_describe(plan, text.data(), text.size() + 1);
  return text;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

namespace {
unsigned char* host_alloc(size_t bytes) {
  // Page-aligned so that "aligned data may be faster" paths are the ones measured.
  const size_t rounded = (bytes + 4095) / 4096 * 4096;
  void* p = std::aligned_alloc(4096, rounded == 0 ? 4096 : rounded);
  if (!p) throw ToolError("out of host memory allocating " + std::to_string(bytes) + " bytes");
  return static_cast<unsigned char*>(p);
}

// Every byte odd, hence non-zero; 2^56 values per 8-byte word, so a misplaced element of any
// size is all but certain to differ from the right one.
void fill_random(unsigned char* dst, size_t bytes, uint64_t seed, int threads) {
  const int64_t words = static_cast<int64_t>(bytes / 8);
#pragma omp parallel for schedule(static) num_threads(resolve_threads(threads))
  for (int64_t k = 0; k < words; ++k) {
    const uint64_t w = mix64(seed, static_cast<uint64_t>(k)) | 0x0101010101010101ull;
    std::memcpy(dst + 8 * k, &w, 8);
  }
  for (size_t b = static_cast<size_t>(words) * 8; b < bytes; ++b)
    dst[b] = static_cast<unsigned char>(mix64(seed, b) | 1);
}
}  // namespace

Workspace::Workspace(const Settings& s, size_t max_bytes) : settings_(s), capacity_(max_bytes) {
  const size_t shift = static_cast<size_t>(s.misalign), bytes = max_bytes + shift;
  host_base_ = host_alloc(bytes);
  host_in_ = host_base_ + shift;
  if (s.on_gpu()) {
    host_out_ = host_alloc(max_bytes);
    in_base_ = gpu::alloc(bytes);
    out_base_ = gpu::alloc(bytes);
  } else {
    in_base_ = host_base_;
    out_base_ = host_alloc(bytes);
  }
  in_ = static_cast<unsigned char*>(in_base_) + shift;
  out_ = static_cast<unsigned char*>(out_base_) + shift;
}

Workspace::~Workspace() {
  if (settings_.on_gpu()) {
    gpu::release(in_base_);
    gpu::release(out_base_);
    std::free(host_out_);
  } else {
    std::free(out_base_);
  }
  std::free(host_base_);
}

void Workspace::prepare(size_t bytes, uint64_t seed) {
  if (bytes > capacity_) throw ToolError("internal: case larger than the workspace");
  // The input is filled (and uploaded) once per workspace: every case reads a prefix of the same
  // random bytes, which spares a suite of multi-GB cases as many fills and uploads.
  if (!input_ready_) {
    fill_random(host_in_, capacity_, seed, settings_.threads);
    if (settings_.on_gpu()) gpu::upload(in_, host_in_, capacity_);
    input_ready_ = true;
  }
  if (settings_.on_gpu()) {
    gpu::fill(out_, 0, bytes);
  } else {
    parallel_memset(out_, 0, bytes, settings_.threads);
  }
}

const unsigned char* Workspace::fetch_out(size_t bytes) {
  if (!settings_.on_gpu()) return static_cast<const unsigned char*>(out_);
  gpu::download(host_out_, out_, bytes);
  return host_out_;
}

int default_reps(const Settings& s) { return s.reps > 0 ? s.reps : s.on_gpu() ? 20 : 5; }

namespace {
void execute(xpose_plan_t plan, const void* in, void* out, void* stream) {
  check_status(xpose_execute(plan, in, out, stream), "execute");
}

// Single calls and graphs of the GPU case that time_gpu timed in batches of `batch`. A graph
// that cannot be captured leaves its reason, not a failed case.
Latency gpu_latency(const std::function<void(void*)>& run, const std::function<void(void*)>& copy,
                    int reps, int batch) {
  Latency l;
  l.batch = batch;
  l.single_ms = median(gpu::time_ms(run, reps));
  l.copy_single_ms = median(gpu::time_ms(copy, reps));
  try {
    l.graph_ms = median(gpu::graph_ms(run, reps, batch));
    l.copy_graph_ms = median(gpu::graph_ms(copy, reps, batch));
  } catch (const ToolError& e) {
    l.graph_ms = l.copy_graph_ms = 0;
    l.graph_error = e.what();
  }
  return l;
}

// `in` and `out` are the plan's pointers; the copy moves `bytes` from the workspace's start.
void time_gpu(xpose_plan_t plan, Workspace& ws, const void* in, void* out, size_t bytes, int reps,
              bool latency, Measurement* m) {
  // Cases whose copy takes less than half of kBatchMs (under ~70 MB) are timed in batches of
  // back-to-back launches lasting about kBatchMs, the copy in the same batches: single event
  // pairs around a launch of a few microseconds time the launch and the events as much as the
  // work, and swung the copy of 1 MB between 4 and 11 us from one machine to the next.
  constexpr double kBatchMs = 0.1;
  const double once = median(gpu::copy_ms(ws.out(), ws.in(), bytes, 3));
  int batch = static_cast<int>(std::clamp(kBatchMs / std::max(once, 1e-6), 1.0, 1000.0));
  if (latency) batch = std::max(batch, kLatencyBatch);
  const auto run = [&](void* stream) { execute(plan, in, out, stream); };
  const auto copy = [&](void* stream) { gpu::copy_async(ws.out(), ws.in(), bytes, stream); };
  m->samples = gpu::time_ms(run, reps, batch);
  m->copy_ms = median(gpu::time_ms(copy, reps, batch));
  if (latency) m->latency = gpu_latency(run, copy, reps, batch);
}

// Transposition and copy alternate, each after a cache flush (unless --warm), so both see the
// same cache state and any drift of the machine affects both alike. With `latency` those are
// the single calls, and batches of back-to-back calls (warm) give ms and copy_ms.
void time_cpu(xpose_plan_t plan, Workspace& ws, const void* in, void* out, size_t bytes,
              const Settings& s, bool latency, Measurement* m) {
  const int reps = default_reps(s);
  const auto run = [&] { execute(plan, in, out, nullptr); };
  const auto copy = [&] { parallel_memcpy(ws.out(), ws.in(), bytes, s.threads); };
  copy();
  static CacheFlusher flusher(s.threads);
  std::vector<double> runs, copies;
  for (int r = 0; r < reps; ++r) {
    if (!s.warm) flusher.flush();
    runs.push_back(cpu_time_ms(run, 1).front());
    if (!s.warm) flusher.flush();
    copies.push_back(cpu_time_ms(copy, 1).front());
  }
  if (!latency) {
    m->samples = runs;
    m->copy_ms = median(copies);
    return;
  }
  Latency l;
  l.batch = kLatencyBatch;
  l.single_ms = median(runs);
  l.copy_single_ms = median(copies);
  l.graph_error = "no graphs on the CPU";
  const auto batched = [&](const std::function<void()>& fn) {
    std::vector<double> ms = cpu_time_ms([&] { for (int b = 0; b < l.batch; ++b) fn(); }, reps);
    for (double& t : ms) t /= l.batch;
    return ms;
  };
  m->samples = batched(run);
  m->copy_ms = median(batched(copy));
  m->latency = l;
}

// Median times of the plan and of the copy; both warmed up once first (the plan's warm-up
// run is the checked one, made by the caller).
void time_case(xpose_plan_t plan, Workspace& ws, const void* in, void* out, size_t bytes,
               const Settings& s, bool latency, Measurement* m) {
  if (s.on_gpu()) {
    time_gpu(plan, ws, in, out, bytes, default_reps(s), latency, m);
  } else {
    time_cpu(plan, ws, in, out, bytes, s, latency, m);
  }
  m->ms = median(m->samples);
}
}  // namespace

Measurement measure_case(const Case& c, const Settings& s, Workspace& ws, uint64_t seed,
                         bool latency) {
  Measurement m;
  const CaseViews v = case_views(c, s);
  PlanHandle plan = create_fresh_plan(c, s, &m.plan_us);
  if (c.volume() == 0) {
    m.plan = describe(plan.get());
    m.empty = true;
    return m;
  }
  ws.prepare(static_cast<size_t>(std::max(v.in_bytes(), v.out_bytes())), seed);
  const unsigned char* in = static_cast<unsigned char*>(ws.in()) + v.in_offset * v.in_elem;
  unsigned char* out = static_cast<unsigned char*>(ws.out()) + v.out_offset * v.out_elem;
  m.plan = plan->plan.describe_for(in, out);  // the view these pointers take
  void* stream = s.on_gpu() ? gpu::stream() : nullptr;
  execute(plan.get(), in, out, stream);
  const unsigned char* host_out = ws.fetch_out(static_cast<size_t>(v.out_bytes()));
  const unsigned char* host_in = ws.host_in() + v.in_offset * v.in_elem;
  host_out += v.out_offset * v.out_elem;
  m.check = s.out_type != XPOSE_TYPE_BYTES || s.alpha != 1 || s.beta != 0
                ? check_typed(c, s, v, host_in, host_out, 1 << 18, seed + 1)
                : check_transpose(c, v.in_elem, s.layout, host_in, host_out, 1 << 18, seed + 1,
                                  v.in_strides, v.out_strides);
  time_case(plan.get(), ws, in, out, static_cast<size_t>(v.copy_bytes(c.volume(), s)), s,
            latency, &m);
  return m;
}

size_t workspace_bytes(const Case& c, const Settings& s) {
  const CaseViews v = case_views(c, s);
  return static_cast<size_t>(std::max({v.in_bytes(), v.out_bytes(), v.copy_bytes(c.volume(), s)}));
}

}  // namespace xpose_tool
