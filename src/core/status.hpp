// Error reporting shared by every layer: a thread-local message behind xpose_last_error().
#pragma once

#include <exception>
#include <new>
#include <string>

#include "xpose/xpose.h"

namespace xpose::detail {

// Records `message` as this thread's last error and returns `status` (so callers can write
// `return fail(XPOSE_ERROR_INVALID_ARGUMENT, "...")`).
xpose_status_t fail(xpose_status_t status, std::string message);

// Clears this thread's last error (called on entry of every public call).
void clear_error();

// This thread's last error message; "" when none.
const char* last_error();

// Runs `body` (returning xpose_status_t) with this thread's last error cleared, as the exception
// barrier of a public entry point: nothing crosses the C boundary; std::bad_alloc becomes
// XPOSE_ERROR_OUT_OF_MEMORY and any other exception XPOSE_ERROR_INTERNAL.
template <class F>
xpose_status_t guarded(F&& body) noexcept {
  clear_error();
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(XPOSE_ERROR_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return fail(XPOSE_ERROR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(XPOSE_ERROR_INTERNAL, "internal error: unknown exception");
  }
}

// Evaluates a status expression and returns it from the enclosing function unless it is success.
#define XPOSE_TRY(expr)                              \
  do {                                               \
    const xpose_status_t xpose_try_status_ = (expr); \
    if (xpose_try_status_ != XPOSE_SUCCESS) return xpose_try_status_; \
  } while (0)

}  // namespace xpose::detail
