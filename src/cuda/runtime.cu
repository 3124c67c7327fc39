// CUDA runtime glue: device discovery behind cuda_usable / cuda_resolve_device, the per-device
// property cache the planner reads, the device guard of execute, and scratch timing for measure
// planning. The only host file of the backend that includes cuda_runtime.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>

#include "core/backend.hpp"
#include "core/status.hpp"
#include "cuda/runtime.hpp"

namespace xpose::detail {
namespace {

std::string cuda_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

xpose_status_t device_fail(const char* what, cudaError_t e) {
  return fail(XPOSE_ERROR_DEVICE, std::string(what) + " failed: " + cuda_text(e));
}

int attribute(cudaDeviceAttr a, int ordinal) {
  int v = 0;
  return cudaDeviceGetAttribute(&v, a, ordinal) == cudaSuccess ? v : 0;
}

// Fills `info`; returns the CUDA error of the first query that failed.
cudaError_t query(int ordinal, DeviceInfo* info) {
  cudaDeviceProp prop{};
  const cudaError_t e = cudaGetDeviceProperties(&prop, ordinal);
  if (e != cudaSuccess) return e;
  info->ordinal = ordinal;
  info->name = prop.name;
  info->arch = 10 * prop.major + prop.minor;
  info->sms = prop.multiProcessorCount;
  info->l2_bytes = prop.l2CacheSize;
  info->smem_per_block = static_cast<int>(prop.sharedMemPerBlock);
  info->smem_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  info->regs_per_sm = prop.regsPerMultiprocessor;
  info->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  info->clock_hz = 1e3 * attribute(cudaDevAttrClockRate, ordinal);
  const double mem_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  const double bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  info->dram_bytes_per_s = 2.0 * mem_khz * 1e3 * bus_bits / 8.0;
  // Fallbacks where a driver reports nothing: H100 SXM figures.
  if (info->clock_hz <= 0) info->clock_hz = 1.755e9;
  if (info->dram_bytes_per_s <= 0) info->dram_bytes_per_s = 3.35e12;
  int previous = -1;
  cudaGetDevice(&previous);
  if (previous != ordinal) cudaSetDevice(ordinal);
  tiled_kernel_regs(info->tiled_regs);
  info->narrow_regs = narrow_kernel_setup(ordinal, &info->narrow_four_regs);
  if (previous >= 0 && previous != ordinal) cudaSetDevice(previous);
  return cudaSuccess;
}

}  // namespace

bool cuda_usable(std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    if (why) *why = "no usable CUDA device: cudaGetDeviceCount failed: " + cuda_text(e);
    cudaGetLastError();
    return false;
  }
  if (count == 0) {
    if (why) *why = "no usable CUDA device: the driver reports 0 devices";
    return false;
  }
  return true;
}

// The device count of a process never changes: asked once it answered (every plan asks, so it
// is known before any execute). -1 until then.
static std::atomic<int> known_device_count{-1};

xpose_status_t cuda_resolve_device(int requested, int* device) {
  int count = known_device_count.load(std::memory_order_relaxed);
  cudaError_t e = cudaSuccess;
  if (count < 0) {
    e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) return device_fail("cudaGetDeviceCount", e);
    known_device_count.store(count, std::memory_order_relaxed);
  }
  if (requested == -1 && count == 1) {  // the only device is every thread's current one
    *device = 0;
    return XPOSE_SUCCESS;
  }
  if (requested == -1) {
    e = cudaGetDevice(device);
    if (e != cudaSuccess) return device_fail("cudaGetDevice", e);
    return XPOSE_SUCCESS;
  }
  if (requested < 0 || requested >= count)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT,
                "options->device = " + std::to_string(requested) + " is out of range: " +
                    std::to_string(count) + " CUDA device(s), ordinals 0.." +
                    std::to_string(count - 1) + " (or -1 for the current device)");
  *device = requested;
  return XPOSE_SUCCESS;
}

const DeviceInfo* device_info(int ordinal, std::string* why) {
  // Device ordinals are small; one slot each, filled once under the lock, never freed.
  static std::mutex mutex;
  static std::array<std::unique_ptr<DeviceInfo>, 64> cache;
  if (ordinal < 0 || ordinal >= static_cast<int>(cache.size())) {
    if (why) *why = "device ordinal " + std::to_string(ordinal) + " is out of range";
    return nullptr;
  }
  std::lock_guard lock(mutex);
  if (!cache[ordinal]) {
    auto info = std::make_unique<DeviceInfo>();
    const cudaError_t e = query(ordinal, info.get());
    if (e != cudaSuccess) {
      if (why) *why = "cudaGetDeviceProperties failed: " + cuda_text(e);
      return nullptr;
    }
    cache[ordinal] = std::move(info);
  }
  return cache[ordinal].get();
}

DeviceGuard::DeviceGuard(int ordinal) {
  // With one device it is current in every thread: no call at all (execute's hot path).
  if (known_device_count.load(std::memory_order_relaxed) == 1 && ordinal == 0) return;
  if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
  if (previous_ == ordinal) return;
  const cudaError_t e = cudaSetDevice(ordinal);
  if (e != cudaSuccess) {
    status_ = device_fail("cudaSetDevice", e);
    previous_ = ordinal;
  }
}

DeviceGuard::~DeviceGuard() {
  int now = -1;
  if (previous_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != previous_)
    cudaSetDevice(previous_);
}

xpose_status_t time_runs(int ordinal, Scratch in_buf, Scratch out_buf,
                         const std::vector<TimedRun>& runs, int reps,
                         std::vector<double>* seconds) {
  DeviceGuard guard(ordinal);
  XPOSE_TRY(guard.status());
  seconds->assign(runs.size(), -1.0);
  void* in = nullptr;
  void* out = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  // Everything acquired below is released on every path by this cleanup.
  struct Cleanup {
    void** in; void** out; cudaStream_t* s; cudaEvent_t* a; cudaEvent_t* b;
    ~Cleanup() {
      if (*s) cudaStreamSynchronize(*s);
      if (*in) cudaFree(*in);
      if (*out) cudaFree(*out);
      if (*a) cudaEventDestroy(*a);
      if (*b) cudaEventDestroy(*b);
      if (*s) cudaStreamDestroy(*s);
    }
  } cleanup{&in, &out, &stream, &start, &stop};
  const auto in_bytes = static_cast<size_t>(in_buf.bytes);
  const auto out_bytes = static_cast<size_t>(out_buf.bytes);
  cudaError_t e = cudaMalloc(&in, in_bytes);
  if (e == cudaSuccess) e = cudaMalloc(&out, out_bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return fail(XPOSE_ERROR_OUT_OF_MEMORY,
                "measure planning: no device memory for " + std::to_string(in_bytes) + " + " +
                    std::to_string(out_bytes) + " bytes of scratch");
  }
  if (e != cudaSuccess) return device_fail("cudaMalloc", e);
  if ((e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) != cudaSuccess)
    return device_fail("cudaStreamCreate", e);
  if ((e = cudaEventCreate(&start)) != cudaSuccess || (e = cudaEventCreate(&stop)) != cudaSuccess)
    return device_fail("cudaEventCreate", e);
  // Finite values of every floating type, for conversions and for beta's reads of the output.
  if ((e = cudaMemsetAsync(in, 0x5A, in_bytes, stream)) != cudaSuccess ||
      (e = cudaMemsetAsync(out, 0x5A, out_bytes, stream)) != cudaSuccess)
    return device_fail("cudaMemsetAsync", e);
  const void* run_in = static_cast<const char*>(in) + in_buf.offset;
  void* run_out = static_cast<char*>(out) + out_buf.offset;
  // One sample: `batch` back-to-back launches of run i between two events, milliseconds per
  // launch.
  const auto sample = [&](size_t i, int batch, float* ms) -> xpose_status_t {
    cudaEventRecord(start, stream);
    for (int k = 0; k < batch; ++k) XPOSE_TRY(runs[i](run_in, run_out, stream));
    cudaEventRecord(stop, stream);
    cudaError_t err = cudaEventSynchronize(stop);
    if (err != cudaSuccess) return device_fail("cudaEventSynchronize", err);
    cudaEventElapsedTime(ms, start, stop);
    *ms /= static_cast<float>(batch);
    return XPOSE_SUCCESS;
  };
  // Warm-up: each run twice (the second timed, to size the batches so that a sample spans at
  // least ~100 us: short kernels are otherwise dominated by event and launch jitter).
  int batch = 1;
  for (size_t i = 0; i < runs.size(); ++i) {
    float ms = 0;
    XPOSE_TRY(runs[i](run_in, run_out, stream));
    XPOSE_TRY(sample(i, 1, &ms));
    if (ms > 0) batch = std::max(batch, static_cast<int>(std::min(0.1f / ms, 64.0f)));
  }
  // Rounds interleave the candidates, so that clock and thermal drift during the measurement
  // affect each alike; the median of the rounds wins.
  std::vector<std::vector<float>> ms(runs.size(), std::vector<float>(static_cast<size_t>(reps)));
  for (int r = 0; r < reps; ++r)
    for (size_t i = 0; i < runs.size(); ++i)
      XPOSE_TRY(sample(i, batch, &ms[i][static_cast<size_t>(r)]));
  for (size_t i = 0; i < runs.size(); ++i) {
    std::nth_element(ms[i].begin(), ms[i].begin() + reps / 2, ms[i].end());
    (*seconds)[i] = 1e-3 * ms[i][static_cast<size_t>(reps / 2)];
  }
  return XPOSE_SUCCESS;
}

}  // namespace xpose::detail
