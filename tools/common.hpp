// Shared vocabulary of the `xpose` command: cases, settings, errors, a portable random generator.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/splitmix.hpp"
#include "xpose/xpose.h"

namespace xpose_tool {

// A failure the tool reports as one line, "xpose: <message>", with exit status 1.
struct ToolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A bad command line: reported like ToolError, with exit status 2.
struct UsageError : ToolError {
  using ToolError::ToolError;
};

// One transposition problem as the user states it (layout chosen by Settings).
struct Case {
  std::string suite;
  std::string name;
  std::vector<int64_t> extents;
  std::vector<int> perm;
  size_t elem = 0;  // element bytes of this case; 0: the run's (--elem, Settings::elem)

  int64_t volume() const;
  size_t elem_or(size_t run_elem) const { return elem ? elem : run_elem; }
};

// What the command line chose; backend is resolved to CPU or CUDA before anything runs.
struct Settings {
  size_t elem = 8;
  xpose_layout_t layout = XPOSE_COL_MAJOR;
  xpose_backend_t backend = XPOSE_BACKEND_AUTO;
  xpose_planning_t planning = XPOSE_PLAN_HEURISTIC;
  int threads = 0;     // CPU backend and the CPU copy baseline; 0 = all hardware threads
  std::string schema;  // empty: the planner chooses; else xpose_plan_create_forced
  int reps = 0;        // 0: the backend's default
  bool warm = false;   // CPU: time with warm caches instead of flushing them before each rep
  int misalign = 0;    // bytes (0-15) by which both buffers start past an aligned address
  // Typed runs (xpose_plan_create_ex, tools/views.hpp): --type, --out-type, --alpha, --beta,
  // --pad. BYTES: opaque elements of `elem` bytes.
  xpose_type_t type = XPOSE_TYPE_BYTES;
  xpose_type_t out_type = XPOSE_TYPE_BYTES;  // BYTES: the same as `type`
  double alpha = 1, beta = 0;
  int pad = 0;  // each extent of both tensors padded by 1..pad elements on both sides
  // Needs xpose_plan_create_ex: a conversion, scalars or padding.
  bool extended() const {
    return out_type != XPOSE_TYPE_BYTES || alpha != 1 || beta != 0 || pad > 0;
  }

  xpose_options_t options() const;
  bool on_gpu() const { return backend == XPOSE_BACKEND_CUDA; }
};

// The suites and the fills must be the same on every platform and standard library.
using Random = xpose::detail::SplitMix64;

// Stateless hash of (seed, i): the word a parallel fill writes at word index i.
inline uint64_t mix64(uint64_t seed, uint64_t i) {
  return Random(seed ^ (i * 0xd1342543de82ef95ull)).next();
}

// "(4,5,6)" for {4,5,6}; "4,5,6" with parens = false.
std::string join(const std::vector<int64_t>& v, bool parens = true);
std::string join(const std::vector<int>& v, bool parens = true);

const char* layout_name(xpose_layout_t layout);
const char* backend_name(xpose_backend_t backend);

// Throws ToolError with the library's status string and last error when `status` is not success.
void check_status(xpose_status_t status, const std::string& what);

}  // namespace xpose_tool
