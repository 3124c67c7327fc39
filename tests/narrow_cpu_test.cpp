// 1- and 2-byte elements on the CPU backend with every instruction set forced (scalar, SSE2,
// AVX2, AVX-512; those this CPU lacks are skipped and say so): every tiled and run schema with
// and without non-temporal stores, ranks 1-8, odd extents and extents of 1, unaligned input and
// output, against tests/reference.hpp on random (never zero) data with a poisoned output and its
// guard bytes checked; in place, odd and even orders, against the out-of-place result.
// Random tests print their seed; XPOSE_TEST_SEED=<n> replays one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpu/kernels.hpp"
#include "inplace/inplace.hpp"
#include "reference.hpp"
#include "xpose/xpose.h"

namespace {

using xpose_test::cpu_options;
using xpose_test::GuardedBuffer;
using xpose_test::Rng;
using xpose_test::str;
namespace cpu = xpose::detail::cpu;

constexpr const char* kIsas[] = {"scalar", "sse2", "avx2", "avx512"};
constexpr const char* kSchemas[] = {"blocked", "matrix", "super", "direct", "copy"};

// Whether this CPU and build run `isa` (its 1-byte kernel exists); prints the ones skipped.
bool available(const char* isa) {
  cpu::Isa i;
  const bool known = cpu::parse_isa(isa, &i);
  EXPECT_TRUE(known) << isa;
  const bool has = known && cpu::select_tile_kernel(1, i).fn != nullptr;
  if (!has) std::printf("[ skip ] %s: not on this CPU or build\n", isa);
  return has;
}

struct Case {
  std::vector<int64_t> extents;
  std::vector<int> perm;
  size_t elem = 1;
  size_t in_misalign = 0, out_misalign = 0;
  int threads = 1;
  std::string what() const {
    return "extents " + str(extents) + " perm " + str(perm) + " elem " + std::to_string(elem) +
           " misalign " + std::to_string(in_misalign) + "/" + std::to_string(out_misalign) +
           " threads " + std::to_string(threads) + " " + xpose_test::seed_note();
  }
};

// Runs `c` with `schema` forced (empty: the heuristic plan) and checks it. Returns false when the
// schema does not apply to the case (nothing run).
bool run_checked(const Case& c, const std::string& schema, uint64_t seed) {
  SCOPED_TRACE(c.what() + " schema '" + schema + "'");
  const size_t bytes = static_cast<size_t>(xpose_test::volume_of(c.extents)) * c.elem;
  GuardedBuffer in(bytes, c.in_misalign), out(bytes, c.out_misalign);
  xpose_test::fill_random(in.data(), bytes, seed);
  std::vector<unsigned char> want(bytes);
  xpose_test::reference_transpose(c.extents, c.perm, c.elem, XPOSE_COL_MAJOR, in.data(),
                                  want.data());
  const xpose_options_t o = cpu_options(XPOSE_COL_MAJOR, c.threads);
  const int rank = static_cast<int>(c.extents.size());
  xpose_plan_t plan = nullptr;
  const xpose_status_t st =
      schema.empty()
          ? xpose_plan_create(&plan, rank, c.extents.data(), c.perm.data(), c.elem, &o)
          : xpose_plan_create_forced(&plan, rank, c.extents.data(), c.perm.data(), c.elem, &o,
                                     schema.c_str());
  if (st == XPOSE_ERROR_INVALID_ARGUMENT &&
      std::string(xpose_last_error()).find("does not apply") != std::string::npos)
    return false;
  EXPECT_EQ(st, XPOSE_SUCCESS) << xpose_last_error();
  if (st != XPOSE_SUCCESS) return false;
  EXPECT_EQ(xpose_execute(plan, in.data(), out.data(), nullptr), XPOSE_SUCCESS);
  xpose_plan_destroy(plan);
  EXPECT_EQ(xpose_test::first_mismatch(out.data(), want.data(), xpose_test::volume_of(c.extents),
                                       c.elem),
            -1);
  EXPECT_TRUE(out.guards_intact()) << "wrote outside the output";
  return true;
}

// Every schema, with and without non-temporal stores, with `isa` forced; at least one applies.
void check_every_schema(const Case& c, const char* isa, uint64_t seed) {
  int ran = 0;
  for (const char* schema : kSchemas)
    for (const char* nt : {"0", "1"})
      ran += run_checked(c, std::string(schema) + ":isa=" + isa + ",nt=" + nt, seed);
  EXPECT_GT(ran, 0) << c.what();
}

// Shapes that reach each kernel path: whole blocks and overlapping edge blocks (tiles wider and
// taller than a 64 x 16 byte block), tiles narrower than a block on either side (3 rows of J),
// odd 6D extents, extent-1 dims, rank 1, a leading index that stays (super-elements of 1..6 B).
std::vector<Case> fixed_cases() {
  return {{{300, 257}, {1, 0}},
          {{3, 1000}, {1, 0}},
          {{1000, 3}, {1, 0}},
          {{17, 9, 130}, {2, 0, 1}},
          {{15, 15, 15, 15}, {3, 1, 0, 2}},
          {{7, 5, 3, 11, 5, 7}, {5, 4, 3, 2, 1, 0}},
          {{1, 33, 1, 65}, {3, 2, 1, 0}},
          {{129}, {0}},
          {{3, 200, 77}, {0, 2, 1}},
          {{2, 65, 129}, {0, 2, 1}},
          {{64, 64, 2}, {1, 0, 2}},
          {{2, 3, 2, 3, 2, 3, 2, 5}, {7, 5, 3, 1, 6, 4, 2, 0}}};
}

TEST(NarrowCpu, FixedShapesEveryIsaAndSchema) {
  const uint64_t seed = xpose_test::test_seed();
  for (const char* isa : kIsas) {
    if (!available(isa)) continue;
    for (const size_t elem : {1, 2})
      for (Case c : fixed_cases()) {
        c.elem = elem;
        c.in_misalign = 1;
        c.out_misalign = 3;
        c.threads = 2;
        check_every_schema(c, isa, seed + c.extents.size());
      }
  }
}

TEST(NarrowCpu, RandomRanksOneToEightEveryIsa) {
  Rng rng(xpose_test::test_seed() + 17);
  for (int i = 0; i < 24; ++i) {
    Case c;
    const int rank = 1 + static_cast<int>(rng.below(8));
    const int64_t cap = rank <= 2 ? 400 : rank <= 4 ? 40 : 9;  // volumes up to ~160K
    for (int d = 0; d < rank; ++d)
      c.extents.push_back(rng.below(5) == 0 ? 1 : 1 + static_cast<int64_t>(rng.below(cap)));
    c.perm = rng.permutation(rank);
    c.elem = 1 + rng.below(2);
    c.in_misalign = rng.below(16);
    c.out_misalign = rng.below(16);
    c.threads = 1 + static_cast<int>(rng.below(3));
    const uint64_t seed = rng.next();
    run_checked(c, "", seed);  // the heuristic plan
    for (const char* isa : kIsas)
      if (available(isa)) check_every_schema(c, isa, seed);
  }
}

// Input columns at power-of-two strides (512 B to 4 KiB: a block's 64 columns in 1 to 8 cache
// sets): 1-byte tiles take the AVX-512BW path that copies each band of 64 bytes of rows out of
// the input first (2-byte ones, the plain blocks at the same strides); tiles of ragged sides (a
// last band and column block that overlap the ones before), every start offset 0..15 of the
// input and output.
TEST(NarrowCpu, PowerOfTwoColumnStrides) {
  const uint64_t seed = xpose_test::test_seed() + 41;
  struct Shape {
    std::vector<int64_t> extents;
    std::vector<int> perm;
    size_t elem;
    const char* tile;
  };
  const Shape shapes[] = {{{1024, 150}, {1, 0}, 1, "ti=100,to=70"},
                          {{512, 97}, {1, 0}, 2, "ti=45,to=33"},
                          {{4096, 66}, {1, 0}, 1, "ti=256,to=65"},
                          {{512, 3, 129}, {2, 1, 0}, 1, "ti=200,to=129"},
                          {{256, 2, 90}, {2, 0, 1}, 2, "ti=77,to=90"}};
  for (const char* isa : {"avx512", "avx2"}) {
    if (!available(isa)) continue;
    for (const Shape& s : shapes)
      for (size_t misalign = 0; misalign < 16; ++misalign) {
        const int threads = 1 + static_cast<int>(misalign % 2);
        Case c{s.extents, s.perm, s.elem, misalign, 15 - misalign, threads};
        for (const char* nt : {"0", "1"})
          EXPECT_TRUE(run_checked(c, std::string("blocked:") + s.tile + ",isa=" + isa + ",nt=" + nt,
                                  seed + misalign));
        run_checked(c, "", seed);
      }
  }
}

// The heuristic plan of a 1- or 2-byte problem, described (first line).
std::string planned(const Case& c) {
  const xpose_options_t o = cpu_options(XPOSE_COL_MAJOR, c.threads);
  xpose_plan_t plan = nullptr;
  EXPECT_EQ(xpose_plan_create(&plan, static_cast<int>(c.extents.size()), c.extents.data(),
                              c.perm.data(), c.elem, &o),
            XPOSE_SUCCESS)
      << xpose_last_error();
  char text[4096] = "";
  if (plan != nullptr) xpose_plan_describe(plan, text, sizeof text);
  xpose_plan_destroy(plan);
  const std::string d(text);
  return d.substr(0, d.find('\n'));
}

// Plans the cost model once got wrong by 3-10x (docs/cpu.md, "Planning"): 13-byte leading runs
// whose input neighbours come 49140 runs later in the output go to `super` (`direct` ran 10x
// slower), and 11-byte super-elements whose 121-byte rows continue each other 11 rows apart get
// a tile that fits the 32 KiB staging buffer (363 x 11 ran 2x slower than 242 x 11). Both
// checked against the reference too.
TEST(NarrowCpu, ShortRunsAndStagedRowsPlans) {
  const uint64_t seed = xpose_test::test_seed() + 53;
  const Case runs{{13, 43, 5460, 9}, {0, 3, 2, 1}, 1, 0, 0, 1};
  EXPECT_NE(planned(runs).find(": super "), std::string::npos) << planned(runs);
  Case rows{{11, 11, 11, 11, 11, 11, 11}, {0, 6, 2, 4, 1, 3, 5}, 1, 0, 0, 1};
  const std::string d = planned(rows);
  const size_t ti = d.find(" ti="), to = d.find(" to=");
  ASSERT_TRUE(d.find(": super ") != std::string::npos && ti != std::string::npos &&
              to != std::string::npos)
      << d;
  EXPECT_LE(std::stoi(d.substr(ti + 4)) * std::stoi(d.substr(to + 4)) * 11, 32 << 10) << d;
  for (Case c : {runs, rows}) {
    c.threads = 2;
    c.in_misalign = 5;
    c.out_misalign = 11;
    run_checked(c, "", seed);
  }
}

// 1-byte problems whose input dim 0 is a little longer than the default tile's side: the model
// puts the tile of 256-byte runs (tuning.hpp narrow_long_tile) far ahead, so the plan keeps dim
// 0 whole where the default tile cut it in two ((188,13,79,133) perm (3,1,0,2): 94 x 133 ran
// 2.1-2.5x slower than 188 x 266); the margin keeps the default where the long tile is not
// predicted well ahead ((15,15,225,15,15) perm (4,3,1,0,2): 15 x 450 ran 0.61x of 120 x 225).
// Both right against the reference at odd offsets on 1 and 2 threads.
TEST(NarrowCpu, LongTileWhereThePlannerPutsItWellAhead) {
  const uint64_t seed = xpose_test::test_seed() + 61;
  const Case cases[] = {{{188, 13, 79, 133}, {3, 1, 0, 2}, 1, 3, 7, 1},
                        {{143, 440, 133}, {2, 1, 0}, 1, 0, 13, 2},
                        {{15, 15, 225, 15, 15}, {4, 3, 1, 0, 2}, 1, 9, 2, 2}};
  const char* tiles[] = {" ti=188 to=266 ", " ti=143 to=266 ", " ti=120 to=225 "};
  for (int i = 0; i < 3; ++i) {
    const std::string d = planned(cases[i]);
    EXPECT_NE(d.find(tiles[i]), std::string::npos) << d;
    EXPECT_TRUE(run_checked(cases[i], "", seed + i)) << d;
  }
}

// In place, through the tile kernels of each instruction set: squares of odd and even order
// (partial edge tiles, tiles smaller than a block), misaligned data, batches (T_yxz, T_zyx) and
// a leading index that folds into 2-byte words; checked against the out-of-place result.
TEST(NarrowCpu, InplaceEveryIsaOddAndEvenOrders) {
  const uint64_t seed = xpose_test::test_seed() + 29;
  struct Shape {
    std::vector<int64_t> extents;
    std::vector<int> perm;
  };
  std::vector<Shape> shapes;
  for (const int64_t n : {2, 3, 15, 16, 17, 63, 64, 65, 127, 200, 257})
    shapes.push_back({{n, n}, {1, 0}});
  shapes.push_back({{37, 37, 3}, {1, 0, 2}});
  shapes.push_back({{45, 3, 45}, {2, 1, 0}});
  shapes.push_back({{2, 71, 71}, {0, 2, 1}});
  for (const char* isa : kIsas) {
    if (!available(isa)) continue;
    for (const size_t elem : {1, 2})
      for (const Shape& s : shapes)
        for (const size_t misalign : {0, 1}) {
          SCOPED_TRACE(std::string(isa) + " extents " + str(s.extents) + " perm " + str(s.perm) +
                       " elem " + std::to_string(elem) + " misalign " + std::to_string(misalign) +
                       " " + xpose_test::seed_note());
          const int rank = static_cast<int>(s.extents.size());
          const size_t bytes = static_cast<size_t>(xpose_test::volume_of(s.extents)) * elem;
          GuardedBuffer data(bytes, misalign);
          std::vector<unsigned char> want(bytes);
          xpose_test::fill_random(data.data(), bytes, seed + bytes);
          xpose_test::reference_transpose(s.extents, s.perm, elem, XPOSE_COL_MAJOR, data.data(),
                                          want.data());
          const xpose_options_t o = cpu_options(XPOSE_COL_MAJOR, 2);
          xpose::detail::InplaceForce f;
          f.cpu_isa = isa;
          ASSERT_EQ(xpose::detail::transpose_inplace(rank, s.extents.data(), s.perm.data(), elem,
                                                     data.data(), &o, nullptr, &f),
                    XPOSE_SUCCESS)
              << xpose_last_error();
          EXPECT_EQ(xpose_test::first_mismatch(data.data(), want.data(),
                                               xpose_test::volume_of(s.extents), elem),
                    -1);
          EXPECT_TRUE(data.guards_intact());
        }
  }
}

TEST(NarrowCpu, UnknownIsaIsRejected) {
  const int64_t ext[2] = {40, 30};
  const int perm[2] = {1, 0};
  const xpose_options_t o = cpu_options(XPOSE_COL_MAJOR, 1);
  xpose_plan_t plan = nullptr;
  EXPECT_EQ(xpose_plan_create_forced(&plan, 2, ext, perm, 1, &o, "blocked:isa=avx9"),
            XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("isa=scalar|sse2|avx2|avx512"), std::string::npos)
      << xpose_last_error();
  const int64_t sq[2] = {40, 40};
  std::vector<unsigned char> data(1600, 1);
  xpose::detail::InplaceForce f;
  f.cpu_isa = "avx9";
  EXPECT_EQ(xpose::detail::transpose_inplace(2, sq, perm, 1, data.data(), &o, nullptr, &f),
            XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("avx9"), std::string::npos) << xpose_last_error();
}

}  // namespace
