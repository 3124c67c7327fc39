// The regression cost model: features, the quadratic and the trees, the ranking, the model file
// and the process's models. Host C++ only. See model.hpp and docs/model.md.
#include "cuda/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cuda/planner.hpp"

namespace xpose::detail {

const char* const kBaseFeatureNames[kBaseFeatures] = {
    "ideal",  "inv_eff_r", "inv_eff_w", "inv_mwp", "inv_balance", "inv_fill", "issue",   "smem",
    "rounds", "tile",      "threads",   "span_r",  "span_w",      "elem",     "analytic"};

namespace {

constexpr const char* kClassNames[kModelClasses] = {"rows", "fvi-small", "tiled", "packed",
                                                    "packed-split"};
constexpr const char* kMagic = "xpose-model";
// Version 4 added the narrow trees; files of version 3 (none) still load.
constexpr int kVersion = 4;
constexpr int kOldestVersion = 3;

constexpr const char* kNarrowExtraNames[] = {"class", "in_run", "out_run", "ta", "tc", "raw"};

// "sm_90" -> 90; 0 for anything else.
int arch_number(const std::string& arch) {
  if (arch.size() < 4 || arch.size() > 6 || arch.compare(0, 3, "sm_") != 0 ||
      arch.find_first_not_of("0123456789", 3) != std::string::npos)
    return 0;
  return std::atoi(arch.c_str() + 3);
}

bool parse_number(const std::string& word, double* v) {
  char* end = nullptr;
  *v = std::strtod(word.c_str(), &end);
  return !word.empty() && end == word.c_str() + word.size() && std::isfinite(*v);
}

// Reads `key` then `n` finite numbers into `out`; the message names what is missing.
bool read_numbers(std::istringstream& in, const char* key, int n, double* out, std::string* why) {
  std::string word;
  if (!(in >> word) || word != key) return *why = std::string("expected '") + key + "'", false;
  for (int j = 0; j < n; ++j)
    if (!(in >> word) || !parse_number(word, &out[j]))
      return *why = std::string(key) + ": number " + std::to_string(j + 1) + " of " +
                    std::to_string(n) + " missing or not finite",
             false;
  return true;
}

// One "class NAME samples N mape X lo .. hi .. coef .." line (the words after "class").
bool parse_class(std::istringstream& in, Regression* r, std::array<bool, kModelClasses>* seen,
                 std::string* why) {
  std::string name;
  in >> name;
  int k = 0;
  while (k < kModelClasses && name != kClassNames[k]) ++k;
  if (k == kModelClasses) return *why = "unknown kernel class '" + name + "'", false;
  if ((*seen)[k]) return *why = "class '" + name + "' repeated", false;
  (*seen)[k] = true;
  ClassModel& m = r->cls[k];
  double samples = 0;
  std::string what;
  const bool ok = read_numbers(in, "samples", 1, &samples, &what) && samples >= 1 &&
                  read_numbers(in, "mape", 1, &m.mape, &what) &&
                  read_numbers(in, "lo", kBaseFeatures, m.lo.data(), &what) &&
                  read_numbers(in, "hi", kBaseFeatures, m.hi.data(), &what) &&
                  read_numbers(in, "coef", kQuadTerms, m.coef.data(), &what);
  m.samples = static_cast<long>(samples);
  std::string extra;
  if (ok && !(in >> extra)) return true;
  *why = "class " + name + ": " +
         (ok ? "more than " + std::to_string(kQuadTerms) + " coefficients"
             : what.empty() ? std::string("no samples") : what);
  return false;
}

// One "tree F V F V .. leaf L .." line (the words after "tree"): depth splits, 2^depth leaves.
bool parse_tree(std::istringstream& in, int features, Trees* t, std::string* why) {
  const int depth = t->depth;
  std::string word;
  for (int l = 0; l < depth; ++l) {
    double f = 0, v = 0;
    if (!(in >> word) || !parse_number(word, &f) || f < 0 || f >= features ||
        f != std::floor(f))
      return *why = "tree: split " + std::to_string(l + 1) + " names no feature", false;
    if (!(in >> word) || !parse_number(word, &v))
      return *why = "tree: split " + std::to_string(l + 1) + " has no finite value", false;
    t->split_feature.push_back(static_cast<unsigned char>(f));
    t->split_value.push_back(v);
  }
  const int leaves = 1 << depth;
  std::vector<double> values(leaves);
  if (!read_numbers(in, "leaf", leaves, values.data(), why)) return *why = "tree: " + *why, false;
  if (in >> word)
    return *why = "tree: more than " + std::to_string(leaves) + " leaves", false;
  for (const double v : values) t->leaf.push_back(static_cast<float>(v));
  return true;
}

void append_numbers(std::string* s, const char* key, const double* v, int n) {
  *s += std::string(" ") + key;
  char buf[32];
  for (int j = 0; j < n; ++j) {
    std::snprintf(buf, sizeof buf, " %.9g", v[j]);
    *s += buf;
  }
}

}  // namespace

const char* model_class_name(int k) { return k >= 0 && k < kModelClasses ? kClassNames[k] : "?"; }

int model_class(Schema s) {
  switch (s) {
    case Schema::Copy:
    case Schema::Rows:
    case Schema::Direct: return 0;
    case Schema::FviSmall: return 1;
    case Schema::Tiled: return 2;
    case Schema::Packed: return 3;
    case Schema::PackedSplit: return 4;
  }
  return 0;
}

BaseFeatures base_features(const Choice& c) {
  const CostTerms& t = c.terms;
  const double mem =
      t.ideal_s * (t.inv_eff_r + t.inv_eff_w) * t.inv_mwp * t.inv_balance * t.inv_fill;
  return {std::log(t.ideal_s),
          std::log(t.inv_eff_r),
          std::log(t.inv_eff_w),
          std::log(t.inv_mwp),
          std::log(t.inv_balance),
          std::log(t.inv_fill),
          std::log1p(t.issue_s / mem),
          std::log1p(t.smem_s / mem),
          std::log(std::max(t.rounds, 1.0)),
          std::log(std::max<double>(static_cast<double>(c.tile_volume), 1.0)),
          std::log(std::max(c.threads, 32)),
          std::log(std::max(t.span_r, 1.0)),
          std::log(std::max(t.span_w, 1.0)),
          std::log(t.elem),
          std::log(t.analytic_s / t.ideal_s)};
}

QuadTerms expand(const BaseFeatures& b) {
  QuadTerms x{};
  int j = 0;
  x[j++] = 1;
  for (const double v : b) x[j++] = v;
  for (int i = 0; i < kBaseFeatures; ++i)
    for (int k = i; k < kBaseFeatures; ++k) x[j++] = b[i] * b[k];
  return x;
}

std::string quad_term_name(int j) {
  if (j == 0) return "1";
  if (j <= kBaseFeatures) return kBaseFeatureNames[j - 1];
  j -= kBaseFeatures + 1;
  for (int i = 0; i < kBaseFeatures; ++i) {
    if (j < kBaseFeatures - i)
      return std::string(kBaseFeatureNames[i]) + "*" + kBaseFeatureNames[i + j];
    j -= kBaseFeatures - i;
  }
  return "?";
}

double ClassModel::z(const BaseFeatures& features) const {
  BaseFeatures b = features;
  for (int j = 0; j < kBaseFeatures; ++j) b[j] = std::clamp(b[j], lo[j], hi[j]);
  // coef . expand(b), without materializing the expansion (planning runs this per candidate).
  // Unrolled whole, in the loops' order of summation (the same sums, bit for bit): 38 % fewer
  // instructions here, 3.5 % of heuristic planning's (callgrind, 1000 bench-host problems).
  const double* w = coef.data();
  double z = *w++;
#pragma GCC unroll 16
  for (int k = 0; k < kBaseFeatures; ++k) z += *w++ * b[k];
#pragma GCC unroll 16
  for (int i = 0; i < kBaseFeatures; ++i) {
    double row = 0;
#pragma GCC unroll 16
    for (int k = i; k < kBaseFeatures; ++k) row += *w++ * b[k];
    z += row * b[i];
  }
  return z;
}

int narrow_class(const Choice& c) {
  if (c.cells) return model_class(c.schema) + 20;
  if (c.thin) return model_class(c.schema) + 15;
  return model_class(c.schema) + (c.narrow2d ? 5 : 0) + (c.wide2d ? 5 : 0);
}

NarrowFeatures narrow_features(const BaseFeatures& b, int cls, double in_run, double out_run,
                               double ta, double tc, bool raw) {
  NarrowFeatures x;
  std::copy(b.begin(), b.end(), x.begin());
  x[kBaseFeatures] = cls;
  x[kBaseFeatures + 1] = std::log(std::max(in_run, 1.0));
  x[kBaseFeatures + 2] = std::log(std::max(out_run, 1.0));
  x[kBaseFeatures + 3] = std::log(std::max(ta, 1.0));
  x[kBaseFeatures + 4] = std::log(std::max(tc, 1.0));
  x[kBaseFeatures + 5] = raw ? 1 : 0;
  return x;
}

NarrowFeatures narrow_features(const Choice& c) {
  return narrow_features(base_features(c), narrow_class(c), static_cast<double>(c.in_run),
                         static_cast<double>(c.out_run), static_cast<double>(c.ta),
                         static_cast<double>(c.tc), c.raw_rows);
}

const char* narrow_feature_name(int j) {
  if (j >= 0 && j < kBaseFeatures) return kBaseFeatureNames[j];
  return j >= kBaseFeatures && j < kNarrowFeatures ? kNarrowExtraNames[j - kBaseFeatures] : "?";
}

TreeFeatures tree_features(const BaseFeatures& b, int cls) {
  TreeFeatures x;
  std::copy(b.begin(), b.end(), x.begin());
  x[kBaseFeatures] = cls;
  return x;
}

const char* tree_feature_name(int j) {
  return j >= 0 && j < kBaseFeatures ? kBaseFeatureNames[j] : j == kBaseFeatures ? "class" : "?";
}

double log_factor(double seconds, double launch_s, double ideal_s) {
  return std::log(std::max(seconds - launch_s, 0.5 * seconds) / ideal_s);
}

double seconds_of(double z, double launch_s, double ideal_s) {
  // 30 only keeps a corrupt file from overflowing.
  const double factor = std::isfinite(z) ? std::max(std::exp(std::min(z, 30.0)), 2.0) : 2.0;
  return launch_s + ideal_s * factor;
}

namespace {

// The leaves of the trees, of depth D (a constant: the tests unrolled) or, for D = 0, t.depth.
template <int D>
double leaf_sum(const Trees& t, const double* x) {
  const int depth = D > 0 ? D : t.depth;
  double z = 0;
  const size_t n = t.count();
  const unsigned char* f = t.split_feature.data();
  const double* v = t.split_value.data();
  const float* out = t.leaf.data();
  for (size_t i = 0; i < n; ++i, f += depth, v += depth, out += size_t{1} << depth) {
    unsigned k = 0;
    for (int l = 0; l < depth; ++l) k |= static_cast<unsigned>(x[f[l]] >= v[l]) << l;
    z += out[k];
  }
  return z;
}

}  // namespace

double Trees::z(const double* x) const {
  switch (depth) {  // the depths calibrate grows by default and near it, unrolled
    case 5: return base + leaf_sum<5>(*this, x);
    case 6: return base + leaf_sum<6>(*this, x);
    case 7: return base + leaf_sum<7>(*this, x);
    default: return base + leaf_sum<0>(*this, x);
  }
}

double Regression::blend_z(const BaseFeatures& b, int k) const {
  return (1 - kTreeWeight) * quad_z(b, k) + kTreeWeight * trees.z(tree_features(b, k));
}

double Regression::screen(const BaseFeatures& b, int k, double launch_s, double ideal_s) const {
  return seconds_of(quad_z(b, k), launch_s, ideal_s);
}

double Regression::predict(const BaseFeatures& b, int k, double launch_s, double ideal_s) const {
  return seconds_of(blend_z(b, k), launch_s, ideal_s);
}

// A candidate's kernel factor (Choice::factor) scales what the regression, fitted on the tile
// kernel, predicts for its tile.
double Regression::screen(const Choice& c) const {
  return c.factor *
         screen(base_features(c), model_class(c.schema), c.terms.launch_s, c.terms.ideal_s);
}

double Regression::predict(const Choice& c) const {
  return c.factor *
         predict(base_features(c), model_class(c.schema), c.terms.launch_s, c.terms.ideal_s);
}

double Regression::predict_narrow(const Choice& c) const {
  return predict_narrow(narrow_features(c), c.terms.launch_s, c.terms.ideal_s);
}

std::vector<size_t> regression_order(const std::vector<double>& quad,
                                     const std::vector<double>& blend) {
  std::vector<size_t> order(quad.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return quad[a] < quad[b]; });
  const auto top = order.begin() + std::min<size_t>(kScreened, order.size());
  std::stable_sort(order.begin(), top, [&](size_t a, size_t b) { return blend[a] < blend[b]; });
  return order;
}

void rank_by_regression(const Regression& r, std::vector<Choice>* choices) {
  // Every candidate blended (heuristic planning's best_choice blends only the screened ones);
  // regression_order reads the screened ones' blends only.
  const size_t n = choices->size();
  std::vector<double> quad(n), blend(n);
  for (size_t i = 0; i < n; ++i) {
    quad[i] = r.screen((*choices)[i]);
    blend[i] = r.predict((*choices)[i]);
  }
  std::vector<Choice> ranked;
  ranked.reserve(n);
  const std::vector<size_t> order = regression_order(quad, blend);
  for (size_t k = 0; k < n; ++k) {
    ranked.push_back((*choices)[order[k]]);
    ranked.back().predicted =
        k < static_cast<size_t>(kScreened) ? blend[order[k]] : quad[order[k]];
    ranked.back().model = &r;
  }
  *choices = std::move(ranked);
}

void rank_narrow(const Regression& r, std::vector<Choice>* choices) {
  const size_t n = std::min<size_t>(kScreened, choices->size());
  std::vector<double> rank(n), z(n);
  for (size_t i = 0; i < n; ++i) {
    rank[i] = static_cast<double>(i);
    z[i] = r.predict_narrow((*choices)[i]);
  }
  const std::vector<size_t> order = regression_order(rank, z);
  std::vector<Choice> top;
  for (const size_t i : order) {
    top.push_back((*choices)[i]);
    top.back().predicted = z[i];
    top.back().model = &r;
  }
  std::copy(top.begin(), top.end(), choices->begin());
}

namespace {

void append_trees(std::string* s, const char* prefix, const Trees& t) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%sdepth %d\n%sbase %.17g\n", prefix, t.depth, prefix, t.base);
  *s += buf;
  const size_t leaves = size_t{1} << t.depth;
  for (size_t i = 0; i < t.count(); ++i) {
    *s += std::string(prefix) + "tree";
    for (int l = 0; l < t.depth; ++l) {
      std::snprintf(buf, sizeof buf, " %d %.17g", t.split_feature[i * t.depth + l],
                    t.split_value[i * t.depth + l]);
      *s += buf;
    }
    *s += " leaf";
    for (size_t m = 0; m < leaves; ++m) {
      std::snprintf(buf, sizeof buf, " %.9g", static_cast<double>(t.leaf[i * leaves + m]));
      *s += buf;
    }
    *s += "\n";
  }
}

}  // namespace

std::string format_regression(const Regression& r) {
  std::string s =
      "# xpose regression cost model (docs/model.md): seconds = launch + ideal x exp(z). Per\n"
      "# kernel class a quadratic: z = coef . (1, the base features clamped to lo..hi, their\n"
      "# products); it ranks every candidate. Trees: z = base + one leaf per tree, a tree's\n"
      "# level l going right (bit l of the leaf index) when feature F_l >= V_l (features: the\n"
      "# base ones, then the class as 0..4); the blend of both ranks the quadratic's best few.\n"
      "# narrow-*: the trees that rank the analytic model's best few candidates of 1- and 2-byte\n"
      "# elements, over the narrow-features line's features.\n"
      "# samples: candidates fitted on; mape: held-out mean |relative error| of the model's\n"
      "# predictions.\n";
  s += std::string(kMagic) + " " + std::to_string(kVersion) + "\n";
  char buf[96];
  std::snprintf(buf, sizeof buf, "bytes %.0f %.0f\n", r.min_bytes, r.max_bytes);
  s += "arch " + r.arch + "\ndevice " + r.device + "\ncommit " + r.commit + "\ndate " + r.date +
       "\n" + buf + "features";
  for (const char* f : kBaseFeatureNames) s += std::string(" ") + f;
  s += "\n";
  for (int k = 0; k < kModelClasses; ++k) {
    const ClassModel& m = r.cls[k];
    std::snprintf(buf, sizeof buf, " samples %ld mape %.4f", m.samples, m.mape);
    s += std::string("class ") + kClassNames[k] + buf;
    append_numbers(&s, "lo", m.lo.data(), kBaseFeatures);
    append_numbers(&s, "hi", m.hi.data(), kBaseFeatures);
    append_numbers(&s, "coef", m.coef.data(), kQuadTerms);
    s += "\n";
  }
  append_trees(&s, "", r.trees);
  if (r.ranks_narrow()) {
    s += "narrow-features";
    for (int j = 0; j < r.narrow_named; ++j) s += std::string(" ") + narrow_feature_name(j);
    std::snprintf(buf, sizeof buf, "\nnarrow-bytes %.0f %.0f\n", r.narrow_min_bytes,
                  r.narrow_max_bytes);
    s += buf;
    append_trees(&s, "narrow-", r.narrow);
  }
  return s;
}

bool parse_regression(const std::string& text, Regression* out, std::string* why) {
  Regression r;
  std::array<bool, kModelClasses> seen{};
  bool magic = false, named = false, sized = false, based = false, narrow_sized = false,
       narrow_based = false;
  int version = 0;
  int narrow_named = 0;  // the narrow features the file names (0: no narrow-features line yet)
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  const auto reject = [&](const std::string& what) {
    *why = "line " + std::to_string(number) + ": " + what;
    return false;
  };
  while (std::getline(lines, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos || line[0] == '#') continue;
    std::istringstream in(line);
    std::string key, rest;
    in >> key;
    std::getline(in >> std::ws, rest);
    std::istringstream words(rest);
    if (key == "placeholder") return reject("a placeholder, not a model");
    if (!magic) {
      for (int v = kOldestVersion; v <= kVersion; ++v)
        if (key == kMagic && rest == std::to_string(v)) version = v;
      if (version == 0)
        return reject(std::string("expected '") + kMagic + " " + std::to_string(kVersion) + "'");
      magic = true;
    } else if (key == "arch") {
      if (arch_number(rest) == 0) return reject("arch '" + rest + "' is not sm_<number>");
      r.arch = rest;
    } else if (key == "device" || key == "commit" || key == "date") {
      (key == "device" ? r.device : key == "commit" ? r.commit : r.date) = rest;
    } else if (key == "bytes" || (key == "narrow-bytes" && version >= 4)) {
      const bool narrow = key == "narrow-bytes";
      double& lo_bytes = narrow ? r.narrow_min_bytes : r.min_bytes;
      double& hi_bytes = narrow ? r.narrow_max_bytes : r.max_bytes;
      std::string lo, hi, extra;
      words >> lo >> hi;
      if (!parse_number(lo, &lo_bytes) || !parse_number(hi, &hi_bytes) || lo_bytes <= 0 ||
          hi_bytes < lo_bytes || (words >> extra))
        return reject("expected '" + key + " MIN MAX', 0 < MIN <= MAX");
      (narrow ? narrow_sized : sized) = true;
    } else if (key == "features") {
      std::string name;
      int j = 0;
      while (words >> name)
        if (j >= kBaseFeatures || name != kBaseFeatureNames[j++])
          return reject("features differ from this library's (" + std::to_string(kBaseFeatures) +
                        ", ideal inv_eff_r ...): recalibrate");
      if (j != kBaseFeatures) return reject("fewer features than this library's: recalibrate");
      named = true;
    } else if (key == "class") {
      if (!named) return reject("class before the features line");
      std::string what;
      if (!parse_class(words, &r, &seen, &what)) return reject(what);
    } else if (key == "narrow-features" && version >= 4) {
      std::string name;
      int j = 0;
      while (words >> name)
        if (j >= kNarrowFeatures || name != narrow_feature_name(j++))
          return reject("narrow features differ from this library's: recalibrate");
      // Files fitted before `raw` name one feature fewer; their trees cannot split on it.
      if (j != kNarrowFeatures && j != kNarrowFeaturesBeforeRaw)
        return reject("fewer narrow features than this library's");
      narrow_named = r.narrow_named = j;
    } else if (key == "depth" || key == "base" || key == "tree" ||
               ((key == "narrow-depth" || key == "narrow-base" || key == "narrow-tree") &&
                version >= 4)) {
      const bool narrow = key.compare(0, 7, "narrow-") == 0;
      const std::string what = narrow ? key.substr(7) : key;
      Trees& t = narrow ? r.narrow : r.trees;
      if (narrow && !narrow_named) return reject(key + " before the narrow-features line");
      if (what == "depth") {
        double d = 0;
        std::string word, extra;
        if (t.depth > 0) return reject(key + " repeated");
        if (!(words >> word) || !parse_number(word, &d) || d < 1 || d > kMaxTreeDepth ||
            d != std::floor(d) || (words >> extra))
          return reject("expected '" + key + " D', D from 1 to " + std::to_string(kMaxTreeDepth));
        t.depth = static_cast<int>(d);
      } else if (what == "base") {
        std::string word, extra;
        if (!(words >> word) || !parse_number(word, &t.base) || (words >> extra))
          return reject("expected '" + key + " Z', Z finite");
        (narrow ? narrow_based : based) = true;
      } else {
        if (t.depth == 0)
          return reject(key + " before the " + (narrow ? "narrow-" : "") + "depth line");
        std::string why_tree;
        if (!parse_tree(words, narrow ? narrow_named : kTreeFeatures, &t, &why_tree))
          return reject(why_tree);
      }
    } else {
      return reject("unknown key '" + key + "'");
    }
  }
  if (!magic) return *why = "empty: no '" + std::string(kMagic) + "' line", false;
  if (r.arch.empty()) return *why = "no arch line", false;
  if (!sized) return *why = "no bytes line", false;
  for (int k = 0; k < kModelClasses; ++k)
    if (!seen[k]) return *why = std::string("no coefficients for class ") + kClassNames[k], false;
  if (!based) return *why = "no base line", false;
  if (r.trees.count() == 0) return *why = "no tree", false;
  if (narrow_named && (!narrow_sized || !narrow_based || r.narrow.count() == 0))
    return *why = "narrow-features without narrow-bytes, narrow-base and narrow trees", false;
  *out = std::move(r);
  return true;
}

void ModelSet::add(const std::string& source, const std::string& text, bool general,
                   bool override_arch) {
  Regression r;
  std::string why;
  if (!parse_regression(text, &r, &why)) {
    notes_.push_back(source + " rejected: " + why);
    return;
  }
  const int arch = arch_number(r.arch);
  models_.erase(std::remove_if(models_.begin(), models_.end(),
                               [&](const Entry& e) {
                                 return e.arch == arch &&
                                        (override_arch || e.model.device == r.device);
                               }),
                models_.end());
  models_.push_back({arch, general || override_arch, source, std::move(r)});
}

void ModelSet::note(std::string text) { notes_.push_back(std::move(text)); }

const ModelSet::Entry* ModelSet::entry(int arch, const std::string& device) const {
  const Entry* general = nullptr;
  for (const Entry& e : models_) {
    if (e.arch != arch) continue;
    if (e.model.device == device) return &e;
    if (e.general && !general) general = &e;
  }
  return general;
}

const Regression* ModelSet::find(int arch, const std::string& device) const {
  const Entry* e = entry(arch, device);
  return e ? &e->model : nullptr;
}

std::string ModelSet::status(int arch, const std::string& device, double bytes) const {
  if (const Entry* e = entry(arch, device)) {
    const std::string about = " (" + e->source + ", " + e->model.device + ", commit " +
                              e->model.commit + ", " + e->model.date + ")";
    if (e->model.covers(bytes)) return e->model.name() + about;
    char range[96];
    std::snprintf(range, sizeof range, "%.0f to %.0f bytes", e->model.min_bytes,
                  e->model.max_bytes);
    return "analytic (the tensor is outside the sizes " + e->model.name() + about +
           " was calibrated on, " + range + ")";
  }
  const bool others = std::any_of(models_.begin(), models_.end(),
                                  [&](const Entry& e) { return e.arch == arch; });
  std::string s = arch <= 0 ? std::string("analytic (the device's architecture is unknown")
                  : others  ? "analytic (no sm_" + std::to_string(arch) + " model for " + device
                            : "analytic (no model for sm_" + std::to_string(arch);
  for (const std::string& n : notes_) s += "; " + n;
  return s + ")";
}

// An embedded file named sm_XY.txt is its architecture's general model; sm_XY-<name>.txt is
// its device's only.
static bool general_file(const std::string& name) { return name.find('-') == std::string::npos; }

const ModelSet& process_models() {
  static const ModelSet set = [] {
    ModelSet m;
    const char* env = std::getenv("XPOSE_MODEL_FILE");
    const std::string path = env ? env : "";
    if (path == "none") {
      m.note("XPOSE_MODEL_FILE=none");
      return m;
    }
    for (const EmbeddedModel* e = kEmbeddedModels; e->name; ++e)
      m.add(std::string("embedded ") + e->name, e->text, general_file(e->name));
    if (!path.empty()) {
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      if (in.is_open())
        m.add("XPOSE_MODEL_FILE=" + path, text.str(), true, true);
      else
        m.note("XPOSE_MODEL_FILE=" + path + ": cannot read it");
    }
    return m;
  }();
  return set;
}

}  // namespace xpose::detail
