// The CUDA backend's entry points (core/backend.hpp): planning, the plan value and execute.
// Host C++ without CUDA headers; launches go through cuda/runtime.hpp.
//
// A plan holds up to three views of the problem, tried in order at execute time by the
// alignment of the two pointers: (1) for a leading dimension that stays, w elements fused into
// one wider element (up to 16 bytes), for pointers aligned to the wider element; (2) the problem
// as given, for pointers aligned to the element size. Row kernels pick their access width at
// execute time, so a view planned as rows ends the list; any other pointers run the last
// (tiled) view's tile with elements moved in pieces as wide as the pointers allow (launch_tiled's
// `log2_piece`), so no view is planned for them. Typed problems (no fused view): the tile, the
// same tile without 4-byte groups where the first needs 4-byte pointers, and the general kernel
// for pointers off their element sizes; typed rows (rows_typed.cu), for pointers that are
// multiples of their element sizes, then the general kernel.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

#include "core/backend.hpp"
#include "core/status.hpp"
#include "cuda/host_plan.hpp"
#include "cuda/planner.hpp"
#include "cuda/probe.hpp"
#include "cuda/runtime.hpp"

namespace xpose::detail {
namespace {

// Measure planning times the model's best few (its first choice, the heuristic plan, among
// them) and keeps the heuristic plan unless another is faster by more than the margin: single
// timings of one case spread by several percent (docs/perf/cuda-h100.md, run 5), so a
// measured plan should never lose to the heuristic one by noise.
constexpr int kMeasureTop = 4;
constexpr int kMeasureReps = 7;
constexpr double kMeasureMargin = 0.02;
// Strided problems are measured where each tensor's reach (the scratch buffer it needs) is at
// most this many times its elements' bytes; a small block of a huge tensor is planned by the
// model instead of allocating the huge tensor's span.
constexpr uint64_t kMeasureSpanFactor = 4;

// The scratch of a tensor that reaches elements [lo, hi] (lo <= 0 <= hi) of `esize` bytes: its
// pointer 16-byte aligned, the elements of negative strides before it. False where the reach is
// over kMeasureSpanFactor times `volume` elements or its bytes overflow (hostile sizes).
bool scratch_for(int64_t lo, int64_t hi, size_t esize, int64_t volume, Scratch* s) {
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span / kMeasureSpanFactor >= static_cast<uint64_t>(volume)) return false;
  const auto es = static_cast<int64_t>(esize);
  int64_t before = 0, end = 0;
  if (__builtin_mul_overflow(lo, -es, &before) || __builtin_add_overflow(before, 15, &before) ||
      __builtin_add_overflow(hi, 1, &end) || __builtin_mul_overflow(end, es, &end))
    return false;
  s->offset = before / 16 * 16;
  return !__builtin_add_overflow(s->offset, end, &s->bytes);
}

bool measurable(const Problem& p) {
  Scratch in, out;
  return scratch_for(p.in_lo, p.in_hi, p.elem_size, p.volume, &in) &&
         scratch_for(p.out_lo, p.out_hi, p.out_elem(), p.volume, &out);
}

// Which view of the plan's problem: fused_view's, or the problem as given.
enum class ViewKind { Fused, Given };

struct View {
  size_t align = 1;      // both pointers must be multiples of this
  size_t out_align = 0;  // typed views: the output's own (0: align)
  ViewKind kind = ViewKind::Given;
  KernelSpec spec;
};

bool is_rows(const KernelSpec& s) { return is_rows(s.choice.schema); }
bool is_direct(const KernelSpec& s) { return is_direct(s.choice.schema); }
bool is_general(const KernelSpec& s) { return is_direct(s) && s.choice.general; }
// narrow2d's block in wide2d.cu's tile.
bool wide2d(const KernelSpec& s) { return s.choice.narrow2d && s.choice.wide2d; }

// `unaligned`: the pointers need not be multiples of the element size (tiled kernels: elements
// move in the widest pieces that both pointers allow).
xpose_status_t launch_spec(const KernelSpec& s, int device, const void* in, void* out,
                           void* stream, bool unaligned = false) {
  // log2 of the widest power of two (at most 2^cap) that divides both pointers and `more`.
  const auto width = [&](uint64_t more, int cap) {
    const uint64_t bits =
        reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out) | more;
    return bits == 0 ? cap : std::min(cap, std::countr_zero(bits));
  };
  if (is_general(s)) return launch_general(s.general, in, out, stream, s.choice.grid);
  if (is_direct(s))
    return launch_direct(s.direct, s.log2_elem, width(0, s.log2_elem), in, out, stream,
                         s.choice.grid);
  if (is_rows(s))
    return launch_rows(s.rows, width(static_cast<uint64_t>(s.rows.row_bytes), 4), in, out,
                       stream, s.choice.grid);
  if (wide2d(s))
    return launch_wide2d(s.narrow2d, s.log2_elem, width(0, std::max(2, s.log2_elem)), in, out,
                         stream, s.choice.grid);
  if (s.choice.cells)
    return launch_cells(s.cells, 1 << s.log2_elem, in, out, stream, s.choice.grid);
  if (s.choice.narrow2d && s.choice.thin)
    return launch_thin2d(s.narrow2d, 1 << s.log2_elem, in, out, stream, s.choice.grid,
                         s.smem_bytes);
  if (s.choice.narrow2d)
    return launch_narrow2d(s.narrow2d, 1 << s.log2_elem, in, out, stream, s.choice.grid);
  if (s.choice.narrow)
    return launch_narrow(s.narrow, 1 << s.log2_elem, in, out, stream, s.choice.grid, device);
  if (!unaligned)
    return launch_tiled(s.tiled, s.log2_elem, in, out, stream, s.choice.grid,
                        static_cast<unsigned>(s.choice.threads), s.smem_bytes);
  // In pieces, the read phase goes through registers: one buffer.
  return launch_tiled(s.tiled, s.log2_elem, in, out, stream, s.choice.grid,
                      static_cast<unsigned>(s.choice.threads),
                      static_cast<unsigned>(s.tiled.buffer_elems) << s.log2_elem,
                      width(0, s.log2_elem - 1));
}

// A parameter block as a plan keeps it: cut after its last grid (row) dimension in use, since
// what follows is what build_spec leaves there (a value-initialized block). A rank-8 tiled view
// keeps ~1.3 of its 2.6 KB. Plans live in the plan cache, where their size is what keeping them
// costs (fresh pages, a fault each). The dims arrays are last (asserted), so a cut block holds
// every scalar member.
static_assert(offsetof(TiledParams, grid) + sizeof(TiledParams::grid) == sizeof(TiledParams));
static_assert(offsetof(RowParams, dim) + sizeof(RowParams::dim) == sizeof(RowParams));
static_assert(offsetof(NarrowParams, grid) + sizeof(NarrowParams::grid) ==
              sizeof(NarrowParams));
static_assert(offsetof(Narrow2dParams, grid) + sizeof(Narrow2dParams::grid) ==
              sizeof(Narrow2dParams));
static_assert(offsetof(CellParams, grid) + sizeof(CellParams::grid) == sizeof(CellParams));
static_assert(offsetof(DirectParams, dim) + sizeof(DirectParams::dim) == sizeof(DirectParams));

static_assert(offsetof(GeneralParams, dim) + sizeof(GeneralParams::dim) ==
              sizeof(GeneralParams));

size_t kept_size(const KernelSpec& s) {
  if (is_general(s)) return offsetof(GeneralParams, dim) + s.general.n_dims * sizeof(GeneralDim);
  if (is_direct(s)) return offsetof(DirectParams, dim) + s.direct.n_dims * sizeof(DirectDim);
  if (is_rows(s)) return offsetof(RowParams, dim) + s.rows.n_dims * sizeof(RowDim);
  if (s.choice.cells) return offsetof(CellParams, grid) + s.cells.n_grid * sizeof(GridDim);
  if (s.choice.narrow2d)
    return offsetof(Narrow2dParams, grid) + s.narrow2d.n_grid * sizeof(GridDim);
  if (s.choice.narrow) return offsetof(NarrowParams, grid) + s.narrow.n_grid * sizeof(GridDim);
  return offsetof(TiledParams, grid) + s.tiled.n_grid * sizeof(GridDim);
}

// The parameter block of a spec (const or not): the union's member its kernel reads.
template <class Spec>
auto* block_of(Spec& s) {
  using Block = std::conditional_t<std::is_const_v<Spec>, const void, void>;
  if (is_general(s)) return static_cast<Block*>(&s.general);
  if (is_direct(s)) return static_cast<Block*>(&s.direct);
  if (is_rows(s)) return static_cast<Block*>(&s.rows);
  if (s.choice.cells) return static_cast<Block*>(&s.cells);
  if (s.choice.narrow2d) return static_cast<Block*>(&s.narrow2d);
  if (s.choice.narrow) return static_cast<Block*>(&s.narrow);
  return static_cast<Block*>(&s.tiled);
}

// A view as a plan keeps it: what execute and describe need, its block in the plan's `blocks`.
struct KeptView {
  size_t align = 1, out_align = 1;
  ViewKind kind = ViewKind::Given;
  Choice choice;
  int log2_elem = 0;
  unsigned smem_bytes = 0;
  size_t offset = 0, size = 0;  // of the parameter block
};

// The problem of a view of `p` (describe() re-derives them; the plan keeps only `p`).
Problem view_problem(const Problem& p, ViewKind kind);

class CudaPlan final : public BackendPlan {
 public:
  CudaPlan(int device, const Problem& p, const std::vector<View>& views, std::string notes)
      : device_(device), problem_(p), notes_(std::move(notes)) {
    size_t bytes = 0;
    for (const View& v : views) bytes += kept_size(v.spec);
    blocks_.reset(new unsigned char[bytes]);
    size_t offset = 0;
    for (const View& v : views) {
      KeptView& k = views_[n_views_++];
      k.align = v.align;
      k.out_align = v.out_align ? v.out_align : v.align;
      k.kind = v.kind;
      k.choice = v.spec.choice;
      k.log2_elem = v.spec.log2_elem;
      k.smem_bytes = v.spec.smem_bytes;
      k.offset = offset;
      k.size = kept_size(v.spec);
      std::memcpy(blocks_.get() + offset, block_of(v.spec), k.size);
      offset += k.size;
    }
  }

  xpose_status_t execute(const void* in, void* out, void* stream) const override {
    DeviceGuard guard(device_);
    XPOSE_TRY(guard.status());
    bool unaligned = false;
    const KeptView& v = view_for(in, out, &unaligned);
    return launch_spec(unpack(v), device_, in, out, stream, unaligned);
  }

  std::string runs_for(const void* in, const void* out) const override {
    bool unaligned = false;
    const KeptView& v = view_for(in, out, &unaligned);
    return summarize(view_problem(problem_, v.kind), v.choice) + (unaligned ? " in pieces" : "");
  }

  // The prediction for aligned pointers (the first view), which the planner ranked.
  double predicted_seconds() const override { return views_[0].choice.predicted; }

  // Each view, in the order execute tries them (host_plan.hpp).
  std::vector<PlanView> views() const {
    std::vector<PlanView> out(n_views_);
    for (int i = 0; i < n_views_; ++i) {
      out[i].align = views_[i].align;
      out[i].out_align = views_[i].out_align;
      out[i].problem = view_problem(problem_, views_[i].kind);
      out[i].spec = unpack(views_[i]);
    }
    if (out.back().align > 1) {  // the last view again, in pieces, for any pointer
      out.push_back(out.back());
      out.back().align = out.back().out_align = 1;
      out.back().unaligned = true;
    }
    return out;
  }

  std::string describe() const override {
    const Problem q0 = view_problem(problem_, views_[0].kind);
    std::string s = summarize(q0, views_[0].choice) + "\n";
    const DeviceInfo* dev = device_info(device_, nullptr);
    const double bytes = static_cast<double>(q0.bytes());
    // Narrow tiles (and plans without a model file) are ranked by the analytic model.
    const std::string by =
        views_[0].choice.model
            ? process_models().status(dev ? dev->arch : 0, dev ? dev->name : "", bytes)
            : std::string("the analytic model");
    s += "predicted " + std::to_string(views_[0].choice.predicted * 1e6) + " us on device " +
         std::to_string(device_) + " by " + by + "\n";
    for (int i = 0; i < n_views_; ++i) {
      const Problem q = view_problem(problem_, views_[i].kind);
      const KeptView& v = views_[i];
      s += (v.out_align == v.align
                ? "pointers aligned to " + std::to_string(v.align) + " B: "
                : "input aligned to " + std::to_string(v.align) + " B, output to " +
                      std::to_string(v.out_align) + " B: ") +
           summarize(q, v.choice) + " on " + q.to_string() + "\n";
    }
    if (views_[n_views_ - 1].align > 1)
      s += "other pointers: the last tile, elements moved in pieces of the pointers' alignment\n";
    return s + notes_;
  }

 private:
  // The first view whose alignments both pointers meet; else the last, its tile moving elements
  // in pieces (`unaligned`).
  const KeptView& view_for(const void* in, const void* out, bool* unaligned) const {
    const auto fits = [&](const KeptView& v) {
      return reinterpret_cast<uintptr_t>(in) % v.align == 0 &&
             reinterpret_cast<uintptr_t>(out) % v.out_align == 0;
    };
    int i = 0;
    while (i + 1 < n_views_ && !fits(views_[i])) ++i;
    *unaligned = !fits(views_[i]);
    return views_[i];
  }

  // The view's kernel spec, its block whole again (the cut-off part value-initialized, as
  // build_spec left it): on the stack at execute, a copy of at most 2.6 KB.
  KernelSpec unpack(const KeptView& v) const {
    KernelSpec s;  // its tiled block value-initialized
    s.choice = v.choice;
    s.log2_elem = v.log2_elem;
    s.smem_bytes = v.smem_bytes;
    if (is_direct(v.choice.schema) && v.choice.general)
      s.general = GeneralParams{};  // the union's member in use from here on
    else if (is_direct(v.choice.schema))
      s.direct = DirectParams{};
    else if (is_rows(v.choice.schema))
      s.rows = RowParams{};
    else if (v.choice.cells)
      s.cells = CellParams{};
    else if (v.choice.narrow2d)
      s.narrow2d = Narrow2dParams{};
    else if (v.choice.narrow)
      s.narrow = NarrowParams{};
    std::memcpy(block_of(s), blocks_.get() + v.offset, v.size);
    return s;
  }

  int device_;
  Problem problem_;
  int n_views_ = 0;
  KeptView views_[3];  // typed: the tile, without groups, the general kernel
  std::unique_ptr<unsigned char[]> blocks_;
  std::string notes_;
};

// The problem re-viewed with w leading elements fused into one (perm[0] == 0, w | extent[0]).
bool fused_view(const Problem& p, Problem* q, size_t* align) {
  if (p.rank < 2 || p.perm[0] != 0 || !p.plain()) return false;
  int64_t w = 1;
  while (p.elem_size * w * 2 <= 16 && p.extent[0] % (w * 2) == 0) w *= 2;
  if (w == 1) return false;
  Extents e = p.extent;
  e[0] /= w;
  if (make_problem(p.rank, e.data(), p.perm.data(), p.elem_size * w, XPOSE_COL_MAJOR, q) !=
      XPOSE_SUCCESS)
    return false;
  *align = p.elem_size * w;
  return true;
}

Problem view_problem(const Problem& p, ViewKind kind) {
  Problem q = p;
  size_t align = 0;
  if (kind == ViewKind::Fused) fused_view(p, &q, &align);
  return q;
}

std::string why_not(const Problem& p, const SchemaRequest& req) {
  std::string s = "schema '" + req.text + "' does not apply to the normalized problem " +
                  p.to_string() + ": ";
  const unsigned m = req.mask;
  if (!p.plain() && m == unsigned(Schema::Copy))
    return s + "copy moves plain problems only (no strides, types or scalars)";
  if (!p.typed() && p.strided && (m & unsigned(Schema::Rows)) == m)
    return s + "rows move dense plain problems and typed ones (strided plain ones take tiles)";
  if (p.typed() && (m & unsigned(Schema::Rows)) == m && p.rank >= 1 && p.perm[0] == 0)
    return s + "rows need the leading dimension contiguous (stride 1) in both tensors";
  if (!p.plain() && p.rank < 2 && !(m & (unsigned(Schema::Direct) | unsigned(Schema::Rows))))
    return s + "a non-plain problem of normalized rank < 2 takes 'rows' or 'direct' only";
  if (m == unsigned(Schema::Copy)) return s + "copy needs a normalized rank <= 1";
  if (p.is_copy()) return s + "the problem is a plain copy (use 'copy')";
  if (m == unsigned(Schema::Direct) && p.plain())
    return s + "direct takes tensors of at most " + std::to_string(direct_max_elems()) +
           " elements and " + std::to_string(direct_max_bytes()) +
           " bytes, or plain ones of 4-byte elements and more in L2 (planner.hpp direct_in_l2)";
  if (m & (unsigned(Schema::Rows) | unsigned(Schema::FviSmall))) {
    if (p.perm[0] != 0) return s + "it needs the leading dimension to stay leading (perm[0] == 0)";
  } else if (p.perm[0] == 0) {
    return s + "the leading dimension stays leading (use 'rows' or 'fvi-small')";
  }
  if (m == unsigned(Schema::Tiled))
    return s + "no tile with disjoint input and output runs fits (runs overlap)";
  if (m & (unsigned(Schema::Packed) | unsigned(Schema::PackedSplit)))
    return s + "no tile with overlapping input and output runs of this kind fits (the runs are "
               "disjoint: use 'tiled')";
  return s + "no tile with these parameters fits in " + std::to_string(kMaxTileVolume) +
         " elements and " + std::to_string(kMaxTileSmemBytes) + " bytes of shared memory";
}

// Median seconds of the first `n` of `choices` on scratch buffers (time_runs).
xpose_status_t time_choices(const Problem& q, const DeviceInfo& dev,
                            const std::vector<Choice>& choices, size_t n, int reps,
                            std::vector<double>* secs) {
  std::vector<KernelSpec> trial(n);
  std::vector<TimedRun> runs;
  for (size_t i = 0; i < n; ++i) {
    build_spec(q, choices[i], &trial[i]);
    runs.push_back([&trial, i, &dev](const void* in, void* out, void* stream) {
      return launch_spec(trial[i], dev.ordinal, in, out, stream);
    });
  }
  Scratch in, out;  // what each tensor reaches (measurable(q))
  if (!scratch_for(q.in_lo, q.in_hi, q.elem_size, q.volume, &in) ||
      !scratch_for(q.out_lo, q.out_hi, q.out_elem(), q.volume, &out))
    return fail(XPOSE_ERROR_INTERNAL, "measure planning: no scratch for this problem");
  return time_runs(dev.ordinal, in, out, runs, reps, secs);
}

// Plans one view: the model's best allowed choice (or, with `measure`, the fastest of the
// model's best few on scratch buffers); `found` false when nothing is allowed. Only the primary
// view (the first) ranks by the regression model: the fallbacks for less aligned pointers rank
// by the analytic one, ~4 us less per view. `choices_out` (and `measured_out`), when given,
// receive every candidate (and the measured times), the chosen one first.
xpose_status_t plan_view(const Problem& q, size_t align, const DeviceInfo& dev,
                         const SchemaRequest* req, bool measure, bool primary, View* v,
                         bool* found, std::vector<Choice>* choices_out,
                         std::vector<double>* measured_out) {
  const auto keep = [&](const Choice& c) {
    build_spec(q, c, &v->spec);
    // Row and direct kernels choose their width at execute time; the narrow kernels (narrow.cu
    // and those whose choices carry its tile's prediction: narrow2d, thin2d, cells) take any
    // pointers.
    const bool tile = !(is_rows(v->spec) || is_direct(v->spec) || c.narrow);
    v->align = tile ? align : 1;
    v->out_align = 0;  // as align
    // rows_typed.cu and the narrow kernels' typed tiles (narrow_typed.cu, narrow2d.cu): whole
    // elements of each tensor.
    if ((is_rows(v->spec) || c.narrow) && q.typed()) {
      v->align = q.elem_size;
      v->out_align = q.out_elem();
    }
    if (tile && q.typed()) {
      // Typed tiles access whole elements of each tensor's own size, or 4-byte groups of them
      // (tiled.cu and narrow2d.cu have no piece-wise instantiation for them).
      v->align = q.elem_size;
      v->out_align = q.out_elem();
      if (!c.narrow2d) {
        const TiledParams& t = v->spec.tiled;
        if (t.group_slot != kNoGroup) v->align = 4;
        if (t.out_group_slot != kNoGroup) v->out_align = 4;
      }
    }
  };
  if (!measure && !choices_out) {  // the best candidate only: no list kept or ranked
    Choice best;
    *found = best_choice(q, dev, req, &best, primary);
    if (*found) keep(best);
    return XPOSE_SUCCESS;
  }
  std::vector<Choice> choices;
  enumerate_choices(q, dev, req, &choices, primary);
  *found = !choices.empty();
  if (!*found) return XPOSE_SUCCESS;
  size_t best = 0;
  std::vector<double> secs;
  if (measure && choices.size() > 1) {
    XPOSE_TRY(time_choices(q, dev, choices, std::min<size_t>(kMeasureTop, choices.size()),
                           kMeasureReps, &secs));
    const size_t fastest =
        static_cast<size_t>(std::min_element(secs.begin(), secs.end()) - secs.begin());
    if (secs[fastest] < secs[0] * (1.0 - kMeasureMargin)) best = fastest;
  }
  keep(choices[best]);
  if (choices_out) {
    *choices_out = std::move(choices);
    std::swap((*choices_out)[0], (*choices_out)[best]);
    if (measured_out) {
      *measured_out = secs;
      if (!secs.empty()) std::swap((*measured_out)[0], (*measured_out)[best]);
    }
  }
  return XPOSE_SUCCESS;
}

struct Planned {
  const DeviceInfo* dev = nullptr;
  std::vector<View> views;
  std::vector<Choice> choices;   // of the first view, chosen first
  std::vector<double> measured;  // for the first choices, when measured
  Problem first;
};

xpose_status_t find_device(int ordinal, const DeviceInfo** dev) {
  std::string why;
  *dev = device_info(ordinal, &why);
  return *dev ? XPOSE_SUCCESS
              : fail(XPOSE_ERROR_DEVICE, "CUDA device " + std::to_string(ordinal) + ": " + why);
}

// Every view of `p` planned on `dev` (no CUDA call unless measuring); `report`: the first
// view's candidates are kept in out->choices (they are when measuring).
xpose_status_t plan_views(const Problem& p, const DeviceInfo* dev, const xpose_options_t& o,
                          const std::string& schema, bool report, Planned* out) {
  out->dev = dev;
  std::string why;
  SchemaRequest req;
  if (!schema.empty() && !parse_schema(schema, &req, &why))
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, why);
  const SchemaRequest* forced = schema.empty() ? nullptr : &req;
  const bool measure = o.planning == XPOSE_PLAN_MEASURE && measurable(p);
  report = report || measure;
  // Views are planned in place (~3.3 KB each: no copies) and dropped when nothing fits.
  std::vector<View>& views = out->views;
  views.reserve(2);
  Problem fused;
  size_t fused_align = 0;
  bool found = false;
  if (fused_view(p, &fused, &fused_align)) {
    View& v = views.emplace_back();
    v.kind = ViewKind::Fused;
    XPOSE_TRY(plan_view(fused, fused_align, *dev, forced, measure, true, &v, &found,
                        report ? &out->choices : nullptr, &out->measured));
    if (found)
      out->first = fused;
    else
      views.pop_back();
  }
  if (views.empty() || views.back().align > 1) {  // a view for any pointers ends the list
    const bool first = views.empty();
    View& v = views.emplace_back();
    v.kind = ViewKind::Given;
    XPOSE_TRY(plan_view(p, p.elem_size, *dev, forced, measure && first, first, &v, &found,
                        first && report ? &out->choices : nullptr,
                        first ? &out->measured : nullptr));
    if (!found) return fail(XPOSE_ERROR_INVALID_ARGUMENT, why_not(p, req));
    if (first) out->first = p;
  }
  // Typed tiles that move 4-byte groups of narrower elements need pointers that are multiples
  // of 4 bytes: the same tile without groups takes pointers that are multiples of their element
  // sizes (sub-tensors start at any element). The general kernel ran such cases at 0.06-0.19 of
  // a copy (f32 -> bf16 padded, docs/perf/typed-h100.md, session 41).
  if (p.typed() &&
      (views.back().align > p.elem_size || views.back().out_align > p.out_elem())) {
    Choice c = views.back().spec.choice;
    c.ungrouped = true;
    View& v = views.emplace_back();
    build_spec(p, c, &v.spec);
    v.align = p.elem_size;
    v.out_align = p.out_elem();
  }
  // Typed tiles have no instantiation that moves elements in pieces: pointers that are not
  // multiples of their element sizes take the general kernel.
  const View& last = views.back();
  if (p.typed() && !is_direct(last.spec) && (last.align > 1 || last.out_align > 1)) {
    View& v = views.emplace_back();
    build_spec(p, general_choice(p, *dev), &v.spec);
  }
  return XPOSE_SUCCESS;
}

xpose_status_t plan_all(const Problem& p, const xpose_options_t& o, const std::string& schema,
                        Planned* out) {
  const DeviceInfo* dev = nullptr;
  XPOSE_TRY(find_device(o.device, &dev));
  return plan_views(p, dev, o, schema, true, out);
}

}  // namespace

xpose_status_t cuda_make_plan(const Problem& p, const xpose_options_t& options,
                              const std::string& schema, BackendPlanPtr* plan) {
  const DeviceInfo* dev = nullptr;
  XPOSE_TRY(find_device(options.device, &dev));
  return cuda_plan_on(p, *dev, options, schema, plan);
}

xpose_status_t cuda_plan_on(const Problem& p, const DeviceInfo& dev,
                            const xpose_options_t& options, const std::string& schema,
                            BackendPlanPtr* plan) {
  Planned planned;
  XPOSE_TRY(plan_views(p, &dev, options, schema, false, &planned));
  std::string notes;
  if (!planned.measured.empty()) {
    notes = "measured on scratch buffers:";
    for (size_t i = 0; i < planned.measured.size(); ++i) {
      notes += ' ';
      notes += summarize(planned.first, planned.choices[i]);
      notes += " = " + std::to_string(planned.measured[i] * 1e6) + " us;";
    }
    notes += "\n";
  }
  *plan = std::make_shared<const CudaPlan>(options.device, p, planned.views, std::move(notes));
  return XPOSE_SUCCESS;
}

std::vector<PlanView> cuda_plan_views(const BackendPlan& plan) {
  std::vector<PlanView> out;
  if (const auto* c = dynamic_cast<const CudaPlan*>(&plan)) out = c->views();
  return out;
}

xpose_status_t cuda_candidates(const Problem& p, const xpose_options_t& options,
                               bool measure_all, std::vector<Candidate>* candidates) {
  Planned planned;
  XPOSE_TRY(plan_all(p, options, "", &planned));
  // After planning, so that the choice is the planner's own (measured anew when measure planning
  // timed its best few).
  if (measure_all && measurable(planned.first))
    XPOSE_TRY(time_choices(planned.first, *planned.dev, planned.choices, planned.choices.size(),
                           kMeasureReps, &planned.measured));
  candidates->clear();
  for (size_t i = 0; i < planned.choices.size(); ++i) {
    Candidate c;
    const Choice& ch = planned.choices[i];
    c.description = summarize(planned.first, ch);
    c.predicted_seconds = ch.predicted;
    c.model = ch.model ? ch.model->name() : "analytic";
    if (i < planned.measured.size()) c.measured_seconds = planned.measured[i];
    c.chosen = i == 0;
    candidates->push_back(std::move(c));
  }
  return XPOSE_SUCCESS;
}

xpose_status_t cuda_probe(const Problem& p, int device, Probe* out) {
  XPOSE_TRY(find_device(device, &out->dev));
  out->view = view_problem(p, ViewKind::Fused);
  enumerate_choices(out->view, *out->dev, nullptr, &out->choices);
  return XPOSE_SUCCESS;
}

xpose_status_t cuda_time_choices(const DeviceInfo& dev, const Problem& view,
                                 const std::vector<Choice>& choices, int reps,
                                 std::vector<double>* seconds) {
  return time_choices(view, dev, choices, choices.size(), reps, seconds);
}

}  // namespace xpose::detail
