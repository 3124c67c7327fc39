// The execution fuzzer's typed half: a small accepted request (small_requests.hpp) made typed,
// strided and scaled for xpose_plan_create_ex on the CPU backend: any type, a conversion where
// the API allows one, padded (1-3x), reversed and (input) broadcast strides, scalars from edges;
// output pre-filled with random bytes (read when beta != 0); checked byte for byte, gaps of the
// padded output included, against tests/typed_reference.hpp, with guard bytes on both sides.
#pragma once

#include <vector>

#include "reference.hpp"
#include "small_requests.hpp"
#include "typed_reference.hpp"

namespace xpose_fuzz {

inline xpose_type_t typed_out(FuzzedDataProvider& in, xpose_type_t t) {
  static constexpr xpose_type_t kFloat[] = {XPOSE_TYPE_F8_E4M3, XPOSE_TYPE_F8_E5M2, XPOSE_TYPE_F16,
                                            XPOSE_TYPE_BF16, XPOSE_TYPE_F32, XPOSE_TYPE_F64};
  if (in.ConsumeBool()) return t;
  if (xpose_test::is_floating(t)) return in.PickValueInArray(kFloat);
  if (xpose_test::is_complex(t)) return t == XPOSE_TYPE_C32 ? XPOSE_TYPE_C64 : XPOSE_TYPE_C32;
  return t;
}

// Strides of a tensor with extents `ext` (layout order), padded by 1-3x per dim, some reversed,
// some (input only) 0.
inline std::vector<int64_t> fuzzed_strides(FuzzedDataProvider& in, const std::vector<int64_t>& ext,
                                           bool row_major, bool input) {
  const int n = static_cast<int>(ext.size());
  std::vector<int64_t> s(n);
  int64_t v = 1;
  for (int j = 0; j < n; ++j) {
    const int k = row_major ? n - 1 - j : j;
    s[k] = v;
    v *= ext[k] * in.ConsumeIntegralInRange<int64_t>(1, 3);
  }
  for (int k = 0; k < n; ++k) {
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) s[k] = -s[k];
    if (input && in.ConsumeIntegralInRange<int>(0, 7) == 0) s[k] = 0;
  }
  return s;
}

inline double fuzzed_scalar(FuzzedDataProvider& in, double usual) {
  static constexpr double kEdges[] = {1.0, -1.0, 0.5, 2.0, 0.0, -0.0, 1e-30, 3e38};
  return in.ConsumeBool() ? usual : in.PickValueInArray(kEdges);
}

inline void run_typed(FuzzedDataProvider& in, const Request& r) {
  xpose_test::TypedCase c;
  c.extents.assign(r.extents.begin(), r.extents.begin() + r.rank);
  c.perm.assign(r.perm.begin(), r.perm.begin() + r.rank);
  c.layout = in.ConsumeBool() ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
  c.in_type = static_cast<xpose_type_t>(in.ConsumeIntegralInRange<int>(0, XPOSE_TYPE_C64));
  c.elem_size = c.in_type == XPOSE_TYPE_BYTES ? r.elem_size : xpose_test::type_size(c.in_type);
  c.out_type = typed_out(in, c.in_type);
  const bool row = c.layout == XPOSE_ROW_MAJOR;
  if (in.ConsumeBool()) c.in_strides = fuzzed_strides(in, c.extents, row, true);
  if (in.ConsumeBool()) c.out_strides = fuzzed_strides(in, c.out_extents(), row, false);
  const bool real = xpose_test::is_floating(c.in_type), complex = xpose_test::is_complex(c.in_type);
  if (real || complex) {
    c.alpha[0] = fuzzed_scalar(in, 1), c.beta[0] = fuzzed_scalar(in, 0);
    if (complex) c.alpha[1] = fuzzed_scalar(in, 0), c.beta[1] = fuzzed_scalar(in, 0);
  } else if (c.elem_size <= 8) {
    c.beta[0] = in.ConsumeBool() ? 1 : 0;  // integer addition (BYTES: of the unsigned type)
  }
  int64_t ilo, ihi, olo, ohi;
  xpose_test::reach(c.extents, c.input_strides(), &ilo, &ihi);
  xpose_test::reach(c.out_extents(), c.output_strides(), &olo, &ohi);
  const size_t ie = c.in_elem(), oe = c.out_elem();
  const size_t in_bytes = static_cast<size_t>(ihi - ilo + 1) * ie;
  const size_t out_bytes = static_cast<size_t>(ohi - olo + 1) * oe;
  xpose_test::GuardedBuffer src(in_bytes, in.ConsumeIntegralInRange<int>(0, 15)),
      dst(out_bytes, in.ConsumeIntegralInRange<int>(0, 15));
  xpose_test::fill_random(src.data(), in_bytes, in.ConsumeIntegral<uint64_t>());
  xpose_test::fill_random(dst.data(), out_bytes, in.ConsumeIntegral<uint64_t>());
  std::vector<unsigned char> want(dst.data(), dst.data() + out_bytes);
  const unsigned char* in0 = src.data() - ilo * static_cast<int64_t>(ie);
  unsigned char* out0 = dst.data() - olo * static_cast<int64_t>(oe);
  xpose_test::reference_typed(c, in0, want.data() - olo * static_cast<int64_t>(oe));

  xpose_options_t o = xpose_test::cpu_options(c.layout, in.ConsumeIntegralInRange<int>(0, 3));
  const xpose_desc_t d = c.desc();
  xpose_plan_t plan = nullptr;
  const xpose_status_t s = xpose_plan_create_ex(&plan, c.rank(), c.extents.data(), c.perm.data(),
                                                c.in_type == XPOSE_TYPE_BYTES ? c.elem_size : 0,
                                                &d, &o);
  check_status(s);
  require(s == XPOSE_SUCCESS, "a valid typed request is accepted", s);
  check_status(xpose_execute(plan, in0, out0, nullptr));
  xpose_plan_destroy(plan);
  require(dst.guards_intact(), "nothing written outside the output's reach");
  require(std::memcmp(dst.data(), want.data(), out_bytes) == 0,
          "the typed result (and the padding it skips) equals the reference");
}

}  // namespace xpose_fuzz
