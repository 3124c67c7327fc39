// Property tests of the enumeration schemes (src/inplace/pairing.hpp): each inverse maps
// [0, count) onto its triangle (or band layout) one to one, agrees with its pairing function,
// and stays exact (64-bit, integer roots) for orders near 2^31 tiles.
#include <gtest/gtest.h>

#include <vector>

#include "inplace/pairing.hpp"
#include "reference.hpp"

namespace {

using namespace xpose::detail::pairing;

// Every k of an order-m strict triangle decodes to a distinct cell x < y < m, encode(decode(k))
// == k, and the count is m(m-1)/2.
template <class Decode, class Encode>
void expect_bijection(uint64_t m, Decode decode, Encode encode, const std::string& what) {
  const uint64_t total = tri_strict(m);
  std::vector<char> seen(m * m, 0);
  for (uint64_t k = 0; k < total; ++k) {
    const Cell c = decode(k);
    ASSERT_TRUE(c.x >= 0 && c.x < c.y && c.y < static_cast<int64_t>(m))
        << what << " m " << m << " k " << k << " -> (" << c.x << "," << c.y << ")";
    ASSERT_EQ(seen[c.y * m + c.x]++, 0) << what << " m " << m << " k " << k << " repeats a cell";
    ASSERT_EQ(encode(c.x, c.y), k) << what << " m " << m;
  }
}

TEST(Pairing, IsqrtIsExact) {
  xpose_test::Rng rng(xpose_test::test_seed());
  for (uint64_t r : {0ull, 1ull, 2ull, 3037000498ull, 3037000499ull, 2147483648ull}) {
    for (uint64_t v : {r * r, r * r + 2 * r}) {  // r^2 and (r+1)^2 - 1
      if (v >= (1ull << 63)) continue;
      EXPECT_EQ(isqrt(v), r) << v;
    }
  }
  for (int i = 0; i < 100000; ++i) {
    const uint64_t v = rng.next() >> 1;
    const uint64_t r = isqrt(v);
    ASSERT_LE(r * r, v);
    ASSERT_GT((r + 1) * (r + 1), v) << xpose_test::seed_note();
  }
}

TEST(Pairing, V1AndV1RAreBijections) {
  for (uint64_t m = 2; m <= 90; ++m) {
    expect_bijection(m, v1_decode, v1_encode, "V1");
    expect_bijection(m, v1r_decode, v1r_encode, "V1R");
  }
  // V1 walks rows left to right, V1R right to left: the first cells of row 3 differ.
  EXPECT_EQ(v1_decode(3).x, 0);
  EXPECT_EQ(v1r_decode(3).x, 2);
}

TEST(Pairing, V1BIsABijectionForEveryBandWidth) {
  for (uint64_t m = 2; m <= 70; ++m)
    for (uint64_t w = 1; w <= m + 1; ++w) {
      const Banded b{m, w};
      expect_bijection(
          m, [&](uint64_t k) { return b.decode(k); },
          [&](int64_t x, int64_t y) { return b.encode(x, y); },
          "V1B w " + std::to_string(w));
    }
}

TEST(Pairing, V1BKeepsBandsTogether) {
  // Bands are consecutive: the column of decode(k) never falls back into an earlier band, and
  // a band of width >= m - 1 is V1 itself.
  const Banded b{40, 6};
  uint64_t last_band = 0;
  for (uint64_t k = 0; k < b.total(); ++k) {
    const uint64_t band = static_cast<uint64_t>(b.decode(k).x) / 6;
    ASSERT_GE(band, last_band);
    last_band = band;
  }
  const Banded whole{40, 39};
  for (uint64_t k = 0; k < whole.total(); ++k) {
    ASSERT_EQ(whole.decode(k).x, v1_decode(k).x);
    ASSERT_EQ(whole.decode(k).y, v1_decode(k).y);
  }
}

// Orders near 2^31 + 1 (tile grids of about 2^31 tiles): spot checks at the ends, band edges
// and random k, encode(decode(k)) == k and the cell inside the triangle.
TEST(Pairing, LargeOrdersSpotChecked) {
  xpose_test::Rng rng(xpose_test::test_seed() + 1);
  for (uint64_t m : {(1ull << 31) + 1, (1ull << 31) - 7, 3037000499ull / 2}) {
    const uint64_t total = tri_strict(m);
    std::vector<uint64_t> ks = {0, 1, 2, total / 2, total - 2, total - 1};
    for (int i = 0; i < 2000; ++i) ks.push_back(rng.next() % total);
    for (uint64_t w : {uint64_t{1}, uint64_t{8}, uint64_t{1000}, m - 1}) {
      const Banded b{m, w};
      for (uint64_t band = 0; band < 4; ++band) ks.push_back(b.before_column(band * w * 997 % (m - 1)));
      for (uint64_t k : ks) {
        const Cell c = b.decode(k);
        ASSERT_TRUE(c.x >= 0 && c.x < c.y && static_cast<uint64_t>(c.y) < m) << m << " " << k;
        ASSERT_EQ(b.encode(c.x, c.y), k) << "V1B m " << m << " w " << w << " k " << k;
      }
    }
    for (uint64_t k : ks) {
      const Cell c = v1_decode(k), r = v1r_decode(k);
      ASSERT_TRUE(c.x >= 0 && c.x < c.y && static_cast<uint64_t>(c.y) < m);
      ASSERT_EQ(v1_encode(c.x, c.y), k);
      ASSERT_EQ(v1r_encode(r.x, r.y), k);
    }
  }
}

// The launch-level enumeration covers the tile triangle with its diagonal exactly once, for
// every scheme (idle items of the full grid and super grid aside).
TEST(Pairing, EnumerationCoversTilesWithDiagonal) {
  for (uint64_t t : {1ull, 2ull, 5ull, 33ull}) {
    for (Scheme s : {Scheme::kV1, Scheme::kV1R, Scheme::kV1B, Scheme::kFull, Scheme::kSuperGrid}) {
      std::vector<int> seen(t * t, 0);
      Enumeration e{s, t, 3, 4};
      const uint64_t regions = (t + 3) / 4;
      for (uint64_t ry = 0; ry < (s == Scheme::kSuperGrid ? regions : 1); ++ry)
        for (uint64_t rx = 0; rx <= (s == Scheme::kSuperGrid ? ry : 0); ++rx) {
          e.region_x = rx;
          e.region_y = ry;
          for (uint64_t k = 0; k < e.count(); ++k) {
            int64_t x, y;
            if (!e.tile_pair(k, &x, &y)) continue;
            ASSERT_TRUE(x >= 0 && x <= y && y < static_cast<int64_t>(t));
            ++seen[y * t + x];
          }
        }
      for (uint64_t y = 0; y < t; ++y)
        for (uint64_t x = 0; x < t; ++x)
          EXPECT_EQ(seen[y * t + x], x <= y ? 1 : 0) << "scheme " << int(s) << " T " << t;
    }
  }
}

}  // namespace
