// HPTT's C interface (include/xpose/hptt.h) over xpose_plan_create_ex on the CPU backend.
// HPTT's outer sizes become strides, its alpha and beta xpose's scalars. conjA has no
// counterpart in xpose's API, so it takes two passes through a dense scratch tensor T in the
// output's order: T = A permuted (a plain copy), T's imaginary parts negated (exact), then
// B = alpha * T + beta * B through an identity permutation: the same arithmetic as one pass.
#include <xpose/hptt.h>

#include <omp.h>

#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace {

thread_local std::string last_error;

// One call's arguments, whatever its element type.
struct Request {
  xpose_type_t type;
  size_t elem_size;
  int rank;
  const int* perm;
  const int* size;
  const int* outer_a;
  const int* outer_b;
  double alpha[2];
  double beta[2];
  bool conj;
  int threads;
  bool row_major;
};

std::string at(const char* name, int i, int v) {
  return std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(v);
}

// HPTT's preconditions (it prints and exits where these fail), plus xpose's rank limit.
bool check_request(const Request& r, const void* a, const void* b, std::string* why) {
  if (r.rank < 1 || r.rank > XPOSE_MAX_RANK) {
    *why = "dim = " + std::to_string(r.rank) + " is out of range 1.." +
           std::to_string(XPOSE_MAX_RANK);
    return false;
  }
  if (!r.perm || !r.size || !a || !b) {
    *why = std::string(!r.perm ? "perm" : !r.size ? "sizeA" : !a ? "A" : "B") + " is NULL";
    return false;
  }
  std::vector<int> seen(r.rank, -1);
  for (int i = 0; i < r.rank; ++i) {
    if (r.size[i] <= 0)
      *why = at("sizeA", i, r.size[i]) + " is not positive";
    else if (r.perm[i] < 0 || r.perm[i] >= r.rank)
      *why = at("perm", i, r.perm[i]) + " is out of range";
    else if (seen[r.perm[i]] >= 0)
      *why = at("perm", i, r.perm[i]) + " repeats perm[" + std::to_string(seen[r.perm[i]]) + "]";
    if (!why->empty()) return false;
    seen[r.perm[i]] = i;
  }
  for (int i = 0; i < r.rank; ++i) {
    if (r.outer_a && r.outer_a[i] < r.size[i])
      *why = at("outerSizeA", i, r.outer_a[i]) + " is below " + at("sizeA", i, r.size[i]);
    else if (r.outer_b && r.outer_b[i] < r.size[r.perm[i]])
      *why = at("outerSizeB", i, r.outer_b[i]) + " is below " +
             at("sizeA", r.perm[i], r.size[r.perm[i]]) + " (perm[" + std::to_string(i) + "])";
    if (!why->empty()) return false;
  }
  return true;
}

// The strides (in elements, per dimension in the caller's order) of a tensor embedded in one of
// padded extents `outer`: column-major, dimension 0 is stride-1; row-major, the last one.
bool strides_of(int rank, const int* outer, bool row_major, const char* name,
                std::vector<int64_t>* s) {
  s->assign(rank, 0);
  int64_t step = 1;
  for (int k = 0; k < rank; ++k) {
    const int d = row_major ? rank - 1 - k : k;
    (*s)[d] = step;
    if (__builtin_mul_overflow(step, static_cast<int64_t>(outer[d]), &step)) {
      last_error = std::string("the product of ") + name + " overflows 64 bits";
      return false;
    }
  }
  return true;
}

// xpose's status as this interface's outcome: the message kept for xpose_hptt_last_error().
bool ok(xpose_status_t s) {
  if (s != XPOSE_SUCCESS) last_error = xpose_last_error();
  return s == XPOSE_SUCCESS;
}

struct PlanHolder {
  xpose_plan_t plan = nullptr;
  PlanHolder() = default;
  PlanHolder(const PlanHolder&) = delete;
  PlanHolder& operator=(const PlanHolder&) = delete;
  ~PlanHolder() { xpose_plan_destroy(plan); }
};

// A CPU plan of r's type: extents permuted by perm between the given strides (empty: dense),
// with r's alpha and beta when `scaled` (else a plain copy).
bool make_plan(const Request& r, const std::vector<int64_t>& extents, const int* perm,
               const std::vector<int64_t>& in_strides, const std::vector<int64_t>& out_strides,
               bool scaled, PlanHolder* out) {
  xpose_desc_t desc;
  xpose_desc_init(&desc);
  desc.in_type = desc.out_type = r.type;
  desc.in_strides = in_strides.empty() ? nullptr : in_strides.data();
  desc.out_strides = out_strides.empty() ? nullptr : out_strides.data();
  if (scaled) {
    std::memcpy(desc.alpha, r.alpha, sizeof desc.alpha);
    std::memcpy(desc.beta, r.beta, sizeof desc.beta);
  }
  xpose_options_t options;
  xpose_options_init(&options);
  options.backend = XPOSE_BACKEND_CPU;
  options.layout = r.row_major ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
  options.num_threads = r.threads > 0 ? r.threads : 0;
  return ok(xpose_plan_create_ex(&out->plan, r.rank, extents.data(), perm, r.elem_size, &desc,
                                 &options));
}

// Negates the imaginary part of each of `count` complex numbers of `Real` parts at t.
template <class Real>
void conjugate(void* t, int64_t count, int threads) {
  Real* parts = static_cast<Real*>(t);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < count; ++i) parts[2 * i + 1] = -parts[2 * i + 1];
}

// conjA: both plans made (so every check passed) before T is written, and T before B.
bool transpose_conj(const Request& r, const std::vector<int64_t>& extents,
                    const std::vector<int64_t>& in_strides,
                    const std::vector<int64_t>& out_strides, const void* a, void* b) {
  std::vector<int64_t> out_extents(r.rank);
  std::vector<int> identity(r.rank);
  int64_t volume = 1;
  for (int i = 0; i < r.rank; ++i) {
    out_extents[i] = extents[r.perm[i]];
    identity[i] = i;
    volume *= extents[i];
  }
  PlanHolder permute, scale;
  if (!make_plan(r, extents, r.perm, in_strides, {}, false, &permute) ||
      !make_plan(r, out_extents, identity.data(), {}, out_strides, true, &scale))
    return false;
  const std::unique_ptr<unsigned char[]> t(new (std::nothrow)
                                               unsigned char[volume * r.elem_size]);
  if (!t) {
    last_error = "conjA: no memory for a scratch tensor of " +
                 std::to_string(volume * r.elem_size) + " bytes";
    return false;
  }
  if (!ok(xpose_execute(permute.plan, a, t.get(), nullptr))) return false;
  const int threads = r.threads > 0 ? r.threads : omp_get_max_threads();
  if (r.type == XPOSE_TYPE_C32) conjugate<float>(t.get(), volume, threads);
  else conjugate<double>(t.get(), volume, threads);
  return ok(xpose_execute(scale.plan, t.get(), b, nullptr));
}

void transpose(const Request& r, const void* a, void* b) {
  last_error.clear();
  try {
    if (!check_request(r, a, b, &last_error)) return;
    std::vector<int64_t> in_strides, out_strides;
    if ((r.outer_a && !strides_of(r.rank, r.outer_a, r.row_major, "outerSizeA", &in_strides)) ||
        (r.outer_b && !strides_of(r.rank, r.outer_b, r.row_major, "outerSizeB", &out_strides)))
      return;
    const std::vector<int64_t> extents(r.size, r.size + r.rank);
    if (r.conj) {
      transpose_conj(r, extents, in_strides, out_strides, a, b);
      return;
    }
    PlanHolder plan;
    if (make_plan(r, extents, r.perm, in_strides, out_strides, true, &plan))
      ok(xpose_execute(plan.plan, a, b, nullptr));
  } catch (const std::bad_alloc&) {
    last_error = "out of memory";
  }
}

// A complex scalar's {re, im} (__real__ and __imag__: GCC's and Clang's, as _Complex itself).
void parts(float _Complex z, double out[2]) {
  out[0] = __real__ z;
  out[1] = __imag__ z;
}
void parts(double _Complex z, double out[2]) {
  out[0] = __real__ z;
  out[1] = __imag__ z;
}

}  // namespace

extern "C" {

void sTensorTranspose(const int* perm, const int dim, const float alpha, const float* A,
                      const int* sizeA, const int* outerSizeA, const float beta, float* B,
                      const int* outerSizeB, const int numThreads, const int useRowMajor) {
  transpose({XPOSE_TYPE_F32, sizeof(float), dim, perm, sizeA, outerSizeA, outerSizeB, {alpha, 0},
             {beta, 0}, false, numThreads, useRowMajor != 0},
            A, B);
}

void dTensorTranspose(const int* perm, const int dim, const double alpha, const double* A,
                      const int* sizeA, const int* outerSizeA, const double beta, double* B,
                      const int* outerSizeB, const int numThreads, const int useRowMajor) {
  transpose({XPOSE_TYPE_F64, sizeof(double), dim, perm, sizeA, outerSizeA, outerSizeB, {alpha, 0},
             {beta, 0}, false, numThreads, useRowMajor != 0},
            A, B);
}

void cTensorTranspose(const int* perm, const int dim, const float _Complex alpha, bool conjA,
                      const float _Complex* A, const int* sizeA, const int* outerSizeA,
                      const float _Complex beta, float _Complex* B, const int* outerSizeB,
                      const int numThreads, const int useRowMajor) {
  Request r{XPOSE_TYPE_C32, 2 * sizeof(float), dim, perm, sizeA, outerSizeA, outerSizeB, {}, {},
            conjA, numThreads, useRowMajor != 0};
  parts(alpha, r.alpha);
  parts(beta, r.beta);
  transpose(r, A, B);
}

void zTensorTranspose(const int* perm, const int dim, const double _Complex alpha, bool conjA,
                      const double _Complex* A, const int* sizeA, const int* outerSizeA,
                      const double _Complex beta, double _Complex* B, const int* outerSizeB,
                      const int numThreads, const int useRowMajor) {
  Request r{XPOSE_TYPE_C64, 2 * sizeof(double), dim, perm, sizeA, outerSizeA, outerSizeB, {}, {},
            conjA, numThreads, useRowMajor != 0};
  parts(alpha, r.alpha);
  parts(beta, r.beta);
  transpose(r, A, B);
}

const char* xpose_hptt_last_error(void) { return last_error.c_str(); }

}  // extern "C"
