// Host-side timing and the CPU copy baseline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace xpose_tool {

double median(std::vector<double> v);
// Nearest-rank percentile, q in [0, 100]; percentile(v, 0) is the minimum.
double percentile(std::vector<double> v, double q);

// Milliseconds of each of `reps` calls of `fn` (steady clock).
std::vector<double> cpu_time_ms(const std::function<void()>& fn, int reps);

// The CPU baseline: `threads` OpenMP threads (0 = the default team), each memcpy-ing its own
// contiguous chunk, as a multithreaded transposition would stream memory.
void parallel_memcpy(void* dst, const void* src, size_t bytes, int threads);
// Also a parallel memset: the first touch places the pages near the threads that will use them.
void parallel_memset(void* dst, unsigned char byte, size_t bytes, int threads);

// Evicts the CPU caches by reading a buffer of twice the last-level cache (read, not written, so
// it leaves no dirty lines whose write-back a timed run would pay). CPU timings flush before each
// repetition of both the transposition and the copy baseline: on machines whose LLC holds the
// benchmark tensors (the device VM reports a 300 MiB shared L3), warm repetitions measure cache
// residency, which drifts from case to case, rather than the transposition.
class CacheFlusher {
 public:
  explicit CacheFlusher(int threads);
  void flush();

 private:
  std::vector<uint64_t> buffer_;
  int threads_;
  volatile uint64_t sink_ = 0;
};

// The number of threads a CPU run uses for `threads` (0 = OpenMP's default team size).
int resolve_threads(int threads);

}  // namespace xpose_tool
