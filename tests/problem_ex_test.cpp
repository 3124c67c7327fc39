// make_problem_ex: validation of xpose_plan_create_ex's descriptor, normalization with strides
// (a property test: the normalized problem moves exactly the user's (input, output) offset
// pairs), erasure of what changes nothing, and the buffer-overlap check over strided reaches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/problem.hpp"
#include "reference.hpp"

namespace xpose::detail {
namespace {

using Pairs = std::vector<std::pair<int64_t, int64_t>>;

struct Request {
  std::vector<int64_t> ext, in_s, out_s;
  std::vector<int> perm;
  xpose_layout_t layout = XPOSE_COL_MAJOR;
};

// Every (input offset, output offset) the user's request pairs, from its own strides.
Pairs user_pairs(const Request& r) {
  const int rank = static_cast<int>(r.ext.size());
  std::vector<int> inv(rank);
  for (int i = 0; i < rank; ++i) inv[r.perm[i]] = i;
  Pairs out;
  std::vector<int64_t> idx(rank, 0);
  for (bool more = true; more;) {
    int64_t a = 0, b = 0;
    for (int k = 0; k < rank; ++k) {
      a += idx[k] * r.in_s[k];
      b += idx[k] * r.out_s[inv[k]];
    }
    out.emplace_back(a, b);
    more = false;
    for (int k = 0; k < rank && !more; ++k) {
      if (++idx[k] < r.ext[k]) more = true;
      else idx[k] = 0;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The same pairs from a normalized problem.
Pairs problem_pairs(const Problem& p) {
  const Layout in = p.input();
  const Extents os = p.output_strides();
  Pairs out;
  std::vector<int64_t> idx(p.rank, 0);
  for (int64_t n = 0; n < p.volume; ++n) {
    int64_t a = 0, b = 0;
    for (int k = 0; k < p.rank; ++k) {
      a += idx[k] * in.stride[k];
      b += idx[k] * os[k];
    }
    out.emplace_back(a, b);
    for (int k = 0; k < p.rank; ++k) {
      if (++idx[k] < p.extent[k]) break;
      idx[k] = 0;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Dense strides of the request in its layout; output strides per output dim.
void dense_strides(Request* r) {
  const int rank = static_cast<int>(r->ext.size());
  r->in_s.assign(rank, 0);
  r->out_s.assign(rank, 0);
  int64_t si = 1, so = 1;
  for (int j = 0; j < rank; ++j) {
    const int k = r->layout == XPOSE_ROW_MAJOR ? rank - 1 - j : j;
    r->in_s[k] = si;
    r->out_s[k] = so;
    si *= r->ext[k];
    so *= r->ext[r->perm[k]];
  }
}

xpose_status_t make(const Request& r, const xpose_desc_t& d, Problem* p, size_t elem = 4) {
  return make_problem_ex(static_cast<int>(r.ext.size()), r.ext.data(), r.perm.data(), elem, &d,
                         r.layout, p);
}

xpose_desc_t strided_desc(const Request& r) {
  xpose_desc_t d;
  xpose_desc_init(&d);
  d.in_strides = r.in_s.data();
  d.out_strides = r.out_s.data();
  return d;
}

Request random_request(std::mt19937_64& rng) {
  Request r;
  const int rank = static_cast<int>(rng() % 6);
  r.layout = rng() % 2 ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
  for (int k = 0; k < rank; ++k) r.ext.push_back(1 + static_cast<int64_t>(rng() % 4));
  r.perm.resize(rank);
  for (int k = 0; k < rank; ++k) r.perm[k] = k;
  std::shuffle(r.perm.begin(), r.perm.end(), rng);
  return r;
}

TEST(ProblemEx, DenseStridesGiveTheDenseProblem) {
  const uint64_t seed = xpose_test::test_seed();
  std::mt19937_64 rng(seed);
  for (int t = 0; t < 2000; ++t) {
    Request r = random_request(rng);
    dense_strides(&r);
    Problem dense, ex;
    ASSERT_EQ(make_problem(static_cast<int>(r.ext.size()), r.ext.data(), r.perm.data(), 4,
                           r.layout, &dense),
              XPOSE_SUCCESS);
    ASSERT_EQ(make(r, strided_desc(r), &ex), XPOSE_SUCCESS) << xpose_last_error();
    ASSERT_EQ(ex, dense) << "seed " << seed << " case " << t << ": " << ex.to_string() << " vs "
                         << dense.to_string();
    EXPECT_TRUE(ex.plain());
  }
}

TEST(ProblemEx, NormalizationKeepsEveryOffsetPair) {
  const uint64_t seed = xpose_test::test_seed();
  std::mt19937_64 rng(seed);
  int strided = 0;
  for (int t = 0; t < 3000; ++t) {
    Request r = random_request(rng);
    dense_strides(&r);
    const int rank = static_cast<int>(r.ext.size());
    // Pad (scale the dense strides of the outer dims), reverse, broadcast the input.
    for (int side = 0; side < 2; ++side) {
      std::vector<int64_t>& s = side ? r.out_s : r.in_s;
      const int64_t pad = 1 + static_cast<int64_t>(rng() % 3);
      for (int k = 0; k < rank; ++k) {
        if (s[k] > 1) s[k] *= pad;
        if (rng() % 4 == 0) s[k] = -s[k];
        if (side == 0 && rng() % 8 == 0) s[k] = 0;
      }
    }
    Problem p;
    ASSERT_EQ(make(r, strided_desc(r), &p), XPOSE_SUCCESS)
        << "seed " << seed << " case " << t << ": " << xpose_last_error();
    ASSERT_EQ(problem_pairs(p), user_pairs(r)) << "seed " << seed << " case " << t << ": "
                                               << p.to_string();
    // The reach covers every offset.
    for (const auto& [a, b] : user_pairs(r)) {
      ASSERT_TRUE(p.in_lo <= a && a <= p.in_hi) << p.to_string();
      ASSERT_TRUE(p.out_lo <= b && b <= p.out_hi) << p.to_string();
    }
    strided += p.strided;
  }
  EXPECT_GT(strided, 1000);
}

TEST(ProblemEx, FusesOnlyWhereBothSidesAllow) {
  // A 4x5x6 tensor, perm (0,1,2)... (0 and 1 adjacent in both) with padded input: dims 0 and 1
  // fuse only when the input's stride of dim 1 is 4.
  Request r{{4, 5, 6}, {1, 4, 20}, {1, 4, 20}, {0, 1, 2}};
  Problem p;
  ASSERT_EQ(make(r, strided_desc(r), &p), XPOSE_SUCCESS);
  EXPECT_EQ(p.rank, 1);
  EXPECT_FALSE(p.strided);
  r.in_s = {1, 5, 25};  // padded by 1 along dim 0
  ASSERT_EQ(make(r, strided_desc(r), &p), XPOSE_SUCCESS);
  EXPECT_EQ(p.rank, 2);  // dims 1 and 2 still fuse (25 = 5 x 5, 20 = 4 x 5)
  EXPECT_TRUE(p.strided);
  EXPECT_EQ(p.extent[0], 4);
  EXPECT_EQ(p.extent[1], 30);
  EXPECT_EQ(p.in_stride[1], 5);
  EXPECT_EQ(p.out_stride[1], 4);
  EXPECT_EQ(p.in_hi, 3 + 29 * 5);
}

TEST(ProblemEx, TypesAndScalarsAreErasedWhereTheyChangeNothing) {
  Request r{{8, 9}, {}, {}, {1, 0}};
  xpose_desc_t d;
  xpose_desc_init(&d);
  d.in_type = XPOSE_TYPE_F32;
  Problem p;
  ASSERT_EQ(make(r, d, &p, 0), XPOSE_SUCCESS);
  EXPECT_TRUE(p.plain());
  EXPECT_EQ(p.elem_size, 4u);
  d.beta[0] = 1;
  ASSERT_EQ(make(r, d, &p, 4), XPOSE_SUCCESS);
  EXPECT_TRUE(p.typed());
  EXPECT_EQ(p.in_type, XPOSE_TYPE_F32);
  d.in_type = XPOSE_TYPE_I16;  // integer addition: one unsigned type per size
  ASSERT_EQ(make(r, d, &p, 2), XPOSE_SUCCESS);
  EXPECT_EQ(p.in_type, XPOSE_TYPE_U16);
  EXPECT_EQ(p.out_type, XPOSE_TYPE_U16);
  d.in_type = XPOSE_TYPE_F32;
  d.out_type = XPOSE_TYPE_BF16;
  d.beta[0] = 0;
  d.alpha[1] = 7;  // ignored by a real type
  ASSERT_EQ(make(r, d, &p, 0), XPOSE_SUCCESS);
  EXPECT_TRUE(p.converts());
  EXPECT_EQ(p.out_elem_size, 2u);
  EXPECT_EQ(p.out_bytes(), 8 * 9 * 2);
  EXPECT_EQ(p.alpha[1], 0);
  EXPECT_NE(p.to_string().find("f32->bf16"), std::string::npos) << p.to_string();
}

struct Refusal {
  const char* what;
  xpose_status_t status;
  const char* message;
};

TEST(ProblemEx, RefusesBadDescriptorsWithAMessage) {
  const Request r{{8, 9}, {}, {}, {1, 0}};
  const int64_t alias[2] = {1, 0}, overlap[2] = {2, 3}, huge[2] = {int64_t{1} << 61, 1};
  std::vector<std::pair<xpose_desc_t, Refusal>> cases;
  const auto add = [&](auto edit, Refusal want) {
    xpose_desc_t d;
    xpose_desc_init(&d);
    edit(d);
    cases.emplace_back(d, want);
  };
  add([](xpose_desc_t& d) { d.struct_size = 8; },
      {"struct_size", XPOSE_ERROR_INVALID_ARGUMENT, "struct_size = 8"});
  // Out-of-range enum values as a C caller stores them (loading them as the enum is undefined).
  const auto store = [](xpose_type_t* field, int raw) { std::memcpy(field, &raw, sizeof raw); };
  add([&](xpose_desc_t& d) { store(&d.in_type, 99); },
      {"in_type", XPOSE_ERROR_INVALID_ARGUMENT, "in_type = 99"});
  add([&](xpose_desc_t& d) { store(&d.out_type, -1); },
      {"out_type", XPOSE_ERROR_INVALID_ARGUMENT, "out_type = -1"});
  add([](xpose_desc_t& d) { d.in_type = XPOSE_TYPE_F16; },
      {"elem_size", XPOSE_ERROR_INVALID_ARGUMENT, "does not match desc->in_type f16"});
  add([](xpose_desc_t& d) { d.in_type = XPOSE_TYPE_I32, d.out_type = XPOSE_TYPE_F32; },
      {"conversion", XPOSE_ERROR_UNSUPPORTED, "no conversion from i32 to f32"});
  add([](xpose_desc_t& d) { d.in_type = XPOSE_TYPE_C32, d.out_type = XPOSE_TYPE_F32; },
      {"complex", XPOSE_ERROR_UNSUPPORTED, "no conversion from c32 to f32"});
  add([](xpose_desc_t& d) { d.in_type = XPOSE_TYPE_I32, d.alpha[0] = 2; },
      {"int alpha", XPOSE_ERROR_UNSUPPORTED, "integer and BYTES types take"});
  add([](xpose_desc_t& d) { d.beta[0] = 0.5; },
      {"bytes beta", XPOSE_ERROR_UNSUPPORTED, "integer and BYTES types take"});
  add([](xpose_desc_t& d) { d.in_type = XPOSE_TYPE_F32, d.alpha[0] = NAN; },
      {"NaN alpha", XPOSE_ERROR_INVALID_ARGUMENT, "alpha = {nan, 0} is NaN"});
  add([](xpose_desc_t& d) { d.in_type = XPOSE_TYPE_C32, d.beta[1] = NAN; },
      {"NaN beta", XPOSE_ERROR_INVALID_ARGUMENT, "beta = {0, nan} is NaN"});
  add([&](xpose_desc_t& d) { d.out_strides = alias; },
      {"alias", XPOSE_ERROR_INVALID_ARGUMENT, "share an address"});
  add([&](xpose_desc_t& d) { d.out_strides = overlap; },
      {"overlap", XPOSE_ERROR_INVALID_ARGUMENT, "share an address"});
  add([&](xpose_desc_t& d) { d.in_strides = huge; },
      {"reach", XPOSE_ERROR_INVALID_ARGUMENT, "in_strides reach past 2^63 bytes"});
  for (const auto& [d, want] : cases) {
    Problem p;
    int in_type;
    std::memcpy(&in_type, &d.in_type, sizeof in_type);
    const size_t elem = in_type == XPOSE_TYPE_C32 ? 8 : 4;
    EXPECT_EQ(make(r, d, &p, elem), want.status) << want.what;
    EXPECT_NE(std::string(xpose_last_error()).find(want.message), std::string::npos)
        << want.what << ": " << xpose_last_error();
  }
  // 16-byte BYTES elements have no integer addition.
  xpose_desc_t d;
  xpose_desc_init(&d);
  d.beta[0] = 1;
  Problem p;
  EXPECT_EQ(make(r, d, &p, 16), XPOSE_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(xpose_last_error()).find("16 bytes"), std::string::npos);
}

TEST(ProblemEx, AWiderOutputTypeMustFitIn64Bits) {
  // 2^61 one-byte elements fit; as f64 they would be 2^64 bytes.
  const int64_t ext[2] = {int64_t{1} << 31, int64_t{1} << 30};
  const int perm[2] = {1, 0};
  xpose_desc_t d;
  xpose_desc_init(&d);
  d.in_type = XPOSE_TYPE_F8_E5M2;
  d.out_type = XPOSE_TYPE_F64;
  Problem p;
  EXPECT_EQ(make_problem_ex(2, ext, perm, 1, &d, XPOSE_COL_MAJOR, &p),
            XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("output's size in bytes"), std::string::npos)
      << xpose_last_error();
  d.out_type = XPOSE_TYPE_F16;  // 2^62 bytes: fine
  EXPECT_EQ(make_problem_ex(2, ext, perm, 1, &d, XPOSE_COL_MAJOR, &p), XPOSE_SUCCESS);
}

TEST(ProblemEx, TypedCpuPlansOfNearly2To63Bytes) {
  // CI fuzzer finding: the CPU typed plan's row count rounded up as (n + seg - 1) / seg, past
  // 2^63 for a rank-1 tensor of 2^63 - 2 one-byte elements (UBSan; plans only, nothing runs).
  const xpose_options_t o = xpose_test::cpu_options();
  for (int64_t n : {std::numeric_limits<int64_t>::max() - 1, int64_t{1} << 62}) {
    const int64_t ext[2] = {n, 1};
    const int perm[2] = {1, 0};
    xpose_desc_t d;
    xpose_desc_init(&d);
    d.in_type = XPOSE_TYPE_F8_E4M3;
    d.out_type = XPOSE_TYPE_F8_E5M2;
    xpose_plan_t plan = nullptr;
    EXPECT_EQ(xpose_plan_create_ex(&plan, 2, ext, perm, 0, &d, &o), XPOSE_SUCCESS)
        << xpose_last_error();
    xpose_plan_destroy(plan);
  }
}

TEST(ProblemEx, OverlapCheckFollowsTheStridedReach) {
  // A reversed 100-element input reaches offsets -99..0: an output right below it overlaps.
  const int64_t ext[1] = {100}, neg[1] = {-1};
  const int perm[1] = {0};
  xpose_desc_t d;
  xpose_desc_init(&d);
  d.in_strides = neg;
  Problem p;
  ASSERT_EQ(make_problem_ex(1, ext, perm, 4, &d, XPOSE_COL_MAJOR, &p), XPOSE_SUCCESS);
  EXPECT_TRUE(p.strided);
  EXPECT_EQ(p.in_lo, -99);
  EXPECT_EQ(p.in_hi, 0);
  std::vector<float> buf(400);
  EXPECT_EQ(check_buffers(p, buf.data() + 399, buf.data() + 300), XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(check_buffers(p, buf.data() + 399, buf.data() + 200), XPOSE_SUCCESS);
  EXPECT_EQ(check_buffers(p, buf.data() + 99, buf.data() + 100), XPOSE_SUCCESS);
  EXPECT_EQ(check_buffers(p, buf.data() + 99, buf.data() + 99), XPOSE_ERROR_INVALID_ARGUMENT);
}

TEST(ProblemEx, FusionTestDoesNotOverflow) {
  // Fuzzer finding: (extent - 1) x stride fits in 64 bits, extent x stride does not.
  const Request r{{3, 2}, {-3446330423836209407, 1}, {1, 3}, {0, 1}};
  Problem p;
  ASSERT_EQ(make(r, strided_desc(r), &p, 1), XPOSE_SUCCESS) << xpose_last_error();
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(problem_pairs(p), user_pairs(r));
}

TEST(ProblemEx, MinusZeroAlphaIsItsOwnPlan) {
  // Fuzzer finding (hptt_fuzzer): -0.0 == +0.0, so the plan cache served alpha = -0.0's plan to
  // alpha = +0.0 and 0 * x came out with the wrong sign. Scalars compare bit for bit.
  const Request r{{8}, {}, {}, {0}};
  xpose_desc_t d;
  xpose_desc_init(&d);
  d.in_type = XPOSE_TYPE_F32;
  d.alpha[0] = -0.0;
  Problem neg, pos;
  ASSERT_EQ(make(r, d, &neg, 4), XPOSE_SUCCESS);
  d.alpha[0] = 0.0;
  ASSERT_EQ(make(r, d, &pos, 4), XPOSE_SUCCESS);
  EXPECT_FALSE(neg == pos);
  EXPECT_NE(hash_value(neg), hash_value(pos));
  const xpose_options_t o = xpose_test::cpu_options();
  const float in[8] = {-1, -2, 3, -4, 5, -6, 7, -8};
  for (double alpha : {-0.0, 0.0, -0.0}) {
    d.alpha[0] = alpha;
    xpose_plan_t plan = nullptr;
    ASSERT_EQ(xpose_plan_create_ex(&plan, 1, r.ext.data(), r.perm.data(), 4, &d, &o),
              XPOSE_SUCCESS);
    float out[8];
    ASSERT_EQ(xpose_execute(plan, in, out, nullptr), XPOSE_SUCCESS);
    xpose_plan_destroy(plan);
    for (int k = 0; k < 8; ++k)
      EXPECT_EQ(std::signbit(out[k]), std::signbit(static_cast<float>(alpha)) != (in[k] < 0))
          << "alpha " << alpha << " k " << k;
  }
  // A beta of -0.0 does not read out, as +0.0: one problem.
  d.alpha[0] = 2;
  d.beta[0] = -0.0;
  ASSERT_EQ(make(r, d, &neg, 4), XPOSE_SUCCESS);
  d.beta[0] = 0.0;
  ASSERT_EQ(make(r, d, &pos, 4), XPOSE_SUCCESS);
  EXPECT_TRUE(neg == pos);
}

TEST(ProblemEx, NullDescIsThePlainEntryPoint) {
  const int64_t ext[3] = {7, 1, 5};
  const int perm[3] = {2, 0, 1};
  Problem a, b;
  ASSERT_EQ(make_problem_ex(3, ext, perm, 8, nullptr, XPOSE_ROW_MAJOR, &a), XPOSE_SUCCESS);
  ASSERT_EQ(make_problem(3, ext, perm, 8, XPOSE_ROW_MAJOR, &b), XPOSE_SUCCESS);
  EXPECT_EQ(a, b);
  xpose_desc_t d;
  xpose_desc_init(&d);
  ASSERT_EQ(make_problem_ex(3, ext, perm, 8, &d, XPOSE_ROW_MAJOR, &a), XPOSE_SUCCESS);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace xpose::detail
