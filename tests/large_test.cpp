// A tensor above 2^31 elements (1-byte elements, ~2.1 GB in and out) on the CPU: 64-bit indexing
// end to end. Checked on sampled positions, the first and last rows and columns, and guard bytes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "reference.hpp"
#include "xpose/xpose.h"

namespace {

struct FreeDeleter {
  void operator()(unsigned char* p) const { std::free(p); }
};
using Bytes = std::unique_ptr<unsigned char[], FreeDeleter>;

constexpr size_t kGuard = 4096;
constexpr unsigned char kGuardByte = 0xA5;

// `bytes` plus guards on both sides, or null when the machine cannot give that much.
Bytes allocate(size_t bytes) {
  return Bytes(static_cast<unsigned char*>(std::malloc(bytes + 2 * kGuard)));
}

// The input byte at linear index i: a hash of i, so that any misplaced element is noticed.
unsigned char value_at(uint64_t i) {
  i ^= i >> 29;
  i *= 0xbf58476d1ce4e5b9ull;
  return static_cast<unsigned char>((i >> 32) ^ (i >> 56));
}

// The case: in has kRows (stride-1) x kCols bytes; out = its transpose, so out(c, r) = in(r, c):
// out index c + kCols * r holds in index r + kRows * c.
constexpr int64_t kRows = 65536, kCols = 32769, kVolume = kRows * kCols;

unsigned char expected(int64_t j) {
  return value_at(static_cast<uint64_t>(j / kCols + kRows * (j % kCols)));
}

// Wrong output bytes among 2M random positions, whole rows and columns at both ends and the
// middle, and the last 4096 bytes (all beyond index 2^31).
int64_t count_wrong(const unsigned char* out) {
  const auto bad = [&](int64_t r, int64_t c) { return out[c + kCols * r] != expected(c + kCols * r); };
  int64_t wrong = 0;
  xpose_test::Rng rng(xpose_test::test_seed());
  for (int t = 0; t < 2000000; ++t)
    wrong += bad(static_cast<int64_t>(rng.below(kRows)), static_cast<int64_t>(rng.below(kCols)));
  for (int64_t r : {int64_t{0}, int64_t{1}, kRows / 2, kRows - 1})
    for (int64_t c = 0; c < kCols; ++c) wrong += bad(r, c);
  for (int64_t c : {int64_t{0}, kCols - 2, kCols - 1})
    for (int64_t r = 0; r < kRows; ++r) wrong += bad(r, c);
  for (int64_t j = kVolume - 4096; j < kVolume; ++j) wrong += out[j] != expected(j);
  return wrong;
}

TEST(Large, MoreThan2To31ElementsOnTheCpu) {
  ASSERT_GT(kVolume, int64_t{1} << 31);
  const size_t bytes = static_cast<size_t>(kVolume);
  Bytes in_mem = allocate(bytes), out_mem = allocate(bytes);
  if (!in_mem || !out_mem) GTEST_SKIP() << "cannot allocate 2 x " << bytes << " bytes";
  unsigned char* in = in_mem.get() + kGuard;
  unsigned char* out = out_mem.get() + kGuard;
  std::memset(out_mem.get(), kGuardByte, kGuard);
  std::memset(out + bytes, kGuardByte, kGuard);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < kVolume; ++i) in[i] = value_at(static_cast<uint64_t>(i));
  // Poison the output's last 4096 bytes (all beyond index 2^31) with values sure to be wrong;
  // the rest is left as malloc gave it, since writing 2 GB more would only slow the test.
  for (int64_t j = kVolume - 4096; j < kVolume; ++j)
    out[j] = static_cast<unsigned char>(~expected(j));
  const int64_t extents[2] = {kRows, kCols};
  const int perm[2] = {1, 0};
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CPU;
  ASSERT_EQ(xpose_transpose(2, extents, perm, 1, in, out, &o, nullptr), XPOSE_SUCCESS)
      << xpose_last_error();
  EXPECT_EQ(count_wrong(out), 0) << xpose_test::seed_note();
  for (size_t g = 0; g < kGuard; ++g) {
    ASSERT_EQ(out_mem[g], kGuardByte) << "wrote before the output";
    ASSERT_EQ(out[bytes + g], kGuardByte) << "wrote after the output";
  }
}

}  // namespace
