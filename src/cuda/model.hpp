// The regression cost model of the CUDA planner (docs/model.md): predicted seconds = launch +
// ideal x exp(F(x)), where ideal is the time of the bytes at peak bandwidth, x the 15 log-features
// of a candidate (the analytic model's own terms, which cost_tiled / cost_rows record in
// Choice::terms, plus the tile's shape) and its kernel class, and F an ensemble of gradient-boosted
// oblivious regression trees fitted per GPU architecture by `xpose calibrate` on the log of the
// measured factor (so relative error). Where the device's architecture has no model, or a
// tensor's size lies outside the calibrated range, the analytic model predicts. Host C++ only: no
// CUDA header here.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace xpose::detail {

enum class Schema : unsigned;  // cuda/planner.hpp
struct Choice;                 // cuda/planner.hpp

// The analytic model's pieces of one candidate, as the planner computed them. The inverse
// factors are >= 1; their product with the ideal time is the analytic memory time.
struct CostTerms {
  double ideal_s = 0;        // bytes / peak DRAM bandwidth: one direction at peak
  double inv_eff_r = 1;      // 1 / read transaction efficiency (partial 64-byte units)
  double inv_eff_w = 1;      // 1 / write transaction efficiency (partial 128-byte lines)
  double inv_mwp = 1;        // 1 / latency-hiding factor (loads in flight per SM)
  double inv_balance = 1;    // 1 / (load balance over the folded grid x share of SMs busy)
  double inv_fill = 1;       // 1 / share of edge-tile slots holding data
  double issue_s = 0;        // instruction issue time
  double smem_s = 0;         // shared-memory wavefront time
  double rounds = 0;         // tiles (row items) per block of the folded grid
  double analytic_s = 0;     // the analytic prediction: launch + max(memory, issue, smem)
  double launch_s = 0;       // the analytic model's fixed cost of a launch
  double bytes = 0;          // of the tensor
  double span_r = 0, span_w = 0;  // bytes of a contiguous run read / written (rows: the row)
  double elem = 0;           // element bytes of the planned view
};

// Kernel classes with a coefficient line each: rows (copy and rows), fvi-small, tiled, packed,
// packed-split.
constexpr int kModelClasses = 5;
const char* model_class_name(int k);
int model_class(Schema s);

// The base features: logs of the terms (docs/model.md).
constexpr int kBaseFeatures = 15;
extern const char* const kBaseFeatureNames[kBaseFeatures];
using BaseFeatures = std::array<double, kBaseFeatures>;
BaseFeatures base_features(const Choice& c);

// What the trees split on: the base features, then the kernel class (model_class) as a number.
constexpr int kFeatures = kBaseFeatures + 1;
using Features = std::array<double, kFeatures>;
Features model_features(const Choice& c);
const char* feature_name(int j);  // kBaseFeatureNames, then "class"

// The fitted quantity and its inverse: z = log((seconds - launch) / ideal), the launch's share
// held to at most half of the time; seconds = launch + ideal x exp(z), never below twice the
// ideal time (read and write at peak).
double log_factor(double seconds, double launch_s, double ideal_s);
double seconds_of(double z, double launch_s, double ideal_s);

// How `xpose calibrate` grows the ensemble (docs/model.md says how these were chosen).
struct TreeFit {
  int trees = 100;     // boosting rounds, one tree each
  int depth = 6;       // levels per tree: 2^depth leaves
  double rate = 0.15;  // learning rate (shrinkage), folded into the leaves
  int bins = 32;       // split candidates per feature: quantiles of its training values
  double l2 = 1.0;     // leaf value = sum of residuals / (samples + l2)
};
constexpr int kMaxTreeDepth = 10;

// Per kernel class, what the fit saw (informational: the file carries it).
struct ClassInfo {
  long samples = 0;  // training candidates
  double mape = 0;   // held-out mean |relative error|
};

// One architecture's model, as a model file holds it. Each tree is oblivious: level l sends a
// candidate right when feature split_feature[l] >= split_value[l], the same test across the
// level, so a tree is depth tests and one leaf read.
struct Regression {
  std::string arch;  // "sm_90"
  std::string device, commit, date;
  double min_bytes = 0, max_bytes = 0;  // tensor sizes calibrated on
  std::array<ClassInfo, kModelClasses> cls{};
  int depth = 0;
  double base = 0;                     // F before the first tree
  std::vector<unsigned char> split_feature;  // trees x depth
  std::vector<double> split_value;           // trees x depth
  std::vector<float> leaf;                   // trees x 2^depth, bit l of the index = level l

  size_t trees() const { return depth > 0 ? split_feature.size() / depth : 0; }
  bool covers(double bytes) const { return bytes >= min_bytes && bytes <= max_bytes; }
  // F(x): base plus one leaf per tree.
  double eval(const Features& x) const;
  // Seconds; never below twice the time the bytes take at peak bandwidth.
  double predict(const Choice& c) const;
  // "regression sm_90".
  std::string name() const { return "regression " + arch; }
};

// Grows r's trees (arch, sizes and class info untouched) to fit z = y[i] at x[i] by least
// squares, gradient boosting with histogram splits; false when there is no sample.
bool fit_trees(const std::vector<Features>& x, const std::vector<double>& y, const TreeFit& fit,
               Regression* r);

// The model file format (docs/model.md). parse_regression rejects (false, `why` with the line)
// anything but a complete file for this library's features: wrong magic, a placeholder, feature
// names other than this library's, a missing or repeated class, no tree, a tree of the wrong
// size or splitting on an unknown feature, a non-finite number.
std::string format_regression(const Regression& r);
bool parse_regression(const std::string& text, Regression* out, std::string* why);

// The models of a process; a later model of an architecture replaces an earlier one, and a
// rejected text is noted (status() says why), not fatal.
class ModelSet {
 public:
  // Parses `text`; `source` names it in status() ("embedded sm_90.txt").
  void add(const std::string& source, const std::string& text);
  void note(std::string text);
  // The model for architecture `arch` (10 x major + minor), or null.
  const Regression* find(int arch) const;
  // Which model predicts a tensor of `bytes` on `arch`, and why: "regression sm_90 (embedded
  // sm_90.txt, commit .., date ..)" or "analytic (no model for sm_80; ...)".
  std::string status(int arch, double bytes) const;

 private:
  struct Entry {
    int arch;
    std::string source;
    Regression model;
  };
  std::vector<Entry> models_;
  std::vector<std::string> notes_;
};

// The process's models: the files embedded at build time (src/cuda/models/sm_XY.txt), then
// XPOSE_MODEL_FILE (a path) when set; XPOSE_MODEL_FILE=none leaves only the analytic model.
const ModelSet& process_models();

// Replaces each choice's analytic prediction by the regression's and records which model
// predicted; leaves them when r is null or does not cover the choices' tensor size.
void apply_regression(const Regression* r, std::vector<Choice>* choices);
// The same for one choice, which r covers.
void apply_regression(const Regression& r, Choice* c);

// Embedded at build time (a generated source): file name and text, {nullptr, nullptr} last.
struct EmbeddedModel {
  const char* name;
  const char* text;
};
extern const EmbeddedModel kEmbeddedModels[];

}  // namespace xpose::detail
