// xpose C++ layer: RAII over the C API of xpose/xpose.h. Failures throw xpose::Error, which
// carries the status and xpose_last_error()'s message.
#pragma once

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

// A move-only, immutable transposition plan.
class Plan {
 public:
  Plan(const std::vector<int64_t>& extents, const std::vector<int>& perm, size_t elem_size,
       const Options& options = Options()) {
    if (extents.size() != perm.size())
      throw Error(XPOSE_ERROR_INVALID_ARGUMENT,
                  "invalid argument: extents has " + std::to_string(extents.size()) +
                      " entries but perm has " + std::to_string(perm.size()));
    check(xpose_plan_create(&plan_, static_cast<int>(extents.size()), extents.data(),
                            perm.data(), elem_size, &options));
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
