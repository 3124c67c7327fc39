#include "core/problem.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>

#include "core/status.hpp"
#include "core/types.hpp"

namespace xpose::detail {
namespace {

std::string join(int rank, const auto* values) {
  std::string s = "(";
  for (int k = 0; k < rank; ++k) {
    if (k) s += ',';
    s += std::to_string(values[k]);
  }
  return s + ")";
}

}  // namespace

xpose_status_t validate_request(int rank, const int64_t* extents, const int* perm,
                                size_t elem_size) {
  const auto bad = [](std::string m) { return fail(XPOSE_ERROR_INVALID_ARGUMENT, std::move(m)); };
  if (rank < 0 || rank > kMaxRank)
    return bad("rank = " + std::to_string(rank) + " is out of range 0.." + std::to_string(kMaxRank));
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8 && elem_size != 16)
    return bad("elem_size = " + std::to_string(elem_size) + " is not one of 1, 2, 4, 8, 16");
  if (rank == 0) return XPOSE_SUCCESS;
  if (extents == nullptr) return bad("extents is NULL for rank " + std::to_string(rank));
  if (perm == nullptr) return bad("perm is NULL for rank " + std::to_string(rank));
  int seen_at[kMaxRank];
  for (int i = 0; i < rank; ++i) seen_at[i] = -1;
  const auto at = [&](int i) {  // only built on failure: validation runs on every call
    return "perm[" + std::to_string(i) + "] = " + std::to_string(perm[i]);
  };
  for (int i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= rank)
      return bad(at(i) + " is out of range for rank " + std::to_string(rank));
    if (seen_at[perm[i]] >= 0)
      return bad(at(i) + " repeats perm[" + std::to_string(seen_at[perm[i]]) +
                 "]; perm must be a permutation of 0.." + std::to_string(rank - 1));
    seen_at[perm[i]] = i;
  }
  bool empty = false;
  for (int k = 0; k < rank; ++k) {
    if (extents[k] < 0)
      return bad("extents[" + std::to_string(k) + "] = " + std::to_string(extents[k]) +
                 " is negative");
    empty = empty || extents[k] == 0;
  }
  if (empty) return XPOSE_SUCCESS;
  int64_t volume = 1;
  for (int k = 0; k < rank; ++k) {
    if (__builtin_mul_overflow(volume, extents[k], &volume))
      return bad("the volume of extents " + join(rank, extents) + " overflows 64 bits");
  }
  int64_t bytes;
  if (__builtin_mul_overflow(volume, static_cast<int64_t>(elem_size), &bytes))
    return bad("the size in bytes of extents " + join(rank, extents) + " x elem_size " +
               std::to_string(elem_size) + " overflows 64 bits");
  return XPOSE_SUCCESS;
}

void fill_dense(Problem* p) {
  p->out_elem_size = p->elem_size;
  p->strided = false;
  p->in_stride = make_compact(p->rank, p->extent.data()).stride;
  p->out_stride = p->output_strides();
  p->in_lo = p->out_lo = 0;
  p->in_hi = p->out_hi = p->volume > 0 ? p->volume - 1 : 0;
}

Layout Problem::input() const {
  Layout l = make_compact(rank, extent.data());
  if (strided) l.stride = in_stride;
  return l;
}

Extents Problem::output_strides() const {
  if (strided) return out_stride;
  Extents s{};
  int64_t stride = 1;
  for (int i = 0; i < rank; ++i) {
    s[perm[i]] = stride;
    stride *= extent[perm[i]];
  }
  return s;
}

std::string scalar_string(const double* v, bool complex) {
  char buf[64];
  if (complex)
    std::snprintf(buf, sizeof buf, "{%g, %g}", v[0], v[1]);
  else
    std::snprintf(buf, sizeof buf, "%g", v[0]);
  return buf;
}

std::string Problem::to_string() const {
  std::string s = "extents " + join(rank, extent.data()) + " perm " + join(rank, perm.data());
  if (strided)
    s += " in_strides " + join(rank, in_stride.data()) + " out_strides " +
         join(rank, out_stride.data());
  if (!typed()) return s + " " + std::to_string(elem_size) + " B";
  s += std::string(" ") + type_info(in_type).name;
  if (converts()) s += std::string("->") + type_info(out_type).name;
  const bool complex = type_info(in_type).kind == TypeKind::Complex;
  const auto scalar = [&](const double* v) { return scalar_string(v, complex); };
  if (alpha[0] != 1 || alpha[1] != 0) s += " alpha " + scalar(alpha);
  if (reads_out()) s += " beta " + scalar(beta);
  return s;
}

size_t hash_value(const Problem& p) {
  size_t h = std::hash<int64_t>{}(p.volume) ^ (p.elem_size * 0x9e3779b97f4a7c15ull);
  for (int k = 0; k < p.rank; ++k) {
    h = h * 1099511628211ull ^ std::hash<int64_t>{}(p.extent[k]);
    h = h * 1099511628211ull ^ static_cast<size_t>(p.perm[k]);
    if (p.strided) {
      h = h * 1099511628211ull ^ std::hash<int64_t>{}(p.in_stride[k]);
      h = h * 1099511628211ull ^ std::hash<int64_t>{}(p.out_stride[k]);
    }
  }
  if (p.typed()) {
    h = h * 1099511628211ull ^ (static_cast<size_t>(p.in_type) << 8 | p.out_type);
    for (double v : {p.alpha[0], p.alpha[1], p.beta[0], p.beta[1]}) {
      uint64_t bits;  // bits, as Scalar compares them (std::hash takes -0.0 for +0.0)
      std::memcpy(&bits, &v, sizeof bits);
      h = h * 1099511628211ull ^ std::hash<uint64_t>{}(bits);
    }
  }
  return h;
}

xpose_status_t make_problem(int rank, const int64_t* extents, const int* perm, size_t elem_size,
                            xpose_layout_t layout, Problem* out) {
  XPOSE_TRY(validate_request(rank, extents, perm, elem_size));
  Problem p;
  p.elem_size = elem_size;
  // Column-major extents and permutation; row-major is the same tensor with its dims reversed.
  int64_t ext[kMaxRank];
  int prm[kMaxRank];
  for (int k = 0; k < rank; ++k) {
    const bool rm = layout == XPOSE_ROW_MAJOR;
    ext[k] = rm ? extents[rank - 1 - k] : extents[k];
    prm[k] = rm ? rank - 1 - perm[rank - 1 - k] : perm[k];
  }
  // An empty tensor's other extents may multiply past 64 bits (validate() checks the volume of
  // non-empty ones only), so its volume is 0 without a product.
  const bool empty = std::find(ext, ext + rank, int64_t{0}) != ext + rank;
  p.volume = empty ? 0 : 1;
  for (int k = 0; k < rank && !empty; ++k) p.volume *= ext[k];
  if (empty) {
    fill_dense(&p);
    *out = p;
    return XPOSE_SUCCESS;
  }
  // Index fusion is coalescing the gather layout; the input order of the surviving modes is the
  // order of their input strides.
  const Layout g = coalesce(permute(make_compact(rank, ext), prm));
  p.rank = g.rank;
  for (int i = 0; i < g.rank; ++i) {
    int position = 0;  // how many modes have a smaller input stride
    for (int j = 0; j < g.rank; ++j) position += g.stride[j] < g.stride[i];
    p.perm[i] = position;
    p.extent[position] = g.extent[i];
  }
  fill_dense(&p);
  *out = p;
  return XPOSE_SUCCESS;
}

xpose_status_t resolve_options(const xpose_options_t* options, xpose_options_t* out) {
  xpose_options_t o;
  xpose_options_init(&o);
  if (options != nullptr) std::memcpy(&o, options, sizeof o);
  const auto bad = [](const char* field, int value, const char* why) {
    return fail(XPOSE_ERROR_INVALID_ARGUMENT,
                std::string("options->") + field + " = " + std::to_string(value) + " " + why);
  };
  const int backend = raw_enum(o.backend), layout = raw_enum(o.layout),
            planning = raw_enum(o.planning);
  if (backend != XPOSE_BACKEND_AUTO && backend != XPOSE_BACKEND_CPU &&
      backend != XPOSE_BACKEND_CUDA)
    return bad("backend", backend, "is not AUTO (0), CPU (1) or CUDA (2)");
  if (layout != XPOSE_COL_MAJOR && layout != XPOSE_ROW_MAJOR)
    return bad("layout", layout, "is not COL_MAJOR (0) or ROW_MAJOR (1)");
  if (planning != XPOSE_PLAN_HEURISTIC && planning != XPOSE_PLAN_MEASURE)
    return bad("planning", planning, "is not HEURISTIC (0) or MEASURE (1)");
  if (o.num_threads < 0) return bad("num_threads", o.num_threads, "is negative (0 = all threads)");
  if (o.device < -1) return bad("device", o.device, "is below -1 (-1 = the current device)");
  *out = o;
  return XPOSE_SUCCESS;
}

xpose_status_t check_buffers(const Problem& p, const void* in, const void* out) {
  if (p.volume == 0) return XPOSE_SUCCESS;
  if (in == nullptr) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "in is NULL");
  if (out == nullptr) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "out is NULL");
  // Byte ranges [lo, hi) each tensor reaches (make_problem_ex checked the offsets fit in 64 bits;
  // with the address they may not, hence 128 bits).
  const auto range = [](const void* base, int64_t lo, int64_t hi, size_t elem, __int128* r) {
    const auto b = static_cast<__int128>(reinterpret_cast<uintptr_t>(base));
    r[0] = b + static_cast<__int128>(lo) * static_cast<__int128>(elem);
    r[1] = b + static_cast<__int128>(hi + 1) * static_cast<__int128>(elem);
  };
  __int128 a[2], b[2];
  range(in, p.in_lo, p.in_hi, p.elem_size, a);
  range(out, p.out_lo, p.out_hi, p.out_elem(), b);
  if (a[0] < b[1] && b[0] < a[1])
    return fail(XPOSE_ERROR_INVALID_ARGUMENT,
                "in and out overlap (" + std::to_string(static_cast<int64_t>(a[1] - a[0])) +
                    " and " + std::to_string(static_cast<int64_t>(b[1] - b[0])) +
                    " bytes reached); transposition is out-of-place");
  return XPOSE_SUCCESS;
}

}  // namespace xpose::detail
