// SplitMix64: a tiny generator with the same stream on every platform and standard library for
// a given seed (std::uniform_int_distribution promises no such thing). Benchmark suites, fills
// and randomized tests depend on that to be replayable.
#pragma once

#include <cstdint>

namespace xpose::detail {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) for n >= 1 (the modulo bias is irrelevant at the sizes used).
  uint64_t below(uint64_t n) { return next() % n; }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace xpose::detail
