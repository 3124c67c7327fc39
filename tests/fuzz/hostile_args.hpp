// Arguments of the public calls, drawn from a fuzzer's bytes: hostile ones (any rank, negative and
// huge extents, repeated or out-of-range perm entries, any elem_size, enum fields holding any int,
// NULL pointers) and, for the execution fuzzers, small valid requests. One draw per call, so that
// the fuzzer's mutations of one byte move one argument.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "xpose/xpose.h"

namespace xpose_fuzz {

// Crashes the fuzzer (a finding) with a message when `ok` is false.
inline void require(bool ok, const char* what, int status = -1) {
  if (ok) return;
  std::fprintf(stderr, "xpose fuzz: broken promise: %s (status %d, last error: '%s')\n", what,
               status, xpose_last_error());
  std::abort();
}

// The promises every failed call keeps (API.md): a status of the enum, a message that names the
// reason; a successful call leaves the thread's message empty.
inline void check_status(xpose_status_t s) {
  require(s >= XPOSE_SUCCESS && s <= XPOSE_ERROR_INTERNAL, "status out of the enum", s);
  require(s != XPOSE_ERROR_INTERNAL, "XPOSE_ERROR_INTERNAL", s);
  require((s == XPOSE_SUCCESS) == (xpose_last_error()[0] == '\0'),
          "a message exactly when the call failed", s);
}

// An extent: mostly small, else a boundary of 32- and 64-bit arithmetic, else any 64 bits.
inline int64_t hostile_extent(FuzzedDataProvider& in) {
  static constexpr int64_t kEdges[] = {0,
                                       1,
                                       2,
                                       3,
                                       -1,
                                       INT64_MIN,
                                       INT64_MAX,
                                       INT64_MAX - 1,
                                       (int64_t{1} << 31) - 1,
                                       int64_t{1} << 31,
                                       (int64_t{1} << 32) + 1,
                                       int64_t{1} << 32,
                                       int64_t{1} << 62,
                                       (int64_t{1} << 62) - 1,
                                       int64_t{3037000499},  // floor(sqrt(2^63))
                                       int64_t{1} << 21};
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: return in.ConsumeIntegralInRange<int64_t>(0, 40);
    case 1: return in.PickValueInArray(kEdges);
    case 2: return int64_t{1} << in.ConsumeIntegralInRange<int>(0, 62);
    default: return in.ConsumeIntegral<int64_t>();
  }
}

// A rank of -2..34 (0..32 valid), extents and a perm of that many entries (a permutation most
// of the time, else any ints), NULL arrays now and then.
struct Request {
  int rank = 0;
  std::vector<int64_t> extents;
  std::vector<int> perm;
  size_t elem_size = 0;
  bool null_extents = false, null_perm = false;
  const int64_t* extents_ptr() const { return null_extents ? nullptr : extents.data(); }
  const int* perm_ptr() const { return null_perm ? nullptr : perm.data(); }
};

inline size_t hostile_elem_size(FuzzedDataProvider& in) {
  static constexpr size_t kSizes[] = {1, 2, 4, 8, 16};
  if (in.ConsumeIntegralInRange<int>(0, 7) > 0) return in.PickValueInArray(kSizes);
  return in.ConsumeIntegral<size_t>();
}

// Fisher-Yates over 0..n-1 from the fuzzer's bytes.
inline std::vector<int> permutation(FuzzedDataProvider& in, int n) {
  std::vector<int> p(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) p[i] = i;
  for (int i = n - 1; i > 0; --i) std::swap(p[i], p[in.ConsumeIntegralInRange<int>(0, i)]);
  return p;
}

inline Request hostile_request(FuzzedDataProvider& in) {
  Request r;
  r.rank = in.ConsumeIntegralInRange<int>(-2, 34);
  const int n = r.rank < 0 ? 0 : r.rank;
  r.elem_size = hostile_elem_size(in);
  for (int k = 0; k < n; ++k) r.extents.push_back(hostile_extent(in));
  if (in.ConsumeIntegralInRange<int>(0, 7) > 0) {
    r.perm = permutation(in, n);
  } else {
    for (int k = 0; k < n; ++k) r.perm.push_back(in.ConsumeIntegralInRange<int>(-2, n + 1));
  }
  r.null_extents = in.ConsumeIntegralInRange<int>(0, 31) == 0;
  r.null_perm = in.ConsumeIntegralInRange<int>(0, 31) == 0;
  // Keep the arrays addressable when rank is out of range, as a C caller's would be.
  r.extents.resize(r.extents.size() + 1, 1);
  r.perm.resize(r.perm.size() + 1, 0);
  return r;
}

// Whether the request's tensor (when its rank and extents are valid) has at most `limit` elements.
inline bool volume_at_most(const Request& r, int64_t limit) {
  if (r.rank < 0 || r.rank > 32 || r.null_extents) return true;
  int64_t v = 1;
  for (int k = 0; k < r.rank; ++k) {
    if (r.extents[k] <= 0) return true;  // empty or invalid: nothing to run
    if (__builtin_mul_overflow(v, r.extents[k], &v) || v > limit) return false;
  }
  return true;
}

// Options whose enum fields hold any int now and then, `backend` from the given choices.
inline xpose_options_t hostile_options(FuzzedDataProvider& in, xpose_backend_t backend) {
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = backend;
  int raw;
  switch (in.ConsumeIntegralInRange<int>(0, 15)) {
    case 0: raw = in.ConsumeIntegral<int>(); std::memcpy(&o.backend, &raw, sizeof raw); break;
    case 1: raw = in.ConsumeIntegral<int>(); std::memcpy(&o.layout, &raw, sizeof raw); break;
    case 2: raw = in.ConsumeIntegral<int>(); std::memcpy(&o.planning, &raw, sizeof raw); break;
    case 3: o.num_threads = in.ConsumeIntegral<int>(); break;
    case 4: o.device = in.ConsumeIntegral<int>(); break;
    default: break;
  }
  if (in.ConsumeBool()) o.layout = XPOSE_ROW_MAJOR;
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) o.num_threads = in.ConsumeIntegralInRange<int>(1, 3);
  return o;
}

// xpose_plan_create_ex's descriptor: NULL now and then; else any struct_size now and then, types
// of the enum or any int, NULL or hostile strides (signs, 0, 64-bit edges) and scalars from
// edges (NaN, inf, -0) or any double. The strides live in `storage` (rank entries each, and one
// more so that the arrays are addressable at rank 0).
struct Desc {
  xpose_desc_t desc{};
  std::vector<int64_t> in_strides, out_strides;
  bool null = false;
  const xpose_desc_t* get() const { return null ? nullptr : &desc; }
};

inline double hostile_scalar(FuzzedDataProvider& in) {
  static constexpr double kEdges[] = {0.0, 1.0, -1.0, 2.0, 0.5, -0.0, 1e300, -1e-310,
                                      __builtin_nan(""), __builtin_inf(), -__builtin_inf()};
  return in.ConsumeIntegralInRange<int>(0, 3) > 0 ? in.PickValueInArray(kEdges)
                                                  : in.ConsumeFloatingPoint<double>();
}

inline int64_t hostile_stride(FuzzedDataProvider& in, int64_t dense) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: return dense;
    case 1: return -dense;
    case 2: return 0;
    case 3: return dense * in.ConsumeIntegralInRange<int64_t>(1, 9);
    case 4: return in.ConsumeIntegralInRange<int64_t>(-64, 64);
    default: return hostile_extent(in);
  }
}

inline Desc hostile_desc(FuzzedDataProvider& in, const Request& r) {
  Desc d;
  xpose_desc_init(&d.desc);
  d.null = in.ConsumeIntegralInRange<int>(0, 7) == 0;
  if (in.ConsumeIntegralInRange<int>(0, 31) == 0) d.desc.struct_size = in.ConsumeIntegral<size_t>();
  for (xpose_type_t* t : {&d.desc.in_type, &d.desc.out_type}) {
    const int raw = in.ConsumeIntegralInRange<int>(0, 15) > 0 ? in.ConsumeIntegralInRange<int>(0, 16)
                                                              : in.ConsumeIntegral<int>();
    std::memcpy(t, &raw, sizeof raw);
  }
  const int n = r.rank < 0 || r.rank > 32 ? 0 : r.rank;
  int64_t dense = 1;
  for (int k = 0; k < n; ++k) {
    d.in_strides.push_back(hostile_stride(in, dense));
    d.out_strides.push_back(hostile_stride(in, dense));
    const int64_t e = r.extents[k];
    if (e > 0 && e < (int64_t{1} << 20) && dense < (int64_t{1} << 40)) dense *= e;
  }
  d.in_strides.push_back(1);
  d.out_strides.push_back(1);
  if (in.ConsumeBool()) d.desc.in_strides = d.in_strides.data();
  if (in.ConsumeBool()) d.desc.out_strides = d.out_strides.data();
  for (double* v : {&d.desc.alpha[0], &d.desc.alpha[1], &d.desc.beta[0], &d.desc.beta[1]})
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) *v = hostile_scalar(in);
  return d;
}

// A forced schema: a backend's name with parameters from the fuzzer's bytes, or any text.
inline std::string hostile_schema(FuzzedDataProvider& in, const std::vector<const char*>& names,
                                  const std::vector<const char*>& keys) {
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) return in.ConsumeRandomLengthString(48);
  std::string s = names[in.ConsumeIntegralInRange<size_t>(0, names.size() - 1)];
  const int params = in.ConsumeIntegralInRange<int>(0, 3);
  for (int k = 0; k < params; ++k) {
    s += k == 0 ? ':' : ',';
    s += keys[in.ConsumeIntegralInRange<size_t>(0, keys.size() - 1)];
    s += '=';
    s += in.ConsumeBool() ? std::to_string(in.ConsumeIntegralInRange<int>(-2, 1100))
                          : in.ConsumeRandomLengthString(24);
  }
  return s;
}

}  // namespace xpose_fuzz
