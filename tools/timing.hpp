// Host-side timing and the CPU copy baseline.
#pragma once

#include <cstddef>
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

// The number of threads a CPU run uses for `threads` (0 = OpenMP's default team size).
int resolve_threads(int threads);

}  // namespace xpose_tool
