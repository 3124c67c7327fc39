// `xpose explain`: what the library makes of a request: the normalized problem, the candidates
// its planner weighs (predicted by which model and, with --planning measure or --measure-all,
// measured times) and its choice.
#include <cstdio>

#include "args.hpp"
#include "commands.hpp"
#include "runner.hpp"
#include "views.hpp"

namespace xpose_tool {
namespace {

const char* kExplainHelp =
    "usage: xpose explain --extents E0,E1,... --perm P0,P1,... [options]\n"
    "\n"
    "Prints the normalized problem (extent-1 dimensions dropped, dimensions that stay adjacent\n"
    "fused), the cost model that predicts, the candidate plans with their predicted time (and\n"
    "measured time with --planning measure or --measure-all), and the chosen plan. Nothing is\n"
    "executed but what the measurements run (on scratch buffers).\n"
    "\n"
    "  --extents LIST           extents, comma-separated (column-major unless --layout row)\n"
    "  --perm LIST              output dimension i is input dimension perm[i]\n"
    "  --measure-all            time every candidate (after planning, so the choice stays the\n"
    "                           planner's), with the error of each prediction\n";

std::string seconds_text(double s) {
  if (s < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
  return buf;
}

void print_indented(const std::string& text, const char* indent) {
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    std::printf("%s%s\n", indent, text.substr(start, end - start).c_str());
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

std::string error_text(const xpose::detail::Candidate& c) {
  if (c.predicted_seconds < 0 || c.measured_seconds <= 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%",
                100.0 * (c.predicted_seconds - c.measured_seconds) / c.measured_seconds);
  return buf;
}

void print_candidates(const std::vector<xpose::detail::Candidate>& candidates) {
  if (!candidates.empty()) std::printf("model       %s\n", candidates[0].model.c_str());
  std::printf("candidates  %zu (predicted / measured / error of the prediction)\n",
              candidates.size());
  for (const auto& cand : candidates) {
    std::printf("  %s %-12s %-12s %-8s ", cand.chosen ? "*" : " ",
                seconds_text(cand.predicted_seconds).c_str(),
                seconds_text(cand.measured_seconds).c_str(), error_text(cand).c_str());
    const std::string& d = cand.description;
    std::printf("%s\n", first_line(d).c_str());
    if (d.find('\n') != std::string::npos && d.find('\n') + 1 < d.size())
      print_indented(d.substr(d.find('\n') + 1), std::string(39, ' ').c_str());
  }
}

}  // namespace

int explain_command(const std::vector<std::string>& argv) {
  Case c;
  Settings s;
  std::set<std::string> given;
  if (!parse_single_case("explain", argv, kExplainHelp, &c, &s, {"--measure-all"}, &given))
    return 0;
  const xpose_options_t o = s.options();
  xpose::detail::Plan resolved;
  std::vector<xpose::detail::Candidate> candidates;
  const CaseViews v = case_views(c, s);  // types, scalars and padding, as `run` plans them
  check_status(xpose::detail::plan_candidates(static_cast<int>(c.extents.size()),
                                              c.extents.data(), c.perm.data(), v.in_elem, &o,
                                              given.count("--measure-all") > 0, &resolved,
                                              &candidates, v.extended ? &v.desc : nullptr),
               "candidates");
  std::printf("request     extents %s perm %s, %zu-byte elements, %s\n", join(c.extents).c_str(),
              join(c.perm).c_str(), s.elem, layout_name(s.layout));
  std::printf("normalized  %s%s\n", resolved.problem.to_string().c_str(),
              resolved.problem.is_copy() ? " (a plain copy)" : "");
  std::printf("gather      %s (out[j] = in[G(j)], G = shape:stride in elements)\n",
              xpose::detail::to_string(resolved.problem.gather()).c_str());
  std::printf("backend     %s\n", backend_name(resolved.options.backend));
  print_candidates(candidates);
  double us = 0;
  const PlanHandle plan = create_fresh_plan(c, s, &us);
  std::printf("chosen plan (planned in %.1f us)%s:\n", us,
              s.schema.empty() ? "" : (", schema forced to " + s.schema).c_str());
  print_indented(describe(plan.get()), "  ");
  return 0;
}

}  // namespace xpose_tool
