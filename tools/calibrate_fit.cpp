// The fitting half of `xpose calibrate`: see calibrate_fit.hpp and docs/model.md.
#include "calibrate_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "common.hpp"
#include "cuda/planner.hpp"

namespace xpose_tool {
namespace {

using xpose::detail::kBaseFeatures;
using xpose::detail::kModelClasses;
using xpose::detail::Regression;

constexpr double kRidge = 1e-3;

double screen(const Regression& r, const Sample& s) {
  return r.screen(s.b, s.cls, s.launch, s.ideal);
}

double predict(const Regression& r, const Sample& s) {
  return r.predict(s.b, s.cls, s.launch, s.ideal);
}

// The sample the planner would pick among samples [i, end) of one problem under `r`.
size_t pick(const Regression& r, const std::vector<Sample>& samples, size_t i, size_t end) {
  std::vector<double> quad, blend;
  for (size_t j = i; j < end; ++j) {
    quad.push_back(screen(r, samples[j]));
    blend.push_back(predict(r, samples[j]));
  }
  return i + xpose::detail::regression_order(quad, blend).front();
}

// The sample the planner would pick among the narrow samples [i, end) of one problem (every
// place of its list): rank_narrow's first, the kScreened best by rank ranked by `r`'s narrow
// trees; with r null, the analytic order's first.
size_t narrow_pick(const Regression* r, const std::vector<Sample>& samples, size_t i,
                   size_t end) {
  std::vector<double> rank, z;
  for (size_t j = i; j < end; ++j) {
    const Sample& s = samples[j];
    rank.push_back(s.rank);
    z.push_back(r ? r->predict_narrow(s.nf, s.launch, s.ideal) : s.rank);
  }
  return i + xpose::detail::regression_order(rank, z).front();
}

struct Errors {
  double regression = 0, analytic = 0;
  size_t n = 0;
  void add(const Sample& s) {
    regression += std::fabs(s.regression - s.measured) / s.measured;
    analytic += std::fabs(s.analytic - s.measured) / s.measured;
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
// candidate is timed, so the pick is the planner's own). Models: the new fit (the analytic
// model's picks when `fitted` is null: an incomplete fit), the shipped one (when there is one),
// the analytic one.
void report_choice(const std::vector<ProblemInfo>& problems, const std::vector<Sample>& samples,
                   const Regression* fitted, const Regression* shipped) {
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
    const ProblemInfo& info = problems[samples[i].problem];
    if (info.fold <= 0 && !samples[i].narrow) {
      double best = 1e30, analytic = 1e30, pick_time[3] = {};
      for (size_t j = i; j < end; ++j) {
        const Sample& s = samples[j];
        best = std::min(best, s.measured);
        if (s.analytic < analytic) analytic = s.analytic, pick_time[2] = s.measured;
      }
      pick_time[0] = fitted ? samples[pick(*fitted, samples, i, end)].measured : pick_time[2];
      if (shipped) pick_time[1] = samples[pick(*shipped, samples, i, end)].measured;
      Tally& t = group(info.fold == 0 ? "held-out" : info.suite);
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

// A CSV row's fields, quotes kept (so that a field is written back as it was read).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (const char ch : line) {
    if (ch == '"') quoted = !quoted;
    if (ch == ',' && !quoted)
      out.emplace_back();
    else
      out.back() += ch;
  }
  return out;
}

double number(const std::string& field, const std::string& where) {
  char* end = nullptr;
  const double v = std::strtod(field.c_str(), &end);
  if (field.empty() || end != field.c_str() + field.size() || !std::isfinite(v))
    throw ToolError(where + ": '" + field + "' is not a finite number");
  return v;
}

}  // namespace

bool fit_samples(const std::vector<ProblemInfo>& problems, const xpose::detail::TreeFit& fit,
                 std::vector<Sample>* samples, Regression* r) {
  r->min_bytes = 1e300;
  r->max_bytes = 0;
  std::vector<xpose::detail::BaseFeatures> x[kModelClasses];
  std::vector<double> z[kModelClasses], all_z;
  std::vector<xpose::detail::TreeFeatures> all_x;
  for (const Sample& s : *samples) {
    const int fold = problems[s.problem].fold;
    if (fold < 0 || s.narrow) continue;
    r->min_bytes = std::min(r->min_bytes, s.bytes);
    r->max_bytes = std::max(r->max_bytes, s.bytes);
    if (fold == 0) continue;
    const double target = xpose::detail::log_factor(s.measured, s.launch, s.ideal);
    x[s.cls].push_back(s.b);
    z[s.cls].push_back(target);
    all_x.push_back(xpose::detail::tree_features(s.b, s.cls));
    all_z.push_back(target);
  }
  bool complete = xpose::detail::fit_trees(all_x, all_z, fit, &r->trees);
  for (int k = 0; k < kModelClasses; ++k) {
    const bool fitted = xpose::detail::fit_class(x[k], z[k], kRidge, &r->cls[k]);
    if (!fitted || r->cls[k].samples < kMinClassSamples) {
      std::fprintf(stderr, "calibrate: class %s: %ld training candidates%s\n",
                   xpose::detail::model_class_name(k), r->cls[k].samples,
                   fitted ? "" : ", singular fit");
      complete = false;
    }
  }
  for (Sample& s : *samples)
    if (!s.narrow) s.regression = complete ? predict(*r, s) : s.analytic;
  return complete;
}

bool fit_narrow(const std::vector<ProblemInfo>& problems, const xpose::detail::TreeFit& fit,
                std::vector<Sample>* samples, Regression* r) {
  std::vector<xpose::detail::NarrowFeatures> x;
  std::vector<double> z;
  r->narrow_min_bytes = 1e300;
  r->narrow_max_bytes = 0;
  for (const Sample& s : *samples) {
    const int fold = problems[s.problem].fold;
    if (!s.narrow || fold < 0) continue;
    r->narrow_min_bytes = std::min(r->narrow_min_bytes, s.bytes);
    r->narrow_max_bytes = std::max(r->narrow_max_bytes, s.bytes);
    if (fold == 0) continue;
    x.push_back(s.nf);
    z.push_back(xpose::detail::log_factor(s.measured, s.launch, s.ideal));
  }
  const bool fitted = static_cast<long>(x.size()) >= kMinClassSamples &&
                      xpose::detail::fit_trees(x, z, fit, &r->narrow);
  if (!fitted) r->narrow = xpose::detail::Trees{}, r->narrow_min_bytes = r->narrow_max_bytes = 0;
  r->narrow_named = xpose::detail::kNarrowFeatures;  // fitted over all (raw rows known)
  for (Sample& s : *samples)
    if (s.narrow)
      s.regression = fitted ? r->predict_narrow(s.nf, s.launch, s.ideal) : s.analytic;
  return fitted;
}

void report_narrow(const std::vector<ProblemInfo>& problems, const std::vector<Sample>& samples,
                   const Regression* fitted, const Regression* shipped) {
  if (shipped && !shipped->ranks_narrow()) shipped = nullptr;
  Errors errors;
  size_t n = 0, within[3][2] = {};
  double log_speed[3] = {}, worst[3] = {1, 1, 1};
  for (size_t i = 0; i < samples.size();) {
    size_t end = i;
    while (end < samples.size() && samples[end].problem == samples[i].problem) ++end;
    if (samples[i].narrow && problems[samples[i].problem].fold == 0) {
      double best = 1e30;
      for (size_t j = i; j < end; ++j) {
        best = std::min(best, samples[j].measured);
        errors.add(samples[j]);
      }
      const Regression* models[3] = {fitted, shipped, nullptr};
      for (int m = 0; m < 3; ++m) {
        if (m < 2 && !models[m]) continue;
        const double loss = samples[narrow_pick(models[m], samples, i, end)].measured / best;
        for (int k = 0; k < 2; ++k) within[m][k] += loss <= (k ? 1.15 : 1.05);
        log_speed[m] -= std::log(loss);
        worst[m] = std::max(worst[m], loss);
      }
      ++n;
    }
    i = end;
  }
  if (n == 0) return;
  std::printf("\nnarrow problems held out (%zu, every candidate timed): MAPE of the narrow trees "
              "%s, of the analytic model %s\n\n"
              "| model          | within 5%% | within 15%% | mean speed | worst |\n"
              "|----------------|----------:|-----------:|-----------:|------:|\n",
              n, fitted ? errors.text(errors.regression).c_str() : "-",
              errors.text(errors.analytic).c_str());
  const char* names[3] = {"narrow trees", "shipped trees", "analytic"};
  for (int m = 0; m < 3; ++m) {
    if ((m == 0 && !fitted) || (m == 1 && !shipped)) continue;
    const double d = static_cast<double>(n);
    std::printf("| %-14s | %8.1f%% | %9.1f%% | %10.3f | x%.2f |\n", names[m],
                100.0 * within[m][0] / d, 100.0 * within[m][1] / d, std::exp(log_speed[m] / d),
                worst[m]);
  }
}

void report_fit(const std::vector<ProblemInfo>& problems, const std::vector<Sample>& samples,
                bool complete, const Regression* shipped, Regression* r) {
  Errors by_class[kModelClasses], all;
  for (const Sample& s : samples)
    if (problems[s.problem].fold == 0 && !s.narrow) {
      by_class[s.cls].add(s);
      all.add(s);
    }
  std::printf("held-out fifth: MAPE (mean |predicted - measured| / measured) per kernel class\n\n"
              "| class        |  fit |  test | regression | analytic |\n"
              "|--------------|-----:|------:|-----------:|---------:|\n");
  long fitted = 0;
  for (int k = 0; k < kModelClasses; ++k) {
    const Errors& e = by_class[k];
    r->cls[k].mape = e.n ? e.regression / static_cast<double>(e.n) : 0;
    fitted += r->cls[k].samples;
    std::printf("| %-12s | %4ld | %5zu | %10s | %8s |\n", xpose::detail::model_class_name(k),
                r->cls[k].samples, e.n, e.text(e.regression).c_str(), e.text(e.analytic).c_str());
  }
  std::printf("| %-12s | %4ld | %5zu | %10s | %8s |\n\n", "all", fitted, all.n,
              all.text(all.regression).c_str(), all.text(all.analytic).c_str());
  report_choice(problems, samples, complete ? r : nullptr, shipped);
}

void write_samples(const std::string& path, const std::vector<Sample>& samples) {
  std::ofstream out(path);
  if (!out) throw ToolError("--csv: cannot write '" + path + "'");
  out << "problem,fold,shape,rank,extents,perm,elem,bytes,view,cand,schema,class,summary";
  for (const char* f : xpose::detail::kBaseFeatureNames) out << ",f_" << f;
  out << ",launch_s,analytic_s,regression_s,measured_s,narrow,rank";
  for (int j = kBaseFeatures; j < xpose::detail::kNarrowFeatures; ++j)
    out << ",n_" << xpose::detail::narrow_feature_name(j);
  out << "\n";
  size_t cand = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    cand = i > 0 && samples[i - 1].problem == s.problem ? cand + 1 : 0;
    out << s.head << ',' << cand << ',' << s.tail;
    char buf[64];
    for (const double f : s.b) {
      std::snprintf(buf, sizeof buf, ",%.6g", f);
      out << buf;
    }
    std::snprintf(buf, sizeof buf, ",%.6g,%.6g,%.6g,%.6g,%d,%d", s.launch, s.analytic,
                  s.regression, s.measured, s.narrow ? 1 : 0, s.rank);
    out << buf;
    for (int j = kBaseFeatures; j < xpose::detail::kNarrowFeatures; ++j) {
      std::snprintf(buf, sizeof buf, ",%.6g", s.narrow ? s.nf[j] : 0.0);
      out << buf;
    }
    out << "\n";
  }
  if (!out) throw ToolError("--csv: cannot write '" + path + "'");
}

void read_samples(const std::string& path, std::vector<ProblemInfo>* problems,
                  std::vector<Sample>* samples) {
  std::ifstream in(path);
  if (!in) throw ToolError("--fit: cannot read '" + path + "'");
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csv_fields(line);
  std::map<std::string, size_t> col;
  for (size_t j = 0; j < header.size(); ++j) col[header[j]] = j;
  const auto at = [&](const std::string& name) {
    const auto it = col.find(name);
    if (it == col.end()) throw ToolError("--fit: '" + path + "' has no column " + name);
    return it->second;
  };
  std::vector<size_t> feature(kBaseFeatures);
  for (int j = 0; j < kBaseFeatures; ++j)
    feature[j] = at(std::string("f_") + xpose::detail::kBaseFeatureNames[j]);
  const size_t c_fold = at("fold"), c_shape = at("shape"), c_view = at("view"),
               c_cand = at("cand"), c_class = at("class"), c_summary = at("summary"),
               c_bytes = at("bytes"), c_analytic = at("analytic_s"),
               c_measured = at("measured_s");
  // Files written before the launch column: the analytic model's launch cost, which they used.
  const bool has_launch = col.count("launch_s") > 0;
  // Files written before the narrow columns hold no narrow sample.
  const bool has_narrow = col.count("narrow") > 0;
  if (c_view + 1 != c_cand || c_cand + 1 != at("schema") || c_summary != c_class + 1)
    throw ToolError("--fit: '" + path + "' is not a calibrate CSV (column order)");
  std::string last_key;
  size_t row = 1;
  while (std::getline(in, line)) {
    ++row;
    if (line.empty()) continue;
    const std::vector<std::string> f = csv_fields(line);
    const std::string where = path + ":" + std::to_string(row);
    if (f.size() != header.size()) throw ToolError(where + ": " + std::to_string(f.size()) +
                                                   " fields, the header has " +
                                                   std::to_string(header.size()));
    Sample s;
    for (size_t j = 0; j <= c_view; ++j) s.head += (j ? "," : "") + f[j];
    s.tail = f[c_cand + 1] + "," + f[c_class] + "," + f[c_summary];
    s.cls = -1;
    for (int k = 0; k < kModelClasses; ++k)
      if (f[c_class] == xpose::detail::model_class_name(k)) s.cls = k;
    if (s.cls < 0) throw ToolError(where + ": unknown kernel class '" + f[c_class] + "'");
    for (int j = 0; j < kBaseFeatures; ++j) s.b[j] = number(f[feature[j]], where);
    s.ideal = std::exp(s.b[0]);
    s.launch = has_launch ? number(f[at("launch_s")], where)
                          : xpose::detail::analytic_launch_seconds();
    s.bytes = number(f[c_bytes], where);
    s.analytic = number(f[c_analytic], where);
    s.measured = number(f[c_measured], where);
    if (!(s.measured > 0)) throw ToolError(where + ": measured_s is not positive");
    if (has_narrow && number(f[at("narrow")], where) != 0) {
      s.narrow = true;
      s.rank = static_cast<int>(number(f[at("rank")], where));
      std::copy(s.b.begin(), s.b.end(), s.nf.begin());
      for (int j = kBaseFeatures; j < xpose::detail::kNarrowFeatures; ++j) {
        // Files written before the raw column (session 37): 0, no raw rows.
        const std::string name = std::string("n_") + xpose::detail::narrow_feature_name(j);
        s.nf[j] = j < xpose::detail::kNarrowFeaturesBeforeRaw || col.count(name)
                      ? number(f[at(name)], where)
                      : 0.0;
      }
    }
    // A problem's rows are consecutive; its key is everything before the view column.
    const std::string key = s.head.substr(0, s.head.size() - f[c_view].size());
    if (problems->empty() || key != last_key) {
      const int fold = static_cast<int>(number(f[c_fold], where));
      problems->push_back({fold, fold < 0 ? f[c_shape] : ""});
      last_key = key;
    }
    s.problem = problems->size() - 1;
    samples->push_back(std::move(s));
  }
  if (samples->empty()) throw ToolError("--fit: '" + path + "' has no sample");
}

}  // namespace xpose_tool
