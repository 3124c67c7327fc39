// The contiguous-run schemas: `copy` (rank <= 1) and `direct` (the leading index stays, so the
// tensor is runs of extent[0] elements, each copied whole). The output is split into
// line-aligned element ranges (run_chunks); each range's runs are walked in output order.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>

#include "cpu/plans.hpp"

namespace xpose::detail::cpu {
namespace {

class RunPlan final : public BackendPlan {
 public:
  RunPlan(const Problem& p, const ExecSettings& x, double predicted)
      : g_(make_run_geometry(p)), eb_(static_cast<int64_t>(p.elem_size)), volume_(p.volume),
        x_(x), predicted_(predicted) {}

  xpose_status_t execute(const void* in, void* out, void*) const override {
    const auto* src = static_cast<const char*>(in);
    auto* dst = static_cast<char*>(out);
    // Chunks of whole cache lines of the output (when the element divides a line).
    const int64_t align = std::max<int64_t>(1, kTuning.line_bytes / eb_);
    run_chunks(x_.threads, (volume_ + align - 1) / align, volume_ * eb_,
               [&](int64_t l0, int64_t l1) {
                 run(src, dst, std::min(volume_, l0 * align), std::min(volume_, l1 * align));
               });
    return XPOSE_SUCCESS;
  }

  double predicted_seconds() const override { return predicted_; }

  std::string describe() const override {
    std::ostringstream d;
    d << (g_.outer_rank == 0 ? "copy" : "direct") << " run=" << g_.run << " nt=" << x_.nt
      << " threads=" << x_.threads << "\n  " << g_.run * eb_
      << " B contiguous runs; outer dims (output order):";
    for (int i = 0; i < g_.outer_rank; ++i) d << " " << g_.outer_extent[i];
    d << "\n  stores: " << (x_.nt ? "non-temporal" : "regular") << "; predicted "
      << predicted_ * 1e3 << " ms\n";
    return d.str();
  }

 private:
  // Output elements [e0, e1).
  void run(const char* in, char* out, int64_t e0, int64_t e1) const {
    if (e0 >= e1) return;
    int64_t q = e0 / g_.run, o = e0 % g_.run;
    int64_t coord[kMaxRank]{}, in_off = 0;  // odometer over the outer dims, input elements
    for (int i = 0; i < g_.outer_rank; ++i) {
      coord[i] = q % g_.outer_extent[i];
      q /= g_.outer_extent[i];
      in_off += coord[i] * g_.outer_in_stride[i];
    }
    for (int64_t e = e0; e < e1;) {
      const int64_t len = std::min(g_.run - o, e1 - e);
      // The output is one sequential stream here, so partial lines are streamed too.
      if (x_.nt)
        stream_bytes(out + e * eb_, in + (in_off + o) * eb_, static_cast<size_t>(len * eb_));
      else
        std::memcpy(out + e * eb_, in + (in_off + o) * eb_, static_cast<size_t>(len * eb_));
      e += len;
      o = 0;
      for (int i = 0; i < g_.outer_rank; ++i) {
        in_off += g_.outer_in_stride[i];
        if (++coord[i] < g_.outer_extent[i]) break;
        in_off -= g_.outer_in_stride[i] * g_.outer_extent[i];
        coord[i] = 0;
      }
    }
    if (x_.nt) store_fence();
  }

  RunGeometry g_;
  int64_t eb_, volume_;
  ExecSettings x_;
  double predicted_;
};

int64_t llc_bytes() {
  static const int64_t bytes = [] {
    long v = -1;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v <= 0) v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return v > 0 ? static_cast<int64_t>(v) : kTuning.fallback_llc_bytes;
  }();
  return bytes;
}

// Read traffic of runs shorter than a line, per byte, when the run that continues each one in
// the input is not the next one in the output: every input line is then fetched about once per
// run it holds (the walk jumps between lines that the prefetchers do not follow), and 13-byte
// runs took 10-20 ns each on the build VM ((13,43,5460,9) perm (0,3,2,1), 1-byte elements:
// `direct` 0.045 of memcpy, `super` 0.39; (13,1000,2000) perm (0,2,1) 0.06-0.11 against 0.41).
// 1- and 2-byte problems only (the wider sizes' plans stay as measured).
double refetch_factor(const RunGeometry& g, size_t elem_size) {
  const auto eb = static_cast<int64_t>(elem_size);
  if (eb > 2 || g.run * eb >= kTuning.line_bytes) return 1.0;
  if (g.outer_rank > 0 && g.outer_in_stride[0] == g.run) return 1.0;
  return static_cast<double>(kTuning.line_bytes) / static_cast<double>(g.run * eb);
}

}  // namespace

RunGeometry make_run_geometry(const Problem& p, int lead) {
  RunGeometry g;
  if (p.rank <= 1) {
    g.run = p.volume;
    return g;
  }
  int64_t is[kMaxRank + 1], acc = 1;  // [rank]: the volume
  for (int d = 0; d <= p.rank; ++d) {
    is[d] = acc;
    if (d < p.rank) acc *= p.extent[d];
  }
  g.run = is[lead];
  g.outer_rank = p.rank - lead;
  for (int i = lead; i < p.rank; ++i) {
    g.outer_extent[i - lead] = p.extent[p.perm[i]];
    g.outer_in_stride[i - lead] = is[p.perm[i]];
  }
  return g;
}

BackendPlanPtr make_run_plan(const Problem& p, const ExecSettings& x, double predicted) {
  return std::make_shared<RunPlan>(p, x, predicted);
}

bool cold_short_runs(const RunGeometry& g, size_t elem_size) {
  return g.outer_rank > 0 && g.outer_in_stride[0] != g.run &&
         g.outer_extent[0] > kTuning.direct_max_streams &&
         g.run * static_cast<int64_t>(elem_size) < kTuning.cold_run_max_bytes;
}

double predict_run(const Problem& p, const RunGeometry& g, const ExecSettings& x) {
  const double bytes = static_cast<double>(p.bytes());
  const double run = static_cast<double>(g.run) * static_cast<double>(p.elem_size);
  const double line = static_cast<double>(kTuning.line_bytes);
  // Reads of short runs waste part of their first and last lines (and runs that start cold, a
  // prefetch ramp); plus a fixed cost per run.
  const double cold =
      cold_short_runs(g, p.elem_size)
          ? kTuning.cold_run_bytes * (1.0 - run / static_cast<double>(kTuning.cold_run_max_bytes))
          : 0.0;
  const double read = bytes * (1.0 + (0.5 * line + cold) / std::max(run, line)) *
                      (cold > 0 ? 1.0 : refetch_factor(g, p.elem_size));
  const double write = bytes * write_factor(p.bytes(), x);
  const double bw = std::min(kTuning.bandwidth_socket, kTuning.bandwidth_per_thread * x.threads);
  const double runs = static_cast<double>(p.volume) / static_cast<double>(g.run);
  return (read + write) / bw + runs * kTuning.run_overhead_s / x.threads;
}

int resolve_threads(int requested) {
  // Beyond 4 threads a processor a team only oversubscribes the machine, and a hostile count
  // (100000) made libgomp fail to start the team and crash the process (issue 17): capped.
  const int cap = 4 * std::max(1, omp_get_num_procs());
  return requested > 0 ? std::min(requested, cap) : std::max(1, omp_get_max_threads());
}

bool static_chunks(int64_t bytes) { return bytes < kTuning.static_below_bytes; }

int64_t chunk_count(int64_t units, int64_t bytes, int threads) {
  if (bytes < kTuning.serial_below_bytes) return 1;
  const int64_t by_size = std::max<int64_t>(threads, bytes / kTuning.min_chunk_bytes);
  return std::max<int64_t>(
      1, std::min({units, int64_t{threads} * kTuning.chunks_per_thread, by_size}));
}

double write_factor(int64_t bytes, const ExecSettings& x) {
  const bool nt = x.nt;
  if (want_nt(bytes, x.threads)) return nt ? 1.0 : kTuning.rfo_write_factor;
  return nt ? kTuning.nt_in_cache_factor : 1.0;
}

bool want_nt(int64_t bytes, int threads, double fraction) {
  // XPOSE_CPU_NT=0|1 overrides the rule (experiments; read once).
  static const int forced = [] {
    const char* v = std::getenv("XPOSE_CPU_NT");
    return v != nullptr && (v[0] == '0' || v[0] == '1') && v[1] == '\0' ? v[0] - '0' : -1;
  }();
  if (forced >= 0) return forced == 1;
  const int64_t share = std::min(llc_bytes(), kTuning.llc_share_per_thread * threads);
  return static_cast<double>(bytes) > fraction * static_cast<double>(share);
}

}  // namespace xpose::detail::cpu
