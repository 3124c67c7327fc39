// The regression cost model: features, the tree ensemble and its fit, the model file and the
// process's models. Host C++ only. See model.hpp and docs/model.md.
#include "cuda/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
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
constexpr int kVersion = 3;

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

// One "class NAME samples N mape X" line (the words after "class").
bool parse_class(std::istringstream& in, Regression* r, std::array<bool, kModelClasses>* seen,
                 std::string* why) {
  std::string name;
  in >> name;
  int k = 0;
  while (k < kModelClasses && name != kClassNames[k]) ++k;
  if (k == kModelClasses) return *why = "unknown kernel class '" + name + "'", false;
  if ((*seen)[k]) return *why = "class '" + name + "' repeated", false;
  (*seen)[k] = true;
  ClassInfo& m = r->cls[k];
  double samples = 0;
  std::string what, extra;
  const bool ok = read_numbers(in, "samples", 1, &samples, &what) && samples >= 1 &&
                  read_numbers(in, "mape", 1, &m.mape, &what);
  m.samples = static_cast<long>(samples);
  if (ok && !(in >> extra)) return true;
  *why = "class " + name + ": " +
         (ok ? "unexpected '" + extra + "'" : what.empty() ? std::string("no samples") : what);
  return false;
}

// One "tree F V F V .. leaf L .." line (the words after "tree"): depth splits, 2^depth leaves.
bool parse_tree(std::istringstream& in, Regression* r, std::string* why) {
  const int depth = r->depth;
  std::string word;
  for (int l = 0; l < depth; ++l) {
    double f = 0, v = 0;
    if (!(in >> word) || !parse_number(word, &f) || f < 0 || f >= kFeatures || f != std::floor(f))
      return *why = "tree: split " + std::to_string(l + 1) + " names no feature", false;
    if (!(in >> word) || !parse_number(word, &v))
      return *why = "tree: split " + std::to_string(l + 1) + " has no finite value", false;
    r->split_feature.push_back(static_cast<unsigned char>(f));
    r->split_value.push_back(v);
  }
  const int leaves = 1 << depth;
  std::vector<double> values(leaves);
  if (!read_numbers(in, "leaf", leaves, values.data(), why)) return *why = "tree: " + *why, false;
  if (in >> word)
    return *why = "tree: more than " + std::to_string(leaves) + " leaves", false;
  for (const double v : values) r->leaf.push_back(static_cast<float>(v));
  return true;
}

// Split candidates of one feature, from its sorted training values: every distinct value when
// there are at most `bins` (the kernel class, the element size), else the distinct values at the
// quantiles q / bins; never the minimum (a split there would send every sample one way).
std::vector<double> split_edges(const std::vector<double>& sorted, int bins) {
  std::vector<double> distinct;
  for (const double v : sorted)
    if (distinct.empty() || v > distinct.back()) distinct.push_back(v);
  if (distinct.size() <= static_cast<size_t>(bins))
    return std::vector<double>(distinct.begin() + 1, distinct.end());
  std::vector<double> e;
  const size_t n = sorted.size();
  for (int q = 1; q < bins; ++q) {
    const double v = sorted[(static_cast<size_t>(q) * (n - 1)) / static_cast<size_t>(bins)];
    if (v > sorted.front() && (e.empty() || v > e.back())) e.push_back(v);
  }
  return e;
}

}  // namespace

const char* model_class_name(int k) { return k >= 0 && k < kModelClasses ? kClassNames[k] : "?"; }

int model_class(Schema s) {
  switch (s) {
    case Schema::Copy:
    case Schema::Rows: return 0;
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

Features model_features(const Choice& c) {
  const BaseFeatures b = base_features(c);
  Features x;
  std::copy(b.begin(), b.end(), x.begin());
  x[kBaseFeatures] = model_class(c.schema);
  return x;
}

const char* feature_name(int j) {
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

double Regression::eval(const Features& x) const {
  double z = base;
  const size_t n = trees(), leaves = size_t{1} << depth;
  const unsigned char* f = split_feature.data();
  const double* v = split_value.data();
  const float* out = leaf.data();
  for (size_t t = 0; t < n; ++t, f += depth, v += depth, out += leaves) {
    unsigned i = 0;
    for (int l = 0; l < depth; ++l) i |= static_cast<unsigned>(x[f[l]] >= v[l]) << l;
    z += out[i];
  }
  return z;
}

double Regression::predict(const Choice& c) const {
  return seconds_of(eval(model_features(c)), c.terms.launch_s, c.terms.ideal_s);
}

bool fit_trees(const std::vector<Features>& x, const std::vector<double>& y, const TreeFit& fit,
               Regression* r) {
  const size_t n = x.size();
  if (n == 0 || y.size() != n || fit.trees < 1 || fit.depth < 1 || fit.depth > kMaxTreeDepth ||
      fit.bins < 2 || fit.bins > 256)
    return false;
  // Each feature's split candidates, and every sample's bin: how many of them it reaches.
  std::vector<std::vector<double>> edges(kFeatures);
  std::vector<std::vector<unsigned char>> bin(kFeatures, std::vector<unsigned char>(n));
  for (int j = 0; j < kFeatures; ++j) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = x[i][j];
    std::sort(v.begin(), v.end());
    edges[j] = split_edges(v, fit.bins);
    for (size_t i = 0; i < n; ++i)
      bin[j][i] = static_cast<unsigned char>(
          std::upper_bound(edges[j].begin(), edges[j].end(), x[i][j]) - edges[j].begin());
  }
  double mean = 0;
  for (const double v : y) mean += v / static_cast<double>(n);
  std::vector<double> residual(n);
  for (size_t i = 0; i < n; ++i) residual[i] = y[i] - mean;
  r->depth = fit.depth;
  r->base = mean;
  r->split_feature.clear();
  r->split_value.clear();
  r->leaf.clear();
  const size_t leaves = size_t{1} << fit.depth;
  std::vector<unsigned> node(n);
  std::vector<double> count, sum;
  for (int t = 0; t < fit.trees; ++t) {
    std::fill(node.begin(), node.end(), 0u);
    for (int l = 0; l < fit.depth; ++l) {
      // The split (feature, edge) that most reduces the squared residual summed over the
      // level's nodes; none (every feature constant): a split no sample passes.
      const size_t nodes = size_t{1} << l;
      double best_gain = -1;
      int best_j = 0;
      size_t best_k = 0;
      for (int j = 0; j < kFeatures; ++j) {
        const size_t nb = edges[j].size() + 1;
        if (nb < 2) continue;
        count.assign(nodes * nb, 0.0);
        sum.assign(nodes * nb, 0.0);
        for (size_t i = 0; i < n; ++i) {
          const size_t at = node[i] * nb + bin[j][i];
          count[at] += 1;
          sum[at] += residual[i];
        }
        std::vector<double> gain(nb - 1, 0.0);
        for (size_t m = 0; m < nodes; ++m) {
          double cn = 0, cs = 0, tn = 0, ts = 0;
          for (size_t b = 0; b < nb; ++b) tn += count[m * nb + b], ts += sum[m * nb + b];
          for (size_t k = 0; k + 1 < nb; ++k) {
            cn += count[m * nb + k];
            cs += sum[m * nb + k];
            gain[k] += cs * cs / (cn + fit.l2) + (ts - cs) * (ts - cs) / (tn - cn + fit.l2);
          }
        }
        for (size_t k = 0; k + 1 < nb; ++k)
          if (gain[k] > best_gain) best_gain = gain[k], best_j = j, best_k = k;
      }
      const bool any = best_gain >= 0;
      r->split_feature.push_back(static_cast<unsigned char>(best_j));
      r->split_value.push_back(any ? edges[best_j][best_k] : std::numeric_limits<double>::max());
      if (any)
        for (size_t i = 0; i < n; ++i)
          node[i] |= static_cast<unsigned>(bin[best_j][i] > best_k) << l;
    }
    count.assign(leaves, 0.0);
    sum.assign(leaves, 0.0);
    for (size_t i = 0; i < n; ++i) count[node[i]] += 1, sum[node[i]] += residual[i];
    const size_t first = r->leaf.size();
    for (size_t m = 0; m < leaves; ++m)
      r->leaf.push_back(static_cast<float>(fit.rate * sum[m] / (count[m] + fit.l2)));
    for (size_t i = 0; i < n; ++i) residual[i] -= r->leaf[first + node[i]];
  }
  return true;
}

std::string format_regression(const Regression& r) {
  std::string s =
      "# xpose regression cost model (docs/model.md): seconds = launch + ideal x exp(F), F the\n"
      "# base plus one leaf of each tree; a tree's level l goes right (bit l of the leaf index)\n"
      "# when feature F_l >= V_l. samples: training candidates per kernel class; mape: held-out\n"
      "# mean |relative error|.\n";
  s += std::string(kMagic) + " " + std::to_string(kVersion) + "\n";
  char buf[96];
  std::snprintf(buf, sizeof buf, "bytes %.0f %.0f\n", r.min_bytes, r.max_bytes);
  s += "arch " + r.arch + "\ndevice " + r.device + "\ncommit " + r.commit + "\ndate " + r.date +
       "\n" + buf + "features";
  for (int j = 0; j < kFeatures; ++j) s += std::string(" ") + feature_name(j);
  s += "\n";
  for (int k = 0; k < kModelClasses; ++k) {
    std::snprintf(buf, sizeof buf, " samples %ld mape %.4f\n", r.cls[k].samples, r.cls[k].mape);
    s += std::string("class ") + kClassNames[k] + buf;
  }
  std::snprintf(buf, sizeof buf, "depth %d\nbase %.17g\n", r.depth, r.base);
  s += buf;
  const size_t leaves = size_t{1} << r.depth;
  for (size_t t = 0; t < r.trees(); ++t) {
    s += "tree";
    for (int l = 0; l < r.depth; ++l) {
      std::snprintf(buf, sizeof buf, " %d %.17g", r.split_feature[t * r.depth + l],
                    r.split_value[t * r.depth + l]);
      s += buf;
    }
    s += " leaf";
    for (size_t m = 0; m < leaves; ++m) {
      std::snprintf(buf, sizeof buf, " %.9g", static_cast<double>(r.leaf[t * leaves + m]));
      s += buf;
    }
    s += "\n";
  }
  return s;
}

bool parse_regression(const std::string& text, Regression* out, std::string* why) {
  Regression r;
  std::array<bool, kModelClasses> seen{};
  bool magic = false, named = false, sized = false, based = false;
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
      if (key != kMagic || rest != std::to_string(kVersion))
        return reject(std::string("expected '") + kMagic + " " + std::to_string(kVersion) + "'");
      magic = true;
    } else if (key == "arch") {
      if (arch_number(rest) == 0) return reject("arch '" + rest + "' is not sm_<number>");
      r.arch = rest;
    } else if (key == "device" || key == "commit" || key == "date") {
      (key == "device" ? r.device : key == "commit" ? r.commit : r.date) = rest;
    } else if (key == "bytes") {
      std::string lo, hi, extra;
      words >> lo >> hi;
      if (!parse_number(lo, &r.min_bytes) || !parse_number(hi, &r.max_bytes) ||
          r.min_bytes <= 0 || r.max_bytes < r.min_bytes || (words >> extra))
        return reject("expected 'bytes MIN MAX', 0 < MIN <= MAX");
      sized = true;
    } else if (key == "features") {
      std::string name;
      int j = 0;
      while (words >> name)
        if (j >= kFeatures || name != feature_name(j++))
          return reject("features differ from this library's (" + std::to_string(kFeatures) +
                        ", ideal inv_eff_r ... class): recalibrate");
      if (j != kFeatures) return reject("fewer features than this library's: recalibrate");
      named = true;
    } else if (key == "class") {
      std::string what;
      if (!parse_class(words, &r, &seen, &what)) return reject(what);
    } else if (key == "depth") {
      double d = 0;
      std::string word, extra;
      if (r.depth > 0) return reject("depth repeated");
      if (!(words >> word) || !parse_number(word, &d) || d < 1 || d > kMaxTreeDepth ||
          d != std::floor(d) || (words >> extra))
        return reject("expected 'depth D', D from 1 to " + std::to_string(kMaxTreeDepth));
      r.depth = static_cast<int>(d);
    } else if (key == "base") {
      std::string word, extra;
      if (!(words >> word) || !parse_number(word, &r.base) || (words >> extra))
        return reject("expected 'base Z', Z finite");
      based = true;
    } else if (key == "tree") {
      if (!named || r.depth == 0) return reject("tree before the features and depth lines");
      std::string what;
      if (!parse_tree(words, &r, &what)) return reject(what);
    } else {
      return reject("unknown key '" + key + "'");
    }
  }
  if (!magic) return *why = "empty: no '" + std::string(kMagic) + "' line", false;
  if (r.arch.empty()) return *why = "no arch line", false;
  if (!sized) return *why = "no bytes line", false;
  for (int k = 0; k < kModelClasses; ++k)
    if (!seen[k]) return *why = std::string("no line for class ") + kClassNames[k], false;
  if (!based) return *why = "no base line", false;
  if (r.trees() == 0) return *why = "no tree", false;
  *out = std::move(r);
  return true;
}

void ModelSet::add(const std::string& source, const std::string& text) {
  Regression r;
  std::string why;
  if (!parse_regression(text, &r, &why)) {
    notes_.push_back(source + " rejected: " + why);
    return;
  }
  const int arch = arch_number(r.arch);
  models_.erase(std::remove_if(models_.begin(), models_.end(),
                               [&](const Entry& e) { return e.arch == arch; }),
                models_.end());
  models_.push_back({arch, source, std::move(r)});
}

void ModelSet::note(std::string text) { notes_.push_back(std::move(text)); }

const Regression* ModelSet::find(int arch) const {
  for (const Entry& e : models_)
    if (e.arch == arch) return &e.model;
  return nullptr;
}

std::string ModelSet::status(int arch, double bytes) const {
  for (const Entry& e : models_) {
    if (e.arch != arch) continue;
    const std::string about = " (" + e.source + ", commit " + e.model.commit + ", " +
                              e.model.date + ")";
    if (e.model.covers(bytes)) return e.model.name() + about;
    char range[96];
    std::snprintf(range, sizeof range, "%.0f to %.0f bytes", e.model.min_bytes,
                  e.model.max_bytes);
    return "analytic (the tensor is outside the sizes " + e.model.name() + about +
           " was calibrated on, " + range + ")";
  }
  std::string s = arch > 0 ? "analytic (no model for sm_" + std::to_string(arch)
                           : std::string("analytic (the device's architecture is unknown");
  for (const std::string& n : notes_) s += "; " + n;
  return s + ")";
}

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
      m.add(std::string("embedded ") + e->name, e->text);
    if (!path.empty()) {
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      if (in.is_open())
        m.add("XPOSE_MODEL_FILE=" + path, text.str());
      else
        m.note("XPOSE_MODEL_FILE=" + path + ": cannot read it");
    }
    return m;
  }();
  return set;
}

void apply_regression(const Regression& r, Choice* c) {
  c->predicted = r.predict(*c);
  c->model = &r;
}

void apply_regression(const Regression* r, std::vector<Choice>* choices) {
  if (!r || choices->empty() || !r->covers(choices->front().terms.bytes)) return;
  for (Choice& c : *choices) apply_regression(*r, &c);
}

}  // namespace xpose::detail
