// xpose C++ layer: RAII over the C API of xpose/xpose.h. Failures throw xpose::Error, which
// carries the status and xpose_last_error()'s message.
#pragma once

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "xpose/xpose.h"

namespace xpose {

class Error : public std::runtime_error {
 public:
  Error(xpose_status_t status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  xpose_status_t status() const noexcept { return status_; }

 private:
  xpose_status_t status_;
};

inline void check(xpose_status_t status) {
  if (status != XPOSE_SUCCESS)
    throw Error(status, std::string(xpose_status_string(status)) + ": " + xpose_last_error());
}

// Options with the defaults of xpose_options_init and chainable setters.
struct Options : xpose_options_t {
  Options() { xpose_options_init(this); }
  Options& with_backend(xpose_backend_t b) { backend = b; return *this; }
  Options& with_layout(xpose_layout_t l) { layout = l; return *this; }
  Options& with_planning(xpose_planning_t p) { planning = p; return *this; }
  Options& with_threads(int n) { num_threads = n; return *this; }
  Options& with_device(int d) { device = d; return *this; }
};

// Element types of typed plans: 1- and 2-byte floating formats as raw bits (any other type of
// the same layout, e.g. __half or __nv_bfloat16, passes through reinterpret_cast), and
// type_of<T>, which users may specialize for their own element types.
struct f8e4m3 { uint8_t bits; };
struct f8e5m2 { uint8_t bits; };
struct f16 { uint16_t bits; };
struct bf16 { uint16_t bits; };

template <class T> struct type_of;
template <> struct type_of<int8_t> { static constexpr xpose_type_t value = XPOSE_TYPE_I8; };
template <> struct type_of<uint8_t> { static constexpr xpose_type_t value = XPOSE_TYPE_U8; };
template <> struct type_of<int16_t> { static constexpr xpose_type_t value = XPOSE_TYPE_I16; };
template <> struct type_of<uint16_t> { static constexpr xpose_type_t value = XPOSE_TYPE_U16; };
template <> struct type_of<int32_t> { static constexpr xpose_type_t value = XPOSE_TYPE_I32; };
template <> struct type_of<uint32_t> { static constexpr xpose_type_t value = XPOSE_TYPE_U32; };
template <> struct type_of<int64_t> { static constexpr xpose_type_t value = XPOSE_TYPE_I64; };
template <> struct type_of<uint64_t> { static constexpr xpose_type_t value = XPOSE_TYPE_U64; };
template <> struct type_of<f8e4m3> { static constexpr xpose_type_t value = XPOSE_TYPE_F8_E4M3; };
template <> struct type_of<f8e5m2> { static constexpr xpose_type_t value = XPOSE_TYPE_F8_E5M2; };
template <> struct type_of<f16> { static constexpr xpose_type_t value = XPOSE_TYPE_F16; };
template <> struct type_of<bf16> { static constexpr xpose_type_t value = XPOSE_TYPE_BF16; };
template <> struct type_of<float> { static constexpr xpose_type_t value = XPOSE_TYPE_F32; };
template <> struct type_of<double> { static constexpr xpose_type_t value = XPOSE_TYPE_F64; };
template <> struct type_of<std::complex<float>> {
  static constexpr xpose_type_t value = XPOSE_TYPE_C32;
};
template <> struct type_of<std::complex<double>> {
  static constexpr xpose_type_t value = XPOSE_TYPE_C64;
};

// xpose_desc_t with the defaults of xpose_desc_init, owning its strides (copied by the library
// at plan creation), and chainable setters.
class Desc {
 public:
  Desc() { xpose_desc_init(&d_); }
  Desc& with_types(xpose_type_t in, xpose_type_t out = XPOSE_TYPE_BYTES) {
    d_.in_type = in;
    d_.out_type = out;
    return *this;
  }
  // Per dimension in the layout's order: input strides per input dimension, output strides per
  // output dimension, in elements; any sign (input: also 0).
  Desc& with_in_strides(std::vector<int64_t> s) { in_ = std::move(s); return *this; }
  Desc& with_out_strides(std::vector<int64_t> s) { out_ = std::move(s); return *this; }
  Desc& with_alpha(double re, double im = 0) { d_.alpha[0] = re, d_.alpha[1] = im; return *this; }
  Desc& with_beta(double re, double im = 0) { d_.beta[0] = re, d_.beta[1] = im; return *this; }
  // The C descriptor, its strides checked against `rank`.
  const xpose_desc_t* get(size_t rank) {
    for (const auto* s : {&in_, &out_})
      if (!s->empty() && s->size() != rank)
        throw Error(XPOSE_ERROR_INVALID_ARGUMENT,
                    "invalid argument: " + std::string(s == &in_ ? "in" : "out") +
                        " strides have " + std::to_string(s->size()) + " entries for rank " +
                        std::to_string(rank));
    d_.in_strides = in_.empty() ? nullptr : in_.data();
    d_.out_strides = out_.empty() ? nullptr : out_.data();
    return &d_;
  }

 private:
  xpose_desc_t d_;
  std::vector<int64_t> in_, out_;
};

// A move-only, immutable transposition plan.
class Plan {
 public:
  Plan(const std::vector<int64_t>& extents, const std::vector<int>& perm, size_t elem_size,
       const Options& options = Options()) {
    check_rank(extents, perm);
    check(xpose_plan_create(&plan_, static_cast<int>(extents.size()), extents.data(),
                            perm.data(), elem_size, &options));
  }
  // xpose_plan_create_ex: types, strides and scalars from `desc`; elem_size 0 takes a typed
  // in_type's size.
  Plan(const std::vector<int64_t>& extents, const std::vector<int>& perm, size_t elem_size,
       Desc desc, const Options& options = Options()) {
    check_rank(extents, perm);
    check(xpose_plan_create_ex(&plan_, static_cast<int>(extents.size()), extents.data(),
                               perm.data(), elem_size, desc.get(extents.size()), &options));
  }
  Plan(Plan&& other) noexcept : plan_(std::exchange(other.plan_, nullptr)) {}
  Plan& operator=(Plan&& other) noexcept {
    if (this != &other) {
      xpose_plan_destroy(plan_);
      plan_ = std::exchange(other.plan_, nullptr);
    }
    return *this;
  }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() { xpose_plan_destroy(plan_); }

  // `stream` is a cudaStream_t for the CUDA backend (nullptr = default stream).
  void execute(const void* in, void* out, void* stream = nullptr) const {
    check(xpose_execute(plan_, in, out, stream));
  }

  // The backend model's predicted seconds of one execute.
  double predict() const {
    double seconds = 0;
    check(xpose_plan_predict(plan_, &seconds));
    return seconds;
  }

  std::string describe() const {
    std::string s(xpose_plan_describe(plan_, nullptr, 0), '\0');
    xpose_plan_describe(plan_, s.data(), s.size() + 1);
    return s;
  }

  xpose_plan_t get() const noexcept { return plan_; }

 private:
  static void check_rank(const std::vector<int64_t>& extents, const std::vector<int>& perm) {
    if (extents.size() != perm.size())
      throw Error(XPOSE_ERROR_INVALID_ARGUMENT,
                  "invalid argument: extents has " + std::to_string(extents.size()) +
                      " entries but perm has " + std::to_string(perm.size()));
  }

  xpose_plan_t plan_ = nullptr;
};

// Plan for elements of type T.
template <class T>
Plan make_plan(const std::vector<int64_t>& extents, const std::vector<int>& perm,
               const Options& options = Options()) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 ||
                    sizeof(T) == 16,
                "xpose moves elements of 1, 2, 4, 8 or 16 bytes");
  return Plan(extents, perm, sizeof(T), options);
}

// Typed plan: elements of type In in, Out out (a conversion when they differ), with the strides
// and scalars of `desc` (whose types it sets).
template <class In, class Out>
Plan make_plan(const std::vector<int64_t>& extents, const std::vector<int>& perm, Desc desc,
               const Options& options = Options()) {
  desc.with_types(type_of<In>::value, type_of<Out>::value);
  return Plan(extents, perm, 0, std::move(desc), options);
}

// One call: plan (cached) and execute.
template <class T>
void transpose(const std::vector<int64_t>& extents, const std::vector<int>& perm, const T* in,
               T* out, const Options& options = Options(), void* stream = nullptr) {
  if (extents.size() != perm.size())
    throw Error(XPOSE_ERROR_INVALID_ARGUMENT,
                "invalid argument: extents and perm differ in length");
  check(xpose_transpose(static_cast<int>(extents.size()), extents.data(), perm.data(), sizeof(T),
                        in, out, &options, stream));
}

}  // namespace xpose
