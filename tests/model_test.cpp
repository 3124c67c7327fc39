// The cost models without a GPU: the regression model's fits (quadratic and trees), its ranking,
// its model file, the fallback to the analytic model, the features of random problems (CUDA
// builds, on a fake H100), and the time of a warm xpose_predict on the CPU backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

#include "reference.hpp"
#include "xpose/xpose.h"

#ifdef XPOSE_HAVE_CUDA
#include "core/problem.hpp"
#include "cuda/model.hpp"
#include "cuda/planner.hpp"
#include "fake_device.hpp"
#endif

namespace {

using xpose_test::Rng;
using xpose_test::test_seed;

// Issue 4: a warm xpose_predict (a plan-cache hit) in under 20 us.
TEST(Predict, WarmCpuPredictIsFast) {
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CPU;
  const int64_t ext[6] = {17, 16, 15, 14, 13, 12};
  const int perm[6] = {5, 3, 1, 0, 2, 4};
  double s = 0;
  ASSERT_EQ(xpose_predict(6, ext, perm, 8, &o, &s), XPOSE_SUCCESS) << xpose_last_error();
  constexpr int kCalls = 20000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) xpose_predict(6, ext, perm, 8, &o, &s);
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
      kCalls;
  std::printf("warm xpose_predict, CPU backend, rank 6: %.3f us\n", us);
  EXPECT_GT(s, 0);
  EXPECT_LT(us, 20.0);
}

#ifdef XPOSE_HAVE_CUDA

using namespace xpose::detail;

using xpose_test::problem;

// Random oblivious trees over `features` features.
Trees some_trees(Rng& rng, int trees, int depth, int features) {
  Trees t;
  t.depth = depth;
  t.base = rng.unit() * 2;
  for (int i = 0; i < trees; ++i) {
    for (int l = 0; l < depth; ++l) {
      t.split_feature.push_back(static_cast<unsigned char>(rng.below(features)));
      t.split_value.push_back((rng.unit() - 0.5) * 20);
    }
    for (int m = 0; m < (1 << depth); ++m) t.leaf.push_back(static_cast<float>(rng.unit() - 0.5));
  }
  return t;
}

// A random model: quadratics, an ensemble of `trees` trees of depth `depth`, and narrow trees
// (5 of depth 2).
Regression some_regression(Rng& rng, int trees = 7, int depth = 3) {
  Regression r;
  r.arch = "sm_90";
  r.device = "NVIDIA H100 80GB HBM3";
  r.commit = "abc1234";
  r.date = "2026-11-25";
  r.min_bytes = 16 << 20;
  r.max_bytes = 2.0 * (1 << 30);
  for (ClassModel& m : r.cls) {
    m.samples = 1 + static_cast<long>(rng.below(5000));
    m.mape = rng.unit() * 0.2;
    for (int j = 0; j < kBaseFeatures; ++j) {
      m.lo[j] = -rng.unit() * 10;
      m.hi[j] = rng.unit() * 10;
    }
    for (double& c : m.coef) c = (rng.unit() - 0.3) * 3.0;
  }
  r.trees = some_trees(rng, trees, depth, kTreeFeatures);
  r.narrow = some_trees(rng, 5, 2, kNarrowFeatures);
  r.narrow_min_bytes = 30e6;
  r.narrow_max_bytes = 5e8;
  return r;
}

// The fake H100 with an architecture no model file names: the analytic model predicts,
// whatever files the build embeds.
DeviceInfo uncalibrated_gpu() {
  DeviceInfo d = xpose_test::fake_h100();
  d.arch = 1;
  return d;
}

std::vector<Choice> candidates(const Problem& p, const DeviceInfo& dev) {
  std::vector<Choice> c;
  enumerate_choices(p, dev, nullptr, &c);
  EXPECT_FALSE(c.empty()) << p.to_string();
  return c;
}

// Every candidate of 60 random problems of ranks 3-5 (extents 8-97, 8-byte elements) on the
// fake H100.
std::vector<Choice> random_candidates(Rng& rng) {
  const DeviceInfo dev = xpose_test::fake_h100();
  std::vector<Choice> choices;
  for (int i = 0; i < 60; ++i) {
    const int rank = 3 + static_cast<int>(rng.below(3));
    std::vector<int64_t> ext(rank);
    for (int64_t& e : ext) e = 8 + static_cast<int64_t>(rng.below(90));
    for (const Choice& c : candidates(problem(ext, rng.permutation(rank), 8), dev))
      choices.push_back(c);
  }
  return choices;
}

// Times of the models' own form: launch + ideal x exp(0.7 + 0.5 log inv_mwp + 0.1 log(analytic /
// ideal)^2).
double own_form_seconds(const Choice& c) {
  const BaseFeatures b = base_features(c);
  return c.terms.launch_s + c.terms.ideal_s * std::exp(0.7 + 0.5 * b[3] + 0.1 * b[14] * b[14]);
}

TEST(RegressionModel, SolverRecoversKnownCoefficients) {
  Rng rng(test_seed());
  QuadTerms truth;
  for (double& c : truth) c = 2.0 * rng.unit() - 1.0;
  truth[7] = 0;  // a feature constant on every row: its coefficient is 0, the constant takes it
  std::vector<QuadTerms> x;
  std::vector<double> y;
  for (int i = 0; i < 2000; ++i) {
    QuadTerms f;
    f[0] = 1;
    for (int j = 1; j < kQuadTerms; ++j) f[j] = std::pow(10.0, 3 * rng.unit() - 1);
    f[7] = 0.25;
    double t = 0;
    for (int j = 0; j < kQuadTerms; ++j) t += truth[j] * f[j];
    x.push_back(f);
    y.push_back(t);
  }
  QuadTerms got;
  ASSERT_TRUE(ridge_fit(x, y, 1e-14, &got));
  for (int j = 1; j < kQuadTerms; ++j)
    EXPECT_NEAR(got[j], truth[j], 1e-6) << quad_term_name(j);
  EXPECT_NEAR(got[0], truth[0] + 0.25 * truth[7], 1e-6);
  EXPECT_FALSE(ridge_fit({}, {}, 1e-3, &got));
  EXPECT_EQ(quad_term_name(0), "1");
  EXPECT_EQ(quad_term_name(1), "ideal");
  EXPECT_EQ(quad_term_name(kBaseFeatures + 1), "ideal*ideal");
  EXPECT_EQ(quad_term_name(kBaseFeatures + 2), "ideal*inv_eff_r");
  EXPECT_EQ(quad_term_name(kQuadTerms - 1), "analytic*analytic");
}

// Times that follow the model's own form are fitted back: 95 % of the predictions within 0.1 %,
// every one within 2 % (the ridge penalty leaves a few at 0.1-0.9 % on some random candidate
// sets: seed 30168082867, which CI drew, 0.17 %; seed 60742827 0.9 %).
TEST(RegressionModel, FitClassReproducesItsForm) {
  Rng rng(test_seed());
  std::vector<Choice> choices = random_candidates(rng);
  // The tile kernel's tiles (wide2d.cu's stand for one of them, at a factor).
  std::erase_if(choices, [](const Choice& c) { return c.schema != Schema::Tiled || c.narrow2d; });
  ASSERT_GT(choices.size(), 200u);
  std::vector<BaseFeatures> x;
  std::vector<double> seconds, z;
  for (const Choice& c : choices) {
    seconds.push_back(own_form_seconds(c));
    x.push_back(base_features(c));
    z.push_back(log_factor(seconds.back(), c.terms.launch_s, c.terms.ideal_s));
  }
  Regression r;
  ASSERT_TRUE(fit_class(x, z, 1e-9, &r.cls[model_class(Schema::Tiled)]));
  EXPECT_EQ(r.cls[model_class(Schema::Tiled)].samples, static_cast<long>(choices.size()));
  size_t close = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    const double ratio = r.screen(choices[i]) / seconds[i];
    EXPECT_NEAR(ratio, 1.0, 2e-2) << i;
    close += std::abs(ratio - 1.0) <= 1e-3;
  }
  EXPECT_GE(20 * close, 19 * choices.size());
}

// A step and a slope in two of 16 features, the others noise: the trees find both.
TEST(RegressionModel, TreesFitAStepAndASlope) {
  Rng rng(test_seed());
  std::vector<TreeFeatures> x(4000);
  std::vector<double> y;
  for (TreeFeatures& f : x) {
    for (double& v : f) v = 4 * rng.unit() - 2;
    f[kBaseFeatures] = static_cast<double>(rng.below(kModelClasses));  // the class: 0..4
    y.push_back(0.7 + 0.5 * (f[3] >= 0.25) + 0.2 * f[14] + 0.1 * (f[kBaseFeatures] == 2));
  }
  Trees r;
  ASSERT_TRUE(fit_trees(x, y, TreeFit{}, &r));
  EXPECT_EQ(r.count(), static_cast<size_t>(TreeFit{}.trees));
  EXPECT_EQ(r.depth, TreeFit{}.depth);
  // Off by the step only where a split candidate (a quantile of feature 3) misses 0.25; the
  // slope's 32 quantile steps are 0.025 apart.
  std::vector<double> err;
  for (size_t i = 0; i < x.size(); ++i) err.push_back(std::fabs(r.z(x[i]) - y[i]));
  std::sort(err.begin(), err.end());
  EXPECT_LT(err[err.size() / 2], 0.025);
  EXPECT_LT(err[err.size() * 95 / 100], 0.05);
  TreeFeatures probe{};
  probe[3] = 1;
  EXPECT_NEAR(r.z(probe), 1.2, 0.05);
  probe[3] = -1;
  EXPECT_NEAR(r.z(probe), 0.7, 0.05);
  // Nothing to fit, or parameters out of range: no model.
  EXPECT_FALSE(fit_trees(std::vector<TreeFeatures>{}, {}, TreeFit{}, &r));
  TreeFit deep;
  deep.depth = kMaxTreeDepth + 1;
  EXPECT_FALSE(fit_trees(x, y, deep, &r));
  EXPECT_EQ(tree_feature_name(0), std::string("ideal"));
  EXPECT_EQ(tree_feature_name(kBaseFeatures - 1), std::string("analytic"));
  EXPECT_EQ(tree_feature_name(kBaseFeatures), std::string("class"));
}

// Times that follow the form launch + ideal x exp(smooth function of the features) are fitted
// back on the planner's own candidates: predictions within a few percent.
TEST(RegressionModel, FitFollowsTimesOfTheModelsForm) {
  Rng rng(test_seed());
  const std::vector<Choice> choices = random_candidates(rng);
  ASSERT_GT(choices.size(), 300u);
  std::vector<TreeFeatures> x;
  std::vector<double> z, seconds;
  for (const Choice& c : choices) {
    seconds.push_back(own_form_seconds(c));
    x.push_back(tree_features(base_features(c), model_class(c.schema)));
    z.push_back(log_factor(seconds.back(), c.terms.launch_s, c.terms.ideal_s));
  }
  Trees t;
  ASSERT_TRUE(fit_trees(x, z, TreeFit{}, &t));
  std::vector<double> err;
  for (size_t i = 0; i < choices.size(); ++i)
    err.push_back(std::fabs(seconds_of(t.z(x[i]), choices[i].terms.launch_s,
                                       choices[i].terms.ideal_s) / seconds[i] - 1));
  std::sort(err.begin(), err.end());
  // The tail is the sparse far end of the squared term (analytic / ideal up to e^10): over 2000
  // seeds the median reached 0.015, the 90th percentile 0.061 and the 95th 0.096.
  EXPECT_LT(err[err.size() / 2], 0.02);
  EXPECT_LT(err[err.size() * 90 / 100], 0.08);
  EXPECT_LT(err[err.size() * 95 / 100], 0.125);
}

TEST(RegressionModel, FileRoundTrips) {
  Rng rng(test_seed());
  const Regression r = some_regression(rng);
  const std::string text = format_regression(r);
  Regression back;
  std::string why;
  ASSERT_TRUE(parse_regression(text, &back, &why)) << why << "\n" << text;
  EXPECT_EQ(back.arch, r.arch);
  EXPECT_EQ(back.device, r.device);
  EXPECT_EQ(back.commit, r.commit);
  EXPECT_EQ(back.date, r.date);
  EXPECT_EQ(back.min_bytes, r.min_bytes);
  EXPECT_EQ(back.max_bytes, r.max_bytes);
  for (int k = 0; k < kModelClasses; ++k) {
    const ClassModel &a = r.cls[k], &b = back.cls[k];
    EXPECT_EQ(b.samples, a.samples);
    EXPECT_NEAR(b.mape, a.mape, 1e-4);
    for (int j = 0; j < kBaseFeatures; ++j) {
      EXPECT_NEAR(b.lo[j], a.lo[j], 1e-8 * (1 + std::fabs(a.lo[j])));
      EXPECT_NEAR(b.hi[j], a.hi[j], 1e-8 * (1 + std::fabs(a.hi[j])));
    }
    for (int j = 0; j < kQuadTerms; ++j)
      EXPECT_NEAR(b.coef[j], a.coef[j], 1e-8 * (1 + std::fabs(a.coef[j])));
  }
  // Splits and the base exactly, leaves as floats exactly: the same predictions.
  EXPECT_EQ(back.trees.depth, r.trees.depth);
  EXPECT_EQ(back.trees.base, r.trees.base);
  EXPECT_EQ(back.trees.split_feature, r.trees.split_feature);
  EXPECT_EQ(back.trees.split_value, r.trees.split_value);
  EXPECT_EQ(back.trees.leaf, r.trees.leaf);
  EXPECT_EQ(back.narrow.depth, r.narrow.depth);
  EXPECT_EQ(back.narrow.base, r.narrow.base);
  EXPECT_EQ(back.narrow.split_feature, r.narrow.split_feature);
  EXPECT_EQ(back.narrow.split_value, r.narrow.split_value);
  EXPECT_EQ(back.narrow.leaf, r.narrow.leaf);
  EXPECT_EQ(back.narrow_min_bytes, r.narrow_min_bytes);
  EXPECT_EQ(back.narrow_max_bytes, r.narrow_max_bytes);
  EXPECT_TRUE(back.covers_narrow(1e8));
  EXPECT_FALSE(back.covers_narrow(1e7));
  EXPECT_EQ(format_regression(back), text);
  EXPECT_EQ(back.name(), "regression sm_90");
}

TEST(RegressionModel, MalformedFilesAreRejected) {
  Rng rng(test_seed());
  const std::string good = format_regression(some_regression(rng));
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  // The same after `anchor` (the comments above use the same words).
  const auto after = [&](const char* anchor, const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from, s.find(anchor));
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const auto in_tree = [&](const std::string& from, const std::string& to) {
    return after("\ntree ", from, to);
  };
  const std::string bad[] = {
      "",
      "placeholder: the real model comes from the H100 run\n" + good,
      replaced("xpose-model 4", "xpose-model 2"),
      replaced("xpose-model 4", "xpose-model 5"),
      replaced("xpose-model 4", "xpose-model 3"),        // no narrow lines in version 3
      replaced("narrow-features ideal", "narrow-features volume"),
      replaced(" tc raw\n", " raw\n"),                  // a narrow feature missing
      replaced(" ta tc raw\n", " ta\n"),                 // two narrow features missing
      replaced(" raw\n", " raw raw\n"),                  // one too many
      replaced("\nnarrow-tree ", "\nnarrow-tree 21 "),   // splits on feature 21 of 0..20
      replaced("narrow-depth 2", "narrow-depth 0"),
      replaced("narrow-bytes 30000000 ", "narrow-bytes 0 "),
      replaced("narrow-bytes 30000000 500000000", ""),
      replaced("\nnarrow-base ", "\nnarrow-base nan "),
      after("\nnarrow-tree ", " leaf ", " leaf 1 "),
      good.substr(0, good.find("\nnarrow-tree ") + 1),  // narrow features, no narrow tree
      good.substr(0, good.find("narrow-features")) + good.substr(good.find("narrow-depth")),
      replaced("arch sm_90", "arch hopper"),
      replaced("features ideal", "features volume"),
      replaced(" analytic\n", "\n"),
      replaced("class packed ", "class packed-split "),  // packed-split twice, packed missing
      replaced("class tiled", "class tilted"),
      after("\nclass ", " coef ", " coef nan "),
      after("\nclass ", " coef ", " coef 1 "),          // one coefficient too many
      replaced(" hi ", " hi 1 "),                        // a range number too many
      replaced(" samples ", " samples 0 x"),             // no samples
      replaced(" mape ", " mape x "),
      replaced("bytes ", "bytes 0 "),
      replaced("date ", "when "),
      replaced("depth 3", "depth 0"),
      replaced("depth 3", "depth 11"),
      replaced("\nbase ", "\nbase nan "),
      replaced("\ntree ", "\ntree 16 "),                 // splits on feature 16 of 0..15
      replaced("\ntree ", "\ntree 1.5 "),
      in_tree(" leaf ", " leaf nan "),
      in_tree(" leaf ", " leaf 1 "),                     // a leaf too many
      in_tree(" leaf ", " 0 0 leaf "),                   // a split too many
      good.substr(0, good.find("\ntree ") + 1),         // no tree
      replaced("depth 3\n", ""),                         // trees of no known depth
      good.substr(0, good.find("class rows")) + good.substr(good.find("depth 3")),  // no class
      good.substr(0, good.rfind("class")) + good.substr(good.find("depth 3")),  // a class missing
  };
  for (const std::string& text : bad) {
    Regression r;
    std::string why;
    EXPECT_FALSE(parse_regression(text, &r, &why)) << text.substr(0, 400);
    EXPECT_FALSE(why.empty());
  }
  // A set whose only file is rejected has no regression: the analytic model predicts, and
  // status() says why.
  ModelSet set;
  const std::string h100 = "NVIDIA H100 80GB HBM3", h200 = "NVIDIA H200";
  set.add("test placeholder", "# xpose model\nplaceholder\n");
  EXPECT_EQ(set.find(90, h100), nullptr);
  const std::string none = set.status(90, h100, 1e8);
  EXPECT_EQ(none.rfind("analytic", 0), 0u) << none;
  EXPECT_NE(none.find("test placeholder rejected"), std::string::npos) << none;
  set.add("first", good);
  set.add("second", replaced("commit abc1234", "commit def5678"));
  ASSERT_NE(set.find(90, h100), nullptr);
  EXPECT_EQ(set.find(90, h100)->commit, "def5678");  // a later file of the same arch and device
  EXPECT_EQ(set.find(80, h100), nullptr);
  EXPECT_EQ(set.status(90, h100, 1e8).rfind("regression sm_90 (second, " + h100, 0), 0u)
      << set.status(90, h100, 1e8);
  EXPECT_EQ(set.status(90, h100, 1e3).rfind("analytic (the tensor is outside", 0), 0u);
  // A device's own model (not general): its device takes it, every other device of the
  // architecture the general one; a general model of another device does not replace it.
  const auto on = [&](std::string text, const std::string& device) {
    return text.replace(text.find("device " + h100), 7 + h100.size(), "device " + device);
  };
  set.add("h200", on(replaced("commit abc1234", "commit 2002002"), h200), false);
  EXPECT_EQ(set.find(90, h200)->commit, "2002002");
  EXPECT_EQ(set.find(90, h100)->commit, "def5678");
  EXPECT_EQ(set.find(90, "NVIDIA H100 PCIe")->commit, "def5678");
  EXPECT_EQ(set.status(90, h200, 1e8).rfind("regression sm_90 (h200, " + h200, 0), 0u)
      << set.status(90, h200, 1e8);
  // Only device models: a device without one has none.
  ModelSet own;
  own.add("h200 only", on(good, h200), false);
  EXPECT_NE(own.find(90, h200), nullptr);
  EXPECT_EQ(own.find(90, h100), nullptr);
  EXPECT_EQ(own.status(90, h100, 1e8).rfind("analytic (no sm_90 model for " + h100, 0), 0u)
      << own.status(90, h100, 1e8);
  // XPOSE_MODEL_FILE's way: one model replaces every model of its architecture, for every device.
  set.add("override", replaced("commit abc1234", "commit 0000777"), true, true);
  EXPECT_EQ(set.find(90, h200)->commit, "0000777");
  EXPECT_EQ(set.find(90, h100)->commit, "0000777");
}

// Features of random problems on a fake H100: finite base features, the analytic model's
// inverse factors >= 1; without coefficients for the architecture the analytic model predicts.
TEST(RegressionModel, FeaturesOfRandomProblems) {
  const DeviceInfo dev = uncalibrated_gpu();
  Rng rng(test_seed());
  for (int iter = 0; iter < 200; ++iter) {
    const int rank = 1 + static_cast<int>(rng.below(8));
    std::vector<int64_t> ext(rank);
    for (int64_t& e : ext) e = 1 + static_cast<int64_t>(rng.below(rank <= 2 ? 3000 : 60));
    const Problem p = problem(ext, rng.permutation(rank), size_t{1} << rng.below(5));
    for (const Choice& c : candidates(p, dev)) {
      const CostTerms& t = c.terms;
      SCOPED_TRACE(p.to_string() + ": " + summarize(p, c));
      EXPECT_EQ(c.model, nullptr);
      // The planner may nudge a variant's rank (the banded walk: +0.1 %), and ranks narrow2d.cu's,
      // wide2d.cu's and cells.cu's tiles at their factors (kNarrow2dFactor, kWide2dL2Factor or
      // kWide2dFactor, kCellFactor), nothing more; the L2 band scales it by a factor of its own.
      EXPECT_EQ(c.factor != 1.0, c.narrow2d || c.cells);
      const double want = t.analytic_s * t.l2_factor * c.factor;
      EXPECT_NEAR(c.predicted, want, 0.01 * want);
      for (const double inv : {t.inv_eff_r, t.inv_eff_w, t.inv_mwp, t.inv_balance, t.inv_fill})
        EXPECT_GE(inv, 1.0 - 1e-12);
      EXPECT_GT(t.ideal_s, 0);
      EXPECT_EQ(t.bytes, static_cast<double>(p.bytes()));
      EXPECT_GT(t.span_r, 0);
      EXPECT_GT(t.span_w, 0);
      for (const double f : expand(base_features(c))) EXPECT_TRUE(std::isfinite(f));
    }
  }
}

// The ranking: the quadratic's kScreened best, by the blend, then the rest by the quadratic.
TEST(RegressionModel, TheBlendRanksTheQuadraticsBest) {
  std::vector<double> quad = {9, 1, 5, 1, 8, 7, 3, 2, 6, 4, 10, 0};
  std::vector<double> blend(quad.size(), 0.0);
  blend[1] = 5, blend[3] = 4, blend[7] = 4, blend[6] = 1, blend[11] = 3, blend[2] = 2;
  blend[9] = 3, blend[8] = 6, blend[4] = -1;  // 4, 6, 9: not screened, their blend unread
  ASSERT_EQ(kScreened, 4);
  const std::vector<size_t> order = regression_order(quad, blend);
  ASSERT_EQ(order.size(), quad.size());
  // The quadratic's best four: 11, 1, 3, 7 (0, 1, 1, 2); by the blend, ties in that order: 11
  // (3), 3 and 7 (4), 1 (5). Then the others by the quadratic: 6, 9, 2, 8, 5, 4, 0, 10.
  EXPECT_EQ(order, (std::vector<size_t>{11, 3, 7, 1, 6, 9, 2, 8, 5, 4, 0, 10}));
}

// The embedded H100 model ranks a tensor in its calibrated sizes; a 4 KB one, outside them, is
// ranked by the analytic model.
TEST(RegressionModel, EmbeddedModelCoversItsSizesOnly) {
  const DeviceInfo dev = xpose_test::fake_h100();
  ASSERT_NE(process_models().find(dev.arch, dev.name), nullptr)
      << process_models().status(dev.arch, dev.name, 1e8);
  for (const Choice& c : candidates(problem({512, 256, 128}, {2, 0, 1}, 8), dev))
    EXPECT_NE(c.model, nullptr);
  for (const Choice& c : candidates(problem({8, 8, 8}, {2, 0, 1}, 8), dev))
    EXPECT_EQ(c.model, nullptr);
}

// The H100 and the H200 (one architecture, 3.35 and 4.8 TB/s) each take the model calibrated on
// them; any other sm_90 device, and the fake H100 of these tests, the general sm_90.txt (the
// H100's).
TEST(RegressionModel, EmbeddedModelsByDevice) {
  if (std::getenv("XPOSE_MODEL_FILE")) GTEST_SKIP() << "XPOSE_MODEL_FILE replaces them";
  const ModelSet& set = process_models();
  const Regression* h100 = set.find(90, "NVIDIA H100 80GB HBM3");
  const Regression* h200 = set.find(90, "NVIDIA H200");
  ASSERT_NE(h100, nullptr) << set.status(90, "NVIDIA H100 80GB HBM3", 1e8);
  ASSERT_NE(h200, nullptr) << set.status(90, "NVIDIA H200", 1e8);
  EXPECT_EQ(h100->device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h200->device, "NVIDIA H200");
  EXPECT_EQ(set.find(90, xpose_test::fake_h100().name), h100);
  EXPECT_EQ(set.find(90, "NVIDIA H100 PCIe"), h100);
  EXPECT_NE(set.status(90, "NVIDIA H200", 1e8).find("embedded sm_90-h200.txt"), std::string::npos);
  // The H200's narrow trees were fitted on raw rows (session 37), the H100's before them.
  EXPECT_TRUE(h200->ranks_narrow() && h200->narrow_knows_raw());
  EXPECT_TRUE(h100->ranks_narrow() && !h100->narrow_knows_raw());
}

// With a model for the device's architecture the regression predicts, within the sizes it was
// calibrated on and never below twice the peak-bandwidth time; elsewhere the analytic model does.
TEST(RegressionModel, RegressionReplacesAnalyticPredictions) {
  const Problem p = problem({300, 200, 100}, {2, 0, 1}, 8);
  const DeviceInfo dev = uncalibrated_gpu();
  const std::vector<Choice> choices = candidates(p, dev);
  Regression r;
  r.arch = "sm_90";
  r.min_bytes = 1e6;
  r.max_bytes = 1e9;
  r.trees.depth = 1;  // one tree whose two leaves add nothing
  r.trees.split_feature = {0};
  r.trees.split_value = {0.0};
  r.trees.leaf = {0.0f, 0.0f};
  const auto constant = [&](double z) {  // quadratic and trees both z
    for (ClassModel& m : r.cls) {
      m.lo.fill(-100);
      m.hi.fill(100);
      m.coef[0] = z;
    }
    r.trees.base = z;
  };
  constant(std::log(3.0));  // three times the ideal time
  std::vector<Choice> same = choices;
  rank_by_regression(r, &same);
  ASSERT_EQ(same.size(), choices.size());
  for (const Choice& c : same) {  // wide2d's tile at its factor (Choice::factor)
    EXPECT_EQ(c.model, &r);
    EXPECT_NEAR(c.predicted, c.factor * (c.terms.launch_s + 3 * c.terms.ideal_s), 1e-15);
  }
  constant(-5);  // faster than peak: held at the peak time
  rank_by_regression(r, &same);
  for (const Choice& c : same)
    EXPECT_NEAR(c.predicted, c.factor * (c.terms.launch_s + 2 * c.terms.ideal_s), 1e-15);
}

// Files of version 3 (before the narrow trees) still load, without narrow trees: the planner
// then ranks narrow tiles by the analytic model.
TEST(RegressionModel, VersionThreeFilesLoadWithoutNarrowTrees) {
  Rng rng(test_seed());
  Regression r = some_regression(rng);
  r.narrow = Trees{};
  std::string text = format_regression(r);
  EXPECT_EQ(text.find("\nnarrow-"), std::string::npos);
  text.replace(text.find("xpose-model 4"), 13, "xpose-model 3");
  Regression back;
  std::string why;
  ASSERT_TRUE(parse_regression(text, &back, &why)) << why;
  EXPECT_FALSE(back.ranks_narrow());
  EXPECT_EQ(back.trees.leaf, r.trees.leaf);
}

// Files fitted before the `raw` narrow feature name the others only, and load; a tree there
// cannot split on `raw`.
TEST(RegressionModel, NarrowFilesBeforeRawLoad) {
  Rng rng(test_seed());
  Regression r = some_regression(rng);
  for (auto& f : r.narrow.split_feature)
    f = static_cast<unsigned char>(std::min<int>(f, kNarrowFeaturesBeforeRaw - 1));
  std::string text = format_regression(r);
  text.replace(text.find(" tc raw\n"), 8, " tc\n");
  Regression back;
  std::string why;
  ASSERT_TRUE(parse_regression(text, &back, &why)) << why;
  EXPECT_EQ(back.narrow.split_feature, r.narrow.split_feature);
  EXPECT_EQ(back.narrow.leaf, r.narrow.leaf);
  EXPECT_FALSE(back.narrow_knows_raw());
  EXPECT_TRUE(r.narrow_knows_raw());
  EXPECT_EQ(format_regression(back), text);  // written back as it was read
  const size_t at = text.find("\nnarrow-tree ") + 13;
  text.replace(at, text.find(' ', at) - at, std::to_string(kNarrowFeaturesBeforeRaw));
  EXPECT_FALSE(parse_regression(text, &back, &why));
  EXPECT_NE(why.find("feature"), std::string::npos) << why;
}

// A narrow candidate's features: its base features, its class, the logs of its runs and
// blocked extents, and whether its raw rows fit.
TEST(RegressionModel, NarrowFeaturesOfNarrowTiles) {
  const DeviceInfo dev = uncalibrated_gpu();
  for (const size_t elem : {size_t{1}, size_t{2}})
    for (const Choice& c : candidates(problem({301, 7, 210, 133}, {2, 0, 3, 1}, elem), dev)) {
      SCOPED_TRACE(summarize(problem({301, 7, 210, 133}, {2, 0, 3, 1}, elem), c));
      const NarrowFeatures x = narrow_features(c);
      const BaseFeatures b = base_features(c);
      for (int j = 0; j < kBaseFeatures; ++j) EXPECT_EQ(x[j], b[j]);
      EXPECT_EQ(x[kBaseFeatures], model_class(c.schema) + (c.narrow2d ? 5 : 0) +
                                      (c.wide2d ? 5 : 0));
      EXPECT_DOUBLE_EQ(x[kBaseFeatures + 1], std::log(static_cast<double>(c.in_run)));
      EXPECT_DOUBLE_EQ(x[kBaseFeatures + 2], std::log(static_cast<double>(c.out_run)));
      EXPECT_DOUBLE_EQ(x[kBaseFeatures + 3], std::log(static_cast<double>(c.ta)));
      EXPECT_DOUBLE_EQ(x[kBaseFeatures + 4], std::log(static_cast<double>(c.tc)));
      EXPECT_EQ(x[kBaseFeatures + 5], c.raw_rows ? 1 : 0);
      for (const double f : x) EXPECT_TRUE(std::isfinite(f));
    }
}

// The narrow trees rank the analytic order's kScreened best by their prediction and predict
// them; the others keep their place and analytic predictions.
TEST(RegressionModel, NarrowTreesRankTheAnalyticBest) {
  const Problem p = problem({24, 24, 24, 24, 24, 8}, {5, 4, 0, 2, 1, 3}, 1);
  std::vector<Choice> analytic = candidates(p, uncalibrated_gpu());
  ASSERT_GT(analytic.size(), static_cast<size_t>(kScreened) + 1);
  // One tree of depth 1 on the output run: the longer a candidate's output run, the faster.
  Regression r;
  r.arch = "sm_90";
  r.narrow.depth = 1;
  r.narrow.base = std::log(4.0);
  r.narrow.split_feature = {kBaseFeatures + 2};
  std::vector<double> out_runs;
  for (int i = 0; i < kScreened; ++i) out_runs.push_back(static_cast<double>(analytic[i].out_run));
  const double cut = *std::max_element(out_runs.begin(), out_runs.end());
  r.narrow.split_value = {std::log(cut)};
  r.narrow.leaf = {0.0f, -1.0f};  // at the longest: 4 / e x the ideal time
  std::vector<Choice> ranked = analytic;
  rank_narrow(r, &ranked);
  ASSERT_EQ(ranked.size(), analytic.size());
  std::vector<std::string> top_before, top_after;
  for (int i = 0; i < kScreened; ++i) {
    top_before.push_back(summarize(p, analytic[i]));
    top_after.push_back(summarize(p, ranked[i]));
    EXPECT_EQ(ranked[i].model, &r);
    const double z = ranked[i].out_run >= cut ? std::log(4.0) - 1 : std::log(4.0);
    EXPECT_NEAR(ranked[i].predicted,
                ranked[i].terms.launch_s + std::max(std::exp(z), 2.0) * ranked[i].terms.ideal_s,
                1e-15);
  }
  EXPECT_EQ(ranked.front().out_run, static_cast<int64_t>(cut));
  std::sort(top_before.begin(), top_before.end());
  std::sort(top_after.begin(), top_after.end());
  EXPECT_EQ(top_before, top_after);  // the same four
  for (size_t i = kScreened; i < ranked.size(); ++i) {
    EXPECT_EQ(summarize(p, ranked[i]), summarize(p, analytic[i]));
    EXPECT_EQ(ranked[i].model, nullptr);
    EXPECT_EQ(ranked[i].predicted, analytic[i].predicted);
  }
}

#endif  // XPOSE_HAVE_CUDA

}  // namespace
