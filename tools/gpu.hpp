// The tool's view of a GPU: device buffers, copies and CUDA-event timing, without CUDA headers.
// gpu.cu implements it when the build has a CUDA compiler; gpu_none.cpp otherwise (every call
// but usable() then throws, and usable() says why).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace xpose_tool::gpu {

// Whether a CUDA device can be used by this build of the tool; when not, `why` says why.
bool usable(std::string* why);
// "NVIDIA H100 80GB HBM3 (sm_90, 79 GiB)".
std::string device_name();
// The current device's compute capability, 10 x major + minor (90 on an H100).
int arch();

void* alloc(size_t bytes);  // throws ToolError when the device is out of memory
void release(void* ptr);
void upload(void* device_dst, const void* host_src, size_t bytes);
void download(void* host_dst, const void* device_src, size_t bytes);
void fill(void* device_dst, unsigned char byte, size_t bytes);
void synchronize();

// The stream the tool runs everything on (a cudaStream_t).
void* stream();

// Milliseconds of each of `reps` runs of `enqueue(stream)`, timed with CUDA events on stream():
// per run, `batch` enqueues back to back between one pair of events, the time divided by
// `batch` (1 under XPOSE_BENCH_CLEAN_L2=1). The caller warms up first.
std::vector<double> time_ms(const std::function<void(void*)>& enqueue, int reps, int batch = 1);
// The same for cudaMemcpyAsync device-to-device of `bytes`.
std::vector<double> copy_ms(void* dst, const void* src, size_t bytes, int reps, int batch = 1);
// That copy, enqueued on `stream`.
void copy_async(void* dst, const void* src, size_t bytes, void* stream);
// Milliseconds per enqueue when `batch` enqueues, captured on stream() into a CUDA graph, are
// replayed: each of `reps` launches of the graph between a pair of events, divided by `batch`.
// Throws ToolError when the capture fails (the enqueued work is not capturable).
std::vector<double> graph_ms(const std::function<void(void*)>& enqueue, int reps, int batch);

}  // namespace xpose_tool::gpu
