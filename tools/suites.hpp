// Benchmark suites: generated deterministically here (fixed seeds), or read from a file in the
// format `xpose bench SUITE --list` prints (bench/suites/README.md).
#pragma once

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

// "SUITE CASE EXTENTS PERM", e.g. "quick q01 4096,2048 1,0", and " elem=BYTES" after it for a case
// with its own element size: what --list prints and suite files hold.
std::string list_line(const Case& c);

// N cases spread evenly over `cases` (all of them when n >= size), in their order. Where the
// cases mix element sizes, over each size apart, N shared in proportion (at least one per size
// when N allows), so that a limited run still times every size.
std::vector<Case> spread(const std::vector<Case>& cases, size_t n);

}  // namespace xpose_tool
