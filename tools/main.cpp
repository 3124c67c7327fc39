// The `xpose` command: run one transposition, benchmark suites, explain the planner's choice.
// Errors are one line, "xpose: <what>: <why>", and a non-zero exit status (2 for usage).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common.hpp"

namespace {

const char* kUsage =
    "usage: xpose <command> [options]\n"
    "\n"
    "Tensor transposition at memory-copy speed.\n"
    "\n"
    "commands:\n"
    "  run      time one transposition against a copy of the same bytes, check it\n"
    "  bench    run a benchmark suite (quick, ttlg6d-16, cutt-random, ...; --list shows cases)\n"
    "  explain  show the normalized problem, the planner's candidates and its choice\n"
    "  inplace  time and check one in-place square transposition on the GPU\n"
    "  bench-inplace  sweep in-place schemes over n and band widths (docs/perf/inplace-h100.md)\n"
    "  bench-single   single use (plan + execute, no cache) against repeated execution of a plan\n"
    "  bench-host     plan creation for fresh shapes, and the host time of one call\n"
    "  calibrate      fit the CUDA planner's regression model on this GPU (docs/model.md)\n"
    "\n"
    "Extents are column-major (extents[0] is stride-1) unless --layout row; output dimension\n"
    "i is input dimension perm[i]. `xpose <command> --help` lists a command's options.\n"
    "example: xpose run --extents 256,256,128 --perm 2,1,0 --type f64\n";

int dispatch(const std::string& command, const std::vector<std::string>& rest) {
  if (command == "run") return xpose_tool::run_command(rest);
  if (command == "bench") return xpose_tool::bench_command(rest);
  if (command == "explain") return xpose_tool::explain_command(rest);
  if (command == "inplace") return xpose_tool::inplace_command(rest);
  if (command == "bench-inplace") return xpose_tool::bench_inplace_command(rest);
  if (command == "bench-single") return xpose_tool::bench_single_command(rest);
  if (command == "bench-host") return xpose_tool::bench_host_command(rest);
#ifdef XPOSE_HAVE_CUDA
  if (command == "calibrate") return xpose_tool::calibrate_command(rest);
#else
  if (command == "calibrate")
    throw xpose_tool::ToolError("calibrate: this xpose was built without the CUDA backend");
#endif
  if (command == "-h" || command == "--help" || command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  throw xpose_tool::UsageError("unknown command '" + command + "' (run, bench or explain; " +
                               "see xpose --help)");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  try {
    return dispatch(argv[1], std::vector<std::string>(argv + 2, argv + argc));
  } catch (const xpose_tool::UsageError& e) {
    std::fprintf(stderr, "xpose: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xpose: %s\n", e.what());
    return 1;
  }
}
