// src/core/convert.hpp against a slow reference written the other way round: values decoded with
// ldexp, rounded by dividing by the target's quantum and comparing the remainder with one half in
// double arithmetic (exact here), encoded back by searching the format's value table. Every
// 8- and 16-bit pattern, every halfway case (and its neighbours) of f32 -> fp8/f16/bf16, random
// f32 and f64 bits, and the f64 -> f16 cases where rounding through f32 would round twice.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "core/convert.hpp"
#include "reference.hpp"

namespace {

using namespace xpose::detail;
using xpose_test::Rng;
using xpose_test::seed_note;
using xpose_test::test_seed;

struct Spec {
  const char* name;
  int e, m;
  bool fn;  // E4M3: no inf, only S.1111.111 is NaN
  xpose_type_t type;
};
constexpr Spec kE4M3{"e4m3", 4, 3, true, XPOSE_TYPE_F8_E4M3};
constexpr Spec kE5M2{"e5m2", 5, 2, false, XPOSE_TYPE_F8_E5M2};
constexpr Spec kF16{"f16", 5, 10, false, XPOSE_TYPE_F16};
constexpr Spec kBF16{"bf16", 8, 7, false, XPOSE_TYPE_BF16};
constexpr Spec kF32{"f32", 8, 23, false, XPOSE_TYPE_F32};

int bias(const Spec& s) { return (1 << (s.e - 1)) - 1; }
uint64_t mag_mask(const Spec& s) { return (uint64_t{1} << (s.e + s.m)) - 1; }

// The value of bits `b` of format s (NaN for NaN patterns).
double decode(const Spec& s, uint64_t b) {
  const bool neg = (b >> (s.e + s.m)) & 1;
  const uint64_t ex = (b >> s.m) & ((uint64_t{1} << s.e) - 1);
  const uint64_t mant = b & ((uint64_t{1} << s.m) - 1);
  const uint64_t all = (uint64_t{1} << s.e) - 1;
  double v;
  if (s.fn && ex == all && mant + 1 == (uint64_t{1} << s.m)) v = NAN;
  else if (!s.fn && ex == all) v = mant ? NAN : INFINITY;
  else if (ex == 0) v = std::ldexp(static_cast<double>(mant), 1 - bias(s) - s.m);
  else v = std::ldexp(1.0 + std::ldexp(static_cast<double>(mant), -s.m),
                      static_cast<int>(ex) - bias(s));
  return neg ? -v : v;
}

double max_finite(const Spec& s) {
  return s.fn ? decode(s, mag_mask(s) - 1) : decode(s, (((uint64_t{1} << s.e) - 1) << s.m) - 1);
}

uint64_t nan_bits(const Spec& s, bool neg) {
  const uint64_t mag = s.fn ? mag_mask(s) : ((((uint64_t{1} << s.e) - 1) << s.m) |
                                               (uint64_t{1} << (s.m - 1)));
  return mag | (neg ? uint64_t{1} << (s.e + s.m) : 0);
}

// Bits of the finite or infinite value v (exactly representable) in format s.
uint64_t encode(const Spec& s, double v) {
  if (s.m == 23) {
    const float f = static_cast<float>(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  }
  static std::map<int, std::map<double, uint64_t>> tables;
  auto& t = tables[s.e * 100 + s.m];
  if (t.empty())
    for (uint64_t b = 0; b < (uint64_t{2} << (s.e + s.m)); ++b) {
      const double d = decode(s, b);
      if (!std::isnan(d) && !(d == 0 && std::signbit(d))) t[d] = b;
    }
  if (v == 0) return std::signbit(v) ? uint64_t{1} << (s.e + s.m) : 0;
  const auto it = t.find(v);
  EXPECT_NE(it, t.end()) << v << " is not a " << s.name << " value";
  return it == t.end() ? 0 : it->second;
}

// Round to nearest even into s, non-saturating, as bits.
uint64_t reference_round(const Spec& s, double v) {
  if (std::isnan(v)) return nan_bits(s, std::signbit(v));
  const double a = std::fabs(v);
  double r = a;
  if (!std::isinf(a)) {
    int k = 0;
    std::frexp(a, &k);  // a = f * 2^k, f in [0.5, 1)
    const int ex = std::max(k - 1, 1 - bias(s));
    const double quantum = std::ldexp(1.0, ex - s.m);
    const double n = a / quantum;  // exact: a power-of-two scaling
    double lo = std::floor(n);
    const double frac = n - lo;
    if (frac > 0.5 || (frac == 0.5 && std::fmod(lo, 2.0) == 1.0)) lo += 1;
    r = lo * quantum;
  }
  uint64_t mag;
  if (r > max_finite(s)) mag = s.fn ? nan_bits(s, false) : ((uint64_t{1} << s.e) - 1) << s.m;
  else mag = encode(s, r);
  return mag | (std::signbit(v) ? uint64_t{1} << (s.e + s.m) : 0);
}

template <xpose_type_t T>
uint64_t from_f32(float f) { return cvt::store_from<T, float>(f); }
template <xpose_type_t T>
uint64_t from_f64(double d) { return cvt::store_from<T, double>(d); }

uint64_t convert_f32(const Spec& s, float f) {
  switch (s.type) {
    case XPOSE_TYPE_F8_E4M3: return from_f32<XPOSE_TYPE_F8_E4M3>(f);
    case XPOSE_TYPE_F8_E5M2: return from_f32<XPOSE_TYPE_F8_E5M2>(f);
    case XPOSE_TYPE_F16: return from_f32<XPOSE_TYPE_F16>(f);
    case XPOSE_TYPE_BF16: return from_f32<XPOSE_TYPE_BF16>(f);
    default: return from_f32<XPOSE_TYPE_F32>(f);
  }
}
uint64_t convert_f64(const Spec& s, double d) {
  switch (s.type) {
    case XPOSE_TYPE_F8_E4M3: return from_f64<XPOSE_TYPE_F8_E4M3>(d);
    case XPOSE_TYPE_F8_E5M2: return from_f64<XPOSE_TYPE_F8_E5M2>(d);
    case XPOSE_TYPE_F16: return from_f64<XPOSE_TYPE_F16>(d);
    case XPOSE_TYPE_BF16: return from_f64<XPOSE_TYPE_BF16>(d);
    default: return from_f64<XPOSE_TYPE_F32>(d);
  }
}
// Bits of narrow format s widened to f32 and to f64 (load_as).
template <xpose_type_t T>
void widen(uint64_t b, float* f, double* d) {
  using Bits = typename cvt::FormatOf<T>::type::Bits;
  *f = cvt::load_as<T, float>(static_cast<Bits>(b));
  *d = cvt::load_as<T, double>(static_cast<Bits>(b));
}
void widen(const Spec& s, uint64_t b, float* f, double* d) {
  switch (s.type) {
    case XPOSE_TYPE_F8_E4M3: return widen<XPOSE_TYPE_F8_E4M3>(b, f, d);
    case XPOSE_TYPE_F8_E5M2: return widen<XPOSE_TYPE_F8_E5M2>(b, f, d);
    case XPOSE_TYPE_F16: return widen<XPOSE_TYPE_F16>(b, f, d);
    default: return widen<XPOSE_TYPE_BF16>(b, f, d);
  }
}

uint32_t bits32(float f) { return cvt::bits_as<uint32_t>(f); }
uint64_t bits64(double d) { return cvt::bits_as<uint64_t>(d); }

const Spec kNarrow[] = {kE4M3, kE5M2, kF16, kBF16};

TEST(Convert, EveryNarrowPatternWidensExactlyAndComesBack) {
  for (const Spec& s : kNarrow) {
    for (uint64_t b = 0; b < (uint64_t{2} << (s.e + s.m)); ++b) {
      const double want = decode(s, b);
      float f;
      double d;
      widen(s, b, &f, &d);
      SCOPED_TRACE(std::string(s.name) + " bits " + std::to_string(b));
      const bool neg = (b >> (s.e + s.m)) & 1;
      if (std::isnan(want)) {
        ASSERT_EQ(bits32(f), (neg ? 0xffc00000u : 0x7fc00000u));
        ASSERT_EQ(bits64(d), (neg ? 0xfff8000000000000ull : 0x7ff8000000000000ull));
        ASSERT_EQ(convert_f32(s, f), nan_bits(s, neg));
        continue;
      }
      ASSERT_EQ(static_cast<double>(f), want);
      ASSERT_EQ(std::signbit(f), neg);
      ASSERT_EQ(bits64(d), bits64(static_cast<double>(f)));
      ASSERT_EQ(convert_f32(s, f), b);
      ASSERT_EQ(convert_f64(s, d), b);
    }
  }
}

// Every midpoint between neighbouring values of s (subnormal, normal, and max + half an ulp),
// and the f32 values just beside each, both signs.
TEST(Convert, F32HalfwayCasesRoundToEven) {
  for (const Spec& s : kNarrow) {
    const uint64_t top = s.fn ? mag_mask(s) - 1 : (((uint64_t{1} << s.e) - 1) << s.m) - 1;
    for (uint64_t b = 0; b <= top; ++b) {
      const double lo = decode(s, b);
      const double hi = b < top ? decode(s, b + 1) : lo + (lo - decode(s, b - 1));
      const float mid = static_cast<float>((lo + hi) / 2);
      ASSERT_EQ(static_cast<double>(mid), (lo + hi) / 2) << s.name << ": midpoint not exact";
      for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)})
        for (float sx : {x, -x}) {
          ASSERT_EQ(convert_f32(s, sx), reference_round(s, sx))
              << s.name << " from f32 " << sx << " (bits " << bits32(sx) << ")";
          ASSERT_EQ(convert_f64(s, sx), reference_round(s, sx)) << s.name << " from f64 " << sx;
        }
    }
  }
}

TEST(Convert, RandomF32AndF64Bits) {
  Rng rng(test_seed() ^ 0xc0417e57);
  SCOPED_TRACE(seed_note());
  for (const Spec& s : {kE4M3, kE5M2, kF16, kBF16, kF32}) {
    for (int i = 0; i < 400000; ++i) {
      const uint64_t r = rng.next();
      // Half the f64 draws near the format's range, where the interesting exponents are.
      uint64_t d = r;
      if (i & 1) {
        const uint64_t ex = 1023 - 160 + rng.below(320);
        d = (r & 0x800fffffffffffffull) | (ex << 52);
      }
      const float f = cvt::bits_as<float>(static_cast<uint32_t>(r >> 32));
      if (s.m != 23)
        ASSERT_EQ(convert_f32(s, f), reference_round(s, f)) << s.name << " f32 bits " << (r >> 32);
      const double x = cvt::bits_as<double>(d);
      ASSERT_EQ(convert_f64(s, x), reference_round(s, x)) << s.name << " f64 bits " << d;
    }
  }
}

// f64 values just above (below) a midpoint of f16 / bf16 / fp8 that f32 would round onto the
// midpoint, after which a second rounding would go to even, the wrong way.
TEST(Convert, F64NeverRoundsTwice) {
  Rng rng(test_seed() ^ 0xd0b1e);
  SCOPED_TRACE(seed_note());
  for (const Spec& s : kNarrow) {
    int differs = 0;
    const uint64_t top = s.fn ? mag_mask(s) - 1 : (((uint64_t{1} << s.e) - 1) << s.m) - 1;
    for (int i = 0; i < 20000; ++i) {
      const uint64_t b = rng.below(top);
      const double mid = (decode(s, b) + decode(s, b + 1)) / 2;
      const double tiny = std::ldexp(std::fabs(mid) > 0 ? std::fabs(mid) : 1e-30, -40);
      for (double x : {mid + tiny, mid - tiny}) {
        ASSERT_EQ(convert_f64(s, x), reference_round(s, x)) << s.name << " f64 " << x;
        differs += convert_f32(s, static_cast<float>(x)) != convert_f64(s, x);
      }
    }
    EXPECT_GT(differs, 0) << s.name << ": no case distinguishes single from double rounding";
  }
}

TEST(Convert, OverflowIsNotSaturating) {
  EXPECT_EQ(convert_f32(kE4M3, 448.0f), 0x7eu);
  EXPECT_EQ(convert_f32(kE4M3, 464.0f), 0x7eu);  // the tie goes to even, 448
  EXPECT_EQ(convert_f32(kE4M3, std::nextafter(464.0f, 1e9f)), 0x7fu);
  EXPECT_EQ(convert_f32(kE4M3, -INFINITY), 0xffu);
  EXPECT_EQ(convert_f32(kE5M2, 61440.0f), 0x7cu);  // halfway past 57344: inf
  EXPECT_EQ(convert_f32(kF16, 65520.0f), 0x7c00u);
  EXPECT_EQ(convert_f32(kBF16, -INFINITY), 0xff80u);
  EXPECT_EQ(convert_f64(kF32, 1e300), 0x7f800000u);
  EXPECT_EQ(convert_f64(kF32, -NAN), 0xffc00000u);
}

// The scaling rule: products and the sum rounded separately (a fused multiply-add gives other
// results on these inputs).
TEST(Convert, ScalingRoundsEachOperation) {
  Rng rng(test_seed() ^ 0x5ca1e);
  SCOPED_TRACE(seed_note());
  int fused_differs = 0;
  for (int i = 0; i < 100000; ++i) {
    const float a = static_cast<float>(rng.unit() + 0.5), x = static_cast<float>(rng.unit() - 0.5);
    const float b = static_cast<float>(rng.unit() * 3), y = static_cast<float>(rng.unit());
    volatile float ax = a * x, by = b * y;
    const float want = ax + by;
    ASSERT_EQ(bits32(cvt::axpby<true, true>(a, x, b, y)), bits32(want));
    fused_differs += std::fma(a, x, static_cast<float>(by)) != want;
    const cvt::Complex<double> ca{a, b}, cx{x, y};
    const cvt::Complex<double> r = cvt::axpby<true, false>(ca, cx, ca, cx);
    volatile double p1 = double(a) * double(x), p2 = double(b) * double(y);
    volatile double p3 = double(a) * double(y), p4 = double(b) * double(x);
    ASSERT_EQ(bits64(r.re), bits64(p1 - p2));
    ASSERT_EQ(bits64(r.im), bits64(p3 + p4));
  }
  EXPECT_GT(fused_differs, 0);
}

}  // namespace
