// Benchmark suites: generated deterministically here (fixed seeds), or read from a file in the
// format `xpose bench SUITE --list` prints (bench/suites/README.md).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "common.hpp"

namespace xpose_tool {

struct SuiteInfo {
  std::string name;
  std::string description;
};

// The built-in suites, in the order `all` runs them, `small` and `all` included; those after
// `all` are not part of it.
const std::vector<SuiteInfo>& builtin_suites();

// The cases of a built-in suite, of `all` (every built-in suite before it but `quick` and
// `small`), or of a suite file (any name containing '/' or ending in .txt). Throws UsageError for
// unknown names. `seed` draws the `fresh` suite; every other suite is fixed.
std::vector<Case> load_suite(const std::string& name, uint64_t seed = 0);

// The seed the fresh suites among `names` are drawn from: `seed_arg` (--seed) when given, else a
// new one; printed to `out` as "fresh: seed N" and returned with `note` set to that text. 0 (and
// `note` empty) when no name is a fresh suite; UsageError when `seed_arg` is given without one.
uint64_t fresh_seed(const std::vector<std::string>& names, const std::string* seed_arg,
                    std::FILE* out, std::string* note);

// "SUITE CASE EXTENTS PERM", e.g. "quick q01 4096,2048 1,0", and " elem=BYTES" after it for a case
// with its own element size: what --list prints and suite files hold.
std::string list_line(const Case& c);

// Plan generalization (issue 13 point 6), shapes no suite tuned the planner on: `count` cases of
// ranks 2-max_rank, element sizes drawn from `elems`, lo-hi bytes (log-uniform), extents of a
// random ratio in [1, 20], random non-identity permutations, from `seed`; named "c07-r5e2".
// `fresh`: 60 of ranks 2-10, 1-16 bytes, 30-500 MB, from the run's seed; `fresh-middle` (issue
// 14): ranks 2-8, 1-16 MiB, where input and output fit in L2; `xpose calibrate`'s narrow
// problems: 1 and 2 bytes, from fixed seeds.
std::vector<Case> random_cases(const char* suite, uint64_t seed, size_t count, int max_rank,
                               double lo, double hi, const std::vector<size_t>& elems);

// N cases spread evenly over `cases` (all of them when n >= size), in their order. Where the
// cases mix element sizes, over each size apart, N shared in proportion (at least one per size
// when N allows), so that a limited run still times every size.
std::vector<Case> spread(const std::vector<Case>& cases, size_t n);

}  // namespace xpose_tool
