// The fitting half of `xpose calibrate` (cmd_calibrate.cpp times the candidates): the samples
// of a run, the fit of the regression model on them, the report (held-out error, plan choice)
// and the CSV that keeps a run, which `xpose calibrate --fit` reads back to fit again without
// a GPU. Host C++ only.
#pragma once

#include <string>
#include <vector>

#include "cuda/model.hpp"

namespace xpose_tool {

// A problem of the run: its fold (0..4 by a hash of its name, 0 held out of the fit; -1 a bench
// suite's case, every candidate timed, never fitted) and, for fold -1, its suite.
struct ProblemInfo {
  int fold = 0;
  std::string suite;
};

// One timed candidate.
struct Sample {
  size_t problem = 0;  // index into the run's problems
  std::string head;    // CSV columns problem .. view, as written
  std::string tail;    // CSV columns schema, class, summary, as written
  int cls = 0;         // kernel class (xpose::detail::model_class)
  xpose::detail::BaseFeatures b{};
  double ideal = 0, launch = 0, bytes = 0;  // the candidate's CostTerms
  double analytic = 0, measured = 0;        // seconds
  double regression = 0;                    // seconds by the fit (the blend), else analytic
  // A candidate of a view of 1- or 2-byte elements: fits only the narrow trees, with its place
  // in the analytic model's order (their screen) and its narrow features.
  bool narrow = false;
  int rank = 0;
  xpose::detail::NarrowFeatures nf{};
};

// Fits `r` on the samples of folds 1-4 but the narrow ones (arch, device, commit and date
// untouched): sizes, the quadratic per class, the trees; predicts every such sample. False when
// a kernel class has fewer than kMinClassSamples training candidates (a fit on a handful ranks
// that class by chance) or a fit fails.
constexpr long kMinClassSamples = 20;
bool fit_samples(const std::vector<ProblemInfo>& problems, const xpose::detail::TreeFit& fit,
                 std::vector<Sample>* samples, xpose::detail::Regression* r);
// Fits r's narrow trees on the narrow samples of folds 1-4 and predicts every narrow sample;
// false (r->narrow emptied) when there are fewer than kMinClassSamples of them.
bool fit_narrow(const std::vector<ProblemInfo>& problems, const xpose::detail::TreeFit& fit,
                std::vector<Sample>* samples, xpose::detail::Regression* r);

// Prints the held-out MAPE per class (and records it in r) and how often each model's pick (the
// planner's rule: regression_order's first) runs within 5 % and 15 % of the fastest timed
// candidate: the new fit (when `complete`), `shipped` (may be null) and the analytic model.
void report_fit(const std::vector<ProblemInfo>& problems, const std::vector<Sample>& samples,
                bool complete, const xpose::detail::Regression* shipped,
                xpose::detail::Regression* r);
// The same for the narrow samples: held-out MAPE of the narrow trees and the analytic model,
// and how often the planner's pick (the analytic order, its kScreened best by the narrow
// trees) runs within 5 % and 15 % of the fastest candidate (every one timed), with the mean
// speed of the picks against the fastest: `fitted` (null: not fitted), `shipped`'s narrow trees
// (when it has them), the analytic model. Nothing without narrow samples.
void report_narrow(const std::vector<ProblemInfo>& problems, const std::vector<Sample>& samples,
                   const xpose::detail::Regression* fitted,
                   const xpose::detail::Regression* shipped);

// The run as CSV, a row per sample (grouped by problem), and back; read_samples throws
// ToolError on a file that is not such a CSV.
void write_samples(const std::string& path, const std::vector<Sample>& samples);
void read_samples(const std::string& path, std::vector<ProblemInfo>* problems,
                  std::vector<Sample>* samples);

}  // namespace xpose_tool
