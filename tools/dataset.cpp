#include "dataset.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "suites.hpp"

namespace xpose_tool {

const char* shape_name(Shape s) {
  switch (s) {
    case Shape::Equal: return "equal";
    case Shape::Increasing: return "increasing";
    case Shape::Decreasing: return "decreasing";
    case Shape::Peaked: return "peaked";
    case Shape::Valley: return "valley";
    case Shape::Random: return "random";
  }
  return "?";
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

namespace {

// Extents proportional to the weights `w` (> 0), each >= 2, whose product is about `volume` and
// never above it (unless every extent is 2).
std::vector<int64_t> scaled_extents(const std::vector<double>& w, int64_t volume) {
  const int rank = static_cast<int>(w.size());
  double log_product = 0;
  for (const double x : w) log_product += std::log(x);
  const double scale = std::exp((std::log(static_cast<double>(volume)) - log_product) / rank);
  std::vector<int64_t> e(rank);
  double product = 1;
  for (int k = 0; k < rank; ++k) {
    e[k] = std::max<int64_t>(2, std::llround(scale * w[k]));
    product *= static_cast<double>(e[k]);
  }
  // Rounding may overshoot the volume: trim the largest extent until it fits.
  while (product > static_cast<double>(volume)) {
    const auto big = std::max_element(e.begin(), e.end());
    if (*big <= 2) break;
    product = product / static_cast<double>(*big) * static_cast<double>(*big - 1);
    --*big;
  }
  return e;
}

}  // namespace

std::vector<int64_t> shaped_extents(int rank, Shape shape, int64_t volume, double jitter,
                                    uint64_t seed) {
  // Neighbouring extents differ by a factor 1.6 along the shape: TTLG's shapes go from a few to
  // a few hundred at rank 6, where the planner's small-extent cases live.
  constexpr double kStep = 1.6;
  Random rng(seed);
  std::vector<double> w(rank);
  for (int k = 0; k < rank; ++k) {
    const double edge = std::min(k, rank - 1 - k);  // distance to the nearer end
    const double exponent = shape == Shape::Increasing   ? k
                            : shape == Shape::Decreasing ? rank - 1 - k
                            : shape == Shape::Peaked     ? edge
                            : shape == Shape::Valley     ? (rank - 1) / 2.0 - edge
                                                         : 0.0;
    w[k] = std::pow(kStep, exponent) * (1.0 + jitter * (2.0 * rng.unit() - 1.0));
  }
  return scaled_extents(w, volume);
}

namespace {

// Every permutation of 0..rank-1 (lexicographic order) for ranks up to 4, else an even sample of
// 24 of them (every k-th).
std::vector<std::vector<int>> dataset_perms(int rank) {
  std::vector<int> p(rank);
  std::iota(p.begin(), p.end(), 0);
  std::vector<std::vector<int>> all;
  do all.push_back(p);
  while (std::next_permutation(p.begin(), p.end()));
  if (rank <= 4) return all;
  std::vector<std::vector<int>> sample;
  for (size_t i = 0; i < all.size(); i += all.size() / 24) sample.push_back(all[i]);
  return sample;
}

// Elements of a case named by hash `h`: its size log-uniform in [lo, hi] (log bytes).
int64_t case_volume(uint64_t h, size_t elem, double lo, double hi) {
  const double u = static_cast<double>(h >> 11) * 0x1.0p-53;
  const auto bytes = static_cast<int64_t>(std::exp(lo + u * (hi - lo)));
  return std::max<int64_t>(bytes / static_cast<int64_t>(elem), 1);
}

CalibrationCase named_case(const std::string& name, std::vector<int64_t> extents,
                           std::vector<int> perm, size_t elem, Shape shape) {
  CalibrationCase cc;
  cc.c = Case{"calibrate", name, std::move(extents), std::move(perm)};
  cc.elem = elem;
  cc.shape = shape;
  cc.fold = static_cast<int>(fnv1a(name + "/fold") % 5);
  return cc;
}

CalibrationCase make_case(int rank, const std::vector<int>& perm, Shape shape, size_t elem,
                          const char* tag, double lo, double hi) {
  char digits[16] = {};
  for (int k = 0; k < rank; ++k) digits[k] = static_cast<char>('0' + perm[k]);
  // snprintf rather than operator+: GCC 12 warns falsely (-Wrestrict) on "literal" + string.
  char buf[96];
  std::snprintf(buf, sizeof buf, "r%d-p%s-%s-%zuB-%s", rank, digits, shape_name(shape), elem,
                tag);
  const uint64_t h = fnv1a(buf);
  // Odd extents (jitter) for half the cases.
  return named_case(buf,
                    shaped_extents(rank, shape, case_volume(h, elem, lo, hi),
                                   (h & 1) ? 0.15 : 0.0, h),
                    perm, elem, shape);
}

// cuTT's random problems at high rank (its rank-8 and rank-12 tensors, where extents 2-5 meet
// long dims): rank 7-12, extents drawn log-uniform over a factor 12 and scaled to the volume
// (each >= 2, the product within it), a random permutation. Named "r9-random-8B-17" style.
CalibrationCase random_case(int rank, int index, size_t elem, double lo, double hi) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "r%d-random-%zuB-%d", rank, elem, index);
  const uint64_t h = fnv1a(buf);
  Random rng(h);
  std::vector<double> w(rank);
  for (double& x : w) x = std::exp(rng.unit() * std::log(12.0));
  std::vector<int> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  for (int k = rank - 1; k > 0; --k)
    std::swap(perm[k], perm[static_cast<int>(rng.below(static_cast<uint64_t>(k) + 1))]);
  return named_case(buf, scaled_extents(w, case_volume(h, elem, lo, hi)), perm, elem,
                    Shape::Random);
}

}  // namespace

std::vector<CalibrationCase> calibration_cases(int64_t min_bytes, int64_t max_bytes) {
  const double lo = std::log(static_cast<double>(min_bytes));
  const double hi = std::log(static_cast<double>(std::max(max_bytes, min_bytes)));
  const double mid = 0.5 * (lo + hi);
  constexpr Shape kShapes[] = {Shape::Equal, Shape::Increasing, Shape::Decreasing, Shape::Peaked,
                               Shape::Valley};
  // 4- and 8-byte elements in both halves of the size range for every (permutation, shape);
  // 1, 2 and 16 bytes in turn for one in four, anywhere in the range.
  constexpr size_t kOddSizes[] = {1, 2, 16};
  std::vector<CalibrationCase> out;
  size_t combo = 0;
  for (int rank = 3; rank <= 6; ++rank)
    for (const std::vector<int>& perm : dataset_perms(rank))
      for (const Shape shape : kShapes) {
        for (const size_t elem : {size_t{4}, size_t{8}}) {
          out.push_back(make_case(rank, perm, shape, elem, "a", lo, mid));
          out.push_back(make_case(rank, perm, shape, elem, "b", mid, hi));
        }
        if (combo++ % 4 == 0)
          out.push_back(make_case(rank, perm, shape, kOddSizes[combo / 4 % 3], "c", lo, hi));
      }
  // 40 random problems per rank 7..12, 8- and 4-byte elements in turn.
  for (int rank = 7; rank <= 12; ++rank)
    for (int i = 0; i < 40; ++i) out.push_back(random_case(rank, i, i % 2 ? 4 : 8, lo, hi));
  std::vector<std::pair<uint64_t, size_t>> order(out.size());
  for (size_t i = 0; i < out.size(); ++i) order[i] = {fnv1a(out[i].c.name + "/order"), i};
  std::sort(order.begin(), order.end());
  std::vector<CalibrationCase> shuffled;
  shuffled.reserve(out.size());
  for (const auto& [key, i] : order) shuffled.push_back(std::move(out[i]));
  return shuffled;
}

std::vector<CalibrationCase> narrow_calibration_cases(size_t n, int64_t min_bytes,
                                                      int64_t max_bytes) {
  std::vector<CalibrationCase> out;
  if (n == 0) return out;
  const double lo = std::max(30e6, static_cast<double>(min_bytes));
  const double hi = std::max(lo, std::min(500e6, static_cast<double>(max_bytes)));
  for (const Case& c : random_cases("narrow", 0x6e6172726f77, n, 10, lo, hi, {1, 2}))
    out.push_back(named_case("narrow-" + c.name, c.extents, c.perm, c.elem, Shape::Random));
  // Every (permutation, shape) of the dataset's ranks 3-6 with 1 and with 2 bytes, at the
  // dataset's sizes: equal and power-of-two-like extents, which random shapes seldom draw.
  const double log_lo = std::log(static_cast<double>(min_bytes));
  const double log_hi = std::log(static_cast<double>(std::max(max_bytes, min_bytes)));
  constexpr Shape kShapes[] = {Shape::Equal, Shape::Increasing, Shape::Decreasing, Shape::Peaked,
                               Shape::Valley};
  for (int rank = 3; rank <= 6; ++rank)
    for (const std::vector<int>& perm : dataset_perms(rank))
      for (const Shape shape : kShapes)
        for (const size_t elem : {size_t{1}, size_t{2}})
          out.push_back(make_case(rank, perm, shape, elem, "n", log_lo, log_hi));
  return out;
}

}  // namespace xpose_tool
