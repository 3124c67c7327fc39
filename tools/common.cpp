#include "common.hpp"

namespace xpose_tool {

int64_t Case::volume() const {
  int64_t v = 1;
  for (int64_t e : extents)
    if (__builtin_mul_overflow(v, e, &v))
      throw UsageError("extents " + join(extents) + ": the volume overflows 64 bits");
  return v;
}

xpose_options_t Settings::options() const {
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = backend;
  o.layout = layout;
  o.planning = planning;
  o.num_threads = threads;
  return o;
}

namespace {
template <class T>
std::string join_impl(const std::vector<T>& v, bool parens) {
  std::string s = parens ? "(" : "";
  for (size_t k = 0; k < v.size(); ++k) {
    if (k) s += ',';
    s += std::to_string(v[k]);
  }
  return parens ? s + ")" : s;
}
}  // namespace

std::string join(const std::vector<int64_t>& v, bool parens) { return join_impl(v, parens); }
std::string join(const std::vector<int>& v, bool parens) { return join_impl(v, parens); }

const char* layout_name(xpose_layout_t layout) {
  return layout == XPOSE_ROW_MAJOR ? "row-major" : "col-major";
}

const char* backend_name(xpose_backend_t backend) {
  switch (backend) {
    case XPOSE_BACKEND_CPU: return "cpu";
    case XPOSE_BACKEND_CUDA: return "cuda";
    default: return "auto";
  }
}

void check_status(xpose_status_t status, const std::string& what) {
  if (status != XPOSE_SUCCESS)
    throw ToolError(what + ": " + xpose_status_string(status) + ": " + xpose_last_error());
}

}  // namespace xpose_tool
