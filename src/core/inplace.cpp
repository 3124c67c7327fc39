// xpose_transpose_inplace: the same validation as xpose_transpose (make_problem,
// resolve_options), then classification of the normalized problem (every supported request is
// one swap of two equal dimensions, see InplaceRequest) and dispatch to a backend. Bad input
// returns before anything touches `data`.
#include "core/backend.hpp"
#include "core/plan.hpp"
#include "core/problem.hpp"
#include "core/status.hpp"
#include "inplace/inplace.hpp"
#include "inplace/pairing.hpp"

namespace xpose::detail {
namespace {

constexpr const char* kSupported =
    "in-place transposition supports only requests that, after normalization (extent-1 "
    "dimensions dropped, adjacent dimensions fused), are the identity or swap two dimensions of "
    "equal extent and keep the others: square matrices (n,n) perm {1,0} and batches of them, "
    "perm {1,0,2} with extents[0] == extents[1] (T_yxz), perm {2,1,0} with "
    "extents[0] == extents[2] (T_zyx), perm {0,2,1} with extents[1] == extents[2]";

xpose_status_t check_force(const InplaceForce& f) {
  if (f.scheme < -1 || f.scheme > static_cast<int>(pairing::Scheme::kSuperGrid))
    return fail(XPOSE_ERROR_INVALID_ARGUMENT,
                "in-place scheme " + std::to_string(f.scheme) + " is unknown");
  if (f.w < 0 || f.region < 0)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, "in-place band width and region must be >= 0");
  return XPOSE_SUCCESS;
}

xpose_status_t run(int rank, const int64_t* extents, const int* perm, size_t elem_size,
                   void* data, const xpose_options_t* options, void* stream,
                   const InplaceForce* force) {
  xpose_options_t o;
  XPOSE_TRY(resolve_options(options, &o));
  Problem p;
  XPOSE_TRY(make_problem(rank, extents, perm, elem_size, o.layout, &p));
  const InplaceForce f = force ? *force : InplaceForce{};
  XPOSE_TRY(check_force(f));
  if (p.volume == 0) return XPOSE_SUCCESS;
  if (data == nullptr) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "data is NULL");
  bool identity = false;
  InplaceRequest r;
  if (!classify_inplace(p, &identity, &r))
    return fail(XPOSE_ERROR_UNSUPPORTED,
                std::string(kSupported) + "; this request normalizes to " + p.to_string());
  XPOSE_TRY(choose_backend(&o));
  if (identity) return XPOSE_SUCCESS;
  r.scheme = f.scheme;
  r.w = f.w;
  r.region = f.region;
  r.cpu_isa = f.cpu_isa;
  if (o.backend == XPOSE_BACKEND_CUDA) return cuda_transpose_inplace(r, o, data, stream);
  return cpu_transpose_inplace(r, o, data);
}

}  // namespace

bool classify_inplace(const Problem& p, bool* identity, InplaceRequest* r) {
  *identity = p.rank <= 1;
  if (*identity) return true;
  int moved[kMaxRank], count = 0;
  for (int k = 0; k < p.rank; ++k)
    if (p.perm[k] != k) moved[count++] = k;
  if (count != 2) return false;
  const int i = moved[0], j = moved[1];
  if (p.perm[i] != j || p.perm[j] != i || p.extent[i] != p.extent[j]) return false;
  r->elem_size = p.elem_size;
  r->n = p.extent[i];
  r->inner = r->mid = r->outer = 1;
  for (int k = 0; k < i; ++k) r->inner *= p.extent[k];
  for (int k = i + 1; k < j; ++k) r->mid *= p.extent[k];
  for (int k = j + 1; k < p.rank; ++k) r->outer *= p.extent[k];
  return true;
}

xpose_status_t transpose_inplace(int rank, const int64_t* extents, const int* perm,
                                 size_t elem_size, void* data, const xpose_options_t* options,
                                 void* stream, const InplaceForce* force) {
  return guarded([&] { return run(rank, extents, perm, elem_size, data, options, stream, force); });
}

int inplace_scheme_from_name(const std::string& name) {
  for (int s = 0; s <= static_cast<int>(pairing::Scheme::kSuperGrid); ++s)
    if (name == inplace_scheme_name(s)) return s;
  return -1;
}

const char* inplace_scheme_name(int scheme) {
  switch (static_cast<pairing::Scheme>(scheme)) {
    case pairing::Scheme::kV1: return "v1";
    case pairing::Scheme::kV1R: return "v1r";
    case pairing::Scheme::kV1B: return "v1b";
    case pairing::Scheme::kFull: return "full";
    case pairing::Scheme::kSuperGrid: return "sg";
  }
  return "auto";
}

}  // namespace xpose::detail

extern "C" xpose_status_t xpose_transpose_inplace(int rank, const int64_t* extents,
                                                  const int* perm, size_t elem_size, void* data,
                                                  const xpose_options_t* options, void* stream) {
  return xpose::detail::transpose_inplace(rank, extents, perm, elem_size, data, options, stream,
                                          nullptr);
}
