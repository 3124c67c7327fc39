// The tile kernel's parameter blocks (CUDA builds, fake H100, no GPU). Position steps
// (params.hpp TileStep): where the planner says a phase's positions are linear, every thread's
// position e must be its first plus e steps, as a full decode of slot threadIdx.x + e * threads
// gives it. Shared-memory layout: every tile position has its own slot inside the buffer, and
// the write phase's fastest dim has an odd stride (conflict-free, tile_shape.hpp run_pad_dim).
#include <gtest/gtest.h>

#ifdef XPOSE_HAVE_CUDA

#include <algorithm>
#include <random>
#include <vector>

#include "core/problem.hpp"
#include "cuda/fast_div.hpp"
#include "cuda/planner.hpp"
#include "fake_device.hpp"
#include "reference.hpp"

namespace {

using namespace xpose::detail;
using xpose_test::Rng;
using xpose_test::test_seed;

struct Pos {
  int64_t global = 0;
  int64_t shared = 0;
  uint32_t coord = 0;
};

// Slot `idx` of a walk over `dims`, as tile_walk.cuh's decode_index computes it on the device.
Pos decode(const TileDim* dims, int n, uint32_t idx) {
  Pos p;
  uint32_t c01[2] = {0, 0};
  for (int k = 0; k < n; ++k) {
    const uint32_t c = idx % dims[k].extent.d;
    idx /= dims[k].extent.d;
    p.global += c * dims[k].stride;
    p.shared += static_cast<int64_t>(c) * dims[k].smem_stride;
    if (dims[k].slot >= 0) c01[dims[k].slot] = c;
  }
  p.coord = c01[0] | (c01[1] << 16);
  return p;
}

// Checks one phase of a candidate; returns whether its step was linear (and so checked).
bool check_side(const TileDim* dims, int n, int volume, int threads, const TileStep& s,
                const std::string& what) {
  if (!s.linear) return false;
  for (int t = 0; t < threads && t < volume; ++t) {
    const Pos first = decode(dims, n, static_cast<uint32_t>(t));
    for (int e = 1; e < kElemsPerThread; ++e) {
      const int64_t idx = t + static_cast<int64_t>(e) * threads;
      if (idx >= volume) break;
      const Pos want = decode(dims, n, static_cast<uint32_t>(idx));
      if (want.global != first.global + e * s.global || want.shared != first.shared + e * s.shared ||
          want.coord != first.coord + static_cast<uint32_t>(e) * s.coord) {
        ADD_FAILURE() << what << ": thread " << t << " position " << e;
        return true;
      }
    }
  }
  return true;
}

using xpose_test::problem;

// Calls visit(p, c, tiled parameter block, description) for every tile-kernel candidate (not
// rows, narrow, 2D tiles or direct) of the problem.
template <class Visit>
void for_each_tiled(const Problem& p, const DeviceInfo& dev, Visit visit) {
  std::vector<Choice> all;
  enumerate_choices(p, dev, nullptr, &all);
  for (const Choice& c : all) {
    if (is_rows(c.schema) || c.narrow || c.narrow2d || is_direct(c.schema)) continue;
    KernelSpec spec;
    build_spec(p, c, &spec);
    visit(c, spec.tiled, p.to_string() + ": " + summarize(p, c));
  }
}

// Every tiled candidate of random problems: linear steps agree with the full decode, and they
// are found for a share of the candidates (tiles whose threads divide their first dims).
TEST(TileStep, LinearStepsMatchTheFullDecode) {
  const DeviceInfo dev = xpose_test::fake_h100();
  Rng rng(test_seed());
  int tiled = 0, linear = 0;
  for (int iter = 0; iter < 150; ++iter) {
    const int rank = 2 + static_cast<int>(rng.below(6));
    std::vector<int64_t> ext(rank);
    for (int64_t& e : ext)
      e = 1 + static_cast<int64_t>(rng.below(2) ? rng.below(rank <= 2 ? 3000 : 40)
                                                : int64_t{1} << rng.below(rank <= 2 ? 11 : 5));
    const Problem p = problem(ext, rng.permutation(rank), size_t{1} << rng.below(5));
    for_each_tiled(p, dev, [&](const Choice& c, const TiledParams& tp, const std::string& what) {
      ++tiled;
      const bool in = check_side(tp.in, tp.n_in, tp.volume, c.threads, tp.in_step, what + " in");
      const bool out =
          check_side(tp.out, tp.n_out, tp.volume, c.threads, tp.out_step, what + " out");
      linear += in + out;
    });
  }
  std::printf("tiled candidates %d, linear phases %d of %d\n", tiled, linear, 2 * tiled);
  EXPECT_GT(linear, tiled / 5);  // one phase in ten; ~20% on this mix of odd and 2^k extents
}

// Every tiled candidate of random problems (power-of-two extents half the time) with elements of
// 4 bytes and more: the read phase's positions fill distinct slots of the buffer, the write
// phase reads each of them once, and the write phase's fastest dim has an odd stride.
TEST(TileLayout, SlotsAreDistinctAndWriteStrideOdd) {
  const DeviceInfo dev = xpose_test::fake_h100();
  Rng rng(test_seed());
  int checked = 0;
  for (int iter = 0; iter < 120; ++iter) {
    const int rank = 2 + static_cast<int>(rng.below(5));
    std::vector<int64_t> ext(rank);
    for (int64_t& e : ext)
      e = rng.below(2) ? 2 + static_cast<int64_t>(rng.below(30)) : int64_t{1} << (1 + rng.below(5));
    const Problem p = problem(ext, rng.permutation(rank), size_t{4} << rng.below(3));
    for_each_tiled(p, dev, [&](const Choice&, const TiledParams& tp, const std::string& what) {
      std::vector<int> reads(static_cast<size_t>(tp.buffer_elems), 0), writes = reads;
      for (uint32_t i = 0; i < static_cast<uint32_t>(tp.volume); ++i) {
        const int64_t r = decode(tp.in, tp.n_in, i).shared, w = decode(tp.out, tp.n_out, i).shared;
        ASSERT_TRUE(r >= 0 && r < tp.buffer_elems && w >= 0 && w < tp.buffer_elems) << what;
        ++reads[static_cast<size_t>(r)];
        ++writes[static_cast<size_t>(w)];
      }
      for (size_t k = 0; k < reads.size(); ++k) ASSERT_EQ(reads[k], writes[k]) << what;
      ASSERT_EQ(*std::max_element(reads.begin(), reads.end()), 1) << what;
      EXPECT_EQ(tp.out[0].smem_stride % 2, 1) << what;
      ++checked;
    });
  }
  std::printf("tiled candidates %d checked\n", checked);
  EXPECT_GT(checked, 100);
}

// The matrix transposes of the L2-resident middle (1-16 MiB) step linearly on both sides.
// The tile walks' 32-bit division (below 2^31 tiles) gives div's quotient for every divisor up
// to 2^31 and numerator below 2^31; larger divisors carry no 32-bit magic.
TEST(TileWalk, Div32MatchesDiv) {
  std::mt19937_64 rng(12345);
  std::vector<uint64_t> divisors = {1, 2, 3, 7, 32, 33, 1000, 65535, 65536, 65537,
                                    (uint64_t{1} << 31) - 1, uint64_t{1} << 31};
  for (int i = 0; i < 200; ++i) divisors.push_back(1 + rng() % (uint64_t{1} << (1 + rng() % 31)));
  for (const uint64_t d : divisors) {
    const FastDiv64 f = FastDiv64::make(d);
    std::vector<uint32_t> ns = {0, 1, static_cast<uint32_t>(d - 1), static_cast<uint32_t>(d),
                                (1u << 31) - 1};
    for (int i = 0; i < 200; ++i) ns.push_back(static_cast<uint32_t>(rng() % (1u << 31)));
    for (const uint32_t n : ns) {
      if (n >= (1u << 31)) continue;
      ASSERT_EQ(f.div32(n), n / d) << n << " / " << d;
      ASSERT_EQ(f.div32(n), f.div(n)) << n << " / " << d;
    }
  }
  EXPECT_EQ(FastDiv64::make((uint64_t{1} << 31) + 1).m32, 0u);
}

TEST(TileStep, PowerOfTwoMatricesAreLinear) {
  const DeviceInfo dev = xpose_test::fake_h100();
  for (const int64_t n : {512, 1024, 2048})
    for (const size_t es : {4, 8}) {
      const Problem p = problem({n, n}, {1, 0}, es);
      // The tile kernel's best candidate (these problems rank wide2d.cu's tile first).
      std::vector<Choice> all;
      enumerate_choices(p, dev, nullptr, &all);
      const auto it = std::find_if(all.begin(), all.end(), [](const Choice& x) {
        return !x.narrow2d && !is_direct(x.schema);
      });
      ASSERT_NE(it, all.end());
      const Choice c = *it;
      ASSERT_FALSE(is_rows(c.schema));
      KernelSpec spec;
      build_spec(p, c, &spec);
      EXPECT_TRUE(spec.tiled.in_step.linear) << summarize(p, c);
      EXPECT_TRUE(spec.tiled.out_step.linear) << summarize(p, c);
    }
}

}  // namespace

#endif  // XPOSE_HAVE_CUDA
