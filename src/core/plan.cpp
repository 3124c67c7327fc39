#include "core/plan.hpp"

#include <cstring>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "core/status.hpp"

namespace xpose::detail {
namespace {

struct CacheKey {
  Problem problem;
  int backend, device, planning, num_threads;
  friend bool operator==(const CacheKey&, const CacheKey&) = default;
};

struct CacheKeyHash {
  size_t operator()(const CacheKey& k) const {
    size_t h = hash_value(k.problem);
    for (int v : {k.backend, k.device, k.planning, k.num_threads})
      h = h * 1099511628211ull ^ static_cast<size_t>(v);
    return h;
  }
};

// Bounded, first-in first-out: a workload with shapes that change from call to call must not
// grow memory without bound, and re-planning a dropped entry costs microseconds.
class PlanCache {
 public:
  static constexpr size_t kCapacity = 4096;

  BackendPlanPtr find(const CacheKey& key) {
    std::lock_guard lock(mutex_);
    const auto it = map_.find(key);
    return it == map_.end() ? nullptr : it->second;
  }

  void insert(const CacheKey& key, BackendPlanPtr plan) {
    std::lock_guard lock(mutex_);
    if (!map_.emplace(key, std::move(plan)).second) return;
    order_.push_back(key);
    if (order_.size() > kCapacity) {
      map_.erase(order_.front());
      order_.pop_front();
    }
  }

  size_t size() {
    std::lock_guard lock(mutex_);
    return map_.size();
  }

 private:
  std::mutex mutex_;
  std::unordered_map<CacheKey, BackendPlanPtr, CacheKeyHash> map_;
  std::deque<CacheKey> order_;
};

PlanCache& cache() {
  static PlanCache c;
  return c;
}

// Whether AUTO means CUDA: decided once per process (device enumeration is not free).
bool auto_is_cuda() {
  static const bool usable = cuda_usable(nullptr);
  return usable;
}

// xpose_plan_describe's text: the backend and `summary` (one line: benchmarks print it), the
// normalized problem, then the backend's details (`body` past its first line).
std::string describe_text(const Plan& plan, const std::string& summary, const std::string& body) {
  std::string s = plan.options.backend == XPOSE_BACKEND_CUDA ? "backend cuda: " : "backend cpu: ";
  s += summary + "\n";
  s += "normalized " + plan.problem.to_string() + "; volume " +
       std::to_string(plan.problem.volume) + "\n";
  const size_t eol = body.find('\n');
  if (eol != std::string::npos) s += body.substr(eol + 1);
  return s;
}

}  // namespace

xpose_status_t choose_backend(xpose_options_t* o) {
  if (o->backend == XPOSE_BACKEND_AUTO)
    o->backend = auto_is_cuda() ? XPOSE_BACKEND_CUDA : XPOSE_BACKEND_CPU;
  if (o->backend == XPOSE_BACKEND_CUDA) {
    // The device count cannot change within a process: the once-per-process answer serves every
    // call, and the driver is asked again only to word the error.
    if (!auto_is_cuda()) {
      std::string why;
      cuda_usable(&why);
      return fail(XPOSE_ERROR_UNSUPPORTED, "options->backend = CUDA: " + why);
    }
    XPOSE_TRY(cuda_resolve_device(o->device, &o->device));
  }
  return XPOSE_SUCCESS;
}

xpose_status_t Plan::execute(const void* in, void* out, void* stream) const {
  XPOSE_TRY(check_buffers(problem, in, out));
  if (!impl) return XPOSE_SUCCESS;
  return impl->execute(in, out, stream);
}

xpose_status_t Plan::predict(double* seconds) const {
  if (seconds == nullptr) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "seconds is NULL");
  const double s = impl ? impl->predicted_seconds() : 0.0;
  if (s < 0)
    return fail(XPOSE_ERROR_UNSUPPORTED, "the chosen plan's backend has no performance model");
  *seconds = s;
  return XPOSE_SUCCESS;
}

std::string Plan::describe() const {
  const std::string body = impl ? impl->describe() : std::string("empty tensor: nothing to do\n");
  return describe_text(*this, body.substr(0, body.find('\n')), body);
}

std::string Plan::describe_for(const void* in, const void* out) const {
  if (!impl) return describe();
  return describe_text(*this, impl->runs_for(in, out), impl->describe());
}

namespace {

xpose_status_t resolve_request(int rank, const int64_t* extents, const int* perm,
                               size_t elem_size, const xpose_desc_t* desc,
                               const xpose_options_t* options, Plan* plan) {
  XPOSE_TRY(resolve_options(options, &plan->options));
  XPOSE_TRY(make_problem_ex(rank, extents, perm, elem_size, desc, plan->options.layout,
                            &plan->problem));
  return choose_backend(&plan->options);
}

}  // namespace

xpose_status_t make_plan(int rank, const int64_t* extents, const int* perm, size_t elem_size,
                         const xpose_options_t* options, const char* schema, bool use_cache,
                         Plan* out, const xpose_desc_t* desc) {
  Plan plan;
  XPOSE_TRY(resolve_request(rank, extents, perm, elem_size, desc, options, &plan));
  const std::string forced = schema ? schema : "";
  use_cache = use_cache && forced.empty();
  if (plan.problem.volume > 0) {
    const xpose_options_t& o = plan.options;
    const CacheKey key{plan.problem, o.backend, o.backend == XPOSE_BACKEND_CUDA ? o.device : -1,
                       o.planning, o.backend == XPOSE_BACKEND_CPU ? o.num_threads : 0};
    if (use_cache) plan.impl = cache().find(key);
    if (!plan.impl) {
      XPOSE_TRY(o.backend == XPOSE_BACKEND_CUDA
                    ? cuda_make_plan(plan.problem, o, forced, &plan.impl)
                    : cpu_make_plan(plan.problem, o, forced, &plan.impl));
      if (use_cache) cache().insert(key, plan.impl);
    }
  }
  *out = std::move(plan);
  return XPOSE_SUCCESS;
}

namespace {

// One remembered request of call_plan, as the caller passed it (options filled in where NULL),
// and its plan. rank -1: empty.
struct CallEntry {
  int rank = -1;
  size_t elem_size = 0;
  xpose_options_t options{};
  int64_t extents[kMaxRank];
  int perm[kMaxRank];
  Plan plan;

  // The options by their bytes: a caller's enum fields may hold values outside their enums
  // (rejected by make_plan, but not to be loaded as enums here).
  bool matches(int r, const int64_t* ext, const int* pm, size_t es,
               const xpose_options_t& o) const {
    return r == rank && es == elem_size && std::memcmp(&o, &options, sizeof o) == 0 &&
           (r == 0 || (std::memcmp(ext, extents, sizeof(int64_t) * static_cast<size_t>(r)) == 0 &&
                       std::memcmp(pm, perm, sizeof(int) * static_cast<size_t>(r)) == 0));
  }
};

struct CallMemo {
  CallEntry entry[kCallMemo];
  int next = 0;  // the slot the next new request takes (round robin)
};

}  // namespace

xpose_status_t call_plan(int rank, const int64_t* extents, const int* perm, size_t elem_size,
                         const xpose_options_t* options, const Plan** out) {
  thread_local CallMemo memo;
  xpose_options_t raw;
  xpose_options_init(&raw);
  if (options != nullptr) std::memcpy(&raw, options, sizeof raw);
  const bool keyable = rank >= 0 && rank <= kMaxRank && (rank == 0 || (extents && perm));
  for (const CallEntry& e : memo.entry) {
    if (!keyable || !e.matches(rank, extents, perm, elem_size, raw)) continue;
    // "The current device" may be another one now: the plan is the device's.
    if (e.plan.options.backend == XPOSE_BACKEND_CUDA && raw.device < 0) {
      int device = -1;
      if (cuda_resolve_device(raw.device, &device) != XPOSE_SUCCESS ||
          device != e.plan.options.device)
        continue;
    }
    *out = &e.plan;
    return XPOSE_SUCCESS;
  }
  Plan plan;
  XPOSE_TRY(make_plan(rank, extents, perm, elem_size, options, nullptr, /*use_cache=*/true, &plan));
  CallEntry& e = memo.entry[memo.next];
  memo.next = (memo.next + 1) % kCallMemo;
  e.rank = keyable ? rank : -1;
  e.elem_size = elem_size;
  e.options = raw;
  if (keyable && rank > 0) {
    std::memcpy(e.extents, extents, sizeof(int64_t) * static_cast<size_t>(rank));
    std::memcpy(e.perm, perm, sizeof(int) * static_cast<size_t>(rank));
  }
  e.plan = std::move(plan);
  *out = &e.plan;
  return XPOSE_SUCCESS;
}

xpose_status_t plan_candidates(int rank, const int64_t* extents, const int* perm,
                               size_t elem_size, const xpose_options_t* options, bool measure_all,
                               Plan* plan, std::vector<Candidate>* candidates,
                               const xpose_desc_t* desc) {
  XPOSE_TRY(resolve_request(rank, extents, perm, elem_size, desc, options, plan));
  candidates->clear();
  if (plan->problem.volume == 0) return XPOSE_SUCCESS;
  return plan->options.backend == XPOSE_BACKEND_CUDA
             ? cuda_candidates(plan->problem, plan->options, measure_all, candidates)
             : cpu_candidates(plan->problem, plan->options, measure_all, candidates);
}

size_t plan_cache_size() { return cache().size(); }

}  // namespace xpose::detail
