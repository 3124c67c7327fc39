// Test helpers: a naive reference transposition computed from the USER's extents, perm and
// layout (never through the library's normalization, so that it checks the normalization too),
// seeded random data that can be replayed, and poisoned buffers with guard bytes.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "core/splitmix.hpp"
#include "xpose/xpose.h"

namespace xpose_test {

// The run's seed: XPOSE_TEST_SEED when set (replay), else fresh each run; printed once per
// process so that any failure can be replayed.
inline uint64_t test_seed() {
  static const uint64_t seed = [] {
    const char* env = std::getenv("XPOSE_TEST_SEED");
    const uint64_t s = env && *env ? std::strtoull(env, nullptr, 0)
                                   : static_cast<uint64_t>(testing::UnitTest::GetInstance()->random_seed()) * 1000003u +
                                         static_cast<uint64_t>(std::time(nullptr));
    std::printf("xpose tests: seed %llu (replay with XPOSE_TEST_SEED=%llu)\n",
                static_cast<unsigned long long>(s), static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

// For SCOPED_TRACE: which seed made the data of a failing check.
inline std::string seed_note() { return "XPOSE_TEST_SEED=" + std::to_string(test_seed()); }

// Replayable random numbers (SplitMix64, src/core/splitmix.hpp) plus test helpers.
class Rng : public xpose::detail::SplitMix64 {
 public:
  using SplitMix64::SplitMix64;
  std::vector<int> permutation(int rank) {
    std::vector<int> p(rank);
    for (int i = 0; i < rank; ++i) p[i] = i;
    for (int i = rank - 1; i > 0; --i) std::swap(p[i], p[below(i + 1)]);
    return p;
  }
};

// Random bytes, none of them zero, so a zero-poisoned output byte never matches by accident.
inline void fill_random(unsigned char* data, size_t bytes, uint64_t seed) {
  Rng rng(seed);
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(1 + rng.below(255));
}

// Options for the CPU backend: `layout`, `threads` (0 = all).
inline xpose_options_t cpu_options(xpose_layout_t layout = XPOSE_COL_MAJOR, int threads = 0) {
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CPU;
  o.layout = layout;
  o.num_threads = threads;
  return o;
}

inline int64_t volume_of(const std::vector<int64_t>& extents) {
  int64_t v = 1;
  for (int64_t e : extents) v *= e;
  return v;
}

// The index map of a request as the user states it: output element j (memory order) is input
// element source(j). Built from extents, perm and layout alone.
class ReferenceMap {
 public:
  ReferenceMap(const std::vector<int64_t>& extents, const std::vector<int>& perm,
               xpose_layout_t layout)
      : rank_(static_cast<int>(extents.size())) {
    // Strides of the input in the user's layout.
    std::vector<int64_t> in_stride(rank_);
    int64_t s = 1;
    for (int n = 0; n < rank_; ++n) {
      const int k = layout == XPOSE_ROW_MAJOR ? rank_ - 1 - n : n;
      in_stride[k] = s;
      s *= extents[k];
    }
    // Output dimensions from fastest to slowest, each with the input stride it walks.
    for (int n = 0; n < rank_; ++n) {
      const int i = layout == XPOSE_ROW_MAJOR ? rank_ - 1 - n : n;
      out_extent_.push_back(extents[perm[i]]);
      src_stride_.push_back(in_stride[perm[i]]);
    }
  }
  int64_t source(int64_t j) const {
    int64_t offset = 0;
    for (int n = 0; n < rank_; ++n) {
      offset += (j % out_extent_[n]) * src_stride_[n];
      j /= out_extent_[n];
    }
    return offset;
  }

 private:
  int rank_;
  std::vector<int64_t> out_extent_, src_stride_;
};

// out[j] = in[source(j)] for every j, by bytes.
inline void reference_transpose(const std::vector<int64_t>& extents, const std::vector<int>& perm,
                                size_t elem, xpose_layout_t layout, const unsigned char* in,
                                unsigned char* out) {
  const ReferenceMap map(extents, perm, layout);
  const int64_t volume = volume_of(extents);
  for (int64_t j = 0; j < volume; ++j)
    std::memcpy(out + j * elem, in + map.source(j) * elem, elem);
}

// A buffer of `bytes` at an offset of `misalign` bytes from a 64-byte boundary, with guard
// bytes before and after, everything poisoned with kPoison.
class GuardedBuffer {
 public:
  static constexpr size_t kGuard = 64;
  static constexpr unsigned char kPoison = 0;

  explicit GuardedBuffer(size_t bytes, size_t misalign = 0)
      : bytes_(bytes), misalign_(misalign), storage_(bytes + 2 * kGuard + 64 + misalign) {
    poison();
  }
  unsigned char* data() { return begin() + kGuard; }
  const unsigned char* data() const { return const_cast<GuardedBuffer*>(this)->data(); }
  size_t size() const { return bytes_; }
  void poison() { std::fill_n(begin(), bytes_ + 2 * kGuard, kPoison); }
  // Whether the guards still hold the poison (nothing written outside the buffer).
  bool guards_intact() const { return untouched(0, kGuard) && untouched(kGuard + bytes_, kGuard); }
  // Whether the whole buffer still holds the poison (nothing written at all).
  bool untouched() const { return untouched(0, bytes_ + 2 * kGuard); }

 private:
  unsigned char* begin() {
    const auto base = reinterpret_cast<uintptr_t>(storage_.data());
    return storage_.data() + ((64 - base % 64) % 64) + misalign_;
  }
  bool untouched(size_t from, size_t n) const {
    const unsigned char* p = const_cast<GuardedBuffer*>(this)->begin() + from;
    for (size_t i = 0; i < n; ++i)
      if (p[i] != kPoison) return false;
    return true;
  }
  size_t bytes_, misalign_;
  std::vector<unsigned char> storage_;
};

// "(4,5,6)" for messages.
template <class T>
std::string str(const std::vector<T>& v) {
  std::string s = "(";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? "," : "") + std::to_string(v[k]);
  return s + ")";
}

// Index of the first byte where a and b differ as elements of `elem` bytes, or -1.
inline int64_t first_mismatch(const unsigned char* a, const unsigned char* b, int64_t volume,
                              size_t elem) {
  if (std::memcmp(a, b, volume * elem) == 0) return -1;
  for (int64_t j = 0; j < volume; ++j)
    if (std::memcmp(a + j * elem, b + j * elem, elem) != 0) return j;
  return -1;
}

}  // namespace xpose_test
