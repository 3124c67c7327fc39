// Times of the CPU backend's heuristic plans, case by case, with whichever library build it is
// linked against: the per-case A/B of two builds that docs/perf/cpu-2core.md (session 11) uses
// where the machine is too loaded for `xpose bench` ratios (bench/cpu_lib_ab.sh alternates two
// such binaries).
//
// Build (a CPU-only Release build of the library in BUILD):
//   g++ -O2 -std=c++20 -fopenmp -Iinclude -Isrc -Itools bench/cpu_case_times.cpp
//       tools/timing.cpp BUILD/src/libxpose_internal.a -o DIR/cpu_case_times
// Usage: cpu_case_times ELEM THREADS REPS [FLUSH_MIB] < CASES
// CASES: lines "SUITE CASE EXTENTS PERM" (`xpose bench SUITE --list`), ELEM-byte elements.
// Per case: a heuristic plan, the input filled (never zero), then REPS executions, each after a
// cache flush; prints "SUITE/CASE min_ms plan" (the plan's first describe() line). REPS 0 prints
// the plans only (no buffers). The flush: CacheFlusher as `xpose bench` (twice the reported LLC,
// at most 768 MiB), or a read of FLUSH_MIB MiB (session 11 used 96: one thread reads 768 MiB
// in about a tenth of a second, before every execution).
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "timing.hpp"
#include "xpose/xpose.h"

namespace {

std::vector<int64_t> numbers(const std::string& text) {
  std::vector<int64_t> v;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) v.push_back(std::stoll(item));
  return v;
}

unsigned char* aligned(unsigned char* p) {
  return p + (64 - reinterpret_cast<uintptr_t>(p) % 64) % 64;
}

// First describe() line of the plan, without its "backend cpu: " prefix.
std::string plan_line(xpose_plan_t plan) {
  char text[4096] = "";
  xpose_plan_describe(plan, text, sizeof text);
  std::string d(text);
  d = d.substr(0, d.find('\n'));
  const size_t colon = d.find(": ");
  return colon == std::string::npos ? d : d.substr(colon + 2);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: cpu_case_times ELEM THREADS REPS [FLUSH_MIB] < CASES\n");
    return 2;
  }
  const int elem = std::atoi(argv[1]), threads = std::atoi(argv[2]), reps = std::atoi(argv[3]);
  xpose_tool::CacheFlusher flusher(threads);
  const size_t flush_bytes = argc == 5 ? static_cast<size_t>(std::atoi(argv[4])) << 20 : 0;
  std::vector<unsigned char> flush_buffer(flush_bytes, 1);
  uint64_t sink = 0;
  const auto flush = [&] {
    if (flush_bytes == 0) return flusher.flush();
    for (size_t i = 0; i < flush_bytes; i += 64) sink += flush_buffer[i]++;
  };
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CPU;
  o.num_threads = threads;
  for (std::string line; std::getline(std::cin, line);) {
    std::stringstream ls(line);
    std::string suite, name, ext_text, perm_text;
    if (!(ls >> suite >> name >> ext_text >> perm_text)) continue;
    const std::vector<int64_t> ext = numbers(ext_text), p = numbers(perm_text);
    const std::vector<int> perm(p.begin(), p.end());
    xpose_plan_t plan = nullptr;
    if (xpose_plan_create(&plan, static_cast<int>(ext.size()), ext.data(), perm.data(), elem,
                          &o) != XPOSE_SUCCESS) {
      std::printf("%s/%s failed: %s\n", suite.c_str(), name.c_str(), xpose_last_error());
      continue;
    }
    double best = 0;
    if (reps > 0) {
      size_t bytes = static_cast<size_t>(elem);
      for (int64_t e : ext) bytes *= static_cast<size_t>(e);
      // 64-byte aligned, as `xpose bench` (a vector's data sits 16 bytes past a page here,
      // which moved every row end off its line and one case 2-9x).
      std::vector<unsigned char> in_storage(bytes + 64), out_storage(bytes + 64);
      unsigned char* in = aligned(in_storage.data());
      unsigned char* out = aligned(out_storage.data());
      for (size_t i = 0; i < bytes; ++i) in[i] = static_cast<unsigned char>(i % 251 + 1);
      std::vector<double> ms;
      for (int r = 0; r < reps; ++r) {
        flush();
        const std::vector<double> t =
            xpose_tool::cpu_time_ms([&] { xpose_execute(plan, in, out, nullptr); }, 1);
        ms.push_back(t[0]);
      }
      best = *std::min_element(ms.begin(), ms.end());
    }
    std::printf("%s/%s %.4f %s\n", suite.c_str(), name.c_str(), best, plan_line(plan).c_str());
    xpose_plan_destroy(plan);
  }
  return sink == 1 ? 3 : 0;  // (keeps the flush reads)
}
