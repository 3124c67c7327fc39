// Concurrency stress on the CPU backend (issue 17; API.md: plans may be created, executed and
// destroyed from several threads at once, and xpose_transpose's cache is thread-safe): many
// std::threads creating, executing, predicting and destroying plans; the plan cache under
// contention and eviction; one plan executed by many threads at once. Every result is checked
// against the naive reference. Plans use options.num_threads = 0 (OpenMP's thread count), so the
// ThreadSanitizer stage of .ci/run runs this file alone with OMP_NUM_THREADS=1: then every
// thread is a std::thread TSan sees (libgomp is not instrumented; docs/reliability.md).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/plan.hpp"
#include "reference.hpp"
#include "xpose/xpose.h"

namespace {

using xpose_test::cpu_options;
using xpose_test::Rng;

constexpr int kThreads = 8;

struct Case {
  std::vector<int64_t> extents;
  std::vector<int> perm;
  size_t elem;
  xpose_layout_t layout;
  int64_t volume() const { return xpose_test::volume_of(extents); }
  size_t bytes() const { return static_cast<size_t>(volume()) * elem; }
  int rank() const { return static_cast<int>(extents.size()); }
  std::string name() const {
    return xpose_test::str(extents) + " perm " + xpose_test::str(perm) + " " +
           std::to_string(elem) + " B" + (layout == XPOSE_ROW_MAJOR ? " row-major" : "");
  }
};

// A random case of rank 1..5 and at most ~20k elements.
Case random_case(Rng& rng) {
  static constexpr size_t kElems[] = {1, 2, 4, 8, 16};
  Case c;
  const int rank = 1 + static_cast<int>(rng.below(5));
  int64_t volume = 1;
  for (int k = 0; k < rank; ++k) {
    const int64_t e = 1 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(
                              std::max<int64_t>(1, std::min<int64_t>(40, 20000 / volume)))));
    c.extents.push_back(e);
    volume *= e;
  }
  c.perm = rng.permutation(rank);
  c.elem = kElems[rng.below(5)];
  c.layout = rng.below(2) ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
  return c;
}

// Input bytes of `c` from `seed` and the reference output.
struct Data {
  std::vector<unsigned char> in, want, out;
  Data(const Case& c, uint64_t seed) : in(c.bytes()), want(c.bytes()), out(c.bytes()) {
    xpose_test::fill_random(in.data(), in.size(), seed);
    xpose_test::reference_transpose(c.extents, c.perm, c.elem, c.layout, in.data(), want.data());
  }
  bool right() const { return out == want; }
};

// Runs body(thread index) on kThreads threads at once; returns the failures they reported.
template <class F>
std::vector<std::string> on_threads(const F& body) {
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();  // start together
      failures[t] = body(t);
    });
  for (auto& th : threads) th.join();
  std::vector<std::string> out;
  for (auto& f : failures)
    if (!f.empty()) out.push_back(f);
  return out;
}

TEST(Concurrency, ThreadsCreateExecutePredictAndDestroyPlans) {
  const uint64_t seed = xpose_test::test_seed();
  const auto failures = on_threads([&](int t) -> std::string {
    Rng rng(seed + 7919 * static_cast<uint64_t>(t));
    for (int i = 0; i < 60; ++i) {
      const Case c = random_case(rng);
      const xpose_options_t o = cpu_options(c.layout);
      Data d(c, rng.next());
      xpose_plan_t plan = nullptr;
      if (xpose_plan_create(&plan, c.rank(), c.extents.data(), c.perm.data(), c.elem, &o) !=
          XPOSE_SUCCESS)
        return "create " + c.name() + ": " + xpose_last_error();
      double seconds = -1, again = -1;
      const bool predicted =
          xpose_plan_predict(plan, &seconds) == XPOSE_SUCCESS &&
          xpose_predict(c.rank(), c.extents.data(), c.perm.data(), c.elem, &o, &again) ==
              XPOSE_SUCCESS &&
          seconds >= 0 && seconds == again;
      const bool ran = xpose_execute(plan, d.in.data(), d.out.data(), nullptr) == XPOSE_SUCCESS;
      const bool described = xpose_plan_describe(plan, nullptr, 0) > 0;
      xpose_plan_destroy(plan);
      if (!predicted) return "predict " + c.name();
      if (!ran || !d.right()) return "execute " + c.name();
      if (!described) return "describe " + c.name();
      // A bad call between good ones: its message is this thread's alone.
      const int bad_perm[2] = {0, 0};
      const int64_t ext[2] = {2, 2};
      if (xpose_plan_create(&plan, 2, ext, bad_perm, 4, &o) != XPOSE_ERROR_INVALID_ARGUMENT ||
          std::string(xpose_last_error()).find("perm[1] = 0 repeats") == std::string::npos)
        return std::string("bad perm: ") + xpose_last_error();
    }
    return "";
  });
  for (const auto& f : failures) ADD_FAILURE() << f << "; " << xpose_test::seed_note();
}

// More distinct shapes than the cache holds (4096), spread over threads that share half of
// them: finds, inserts and evictions interleave; every call's result is checked.
TEST(Concurrency, PlanCacheUnderContentionAndEviction) {
  const uint64_t seed = xpose_test::test_seed();
  constexpr int kShapes = 6000, kPerThread = 1500;
  const auto failures = on_threads([&](int t) -> std::string {
    Rng rng(seed + 104729 * static_cast<uint64_t>(t));
    const xpose_options_t o = cpu_options();
    for (int i = 0; i < kPerThread; ++i) {
      // Shape n of kShapes: (a, b) perm (1, 0) with a * b distinct pairs; odd threads walk the
      // same shapes as the thread before them, in another order.
      const int n = static_cast<int>(t % 2 ? rng.below(kShapes) : (t / 2 * kPerThread + i) % kShapes);
      Case c{{1 + n % 97, 1 + n / 97}, {1, 0}, 4, XPOSE_COL_MAJOR};
      Data d(c, rng.next());
      if (xpose_transpose(2, c.extents.data(), c.perm.data(), c.elem, d.in.data(), d.out.data(),
                          &o, nullptr) != XPOSE_SUCCESS)
        return "transpose " + c.name() + ": " + xpose_last_error();
      if (!d.right()) return "wrong result " + c.name();
    }
    return "";
  });
  for (const auto& f : failures) ADD_FAILURE() << f << "; " << xpose_test::seed_note();
  EXPECT_LE(xpose::detail::plan_cache_size(), size_t{4096});
}

// One plan of each CPU schema, executed by every thread at once into its own output.
TEST(Concurrency, OnePlanExecutedByManyThreads) {
  const uint64_t seed = xpose_test::test_seed();
  struct Forced {
    Case c;
    const char* schema;
  };
  const Forced cases[] = {{{{300, 257}, {1, 0}, 4, XPOSE_COL_MAJOR}, "blocked"},
                          {{{64, 33, 70}, {2, 1, 0}, 8, XPOSE_COL_MAJOR}, "matrix"},
                          {{{3, 50, 41, 7}, {0, 3, 1, 2}, 2, XPOSE_COL_MAJOR}, "super"},
                          {{{100, 30, 20}, {0, 2, 1}, 1, XPOSE_COL_MAJOR}, "direct"},
                          {{{5000}, {0}, 16, XPOSE_COL_MAJOR}, "copy"},
                          {{{17, 19, 23, 5}, {3, 1, 0, 2}, 8, XPOSE_ROW_MAJOR}, ""}};
  for (const Forced& f : cases) {
    SCOPED_TRACE(f.c.name() + " schema '" + f.schema + "'");
    const xpose_options_t o = cpu_options(f.c.layout);
    xpose_plan_t plan = nullptr;
    ASSERT_EQ(*f.schema ? xpose_plan_create_forced(&plan, f.c.rank(), f.c.extents.data(),
                                                   f.c.perm.data(), f.c.elem, &o, f.schema)
                        : xpose_plan_create(&plan, f.c.rank(), f.c.extents.data(),
                                            f.c.perm.data(), f.c.elem, &o),
              XPOSE_SUCCESS)
        << xpose_last_error();
    const Data shared(f.c, seed);
    const auto failures = on_threads([&](int) -> std::string {
      for (int rep = 0; rep < 20; ++rep) {
        std::vector<unsigned char> out(f.c.bytes());
        if (xpose_execute(plan, shared.in.data(), out.data(), nullptr) != XPOSE_SUCCESS)
          return std::string("execute: ") + xpose_last_error();
        if (out != shared.want) return "wrong result at repetition " + std::to_string(rep);
      }
      return "";
    });
    for (const auto& e : failures) ADD_FAILURE() << e << "; " << xpose_test::seed_note();
    xpose_plan_destroy(plan);
  }
}

// In-place transposes of separate buffers on every thread at once.
TEST(Concurrency, InplaceOnManyThreads) {
  const uint64_t seed = xpose_test::test_seed();
  const auto failures = on_threads([&](int t) -> std::string {
    Rng rng(seed + 31337 * static_cast<uint64_t>(t));
    for (int i = 0; i < 20; ++i) {
      const int64_t n = 1 + static_cast<int64_t>(rng.below(90)), z = 1 + rng.below(4);
      const Case c{{n, n, z}, {1, 0, 2}, size_t{1} << rng.below(5), XPOSE_COL_MAJOR};
      Data d(c, rng.next());
      d.out = d.in;
      const xpose_options_t o = cpu_options();
      if (xpose_transpose_inplace(3, c.extents.data(), c.perm.data(), c.elem, d.out.data(), &o,
                                  nullptr) != XPOSE_SUCCESS)
        return "inplace " + c.name() + ": " + xpose_last_error();
      if (!d.right()) return "wrong in-place result " + c.name();
    }
    return "";
  });
  for (const auto& f : failures) ADD_FAILURE() << f << "; " << xpose_test::seed_note();
}

}  // namespace
