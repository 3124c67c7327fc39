// `xpose calibrate`: fits the CUDA planner's regression model (docs/model.md) on this GPU. For
// each problem of TTLG's dataset (dataset.hpp) it times the candidates the planner enumerates
// (up to --candidates of them) the way measure planning times its best few, fits each kernel
// class on four fifths of the problems, reports the error on the fifth held out, and writes the
// coefficients file and a CSV of every timed candidate (tools/plot_model.py plots it).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <set>

#include "args.hpp"
#include "commands.hpp"
#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cuda/model.hpp"
#include "cuda/probe.hpp"
#include "dataset.hpp"
#include "gpu.hpp"
#include "suites.hpp"

namespace xpose_tool {
namespace {

using xpose::detail::Choice;
using xpose::detail::kModelClasses;
using xpose::detail::Regression;

// Fewer training candidates than this in a class leave no coefficients file: a fit on a handful
// would rank that class's candidates by chance.
constexpr long kMinClassSamples = 20;
constexpr double kRidge = 1e-3;

const char* kHelp =
    "usage: xpose calibrate [--out FILE] [--csv FILE] [--limit N] [--max-bytes B]\n"
    "                       [--seconds S] [--reps N] [--candidates N] [--refine N]\n"
    "                       [--eval SUITES] [--eval-limit N] [--commit TEXT]\n"
    "\n"
    "Times the CUDA planner's candidates on TTLG's dataset (ranks 3-6, every permutation of\n"
    "ranks 3 and 4 and an even sample of ranks 5 and 6, extents equal / increasing /\n"
    "decreasing / peaked / valley, 16 MB to 2 GB, elements of 4 and 8 bytes and some of 1, 2\n"
    "and 16) and on cuTT-style random problems of ranks 7-12, fits the regression model per\n"
    "kernel class on four fifths of the problems (split by a hash of their names), then times\n"
    "the fitted model's own favourites where they were not timed yet and fits again. Prints the\n"
    "error on the fifth held out next to the analytic model's, how often each model's pick runs\n"
    "within 5 % and 15 % of the fastest candidate, on the held-out problems and on bench suite\n"
    "cases (every candidate timed, never fitted), and writes the coefficients file\n"
    "(docs/model.md says how to install it).\n"
    "\n"
    "  --out FILE        coefficients file (default sm_XY.txt, XY this GPU's architecture)\n"
    "  --csv FILE        every timed candidate: features, analytic, regression and measured\n"
    "                    seconds (default calibrate_sm_XY.csv)\n"
    "  --limit N         the first N problems of the dataset's shuffled order (an even sample)\n"
    "  --max-bytes B     largest tensor in bytes (suffix K, M or G; default 2G)\n"
    "  --seconds S       start no new problem after S seconds (default 200)\n"
    "  --reps N          timed rounds per candidate, median kept (default 5)\n"
    "  --candidates N    candidates timed per problem: the analytic model's best half, then an\n"
    "                    even spread over the rest (default 8)\n"
    "  --refine N        after the first fit, time up to N more per problem: the fitted\n"
    "                    model's best among those not timed yet (default 2; 0: none)\n"
    "  --eval SUITES     bench suites whose cases (8-byte elements) are timed with every\n"
    "                    candidate for the plan-choice report, never fitted (comma-separated;\n"
    "                    default ttlg6d-15,ttlg6d-16,ttlg6d-17,cutt-random,cutt-rank8,\n"
    "                    cutt-rank12,square; none: no such report)\n"
    "  --eval-limit N    cases per suite, spread evenly (default 16)\n"
    "  --commit TEXT     the source commit named in the file (default: git rev-parse)\n";

struct Config {
  std::string out, csv, commit;
  size_t limit = SIZE_MAX;
  int64_t max_bytes = int64_t{2} << 30;
  double seconds = 200;
  int reps = 5;
  size_t candidates = 8;
  size_t refine = 2;
  std::vector<std::string> eval = {"ttlg6d-15",   "ttlg6d-16",   "ttlg6d-17", "cutt-random",
                                   "cutt-rank8", "cutt-rank12", "square"};
  size_t eval_limit = 16;
};

// One timed candidate.
struct Sample {
  size_t problem = 0;  // index into the cases
  std::string view, summary;
  Choice choice;
  int cls = 0;
  double measured = 0, regression = 0;
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
};

Candidates distinct_candidates(const xpose::detail::Probe& probe) {
  Candidates c;
  c.dev = probe.dev;
  c.view = probe.view;
  std::vector<Choice> sorted = probe.choices;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Choice& a, const Choice& b) {
    return a.terms.analytic_s < b.terms.analytic_s;
  });
  std::set<std::string> seen;
  for (const Choice& ch : sorted) {
    std::string text = xpose::detail::summarize(probe.view, ch);
    if (!seen.insert(text).second) continue;
    c.all.push_back(ch);
    c.summary.push_back(std::move(text));
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

// Times candidates `which` of problem `problem` and appends a sample for each; false when the
// scratch buffers do not fit on the device.
bool time_candidates(size_t problem, const std::vector<size_t>& which, const Config& cfg,
                     const std::string& name, Candidates* c, std::vector<Sample>* samples) {
  if (which.empty()) return true;
  std::vector<Choice> run;
  for (const size_t i : which) run.push_back(c->all[i]);
  std::vector<double> secs;
  const xpose_status_t st = xpose::detail::cuda_time_choices(*c->dev, c->view, run, cfg.reps, &secs);
  if (st == XPOSE_ERROR_OUT_OF_MEMORY) return false;
  check_status(st, name);
  for (size_t j = 0; j < which.size(); ++j) {
    c->timed[which[j]] = true;
    if (secs[j] > 0)
      samples->push_back({problem, c->view.to_string(), c->summary[which[j]], run[j],
                          xpose::detail::model_class(run[j].schema), secs[j]});
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
  size_t done = 0, skipped = 0, next_report = cases.size() / 10;
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
    cands->push_back(distinct_candidates(probe));
    Candidates& c = cands->back();
    const size_t cap = cc.fold < 0 ? c.all.size() : cfg.candidates;
    if (!time_candidates(done, pick(c.all.size(), cap), cfg, cc.c.name, &c, samples)) {
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
    if (cases[i].fold < 0 || c.all.empty()) continue;
    std::vector<size_t> order(c.all.size());
    std::vector<double> pred(c.all.size());
    for (size_t j = 0; j < c.all.size(); ++j) order[j] = j, pred[j] = r.predict(c.all[j]);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return pred[a] < pred[b]; });
    std::vector<size_t> which;
    for (const size_t j : order)
      if (!c.timed[j] && which.size() < cfg.refine) which.push_back(j);
    time_candidates(i, which, cfg, cases[i].c.name, &c, samples);
  }
  std::stable_sort(samples->begin(), samples->end(),
                   [](const Sample& a, const Sample& b) { return a.problem < b.problem; });
  std::fprintf(stderr, "calibrate: refined with %zu more candidates, %.0f s\n",
               samples->size() - before, seconds_since(t0));
}

// Fits each class on the samples outside fold 0 and predicts every sample; returns whether
// every class had enough of them.
bool fit(const std::vector<CalibrationCase>& cases, std::vector<Sample>* samples, Regression* r) {
  bool complete = !samples->empty();
  r->min_bytes = 1e300;
  r->max_bytes = 0;
  for (const Sample& s : *samples) {
    if (cases[s.problem].fold < 0) continue;
    r->min_bytes = std::min(r->min_bytes, s.choice.terms.bytes);
    r->max_bytes = std::max(r->max_bytes, s.choice.terms.bytes);
  }
  for (int k = 0; k < kModelClasses; ++k) {
    std::vector<Choice> x;
    std::vector<double> y;
    for (const Sample& s : *samples)
      if (s.cls == k && cases[s.problem].fold > 0) {
        x.push_back(s.choice);
        y.push_back(s.measured);
      }
    const bool fitted = xpose::detail::fit_class(x, y, kRidge, &r->cls[k]);
    if (!fitted || r->cls[k].samples < kMinClassSamples) {
      std::fprintf(stderr, "calibrate: class %s: %ld training candidates%s\n",
                   xpose::detail::model_class_name(k), r->cls[k].samples,
                   fitted ? "" : ", singular fit");
      complete = false;
    }
  }
  for (Sample& s : *samples) s.regression = r->predict(s.choice);
  return complete;
}

struct Errors {
  double regression = 0, analytic = 0;
  size_t n = 0;
  void add(const Sample& s) {
    regression += std::fabs(s.regression - s.measured) / s.measured;
    analytic += std::fabs(s.choice.terms.analytic_s - s.measured) / s.measured;
    ++n;
  }
  std::string text(double sum) const {
    if (n == 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * sum / static_cast<double>(n));
    return buf;
  }
};

// How often each model's pick among the timed candidates runs within 5 % and 15 % of the
// fastest of them: on the held-out problems, and per bench suite on its cases (where every
// candidate is timed, so the pick is the planner's own). Models: the new fit, the one this
// binary ships for the GPU (when it has one), the analytic one.
void report_choice(const std::vector<CalibrationCase>& cases, const std::vector<Sample>& samples,
                   const Regression* shipped) {
  struct Tally {
    size_t problems = 0, within[3][2] = {};
    std::vector<double> loss[3];  // measured time of the pick / fastest, per problem
  };
  std::vector<std::pair<std::string, Tally>> groups;  // in order of first appearance
  const auto group = [&](const std::string& name) -> Tally& {
    for (auto& g : groups)
      if (g.first == name) return g.second;
    groups.emplace_back(name, Tally{});
    return groups.back().second;
  };
  for (size_t i = 0; i < samples.size();) {
    size_t end = i;
    while (end < samples.size() && samples[end].problem == samples[i].problem) ++end;
    const CalibrationCase& cc = cases[samples[i].problem];
    if (cc.fold <= 0) {
      double best = 1e30, pick_time[3] = {}, pick_pred[3] = {1e30, 1e30, 1e30};
      for (size_t j = i; j < end; ++j) {
        const Sample& s = samples[j];
        best = std::min(best, s.measured);
        const double pred[3] = {s.regression, shipped ? shipped->predict(s.choice) : 1e30,
                                s.choice.terms.analytic_s};
        for (int m = 0; m < 3; ++m)
          if (pred[m] < pick_pred[m]) pick_pred[m] = pred[m], pick_time[m] = s.measured;
      }
      Tally& t = group(cc.fold == 0 ? "held-out" : cc.c.suite);
      ++t.problems;
      for (int m = 0; m < 3; ++m) {
        t.loss[m].push_back(pick_time[m] / best);
        for (int k = 0; k < 2; ++k) t.within[m][k] += pick_time[m] <= best * (k ? 1.15 : 1.05);
      }
    }
    i = end;
  }
  std::printf("plan choice: share of problems whose pick runs within 5%% / 15%% of the fastest\n"
              "timed candidate, and the worst pick's slowdown (bench suites: every candidate\n"
              "timed; held-out: the sampled and refined ones)\n\n"
              "| problems      |   n | new fit            | shipped            | analytic           |\n"
              "|---------------|----:|--------------------|--------------------|--------------------|\n");
  for (const auto& [name, t] : groups) {
    std::printf("| %-13s | %3zu |", name.c_str(), t.problems);
    for (int m = 0; m < 3; ++m) {
      if (m == 1 && !shipped) {
        std::printf(" %-18s |", "-");
        continue;
      }
      const double n = static_cast<double>(t.problems);
      const double worst = *std::max_element(t.loss[m].begin(), t.loss[m].end());
      std::printf(" %5.1f%% %5.1f%% x%.2f |", 100.0 * t.within[m][0] / n,
                  100.0 * t.within[m][1] / n, worst);
    }
    std::printf("\n");
  }
}

void report(const std::vector<CalibrationCase>& cases, const std::vector<Sample>& samples,
            const Regression* shipped, Regression* r) {
  Errors by_class[kModelClasses], all;
  for (const Sample& s : samples)
    if (cases[s.problem].fold == 0) {
      by_class[s.cls].add(s);
      all.add(s);
    }
  std::printf("held-out fifth: MAPE (mean |predicted - measured| / measured) per kernel class\n\n"
              "| class        |  fit |  test | regression | analytic |\n"
              "|--------------|-----:|------:|-----------:|---------:|\n");
  for (int k = 0; k < kModelClasses; ++k) {
    const Errors& e = by_class[k];
    r->cls[k].mape = e.n ? e.regression / static_cast<double>(e.n) : 0;
    std::printf("| %-12s | %4ld | %5zu | %10s | %8s |\n", xpose::detail::model_class_name(k),
                r->cls[k].samples, e.n, e.text(e.regression).c_str(), e.text(e.analytic).c_str());
  }
  long fitted = 0;
  for (const auto& m : r->cls) fitted += m.samples;
  std::printf("| %-12s | %4ld | %5zu | %10s | %8s |\n\n", "all", fitted, all.n,
              all.text(all.regression).c_str(), all.text(all.analytic).c_str());
  report_choice(cases, samples, shipped);
}

void write_csv(const std::string& path, const std::vector<CalibrationCase>& cases,
               const std::vector<Sample>& samples) {
  std::ofstream out(path);
  if (!out) throw ToolError("--csv: cannot write '" + path + "'");
  out << "problem,fold,shape,rank,extents,perm,elem,bytes,view,cand,schema,class,summary";
  for (const char* f : xpose::detail::kBaseFeatureNames) out << ",f_" << f;
  out << ",analytic_s,regression_s,measured_s\n";
  size_t cand = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    const CalibrationCase& cc = cases[s.problem];
    cand = i > 0 && samples[i - 1].problem == s.problem ? cand + 1 : 0;
    out << cc.c.name << ',' << cc.fold << ',' << (cc.fold < 0 ? cc.c.suite : shape_name(cc.shape))
        << ','
        << cc.c.extents.size() << ",\"" << join(cc.c.extents, false) << "\",\""
        << join(cc.c.perm, false) << "\"," << cc.elem << ','
        << cc.c.volume() * static_cast<int64_t>(cc.elem) << ",\"" << s.view << "\"," << cand
        << ',' << xpose::detail::schema_name(s.choice.schema) << ','
        << xpose::detail::model_class_name(s.cls) << ',' << s.summary;
    char buf[48];
    for (const double f : xpose::detail::base_features(s.choice)) {
      std::snprintf(buf, sizeof buf, ",%.6g", f);
      out << buf;
    }
    std::snprintf(buf, sizeof buf, ",%.6g,%.6g,%.6g\n", s.choice.terms.analytic_s, s.regression,
                  s.measured);
    out << buf;
  }
}

}  // namespace

int calibrate_command(const std::vector<std::string>& argv) {
  const ParsedArgs args = parse_args(
      "calibrate", argv,
      {"--out", "--csv", "--limit", "--max-bytes", "--seconds", "--reps", "--candidates",
       "--refine", "--eval", "--eval-limit", "--commit"},
      {});
  if (args.has("--help")) {
    std::printf("%s", kHelp);
    return 0;
  }
  if (!args.positional.empty())
    throw UsageError("calibrate: unexpected argument '" + args.positional[0] + "'");
  std::string why;
  if (!gpu::usable(&why)) throw ToolError("calibrate: needs a CUDA device: " + why);
  const int arch = gpu::arch();
  const Config cfg = parse_config(args, arch);
  int device = 0;
  check_status(xpose::detail::cuda_resolve_device(-1, &device), "calibrate: device");
  const int64_t min_bytes = std::min<int64_t>(int64_t{16} << 20, cfg.max_bytes / 8);
  std::vector<CalibrationCase> cases = calibration_cases(min_bytes, cfg.max_bytes);
  if (cases.size() > cfg.limit) cases.resize(cfg.limit);
  const size_t dataset = cases.size();
  for (const std::string& suite : cfg.eval)
    for (const Case& c : spread(load_suite(suite), cfg.eval_limit)) {
      CalibrationCase cc;
      cc.c = c;
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
  bool complete = fit(cases, &samples, &r);
  if (complete && cfg.refine > 0) {
    refine(cases, cfg, r, &cands, &samples);
    complete = fit(cases, &samples, &r);
  }
  report(cases, samples, xpose::detail::process_models().find(arch), &r);
  write_csv(cfg.csv, cases, samples);
  std::printf("\n%zu problems, %zu candidates timed in %.0f s; wrote %s", ran, samples.size(),
              seconds_since(t0), cfg.csv.c_str());
  if (!complete) {
    std::printf("\nno coefficients file: a kernel class has fewer than %ld training candidates "
                "(time more problems)\n",
                kMinClassSamples);
    return 1;
  }
  std::ofstream out(cfg.out);
  out << xpose::detail::format_regression(r);
  if (!out) throw ToolError("--out: cannot write '" + cfg.out + "'");
  std::printf(" and %s\n", cfg.out.c_str());
  return 0;
}

}  // namespace xpose_tool
