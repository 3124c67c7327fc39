// The CPU backend's typed schema (src/cpu/typed_plan.cpp) against the naive reference of
// typed_reference.hpp: random problems (ranks 0-6, odd extents, extent 1) for every type pair
// the API admits, strides of both signs, padding, broadcast input (stride 0), alpha/beta, both
// layouts, 1-4 threads; outputs pre-filled with random bytes (what beta reads, and what the
// plan must leave alone between strided elements) and guard bytes checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cpu/fused_tiles.hpp"
#include "cpu/typed_tiles.hpp"
#include "reference.hpp"
#include "typed_reference.hpp"

namespace {

using namespace xpose::detail;
using xpose_test::reach;
using xpose_test::reference_typed;
using xpose_test::Rng;
using xpose_test::seed_note;
using xpose_test::test_seed;
using xpose_test::TypedCase;

// The Problem a case denotes, built by hand: column-major, dims neither dropped nor fused (the
// typed schema must not rely on normalization), strided unless both tensors are dense and the
// case converts or scales (then typed_tiles.cpp's tiled engine takes it, as make_problem_ex's
// dense problems), a same-type unscaled case as BYTES as make_problem_ex erases it.
Problem problem_of(const TypedCase& c) {
  Problem p;
  const int r = c.rank();
  const bool rm = c.layout == XPOSE_ROW_MAJOR;
  const std::vector<int64_t> is = c.input_strides(), os = c.output_strides();
  p.rank = r;
  p.volume = c.volume();
  for (int k = 0; k < r; ++k) {
    const int u = rm ? r - 1 - k : k;  // user dim of column-major dim k
    p.extent[k] = c.extents[u];
    p.in_stride[k] = is[u];
    p.perm[k] = rm ? r - 1 - c.perm[r - 1 - k] : c.perm[k];
  }
  for (int i = 0; i < r; ++i) p.out_stride[p.perm[i]] = os[rm ? r - 1 - i : i];
  int64_t in_dense = 1, out_dense = 1;
  for (int k = 0; k < r; ++k) {
    p.strided = p.strided || p.in_stride[k] != in_dense || p.out_stride[p.perm[k]] != out_dense;
    in_dense *= p.extent[k];
    out_dense *= p.extent[p.perm[k]];
  }
  p.elem_size = c.in_elem();
  p.out_elem_size = c.out_elem();
  const bool scaled = c.alpha[0] != 1 || c.alpha[1] != 0 || c.beta[0] != 0 || c.beta[1] != 0;
  const bool erased = c.resolved_out() == c.in_type && !scaled;
  p.in_type = erased ? XPOSE_TYPE_BYTES : c.in_type;
  p.out_type = erased ? XPOSE_TYPE_BYTES : c.resolved_out();
  for (int k = 0; k < 2; ++k) p.alpha[k] = c.alpha[k], p.beta[k] = c.beta[k];
  reach(c.extents, is, &p.in_lo, &p.in_hi);
  reach(c.out_extents(), os, &p.out_lo, &p.out_hi);
  if (p.plain() && !p.reads_out()) p.strided = true;  // typed: plain schemas want normalized ones
  return p;
}

// Strides for `ext` in the case's layout: dense, padded by 1-7 elements on each side of every
// dim (the buffer covers the reach of the view; the padding between rows stays untouched), with
// random signs, or (input only) with broadcast dims.
std::vector<int64_t> random_strides(Rng& rng, const TypedCase& c, const std::vector<int64_t>& ext,
                                    bool input) {
  const int style = static_cast<int>(rng.below(4));  // 0 dense, 1 padded, 2 signs, 3 broadcast
  std::vector<int64_t> s = c.dense(ext);
  if (style == 0) return s;
  const size_t r = ext.size();
  std::vector<int64_t> full(r);
  std::vector<int64_t> lo(r);
  for (size_t k = 0; k < r; ++k) {
    lo[k] = style == 1 ? 1 + static_cast<int64_t>(rng.below(7)) : 0;
    full[k] = ext[k] + lo[k] + (style == 1 ? 1 + static_cast<int64_t>(rng.below(7)) : 0);
  }
  s = c.dense(full);
  for (size_t k = 0; k < r; ++k) {
    if (style == 2 && rng.below(2)) s[k] = -s[k];
    if (style == 3 && input && rng.below(3) == 0) s[k] = 0;
  }
  return s;
}

double random_scalar(Rng& rng) {
  const double choices[] = {1, 0, -1, 0.5, 3.25, -0.1};
  return rng.below(3) ? choices[rng.below(6)] : rng.unit() * 8 - 4;
}

// Runs one case through cpu_make_plan on a hand-built Problem (or, with `api`, through
// xpose_plan_create_ex and xpose_execute) and the reference (gtest assertions); the plan's
// description must start with `plan_prefix`.
void check(const TypedCase& c, int threads, uint64_t seed, const std::string& schema = "",
           bool api = false, const std::string& plan_prefix = "") {
  const std::vector<int64_t> is = c.input_strides(), os = c.output_strides();
  int64_t ilo, ihi, olo, ohi;
  reach(c.extents, is, &ilo, &ihi);
  reach(c.out_extents(), os, &olo, &ohi);
  const int64_t ie = static_cast<int64_t>(c.in_elem()), oe = static_cast<int64_t>(c.out_elem());
  xpose_test::GuardedBuffer in((ihi - ilo + 1) * ie), out((ohi - olo + 1) * oe);
  xpose_test::fill_random(in.data(), in.size(), seed);
  xpose_test::fill_random(out.data(), out.size(), seed ^ 0xabcdef);
  std::vector<unsigned char> want(out.data(), out.data() + out.size());
  reference_typed(c, in.data() - ilo * ie, want.data() - olo * oe);

  std::string described;
  if (api) {
    const xpose_options_t o = xpose_test::cpu_options(c.layout, threads);
    const xpose_desc_t d = c.desc();
    xpose_plan_t plan = nullptr;
    const size_t elem = c.in_type == XPOSE_TYPE_BYTES ? c.elem_size : 0;
    ASSERT_EQ(xpose_plan_create_ex(&plan, c.rank(), c.extents.data(), c.perm.data(), elem, &d, &o),
              XPOSE_SUCCESS)
        << xpose_last_error();
    ASSERT_EQ(xpose_execute(plan, in.data() - ilo * ie, out.data() - olo * oe, nullptr),
              XPOSE_SUCCESS)
        << xpose_last_error();
    char text[1024];
    xpose_plan_describe(plan, text, sizeof text);
    described = text;
    xpose_plan_destroy(plan);
  } else {
    const Problem p = problem_of(c);
    const xpose_options_t o = xpose_test::cpu_options(XPOSE_COL_MAJOR, threads);
    BackendPlanPtr plan;
    ASSERT_EQ(cpu_make_plan(p, o, schema, &plan), XPOSE_SUCCESS)
        << xpose_last_error();
    if (c.volume() > 0)
      ASSERT_EQ(plan->execute(in.data() - ilo * ie, out.data() - olo * oe, nullptr),
                XPOSE_SUCCESS);
    described = plan->describe();
  }
  ASSERT_EQ(described.rfind(plan_prefix, 0), 0u) << described;
  ASSERT_TRUE(out.guards_intact()) << "wrote outside the output";
  const int64_t bad = xpose_test::first_mismatch(out.data(), want.data(),
                                                 static_cast<int64_t>(out.size()), 1);
  ASSERT_EQ(bad, -1) << "first wrong output byte " << bad << " of " << out.size() << ": "
                     << int(out.data()[bad]) << " instead of " << int(want[bad]) << "\n"
                     << described;
}

std::string describe(const TypedCase& c) {
  return "extents " + xpose_test::str(c.extents) + " perm " + xpose_test::str(c.perm) +
         " types " + std::to_string(c.in_type) + "->" + std::to_string(c.out_type) +
         " in_strides " + xpose_test::str(c.in_strides) + " out_strides " +
         xpose_test::str(c.out_strides) + " alpha " + std::to_string(c.alpha[0]) + "," +
         std::to_string(c.alpha[1]) + " beta " + std::to_string(c.beta[0]) + "," +
         std::to_string(c.beta[1]) + (c.layout == XPOSE_ROW_MAJOR ? " row-major" : "");
}

// A random case of types in -> out: rank 0-6 with small odd extents, or (big) rank 2-3 with
// extents that span several tiles and row segments.
TypedCase random_case(Rng& rng, xpose_type_t in, xpose_type_t out, size_t bytes, bool big) {
  TypedCase c;
  c.in_type = in;
  c.out_type = out;
  c.elem_size = bytes;
  c.layout = rng.below(2) ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
  const int rank = big ? 2 + static_cast<int>(rng.below(2)) : static_cast<int>(rng.below(7));
  for (int k = 0; k < rank; ++k)
    c.extents.push_back(big ? (k < 2 ? 100 + static_cast<int64_t>(rng.below(300)) : 3)
                            : 1 + static_cast<int64_t>(rng.below(7)));
  if (big && rank == 2 && rng.below(2)) c.extents[0] = 5000 + rng.below(4000);  // row segments
  c.perm = rng.permutation(rank);
  c.in_strides = random_strides(rng, c, c.extents, true);
  c.out_strides = random_strides(rng, c, c.out_extents(), false);
  const bool floating = xpose_test::is_floating(in) || xpose_test::is_complex(in);
  if (floating) {
    if (rng.below(2)) c.alpha[0] = random_scalar(rng);
    if (rng.below(2)) c.beta[0] = random_scalar(rng);
    if (xpose_test::is_complex(in)) {
      if (rng.below(2)) c.alpha[1] = random_scalar(rng);
      if (rng.below(2)) c.beta[1] = random_scalar(rng);
    }
  } else if (rng.below(2) && c.in_elem() <= 8) {  // no 128-bit integer addition
    c.beta[0] = 1;
  }
  return c;
}

struct Pair {
  xpose_type_t in, out;
  size_t bytes;
};

std::vector<Pair> allowed_pairs() {
  std::vector<Pair> v;
  for (int a = XPOSE_TYPE_F8_E4M3; a <= XPOSE_TYPE_F64; ++a)
    for (int b = XPOSE_TYPE_F8_E4M3; b <= XPOSE_TYPE_F64; ++b)
      v.push_back({xpose_type_t(a), xpose_type_t(b), 0});
  for (int a = XPOSE_TYPE_C32; a <= XPOSE_TYPE_C64; ++a)
    for (int b = XPOSE_TYPE_C32; b <= XPOSE_TYPE_C64; ++b)
      v.push_back({xpose_type_t(a), xpose_type_t(b), 0});
  for (int a = XPOSE_TYPE_I8; a <= XPOSE_TYPE_U64; ++a)
    v.push_back({xpose_type_t(a), xpose_type_t(a), 0});
  for (size_t b : {1, 2, 4, 8, 16}) v.push_back({XPOSE_TYPE_BYTES, XPOSE_TYPE_BYTES, b});
  return v;
}

TEST(TypedCpu, EveryTypePairOnRandomSmallProblems) {
  Rng rng(test_seed() ^ 0x7e9ed);
  SCOPED_TRACE(seed_note());
  for (const Pair& pr : allowed_pairs()) {
    for (int i = 0; i < 12; ++i) {
      const TypedCase c = random_case(rng, pr.in, pr.out, pr.bytes, false);
      SCOPED_TRACE(describe(c));
      check(c, 1 + static_cast<int>(rng.below(4)), rng.next());
      if (HasFatalFailure()) return;
    }
  }
}

TEST(TypedCpu, LargerProblemsSpanTilesAndRowSegments) {
  Rng rng(test_seed() ^ 0x1a26e);
  SCOPED_TRACE(seed_note());
  const std::vector<Pair> pairs = allowed_pairs();
  for (int i = 0; i < 60; ++i) {
    const Pair pr = pairs[rng.below(pairs.size())];
    const TypedCase c = random_case(rng, pr.in, pr.out, pr.bytes, true);
    SCOPED_TRACE(describe(c));
    check(c, 1 + static_cast<int>(rng.below(4)), rng.next());
    if (HasFatalFailure()) return;
  }
}

// Every instruction set of the element operations gives the same bytes.
TEST(TypedCpu, EveryInstructionSetAgrees) {
  Rng rng(test_seed() ^ 0x15a);
  SCOPED_TRACE(seed_note());
  const Pair pairs[] = {
      {XPOSE_TYPE_F32, XPOSE_TYPE_BF16, 0},     {XPOSE_TYPE_F32, XPOSE_TYPE_F16, 0},
      {XPOSE_TYPE_F16, XPOSE_TYPE_F32, 0},      {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3, 0},
      {XPOSE_TYPE_F64, XPOSE_TYPE_F8_E5M2, 0},  {XPOSE_TYPE_F32, XPOSE_TYPE_F32, 0},
      {XPOSE_TYPE_C32, XPOSE_TYPE_C64, 0}};
  for (const Pair& pr : pairs)
    for (const char* isa : {"scalar", "avx2", "avx512"}) {
      if (std::string(isa) == "avx2" && !__builtin_cpu_supports("avx2")) continue;
      if (std::string(isa) == "avx512" && !__builtin_cpu_supports("avx512bw")) continue;
      const TypedCase c = random_case(rng, pr.in, pr.out, 0, true);
      SCOPED_TRACE(describe(c) + " isa " + isa);
      check(c, 2, rng.next(), std::string("typed:isa=") + isa);
      if (HasFatalFailure()) return;
    }
}

// Dense tensors of at least 2 in every extent whose leading dim moves: the tiled engine with the
// operation fused into each tile (typed_tiles.cpp), its default and forced tiles and both store
// modes, against the reference.
TEST(TypedCpu, DenseProblemsThroughTheTiledEngine) {
  Rng rng(test_seed() ^ 0xde45e);
  SCOPED_TRACE(seed_note());
  const std::vector<Pair> pairs = allowed_pairs();
  // Every other case from f32, whose rows have hand-written code (typed_fast_avx2/avx512.hpp).
  const Pair from_f32[] = {{XPOSE_TYPE_F32, XPOSE_TYPE_BF16, 0},
                           {XPOSE_TYPE_F32, XPOSE_TYPE_F16, 0},
                           {XPOSE_TYPE_F32, XPOSE_TYPE_F32, 0}};
  const char* schemas[] = {"", "typed:nt=1", "typed:nt=0", "typed:ti=3,to=5,nt=1",
                           "typed:ti=17,to=33,nt=1", "typed:ti=256,to=8"};
  for (int i = 0; i < 150; ++i) {
    const Pair pr = i % 2 ? pairs[rng.below(pairs.size())] : from_f32[rng.below(3)];
    TypedCase c = random_case(rng, pr.in, pr.out, pr.bytes, i % 3 == 0);
    for (int64_t& e : c.extents) e = std::max<int64_t>(e, 2);
    if (c.rank() < 2) c.extents = {2 + static_cast<int64_t>(rng.below(90)), 3}, c.perm = {1, 0};
    if (c.perm[c.layout == XPOSE_ROW_MAJOR ? c.rank() - 1 : 0] ==
        (c.layout == XPOSE_ROW_MAJOR ? c.rank() - 1 : 0))
      std::reverse(c.perm.begin(), c.perm.end());  // the leading dim moves
    c.in_strides = c.dense(c.extents);
    c.out_strides = c.dense(c.out_extents());
    const char* schema = schemas[rng.below(6)];
    SCOPED_TRACE(describe(c) + " schema " + schema);
    const bool scaled = c.alpha[0] != 1 || c.alpha[1] != 0 || c.beta[0] != 0 || c.beta[1] != 0;
    const bool copy = c.resolved_out() == c.in_type && !scaled;  // a plain problem: not typed
    check(c, 1 + static_cast<int>(rng.below(4)), rng.next(), schema, false,
          copy ? "" : "typed ti=");
    if (HasFatalFailure()) return;
  }
}

// The description of the plan cpu_make_plan makes for `c` under `schema`.
std::string plan_text(const TypedCase& c, const std::string& schema) {
  BackendPlanPtr plan;
  const xpose_options_t o = xpose_test::cpu_options(XPOSE_COL_MAJOR, 1);
  return cpu_make_plan(problem_of(c), o, schema, &plan) == XPOSE_SUCCESS ? plan->describe() : "";
}

// Narrowing conversions (fewer output bytes) in tiles of at most 64 columns convert each input
// column first and transpose in the output's element size (typed_tiles.cpp, ConvertFirstTile);
// wider tiles, widening conversions and beta transpose first. Every tile edge against the
// reference.
TEST(TypedCpu, NarrowingTilesConvertFirst) {
  Rng rng(test_seed() ^ 0xc0f1);
  SCOPED_TRACE(seed_note());
  const Pair pairs[] = {
      {XPOSE_TYPE_F32, XPOSE_TYPE_BF16, 0}, {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3, 0},
      {XPOSE_TYPE_F32, XPOSE_TYPE_F8_E5M2, 0}, {XPOSE_TYPE_F64, XPOSE_TYPE_F16, 0},
      {XPOSE_TYPE_F16, XPOSE_TYPE_F32, 0}, {XPOSE_TYPE_C64, XPOSE_TYPE_C32, 0}};
  const char* schemas[] = {"typed:ti=200,to=16,nt=1", "typed:ti=37,to=64,nt=0", "typed:ti=9,to=3",
                           "typed:ti=64,to=120,nt=1", ""};
  for (int i = 0; i < 60; ++i) {
    const Pair pr = pairs[rng.below(6)];
    TypedCase c;
    c.in_type = pr.in, c.out_type = pr.out;
    c.extents = {2 + static_cast<int64_t>(rng.below(300)), 2 + static_cast<int64_t>(rng.below(90)),
                 2 + static_cast<int64_t>(rng.below(4))};
    c.perm = rng.below(2) ? std::vector<int>{1, 0, 2} : std::vector<int>{2, 0, 1};
    c.in_strides = c.dense(c.extents);
    c.out_strides = c.dense(c.out_extents());
    if (rng.below(3) == 0) c.alpha[0] = random_scalar(rng);
    if (rng.below(4) == 0) c.beta[0] = random_scalar(rng);
    const std::string schema = schemas[rng.below(5)];
    SCOPED_TRACE(describe(c) + " schema " + schema);
    const std::string text = plan_text(c, schema);  // "typed ti=.. to=.. ..."
    const size_t to = text.find(" to=");
    ASSERT_NE(to, std::string::npos) << text;
    const bool first = cpu::converts_first(c.in_elem(), c.out_elem(), c.beta[0] != 0,
                                           std::stoi(text.substr(to + 4)));
    const bool fused = c.alpha[0] == 1 && c.beta[0] == 0 &&
                       cpu::takes_fused_tile(c.in_type, c.out_type, cpu::Isa::kBest,
                                             std::stoi(text.substr(to + 4)));
    EXPECT_NE(text.find(fused ? "fused" : first ? "typed into" : "typed over"), std::string::npos)
        << text;
    check(c, 1 + static_cast<int>(rng.below(4)), rng.next(), schema, false, "typed ti=");
    if (HasFatalFailure()) return;
  }
}

// The fused tile kernels (fused_tiles_avx512.cpp: conversion in registers between the block
// transpose and the store) on every pair they have, in tiles of every shape against their 8 x 16
// and 8 x 32 blocks (fewer rows than a block, ragged, overlapping; tiles narrower than a block
// keep the band conversion), both store modes, 1-4 threads; the same cases with AVX2 forced (no
// fused kernel) give the same bytes. Where this CPU has no fused kernel (no AVX-512 BW/DQ), the
// plans convert in bands as before.
TEST(TypedCpu, FusedTilesMatchReference) {
  Rng rng(test_seed() ^ 0xf05ed);
  SCOPED_TRACE(seed_note());
  const Pair pairs[] = {{XPOSE_TYPE_F32, XPOSE_TYPE_BF16, 0},
                        {XPOSE_TYPE_F32, XPOSE_TYPE_F16, 0},
                        {XPOSE_TYPE_F32, XPOSE_TYPE_F8_E4M3, 0},
                        {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3, 0},
                        {XPOSE_TYPE_F16, XPOSE_TYPE_BF16, 0},
                        {XPOSE_TYPE_BF16, XPOSE_TYPE_F16, 0},
                        {XPOSE_TYPE_F16, XPOSE_TYPE_F8_E4M3, 0},
                        {XPOSE_TYPE_F32, XPOSE_TYPE_F8_E5M2, 0},
                        {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E5M2, 0},
                        {XPOSE_TYPE_F16, XPOSE_TYPE_F8_E5M2, 0}};
  const char* schemas[] = {"",
                           "typed:ti=3,to=5",
                           "typed:ti=8,to=16,nt=1",
                           "typed:ti=8,to=32,nt=0",
                           "typed:ti=17,to=33,nt=1",
                           "typed:ti=7,to=40,nt=0",
                           "typed:ti=256,to=16",
                           "typed:ti=5,to=32",
                           "typed:ti=3,to=47",
                           "typed:ti=64,to=64,nt=1",
                           "typed:ti=1,to=200"};
  for (int i = 0; i < 160; ++i) {
    const Pair pr = pairs[rng.below(10)];
    TypedCase c;
    c.in_type = pr.in, c.out_type = pr.out;
    c.layout = rng.below(2) ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
    const int rank = 2 + static_cast<int>(rng.below(3));
    for (int k = 0; k < rank; ++k)
      c.extents.push_back(2 + static_cast<int64_t>(rng.below(k < 2 ? 150 : 6)));
    do {
      c.perm = rng.permutation(rank);
    } while (c.perm[c.layout == XPOSE_ROW_MAJOR ? rank - 1 : 0] ==
             (c.layout == XPOSE_ROW_MAJOR ? rank - 1 : 0));  // the leading dim moves
    c.in_strides = c.dense(c.extents);
    c.out_strides = c.dense(c.out_extents());
    const std::string schema = schemas[rng.below(11)];
    SCOPED_TRACE(describe(c) + " schema " + schema);
    const std::string text = plan_text(c, schema);  // "typed ti=.. to=.. ..."
    const size_t to = text.find(" to=");
    ASSERT_NE(to, std::string::npos) << text;
    const bool fused =
        cpu::takes_fused_tile(pr.in, pr.out, cpu::Isa::kBest, std::stoi(text.substr(to + 4)));
    EXPECT_EQ(text.find("kernel=fused") != std::string::npos, fused) << text;
    const int threads = 1 + static_cast<int>(rng.below(4));
    const uint64_t seed = rng.next();
    check(c, threads, seed, schema, false, "typed ti=");
    if (HasFatalFailure()) return;
    const std::string avx2 = schema.empty() ? "typed:isa=avx2" : schema + ",isa=avx2";
    if (__builtin_cpu_supports("avx2")) {
      EXPECT_EQ(plan_text(c, avx2).find("kernel=fused"), std::string::npos);
      check(c, threads, seed, avx2, false, "typed ti=");
      if (HasFatalFailure()) return;
    }
  }
}

// The rows shape (the leading dim stays) with output-continuing dims: runs along it short
// (converted straight from the input, 2D operations along the next group dim) and long
// (gathered first), rows cut by segments mid-run, dense or padded input, both store modes.
TEST(TypedCpu, RowsOfShortAndLongRuns) {
  Rng rng(test_seed() ^ 0x5e9);
  SCOPED_TRACE(seed_note());
  const Pair pairs[] = {
      {XPOSE_TYPE_F32, XPOSE_TYPE_BF16, 0}, {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3, 0},
      {XPOSE_TYPE_F16, XPOSE_TYPE_F32, 0}, {XPOSE_TYPE_F32, XPOSE_TYPE_F32, 0},
      {XPOSE_TYPE_BYTES, XPOSE_TYPE_BYTES, 2}};
  const char* schemas[] = {"typed:nt=1", "typed:nt=0", ""};
  for (int i = 0; i < 40; ++i) {
    const Pair pr = pairs[rng.below(5)];
    TypedCase c;
    c.in_type = pr.in, c.out_type = pr.out, c.elem_size = pr.bytes;
    const int64_t lead = rng.below(2) ? 2 + rng.below(39) : 60 + rng.below(300);
    c.extents = {lead, 2 + static_cast<int64_t>(rng.below(30)),
                 2 + static_cast<int64_t>(rng.below(30)), 1 + static_cast<int64_t>(rng.below(12))};
    c.perm = rng.below(2) ? std::vector<int>{0, 2, 1, 3} : std::vector<int>{0, 3, 2, 1};
    std::vector<int64_t> padded = c.extents;  // dense, or padded by 1-7 per dim
    if (rng.below(2))
      for (int64_t& e : padded) e += 1 + static_cast<int64_t>(rng.below(7));
    c.in_strides = c.dense(padded);
    c.out_strides = c.dense(c.out_extents());
    if (pr.in == XPOSE_TYPE_F32 && pr.out == XPOSE_TYPE_F32) c.beta[0] = 1;
    if (pr.in == XPOSE_TYPE_BYTES && c.in_strides == c.dense(c.extents)) c.in_strides[1] += 1;
    const char* schema = schemas[rng.below(3)];
    SCOPED_TRACE(describe(c) + " schema " + schema);
    check(c, 1 + static_cast<int>(rng.below(4)), rng.next(), schema, false, "typed rows");
    if (HasFatalFailure()) return;
  }
}

// Padded copies (strided BYTES, both tensors padded by 1-7 per side) of short extents, whose
// output rows are runs along I's first dim: each run moved by the tile kernel straight into the
// output, and short tile columns walked along the next input dim within a unit.
TEST(TypedCpu, PaddedCopiesOfShortRuns) {
  Rng rng(test_seed() ^ 0x9add);
  SCOPED_TRACE(seed_note());
  for (int i = 0; i < 40; ++i) {
    TypedCase c;
    c.in_type = c.out_type = XPOSE_TYPE_BYTES;
    c.elem_size = size_t{1} << rng.below(4);
    const int rank = 4 + static_cast<int>(rng.below(3));
    for (int k = 0; k < rank; ++k) c.extents.push_back(2 + static_cast<int64_t>(rng.below(8)));
    c.perm = rng.permutation(rank);
    if (c.perm[0] == 0) std::swap(c.perm[0], c.perm[rank - 1]);
    if (i == 0)  // large enough for units of several tiles along input dim 1
      c.extents = {6, 9, 7, 6, 10, 5, 4}, c.perm = {3, 0, 5, 2, 1, 4, 6};
    const auto padded = [&](const std::vector<int64_t>& ext) {
      std::vector<int64_t> full = ext;
      for (int64_t& e : full) e += 2 + static_cast<int64_t>(rng.below(13));
      return c.dense(full);
    };
    c.in_strides = padded(c.extents);
    c.out_strides = padded(c.out_extents());
    SCOPED_TRACE(describe(c));
    const std::string text = plan_text(c, "");
    if (i == 0) EXPECT_NE(text.find("along the next input dim"), std::string::npos) << text;
    check(c, 1 + static_cast<int>(rng.below(4)), rng.next());
    if (HasFatalFailure()) return;
  }
}

// Sub-tensors whose dims 0 are contiguous on both sides and long enough for the tiled engine
// (typed_tiles.cpp, strided_tiles_pay): padded on both sides, input padded with a dense output,
// outer dims only padded (J and I then grow over the dims that continue them), an input or
// output whose outer dims are stored in reverse order (the output then without gaps); every
// type pair, both store modes, 1-4 threads. The bytes between rows must stay untouched (the whole output buffer is compared).
// Fixed cases pin the choice: long runs take the engine, short or scaled-with-beta ones not.
TEST(TypedCpu, StridedProblemsThroughTheTiledEngine) {
  Rng rng(test_seed() ^ 0x5d7e);
  SCOPED_TRACE(seed_note());
  const std::vector<Pair> pairs = allowed_pairs();
  const char* schemas[] = {"", "typed:nt=1", "typed:nt=0", "typed:ti=40,to=24,nt=1"};
  int engine = 0;
  const int n = 80;
  for (int i = 0; i < n; ++i) {
    const Pair pr = pairs[rng.below(pairs.size())];
    TypedCase c;
    c.in_type = pr.in, c.out_type = pr.out, c.elem_size = pr.bytes;
    // Output dim 0 is input dim q; dims 0 and q long or short (J and I then grow over the
    // dims after them where those continue them in memory), the others short.
    const int rank = 2 + static_cast<int>(rng.below(3));
    const int q = 1 + static_cast<int>(rng.below(static_cast<uint64_t>(rank - 1)));
    for (int k = 0; k < rank; ++k) {
      const bool lead = k == 0 || k == q;
      c.extents.push_back(lead && rng.below(2) ? 40 + static_cast<int64_t>(rng.below(260))
                          : lead               ? 3 + static_cast<int64_t>(rng.below(30))
                                               : 2 + static_cast<int64_t>(rng.below(5)));
    }
    c.perm = rng.permutation(rank);
    std::swap(c.perm[0], c.perm[std::find(c.perm.begin(), c.perm.end(), q) - c.perm.begin()]);
    const auto padded = [&](const std::vector<int64_t>& ext, int from) {
      std::vector<int64_t> full = ext;
      for (size_t k = static_cast<size_t>(from); k < full.size(); ++k)
        full[k] += 2 + static_cast<int64_t>(rng.below(13));
      return c.dense(full);
    };
    // Outer dims stored in reverse order: dims 1.. of `full`, dim 0 of stride 1 first.
    const auto reversed = [&](const std::vector<int64_t>& full) {
      std::vector<int64_t> st(full.size());
      int64_t acc = full[0];
      st[0] = 1;
      for (size_t k = full.size() - 1; k >= 1; --k) st[k] = acc, acc *= full[k];
      return st;
    };
    const int style = static_cast<int>(rng.below(5));
    c.in_strides = padded(c.extents, style == 2 ? 1 : 0);
    c.out_strides = style == 1 ? c.dense(c.out_extents()) : padded(c.out_extents(), style == 2);
    if (style == 3 && rank >= 3) {  // outer input dims stored in reverse order, padded
      std::vector<int64_t> full = c.extents;
      for (int64_t& e : full) e += 1 + static_cast<int64_t>(rng.below(3));
      c.in_strides = reversed(full);
    }
    if (style == 4 && rank >= 3) c.out_strides = reversed(c.out_extents());  // no gaps
    const bool floating = xpose_test::is_floating(pr.in) || xpose_test::is_complex(pr.in);
    if (floating && rng.below(3) == 0) c.alpha[0] = random_scalar(rng);
    const char* schema = schemas[rng.below(4)];
    SCOPED_TRACE(describe(c) + " schema " + schema);
    engine += plan_text(c, schema).rfind("typed ti=", 0) == 0;
    check(c, 1 + static_cast<int>(rng.below(4)), rng.next(), schema);
    if (HasFatalFailure()) return;
  }
  EXPECT_GE(engine, n / 2) << "strided problems with long dims 0 should mostly take the engine";

  struct Fixed {
    xpose_type_t in, out;
    size_t bytes;
    std::vector<int64_t> extents;
    double beta;
    const char* prefix;
  };
  const Fixed fixed[] = {
      {XPOSE_TYPE_F32, XPOSE_TYPE_BF16, 0, {300, 200}, 0, "typed ti="},
      {XPOSE_TYPE_BF16, XPOSE_TYPE_F8_E4M3, 0, {300, 200, 3}, 0, "typed ti="},
      {XPOSE_TYPE_BYTES, XPOSE_TYPE_BYTES, 4, {300, 200}, 0, "typed ti="},
      {XPOSE_TYPE_BYTES, XPOSE_TYPE_BYTES, 1, {100, 100}, 0, "typed tiles"},  // 100 B runs
      {XPOSE_TYPE_F32, XPOSE_TYPE_F32, 0, {300, 200}, 1, "typed tiles"},        // beta
      {XPOSE_TYPE_F32, XPOSE_TYPE_BF16, 0, {6, 8, 5, 7}, 0, "typed tiles"},    // small tiles
  };
  for (const Fixed& f : fixed) {
    TypedCase c;
    c.in_type = f.in, c.out_type = f.out, c.elem_size = f.bytes;
    c.extents = f.extents;
    c.perm = {1, 0};
    for (size_t k = 2; k < f.extents.size(); ++k) c.perm.push_back(static_cast<int>(k));
    std::vector<int64_t> full = c.extents;
    for (int64_t& e : full) e += 5;
    c.in_strides = c.dense(full);
    full = c.out_extents();
    for (int64_t& e : full) e += 3;
    c.out_strides = c.dense(full);
    c.beta[0] = f.beta;
    SCOPED_TRACE(describe(c));
    check(c, 3, rng.next(), "", false, f.prefix);
    if (HasFatalFailure()) return;
  }
}

// Forced tile sides and store modes: odd tiles, non-temporal streaming of the output rows.
TEST(TypedCpu, ForcedTilesAndStores) {
  Rng rng(test_seed() ^ 0xf0ced);
  SCOPED_TRACE(seed_note());
  const std::vector<Pair> pairs = allowed_pairs();
  const char* schemas[] = {"typed:nt=1", "typed:nt=0", "typed:ti=3,to=5,nt=1", "typed:ti=1,to=256",
                           "typed:ti=256,to=1,nt=1", "typed:ti=17,to=33,nt=0"};
  for (int i = 0; i < 120; ++i) {
    const Pair pr = pairs[rng.below(pairs.size())];
    const TypedCase c = random_case(rng, pr.in, pr.out, pr.bytes, i % 3 == 0);
    const char* schema = schemas[rng.below(6)];
    SCOPED_TRACE(describe(c) + " schema " + schema);
    check(c, 1 + static_cast<int>(rng.below(4)), rng.next(), schema);
    if (HasFatalFailure()) return;
  }
}

// One plan executed by several threads at once (each with its own buffers): the plan's stages
// are per execute, its state read-only.
TEST(TypedCpu, OnePlanFromSeveralThreads) {
  Rng rng(test_seed() ^ 0x7ead5);
  SCOPED_TRACE(seed_note());
  TypedCase c;
  c.extents = {300, 257, 3};
  c.perm = {2, 0, 1};
  c.in_type = XPOSE_TYPE_F32;
  c.out_type = XPOSE_TYPE_BF16;
  c.beta[0] = 0.5;
  c.in_strides = {1, 310, 310 * 260};
  const int64_t volume = c.volume();
  int64_t ilo, ihi;
  reach(c.extents, c.in_strides, &ilo, &ihi);
  const Problem p = problem_of(c);
  BackendPlanPtr plan;
  ASSERT_EQ(cpu_make_plan(p, xpose_test::cpu_options(XPOSE_COL_MAJOR, 2), "", &plan),
            XPOSE_SUCCESS);
  constexpr int kThreads = 4;
  std::vector<std::vector<unsigned char>> in(kThreads), out(kThreads), want(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    in[t].resize((ihi + 1) * 4);
    out[t].resize(volume * 2);
    xpose_test::fill_random(in[t].data(), in[t].size(), rng.next());
    xpose_test::fill_random(out[t].data(), out[t].size(), rng.next());
    want[t] = out[t];
    reference_typed(c, in[t].data(), want[t].data());
  }
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t)
    workers.emplace_back([&, t] { plan->execute(in[t].data(), out[t].data(), nullptr); });
  for (auto& w : workers) w.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(out[t], want[t]) << "thread " << t;
}

// The same through the public entry point: make_problem_ex's normalization (dims dropped and
// fused where both tensors' strides allow, dense strides erased, same-type unscaled requests as
// bytes, integer addition on unsigned types) in front of the typed schema, plain plans behind
// the erased ones, and the execute-time checks.
TEST(TypedCpu, ThroughXposePlanCreateEx) {
  Rng rng(test_seed() ^ 0xa91e);
  SCOPED_TRACE(seed_note());
  const std::vector<Pair> pairs = allowed_pairs();
  for (int i = 0; i < 400; ++i) {
    const Pair pr = pairs[rng.below(pairs.size())];
    const TypedCase c = random_case(rng, pr.in, pr.out, pr.bytes, i % 8 == 0);
    SCOPED_TRACE(describe(c));
    check(c, 1 + static_cast<int>(rng.below(4)), rng.next(), "", true);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
