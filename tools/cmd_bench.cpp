// `xpose bench`: a suite of cases, each planned fresh, checked, timed against a same-run copy;
// a CSV row per case and a summary table per suite (ratio = copy time / transposition time).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "args.hpp"
#include "core/types.hpp"
#include "commands.hpp"
#include "gpu.hpp"
#include "runner.hpp"
#include "suites.hpp"
#include "timing.hpp"

namespace xpose_tool {
namespace {

const char* kBenchHelp =
    "usage: xpose bench SUITE... [options]\n"
    "\n"
    "SUITE is a built-in suite (below) or a file of lines 'SUITE CASE EXTENTS PERM' as --list\n"
    "prints them; several run as one benchmark (one summary line each, and one per element size\n"
    "where a suite mixes them). Each case: a fresh plan, random input, poisoned output, one\n"
    "checked run, then the median of --reps runs and of as many copies of the same bytes. Exit\n"
    "status 1 when any case is wrong or fails. A case's own element size (elem=BYTES after its\n"
    "permutation) takes precedence over --elem and --type.\n"
    "\n"
    "  --list        print the cases, one per line: SUITE CASE EXTENTS PERM [elem=BYTES]\n"
    "  --limit N     N cases spread evenly over each suite (and over each element size in it)\n"
    "  --seed N      the fresh suites' seed (default: a new one, printed as 'fresh: seed N')\n"
    "  --csv FILE    write suite,case,elem,ms,copy_ms,ratio,plan_us,normalized,plan\n"
    "  --rounds N    run all the suites' cases N times over (default 1) and keep, per case,\n"
    "                the round whose ratio is the median: a slow phase of the machine then\n"
    "                touches a round of every case instead of a stretch of cases (noisy VMs)\n"
    "  --latency     also time single calls: ms and ratio then time batches of at least 20\n"
    "                back-to-back calls (warm caches on the CPU); each call alone between two\n"
    "                events, the copy likewise, and per call a CUDA graph of the batch replayed\n"
    "                (GPU) are printed per case and added to the CSV as batch,single_us,\n"
    "                copy_single_us,graph_us,copy_graph_us (the sizes suite)\n"
    "  --quiet       no per-case lines on stderr\n";

struct Row {
  Case c;
  Measurement m;
  bool failed = false;
  std::string error;
};

std::string csv_quote(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

// With --latency: the columns after the plan (empty for a failed case).
std::string latency_csv(const Row& r) {
  if (r.failed || !r.m.latency) return ",,,,,";
  const Latency& l = *r.m.latency;
  char nums[160];
  std::snprintf(nums, sizeof nums, ",%d,%.3f,%.3f,%.3f,%.3f", l.batch, 1e3 * l.single_ms,
                1e3 * l.copy_single_ms, 1e3 * l.graph_ms, 1e3 * l.copy_graph_ms);
  return nums;
}

void write_csv(std::ostream& out, const Row& r, size_t run_elem, bool latency) {
  char nums[160];
  std::snprintf(nums, sizeof nums, "%.6f,%.6f,%.4f,%.1f", r.m.ms, r.m.copy_ms, r.m.ratio(),
                r.m.plan_us);
  // The plan description's second line is the normalized problem (rank after fusion).
  const size_t eol = r.m.plan.find('\n');
  const std::string normalized =
      eol == std::string::npos ? "" : first_line(r.m.plan.substr(eol + 1));
  out << r.c.suite << ',' << r.c.name << ',' << r.c.elem_or(run_elem) << ',' << nums << ','
      << csv_quote(r.failed ? "" : normalized) << ','
      << csv_quote(r.failed ? "FAILED: " + r.error : first_line(r.m.plan))
      << (latency ? latency_csv(r) : "") << '\n';
}

void report_case(const Row& r, size_t index, size_t count) {
  if (r.failed)
    std::fprintf(stderr, "[%zu/%zu] %s %s %s: FAILED: %s\n", index, count, r.c.suite.c_str(),
                 r.c.name.c_str(), join(r.c.extents).c_str(), r.error.c_str());
  else
    std::fprintf(stderr, "[%zu/%zu] %s %-14s %-28s perm %-22s %9.4f ms  copy %9.4f ms  ratio %.3f\n",
                 index, count, r.c.suite.c_str(), r.c.name.c_str(), join(r.c.extents).c_str(),
                 join(r.c.perm).c_str(), r.m.ms, r.m.copy_ms, r.m.ratio());
}

// The run's settings with the case's own element size, if it has one.
Settings for_case(const Settings& s, const Case& c) {
  Settings cs = s;
  cs.elem = c.elem_or(s.elem);
  return cs;
}

Row run_one(const Case& c, const Settings& s, Workspace& ws, uint64_t seed, bool latency) {
  Row r{c, {}, false, {}};
  try {
    r.m = measure_case(c, for_case(s, c), ws, seed, latency);
    if (!r.m.check.ok()) {
      r.failed = true;
      r.error = "wrong result: " + std::to_string(r.m.check.wrong) + " of " +
                std::to_string(r.m.check.checked) + " positions; first " + r.m.check.first_wrong;
    }
  } catch (const ToolError& e) {
    r.failed = true;
    r.error = e.what();
  }
  return r;
}

size_t max_bytes(const std::vector<Case>& cases, const Settings& s) {
  size_t m = 0;
  for (const Case& c : cases) m = std::max(m, workspace_bytes(c, for_case(s, c)));
  return m;
}

using Suites = std::vector<std::pair<std::string, std::vector<Case>>>;
using Results = std::vector<std::pair<std::string, std::vector<Row>>>;

struct RunOptions {
  bool quiet = false;
  bool latency = false;
  int rounds = 1;
};

// Every case of every suite once per round, rounds one after the other; per case the round
// whose ratio is the median (its time, copy time and plan are reported together), failed if
// any round failed.
Results run_suites(const Suites& suites, const Settings& s, const RunOptions& o,
                   std::ostream* csv) {
  size_t bytes = 0, total = 0;
  for (const auto& g : suites) bytes = std::max(bytes, max_bytes(g.second, s));
  for (const auto& g : suites) total += g.second.size();
  Workspace ws(s, bytes);
  std::vector<std::vector<std::vector<Row>>> by_case(suites.size());
  for (size_t g = 0; g < suites.size(); ++g) by_case[g].resize(suites[g].second.size());
  for (int round = 0; round < o.rounds; ++round)
    for (size_t g = 0, n = 0; g < suites.size(); ++g)
      for (size_t i = 0; i < suites[g].second.size(); ++i, ++n) {
        by_case[g][i].push_back(run_one(suites[g].second[i], s, ws, 1000 + i, o.latency));
        // One round: each case as it runs; more: failures at once, the kept rounds below.
        if ((!o.quiet && o.rounds == 1) || by_case[g][i].back().failed)
          report_case(by_case[g][i].back(), n + 1, total);
      }
  Results out;
  for (size_t g = 0, n = 0; g < suites.size(); ++g) {
    out.push_back({suites[g].first, {}});
    for (std::vector<Row>& runs : by_case[g]) {
      const auto bad =
          std::find_if(runs.begin(), runs.end(), [](const Row& r) { return r.failed; });
      if (bad != runs.end()) {
        out.back().second.push_back(*bad);
      } else {
        std::sort(runs.begin(), runs.end(),
                  [](const Row& a, const Row& b) { return a.m.ratio() < b.m.ratio(); });
        out.back().second.push_back(runs[runs.size() / 2]);
        if (!o.quiet && o.rounds > 1) report_case(out.back().second.back(), n + 1, total);
      }
      ++n;
      if (csv) write_csv(*csv, out.back().second.back(), s.elem, o.latency);
    }
  }
  return out;
}

// "8-byte elements", or "1, 2, 4-byte elements" for a run whose cases mix sizes.
std::string elem_sizes(const Results& suites, size_t run_elem) {
  std::set<size_t> sizes;
  for (const auto& suite : suites)
    for (const Row& r : suite.second) sizes.insert(r.c.elem_or(run_elem));
  std::string text;
  for (size_t e : sizes) text += (text.empty() ? "" : ", ") + std::to_string(e);
  return text + "-byte elements";
}

// A table row: cases, median, 10th percentile and worst copy ratio, failures.
void print_row(const std::string& label, const std::vector<const Row*>& rows) {
  std::vector<double> ratios;
  size_t failed = 0;
  for (const Row* r : rows) {
    if (r->failed) ++failed;
    else if (!r->m.empty) ratios.push_back(r->m.ratio());
  }
  std::printf("| %-12s | %5zu | %6.3f | %6.3f | %6.3f | %6zu |\n", label.c_str(), rows.size(),
              median(ratios), percentile(ratios, 10), percentile(ratios, 0), failed);
}

// --latency: per case, the batched time per call and ratio, then single calls of the
// transposition and of the copy and what one call alone costs more than the copy, then graph
// replays per call.
void print_latency(const Results& suites, size_t run_elem) {
  std::printf("| %-18s | %12s | %10s | %6s | %9s | %9s | %9s | %9s | %9s |\n", "case", "bytes",
              "batched us", "ratio", "single us", "copy us", "diff us", "graph us", "copy gr us");
  std::printf("|--------------------|-------------:|-----------:|-------:|----------:|----------:|"
              "----------:|----------:|----------:|\n");
  for (const auto& suite : suites)
    for (const Row& r : suite.second) {
      if (r.failed || !r.m.latency) continue;
      const Latency& l = *r.m.latency;
      const auto bytes = static_cast<unsigned long long>(r.c.volume()) * r.c.elem_or(run_elem);
      std::printf("| %-18s | %12llu | %10.2f | %6.3f | %9.2f | %9.2f | %9.2f | %9.2f | %9.2f |\n",
                  r.c.name.c_str(), bytes, 1e3 * r.m.ms, r.m.ratio(), 1e3 * l.single_ms,
                  1e3 * l.copy_single_ms, 1e3 * (l.single_ms - l.copy_single_ms),
                  1e3 * l.graph_ms, 1e3 * l.copy_graph_ms);
    }
  std::set<std::string> notes;
  for (const auto& suite : suites)
    for (const Row& r : suite.second)
      if (!r.failed && r.m.latency && !r.m.latency->graph_error.empty())
        notes.insert(r.m.latency->graph_error);
  for (const std::string& why : notes) std::printf("no graph time: %s\n", why.c_str());
  std::printf("\n");
}

// What a typed run does, and its yardstick.
std::string typed_note(const Settings& s) {
  using xpose::detail::type_info;
  std::string t = std::string("type ") + type_info(s.type).name;
  if (s.out_type != XPOSE_TYPE_BYTES && s.out_type != s.type)
    t += std::string(" -> ") + type_info(s.out_type).name;
  char scalars[96];
  std::snprintf(scalars, sizeof scalars, ", alpha %g, beta %g", s.alpha, s.beta);
  t += scalars;
  if (s.pad > 0) t += ", both tensors padded by 1-" + std::to_string(s.pad) + " per side";
  return t + "; the copy moves as many bytes as the plan reads and writes";
}

// One row per suite; where a suite mixes element sizes, then one per size ("  2-byte"). `note`
// (the fresh suite's seed) goes under the header.
void print_summary(const Results& suites, const Settings& s, const std::string& note) {
  const std::string misaligned =
      s.misalign > 0 ? ", pointers " + std::to_string(s.misalign) + " bytes past alignment" : "";
  std::printf("ratio = copy time / transposition time (> 1: faster than a copy); %s, %s, %s%s\n\n",
              elem_sizes(suites, s.elem).c_str(), s.on_gpu() ? "cuda" : "cpu",
              s.planning == XPOSE_PLAN_MEASURE ? "measure planning" : "heuristic planning",
              misaligned.c_str());
  if (!note.empty()) std::printf("%s\n\n", note.c_str());
  if (s.extended() || s.type != XPOSE_TYPE_BYTES) std::printf("%s\n\n", typed_note(s).c_str());
  std::printf("| %-12s | %5s | %6s | %6s | %6s | %6s |\n", "suite", "cases", "median", "p10",
              "worst", "failed");
  std::printf("|--------------|------:|-------:|-------:|-------:|-------:|\n");
  for (const auto& [name, rows] : suites) {
    std::map<size_t, std::vector<const Row*>> by_elem;
    std::vector<const Row*> all;
    for (const Row& r : rows) {
      by_elem[r.c.elem_or(s.elem)].push_back(&r);
      all.push_back(&r);
    }
    print_row(name, all);
    if (by_elem.size() > 1)
      for (const auto& [elem, of_size] : by_elem)
        print_row("  " + std::to_string(elem) + "-byte", of_size);
  }
}

// Cases grouped by suite, in first-appearance order, each group cut to `limit`.
Suites group(const std::vector<Case>& cases, size_t limit) {
  Suites groups;
  for (const Case& c : cases) {
    if (groups.empty() || groups.back().first != c.suite) groups.push_back({c.suite, {}});
    groups.back().second.push_back(c);
  }
  for (auto& g : groups) g.second = spread(g.second, limit);
  return groups;
}

// The suites of the command line, each cut to --limit. `fresh` is drawn from --seed, or from a
// seed chosen now and printed at once (and in the summary, through `note`) so that the run can
// be replayed.
Suites load_groups(const ParsedArgs& args, std::string* note) {
  const std::string* limit_arg = args.get("--limit");
  const size_t limit =
      limit_arg ? static_cast<size_t>(parse_int("--limit", *limit_arg, 1, 1 << 30)) : SIZE_MAX;
  const auto& names = args.positional;
  const uint64_t seed = fresh_seed(names, args.get("--seed"), stderr, note);
  Suites groups;
  for (const std::string& suite : names)
    for (auto& g : group(load_suite(suite, seed), limit)) groups.push_back(std::move(g));
  return groups;
}

}  // namespace

int bench_command(const std::vector<std::string>& argv) {
  std::set<std::string> flags = kSettingFlags;
  flags.insert({"--csv", "--limit", "--rounds", "--seed"});
  const ParsedArgs args =
      parse_args("bench", argv, flags, with_settings({"--list", "--quiet", "--latency"}));
  if (args.has("--help")) {
    std::printf("%s%s\nsuites:\n", kBenchHelp, settings_help());
    for (const auto& suite : builtin_suites())
      std::printf("  %-12s %s\n", suite.name.c_str(), suite.description.c_str());
    return 0;
  }
  if (args.positional.empty()) throw UsageError("bench: which suite? (see xpose bench --help)");
  Settings s = parse_settings(args);
  RunOptions o;
  o.quiet = args.has("--quiet");
  o.latency = args.has("--latency");
  if (const std::string* r = args.get("--rounds"))
    o.rounds = static_cast<int>(parse_int("--rounds", *r, 1, 99));
  std::string note;
  const Suites groups = load_groups(args, &note);
  if (args.has("--list")) {
    for (const auto& g : groups)
      for (const Case& c : g.second) std::printf("%s\n", list_line(c).c_str());
    return 0;
  }
  resolve_backend(&s);
  std::ofstream csv;
  if (const std::string* path = args.get("--csv")) {
    csv.open(*path);
    if (!csv) throw ToolError("--csv: cannot write '" + *path + "'");
    csv << "suite,case,elem,ms,copy_ms,ratio,plan_us,normalized,plan"
        << (o.latency ? ",batch,single_us,copy_single_us,graph_us,copy_graph_us" : "") << '\n';
  }
  const Results results = run_suites(groups, s, o, csv.is_open() ? &csv : nullptr);
  if (o.latency) print_latency(results, s.elem);
  size_t failed = 0;
  for (const auto& suite : results)
    for (const Row& r : suite.second) failed += r.failed;
  print_summary(results, s, note);
  if (failed) std::fprintf(stderr, "xpose: bench: %zu case(s) failed\n", failed);
  return failed ? 1 : 0;
}

}  // namespace xpose_tool
