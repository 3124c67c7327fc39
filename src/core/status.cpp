#include "core/status.hpp"

#include <utility>

namespace xpose::detail {
namespace {
thread_local std::string t_last_error;
}

xpose_status_t fail(xpose_status_t status, std::string message) {
  t_last_error = std::move(message);
  return status;
}

void clear_error() { t_last_error.clear(); }

const char* last_error() { return t_last_error.c_str(); }

}  // namespace xpose::detail
