// The seam between the core (validation, normalization, caching, the C API) and the backends.
// No CUDA header is included here or by anything in src/core.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "xpose/xpose.h"

namespace xpose::detail {

// A backend's executable plan: made once by the backend's planner, immutable afterwards, safe to
// execute from several threads (and, for CUDA, streams) at once.
class BackendPlan {
 public:
  virtual ~BackendPlan() = default;
  // `in`/`out` are already checked (non-NULL, no overlap). Must not allocate on the CUDA backend.
  virtual xpose_status_t execute(const void* in, void* out, void* stream) const = 0;
  // One or more lines: schema and its parameters, for xpose_plan_describe and `xpose explain`.
  virtual std::string describe() const = 0;
  // One line: what execute runs for these pointers (a plan with views by alignment: the view
  // they select), for benchmarks; by default describe()'s first line.
  virtual std::string runs_for(const void* in, const void* out) const {
    (void)in, (void)out;
    const std::string d = describe();
    return d.substr(0, d.find('\n'));
  }
  // The backend's cost model's prediction of one execute, in seconds; < 0 when it has none.
  virtual double predicted_seconds() const { return -1; }
};

using BackendPlanPtr = std::shared_ptr<const BackendPlan>;

// One plan a planner considered, for `xpose explain`: what it is and what it should cost.
struct Candidate {
  std::string description;         // schema and parameters, as BackendPlan::describe() says
  double predicted_seconds = -1;   // the planner's cost model; -1 when it has none
  double measured_seconds = -1;    // filled by measure planning (or explain's --measure-all)
  std::string model;               // which cost model predicted: "analytic", "regression sm_90"
  bool chosen = false;
};

// Every backend entry point below takes a resolved problem (`p.volume > 0`) and resolved options
// (resolve_options; for CUDA, options.device is an ordinal). `schema` empty lets the planner
// choose; otherwise it names the schema (and parameters) to force, in the backend's own syntax
// (docs/cpu.md, docs/cuda.md), and a schema that does not apply is XPOSE_ERROR_INVALID_ARGUMENT.

// CPU backend (src/cpu).
xpose_status_t cpu_make_plan(const Problem& p, const xpose_options_t& options,
                             const std::string& schema, BackendPlanPtr* plan);
// `measure_all`: every candidate timed, whatever the planning mode (`xpose explain`).
xpose_status_t cpu_candidates(const Problem& p, const xpose_options_t& options, bool measure_all,
                              std::vector<Candidate>* candidates);

// CUDA backend (src/cuda, or src/core/cuda_absent.cpp in a build without CUDA).
// Whether a usable CUDA device exists; when not, `why` says why (no driver, no device, ...).
bool cuda_usable(std::string* why);
// Resolves options.device (-1 = the calling thread's current device) to an ordinal.
xpose_status_t cuda_resolve_device(int requested, int* device);
xpose_status_t cuda_make_plan(const Problem& p, const xpose_options_t& options,
                              const std::string& schema, BackendPlanPtr* plan);
xpose_status_t cuda_candidates(const Problem& p, const xpose_options_t& options,
                               bool measure_all, std::vector<Candidate>* candidates);

// In-place transposition (issue 5; src/core/inplace.cpp classifies, src/inplace executes).
// Every supported request is, after normalization, one swap of two equal dimensions: element
// (a, x, b, y, c) trades places with (a, y, b, x, c), a < inner, x, y < n, b < mid, c < outer,
// column-major, so x has stride inner and y stride inner * n * mid. A square matrix is
// inner = mid = outer = 1; T_yxz (perm {1,0,2}) has outer = z; T_zyx (perm {2,1,0}) has mid = y;
// a leading dimension that stays (perm {0,2,1}) is inner.
struct InplaceRequest {
  size_t elem_size = 0;
  int64_t inner = 1, n = 0, mid = 1, outer = 1;
  // Forcing (tests, `xpose inplace`): scheme -1 = the backend's choice, else a
  // pairing::Scheme value; w (V1B band width) and region (super-grid order, tiles) 0 = default.
  int scheme = -1;
  int64_t w = 0, region = 0;
  // CPU tile kernels' instruction set by name (cpu::parse_isa: "scalar", "sse2", "avx2",
  // "avx512"; 1- and 2-byte words); "" = the best this CPU runs.
  std::string cpu_isa;
};

// `data` is non-NULL and the request non-empty (n >= 2). The CUDA entry enqueues on `stream`,
// allocates nothing and does not synchronize.
xpose_status_t cpu_transpose_inplace(const InplaceRequest& r, const xpose_options_t& options,
                                     void* data);
xpose_status_t cuda_transpose_inplace(const InplaceRequest& r, const xpose_options_t& options,
                                      void* data, void* stream);

}  // namespace xpose::detail
