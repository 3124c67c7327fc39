// The typed element operations of every instruction set (src/cpu/typed_ops*.cpp, with the
// hand-written rows of typed_fast_avx2.hpp and typed_fast_avx512.hpp) against the baseline build of
// src/core/convert.hpp (itself checked against a slow reference in convert_test.cpp), byte for
// byte: every 16-bit input pattern, and for f32 inputs every upper half with the lower halves
// at and around each rounding boundary plus random ones; rows of random lengths so that every
// masked tail runs; conversions also under FTZ/DAZ, which they must ignore.
#include <gtest/gtest.h>
#include <xmmintrin.h>

#include <cstring>
#include <string>
#include <vector>

#include "cpu/typed_ops.hpp"
#include "reference.hpp"

namespace {

using namespace xpose::detail::cpu;
using xpose_test::Rng;
using xpose_test::seed_note;
using xpose_test::test_seed;

struct Case {
  xpose_type_t in, out;
  size_t ie, oe;
  bool alpha, beta;
};

// Inputs of `ie` bytes: every byte (repeated), every 16-bit pattern, or for 4 bytes every upper
// half with these lower halves (f16's rounding point is bit 12, bf16's bit 15: ties, their
// neighbours, odd and even kept bits) and one random lower half.
std::vector<unsigned char> inputs(size_t ie, Rng& rng) {
  std::vector<unsigned char> v;
  if (ie == 1) {  // every byte, several times (rows cross every register position)
    for (int k = 0; k < 9; ++k)
      for (uint32_t x = 0; x < 256; ++x) v.push_back(static_cast<unsigned char>(x));
    return v;
  }
  if (ie == 2) {
    for (uint32_t x = 0; x < 65536; ++x) {
      const auto h = static_cast<uint16_t>(x);
      v.insert(v.end(), reinterpret_cast<const unsigned char*>(&h),
               reinterpret_cast<const unsigned char*>(&h) + 2);
    }
    return v;
  }
  const uint32_t lows[] = {0,      1,      0x0fff, 0x1000, 0x1001, 0x2fff, 0x3000, 0x3001,
                           0x7fff, 0x8000, 0x8001, 0xefff, 0xf000, 0xffff, 0x5555};
  for (uint32_t hi = 0; hi < 65536; ++hi) {
    for (uint32_t lo : lows) {
      const uint32_t x = hi << 16 | lo;
      v.insert(v.end(), reinterpret_cast<const unsigned char*>(&x),
               reinterpret_cast<const unsigned char*>(&x) + 4);
    }
    const uint32_t x = hi << 16 | static_cast<uint32_t>(rng.below(65536));
    v.insert(v.end(), reinterpret_cast<const unsigned char*>(&x),
             reinterpret_cast<const unsigned char*>(&x) + 4);
  }
  return v;
}

// `op` over the inputs as consecutive rows of 1-100 elements (lengths from `seed`), into `out`
// (which beta reads).
void run_rows(RowOp op, const Case& c, const std::vector<unsigned char>& in,
              std::vector<unsigned char>* out, const Scalars& s, uint64_t seed) {
  Rng rng(seed);
  const int64_t n = static_cast<int64_t>(in.size() / c.ie);
  for (int64_t e = 0; e < n;) {
    const int64_t len = std::min<int64_t>(n - e, 1 + static_cast<int64_t>(rng.below(100)));
    op(reinterpret_cast<const char*>(in.data()) + e * c.ie, static_cast<int64_t>(c.ie), 0,
       reinterpret_cast<char*>(out->data()) + e * c.oe, static_cast<int64_t>(c.oe), 0, len, 1,
       s);
    e += len;
  }
}

TEST(TypedOps, EveryInstructionSetMatchesTheBaselineOnEveryPattern) {
  Rng rng(test_seed() ^ 0x0e5);
  SCOPED_TRACE(seed_note());
  const Case cases[] = {{XPOSE_TYPE_F16, XPOSE_TYPE_F32, 2, 4, false, false},
                        {XPOSE_TYPE_F32, XPOSE_TYPE_F16, 4, 2, false, false},
                        {XPOSE_TYPE_F32, XPOSE_TYPE_BF16, 4, 2, false, false},
                        {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3, 2, 1, false, false},
                        {XPOSE_TYPE_F32, XPOSE_TYPE_F8_E4M3, 4, 1, false, false},
                        {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F32, 1, 4, false, false},
                        {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_BF16, 1, 2, false, false},
                        {XPOSE_TYPE_F16, XPOSE_TYPE_BF16, 2, 2, false, false},
                        {XPOSE_TYPE_BF16, XPOSE_TYPE_F16, 2, 2, false, false},
                        {XPOSE_TYPE_F16, XPOSE_TYPE_F8_E4M3, 2, 1, false, false},
                        {XPOSE_TYPE_F16, XPOSE_TYPE_F8_E5M2, 2, 1, false, false},
                        {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E5M2, 2, 1, false, false},
                        {XPOSE_TYPE_F32, XPOSE_TYPE_F8_E5M2, 4, 1, false, false},
                        {XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F16, 1, 2, false, false},
                        {XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F32, 1, 4, false, false},
                        {XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_BF16, 1, 2, false, false},
                        {XPOSE_TYPE_F32, XPOSE_TYPE_F32, 4, 4, false, true},
                        {XPOSE_TYPE_F32, XPOSE_TYPE_F32, 4, 4, true, false},
                        {XPOSE_TYPE_F32, XPOSE_TYPE_F32, 4, 4, true, true}};
  const float scalars[] = {1, -1, 0.5f, 3.25f, -0.1f, 1e30f, 1e-30f};
  for (const Case& c : cases) {
    OpKey key;
    key.in = c.in, key.out = c.out, key.elem_size = c.ie, key.alpha = c.alpha, key.beta = c.beta;
    const RowOp base = typed_row_op_base(key);
    ASSERT_NE(base, nullptr);
    const std::vector<unsigned char> in = inputs(c.ie, rng);
    std::vector<unsigned char> old(in.size() / c.ie * c.oe);
    xpose_test::fill_random(old.data(), old.size(), rng.next());
    Scalars s;
    s.af[0] = c.alpha ? scalars[rng.below(7)] : 1;
    s.bf[0] = c.beta ? scalars[rng.below(7)] : 0;
    std::vector<unsigned char> want = old;
    run_rows(base, c, in, &want, s, rng.next());
    const bool scaled = c.alpha || c.beta;
    for (const char* isa : {"avx2", "avx512"}) {
      const RowOp op =
          std::string(isa) == "avx2" ? typed_row_op_avx2(key) : typed_row_op_avx512(key);
      if (op == nullptr) continue;  // this CPU or build lacks it
      for (bool ftz : {false, true}) {
        if (ftz && scaled) continue;  // scaled values assume FTZ/DAZ off (docs/api.md)
        SCOPED_TRACE(std::string(isa) + " types " + std::to_string(c.in) + "->" +
                     std::to_string(c.out) + " alpha " + std::to_string(s.af[0]) + " beta " +
                     std::to_string(s.bf[0]) + (ftz ? " FTZ/DAZ" : ""));
        std::vector<unsigned char> got = old;
        const unsigned csr = _mm_getcsr();
        if (ftz) _mm_setcsr(csr | 0x8040);
        run_rows(op, c, in, &got, s, rng.next());
        _mm_setcsr(csr);
        size_t bad = 0;
        while (bad < got.size() && got[bad] == want[bad]) ++bad;
        ASSERT_EQ(bad, got.size()) << "first wrong output byte " << bad << " (element "
                                   << bad / c.oe << "): " << int(got[bad]) << " instead of "
                                   << int(want[bad]);
      }
    }
  }
}

}  // namespace
