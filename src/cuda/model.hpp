// The regression cost model of the CUDA planner (docs/model.md). A candidate's time is
// launch + ideal x exp(z), ideal the time of its bytes at peak bandwidth and z a function of 15
// log-features (the analytic model's own terms, which cost_tiled / cost_rows record in
// Choice::terms, plus the tile's shape) fitted per GPU architecture by `xpose calibrate` on the
// log of the measured factor (so relative error). Two fits make z: a quadratic in the features
// per kernel class (TTLG's style: cheap, smooth) and an ensemble of gradient-boosted oblivious
// regression trees over the features and the class (finer, dearer). The quadratic ranks every
// candidate; its kScreened best are ranked again by the blend of both, which predicts them.
// Where the device's architecture has no model, or a tensor's size lies outside the calibrated
// range, the analytic model predicts. Host C++ only: no CUDA header here.
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
  // The analytic ranking's factor for L2-resident tensors (analytic.hpp l2_threads_exponent):
  // predicted = analytic_s x l2_factor where the analytic model ranks; not a feature.
  double l2_factor = 1;
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

// The fitted quantity and its inverse: z = log((seconds - launch) / ideal), the launch's share
// held to at most half of the time; seconds = launch + ideal x exp(z), never below twice the
// ideal time (read and write at peak).
double log_factor(double seconds, double launch_s, double ideal_s);
double seconds_of(double z, double launch_s, double ideal_s);

// The quadratic: its terms are 1, every base feature, every product of two (squares included),
// in the order quad_term_name() names them ("1", "ideal", "ideal*ideal").
constexpr int kQuadTerms = 1 + kBaseFeatures + kBaseFeatures * (kBaseFeatures + 1) / 2;
using QuadTerms = std::array<double, kQuadTerms>;
QuadTerms expand(const BaseFeatures& b);
std::string quad_term_name(int j);

// One kernel class's quadratic: coefficients, and the range of base features they were fitted
// on (inputs are clamped to it, so a quadratic never extrapolates far).
struct ClassModel {
  long samples = 0;  // candidates fitted on
  double mape = 0;   // held-out mean |relative error| of the model's predictions (informational)
  BaseFeatures lo{}, hi{};
  QuadTerms coef{};
  double z(const BaseFeatures& b) const;
};

// Fits `m` to features `x` and targets `z` (least squares, ridge `ridge` x terms / samples on
// standardized columns, the constant unpenalized). False when there is no sample or the system
// is singular.
bool fit_class(const std::vector<BaseFeatures>& x, const std::vector<double>& z, double ridge,
               ClassModel* m);
// The solver under fit_class: b minimizing |x b - y|^2 / n + ridge |S b|^2, S scaling each
// column but the first (the constant) to unit standard deviation; constant columns get 0.
// Normal equations, Cholesky.
bool ridge_fit(const std::vector<QuadTerms>& x, const std::vector<double>& y, double ridge,
               QuadTerms* coef);

// The trees split on the base features and the kernel class (model_class) as a number.
constexpr int kTreeFeatures = kBaseFeatures + 1;
using TreeFeatures = std::array<double, kTreeFeatures>;
TreeFeatures tree_features(const BaseFeatures& b, int cls);
const char* tree_feature_name(int j);  // kBaseFeatureNames, then "class"

// How `xpose calibrate` grows the trees (docs/model.md says how these were chosen).
struct TreeFit {
  int trees = 100;     // boosting rounds, one tree each
  int depth = 6;       // levels per tree: 2^depth leaves
  double rate = 0.15;  // learning rate (shrinkage), folded into the leaves
  int bins = 32;       // split candidates per feature: quantiles of its training values
  double l2 = 1.0;     // leaf value = sum of residuals / (samples + l2)
};
constexpr int kMaxTreeDepth = 10;

// The narrow trees (Regression::narrow) rank the candidates of plain problems of 1- and 2-byte
// elements, whose tiles run in narrow.cu, narrow2d.cu or wide2d.cu's packed tile and which the
// quadratic and the trees above, fitted on wider elements, do not describe. Their features: the
// base ones, the narrow class (narrow_class), and the logs of the tile's runs (elements read and
// written contiguously) and of its blocked extents ta and tc, which separate tiles whose cost
// terms tie (docs/model.md), and `raw`: 1 for narrow.cu's gathered tiles whose raw rows fit
// (Choice::raw_rows), which skip the realignment, else 0. Files fitted before `raw` (session 37)
// name the first kNarrowFeaturesBeforeRaw, and their trees split on those only.
constexpr int kNarrowFeatures = kBaseFeatures + 6;
constexpr int kNarrowFeaturesBeforeRaw = kBaseFeatures + 5;
using NarrowFeatures = std::array<double, kNarrowFeatures>;
// model_class, plus 5 for narrow2d.cu's tile and 5 more for wide2d.cu's packed one: 0..14; plus
// 15 for thin2d.cu's tile (15..19) and 20 for cells.cu's (20..24), which no model ranks
// (planner.hpp kThin2dFactor, kCellFactor) but whose samples calibrate keeps apart.
int narrow_class(const Choice& c);
NarrowFeatures narrow_features(const Choice& c);
// The same from a candidate's base features, narrow class, runs, blocked extents and raw rows.
NarrowFeatures narrow_features(const BaseFeatures& b, int cls, double in_run, double out_run,
                               double ta, double tc, bool raw);
const char* narrow_feature_name(int j);  // kBaseFeatureNames, then "class" "in_run" "out_run"
                                         // "ta" "tc" "raw"

// Oblivious trees: level l of a tree sends a candidate right (bit l of the leaf index) when
// feature split_feature[l] >= split_value[l], one test per level, so a tree costs depth tests
// and one leaf read.
struct Trees {
  int depth = 0;
  double base = 0;                           // z before the first tree
  std::vector<unsigned char> split_feature;  // trees x depth
  std::vector<double> split_value;           // trees x depth
  std::vector<float> leaf;                   // trees x 2^depth, the learning rate folded in

  size_t count() const { return depth > 0 ? split_feature.size() / depth : 0; }
  double z(const TreeFeatures& x) const { return z(x.data()); }  // base plus a leaf per tree
  double z(const NarrowFeatures& x) const { return z(x.data()); }
  double z(const double* x) const;  // x: as many features as the splits name
};

// Grows `t` to fit z[i] at x[i] by least squares: gradient boosting, histogram splits. False
// when there is no sample or `fit` is out of range.
bool fit_trees(const std::vector<TreeFeatures>& x, const std::vector<double>& z,
               const TreeFit& fit, Trees* t);
bool fit_trees(const std::vector<NarrowFeatures>& x, const std::vector<double>& z,
               const TreeFit& fit, Trees* t);

// The blend: z = (1 - kTreeWeight) x quadratic + kTreeWeight x trees, on the kScreened best
// candidates of the quadratic (docs/model.md: both chosen on the 2026-11-21 calibration data).
constexpr double kTreeWeight = 0.7;
constexpr int kScreened = 4;

// One architecture's model, as a model file holds it.
struct Regression {
  std::string arch;  // "sm_90"
  std::string device, commit, date;
  double min_bytes = 0, max_bytes = 0;  // tensor sizes calibrated on
  std::array<ClassModel, kModelClasses> cls{};
  Trees trees;
  Trees narrow;  // none (count() 0) in files of version 3 and calibrations without narrow data
  // The narrow features the trees were fitted over: kNarrowFeaturesBeforeRaw in files fitted
  // before `raw` (they do not know raw rows; planner.hpp kNarrowRawRowsFactor), else all.
  int narrow_named = kNarrowFeatures;
  bool narrow_knows_raw() const { return narrow_named > kNarrowFeaturesBeforeRaw; }
  double narrow_min_bytes = 0, narrow_max_bytes = 0;  // tensor sizes the narrow trees saw

  bool covers(double bytes) const { return bytes >= min_bytes && bytes <= max_bytes; }
  double quad_z(const BaseFeatures& b, int k) const { return cls[k].z(b); }
  double blend_z(const BaseFeatures& b, int k) const;
  // Seconds by the quadratic (the screen), by the blend (the prediction); never below twice
  // the time the bytes take at peak bandwidth.
  double screen(const Choice& c) const;
  double predict(const Choice& c) const;
  // The same for a candidate known by its features, class and cost terms (calibrate's samples).
  double screen(const BaseFeatures& b, int k, double launch_s, double ideal_s) const;
  double predict(const BaseFeatures& b, int k, double launch_s, double ideal_s) const;
  // Whether the narrow trees rank a tensor of `bytes`; seconds of a narrow candidate by them.
  bool ranks_narrow() const { return narrow.count() > 0; }
  bool covers_narrow(double bytes) const {
    return ranks_narrow() && bytes >= narrow_min_bytes && bytes <= narrow_max_bytes;
  }
  double predict_narrow(const Choice& c) const;
  double predict_narrow(const NarrowFeatures& x, double launch_s, double ideal_s) const {
    return seconds_of(narrow.z(x), launch_s, ideal_s);
  }
  // "regression sm_90".
  std::string name() const { return "regression " + arch; }
};

// The model's order of candidates whose quadratic and blended predictions are quad[i] and
// blend[i] (blend is read for the kScreened best of quad only): those kScreened by blend, then
// the others by quad; ties keep the given order.
std::vector<size_t> regression_order(const std::vector<double>& quad,
                                     const std::vector<double>& blend);

// The model file format (docs/model.md). parse_regression rejects (false, `why` with the line)
// anything but a complete file for this library's features: wrong magic, a placeholder, feature
// names other than this library's, a missing or repeated class, no tree, a tree of the wrong
// size or splitting on an unknown feature, a non-finite number.
std::string format_regression(const Regression& r);
bool parse_regression(const std::string& text, Regression* out, std::string* why);

// The models of a process, each for an architecture and the device it was calibrated on
// (Regression::device, the CUDA device name): GPUs of one architecture differ in memory
// bandwidth (H100 3.35 TB/s, H200 4.8 TB/s), and so in which plan is fastest. A device takes the
// model of its own name, else its architecture's general one: an embedded file named sm_XY.txt
// or XPOSE_MODEL_FILE's. A later embedded model of the same architecture and device replaces an
// earlier one; XPOSE_MODEL_FILE's replaces every model of its architecture. A rejected text is
// noted (status() says why), not fatal.
class ModelSet {
 public:
  // Parses `text`; `source` names it in status() ("embedded sm_90.txt"). `general`: the model
  // of devices of its architecture that have none of their own; `override_arch`: it replaces
  // every model of its architecture (and is general).
  void add(const std::string& source, const std::string& text, bool general = true,
           bool override_arch = false);
  void note(std::string text);
  // The model for device `device` (its CUDA name) of architecture `arch` (10 x major + minor),
  // or null.
  const Regression* find(int arch, const std::string& device) const;
  // Which model predicts a tensor of `bytes` on that device, and why: "regression sm_90
  // (embedded sm_90.txt, NVIDIA H100 80GB HBM3, commit .., date ..)" or "analytic (no model
  // for sm_80; ...)".
  std::string status(int arch, const std::string& device, double bytes) const;

 private:
  struct Entry {
    int arch;
    bool general;
    std::string source;
    Regression model;
  };
  const Entry* entry(int arch, const std::string& device) const;
  std::vector<Entry> models_;
  std::vector<std::string> notes_;
};

// The process's models: the files embedded at build time (src/cuda/models/sm_XY.txt, general,
// and sm_XY-<device>.txt, for their device only), then XPOSE_MODEL_FILE (a path) when set;
// XPOSE_MODEL_FILE=none leaves only the analytic model.
const ModelSet& process_models();

// Ranks candidates by `r` (which covers their tensor's size): every prediction replaced by the
// regression's (the blend for the kScreened best of the quadratic, the quadratic for the
// others), the model recorded, the list in regression_order.
void rank_by_regression(const Regression& r, std::vector<Choice>* choices);
// The same for narrow candidates already in the analytic model's order: its kScreened best
// ranked again, and predicted, by r's narrow trees (regression_order with the analytic ranks as
// the screen); the others keep their order and analytic predictions.
void rank_narrow(const Regression& r, std::vector<Choice>* choices);

// Embedded at build time (a generated source): file name and text, {nullptr, nullptr} last.
struct EmbeddedModel {
  const char* name;
  const char* text;
};
extern const EmbeddedModel kEmbeddedModels[];

}  // namespace xpose::detail
