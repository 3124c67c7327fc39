// The regression cost model: features, the fit, the coefficients file and the process's models.
// Host C++ only. See model.hpp and docs/model.md.
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
constexpr int kVersion = 2;

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
                  read_numbers(in, "coef", kFeatures, m.coef.data(), &what);
  m.samples = static_cast<long>(samples);
  std::string extra;
  if (ok && !(in >> extra)) return true;
  *why = "class " + name + ": " +
         (ok ? "more than " + std::to_string(kFeatures) + " coefficients"
             : what.empty() ? std::string("no samples") : what);
  return false;
}

// Solves a x = b for symmetric positive definite a (n x n, row-major); false when a pivot is not
// positive (singular or indefinite).
bool cholesky_solve(std::vector<double> a, int n, std::vector<double>* b) {
  for (int j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (int k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 1e-300)) return false;
    a[j * n + j] = std::sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (int k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / a[j * n + j];
    }
  }
  std::vector<double>& x = *b;
  for (int i = 0; i < n; ++i) {  // L y = b
    for (int k = 0; k < i; ++k) x[i] -= a[i * n + k] * x[k];
    x[i] /= a[i * n + i];
  }
  for (int i = n - 1; i >= 0; --i) {  // L^T x = y
    for (int k = i + 1; k < n; ++k) x[i] -= a[k * n + i] * x[k];
    x[i] /= a[i * n + i];
  }
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

Features expand(const BaseFeatures& b) {
  Features x{};
  int j = 0;
  x[j++] = 1;
  for (const double v : b) x[j++] = v;
  for (int i = 0; i < kBaseFeatures; ++i)
    for (int k = i; k < kBaseFeatures; ++k) x[j++] = b[i] * b[k];
  return x;
}

std::string feature_name(int j) {
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

double Regression::predict(const Choice& c) const {
  const ClassModel& m = cls[model_class(c.schema)];
  BaseFeatures b = base_features(c);
  for (int j = 0; j < kBaseFeatures; ++j) b[j] = std::clamp(b[j], m.lo[j], m.hi[j]);
  // coef . expand(b), without materializing the expansion (planning runs this per candidate).
  const double* w = m.coef.data();
  double z = *w++;
  for (const double v : b) z += *w++ * v;
  for (int i = 0; i < kBaseFeatures; ++i) {
    double row = 0;
    for (int k = i; k < kBaseFeatures; ++k) row += *w++ * b[k];
    z += row * b[i];
  }
  // The factor over the ideal time is at least 2 (read and write at peak); 30 only keeps a
  // corrupt coefficient from overflowing.
  const double factor = std::isfinite(z) ? std::max(std::exp(std::min(z, 30.0)), 2.0) : 2.0;
  return c.terms.launch_s + c.terms.ideal_s * factor;
}

bool ridge_fit(const std::vector<Features>& x, const std::vector<double>& y, double ridge,
               Features* coef) {
  constexpr int p = kFeatures;
  const double n = static_cast<double>(x.size());
  if (x.empty()) return false;
  Features mean{}, sd{};
  for (const Features& row : x)
    for (int j = 1; j < p; ++j) mean[j] += row[j] / n;
  for (const Features& row : x)
    for (int j = 1; j < p; ++j) sd[j] += (row[j] - mean[j]) * (row[j] - mean[j]) / n;
  sd[0] = 1;
  std::vector<bool> active(p, true);
  for (int j = 1; j < p; ++j) {
    sd[j] = std::sqrt(sd[j]);
    active[j] = sd[j] > 1e-9 * (1 + std::fabs(mean[j]));
  }
  // Normal equations of the standardized problem: z_j = (x_j - mean_j) / sd_j, z_0 = 1.
  std::vector<double> a(p * p, 0.0), b(p, 0.0);
  Features z{};
  for (size_t i = 0; i < x.size(); ++i) {
    for (int j = 0; j < p; ++j) z[j] = active[j] ? (x[i][j] - mean[j]) / sd[j] : 0.0;
    for (int j = 0; j < p; ++j) {
      b[j] += z[j] * y[i] / n;
      for (int k = 0; k <= j; ++k) a[j * p + k] += z[j] * z[k] / n;
    }
  }
  for (int j = 0; j < p; ++j) {
    for (int k = 0; k < j; ++k) a[k * p + j] = a[j * p + k];
    if (j > 0) a[j * p + j] += active[j] ? ridge : 1.0;  // an inactive column: coefficient 0
  }
  if (!cholesky_solve(std::move(a), p, &b)) return false;
  (*coef)[0] = b[0];
  for (int j = 1; j < p; ++j) {
    (*coef)[j] = active[j] ? b[j] / sd[j] : 0.0;
    (*coef)[0] -= (*coef)[j] * mean[j];
  }
  return true;
}

bool fit_class(const std::vector<Choice>& choices, const std::vector<double>& seconds,
               double ridge, ClassModel* m) {
  std::vector<Features> x;
  std::vector<double> y;
  m->lo.fill(std::numeric_limits<double>::infinity());
  m->hi.fill(-std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < choices.size(); ++i) {
    const CostTerms& t = choices[i].terms;
    if (!(seconds[i] > 0)) continue;
    const BaseFeatures b = base_features(choices[i]);
    for (int j = 0; j < kBaseFeatures; ++j) {
      m->lo[j] = std::min(m->lo[j], b[j]);
      m->hi[j] = std::max(m->hi[j], b[j]);
    }
    x.push_back(expand(b));
    // The launch's fixed cost is the analytic model's; at most half of a measured time.
    y.push_back(std::log(std::max(seconds[i] - t.launch_s, 0.5 * seconds[i]) / t.ideal_s));
  }
  m->samples = static_cast<long>(x.size());
  return ridge_fit(x, y, ridge * kFeatures / std::max<double>(1.0, x.size()), &m->coef);
}

std::string format_regression(const Regression& r) {
  std::string s =
      "# xpose regression cost model (docs/model.md): seconds = launch + ideal x\n"
      "# exp(coefficients . features) per kernel class, the features 1, the base features (logs,\n"
      "# clamped to lo..hi) and their products; samples: candidates fitted on; mape: held-out\n"
      "# mean |relative error|.\n";
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
    append_numbers(&s, "coef", m.coef.data(), kFeatures);
    s += "\n";
  }
  return s;
}

bool parse_regression(const std::string& text, Regression* out, std::string* why) {
  Regression r;
  std::array<bool, kModelClasses> seen{};
  bool magic = false, named = false, sized = false;
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
    if (key == "placeholder") return reject("a placeholder, not coefficients");
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
        if (j >= kBaseFeatures || name != kBaseFeatureNames[j++])
          return reject("features differ from this library's (" +
                        std::to_string(kBaseFeatures) + ", ideal inv_eff_r ...): recalibrate");
      if (j != kBaseFeatures) return reject("fewer features than this library's: recalibrate");
      named = true;
    } else if (key == "class") {
      if (!named) return reject("class before the features line");
      std::string what;
      if (!parse_class(words, &r, &seen, &what)) return reject(what);
    } else {
      return reject("unknown key '" + key + "'");
    }
  }
  if (!magic) return *why = "empty: no '" + std::string(kMagic) + "' line", false;
  if (r.arch.empty()) return *why = "no arch line", false;
  if (!sized) return *why = "no bytes line", false;
  for (int k = 0; k < kModelClasses; ++k)
    if (!seen[k]) return *why = std::string("no coefficients for class ") + kClassNames[k], false;
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
  std::string s = arch > 0 ? "analytic (no coefficients for sm_" + std::to_string(arch)
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
