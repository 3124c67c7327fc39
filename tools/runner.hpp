// Running one case the way `xpose run` and `xpose bench` report it: a fresh plan, random input,
// poisoned output, one checked execution, then timed repetitions and the same-run copy baseline.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "check.hpp"
#include "common.hpp"
#include "core/plan.hpp"

namespace xpose_tool {

struct PlanDeleter {
  void operator()(xpose_plan_t p) const { xpose_plan_destroy(p); }
};
using PlanHandle = std::unique_ptr<xpose_plan_s, PlanDeleter>;

// AUTO becomes CUDA when the library plans a probe transposition on the CUDA backend and this
// tool can drive the GPU; XPOSE_ERROR_UNSUPPORTED (no CUDA build, no device) means the CPU.
// Any other failure, or an explicit --backend cuda the tool cannot drive, is a ToolError.
void resolve_backend(Settings* s);

// The request of a single-case command (`run`, `explain`): --extents, --perm and the settings,
// with the backend resolved, plus the command's own switches (those given land in `given`).
// Prints `help` and the settings' help and returns false for --help.
bool parse_single_case(const std::string& command, const std::vector<std::string>& argv,
                       const char* help, Case* c, Settings* s,
                       const std::set<std::string>& own_switches = {},
                       std::set<std::string>* given = nullptr);

// A plan made by the planner itself, bypassing the plan cache (so every call plans afresh);
// `us` gets the creation time. The handle is a real xpose_plan_t.
PlanHandle create_fresh_plan(const Case& c, const Settings& s, double* us);
// A plan through the public xpose_plan_create (or _forced with --schema): cached.
PlanHandle create_public_plan(const Case& c, const Settings& s);
std::string describe(xpose_plan_t plan);
std::string first_line(const std::string& text);

// Input and output buffers of the chosen backend, allocated once at the largest case's size.
class Workspace {
 public:
  Workspace(const Settings& s, size_t max_bytes);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // Random input whose every byte is non-zero (filled on the first call only), output poisoned
  // with zero bytes: an element the transposition forgets to write can never match.
  void prepare(size_t bytes, uint64_t seed);
  void* in() { return in_; }
  void* out() { return out_; }
  const unsigned char* host_in() const { return host_in_; }
  // The output as host bytes (downloaded from the GPU).
  const unsigned char* fetch_out(size_t bytes);

 private:
  Settings settings_;
  size_t capacity_;
  bool input_ready_ = false;
  void* in_base_ = nullptr;  // allocations; in_ and out_ lie settings_.misalign bytes past them
  void* out_base_ = nullptr;
  unsigned char* host_base_ = nullptr;
  void* in_ = nullptr;
  void* out_ = nullptr;
  unsigned char* host_in_ = nullptr;   // the input itself on the CPU, a staging copy on the GPU
  unsigned char* host_out_ = nullptr;  // GPU only
};

// Latency next to throughput (`xpose bench --latency`): what a caller that waits for each call
// sees, against what back-to-back calls cost.
struct Latency {
  int batch = 0;               // back-to-back calls per timed batch of Measurement::ms (>= 20)
  double single_ms = 0;        // median of one call alone (GPU: between two events)
  double copy_single_ms = 0;   // the same for the copy
  double graph_ms = 0;         // per call, replaying a CUDA graph of `batch` calls; 0: none
  double copy_graph_ms = 0;    // the same for the copy
  std::string graph_error;     // why there is no graph time (the CPU, a failed capture)
};

struct Measurement {
  bool empty = false;           // volume 0: nothing was run
  double ms = 0;                // median execution time
  double copy_ms = 0;           // median time of a copy of the same bytes
  double plan_us = 0;           // creation of a fresh plan
  std::vector<double> samples;  // every timed execution
  std::string plan;             // xpose_plan_describe
  CheckResult check;
  std::optional<Latency> latency;  // with `latency`: ms and copy_ms are then the batched times
  double ratio() const { return ms > 0 ? copy_ms / ms : 0; }
  // Bytes read plus written per second, in GB/s.
  double bandwidth_gbs(size_t bytes) const { return ms > 0 ? 2.0 * bytes / (ms * 1e6) : 0; }
};

int default_reps(const Settings& s);

// Throws ToolError when the library fails; a wrong result is reported in `check`, not thrown.
// With `latency`, ms and copy_ms time batches of at least kLatencyBatch back-to-back calls
// (warm caches on the CPU), and m.latency single calls and CUDA graphs as well.
constexpr int kLatencyBatch = 20;
Measurement measure_case(const Case& c, const Settings& s, Workspace& ws, uint64_t seed,
                         bool latency = false);

// The workspace a case needs under `s` (padded tensors, the copy of the bytes it moves).
size_t workspace_bytes(const Case& c, const Settings& s);

}  // namespace xpose_tool
