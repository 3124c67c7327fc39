// The typed GPU tests' harness (typed_gpu_test.cpp, rows_typed_gpu_test.cpp): random typed,
// strided and scaled problems run through the backend or the public API against the naive
// reference in the user's terms (tests/typed_reference.hpp), outputs poisoned, the gaps between
// strided output elements and guard bytes on both sides checked.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../fake_device.hpp"
#include "../typed_reference.hpp"
#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cuda/host_plan.hpp"
#include "gpu_util.hpp"

namespace xpose_test {

using xpose::detail::BackendPlanPtr;
using xpose::detail::Problem;

inline const xpose_type_t kFloating[] = {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F16,
                                         XPOSE_TYPE_BF16,    XPOSE_TYPE_F32,     XPOSE_TYPE_F64};
inline const xpose_type_t kComplex[] = {XPOSE_TYPE_C32, XPOSE_TYPE_C64};
inline const xpose_type_t kIntegers[] = {XPOSE_TYPE_I8,  XPOSE_TYPE_U8,  XPOSE_TYPE_I16,
                                         XPOSE_TYPE_U16, XPOSE_TYPE_I32, XPOSE_TYPE_U32,
                                         XPOSE_TYPE_I64, XPOSE_TYPE_U64};

// Exponent and mantissa bits of a floating component of `bytes` bytes of type t.
inline void format_of(xpose_type_t t, int* e, int* m) {
  switch (t) {
    case XPOSE_TYPE_F8_E4M3: *e = 4, *m = 3; return;
    case XPOSE_TYPE_F8_E5M2: *e = 5, *m = 2; return;
    case XPOSE_TYPE_F16: *e = 5, *m = 10; return;
    case XPOSE_TYPE_BF16: *e = 8, *m = 7; return;
    case XPOSE_TYPE_F32: case XPOSE_TYPE_C32: *e = 8, *m = 23; return;
    default: *e = 11, *m = 52; return;
  }
}

// Random values of type t: random bits, and for floating types three in four with an exponent
// near 1 (-10..+5 binades), so conversions round rather than mostly overflow or flush; the rest
// keep infinities, NaNs, denormals and overflow in play.
inline void fill_values(xpose_type_t t, size_t elem, std::vector<uint8_t>& buf,
                        std::mt19937_64& rng) {
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  if (!is_floating(t) && !is_complex(t)) return;
  int e = 0, m = 0;
  format_of(t, &e, &m);
  const size_t comp = is_complex(t) ? elem / 2 : elem;
  const int bias = (1 << (e - 1)) - 1;
  for (size_t at = 0; at + comp <= buf.size(); at += comp) {
    if (rng() % 4 == 0) continue;
    uint64_t bits = 0;
    std::memcpy(&bits, &buf[at], comp);
    const uint64_t ex = static_cast<uint64_t>(bias - 10 + static_cast<int>(rng() % 16));
    const uint64_t field = ((uint64_t{1} << e) - 1) << m;
    bits = (bits & ~field) | (ex << m);
    std::memcpy(&buf[at], &bits, comp);
  }
}

inline std::string case_text(const TypedCase& c) {
  const auto list = [](const auto& v) {
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + ")";
  };
  return "extents " + list(c.extents) + " perm " + list(c.perm) + " types " +
         std::to_string(c.in_type) + "->" + std::to_string(c.out_type) + " elem " +
         std::to_string(c.elem_size) + " in_strides " + list(c.in_strides) + " out_strides " +
         list(c.out_strides) + " alpha {" + std::to_string(c.alpha[0]) + "," +
         std::to_string(c.alpha[1]) + "} beta {" + std::to_string(c.beta[0]) + "," +
         std::to_string(c.beta[1]) + "}" + (c.layout == XPOSE_ROW_MAJOR ? " row-major" : "");
}

struct Buffer {
  uint8_t* p = nullptr;
  explicit Buffer(size_t bytes) { EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess); }
  ~Buffer() { cudaFree(p); }
};

// Plans `c` (forced to `schema` unless null) and runs it with the input pointer `shift` bytes
// past an aligned address (the output's `out_shift` bytes, the same unless given), against the
// reference. Returns the planning status (the comparison is asserted on success); `describe`
// receives the plan's description.
// A plan of either path: the backend's own (make_problem_ex and cuda_make_plan, which take a
// forced schema), or the public one (xpose_plan_create_ex, xpose_execute).
struct AnyPlan {
  BackendPlanPtr backend;
  xpose_plan_t api = nullptr;
  ~AnyPlan() {
    if (api) xpose_plan_destroy(api);  // an API call: it would clear xpose_last_error()
  }
  xpose_status_t execute(const void* in, void* out) const {
    return api ? xpose_execute(api, in, out, nullptr) : backend->execute(in, out, nullptr);
  }
  std::string describe() const {
    if (!api) return backend->describe();
    char text[4096];
    xpose_plan_describe(api, text, sizeof text);
    return text;
  }
};

inline xpose_status_t make_any_plan(const TypedCase& c, const char* schema, bool api,
                                    AnyPlan* plan, const std::string& what) {
  const xpose_desc_t d = c.desc();
  xpose_options_t given = cuda_options(c.layout);
  given.planning = c.planning;
  if (api)
    return xpose_plan_create_ex(&plan->api, c.rank(), c.extents.data(), c.perm.data(),
                                c.elem_size, &d, &given);
  Problem p;
  xpose_status_t st = xpose::detail::make_problem_ex(c.rank(), c.extents.data(), c.perm.data(),
                                                     c.elem_size, &d, c.layout, &p);
  EXPECT_EQ(st, XPOSE_SUCCESS) << what << ": " << xpose_last_error();
  if (st != XPOSE_SUCCESS) return st;
  xpose_options_t o;
  EXPECT_EQ(xpose::detail::resolve_options(&given, &o), XPOSE_SUCCESS);
  o.device = 0;  // what plan creation resolves the current device to in these tests
  return xpose::detail::cuda_make_plan(p, o, schema ? schema : "", &plan->backend);
}

// `c` normalized as the public entry points do it (make_problem_ex).
inline xpose_status_t normalize(const TypedCase& c, Problem* p) {
  const xpose_desc_t d = c.desc();
  return xpose::detail::make_problem_ex(c.rank(), c.extents.data(), c.perm.data(), c.elem_size,
                                        &d, c.layout, p);
}

// `p` planned by the CUDA backend on the fake H100: heuristic planning, no device needed.
inline xpose_status_t plan_on_fake_h100(const Problem& p, BackendPlanPtr* plan) {
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CUDA;
  o.device = 0;
  return xpose::detail::cuda_plan_on(p, fake_h100(), o, "", plan);
}

// `input`, when given, is the input (its reach's bytes) instead of random values; `api`: the
// public entry points instead of the backend's (no forced schema then).
constexpr size_t kSameShift = ~size_t{0};
inline xpose_status_t check_typed(const TypedCase& c, const char* schema, size_t shift,
                                  std::mt19937_64& rng, std::string* describe = nullptr,
                                  const std::vector<uint8_t>* input = nullptr, bool api = false,
                                  size_t out_shift = kSameShift) {
  if (out_shift == kSameShift) out_shift = shift;
  const std::string what = case_text(c) + (schema ? std::string(" schema ") + schema : "") +
                           " shift " + std::to_string(shift) + "/" + std::to_string(out_shift);
  AnyPlan plan;
  const xpose_status_t st = make_any_plan(c, schema, api, &plan, what);
  if (st != XPOSE_SUCCESS) return st;
  const std::string desc = plan.describe();
  if (describe) *describe = desc;
  int64_t ilo, ihi, olo, ohi;
  reach(c.extents, c.input_strides(), &ilo, &ihi);
  reach(c.out_extents(), c.output_strides(), &olo, &ohi);
  const size_t isz = c.in_elem(), osz = c.out_elem();
  const size_t in_bytes = static_cast<size_t>(ihi - ilo + 1) * isz;
  const size_t out_bytes = static_cast<size_t>(ohi - olo + 1) * osz;
  std::vector<uint8_t> in(in_bytes), prior(out_bytes);
  if (input)
    in = *input;
  else
    fill_values(c.in_type, isz, in, rng);
  EXPECT_EQ(in.size(), in_bytes);
  fill_values(c.resolved_out(), osz, prior, rng);
  std::vector<uint8_t> want = prior;
  reference_typed(c, in.data() + static_cast<size_t>(-ilo) * isz,
                  want.data() + static_cast<size_t>(-olo) * osz);
  const size_t room = 2 * kGuard + 16;
  Buffer din(in_bytes + room), dout(out_bytes + room);
  uint8_t* const in_at = din.p + kGuard + shift;  // the tensor's lowest byte
  uint8_t* const out_at = dout.p + kGuard + out_shift;
  EXPECT_EQ(cudaMemcpy(in_at, in.data(), in_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemset(dout.p, kPoison, out_bytes + room), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(out_at, prior.data(), out_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(plan.execute(in_at + static_cast<size_t>(-ilo) * isz,
                         out_at + static_cast<size_t>(-olo) * osz),
            XPOSE_SUCCESS)
      << what << ": " << xpose_last_error();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
  std::vector<uint8_t> got(out_bytes + room);
  EXPECT_EQ(cudaMemcpy(got.data(), dout.p, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const size_t at = i - (kGuard + out_shift);  // wraps for bytes before the tensor
    const uint8_t expect = at < out_bytes ? want[at] : kPoison;
    if (got[i] != expect && bad++ == 0) first = i;
  }
  const bool guard = first < kGuard + out_shift || first >= kGuard + out_shift + out_bytes;
  EXPECT_EQ(bad, 0u) << what << ": first wrong byte " << first << (guard ? " (a guard byte)" : "")
                     << "\nplan: " << desc;
  return XPOSE_SUCCESS;
}

// Dense strides of `ext` padded by 1-7 elements on both sides of every dim (always, or with
// probability 0.7), each negated with probability `flip`, and (input only) set to 0 with
// probability `zero`.
inline std::vector<int64_t> random_strides(const TypedCase& c, const std::vector<int64_t>& ext,
                                           std::mt19937_64& rng, double flip, double zero,
                                           bool always_pad = false) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<int64_t> padded = ext;
  const bool pad = always_pad || u(rng) < 0.7;
  for (auto& e : padded) e += pad ? 2 + static_cast<int64_t>(rng() % 13) : 0;
  std::vector<int64_t> s = c.dense(padded);
  for (auto& v : s) {
    if (u(rng) < flip) v = -v;
    if (u(rng) < zero) v = 0;
  }
  return s;
}

// A random case of types in -> out (BYTES: elem_size bytes), volume up to ~max_volume.
inline TypedCase random_case(xpose_type_t in, xpose_type_t out, size_t elem_size,
                             int64_t max_volume, std::mt19937_64& rng) {
  TypedCase c;
  c.in_type = in;
  c.out_type = out;
  c.elem_size = in == XPOSE_TYPE_BYTES ? elem_size : type_size(in);
  c.layout = rng() % 2 ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
  const int rank = 1 + static_cast<int>(rng() % 5);
  int64_t volume = 1;
  for (int k = 0; k < rank; ++k) {
    const int64_t room = std::max<int64_t>(1, max_volume / volume);
    const int64_t cap = std::min<int64_t>(room, rng() % 3 == 0 ? 300 : 40);
    c.extents.push_back(1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(cap)));
    volume *= c.extents.back();
  }
  c.perm.resize(rank);
  for (int k = 0; k < rank; ++k) c.perm[k] = k;
  std::shuffle(c.perm.begin(), c.perm.end(), rng);
  const unsigned strides = static_cast<unsigned>(rng() % 4);  // none, in, out, both
  if (strides & 1) c.in_strides = random_strides(c, c.extents, rng, 0.3, 0.15);
  if (strides & 2) c.out_strides = random_strides(c, c.out_extents(), rng, 0.3, 0);
  if (is_floating(in) || is_complex(in)) {
    const double scalars[] = {1, 1, 0.75, -1.5, 3};
    c.alpha[0] = scalars[rng() % 5];
    c.beta[0] = rng() % 2 ? 0 : scalars[rng() % 5];
    if (is_complex(in)) {
      c.alpha[1] = rng() % 2 ? 0 : -0.5;
      c.beta[1] = rng() % 2 ? 0 : 0.25;
    }
  } else if (in != XPOSE_TYPE_BYTES || elem_size <= 8) {
    c.beta[0] = rng() % 2;  // integers and BYTES: a copy or an addition
  }
  return c;
}

// A dense case of types a -> b (no strides, no beta), rank 2-5, volume up to ~max_volume; alpha
// -1.5 or 0.75 where the types are equal (else the problem is plain), random otherwise (the
// narrow kernel's typed tiles: narrow_typed_gpu_test.cpp, narrow_loads_gpu_test.cpp).
inline TypedCase dense_case(xpose_type_t a, xpose_type_t b, int64_t max_volume,
                            std::mt19937_64& rng) {
  TypedCase c = random_case(a, b, 0, max_volume, rng);
  while (c.extents.size() < 2) {
    c.extents.push_back(2 + static_cast<int64_t>(rng() % 60));
    c.perm.push_back(static_cast<int>(c.perm.size()));
  }
  std::shuffle(c.perm.begin(), c.perm.end(), rng);
  c.in_strides.clear();
  c.out_strides.clear();
  c.beta[0] = 0;
  c.alpha[0] = a == b || rng() % 2 ? (rng() % 2 ? -1.5 : 0.75) : 1;
  return c;
}

// The first view's kernel block of `c` planned by the backend (forced to `schema` unless null),
// as check_typed plans it.
inline bool first_view_spec(const TypedCase& c, const char* schema,
                            xpose::detail::KernelSpec* spec) {
  AnyPlan plan;
  if (make_any_plan(c, schema, false, &plan, case_text(c)) != XPOSE_SUCCESS) return false;
  const std::vector<xpose::detail::PlanView> views = xpose::detail::cuda_plan_views(*plan.backend);
  if (views.empty()) return false;
  *spec = views.front().spec;
  return true;
}

// `c` planned (forced to `schema` unless null) and checked with each pointer at a random multiple
// of its element size within 16 bytes: false where the schema does not apply to the shape (the
// heuristic plan must apply), else the plan's description in *desc and its first view's block in
// *spec.
inline bool check_at_any_offset(const TypedCase& c, const char* schema, std::mt19937_64& rng,
                                std::string* desc, xpose::detail::KernelSpec* spec) {
  const size_t ia = c.in_elem(), oa = c.out_elem();
  const size_t in_shift = ia * (rng() % (16 / ia)), out_shift = oa * (rng() % (16 / oa));
  if (check_typed(c, schema, in_shift, rng, desc, nullptr, false, out_shift) != XPOSE_SUCCESS) {
    EXPECT_NE(schema, nullptr) << case_text(c);
    return false;
  }
  EXPECT_TRUE(first_view_spec(c, schema, spec)) << case_text(c);
  return true;
}

}  // namespace xpose_test
