#include "timing.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

namespace xpose_tool {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = std::ceil(q / 100.0 * static_cast<double>(v.size()));
  const size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return v[std::min(i, v.size() - 1)];
}

std::vector<double> cpu_time_ms(const std::function<void()>& fn, int reps) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return ms;
}

CacheFlusher::CacheFlusher(int threads) : threads_(resolve_threads(threads)) {
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = 64L << 20;                    // unknown: a large server L3
  const size_t bytes = std::min<size_t>(2 * static_cast<size_t>(llc), size_t{768} << 20);
  buffer_.assign(bytes / sizeof(uint64_t), 1);
}

void CacheFlusher::flush() {
  const int64_t n = static_cast<int64_t>(buffer_.size());
  const uint64_t* b = buffer_.data();
  uint64_t sum = 0;
#pragma omp parallel for num_threads(threads_) reduction(+ : sum) schedule(static)
  for (int64_t i = 0; i < n; i += 8) sum += b[i];  // one word per 64-byte line
  sink_ = sink_ + sum;
}

int resolve_threads(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

namespace {
// Chunk t of `bytes` split in `n` parts, rounded to cache lines so threads never share one.
void chunk(size_t bytes, int n, int t, size_t* begin, size_t* size) {
  const size_t per = (bytes / n + 63) / 64 * 64;
  *begin = std::min(bytes, per * t);
  *size = std::min(bytes - *begin, per);
}
}  // namespace

void parallel_memcpy(void* dst, const void* src, size_t bytes, int threads) {
  const int n = resolve_threads(threads);
#pragma omp parallel num_threads(n)
  {
    size_t begin, size;
    chunk(bytes, omp_get_num_threads(), omp_get_thread_num(), &begin, &size);
    if (size) std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin, size);
  }
}

void parallel_memset(void* dst, unsigned char byte, size_t bytes, int threads) {
  const int n = resolve_threads(threads);
#pragma omp parallel num_threads(n)
  {
    size_t begin, size;
    chunk(bytes, omp_get_num_threads(), omp_get_thread_num(), &begin, &size);
    if (size) std::memset(static_cast<char*>(dst) + begin, byte, size);
  }
}

}  // namespace xpose_tool
