#include "suites.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

#include "args.hpp"

namespace xpose_tool {
namespace {

Case make(const std::string& suite, const std::string& name, std::vector<int64_t> extents,
          std::vector<int> perm, size_t elem = 0) {
  return Case{suite, name, std::move(extents), std::move(perm), elem};
}

// printf-style names; also sidesteps GCC 12's false -Wrestrict on "literal" + std::string.
template <class... A>
std::string format(const char* fmt, A... args) {
  char buf[96];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// A uniformly random permutation of 0..rank-1 other than the identity (rank >= 2).
std::vector<int> random_perm(Random& rng, int rank) {
  std::vector<int> p(rank);
  do {
    std::iota(p.begin(), p.end(), 0);
    for (int i = rank - 1; i > 0; --i) std::swap(p[i], p[rng.below(i + 1)]);
  } while (std::is_sorted(p.begin(), p.end()));
  return p;
}

// `count` distinct random non-identity permutations.
std::vector<std::vector<int>> distinct_perms(Random& rng, int rank, size_t count) {
  std::vector<std::vector<int>> out;
  while (out.size() < count) {
    auto p = random_perm(rng, rank);
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

// Sizes are in elements, chosen for the default 8-byte elements: 2^23 elements is 64 MiB.
std::vector<Case> quick() {
  const std::string s = "quick";
  return {make(s, "q01", {4096, 2048}, {1, 0}),
          make(s, "q02", {256, 256, 128}, {2, 1, 0}),
          make(s, "q03", {256, 256, 128}, {1, 0, 2}),
          make(s, "q04", {256, 256, 128}, {0, 2, 1}),
          make(s, "q05", {8, 1024, 1024}, {2, 1, 0}),
          make(s, "q06", {64, 64, 64, 32}, {3, 2, 1, 0}),
          make(s, "q07", {64, 64, 64, 32}, {1, 3, 0, 2}),
          make(s, "q08", {32, 16, 32, 16, 32}, {4, 2, 0, 3, 1}),
          make(s, "q09", {16, 16, 16, 16, 16, 8}, {5, 4, 3, 2, 1, 0}),
          make(s, "q10", {16, 16, 16, 16, 16, 8}, {1, 0, 3, 2, 5, 4})};
}

// TTLG's 6D study: every permutation, identity included, in lexicographic order.
std::vector<Case> ttlg6d(int64_t extent) {
  const std::string s = format("ttlg6d-%lld", static_cast<long long>(extent));
  std::vector<Case> out;
  std::vector<int> p = {0, 1, 2, 3, 4, 5};
  do {
    std::string name = "p";
    for (int k : p) name += static_cast<char>('0' + k);  // "p012345"
    out.push_back(make(s, name, std::vector<int64_t>(6, extent), p));
  } while (std::next_permutation(p.begin(), p.end()));
  return out;
}

// Extents of `rank` dimensions whose largest/smallest is about `ratio`, volume about `volume`:
// log-uniform between the two ends, then scaled and shuffled.
std::vector<int64_t> ratio_extents(Random& rng, int rank, double ratio, double volume) {
  std::vector<double> f(rank);
  for (int k = 0; k < rank; ++k) f[k] = k == 0 ? 0.0 : k == 1 ? 1.0 : rng.unit();
  const double sum = std::accumulate(f.begin(), f.end(), 0.0);
  const double smallest = std::pow(volume / std::pow(ratio, sum), 1.0 / rank);
  std::vector<int64_t> e(rank);
  for (int k = 0; k < rank; ++k)
    e[k] = std::max<int64_t>(1, std::llround(smallest * std::pow(ratio, f[k])));
  for (int i = rank - 1; i > 0; --i) std::swap(e[i], e[rng.below(i + 1)]);
  return e;
}

// cuTT's random recipe: ranks 2-8, `volume` elements, extent ratios 1, 5 and 15, four random
// non-identity permutations per (rank, ratio), without repeats: rank 2 has fewer distinct cases
// (one for ratio 1, two for 5 and 15), 77 cases in all, named PREFIX + "r3x5-2" and so on.
std::vector<Case> cutt_recipe(const std::string& suite, const char* prefix, uint64_t seed,
                              double volume, size_t elem) {
  Random rng(seed);
  std::vector<Case> out;
  for (int rank = 2; rank <= 8; ++rank)
    for (int ratio : {1, 5, 15}) {
      std::vector<Case> group;
      for (int attempt = 0; attempt < 64 && group.size() < 4; ++attempt) {
        Case c = make(suite, format("%sr%dx%d-%zu", prefix, rank, ratio, group.size()),
                      ratio_extents(rng, rank, ratio, volume), random_perm(rng, rank), elem);
        const auto same = [&](const Case& o) { return o.extents == c.extents && o.perm == c.perm; };
        if (std::none_of(group.begin(), group.end(), same)) group.push_back(std::move(c));
      }
      out.insert(out.end(), group.begin(), group.end());
    }
  return out;
}

// cuTT's random suite: ~25M elements (200 MB of doubles).
std::vector<Case> cutt_random() { return cutt_recipe("cutt-random", "", 20170704, 25e6, 0); }

// Issue 13's element sizes: cuTT's recipe at ~200 MB for each of 1, 2, 4, 8 and 16-byte elements
// (a seed per size, so that each size has its own shapes), then TTLG's 6D study with 2-byte
// elements, 40 evenly spread permutations per extent (15, 16, 17).
std::vector<Case> dtypes() {
  std::vector<Case> out;
  for (size_t elem : {1, 2, 4, 8, 16}) {
    const std::string prefix = format("e%zu-", elem);
    auto cases = cutt_recipe("dtypes", prefix.c_str(), 1300 + elem, 200e6 / elem, elem);
    out.insert(out.end(), cases.begin(), cases.end());
  }
  for (int64_t extent : {15, 16, 17})
    for (Case c : spread(ttlg6d(extent), 40)) {
      c.suite = "dtypes";
      c.name = format("fp16-6d%lld-", static_cast<long long>(extent)) + c.name;
      c.elem = 2;
      out.push_back(std::move(c));
    }
  return out;
}

}  // namespace

std::vector<Case> random_cases(const char* suite, uint64_t seed, size_t count, int max_rank,
                               double lo, double hi, const std::vector<size_t>& elems) {
  Random rng(seed);
  std::vector<Case> out;
  for (size_t i = 0; i < count; ++i) {
    const int rank = 2 + static_cast<int>(rng.below(static_cast<uint64_t>(max_rank - 1)));
    const size_t elem = elems[rng.below(elems.size())];
    const double bytes = lo * std::pow(hi / lo, rng.unit());
    const double ratio = 1 + 19 * rng.unit();
    out.push_back(make(suite, format("c%02zu-r%de%zu", i, rank, elem),
                       ratio_extents(rng, rank, ratio, bytes / elem), random_perm(rng, rank),
                       elem));
  }
  return out;
}

namespace {

std::vector<Case> fresh(const char* name, uint64_t seed, int max_rank, double lo, double hi) {
  return random_cases(name, seed, 60, max_rank, lo, hi, {1, 2, 4, 8, 16});
}

// Issue 14's sizes: 4 KiB to 1 GiB in steps of 4x, 2D, 4D and 6D, 4, 2 and 8-byte elements (f32,
// fp16, f64): extents are powers of two as even as the bytes allow (a 2^k-element volume split
// over the dimensions), permutations that fuse no dimensions. Named "f32-4d-16KiB".
std::vector<Case> sizes() {
  const std::pair<const char*, size_t> types[] = {{"f32", 4}, {"fp16", 2}, {"f64", 8}};
  const std::pair<int, std::vector<int>> shapes[] = {
      {2, {1, 0}}, {4, {1, 3, 0, 2}}, {6, {4, 2, 0, 5, 3, 1}}};
  std::vector<Case> out;
  for (const auto& [type, elem] : types)
    for (const auto& [rank, perm] : shapes)
      for (int log_bytes = 12; log_bytes <= 30; log_bytes += 2) {
        const int log_volume = log_bytes - std::countr_zero(elem);
        std::vector<int64_t> e(rank);
        for (int k = 0; k < rank; ++k)
          e[k] = int64_t{1} << (log_volume / rank + (k < log_volume % rank ? 1 : 0));
        const int unit = log_bytes >= 30 ? 30 : log_bytes >= 20 ? 20 : 10;
        const char* units = unit == 30 ? "GiB" : unit == 20 ? "MiB" : "KiB";
        out.push_back(make("sizes", format("%s-%dd-%d%s", type, rank, 1 << (log_bytes - unit),
                                           units),
                           std::move(e), perm, elem));
      }
  return out;
}

std::vector<Case> fixed_extents(const std::string& suite, std::vector<int64_t> e, size_t count,
                                uint64_t seed) {
  Random rng(seed);
  std::vector<Case> out;
  for (const auto& p : distinct_perms(rng, static_cast<int>(e.size()), count))
    out.push_back(make(suite, format("p%03zu", out.size()), e, p));
  return out;
}

std::vector<Case> square() {
  std::vector<Case> out;
  for (int64_t n = 13952; n <= 13968; ++n)
    out.push_back(make("square", format("n%lld", static_cast<long long>(n)), {n, n}, {1, 0}));
  return out;
}

// Latency-bound sizes: 4 KiB to 1 MiB of doubles, ranks 2, 3, 4 and 6, two perms each.
std::vector<Case> small() {
  Random rng(4096);
  std::vector<Case> out;
  for (int64_t elems : {512, 2048, 8192, 32768, 131072})
    for (int rank : {2, 3, 4, 6})
      for (int i = 0; i < 2; ++i)
        out.push_back(make("small",
                           format("v%lldr%d-%d", static_cast<long long>(elems), rank, i),
                           ratio_extents(rng, rank, 1 + 3 * rng.unit(), elems),
                           random_perm(rng, rank)));
  return out;
}

std::vector<Case> builtin(const std::string& name, uint64_t seed) {
  if (name == "quick") return quick();
  if (name == "ttlg6d-15") return ttlg6d(15);
  if (name == "ttlg6d-16") return ttlg6d(16);
  if (name == "ttlg6d-17") return ttlg6d(17);
  if (name == "cutt-random") return cutt_random();
  if (name == "cutt-rank8") return fixed_extents("cutt-rank8", {5, 3, 2, 4, 35, 33, 37, 40}, 100, 8);
  if (name == "cutt-rank12")
    return fixed_extents("cutt-rank12", {2, 3, 4, 3, 2, 2, 3, 2, 20, 18, 22, 24}, 100, 12);
  if (name == "square") return square();
  if (name == "small") return small();
  if (name == "dtypes") return dtypes();
  if (name == "fresh") return fresh("fresh", seed, 10, 30e6, 500e6);
  if (name == "fresh-middle") return fresh("fresh-middle", seed, 8, 1 << 20, 16 << 20);
  if (name == "sizes") return sizes();
  return {};
}

std::vector<Case> from_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw UsageError("bench: cannot read suite file '" + path + "'");
  std::string stem = path.substr(path.find_last_of('/') + 1);
  stem = stem.substr(0, stem.rfind(".txt"));
  std::vector<Case> out;
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    line = line.substr(0, line.find('#'));
    std::istringstream in(line);
    std::vector<std::string> w;
    for (std::string t; in >> t;) w.push_back(t);
    if (w.empty()) continue;
    const std::string where = path + ":" + std::to_string(n) + ": ";
    size_t elem = 0;
    if (w.back().rfind("elem=", 0) == 0) {
      elem = parse_elem(where + "elem", w.back().substr(5));
      w.pop_back();
    }
    if (w.size() != 3 && w.size() != 4)
      throw UsageError(where + "expected '[SUITE] CASE EXTENTS PERM [elem=BYTES]'");
    const size_t o = w.size() - 3;
    Case c{o ? w[0] : stem, w[o], parse_int_list(where + "extents", w[o + 1]), {}, elem};
    for (int64_t p : parse_int_list(where + "perm", w[o + 2])) c.perm.push_back(static_cast<int>(p));
    check_case(c, where);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

const std::vector<SuiteInfo>& builtin_suites() {
  static const std::vector<SuiteInfo> suites = {
      {"quick", "10 cases of 64 MiB, ranks 2-6 (the README's first benchmark)"},
      {"ttlg6d-15", "6D, all extents 15, all 720 permutations"},
      {"ttlg6d-16", "6D, all extents 16, all 720 permutations"},
      {"ttlg6d-17", "6D, all extents 17, all 720 permutations"},
      {"cutt-random", "cuTT's random suite: ranks 2-8, ~200 MB, extent ratios 1, 5, 15"},
      {"cutt-rank8", "{5,3,2,4,35,33,37,40}, 100 random permutations"},
      {"cutt-rank12", "{2,3,4,3,2,2,3,2,20,18,22,24}, 100 random permutations"},
      {"square", "rank-2 transposes of side 13952..13968"},
      {"small", "4 KiB to 1 MiB, ranks 2-6 (latency; not part of all)"},
      {"all", "every suite above but quick and small"},
      {"dtypes", "cuTT's recipe at ~200 MB for 1, 2, 4, 8, 16-byte elements, 6D in fp16"},
      {"fresh", "60 random cases: ranks 2-10, 1-16 B elements, 30-500 MB, a new seed per run"},
      {"fresh-middle", "as fresh, ranks 2-8, 1-16 MiB (with --latency: L2-resident sizes)"},
      {"sizes", "4 KiB to 1 GiB (x4), 2D / 4D / 6D, f32 / fp16 / f64 (with --latency)"}};
  return suites;
}

uint64_t fresh_seed(const std::vector<std::string>& names, const std::string* seed_arg,
                    std::FILE* out, std::string* note) {
  note->clear();
  const bool fresh = std::any_of(names.begin(), names.end(),
                                 [](const std::string& n) { return n.rfind("fresh", 0) == 0; });
  if (seed_arg && !fresh) throw UsageError("--seed: only the fresh suites are drawn from a seed");
  if (!fresh) return 0;
  const uint64_t seed = seed_arg
                            ? static_cast<uint64_t>(parse_int("--seed", *seed_arg, 0, INT64_MAX))
                            : std::random_device{}();
  *note = "fresh: seed " + std::to_string(seed);
  std::fprintf(out, "%s\n", note->c_str());
  return seed;
}

std::vector<Case> load_suite(const std::string& name, uint64_t seed) {
  if (name.find('/') != std::string::npos ||
      (name.size() > 4 && name.compare(name.size() - 4, 4, ".txt") == 0))
    return from_file(name);
  if (name == "all") {
    std::vector<Case> out;
    for (const auto& s : builtin_suites()) {
      if (s.name == "all") break;  // the suites after it are not part of it
      if (s.name == "quick" || s.name == "small") continue;
      auto cases = builtin(s.name, seed);
      out.insert(out.end(), cases.begin(), cases.end());
    }
    return out;
  }
  auto cases = builtin(name, seed);
  if (cases.empty()) {
    std::string names;
    for (const auto& s : builtin_suites()) names += " " + s.name;
    throw UsageError("bench: unknown suite '" + name + "' (built-in:" + names +
                     "; or a suite file path)");
  }
  return cases;
}

std::string list_line(const Case& c) {
  const std::string elem = c.elem ? " elem=" + std::to_string(c.elem) : "";
  return c.suite + " " + c.name + " " + join(c.extents, false) + " " + join(c.perm, false) + elem;
}

namespace {
// How many of `n` picks each group of `sizes` cases gets (n below their sum, at least one per
// group): one each, the rest in proportion to what each group has left, largest remainders
// first, so never more than a group has.
std::vector<size_t> quotas(const std::vector<size_t>& sizes, size_t n) {
  const size_t k = sizes.size();
  const size_t left = std::accumulate(sizes.begin(), sizes.end(), size_t{0}) - k;
  std::vector<size_t> q(k), remainder(k);
  size_t given = 0;
  for (size_t g = 0; g < k; ++g) {
    q[g] = 1 + (n - k) * (sizes[g] - 1) / left;
    remainder[g] = (n - k) * (sizes[g] - 1) % left;
    given += q[g];
  }
  std::vector<size_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  for (size_t i = 0; given < n; ++i, ++given) ++q[order[i]];
  return q;
}

// The positions of `cases` by element size (groups in order of first appearance), or all in one.
std::vector<std::vector<size_t>> positions(const std::vector<Case>& cases, bool by_elem) {
  std::vector<size_t> keys;
  std::vector<std::vector<size_t>> at;
  for (size_t i = 0; i < cases.size(); ++i) {
    const size_t key = by_elem ? cases[i].elem : 0;
    const size_t g = std::find(keys.begin(), keys.end(), key) - keys.begin();
    if (g == keys.size()) {
      keys.push_back(key);
      at.emplace_back();
    }
    at[g].push_back(i);
  }
  return at;
}
}  // namespace

std::vector<Case> spread(const std::vector<Case>& cases, size_t n) {
  if (n >= cases.size()) return cases;
  if (n == 0) return {};
  auto at = positions(cases, true);
  if (n < at.size()) at = positions(cases, false);  // too few picks for every size
  std::vector<size_t> sizes;
  for (const auto& a : at) sizes.push_back(a.size());
  const std::vector<size_t> q = quotas(sizes, n);
  std::vector<size_t> picked;
  for (size_t g = 0; g < at.size(); ++g)
    for (size_t k = 0; k < q[g]; ++k) picked.push_back(at[g][k * at[g].size() / q[g]]);
  std::sort(picked.begin(), picked.end());
  std::vector<Case> out;
  for (size_t i : picked) out.push_back(cases[i]);
  return out;
}

}  // namespace xpose_tool
