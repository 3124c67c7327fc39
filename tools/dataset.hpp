// TTLG's dataset for `xpose calibrate` (ranks 3-6; every permutation of ranks 3 and 4, an even
// sample of ranks 5 and 6; extents equal, increasing, decreasing, peaked or valley; volumes
// log-uniform between two sizes), cuTT-style random problems of ranks 7-12 (small random
// extents, random permutations), and the shaped extents `xpose bench-single` uses too.
// Deterministic: the same list on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"

namespace xpose_tool {

enum class Shape { Equal, Increasing, Decreasing, Peaked, Valley, Random };
const char* shape_name(Shape s);

// `rank` extents shaped as `shape` (largest/smallest up to ~10 at rank 6), each >= 2, whose
// product is about `volume` and never above it; `jitter` in [0, 1) moves each extent by up to
// that fraction (a seeded draw), so that extents are odd as often as not.
std::vector<int64_t> shaped_extents(int rank, Shape shape, int64_t volume, double jitter,
                                    uint64_t seed);

struct CalibrationCase {
  Case c;              // name: "r4-p3102-valley-8B-a" style, unique
  size_t elem = 8;
  Shape shape = Shape::Equal;
  int fold = 0;        // 0..4 by a hash of the name: fold 0 is held out of the fit; -1: a
                       // bench suite's case, timed for the plan-choice report only
};

// The dataset, in a seeded shuffled order (any prefix is an even sample of the whole), with
// tensor sizes between min_bytes and max_bytes.
std::vector<CalibrationCase> calibration_cases(int64_t min_bytes, int64_t max_bytes);

// `xpose calibrate`'s problems of 1- and 2-byte elements, whose tiles the narrow trees rank: `n`
// random problems drawn as the fresh suite draws them (suites.hpp random_cases: ranks 2-10,
// extents of a random ratio, random permutations), 1 and 2 bytes, 30-500 MB within
// [min_bytes, max_bytes], from a fixed seed (no run-time seed ever equals it but by chance),
// named "narrow-c07-r5e2"; then (n > 0) every permutation and shape of the dataset's ranks 3-6
// with 1 and with 2 bytes, named "r4-p3102-valley-1B-n".
std::vector<CalibrationCase> narrow_calibration_cases(size_t n, int64_t min_bytes,
                                                      int64_t max_bytes);

// FNV-1a: folds and seeds that do not depend on the standard library.
uint64_t fnv1a(const std::string& s);

}  // namespace xpose_tool
