// The public contract's error handling (API.md): every bad input returns its status with a
// message naming the argument, and leaves the output untouched; xpose_last_error, status
// strings, plan descriptions, the plan cache, and the CUDA backend on a machine without a GPU.
#include <gtest/gtest.h>

#include <cstring>

#include <thread>

#include "core/backend.hpp"
#include "core/plan.hpp"
#include "reference.hpp"
#include "xpose/xpose.h"

namespace {

using xpose_test::cpu_options;
using xpose_test::GuardedBuffer;

struct BadCall {
  const char* what;
  int rank;
  std::vector<int64_t> extents;
  std::vector<int> perm;
  size_t elem;
  xpose_options_t options;
  const char* message_part;  // the argument the message must name
  bool null_extents = false, null_perm = false;
};

// Each bad request through both entry points: plan creation and the one-call transpose.
void expect_rejected(const BadCall& c) {
  SCOPED_TRACE(c.what);
  const int64_t* e = c.null_extents ? nullptr : c.extents.data();
  const int* p = c.null_perm ? nullptr : c.perm.data();
  xpose_plan_t plan = reinterpret_cast<xpose_plan_t>(0x1);
  EXPECT_EQ(xpose_plan_create(&plan, c.rank, e, p, c.elem, &c.options),
            XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(plan, nullptr) << "a failed creation leaves NULL in *plan";
  EXPECT_NE(std::string(xpose_last_error()).find(c.message_part), std::string::npos)
      << "message '" << xpose_last_error() << "' should name " << c.message_part;
  GuardedBuffer in(4096), out(4096);
  xpose_test::fill_random(in.data(), in.size(), 1);
  EXPECT_EQ(xpose_transpose(c.rank, e, p, c.elem, in.data(), out.data(), &c.options, nullptr),
            XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find(c.message_part), std::string::npos)
      << xpose_last_error();
  EXPECT_TRUE(out.untouched()) << "the output was written";
}

TEST(ApiErrors, BadRequests) {
  const xpose_options_t ok = cpu_options();
  xpose_options_t bad_backend = ok, bad_layout = ok, bad_planning = ok, bad_threads = ok,
                  bad_device = ok;
  // A C caller can store any int in an enum field; C++ may not create such enum values, so
  // the bytes are written directly.
  const auto store = [](auto* field, int value) { std::memcpy(field, &value, sizeof value); };
  store(&bad_backend.backend, 7);
  store(&bad_layout.layout, 2);
  store(&bad_planning.planning, -1);
  bad_threads.num_threads = -2;
  bad_device.device = -5;
  const int64_t big = int64_t{1} << 40;
  const std::vector<BadCall> calls = {
      {"NULL extents", 2, {4, 5}, {1, 0}, 8, ok, "extents is NULL", true},
      {"NULL perm", 2, {4, 5}, {1, 0}, 8, ok, "perm is NULL", false, true},
      {"rank -1", -1, {4}, {0}, 8, ok, "rank = -1"},
      {"rank 33", 33, std::vector<int64_t>(33, 1), std::vector<int>(33, 0), 8, ok, "rank = 33"},
      {"negative extent", 3, {4, -5, 6}, {2, 1, 0}, 8, ok, "extents[1] = -5"},
      {"perm out of range", 3, {4, 5, 6}, {0, 3, 1}, 8, ok, "perm[1] = 3 is out of range"},
      {"perm negative", 3, {4, 5, 6}, {0, -1, 1}, 8, ok, "perm[1] = -1"},
      {"perm repeated", 3, {4, 5, 6}, {2, 0, 2}, 8, ok, "perm[2] = 2 repeats perm[0]"},
      {"elem_size 3", 2, {4, 5}, {1, 0}, 3, ok, "elem_size = 3"},
      {"elem_size 32", 2, {4, 5}, {1, 0}, 32, ok, "elem_size = 32"},
      {"elem_size 0", 2, {4, 5}, {1, 0}, 0, ok, "elem_size = 0"},
      {"volume overflow", 2, {big, big}, {1, 0}, 1, ok, "overflows"},
      {"bytes overflow", 2, {big, 1 << 22}, {1, 0}, 16, ok, "elem_size 16 overflows"},
      {"options->backend", 2, {4, 5}, {1, 0}, 8, bad_backend, "options->backend = 7"},
      {"options->layout", 2, {4, 5}, {1, 0}, 8, bad_layout, "options->layout = 2"},
      {"options->planning", 2, {4, 5}, {1, 0}, 8, bad_planning, "options->planning = -1"},
      {"options->num_threads", 2, {4, 5}, {1, 0}, 8, bad_threads, "options->num_threads = -2"},
      {"options->device", 2, {4, 5}, {1, 0}, 8, bad_device, "options->device = -5"},
  };
  for (const BadCall& c : calls) expect_rejected(c);
}

TEST(ApiErrors, NullPlanArguments) {
  const int64_t e[2] = {4, 5};
  const int p[2] = {1, 0};
  const xpose_options_t o = cpu_options();
  EXPECT_EQ(xpose_plan_create(nullptr, 2, e, p, 8, &o), XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("plan"), std::string::npos);
  double in[20] = {1}, out[20] = {};
  EXPECT_EQ(xpose_execute(nullptr, in, out, nullptr), XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("plan is NULL"), std::string::npos);
  EXPECT_EQ(xpose_plan_destroy(nullptr), XPOSE_SUCCESS);
  EXPECT_STREQ(xpose_last_error(), "");
  EXPECT_EQ(xpose_plan_create_forced(nullptr, 2, e, p, 8, &o, "blocked"),
            XPOSE_ERROR_INVALID_ARGUMENT);
  xpose_plan_t plan = nullptr;
  EXPECT_EQ(xpose_plan_create_forced(&plan, 2, e, p, 8, &o, nullptr), XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("schema"), std::string::npos);
}

TEST(ApiErrors, UnknownForcedSchemaIsRejected) {
  const int64_t e[2] = {4, 5};
  const int p[2] = {1, 0};
  const xpose_options_t o = cpu_options();
  xpose_plan_t plan = nullptr;
  EXPECT_EQ(xpose_plan_create_forced(&plan, 2, e, p, 8, &o, "no-such-schema"),
            XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(plan, nullptr);
  EXPECT_NE(std::string(xpose_last_error()).find("no-such-schema"), std::string::npos)
      << xpose_last_error();
  xpose_plan_destroy(plan);
}

TEST(ApiErrors, BadBuffersLeaveOutputUntouched) {
  const int64_t e[2] = {16, 8};
  const int p[2] = {1, 0};
  const xpose_options_t o = cpu_options();
  xpose_plan_t plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, 2, e, p, 8, &o), XPOSE_SUCCESS);
  GuardedBuffer in(16 * 8 * 8), out(16 * 8 * 8);
  xpose_test::fill_random(in.data(), in.size(), 2);
  EXPECT_EQ(xpose_execute(plan, nullptr, out.data(), nullptr), XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("in is NULL"), std::string::npos);
  EXPECT_TRUE(out.untouched());
  EXPECT_EQ(xpose_execute(plan, in.data(), nullptr, nullptr), XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("out is NULL"), std::string::npos);
  // Overlaps: the same buffer, and a shift by one element either way.
  std::vector<double> shared(16 * 8 + 1, 1.5);
  const std::vector<double> before = shared;
  for (int shift : {0, 1, -1}) {
    double* a = shared.data() + (shift < 0 ? 1 : 0);
    double* b = a + shift;
    EXPECT_EQ(xpose_execute(plan, a, b, nullptr), XPOSE_ERROR_INVALID_ARGUMENT) << shift;
    EXPECT_NE(std::string(xpose_last_error()).find("overlap"), std::string::npos);
    EXPECT_EQ(xpose_transpose(2, e, p, 8, a, b, &o, nullptr), XPOSE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(shared, before) << "shift " << shift;
  }
  // Adjacent but disjoint is fine.
  std::vector<double> two(2 * 16 * 8);
  EXPECT_EQ(xpose_execute(plan, two.data(), two.data() + 16 * 8, nullptr), XPOSE_SUCCESS)
      << xpose_last_error();
  xpose_plan_destroy(plan);
}

TEST(ApiLastError, ClearedBySuccessAndThreadLocal) {
  const int64_t e[2] = {4, 5};
  const int bad[2] = {0, 0}, good[2] = {1, 0};
  const xpose_options_t o = cpu_options();
  xpose_plan_t plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, 2, e, bad, 8, &o), XPOSE_ERROR_INVALID_ARGUMENT);
  const std::string message = xpose_last_error();
  EXPECT_FALSE(message.empty());
  std::string other_thread = "unset";
  std::thread([&] { other_thread = xpose_last_error(); }).join();
  EXPECT_EQ(other_thread, "") << "another thread must not see this thread's error";
  EXPECT_EQ(xpose_last_error(), message) << "unchanged by the other thread";
  std::thread([&] {
    xpose_plan_t p2 = nullptr;
    xpose_plan_create(&p2, -3, e, good, 8, &o);
  }).join();
  EXPECT_EQ(xpose_last_error(), message) << "another thread's failure must not show here";
  ASSERT_EQ(xpose_plan_create(&plan, 2, e, good, 8, &o), XPOSE_SUCCESS);
  EXPECT_STREQ(xpose_last_error(), "");
  double in[20] = {}, out[20] = {};
  EXPECT_EQ(xpose_execute(plan, in, in, nullptr), XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(xpose_execute(plan, in, out, nullptr), XPOSE_SUCCESS);
  EXPECT_STREQ(xpose_last_error(), "");
  xpose_plan_destroy(plan);
}

TEST(ApiStatus, Strings) {
  EXPECT_STREQ(xpose_status_string(XPOSE_SUCCESS), "success");
  EXPECT_STREQ(xpose_status_string(XPOSE_ERROR_INVALID_ARGUMENT), "invalid argument");
  EXPECT_STREQ(xpose_status_string(XPOSE_ERROR_UNSUPPORTED), "unsupported");
  EXPECT_STREQ(xpose_status_string(XPOSE_ERROR_OUT_OF_MEMORY), "out of memory");
  EXPECT_STREQ(xpose_status_string(XPOSE_ERROR_DEVICE), "device error");
  EXPECT_STREQ(xpose_status_string(XPOSE_ERROR_INTERNAL), "internal error");
  EXPECT_STREQ(xpose_status_string(static_cast<xpose_status_t>(99)), "unknown status");
}

TEST(ApiOptions, InitFillsTheDocumentedDefaults) {
  xpose_options_t o;
  std::memset(&o, 0x5a, sizeof o);
  xpose_options_init(&o);
  EXPECT_EQ(o.backend, XPOSE_BACKEND_AUTO);
  EXPECT_EQ(o.layout, XPOSE_COL_MAJOR);
  EXPECT_EQ(o.planning, XPOSE_PLAN_HEURISTIC);
  EXPECT_EQ(o.num_threads, 0);
  EXPECT_EQ(o.device, -1);
  xpose_options_init(nullptr);  // a no-op, not a crash
}

TEST(ApiDescribe, LengthSemantics) {
  const int64_t e[3] = {4, 5, 6};
  const int p[3] = {2, 0, 1};
  const xpose_options_t o = cpu_options();
  xpose_plan_t plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, 3, e, p, 8, &o), XPOSE_SUCCESS);
  const size_t n = xpose_plan_describe(plan, nullptr, 0);
  ASSERT_GT(n, 10u);
  std::string full(n + 1, '#');
  EXPECT_EQ(xpose_plan_describe(plan, full.data(), n + 1), n);
  EXPECT_EQ(full[n], '\0');
  EXPECT_EQ(std::strlen(full.c_str()), n);
  EXPECT_NE(full.find("backend cpu"), std::string::npos) << full;
  char small[6];
  std::memset(small, '#', sizeof small);
  EXPECT_EQ(xpose_plan_describe(plan, small, 5), n) << "returns the length needed";
  EXPECT_EQ(std::string(small), full.substr(0, 4)) << "truncated to size - 1 and terminated";
  EXPECT_EQ(small[5], '#') << "nothing written past size";
  char one = '#';
  EXPECT_EQ(xpose_plan_describe(plan, &one, 1), n);
  EXPECT_EQ(one, '\0');
  char untouched = '#';
  EXPECT_EQ(xpose_plan_describe(plan, &untouched, 0), n);
  EXPECT_EQ(untouched, '#');
  char null_plan[8] = "xxxxxxx";
  EXPECT_EQ(xpose_plan_describe(nullptr, null_plan, sizeof null_plan), 0u);
  EXPECT_STREQ(null_plan, "");
  xpose_plan_destroy(plan);
}

// The CUDA backend on a machine without a usable GPU (or a build without CUDA): UNSUPPORTED with
// a message, while AUTO runs on the CPU.
TEST(ApiBackends, CudaWithoutGpuIsUnsupportedAndAutoUsesTheCpu) {
  std::string why;
  if (xpose::detail::cuda_usable(&why)) GTEST_SKIP() << "a GPU is present";
  const int64_t e[2] = {3, 2};
  const int p[2] = {1, 0};
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CUDA;
  xpose_plan_t plan = nullptr;
  EXPECT_EQ(xpose_plan_create(&plan, 2, e, p, 4, &o), XPOSE_ERROR_UNSUPPORTED);
  EXPECT_EQ(plan, nullptr);
  EXPECT_NE(std::string(xpose_last_error()).find("CUDA"), std::string::npos) << xpose_last_error();
  float in[6] = {0, 1, 2, 3, 4, 5}, out[6] = {};
  EXPECT_EQ(xpose_transpose(2, e, p, 4, in, out, &o, nullptr), XPOSE_ERROR_UNSUPPORTED);
  EXPECT_EQ(out[1], 0.0f) << "untouched";
  o.backend = XPOSE_BACKEND_AUTO;
  ASSERT_EQ(xpose_plan_create(&plan, 2, e, p, 4, &o), XPOSE_SUCCESS) << xpose_last_error();
  EXPECT_EQ(plan->plan.options.backend, XPOSE_BACKEND_CPU);
  ASSERT_EQ(xpose_execute(plan, in, out, nullptr), XPOSE_SUCCESS);
  const float want[6] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want[i]);
  xpose_plan_destroy(plan);
}

// Plans for the same normalized problem and options share the cached backend plan; a new
// problem adds an entry (unless the bounded cache is full, when it replaces one).
TEST(ApiPlanCache, GrowsThenReuses) {
  constexpr size_t kCapacity = 4096;  // PlanCache::kCapacity in src/core/plan.cpp
  const xpose_options_t o = cpu_options();
  // Extents unlikely to be used by any other test in this process.
  const int64_t e[3] = {5, 1009, 3};
  const int p[3] = {2, 0, 1};
  const size_t before = xpose::detail::plan_cache_size();
  xpose_plan_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  ASSERT_EQ(xpose_plan_create(&a, 3, e, p, 8, &o), XPOSE_SUCCESS);
  const size_t after_first = xpose::detail::plan_cache_size();
  if (before < kCapacity) EXPECT_EQ(after_first, before + 1);
  ASSERT_EQ(xpose_plan_create(&b, 3, e, p, 8, &o), XPOSE_SUCCESS);
  EXPECT_EQ(xpose::detail::plan_cache_size(), after_first) << "the second plan is reused";
  EXPECT_EQ(a->plan.impl, b->plan.impl);
  // The same tensor stated row-major normalizes to the same problem: reused too.
  xpose_options_t row = o;
  row.layout = XPOSE_ROW_MAJOR;
  const int64_t er[3] = {3, 1009, 5};
  const int pr[3] = {1, 2, 0};
  ASSERT_EQ(xpose_plan_create(&c, 3, er, pr, 8, &row), XPOSE_SUCCESS);
  EXPECT_EQ(a->plan.problem, c->plan.problem);
  EXPECT_EQ(a->plan.impl, c->plan.impl);
  // Other options make another entry.
  xpose_options_t threads = o;
  threads.num_threads = 3;
  ASSERT_EQ(xpose_plan_create(&d, 3, e, p, 8, &threads), XPOSE_SUCCESS);
  EXPECT_NE(a->plan.impl, d->plan.impl);
  if (after_first < kCapacity) EXPECT_EQ(xpose::detail::plan_cache_size(), after_first + 1);
  for (xpose_plan_t x : {a, b, c, d}) xpose_plan_destroy(x);
}

// xpose_transpose remembers each thread's last few requests (call_plan, kCallMemo of them):
// requests that differ in one field each (an extent, the perm, the element size, the layout, the
// threads), taken in turns longer than the memo and back to back, each give their own result;
// a bad request that matches a good one but for its perm is still rejected.
TEST(ApiPlanCache, RepeatedRequestsEachGetTheirOwnPlan) {
  struct Request {
    std::vector<int64_t> extents;
    std::vector<int> perm;
    size_t elem;
    xpose_options_t options;
  };
  const std::vector<Request> requests = {
      {{7, 5, 3}, {2, 0, 1}, 4, cpu_options()},
      {{7, 5, 4}, {2, 0, 1}, 4, cpu_options()},
      {{7, 5, 3}, {1, 2, 0}, 4, cpu_options()},
      {{7, 5, 3}, {2, 0, 1}, 8, cpu_options()},
      {{7, 5, 3}, {2, 0, 1}, 4, cpu_options(XPOSE_ROW_MAJOR)},
      {{7, 5, 3}, {2, 0, 1}, 4, cpu_options(XPOSE_COL_MAJOR, 1)},
      {{33, 20}, {1, 0}, 2, cpu_options()},
  };
  ASSERT_GT(requests.size(), static_cast<size_t>(xpose::detail::kCallMemo));
  // Turns through every request, then each twice back to back, then backwards.
  std::vector<size_t> order;
  for (int turn = 0; turn < 3; ++turn)
    for (size_t i = 0; i < requests.size(); ++i) order.push_back(i);
  for (size_t i = 0; i < requests.size(); ++i) order.insert(order.end(), {i, i});
  for (size_t i = requests.size(); i-- > 0;) order.push_back(i);
  uint64_t seed = xpose_test::test_seed();
  for (const size_t i : order) {
    const Request& r = requests[i];
    SCOPED_TRACE("request " + std::to_string(i));
    const size_t bytes = static_cast<size_t>(xpose_test::volume_of(r.extents)) * r.elem;
    GuardedBuffer in(bytes), out(bytes);
    std::vector<unsigned char> want(bytes);
    xpose_test::fill_random(in.data(), bytes, ++seed);
    ASSERT_EQ(xpose_transpose(static_cast<int>(r.extents.size()), r.extents.data(), r.perm.data(),
                              r.elem, in.data(), out.data(), &r.options, nullptr),
              XPOSE_SUCCESS)
        << xpose_last_error();
    xpose_test::reference_transpose(r.extents, r.perm, r.elem, r.options.layout, in.data(),
                                    want.data());
    EXPECT_EQ(std::memcmp(out.data(), want.data(), bytes), 0);
    EXPECT_TRUE(out.guards_intact());
  }
  const Request& r = requests[0];
  const int repeated[3] = {2, 0, 2};
  GuardedBuffer in(4096), out(4096);
  xpose_test::fill_random(in.data(), in.size(), seed);
  EXPECT_EQ(xpose_transpose(3, r.extents.data(), repeated, r.elem, in.data(), out.data(),
                            &r.options, nullptr),
            XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("perm"), std::string::npos) << xpose_last_error();
  EXPECT_TRUE(out.untouched());
}

}  // namespace

TEST(ApiPredict, PlanAndRequestAgreeAndErrorsAreNamed) {
  const int64_t ext[3] = {64, 48, 40};
  const int perm[3] = {2, 0, 1};
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CPU;
  double direct = -1, planned = -1;
  ASSERT_EQ(xpose_predict(3, ext, perm, 8, &o, &direct), XPOSE_SUCCESS) << xpose_last_error();
  EXPECT_GT(direct, 0.0);
  EXPECT_LT(direct, 1.0);
  xpose_plan_t plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, 3, ext, perm, 8, &o), XPOSE_SUCCESS);
  ASSERT_EQ(xpose_plan_predict(plan, &planned), XPOSE_SUCCESS);
  EXPECT_DOUBLE_EQ(planned, direct);
  // A larger tensor is predicted to take longer.
  const int64_t big[3] = {640, 480, 40};
  double larger = -1;
  ASSERT_EQ(xpose_predict(3, big, perm, 8, &o, &larger), XPOSE_SUCCESS);
  EXPECT_GT(larger, direct);
  EXPECT_EQ(xpose_plan_predict(plan, nullptr), XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("seconds"), std::string::npos);
  EXPECT_EQ(xpose_predict(3, ext, perm, 3, &o, &direct), XPOSE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("elem_size"), std::string::npos);
  EXPECT_EQ(xpose_plan_predict(nullptr, &planned), XPOSE_ERROR_INVALID_ARGUMENT);
  xpose_plan_destroy(plan);
  // An empty tensor costs nothing.
  const int64_t empty[3] = {64, 0, 40};
  ASSERT_EQ(xpose_predict(3, empty, perm, 8, &o, &direct), XPOSE_SUCCESS);
  EXPECT_EQ(direct, 0.0);
}
