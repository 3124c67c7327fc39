// A program written against HPTT's C interface, as its C++ users write one (complex data as
// pairs of reals, passed as C's complex types, a GNU extension in C++ as in HPTT's header),
// built against the installed xpose (xpose::hptt). Random sub-tensor transpositions of all four
// types, both layouts, random outer sizes, alpha, beta and conjA, checked element by element
// against a naive loop; then HPTT's issue #20 case and bad input.
// Usage: hptt_test [seed [cases]]; exit status 0 when every check passes.
#include <xpose/hptt.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

// One random problem: HPTT's arguments.
struct Case {
  int rank = 0;
  std::vector<int> perm, size, outer_a, outer_b;  // outer_*: empty = NULL
  bool row_major = false, conj = false;
  int threads = 1;
  double alpha[2] = {1, 0}, beta[2] = {0, 0};
};

// Element offsets of each index of a tensor of `outer` padded extents (column- or row-major).
std::vector<int64_t> strides(const std::vector<int>& outer, bool row_major) {
  const int n = static_cast<int>(outer.size());
  std::vector<int64_t> s(n);
  int64_t step = 1;
  for (int k = 0; k < n; ++k) {
    const int d = row_major ? n - 1 - k : k;
    s[d] = step;
    step *= outer[d];
  }
  return s;
}

int64_t product(const std::vector<int>& v) {
  int64_t p = 1;
  for (int x : v) p *= x;
  return p;
}

// alpha * x + beta * y on {re, im} pairs (n = 1: real), each product, difference and sum rounded
// in Real (ISO C++: no contraction into fused multiply-adds), as the library computes it.
template <class Real>
void combine(const Case& c, const Real* x, const Real* y, Real* r, int n) {
  const Real ar = Real(c.alpha[0]), ai = Real(c.alpha[1]);
  const Real br = Real(c.beta[0]), bi = Real(c.beta[1]);
  const Real xi = n == 2 ? (c.conj ? -x[1] : x[1]) : Real(0);
  const Real yi = n == 2 ? y[1] : Real(0);
  Real p0 = ar * x[0], p1 = 0;
  if (n == 2) {
    const Real t0 = ai * xi, t1 = ar * xi, t2 = ai * x[0];
    p0 = p0 - t0;
    p1 = t1 + t2;
  }
  if (c.beta[0] == 0 && c.beta[1] == 0) {  // B not read
    r[0] = p0;
    if (n == 2) r[1] = p1;
    return;
  }
  Real q0 = br * y[0], q1 = 0;
  if (n == 2) {
    const Real t0 = bi * yi, t1 = br * yi, t2 = bi * y[0];
    q0 = q0 - t0;
    q1 = t1 + t2;
  }
  r[0] = p0 + q0;
  if (n == 2) r[1] = p1 + q1;
}

// B as the naive loop makes it from A and B's old contents (`n` Reals per element).
template <class Real>
std::vector<Real> reference(const Case& c, const std::vector<Real>& a, std::vector<Real> b,
                            int n) {
  const std::vector<int> oa = c.outer_a.empty() ? c.size : c.outer_a;
  std::vector<int> out_size(c.rank);
  for (int i = 0; i < c.rank; ++i) out_size[i] = c.size[c.perm[i]];
  const std::vector<int> ob = c.outer_b.empty() ? out_size : c.outer_b;
  const std::vector<int64_t> sa = strides(oa, c.row_major), sb = strides(ob, c.row_major);
  std::vector<int> idx(c.rank, 0);
  for (int64_t e = 0; e < product(c.size); ++e) {
    int64_t ia = 0, ib = 0;
    for (int k = 0; k < c.rank; ++k) ia += idx[k] * sa[k];
    for (int i = 0; i < c.rank; ++i) ib += idx[c.perm[i]] * sb[i];
    combine(c, &a[ia * n], &b[ib * n], &b[ib * n], n);
    for (int k = 0; k < c.rank && ++idx[k] == c.size[k]; ++k) idx[k] = 0;
  }
  return b;
}

Case random_case(std::mt19937_64& rng, bool complex) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto value = [&] { return std::uniform_real_distribution<double>(-2, 2)(rng); };
  Case c;
  c.rank = pick(1, 5);
  for (int k = 0; k < c.rank; ++k) c.size.push_back(pick(1, c.rank <= 2 ? 40 : 9));
  c.perm.resize(c.rank);
  for (int k = 0; k < c.rank; ++k) c.perm[k] = k;
  std::shuffle(c.perm.begin(), c.perm.end(), rng);
  if (pick(0, 3) > 0)
    for (int k = 0; k < c.rank; ++k) c.outer_a.push_back(c.size[k] + pick(0, 4));
  if (pick(0, 3) > 0)
    for (int i = 0; i < c.rank; ++i) c.outer_b.push_back(c.size[c.perm[i]] + pick(0, 4));
  c.row_major = pick(0, 1);
  c.threads = pick(0, 4);  // 0: all hardware threads
  const int scalars = pick(0, 3);  // plain copy, alpha only, beta only, both
  if (scalars & 1) c.alpha[0] = value(), c.alpha[1] = complex ? value() : 0;
  if (scalars & 2) c.beta[0] = value(), c.beta[1] = complex ? value() : 0;
  c.conj = complex && pick(0, 2) == 0;
  return c;
}

void print_case(const char* type, const Case& c) {
  std::printf("  %s rank %d size", type, c.rank);
  for (int x : c.size) std::printf(" %d", x);
  std::printf(" perm");
  for (int x : c.perm) std::printf(" %d", x);
  std::printf(" outerA %s outerB %s %s threads %d alpha (%g,%g) beta (%g,%g)%s\n",
              c.outer_a.empty() ? "NULL" : "set", c.outer_b.empty() ? "NULL" : "set",
              c.row_major ? "row-major" : "col-major", c.threads, c.alpha[0], c.alpha[1],
              c.beta[0], c.beta[1], c.conj ? " conjA" : "");
}

const int* or_null(const std::vector<int>& v) { return v.empty() ? nullptr : v.data(); }

template <class Z, class Real>
Z make_complex(double re, double im) {
  Z z;
  __real__ z = Real(re);
  __imag__ z = Real(im);
  return z;
}

// The upstream call for Real and n (1: s/d, 2: c/z).
void call(const Case& c, const float* a, float* b, int n) {
  if (n == 1) {
    sTensorTranspose(c.perm.data(), c.rank, float(c.alpha[0]), a, c.size.data(), or_null(c.outer_a),
                     float(c.beta[0]), b, or_null(c.outer_b), c.threads, c.row_major);
    return;
  }
  using Z = float _Complex;
  cTensorTranspose(c.perm.data(), c.rank, make_complex<Z, float>(c.alpha[0], c.alpha[1]), c.conj,
                   reinterpret_cast<const Z*>(a), c.size.data(), or_null(c.outer_a),
                   make_complex<Z, float>(c.beta[0], c.beta[1]), reinterpret_cast<Z*>(b),
                   or_null(c.outer_b), c.threads, c.row_major);
}

void call(const Case& c, const double* a, double* b, int n) {
  if (n == 1) {
    dTensorTranspose(c.perm.data(), c.rank, c.alpha[0], a, c.size.data(), or_null(c.outer_a),
                     c.beta[0], b, or_null(c.outer_b), c.threads, c.row_major);
    return;
  }
  using Z = double _Complex;
  zTensorTranspose(c.perm.data(), c.rank, make_complex<Z, double>(c.alpha[0], c.alpha[1]), c.conj,
                   reinterpret_cast<const Z*>(a), c.size.data(), or_null(c.outer_a),
                   make_complex<Z, double>(c.beta[0], c.beta[1]), reinterpret_cast<Z*>(b),
                   or_null(c.outer_b), c.threads, c.row_major);
}

constexpr int kGuard = 16;  // Reals past the end of B that must stay as they were

// Runs one case; false (with the case and the first wrong Real printed) when B differs from the
// reference anywhere, padding and the guard past its end included.
template <class Real>
bool run_case(std::mt19937_64& rng, const Case& c, int n, const char* type) {
  std::uniform_real_distribution<double> value(0.25, 2);
  std::vector<int> out_size(c.rank);
  for (int i = 0; i < c.rank; ++i) out_size[i] = c.size[c.perm[i]];
  std::vector<Real> a(product(c.outer_a.empty() ? c.size : c.outer_a) * n);
  std::vector<Real> b(product(c.outer_b.empty() ? out_size : c.outer_b) * n + kGuard);
  for (Real& x : a) x = Real(rng() % 2 ? value(rng) : -value(rng));  // never zero
  for (Real& x : b) x = Real(rng() % 2 ? value(rng) : -value(rng));
  const std::vector<Real> expected = reference(c, a, b, n);
  call(c, a.data(), b.data(), n);
  if (std::memcmp(b.data(), expected.data(), b.size() * sizeof(Real)) == 0 &&
      *xpose_hptt_last_error() == '\0')
    return true;
  std::printf("FAILED:");
  print_case(type, c);
  std::printf("  xpose_hptt_last_error: \"%s\"\n", xpose_hptt_last_error());
  for (size_t i = 0; i < b.size(); ++i)
    if (std::memcmp(&b[i], &expected[i], sizeof(Real)) != 0) {
      std::printf("  first wrong Real %zu of %zu: %.9g, expected %.9g\n", i, b.size(),
                  double(b[i]), double(expected[i]));
      break;
    }
  return false;
}

// HPTT's issue #20: a 3x3x3 tensor of ones into the leading 3x3x3 corner of a 5x5x5 tensor
// holding 0..124, alpha 1, beta 10: the corner becomes 1 + 10 * old, the rest stays.
bool issue_20() {
  const int perm[3] = {0, 1, 2}, size[3] = {3, 3, 3}, outer[3] = {5, 5, 5};
  std::vector<double> a(27, 1.0), b(125);
  for (int i = 0; i < 125; ++i) b[i] = i;
  dTensorTranspose(perm, 3, 1.0, a.data(), size, nullptr, 10.0, b.data(), outer, 1, 0);
  int wrong = 0;
  for (int i = 0; i < 125; ++i) {
    const bool inside = i % 5 < 3 && i / 5 % 5 < 3 && i / 25 < 3;
    wrong += b[i] != (inside ? 1.0 + 10.0 * i : double(i));
  }
  std::printf("HPTT issue #20 case: %d of 125 elements wrong (B[1] = %g, B[5] = %g, B[3] = %g)\n",
              wrong, b[1], b[5], b[3]);
  return wrong == 0;
}

// Bad input: HPTT would print and exit; here B stays as it was and the message says why.
bool bad_input() {
  const int perm[2] = {1, 0}, twice[2] = {1, 1}, size[2] = {4, 3}, zero[2] = {4, 0};
  const int small_a[2] = {3, 3}, small_b[2] = {2, 4};
  std::vector<float> a(12, 1.0f), b(12, 7.0f);
  struct Bad {
    const char* what;
    int dim;
    const int *perm, *size, *outer_a, *outer_b;
    const float* a;
  } cases[] = {
      {"dim 0", 0, perm, size, nullptr, nullptr, a.data()},
      {"perm repeats", 2, twice, size, nullptr, nullptr, a.data()},
      {"sizeA 0", 2, perm, zero, nullptr, nullptr, a.data()},
      {"outerSizeA below sizeA", 2, perm, size, small_a, nullptr, a.data()},
      {"outerSizeB below perm(sizeA)", 2, perm, size, nullptr, small_b, a.data()},
      {"A NULL", 2, perm, size, nullptr, nullptr, nullptr},
  };
  bool ok = true;
  for (const Bad& c : cases) {
    sTensorTranspose(c.perm, c.dim, 1.0f, c.a, c.size, c.outer_a, 0.0f, b.data(), c.outer_b, 1);
    const bool untouched = std::count(b.begin(), b.end(), 7.0f) == 12;
    const bool said = *xpose_hptt_last_error() != '\0';
    std::printf("bad input, %s: %s, \"%s\"\n", c.what, untouched ? "B untouched" : "B WRITTEN",
                xpose_hptt_last_error());
    ok = ok && untouched && said;
  }
  sTensorTranspose(perm, 2, 1.0f, a.data(), size, nullptr, 0.0f, b.data(), nullptr, 1);
  return ok && *xpose_hptt_last_error() == '\0';  // a good call clears the message
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : std::random_device{}();
  const int cases = argc > 2 ? std::atoi(argv[2]) : 400;
  std::printf("seed %llu (replay: hptt_test %llu %d)\n", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed), cases);
  std::mt19937_64 rng(seed);
  int failed = 0;
  for (int i = 0; i < cases; ++i) {
    const int type = i % 4;
    const Case c = random_case(rng, type >= 2);
    const bool ok = type == 0   ? run_case<float>(rng, c, 1, "float")
                    : type == 1 ? run_case<double>(rng, c, 1, "double")
                    : type == 2 ? run_case<float>(rng, c, 2, "float complex")
                                : run_case<double>(rng, c, 2, "double complex");
    failed += !ok;
  }
  std::printf("random cases: %d of %d wrong\n", failed, cases);
  const bool ok20 = issue_20(), ok_bad = bad_input();
  const bool ok = failed == 0 && ok20 && ok_bad;
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
