// Interleaved A/B of CPU plan variants on the same cases, in one process (docs/perf/cpu-16core.md).
//
// Build (CPU-only Release build of the library in BUILD; the tool's host-only timing and check
// helpers compiled in):
//   g++ -O2 -std=c++20 -fopenmp -Iinclude -Isrc -Itools bench/cpu_ab.cpp tools/timing.cpp
//       tools/check.cpp tools/common.cpp -LBUILD/src -lxpose -Wl,-rpath,'$ORIGIN'
//       -o DIR/cpu_ab && cp -L BUILD/src/libxpose.so.0 DIR/
// Usage:
//   cpu_ab [--reps N] [--budget S] [--csv FILE] [--raw FILE] VARIANT... < CASES
// CASES: lines "SUITE CASE EXTENTS PERM" (`xpose bench SUITE --list`), 8-byte elements.
// VARIANT: label[/env=NAME=VALUE...][/schema=SCHEMA][/threads=N][/hp], e.g. base,
//   nolw/env=XPOSE_EXP=2, sq/schema=blocked:ti=64,to=64, t8/threads=8, thp/hp. Each variant's
//   environment is set while its plan is made; a forced schema that does not apply falls back
//   to the heuristic plan (the plan column says which ran). `hp`: the variant runs on a second
//   pair of buffers backed by transparent huge pages (madvise), a diagnostic of how much of a
//   case's time is page walks; its copy baseline is the regular-page one.
// Environment variants need a library that reads its switches at plan time and does not cache
// plans: the released one reads XPOSE_CPU_NT and XPOSE_CPU_GROUP once per process and returns
// the cached plan to a second heuristic xpose_plan_create of the same problem (forced schemas are
// not cached). Session 4's runs used an experiment build, docs/perf/cpu-ab-2026-11-21/README.md.
// Per case: every variant planned, run once on a poisoned output and checked as `xpose run`
// checks (check_transpose: every element up to 2^18, else the first, the last and 2^18 sampled
// ones), then `reps` rounds; in each round every variant (rotating the starting one) and the
// parallel memcpy run once, each after a cache flush (CacheFlusher: a parallel read of twice the
// LLC, at most 768 MiB), as `xpose bench` does; then the same memcpy split in dynamic chunks (row
// `copy-dyn`, a control). Buffers are first touched by parallel fills, as in the tool.
// Reported: median ms per variant, median copy ms, ratio = copy / variant.
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "check.hpp"
#include "timing.hpp"
#include "xpose/xpose.h"

namespace {

struct Variant {
  std::string label, schema;
  std::vector<std::pair<std::string, std::string>> env;
  bool hp = false;
  int threads = 0;  // 0: all (the library's default)
};

Variant parse_variant(const std::string& text) {
  Variant v;
  std::stringstream ss(text);
  std::string part;
  std::getline(ss, v.label, '/');
  while (std::getline(ss, part, '/')) {
    if (part == "hp") {
      v.hp = true;
    } else if (part.rfind("threads=", 0) == 0) {
      v.threads = std::atoi(part.c_str() + 8);
    } else if (part.rfind("schema=", 0) == 0) {
      v.schema = part.substr(7);
    } else if (part.rfind("env=", 0) == 0) {
      const size_t eq = part.find('=', 4);
      v.env.emplace_back(part.substr(4, eq - 4), part.substr(eq + 1));
    } else {
      std::fprintf(stderr, "bad variant part '%s'\n", part.c_str());
      std::exit(2);
    }
  }
  return v;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

using xpose_tool::median;
using xpose_tool::parallel_memcpy;
using xpose_tool::parallel_memset;

// A 2 MiB-aligned anonymous mapping; `base` and `size` are the mapping itself, for munmap.
struct Buffer {
  void* base = nullptr;
  size_t size = 0;
  char* p = nullptr;
};

void release(Buffer* b) {
  if (b->base) munmap(b->base, b->size);
  *b = Buffer{};
}

// Replaces `b` (unmapping the old mapping) by one of `bytes`; exits when mmap fails.
void alloc(Buffer* b, size_t bytes, bool huge) {
  release(b);
  const size_t align = size_t{2} << 20, n = (bytes + align - 1) / align * align;
  void* p = mmap(nullptr, n + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "cpu_ab: mmap of %zu bytes failed: %s\n", n + align,
                 std::strerror(errno));
    std::exit(1);
  }
  b->base = p;
  b->size = n + align;
  b->p = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(p) + align - 1) / align * align);
  madvise(b->p, n, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
}

FILE* open_or_exit(const char* path) {
  FILE* f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "cpu_ab: cannot open %s: %s\n", path, std::strerror(errno));
    std::exit(2);
  }
  return f;
}

// The same memcpy in 16 line-aligned chunks per thread, taken by whichever thread is free (the
// split the library's execute uses since session 6): a control for how much of a plan's gain
// over parallel_memcpy is the split alone.
void pcopy_dynamic(char* d, const char* s, size_t bytes) {
  const int64_t n = int64_t{16} * omp_get_max_threads();
  const size_t lines = (bytes + 63) / 64;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t c = 0; c < n; ++c) {
    const size_t b = std::min(bytes, lines * c / n * 64);
    const size_t e = std::min(bytes, lines * (c + 1) / n * 64);
    if (e > b) std::memcpy(d + b, s + b, e - b);
  }
}

void fill(uint64_t* p, int64_t n, uint64_t base) {
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) p[i] = base + static_cast<uint64_t>(i);
}

void set_env(const Variant& v, const std::vector<Variant>& all) {
  for (const auto& o : all)
    for (const auto& e : o.env) unsetenv(e.first.c_str());
  for (const auto& e : v.env) setenv(e.first.c_str(), e.second.c_str(), 1);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  double budget_s = 1e9;
  FILE* csv = nullptr;
  FILE* raw = nullptr;  // every repetition: suite,case,variant,rep,ms
  std::vector<Variant> vars;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s == "--reps" && a + 1 < argc) {
      reps = std::atoi(argv[++a]);
    } else if (s == "--budget" && a + 1 < argc) {
      budget_s = std::atof(argv[++a]);
    } else if (s == "--raw" && a + 1 < argc) {
      raw = open_or_exit(argv[++a]);
    } else if (s == "--csv" && a + 1 < argc) {
      csv = open_or_exit(argv[++a]);
    } else {
      vars.push_back(parse_variant(s));
    }
  }
  if (vars.empty()) {
    std::fprintf(stderr, "usage: cpu_ab [--reps N] [--budget S] [--csv F] VARIANT... < CASES\n");
    return 2;
  }
  if (csv) std::fprintf(csv, "suite,case,variant,ms,copy_ms,ratio,ok,plan\n");
  const bool any_hp = std::any_of(vars.begin(), vars.end(), [](const Variant& v) { return v.hp; });
  const double t_start = now_ms();
  size_t cap = 0;
  Buffer in_buf, out_buf, hin_buf, hout_buf;
  char *in = nullptr, *out = nullptr, *hin = nullptr, *hout = nullptr;
  std::string line;
  std::vector<std::vector<double>> ratios(vars.size());
  xpose_tool::CacheFlusher flusher(0);
  flusher.flush();
  while (std::getline(std::cin, line)) {
    if (line.empty() || line[0] == '#') continue;
    if ((now_ms() - t_start) / 1e3 > budget_s) {
      std::printf("budget reached, stopping before %s\n", line.c_str());
      break;
    }
    std::istringstream ls(line);
    std::string suite, name, es, ps;
    ls >> suite >> name >> es >> ps;
    std::vector<int64_t> ext;
    std::vector<int> perm;
    {
      std::stringstream e(es);
      std::string t;
      while (std::getline(e, t, ',')) ext.push_back(std::atoll(t.c_str()));
      std::stringstream p(ps);
      while (std::getline(p, t, ',')) perm.push_back(std::atoi(t.c_str()));
    }
    const xpose_tool::Case problem{suite, name, ext, perm};
    int64_t vol = 0;
    try {
      vol = problem.volume();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s %s: %s\n", suite.c_str(), name.c_str(), e.what());
      return 2;
    }
    const size_t bytes = static_cast<size_t>(vol) * 8;
    if (bytes > cap) {  // grows only; the smaller mappings are unmapped
      cap = bytes;
      alloc(&in_buf, cap, false), in = in_buf.p;
      alloc(&out_buf, cap, false), out = out_buf.p;
      if (any_hp) alloc(&hin_buf, cap, true), hin = hin_buf.p;
      if (any_hp) alloc(&hout_buf, cap, true), hout = hout_buf.p;
    }
    fill(reinterpret_cast<uint64_t*>(in), vol, 0);
    if (any_hp) fill(reinterpret_cast<uint64_t*>(hin), vol, 0);
    std::vector<xpose_plan_t> plans(vars.size(), nullptr);
    std::vector<std::string> desc(vars.size());
    std::vector<int> ok(vars.size(), 0);
    for (size_t i = 0; i < vars.size(); ++i) {
      set_env(vars[i], vars);
      xpose_options_t o;
      xpose_options_init(&o);
      o.backend = XPOSE_BACKEND_CPU;
      o.num_threads = vars[i].threads;
      xpose_status_t st = XPOSE_ERROR_INVALID_ARGUMENT;
      if (!vars[i].schema.empty())
        st = xpose_plan_create_forced(&plans[i], static_cast<int>(ext.size()), ext.data(),
                                      perm.data(), 8, &o, vars[i].schema.c_str());
      if (st != XPOSE_SUCCESS)
        st = xpose_plan_create(&plans[i], static_cast<int>(ext.size()), ext.data(), perm.data(),
                               8, &o);
      if (st != XPOSE_SUCCESS) {
        std::fprintf(stderr, "%s %s: plan failed: %s\n", name.c_str(), vars[i].label.c_str(),
                     xpose_last_error());
        return 1;
      }
      char buf[4096];
      if (xpose_plan_describe(plans[i], buf, sizeof buf) > 0) {
        std::string d(buf);
        const size_t a = d.find("backend cpu: ");
        d = a == std::string::npos ? d : d.substr(a + 13);
        desc[i] = d.substr(0, d.find('\n'));
      }
      const char* i_ = vars[i].hp ? hin : in;
      char* o_ = vars[i].hp ? hout : out;
      parallel_memset(o_, 0xff, bytes, 0);
      xpose_execute(plans[i], i_, o_, nullptr);
      const auto* ui = reinterpret_cast<const unsigned char*>(i_);
      const auto* uo = reinterpret_cast<const unsigned char*>(o_);
      ok[i] = xpose_tool::check_transpose(problem, 8, o.layout, ui, uo, 1 << 18, 12345).ok();
    }
    set_env(Variant{}, vars);
    std::vector<std::vector<double>> t(vars.size());
    std::vector<double> ct, hct, dct;
    for (int r = 0; r < reps; ++r) {
      for (size_t k = 0; k < vars.size(); ++k) {
        const size_t i = (k + static_cast<size_t>(r)) % vars.size();
        flusher.flush();
        const double t0 = now_ms();
        xpose_execute(plans[i], vars[i].hp ? hin : in, vars[i].hp ? hout : out, nullptr);
        t[i].push_back(now_ms() - t0);
        if (raw)
          std::fprintf(raw, "%s,%s,%s,%d,%.4f\n", suite.c_str(), name.c_str(),
                       vars[i].label.c_str(), r, t[i].back());
      }
      flusher.flush();
      const double t0 = now_ms();
      parallel_memcpy(out, in, bytes, 0);
      ct.push_back(now_ms() - t0);
      if (raw) std::fprintf(raw, "%s,%s,copy,%d,%.4f\n", suite.c_str(), name.c_str(), r, ct.back());
      flusher.flush();
      const double t2 = now_ms();
      pcopy_dynamic(out, in, bytes);
      dct.push_back(now_ms() - t2);
      if (raw)
        std::fprintf(raw, "%s,%s,copy-dyn,%d,%.4f\n", suite.c_str(), name.c_str(), r, dct.back());
      if (any_hp) {
        flusher.flush();
        const double t1 = now_ms();
        parallel_memcpy(hout, hin, bytes, 0);
        hct.push_back(now_ms() - t1);
      }
    }
    const double c = median(ct);
    std::printf("%-11s %-9s copy %6.3f", suite.c_str(), name.c_str(), c);
    for (size_t i = 0; i < vars.size(); ++i) {
      const double m = median(t[i]);
      ratios[i].push_back(c / m);
      std::printf(" %s%.3f", ok[i] ? "" : "!", c / m);
      if (csv)
        std::fprintf(csv, "%s,%s,%s,%.4f,%.4f,%.4f,%d,\"%s\"\n", suite.c_str(), name.c_str(),
                     vars[i].label.c_str(), m, c, c / m, ok[i], desc[i].c_str());
      xpose_plan_destroy(plans[i]);
    }
    if (csv)
      std::fprintf(csv, "%s,%s,copy-dyn,%.4f,%.4f,%.4f,1,\"memcpy, dynamic chunks\"\n",
                   suite.c_str(), name.c_str(), median(dct), c, c / median(dct));
    if (any_hp && csv)
      std::fprintf(csv, "%s,%s,copy-hp,%.4f,%.4f,%.4f,1,\"memcpy on huge pages\"\n",
                   suite.c_str(), name.c_str(), median(hct), c, c / median(hct));
    std::printf("\n");
    std::fflush(stdout);
    if (csv) std::fflush(csv);
  }
  std::printf("median ratio:");
  for (size_t i = 0; i < vars.size(); ++i)
    std::printf(" %s %.3f", vars[i].label.c_str(), ratios[i].empty() ? 0.0 : median(ratios[i]));
  std::printf("\n");
  if (csv) std::fclose(csv);
  if (raw) std::fclose(raw);
  release(&in_buf), release(&out_buf), release(&hin_buf), release(&hout_buf);
  return 0;
}
