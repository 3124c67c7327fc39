// libFuzzer target: the HPTT drop-in (include/xpose/hptt.h, src/dropin/hptt.cpp) with hostile and
// small valid arguments: dim -1..6, sizes and outer sizes valid (small) or not (<= 0, an outer
// size below its size), perms that are not permutations, NULL arrays, any thread count, both
// layouts, the four element types with scalars from edges (NaN, inf, -0) and conjA. An accepted
// call must equal the naive reference (tests/typed_reference.hpp, with A conjugated first for
// conjA) and write nothing outside B's reach; a refused one must leave B untouched and say why.
// XPOSE_FUZZ_DEBUG=1 prints the call whose result differs.
#include <complex>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "hostile_args.hpp"
#include "reference.hpp"
#include "typed_reference.hpp"
#include "xpose/hptt.h"

using namespace xpose_fuzz;

namespace {

struct Call {
  int dim = 0;
  std::vector<int> perm, size, outer_a, outer_b;
  bool null_perm = false, null_size = false, has_outer_a = false, has_outer_b = false;
  bool valid = true;  // every argument valid: the call must succeed (scalars aside)
};

int draw_size(FuzzedDataProvider& in, Call* c) {
  if (in.ConsumeIntegralInRange<int>(0, 15) > 0) return in.ConsumeIntegralInRange<int>(1, 6);
  c->valid = false;
  return in.ConsumeIntegralInRange<int>(-3, 0);
}

int draw_outer(FuzzedDataProvider& in, int size, Call* c) {
  if (in.ConsumeIntegralInRange<int>(0, 15) > 0) return size + in.ConsumeIntegralInRange<int>(0, 3);
  c->valid = false;
  return size - in.ConsumeIntegralInRange<int>(1, 3);
}

Call draw_call(FuzzedDataProvider& in) {
  Call c;
  c.dim = in.ConsumeIntegralInRange<int>(-1, 6);
  if (c.dim < 1) c.valid = false;
  const int n = c.dim < 0 ? 0 : c.dim;
  for (int k = 0; k < n; ++k) c.size.push_back(draw_size(in, &c));
  c.perm = permutation(in, n);
  if (n > 0 && in.ConsumeIntegralInRange<int>(0, 15) == 0) {
    c.perm[in.ConsumeIntegralInRange<int>(0, n - 1)] = in.ConsumeIntegralInRange<int>(-1, n);
  }
  c.has_outer_a = in.ConsumeBool();
  c.has_outer_b = in.ConsumeBool();
  Call unused;  // an outer size below its size matters only where outer sizes are passed
  for (int k = 0; k < n; ++k)
    c.outer_a.push_back(draw_outer(in, c.size[k], c.has_outer_a ? &c : &unused));
  for (int i = 0; i < n; ++i) {
    const int p = c.perm[i] >= 0 && c.perm[i] < n ? c.perm[i] : 0;
    c.outer_b.push_back(draw_outer(in, c.size[p], c.has_outer_b ? &c : &unused));
  }
  std::vector<bool> seen(n, false);
  bool is_perm = true;
  for (int i = 0; i < n; ++i) {
    const int p = c.perm[i];
    is_perm = is_perm && p >= 0 && p < n && !seen[p];
    if (p >= 0 && p < n) seen[p] = true;
  }
  c.valid = c.valid && is_perm;
  c.null_perm = in.ConsumeIntegralInRange<int>(0, 31) == 0;
  c.null_size = in.ConsumeIntegralInRange<int>(0, 31) == 0;
  if (c.null_perm || c.null_size) c.valid = false;
  // Arrays addressable at dim 0, as a C caller's would be.
  for (auto* v : {&c.perm, &c.size, &c.outer_a, &c.outer_b}) v->push_back(1);
  return c;
}

// Elements a tensor with these (outer) extents spans; 1 when any is not positive (the call must
// then be refused, and B is one poisoned element).
int64_t span(const std::vector<int>& ext, int n) {
  int64_t v = 1;
  for (int k = 0; k < n; ++k) {
    if (ext[k] <= 0) return 1;
    v *= ext[k];
  }
  return v;
}

// Dense strides of `outer` in the layout (HPTT's padded tensors).
std::vector<int64_t> strides(const std::vector<int>& outer, int n, bool row_major) {
  std::vector<int64_t> s(n);
  int64_t v = 1;
  for (int j = 0; j < n; ++j) {
    const int k = row_major ? n - 1 - j : j;
    s[k] = v;
    v *= outer[k];
  }
  return s;
}

template <class T>
void call_hptt(const Call& c, T alpha, bool conj, const void* a, T beta, void* b,
               int threads, int row_major) {
  const int* perm = c.null_perm ? nullptr : c.perm.data();
  const int* size = c.null_size ? nullptr : c.size.data();
  const int* oa = c.has_outer_a ? c.outer_a.data() : nullptr;
  const int* ob = c.has_outer_b ? c.outer_b.data() : nullptr;
  if constexpr (sizeof(T) == 4) {
    sTensorTranspose(perm, c.dim, alpha, static_cast<const float*>(a), size, oa, beta,
                     static_cast<float*>(b), ob, threads, row_major);
  } else if constexpr (sizeof(T) == 8 && std::is_same_v<T, double>) {
    dTensorTranspose(perm, c.dim, alpha, static_cast<const double*>(a), size, oa, beta,
                     static_cast<double*>(b), ob, threads, row_major);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    float _Complex al, be;  // the same layout as std::complex<float>
    std::memcpy(&al, &alpha, sizeof al);
    std::memcpy(&be, &beta, sizeof be);
    cTensorTranspose(perm, c.dim, al, conj, static_cast<const float _Complex*>(a), size, oa, be,
                     static_cast<float _Complex*>(b), ob, threads, row_major);
  } else {
    double _Complex al, be;
    std::memcpy(&al, &alpha, sizeof al);
    std::memcpy(&be, &beta, sizeof be);
    zTensorTranspose(perm, c.dim, al, conj, static_cast<const double _Complex*>(a), size, oa, be,
                     static_cast<double _Complex*>(b), ob, threads, row_major);
  }
}

template <class T>
void run(FuzzedDataProvider& in, const Call& c, xpose_type_t type) {
  const int n = c.dim < 0 ? 0 : c.dim;
  const bool row_major = in.ConsumeBool();
  const int threads = in.ConsumeIntegralInRange<int>(-1, 3);
  const bool complex = type == XPOSE_TYPE_C32 || type == XPOSE_TYPE_C64;
  const bool conj = complex && in.ConsumeBool();
  double s[4];
  for (double& v : s) v = in.ConsumeIntegralInRange<int>(0, 3) == 0 ? hostile_scalar(in)
                                                                    : in.ConsumeIntegralInRange<int>(-2, 2);
  T alpha, beta;
  if constexpr (std::is_floating_point_v<T>) alpha = static_cast<T>(s[0]), beta = static_cast<T>(s[2]);
  else alpha = T(s[0], s[1]), beta = T(s[2], s[3]);

  const std::vector<int>& oa = c.has_outer_a ? c.outer_a : c.size;
  std::vector<int> size_b(n + 1, 1);
  for (int i = 0; i < n; ++i) size_b[i] = c.size[c.perm[i] >= 0 && c.perm[i] < n ? c.perm[i] : 0];
  const std::vector<int>& ob = c.has_outer_b ? c.outer_b : size_b;
  const size_t a_bytes = static_cast<size_t>(span(oa, n)) * sizeof(T);
  const size_t b_bytes = static_cast<size_t>(span(ob, n)) * sizeof(T);
  xpose_test::GuardedBuffer a(a_bytes), b(b_bytes), want(b_bytes);
  xpose_test::fill_random(a.data(), a_bytes, in.ConsumeIntegral<uint64_t>());
  xpose_test::fill_random(b.data(), b_bytes, in.ConsumeIntegral<uint64_t>());
  std::memcpy(want.data(), b.data(), b_bytes);
  const std::vector<unsigned char> before(b.data(), b.data() + b_bytes);
  // Padded elements of B keep their bytes: the reference writes the sub-tensor only.
  if (c.valid) {
    xpose_test::TypedCase t;
    t.extents.assign(c.size.begin(), c.size.begin() + n);
    t.perm.assign(c.perm.begin(), c.perm.begin() + n);
    t.in_type = t.out_type = type;
    t.elem_size = sizeof(T);
    t.in_strides = strides(oa, n, row_major);
    t.out_strides = strides(ob, n, row_major);
    // The scalars the library receives: rounded to T's precision by the call.
    const auto part = [](const T& v, int k) -> double {
      if constexpr (std::is_floating_point_v<T>) return k == 0 ? v : 0;
      else return k == 0 ? v.real() : v.imag();
    };
    for (int k = 0; k < 2; ++k) t.alpha[k] = part(alpha, k), t.beta[k] = part(beta, k);
    t.layout = row_major ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
    std::vector<unsigned char> src(a.data(), a.data() + a_bytes);
    if (conj)  // op(A) = conj(A): the imaginary parts' sign bits flipped, exactly
      for (size_t e = 0; e < a_bytes / sizeof(T); ++e)
        src[e * sizeof(T) + sizeof(T) - 1] ^= 0x80;
    xpose_test::reference_typed(t, src.data(), want.data());
  }
  call_hptt<T>(c, alpha, conj, a.data(), beta, b.data(), threads, row_major);
  const bool accepted = xpose_hptt_last_error()[0] == '\0';
  require(b.guards_intact(), "nothing written outside B");
  const bool nan_scalar =
      s[0] != s[0] || s[2] != s[2] || (complex && (s[1] != s[1] || s[3] != s[3]));
  if (c.valid && !nan_scalar) require(accepted, "a valid call succeeds");
  if (!accepted) {
    require(std::memcmp(b.data(), before.data(), b_bytes) == 0, "a refused call leaves B untouched");
    return;
  }
  require(c.valid, "an invalid call is refused");
  if (std::getenv("XPOSE_FUZZ_DEBUG") && std::memcmp(b.data(), want.data(), b_bytes) != 0) {
    std::fprintf(stderr, "dim %d type %d conj %d row %d threads %d outer %d %d alpha %g %g "
                 "beta %g %g\n", c.dim, type, conj, row_major, threads, c.has_outer_a,
                 c.has_outer_b, s[0], s[1], s[2], s[3]);
    for (int k = 0; k < n; ++k)
      std::fprintf(stderr, "  size %d perm %d outer_a %d outer_b %d\n", c.size[k], c.perm[k],
                   c.outer_a[k], c.outer_b[k]);
  }
  require(std::memcmp(b.data(), want.data(), b_bytes) == 0, "B equals the reference");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const Call c = draw_call(in);
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: run<float>(in, c, XPOSE_TYPE_F32); break;
    case 1: run<double>(in, c, XPOSE_TYPE_F64); break;
    case 2: run<std::complex<float>>(in, c, XPOSE_TYPE_C32); break;
    default: run<std::complex<double>>(in, c, XPOSE_TYPE_C64); break;
  }
  return 0;
}
