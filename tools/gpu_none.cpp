// gpu.hpp for a build without a CUDA compiler: no GPU is ever usable, so the tool stays on the
// CPU; the other calls are unreachable from the tool and throw if reached.
#include "common.hpp"
#include "gpu.hpp"

namespace xpose_tool::gpu {
namespace {
[[noreturn]] void absent() {
  throw ToolError("this xpose tool was built without CUDA (no CUDA compiler at configure time)");
}
}  // namespace

bool usable(std::string* why) {
  if (why) *why = "this xpose tool was built without CUDA (no CUDA compiler at configure time)";
  return false;
}
std::string device_name() { absent(); }
int arch() { absent(); }
void* alloc(size_t) { absent(); }
void release(void* ptr) {
  if (ptr) absent();
}
void upload(void*, const void*, size_t) { absent(); }
void download(void*, const void*, size_t) { absent(); }
void fill(void*, unsigned char, size_t) { absent(); }
void synchronize() { absent(); }
void* stream() { absent(); }
std::vector<double> time_ms(const std::function<void(void*)>&, int, int) { absent(); }
std::vector<double> copy_ms(void*, const void*, size_t, int, int) { absent(); }
void copy_async(void*, const void*, size_t, void*) { absent(); }
std::vector<double> graph_ms(const std::function<void(void*)>&, int, int) { absent(); }

}  // namespace xpose_tool::gpu
