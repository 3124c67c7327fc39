// `xpose calibrate`: fits the CUDA planner's regression model (docs/model.md) on this GPU. For
// each problem of TTLG's dataset (dataset.hpp) it times the candidates the planner enumerates
// (up to --candidates of them) the way measure planning times its best few, fits the model on
// four fifths of the problems, reports the error on the fifth held out, and writes the model
// file and a CSV of every timed candidate (tools/plot_model.py plots it). `--fit CSV` fits again
// from such a CSV, without a GPU. The fit and the report are calibrate_fit.cpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>

#include "args.hpp"
#include "calibrate_fit.hpp"
#include "commands.hpp"
#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cuda/model.hpp"
#include "cuda/probe.hpp"
#include "cuda/runtime.hpp"
#include "dataset.hpp"
#include "gpu.hpp"
#include "suites.hpp"

namespace xpose_tool {
namespace {

using xpose::detail::Choice;
using xpose::detail::Regression;

const char* kHelp =
    "usage: xpose calibrate [--out FILE] [--csv FILE] [--limit N] [--max-bytes B]\n"
    "                       [--seconds S] [--reps N] [--candidates N] [--refine N]\n"
    "                       [--eval SUITES] [--eval-limit N] [--seed S] [--commit TEXT]\n"
    "                       [--trees N] [--depth D] [--narrow N] [--narrow-only]\n"
    "       xpose calibrate --fit CSV --arch sm_XY [--device NAME] [--out FILE] [--csv FILE]\n"
    "                       [--commit TEXT] [--trees N] [--depth D] [--narrow-only]\n"
    "\n"
    "Times the CUDA planner's candidates on TTLG's dataset (ranks 3-6, every permutation of\n"
    "ranks 3 and 4 and an even sample of ranks 5 and 6, extents equal / increasing /\n"
    "decreasing / peaked / valley, 16 MB to 2 GB, elements of 4 and 8 bytes and some of 1, 2\n"
    "and 16) and on cuTT-style random problems of ranks 7-12, fits the regression model (boosted\n"
    "trees over the candidates' features and kernel class) on four fifths of the problems (split\n"
    "by a hash of their names), then times the fitted model's own favourites where they were not\n"
    "timed yet and fits again. Views of 1- and 2-byte elements (the dataset's and --narrow\n"
    "random problems like the fresh suite's) have every candidate timed and fit the narrow\n"
    "trees instead, which rank the analytic model's best few of such problems. Prints the\n"
    "error on the fifth held out next to the analytic model's, how often each model's pick runs\n"
    "within 5 % and 15 % of the fastest candidate, on the held-out problems and on bench suite\n"
    "cases (every candidate timed, never fitted), and writes the model file (docs/model.md says\n"
    "how to install it). With --fit, reads the timings of an earlier run from its CSV instead\n"
    "of timing anything (no GPU needed), fits and reports the same way.\n"
    "\n"
    "  --out FILE        model file (default sm_XY.txt, XY this GPU's architecture)\n"
    "  --csv FILE        every timed candidate: features, analytic, regression and measured\n"
    "                    seconds (default calibrate_sm_XY.csv)\n"
    "  --fit CSV         fit on the CSV of an earlier run; --arch names its GPU's architecture\n"
    "                    (sm_90), --device its name for the model file\n"
    "  --trees N         boosting rounds (default 100)\n"
    "  --depth D         levels per tree (default 6)\n"
    "  --limit N         the first N problems of the dataset's shuffled order (an even sample)\n"
    "  --max-bytes B     largest tensor in bytes (suffix K, M or G; default 2G)\n"
    "  --seconds S       start no new problem after S seconds (default 400)\n"
    "  --reps N          timed rounds per candidate, median kept (default 5)\n"
    "  --candidates N    candidates timed per problem: the analytic model's best half, then an\n"
    "                    even spread over the rest (default 8)\n"
    "  --refine N        after the first fit, time up to N more per problem: the fitted\n"
    "                    model's best among those not timed yet (default 2; 0: none)\n"
    "  --eval SUITES     bench suites whose cases (8-byte elements where a case names none) are\n"
    "                    timed with every candidate for the plan-choice report, never fitted\n"
    "                    (comma-separated; default fresh,ttlg6d-15,ttlg6d-16,ttlg6d-17,\n"
    "                    cutt-random,cutt-rank8,cutt-rank12,square; none: no such report)\n"
    "  --eval-limit N    cases per suite, spread evenly (default 16)\n"
    "  --seed S          the fresh suites' seed (default: a new one, printed as 'fresh: seed S')\n"
    "  --narrow N        random problems of 1- and 2-byte elements, 30-500 MB, with the dataset's\n"
    "                    shapes of ranks 3-6 in 1 and 2 bytes after them (default 3000; 0: none)\n"
    "  --narrow-only     time only those and fit only the narrow trees; the rest of the model\n"
    "                    file is this GPU's model as the library has it (embedded or\n"
    "                    XPOSE_MODEL_FILE)\n"
    "  --commit TEXT     the source commit named in the file (default: git rev-parse)\n";

struct Config {
  std::string out, csv, commit;
  size_t limit = SIZE_MAX;
  int64_t max_bytes = int64_t{2} << 30;
  double seconds = 400;
  int reps = 5;
  size_t candidates = 8;
  size_t refine = 2;
  // `fresh` first: problems drawn at run time, which no model was fitted on.
  std::vector<std::string> eval = {"fresh",      "ttlg6d-15",   "ttlg6d-16", "ttlg6d-17",
                                   "cutt-random", "cutt-rank8", "cutt-rank12", "square"};
  size_t eval_limit = 16;
  uint64_t seed = 0;  // the fresh suites' (parse_config draws one where --seed is not given)
  size_t narrow = 3000;
  bool narrow_only = false;
  xpose::detail::TreeFit fit;
};

int64_t parse_bytes(const std::string& text) {
  int64_t unit = 1;
  std::string digits = text;
  const char last = text.empty() ? '\0' : text.back();
  if (last == 'K' || last == 'M' || last == 'G') {
    unit = int64_t{1} << (last == 'K' ? 10 : last == 'M' ? 20 : 30);
    digits.pop_back();
  }
  return parse_int("--max-bytes", digits, 1, (int64_t{1} << 40) / unit) * unit;
}

std::string git_commit() {
  FILE* p = popen("git rev-parse --short HEAD 2>/dev/null", "r");
  if (!p) return "unknown";
  char buf[64] = {};
  const bool got = std::fgets(buf, sizeof buf, p) != nullptr;
  pclose(p);
  std::string s = got ? buf : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s.empty() ? "unknown" : s;
}

std::string today_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

Config parse_config(const ParsedArgs& args, int arch) {
  Config c;
  if (const std::string* v = args.get("--trees"))
    c.fit.trees = static_cast<int>(parse_int("--trees", *v, 1, 100000));
  if (const std::string* v = args.get("--depth"))
    c.fit.depth = static_cast<int>(parse_int("--depth", *v, 1, xpose::detail::kMaxTreeDepth));
  const std::string tag = "sm_" + std::to_string(arch);
  c.out = args.get("--out") ? *args.get("--out") : tag + ".txt";
  c.csv = args.get("--csv") ? *args.get("--csv") : "calibrate_" + tag + ".csv";
  if (const std::string* v = args.get("--limit"))
    c.limit = static_cast<size_t>(parse_int("--limit", *v, 1, 1 << 30));
  if (const std::string* v = args.get("--max-bytes")) c.max_bytes = parse_bytes(*v);
  if (const std::string* v = args.get("--seconds"))
    c.seconds = static_cast<double>(parse_int("--seconds", *v, 1, 1 << 20));
  if (const std::string* v = args.get("--reps"))
    c.reps = static_cast<int>(parse_int("--reps", *v, 1, 99));
  if (const std::string* v = args.get("--candidates"))
    c.candidates = static_cast<size_t>(parse_int("--candidates", *v, 1, 1000));
  if (const std::string* v = args.get("--refine"))
    c.refine = static_cast<size_t>(parse_int("--refine", *v, 0, 1000));
  if (const std::string* v = args.get("--eval")) {
    c.eval.clear();
    if (*v != "none")
      for (std::string& suite : split_list(*v))
        if (!suite.empty()) c.eval.push_back(std::move(suite));
  }
  if (const std::string* v = args.get("--eval-limit"))
    c.eval_limit = static_cast<size_t>(parse_int("--eval-limit", *v, 1, 1 << 20));
  if (!args.get("--fit") && !args.has("--narrow-only")) {  // the runs that time eval suites
    std::string note;
    c.seed = fresh_seed(c.eval, args.get("--seed"), stdout, &note);
  }
  if (const std::string* v = args.get("--narrow"))
    c.narrow = static_cast<size_t>(parse_int("--narrow", *v, 0, 1 << 20));
  c.narrow_only = args.has("--narrow-only");
  c.commit = args.get("--commit") ? *args.get("--commit") : git_commit();
  return c;
}

// One problem's candidates: every distinct one (the planner may reach one tile by two run
// options), the analytic model's best first, and which of them are timed.
struct Candidates {
  const xpose::detail::DeviceInfo* dev = nullptr;
  xpose::detail::Problem view;
  std::vector<Choice> all;
  std::vector<std::string> summary;
  std::vector<bool> timed;
  // The list `all` was drawn from and each distinct one's places in it (repeats: other ways to
  // the same tile, with other cost terms). For a view of 1- or 2-byte elements (`narrow`) the
  // list is the planner's, in the analytic model's order, and every place is a narrow-trees
  // sample with its tile's time.
  bool narrow = false;
  std::vector<Choice> listed;
  std::vector<std::vector<size_t>> places;
};

// The candidates of the view `probe` plans first. Wider views: the probe's, ordered by the
// analytic prediction. 1- and 2-byte views: the planner's list before the narrow trees rank its
// best few.
Candidates candidates_of(const xpose::detail::Probe& probe) {
  Candidates c;
  c.dev = probe.dev;
  c.view = probe.view;
  c.narrow = probe.view.elem_size <= 2;
  if (c.narrow) {
    xpose::detail::enumerate_choices(probe.view, *probe.dev, nullptr, &c.listed, false);
  } else {
    c.listed = probe.choices;
    std::stable_sort(c.listed.begin(), c.listed.end(), [](const Choice& a, const Choice& b) {
      return a.terms.analytic_s < b.terms.analytic_s;
    });
  }
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < c.listed.size(); ++i) {
    std::string text = xpose::detail::summarize(probe.view, c.listed[i]);
    const auto [at, added] = seen.emplace(text, c.all.size());
    if (added) {
      c.all.push_back(c.listed[i]);
      c.summary.push_back(std::move(text));
      c.places.emplace_back();
    }
    c.places[at->second].push_back(i);
  }
  c.timed.assign(c.all.size(), false);
  return c;
}

// Up to `cap` of them: the analytic model's best half, then an even spread over the rest, so
// that the fit sees the plans worth choosing and how much worse the others are.
std::vector<size_t> pick(size_t n, size_t cap) {
  std::vector<size_t> out;
  if (n <= cap) {
    for (size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  const size_t top = cap / 2, k = cap - top, rest = n - top;
  for (size_t i = 0; i < top; ++i) out.push_back(i);
  for (size_t i = 0; i < k; ++i) out.push_back(top + i * (rest - 1) / std::max<size_t>(k - 1, 1));
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The CSV columns of a sample before and after its candidate number (calibrate_fit.hpp).
std::string sample_head(const CalibrationCase& cc, const std::string& view) {
  return cc.c.name + ',' + std::to_string(cc.fold) + ',' +
         (cc.fold < 0 ? cc.c.suite : shape_name(cc.shape)) + ',' +
         std::to_string(cc.c.extents.size()) + ",\"" + join(cc.c.extents, false) + "\",\"" +
         join(cc.c.perm, false) + "\"," + std::to_string(cc.elem) + ',' +
         std::to_string(cc.c.volume() * static_cast<int64_t>(cc.elem)) + ",\"" + view + '"';
}

// Times candidates `which` of case `problem` and appends a sample for each; false when the
// scratch buffers do not fit on the device.
bool time_candidates(size_t problem, const std::vector<size_t>& which, const Config& cfg,
                     const CalibrationCase& cc, Candidates* c, std::vector<Sample>* samples) {
  if (which.empty()) return true;
  std::vector<Choice> run;
  for (const size_t i : which) run.push_back(c->all[i]);
  std::vector<double> secs;
  const xpose_status_t st = xpose::detail::cuda_time_choices(*c->dev, c->view, run, cfg.reps, &secs);
  if (st == XPOSE_ERROR_OUT_OF_MEMORY) return false;
  check_status(st, cc.c.name);
  const std::string head = sample_head(cc, c->view.to_string());
  const auto add = [&](const Choice& ch, size_t which, double seconds, int rank) {
    Sample s;
    s.problem = problem;
    s.head = head;
    s.cls = xpose::detail::model_class(ch.schema);
    s.tail = std::string(xpose::detail::schema_name(ch.schema)) + ',' +
             xpose::detail::model_class_name(s.cls) + ',' + c->summary[which];
    s.b = xpose::detail::base_features(ch);
    s.ideal = ch.terms.ideal_s;
    s.launch = ch.terms.launch_s;
    s.bytes = ch.terms.bytes;
    s.analytic = ch.terms.analytic_s;
    s.measured = seconds;
    if (c->narrow) {
      s.narrow = true;
      s.rank = rank;
      s.nf = xpose::detail::narrow_features(ch);
      s.analytic = ch.predicted;  // the analytic ranking's prediction (kernel factors in)
    }
    samples->push_back(std::move(s));
  };
  for (size_t j = 0; j < which.size(); ++j) {
    c->timed[which[j]] = true;
    if (!(secs[j] > 0)) continue;
    if (!c->narrow) {
      add(run[j], which[j], secs[j], 0);
      continue;
    }
    for (const size_t k : c->places[which[j]])  // the same tile's time for each of its places
      add(c->listed[k], which[j], secs[j], static_cast<int>(k));
  }
  return true;
}

// Times the candidates of each case until the time budget is spent (a bench suite's case:
// every candidate); returns how many cases ran. `cands` gets every case's candidates (empty
// for a case skipped for lack of device memory).
size_t measure(const std::vector<CalibrationCase>& cases, const Config& cfg, int device,
               std::string* device_name, std::vector<Candidates>* cands,
               std::vector<Sample>* samples) {
  const auto t0 = std::chrono::steady_clock::now();
  size_t done = 0, skipped = 0, narrow = 0, next_report = cases.size() / 10;
  cands->clear();
  for (; done < cases.size(); ++done) {
    if (seconds_since(t0) > cfg.seconds) break;
    const CalibrationCase& cc = cases[done];
    xpose::detail::Problem p;
    check_status(xpose::detail::make_problem(static_cast<int>(cc.c.extents.size()),
                                             cc.c.extents.data(), cc.c.perm.data(), cc.elem,
                                             XPOSE_COL_MAJOR, &p),
                 cc.c.name);
    xpose::detail::Probe probe;
    check_status(xpose::detail::cuda_probe(p, device, &probe), cc.c.name);
    *device_name = probe.dev->name;
    // Views of 1- and 2-byte elements run the narrow kernels: every candidate timed, for the
    // narrow trees (their timings would only blur the classes' fits).
    cands->push_back(candidates_of(probe));
    Candidates& c = cands->back();
    narrow += c.narrow;
    const size_t cap = cc.fold < 0 || c.narrow ? c.all.size() : cfg.candidates;
    if (!time_candidates(done, pick(c.all.size(), cap), cfg, cc, &c, samples)) {
      ++skipped;
      c.all.clear();
    }
    if (done + 1 >= next_report) {
      std::fprintf(stderr, "calibrate: %zu/%zu problems, %zu candidates, %.0f s\n", done + 1,
                   cases.size(), samples->size(), seconds_since(t0));
      next_report += std::max<size_t>(cases.size() / 10, 1);
    }
  }
  if (skipped)
    std::fprintf(stderr, "calibrate: %zu problems skipped (no device memory)\n", skipped);
  if (narrow)
    std::fprintf(stderr, "calibrate: %zu problems of 1- or 2-byte views (every candidate)\n",
                 narrow);
  if (done < cases.size())
    std::fprintf(stderr, "calibrate: stopped after %zu of %zu problems (--seconds %.0f)\n", done,
                 cases.size(), cfg.seconds);
  return done;
}

// The fitted model's favourites: for every dataset problem, up to cfg.refine of its best
// predicted candidates that were not timed yet, timed now (a model ranks well only where it
// has seen the plans it would choose). Samples stay grouped by problem.
void refine(const std::vector<CalibrationCase>& cases, const Config& cfg, const Regression& r,
            std::vector<Candidates>* cands, std::vector<Sample>* samples) {
  if (cfg.refine == 0) return;
  const auto t0 = std::chrono::steady_clock::now();
  const size_t before = samples->size();
  for (size_t i = 0; i < cands->size(); ++i) {
    Candidates& c = (*cands)[i];
    if (cases[i].fold < 0 || c.all.empty() || c.narrow) continue;
    std::vector<double> quad(c.all.size()), blend(c.all.size());
    for (size_t j = 0; j < c.all.size(); ++j)
      quad[j] = r.screen(c.all[j]), blend[j] = r.predict(c.all[j]);
    const std::vector<size_t> order = xpose::detail::regression_order(quad, blend);
    std::vector<size_t> which;
    for (const size_t j : order)
      if (!c.timed[j] && which.size() < cfg.refine) which.push_back(j);
    time_candidates(i, which, cfg, cases[i], &c, samples);
  }
  std::stable_sort(samples->begin(), samples->end(),
                   [](const Sample& a, const Sample& b) { return a.problem < b.problem; });
  std::fprintf(stderr, "calibrate: refined with %zu more candidates, %.0f s\n",
               samples->size() - before, seconds_since(t0));
}

std::vector<ProblemInfo> problem_infos(const std::vector<CalibrationCase>& cases) {
  std::vector<ProblemInfo> out;
  for (const CalibrationCase& cc : cases) out.push_back({cc.fold, cc.c.suite});
  return out;
}

// Reports, writes the CSV and, when the fit is complete, the model file; the exit status.
int finish(const Config& cfg, const std::vector<ProblemInfo>& problems, bool complete,
           bool narrow_fitted, const std::vector<Sample>& samples, const Regression* shipped,
           Regression* r) {
  if (!cfg.narrow_only) report_fit(problems, samples, complete, shipped, r);
  report_narrow(problems, samples, narrow_fitted ? r : nullptr, shipped);
  write_samples(cfg.csv, samples);
  std::printf("\nwrote %s", cfg.csv.c_str());
  if (!complete) {
    std::printf("\nno model file: %s has fewer than %ld training candidates (time more "
                "problems)\n",
                cfg.narrow_only ? "the narrow set" : "a kernel class", kMinClassSamples);
    return 1;
  }
  std::ofstream out(cfg.out);
  out << xpose::detail::format_regression(*r);
  if (!out) throw ToolError("--out: cannot write '" + cfg.out + "'");
  std::printf(" and %s (%zu trees of depth %d; %zu narrow trees)\n", cfg.out.c_str(),
              r->trees.count(), r->trees.depth, r->narrow.count());
  return 0;
}

// --narrow-only: the library's model of `arch` and `device` (its quadratics and trees kept), to
// which the narrow trees are fitted; throws where there is none.
const Regression& library_model(int arch, const std::string& device) {
  const Regression* r = xpose::detail::process_models().find(arch, device);
  if (!r)
    throw ToolError("calibrate --narrow-only: the library has no model for sm_" +
                    std::to_string(arch) + " to keep (calibrate without --narrow-only)");
  return *r;
}

// --fit: the timings of an earlier run, fitted again.
int fit_command(const ParsedArgs& args) {
  const std::string* arch_text = args.get("--arch");
  if (!arch_text) throw UsageError("calibrate --fit: --arch sm_XY names the GPU of the CSV");
  const std::string& a = *arch_text;
  if (a.size() < 4 || a.compare(0, 3, "sm_") != 0)
    throw UsageError("calibrate: --arch '" + a + "' is not sm_<number>");
  const int arch = static_cast<int>(parse_int("--arch", a.substr(3), 10, 9999));
  const Config cfg = parse_config(args, arch);
  std::vector<ProblemInfo> problems;
  std::vector<Sample> samples;
  read_samples(*args.get("--fit"), &problems, &samples);
  std::printf("calibrate --fit: %zu problems, %zu candidates from %s\n", problems.size(),
              samples.size(), args.get("--fit")->c_str());
  const std::string device = args.get("--device") ? *args.get("--device") : "unknown";
  Regression r = cfg.narrow_only ? library_model(arch, device) : Regression{};
  r.arch = a;
  r.device = device;
  r.commit = cfg.commit;
  r.date = today_utc();
  bool complete = !cfg.narrow_only && fit_samples(problems, cfg.fit, &samples, &r);
  const bool narrow = fit_narrow(problems, cfg.fit, &samples, &r);
  if (cfg.narrow_only) complete = narrow;
  return finish(cfg, problems, complete, narrow, samples,
                xpose::detail::process_models().find(arch, device), &r);
}

}  // namespace

int calibrate_command(const std::vector<std::string>& argv) {
  const ParsedArgs args = parse_args(
      "calibrate", argv,
      {"--out", "--csv", "--limit", "--max-bytes", "--seconds", "--reps", "--candidates",
       "--refine", "--eval", "--eval-limit", "--seed", "--commit", "--trees", "--depth", "--fit",
       "--arch", "--device", "--narrow"},
      {"--narrow-only"});
  if (args.has("--help")) {
    std::printf("%s", kHelp);
    return 0;
  }
  if (!args.positional.empty())
    throw UsageError("calibrate: unexpected argument '" + args.positional[0] + "'");
  if (args.get("--fit")) return fit_command(args);
  for (const char* fit_only : {"--arch", "--device"})
    if (args.get(fit_only))
      throw UsageError(std::string("calibrate: ") + fit_only + " goes with --fit");
  std::string why;
  if (!gpu::usable(&why)) throw ToolError("calibrate: needs a CUDA device: " + why);
  const int arch = gpu::arch();
  const Config cfg = parse_config(args, arch);
  int device = 0;
  check_status(xpose::detail::cuda_resolve_device(-1, &device), "calibrate: device");
  const xpose::detail::DeviceInfo* info = xpose::detail::device_info(device, &why);
  if (!info) throw ToolError("calibrate: device: " + why);
  const std::string device_name = info->name;  // what the model file's `device` line holds
  const int64_t min_bytes = std::min<int64_t>(int64_t{16} << 20, cfg.max_bytes / 8);
  const Regression* shipped = xpose::detail::process_models().find(arch, device_name);
  if (cfg.narrow_only) library_model(arch, device_name);  // throws without one
  std::vector<CalibrationCase> cases;
  if (!cfg.narrow_only) cases = calibration_cases(min_bytes, cfg.max_bytes);
  if (cases.size() > cfg.limit) cases.resize(cfg.limit);
  for (CalibrationCase& cc : narrow_calibration_cases(cfg.narrow, min_bytes, cfg.max_bytes))
    cases.push_back(std::move(cc));
  const size_t dataset = cases.size();
  for (const std::string& suite : cfg.narrow_only ? std::vector<std::string>{} : cfg.eval)
    for (const Case& c : spread(load_suite(suite, cfg.seed), cfg.eval_limit)) {
      CalibrationCase cc;
      cc.c = c;
      cc.elem = c.elem_or(cc.elem);
      cc.fold = -1;
      cases.push_back(std::move(cc));
    }
  std::printf("calibrate: %s, %zu problems, up to %zu candidates each (+%zu refined), %d "
              "rounds; %zu bench suite cases, every candidate\n",
              gpu::device_name().c_str(), dataset, cfg.candidates, cfg.refine, cfg.reps,
              cases.size() - dataset);
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  Regression r;
  std::vector<Sample> samples;
  std::vector<Candidates> cands;
  const size_t ran = measure(cases, cfg, device, &r.device, &cands, &samples);
  r.arch = "sm_" + std::to_string(arch);
  r.commit = cfg.commit;
  r.date = today_utc();
  const std::vector<ProblemInfo> problems = problem_infos(cases);
  bool complete = false;
  if (cfg.narrow_only) {  // the library's model, with new narrow trees
    r = library_model(arch, device_name);
    r.device = device_name;
    r.commit = cfg.commit;
    r.date = today_utc();
  } else {
    complete = fit_samples(problems, cfg.fit, &samples, &r);
    if (complete && cfg.refine > 0) {
      refine(cases, cfg, r, &cands, &samples);
      complete = fit_samples(problems, cfg.fit, &samples, &r);
    }
  }
  const bool narrow = fit_narrow(problems, cfg.fit, &samples, &r);
  if (cfg.narrow_only) complete = narrow;
  std::printf("%zu problems, %zu candidates timed in %.0f s\n\n", ran, samples.size(),
              seconds_since(t0));
  return finish(cfg, problems, complete, narrow, samples, shipped, &r);
}

}  // namespace xpose_tool
