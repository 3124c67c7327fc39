// The regression cost model of the CUDA planner (TTLG's style, docs/model.md). Per kernel class,
// predicted seconds = launch + ideal x exp(c . x), where ideal is the time of the bytes at peak
// bandwidth and x the quadratic expansion of 15 log-features (the analytic model's own terms,
// which cost_tiled / cost_rows record in Choice::terms, plus the tile's shape), the coefficients
// c fitted per GPU architecture by `xpose calibrate` in log space (least squares on the log of
// the measured factor, so relative error). Where the device's architecture has no coefficients,
// or a tensor's size lies outside the calibrated range, the analytic model predicts. Host C++
// only: no CUDA header here.
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

// The base features: logs of the terms (docs/model.md); a model is quadratic in them.
constexpr int kBaseFeatures = 15;
extern const char* const kBaseFeatureNames[kBaseFeatures];
using BaseFeatures = std::array<double, kBaseFeatures>;
BaseFeatures base_features(const Choice& c);

// The expansion the coefficients multiply: 1, every base feature, every product of two
// (squares included), in the order feature_name() names them ("1", "ideal", "ideal*ideal").
constexpr int kFeatures = 1 + kBaseFeatures + kBaseFeatures * (kBaseFeatures + 1) / 2;
using Features = std::array<double, kFeatures>;
Features expand(const BaseFeatures& b);
std::string feature_name(int j);

// One kernel class of a model: coefficients and the range of base features they were fitted
// on (inputs are clamped to it, so a quadratic never extrapolates far).
struct ClassModel {
  long samples = 0;  // candidates fitted on
  double mape = 0;   // held-out mean |relative error| (informational)
  BaseFeatures lo{}, hi{};
  Features coef{};
};

// One architecture's coefficients, as a coefficients file holds them.
struct Regression {
  std::string arch;  // "sm_90"
  std::string device, commit, date;
  double min_bytes = 0, max_bytes = 0;  // tensor sizes calibrated on
  std::array<ClassModel, kModelClasses> cls{};

  bool covers(double bytes) const { return bytes >= min_bytes && bytes <= max_bytes; }
  // Seconds; never below the time the bytes take at peak bandwidth.
  double predict(const Choice& c) const;
  // "regression sm_90".
  std::string name() const { return "regression " + arch; }
};

// Fits `m` to candidates and their measured seconds (least squares on log((t - launch) / ideal),
// ridge `ridge` x features / samples on standardized columns, the constant unpenalized). False
// when there is no sample or the system is singular.
bool fit_class(const std::vector<Choice>& choices, const std::vector<double>& seconds,
               double ridge, ClassModel* m);
// The solver under fit_class: b minimizing |x b - y|^2 / n + ridge |S b|^2, S scaling each
// column but the first (the constant) to unit standard deviation; constant columns get 0.
// Normal equations, Cholesky.
bool ridge_fit(const std::vector<Features>& x, const std::vector<double>& y, double ridge,
               Features* coef);

// The coefficients file format (docs/model.md). parse_regression rejects (false, `why` with the
// line) anything but a complete file for this library's features: wrong magic, a placeholder,
// feature names other than this library's, a missing or repeated class, a non-finite number.
std::string format_regression(const Regression& r);
bool parse_regression(const std::string& text, Regression* out, std::string* why);

// The models of a process; a later model of an architecture replaces an earlier one, and a
// rejected text is noted (status() says why), not fatal.
class ModelSet {
 public:
  // Parses `text`; `source` names it in status() ("embedded sm_90.txt").
  void add(const std::string& source, const std::string& text);
  void note(std::string text);
  // The coefficients for architecture `arch` (10 x major + minor), or null.
  const Regression* find(int arch) const;
  // Which model predicts a tensor of `bytes` on `arch`, and why: "regression sm_90 (embedded
  // sm_90.txt, commit .., date ..)" or "analytic (no coefficients for sm_80; ...)".
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
