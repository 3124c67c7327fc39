// The fits of the regression model (model.hpp): the quadratic by ridge least squares, the trees
// by gradient boosting. Only `xpose calibrate` and the tests fit; planning only predicts. Host
// C++ only. See docs/model.md.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cuda/model.hpp"

namespace xpose::detail {
namespace {

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

}  // namespace

bool ridge_fit(const std::vector<QuadTerms>& x, const std::vector<double>& y, double ridge,
               QuadTerms* coef) {
  constexpr int p = kQuadTerms;
  const double n = static_cast<double>(x.size());
  if (x.empty()) return false;
  QuadTerms mean{}, sd{};
  for (const QuadTerms& row : x)
    for (int j = 1; j < p; ++j) mean[j] += row[j] / n;
  for (const QuadTerms& row : x)
    for (int j = 1; j < p; ++j) sd[j] += (row[j] - mean[j]) * (row[j] - mean[j]) / n;
  sd[0] = 1;
  std::vector<bool> active(p, true);
  for (int j = 1; j < p; ++j) {
    sd[j] = std::sqrt(sd[j]);
    active[j] = sd[j] > 1e-9 * (1 + std::fabs(mean[j]));
  }
  // Normal equations of the standardized problem: z_j = (x_j - mean_j) / sd_j, z_0 = 1.
  std::vector<double> a(p * p, 0.0), b(p, 0.0);
  QuadTerms z{};
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

bool fit_class(const std::vector<BaseFeatures>& x, const std::vector<double>& z, double ridge,
               ClassModel* m) {
  std::vector<QuadTerms> terms;
  m->lo.fill(std::numeric_limits<double>::infinity());
  m->hi.fill(-std::numeric_limits<double>::infinity());
  for (const BaseFeatures& b : x) {
    for (int j = 0; j < kBaseFeatures; ++j) {
      m->lo[j] = std::min(m->lo[j], b[j]);
      m->hi[j] = std::max(m->hi[j], b[j]);
    }
    terms.push_back(expand(b));
  }
  m->samples = static_cast<long>(x.size());
  return x.size() == z.size() &&
         ridge_fit(terms, z, ridge * kQuadTerms / std::max<double>(1.0, x.size()), &m->coef);
}

namespace {

// fit_trees for features of N entries.
template <size_t N>
bool fit_trees_of(const std::vector<std::array<double, N>>& x, const std::vector<double>& y,
                  const TreeFit& fit, Trees* r) {
  constexpr int kFeatures = static_cast<int>(N);
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

}  // namespace

bool fit_trees(const std::vector<TreeFeatures>& x, const std::vector<double>& z,
               const TreeFit& fit, Trees* t) {
  return fit_trees_of(x, z, fit, t);
}

bool fit_trees(const std::vector<NarrowFeatures>& x, const std::vector<double>& z,
               const TreeFit& fit, Trees* t) {
  return fit_trees_of(x, z, fit, t);
}

}  // namespace xpose::detail
