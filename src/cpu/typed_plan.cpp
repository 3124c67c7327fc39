// The `typed` schema: every problem that is not plain() (strides of any sign, broadcast input,
// conversion, alpha/beta, integer accumulation), docs/cpu.md. Problems whose leading
// dimension moves, dense or sub-tensors with long enough contiguous dims 0, go through the plain
// tiled engine with the operation fused into each tile (typed_tiles.cpp); the rest through this
// file's two shapes:
//  - rows: the dimension fastest in the output is also the one walked in the input; each row
//    is one element operation (typed_ops.hpp) at the two strides (long rows cut in segments,
//    output-continuing short rows converted as 2D runs, short single rows batched);
//  - tiles: the input's fastest dimension J and the output's fastest I differ (each grown over
//    the dims continuing it, I also over further output dims when its rows stay short); a
//    TI x TO tile is transposed as raw elements into a stage (the SIMD tile kernels when J is
//    contiguous, a scalar gather otherwise), then its rows go through the element operation
//    into the output (optionally streamed). A pure copy with a contiguous output row skips the
//    stage: the tile kernel writes the output itself.
// Work units (row segments, tiles) are spread over OpenMP threads by run_chunks like the dense
// schemas'. Strides come from the Problem, in elements, turned into bytes here.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <sstream>

#include "core/convert.hpp"
#include "core/status.hpp"
#include "core/types.hpp"
#include "cpu/plans.hpp"
#include "cpu/typed_ops.hpp"
#include "cpu/typed_plan.hpp"
#include "cpu/typed_tiles.hpp"

namespace xpose::detail::cpu {
namespace {

constexpr int64_t kRowSegment = 4096;       // elements per row unit (long rows split)
constexpr int64_t kStageBytes = 64 << 10;   // a tile's staging buffer (L2-resident)
constexpr int64_t kPrefetchBytes = 16 << 10;  // input asked for ahead of one operation
// Runs of the rows shape's I group up to this long are converted straight from the input in 2D
// operations, longer ones gathered by memcpy first (one Zen 4 core, bf16 -> e4m3: runs of 34-56
// bytes 1.1-1.9x faster straight, of 584-772 bytes 1.1-1.5x slower).
constexpr int64_t kShortRunBytes = 128;
// Tile columns this short, and an input dim this near past their end, share lines.
constexpr int64_t kNearColumnBytes = 128;

// out[k] = byte offset of combined index q0 + k over `count` dims (extents ext, byte strides
// stride, first fastest), k < n: an odometer from q0's digits.
void offsets(int64_t q0, int n, const int64_t* ext, const int64_t* stride, int count,
             int64_t* out) {
  if (count == 1) {  // one dim (the common case): no digits
    for (int k = 0; k < n; ++k) out[k] = (q0 + k) * stride[0];
    return;
  }
  int64_t digit[kMaxRank], off = 0;
  for (int g = 0; g < count; ++g) {
    digit[g] = q0 % ext[g];
    q0 /= ext[g];
    off += digit[g] * stride[g];
  }
  for (int k = 0; k < n; ++k) {
    out[k] = off;
    for (int g = 0; g < count; ++g) {
      off += stride[g];
      if (++digit[g] < ext[g]) break;
      off -= stride[g] * ext[g];
      digit[g] = 0;
    }
  }
}

// One thread's two stages (input elements, converted output), L2-resident: made once per
// thread and reused, as the dense plans' non-temporal workspace (tile_plan.cpp), not allocated
// by every execute; NULL when the allocation failed.
char* thread_stages() {
  struct Stages {
    alignas(64) char bytes[2 * kStageBytes];
  };
  thread_local const std::unique_ptr<Stages> s(new (std::nothrow) Stages);
  return s ? s->bytes : nullptr;
}

// Asks for every line of `rows` runs of `bytes` bytes, `step` bytes apart from `p`, before the
// element operation reads them: it walks one short run after another and, on its own, has the
// lines of only a few runs in flight (slower than a memcpy of each run into a stage).
void prefetch_rows(const char* p, int64_t step, int64_t rows, int64_t bytes) {
  for (int64_t r = 0; r < rows; ++r, p += step) {
    for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
    __builtin_prefetch(p + bytes - 1);
  }
}

// a / b rounded up, for a up to 2^63 - 1 ((a + b - 1) / b overflows there).
int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

OpKey op_key(const Problem& p) {
  OpKey k;
  k.in = p.in_type;
  k.out = p.typed() ? p.out_type : p.in_type;
  k.elem_size = p.elem_size;
  // make_problem_ex zeroed real types' imaginary parts: the scalars as they are say it.
  k.alpha = p.typed() && cvt::uses_alpha(p.alpha);
  k.beta = p.reads_out();
  return k;
}

// The plan's scalars in both compute types, rounded once from the problem's doubles.
Scalars scalars_of(const Problem& p) {
  Scalars s;
  s.af[0] = static_cast<float>(p.alpha[0]), s.af[1] = static_cast<float>(p.alpha[1]);
  s.bf[0] = static_cast<float>(p.beta[0]), s.bf[1] = static_cast<float>(p.beta[1]);
  s.ad[0] = p.alpha[0], s.ad[1] = p.alpha[1], s.bd[0] = p.beta[0], s.bd[1] = p.beta[1];
  return s;
}

RowOp find_op(const OpKey& k, Isa isa) {
  RowOp op = nullptr;
  if (isa == Isa::kBest || isa == Isa::kAvx512) op = typed_row_op_avx512(k);
  if (op == nullptr && isa != Isa::kScalar && isa != Isa::kSse2 && isa != Isa::kAvx512)
    op = typed_row_op_avx2(k);
  if (op == nullptr && (isa == Isa::kBest || isa == Isa::kScalar || isa == Isa::kSse2))
    op = typed_row_op_base(k);
  return op;
}

// The dimension with the smallest |stride| among those with a non-zero one and an extent over 1
// (-1 if none).
int fastest(int rank, const Extents& extent, const Extents& stride) {
  int best = -1;
  for (int k = 0; k < rank; ++k)
    if (stride[k] != 0 && extent[k] > 1 &&
        (best < 0 || std::llabs(stride[k]) < std::llabs(stride[best])))
      best = k;
  return best;
}

class TypedPlan final : public BackendPlan {
 public:
  TypedPlan(const Problem& p, RowOp op, const OpKey& key, const ExecSettings& x,
            const TileRequest& tile)
      : op_(op), key_(key), x_(x), s_(scalars_of(p)), ie_(static_cast<int64_t>(p.elem_size)),
        oe_(static_cast<int64_t>(p.out_elem())), volume_(p.volume) {
    const Layout in = p.input();
    const Extents ostr = p.output_strides();
    i_ = std::max(0, fastest(p.rank, p.extent, ostr));
    j_ = fastest(p.rank, p.extent, in.stride);
    tiled_ = p.rank >= 2 && j_ >= 0 && j_ != i_;
    if (!tiled_) j_ = i_;
    choose_groups(p, in.stride, ostr);
    is_i_ = p.rank ? in.stride[i_] * ie_ : ie_, os_i_ = p.rank ? ostr[i_] * oe_ : oe_;
    is_j_ = p.rank ? in.stride[j_] * ie_ : ie_, os_j_ = p.rank ? ostr[j_] * oe_ : oe_;
    // Streams whole lines of contiguous output rows only; with beta the output is read first
    // (in cache anyway).
    nt_ = x.nt && !key.beta && os_i_ == oe_;
    outer_volume_ = volume_ / (tiled_ ? n_i_ * n_j_ : n_i_);
    if (tiled_) size_tiles(tile);
    else size_rows();
  }

  xpose_status_t execute(const void* in, void* out, void*) const override {
    const auto* src = static_cast<const char*>(in);
    auto* dst = static_cast<char*>(out);
    const int64_t bytes = volume_ * (ie_ + oe_ * (key_.beta ? 2 : 1));
    std::atomic<bool> no_stages{false};
    run_chunks(x_.threads, units_, bytes, [&](int64_t u0, int64_t u1) {
      char* stage = thread_stages();
      if (stage == nullptr) {
        no_stages = true;
        return;
      }
      if (tiled_) tiles(src, dst, u0, u1, stage, stage + kStageBytes);
      else rows(src, dst, u0, u1, stage, stage + kStageBytes);
      if (nt_) store_fence();
    });
    if (no_stages)
      return fail(XPOSE_ERROR_OUT_OF_MEMORY,
                  "a thread's typed staging buffers (" + std::to_string(2 * kStageBytes) +
                      " bytes) could not be allocated; out is partly written");
    return XPOSE_SUCCESS;
  }

  double predicted_seconds() const override {
    const double moved = static_cast<double>(volume_) *
                         static_cast<double>(ie_ + oe_ * (key_.beta ? 2 : 1));
    const double bw = std::min(kTuning.bandwidth_socket, kTuning.bandwidth_per_thread * x_.threads);
    return moved / bw + static_cast<double>(units_) * kTuning.tile_overhead_s / x_.threads;
  }

  std::string describe() const override {
    std::ostringstream d;
    d << "typed " << (tiled_ ? "tiles" : "rows") << " nt=" << nt_ << " threads=" << x_.threads
      << "\n  "
      << ie_ << " B -> " << oe_ << " B elements, types " << key_.in << " -> " << key_.out
      << (key_.alpha ? ", alpha" : "") << (key_.beta ? ", beta (reads out)" : "") << "\n  ";
    if (tiled_)
      d << "tile " << ti_ << " x " << to_ << " (input dim " << j_ << " x output-fastest dim "
        << i_ << "), "
        << (direct_ || direct_runs_ ? "straight to the output" : "staged, then converted")
        << (kernel_ ? ", SIMD gather" : ", scalar gather");
    else
      d << "rows of " << n_i_ << " (dim " << i_
        << (n_group_ > 1 ? " and the output dims after it, in 2D runs" : "") << "), segments of "
        << seg_ << (batch_ > 1 ? ", batched along the first outer dim" : "");
    if (j2_ext_ > 1) d << ", " << j2_ext_ << " tiles along the next input dim a unit";
    d << "; " << outer_ << " outer dims\n";
    return d.str();
  }

 private:
  // I: the output-fastest dim and the output dims continuing it (tiles: their input offsets
  // per column come from icol; rows: short rows are staged back to back), so that short output
  // rows still give long element operations. J (tiles): the input-fastest dim and the input
  // dims continuing it (a contiguous tile column; their output offsets per row from orow).
  // The other dims are outer.
  void choose_groups(const Problem& p, const Extents& istr, const Extents& ostr) {
    bool grouped[kMaxRank] = {};
    if (p.rank) grouped[i_] = grouped[j_] = true;
    const auto group = [&](int first, const Extents& along, int64_t along_eb,
                           const Extents& other, int64_t other_eb, int64_t* ext,
                           int64_t* along_bytes, int64_t* other_bytes) {
      int n = 0;
      const auto add = [&](int k) {
        ext[n] = p.rank ? p.extent[k] : 1;
        along_bytes[n] = (p.rank ? along[k] : 1) * along_eb;
        other_bytes[n++] = (p.rank ? other[k] : 1) * other_eb;
      };
      add(first);
      for (int last = first, k = 0; p.rank && k < p.rank; ++k) {
        int64_t next;  // (extent - 1) x stride fits in 64 bits (make_problem_ex), this may not
        if (grouped[k] || p.extent[k] <= 1 ||
            __builtin_mul_overflow(along[last], p.extent[last], &next) || along[k] != next)
          continue;
        grouped[k] = true;
        add(k);
        last = k, k = -1;  // look for the dim continuing this one
      }
      return n;
    };
    int64_t jgroup_is[kMaxRank];
    n_group_ = group(i_, ostr, oe_, istr, ie_, group_ext_, group_os_, group_is_);
    if (tiled_) {
      n_jgroup_ = group(j_, istr, ie_, ostr, oe_, jgroup_ext_, jgroup_is, jgroup_os_);
      widen_columns(p, ostr, istr, grouped);
    }
    for (int k = 0; k < p.rank; ++k) {
      if (grouped[k]) continue;
      outer_ext_[outer_] = p.extent[k];
      outer_is_[outer_] = istr[k] * ie_;
      outer_os_[outer_++] = ostr[k] * oe_;
    }
    n_i_ = n_j_ = 1;
    for (int g = 0; g < n_group_; ++g) n_i_ *= group_ext_[g];
    for (int g = 0; tiled_ && g < n_jgroup_; ++g) n_j_ *= jgroup_ext_[g];
  }

  // The dense tiled schemas' default sides (tuning table), or the forced ones, within the
  // stages (a tile of either side's elements).
  void size_tiles(const TileRequest& tile) {
    const TileShape def = kTuning.tile_by_size[std::min(4, std::countr_zero(uint64_t(ie_)))];
    ti_ = std::min(n_j_, int64_t{tile.ti > 0 ? tile.ti : def.ti});
    to_ = std::min({n_i_, int64_t{tile.to > 0 ? tile.to : def.to}, int64_t{Tuning::kMaxTileSide}});
    while (ti_ * to_ * std::max(ie_, oe_) > kStageBytes) to_ = std::max<int64_t>(1, to_ / 2);
    tiles_j_ = ceil_div(n_j_, ti_), tiles_i_ = ceil_div(n_i_, to_);
    units_ = tiles_i_ * tiles_j_ * outer_volume_;
    direct_ = is_copy() && os_i_ == oe_ && !nt_ && !i_runs_;
    if (is_j_ == ie_) kernel_ = typed_tile_kernel(static_cast<size_t>(ie_), x_.isa).fn;
    direct_runs_ = is_copy() && os_i_ == oe_ && i_runs_ && kernel_ != nullptr &&
                   group_ext_[0] * oe_ <= kDirectRunBytes;
    if (direct_runs_) {
      nt_ = false;  // runs of a few elements: regular stores
      take_next_column_dim();
    }
  }

  // Short tile columns (J of a few padded elements) share their lines with the next input dim's
  // columns; a unit then walks that dim (the outer dim nearest in the input) innermost, so each
  // line is read once, while it is in L1, instead of once per visit after every I tile.
  void take_next_column_dim() {
    int k = -1;
    for (int d = 0; d < outer_; ++d)
      if (outer_is_[d] > 0 && (k < 0 || outer_is_[d] < outer_is_[k])) k = d;
    if (k < 0 || n_j_ * ie_ > kNearColumnBytes || outer_is_[k] > n_j_ * ie_ + kNearColumnBytes)
      return;
    if (units_ / outer_ext_[k] < 16 * int64_t{x_.threads}) return;  // units enough to share
    j2_ext_ = outer_ext_[k], j2_is_ = outer_is_[k], j2_os_ = outer_os_[k];
    for (int d = k; d + 1 < outer_; ++d)
      outer_ext_[d] = outer_ext_[d + 1], outer_is_[d] = outer_is_[d + 1],
      outer_os_[d] = outer_os_[d + 1];
    --outer_;
    outer_volume_ /= j2_ext_;
    units_ = tiles_i_ * tiles_j_ * outer_volume_;
  }

  // Row segments; short single rows (under 64 elements) batched: a unit is all rows along the
  // first outer dim, one 2D operation.
  void size_rows() {
    seg_ = n_group_ > 1 || nt_ ? kStageBytes / std::max(ie_, oe_) : kRowSegment;
    segs_ = ceil_div(n_i_, seg_);
    units_ = segs_ * outer_volume_;
    if (n_group_ == 1 && segs_ == 1 && outer_ > 0 && n_i_ < 64 &&
        outer_ext_[0] <= kStageBytes && n_i_ * outer_ext_[0] * std::max(ie_, oe_) <= kStageBytes) {
      batch_ = outer_ext_[0];
      units_ = outer_volume_ / batch_;
    }
  }

  bool is_copy() const {
    return !key_.alpha && !key_.beta && key_.in == key_.out &&
           type_info(key_.in).kind != TypeKind::Floating &&
           type_info(key_.in).kind != TypeKind::Complex;
  }

  // Byte offsets of outer index `q` (column-major over the outer dims) in `coord`, io, oo.
  void outer_offsets(int64_t q, int64_t* coord, int64_t* io, int64_t* oo) const {
    *io = *oo = 0;
    for (int d = 0; d < outer_; ++d) {
      coord[d] = q % outer_ext_[d];
      q /= outer_ext_[d];
      *io += coord[d] * outer_is_[d], *oo += coord[d] * outer_os_[d];
    }
  }

  // The next outer index (odometer).
  void next_outer(int64_t* coord, int64_t* io, int64_t* oo) const {
    for (int d = 0; d < outer_; ++d) {
      *io += outer_is_[d], *oo += outer_os_[d];
      if (++coord[d] < outer_ext_[d]) return;
      *io -= outer_is_[d] * outer_ext_[d], *oo -= outer_os_[d] * outer_ext_[d];
      coord[d] = 0;
    }
  }

  // Tiles whose output rows stay short (padded or scattered output dims) take further output
  // dims into I, by output stride, until a row of the group spans a default tile side: the
  // columns' input offsets come from icol, the output rows are then runs along I's first dim.
  void widen_columns(const Problem& p, const Extents& ostr, const Extents& istr, bool* grouped) {
    const int64_t target = kTuning.tile_by_size[std::min(4, std::countr_zero(uint64_t(ie_)))].to;
    int64_t n = 1;
    for (int g = 0; g < n_group_; ++g) n *= group_ext_[g];
    while (n < target && n_group_ < p.rank) {
      int k = -1;
      for (int d = 0; d < p.rank; ++d)
        if (!grouped[d] && p.extent[d] > 1 && (k < 0 || std::llabs(ostr[d]) < std::llabs(ostr[k])))
          k = d;
      if (k < 0) break;
      grouped[k] = true;
      i_runs_ = true;
      group_ext_[n_group_] = p.extent[k], group_is_[n_group_] = istr[k] * ie_;
      group_os_[n_group_++] = ostr[k] * oe_;
      n *= p.extent[k];
    }
  }

  // The operation on `rows` rows of n elements from src into the output at dst (rows dr bytes
  // apart, elements os_i_): directly, or with nt_ through `ostage` and whole-line streaming.
  void emit(const char* src, int64_t ss, int64_t sr, char* dst, int64_t dr, int64_t n,
            int64_t rows, char* ostage) const {
    if (!nt_) {
      op_(src, ss, sr, dst, os_i_, dr, n, rows, s_);
      return;
    }
    const int64_t rb = n * oe_;
    if (is_copy() && ss == ie_) {  // the staged rows are the output rows already
      for (int64_t r = 0; r < rows; ++r)
        copy_bytes(dst + r * dr, src + r * sr, static_cast<size_t>(rb), true);
      return;
    }
    op_(src, ss, sr, ostage, oe_, rb, n, rows, s_);
    for (int64_t r = 0; r < rows; ++r)
      copy_bytes(dst + r * dr, ostage + r * rb, static_cast<size_t>(rb), true);
  }

  // Row segments [u0, u1): unit u is segment u % segs_ of the row at outer index u / segs_.
  void rows(const char* in, char* out, int64_t u0, int64_t u1, char* stage, char* ostage) const {
    int64_t coord[kMaxRank], io, oo;
    if (batch_ > 1) {
      for (int64_t u = u0; u < u1; ++u) {
        outer_offsets(u * batch_, coord, &io, &oo);
        emit(in + io, is_i_, outer_is_[0], out + oo, outer_os_[0], n_i_, batch_, ostage);
      }
      return;
    }
    outer_offsets(u0 / segs_, coord, &io, &oo);
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t seg = u % segs_;
      if (seg == 0 && u != u0) next_outer(coord, &io, &oo);
      const int64_t e0 = seg * seg_, n = std::min(seg_, n_i_ - e0);
      if (n_group_ == 1) {
        emit(in + io + e0 * is_i_, is_i_, 0, out + oo + e0 * os_i_, 0, n, 1, ostage);
        continue;
      }
      group_segment(in + io, out + oo + e0 * os_i_, e0, n, stage, ostage);
    }
  }

  // Elements [e0, e0 + n) of the I group (I and the output dims continuing it) of one outer
  // index, into the output at dst (contiguous along the group). Short runs along I: each
  // stretch of whole runs along the group's second dim is one 2D operation (the runs at that
  // dim's input stride, back to back in the output) straight from the input, into the output or,
  // with nt_, into `ostage`, streamed in whole lines at the end. Long runs: copied back to back
  // into `stage`, then one operation (a memcpy per run reads them faster than the operation).
  void group_segment(const char* in, char* dst, int64_t e0, int64_t n, char* stage,
                     char* ostage) const {
    int64_t digit[kMaxRank], off = 0, q = e0;
    for (int g = 0; g < n_group_; ++g) {
      digit[g] = q % group_ext_[g];
      q /= group_ext_[g];
      off += digit[g] * group_is_[g];
    }
    const int64_t ext0 = group_ext_[0];
    const bool gather = ext0 * ie_ > kShortRunBytes;
    char* to = nt_ ? ostage : dst;
    const int64_t ts = nt_ ? oe_ : os_i_;
    for (int64_t e = e0; e < e0 + n;) {
      const int64_t run = std::min(ext0 - digit[0], e0 + n - e);
      const bool whole = digit[0] == 0 && run == ext0;
      // At most kPrefetchBytes of input a call: what it prefetches stays in L1.
      const int64_t rows = whole && !gather
                               ? std::min({group_ext_[1] - digit[1], (e0 + n - e) / ext0,
                                           std::max<int64_t>(1, kPrefetchBytes / (ext0 * ie_))})
                               : 1;
      if (gather) {
        gather_run(in + off, stage + (e - e0) * ie_, run);
      } else {
        if (is_i_ == ie_) prefetch_rows(in + off, group_is_[1], rows, run * ie_);
        op_(in + off, is_i_, group_is_[1], to + (e - e0) * ts, ts, ext0 * ts, run, rows, s_);
      }
      e += run * rows;
      const int first = whole ? 1 : 0;  // the dim that moved: rows along dim 1, or a part run
      digit[first] += whole ? rows : run;
      off += (whole ? rows : run) * group_is_[first];
      for (int g = first; g + 1 < n_group_ && digit[g] == group_ext_[g]; ++g) {
        off += group_is_[g + 1] - group_ext_[g] * group_is_[g];
        digit[g] = 0;
        ++digit[g + 1];
      }
    }
    if (gather) emit(stage, ie_, 0, dst, 0, n, 1, ostage);
    else if (nt_) copy_bytes(dst, ostage, static_cast<size_t>(n * oe_), true);
  }

  // n input elements along I from `from` (at is_i_ apart) back to back at `to`.
  void gather_run(const char* from, char* to, int64_t n) const {
    if (is_i_ == ie_) {
      std::memcpy(to, from, static_cast<size_t>(n * ie_));
      return;
    }
    for (int64_t k = 0; k < n; ++k)
      std::memcpy(to + k * ie_, from + k * is_i_, static_cast<size_t>(ie_));
  }

  // Tiles [u0, u1): I tile fastest, then J tile, then the outer index.
  void tiles(const char* in, char* out, int64_t u0, int64_t u1, char* stage, char* ostage) const {
    int64_t icol[Tuning::kMaxTileSide], orow[Tuning::kMaxTileSide], srow[Tuning::kMaxTileSide];
    int64_t ocol[Tuning::kMaxTileSide];  // i_runs_: each column's output offset
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t ti = u % tiles_i_, tj = (u / tiles_i_) % tiles_j_;
      int64_t coord[kMaxRank], io, oo;
      outer_offsets(u / (tiles_i_ * tiles_j_), coord, &io, &oo);
      const int64_t r0 = tj * ti_, c0 = ti * to_;
      const int nr = static_cast<int>(std::min(ti_, n_j_ - r0));
      const int nc = static_cast<int>(std::min(to_, n_i_ - c0));
      const char* src = in + io + r0 * is_j_;
      char* dst = out + oo + c0 * os_i_;
      offsets(c0, nc, group_ext_, group_is_, n_group_, icol);
      offsets(r0, nr, jgroup_ext_, jgroup_os_, n_jgroup_, orow);
      if (direct_ && kernel_) {
        kernel_(src, icol, dst, orow, nr, nc, static_cast<size_t>(ie_));
        continue;
      }
      if (i_runs_) offsets(c0, nc, group_ext_, group_os_, n_group_, ocol);
      if (direct_runs_) {
        for (int64_t j = 0; j < j2_ext_; ++j)
          tile_runs_direct(src + j * j2_is_, icol, out + oo + j * j2_os_, orow, ocol, c0, nr, nc);
        continue;
      }
      const int64_t row_bytes = nc * ie_;
      if (kernel_) {
        for (int r = 0; r < nr; ++r) srow[r] = r * row_bytes;
        kernel_(src, icol, stage, srow, nr, nc, static_cast<size_t>(ie_));
      } else {
        for (int r = 0; r < nr; ++r)
          for (int c = 0; c < nc; ++c)
            std::memcpy(stage + r * row_bytes + c * ie_, src + r * is_j_ + icol[c],
                        static_cast<size_t>(ie_));
      }
      if (i_runs_) {
        tile_runs(stage, out + oo, orow, ocol, c0, nr, nc, ostage);
      } else if (n_jgroup_ > 1) {  // rows land at irregular offsets
        for (int r = 0; r < nr; ++r)
          emit(stage + r * row_bytes, ie_, 0, dst + orow[r], 0, nc, 1, ostage);
      } else if (nc == n_i_ && os_j_ == n_i_ * os_i_) {  // the tile is one run of the output
        emit(stage, ie_, 0, dst + orow[0], 0, int64_t{nr} * nc, 1, ostage);
      } else {
        emit(stage, ie_, row_bytes, dst + orow[0], os_j_, nc, nr, ostage);
      }
    }
  }

  // Columns from c of a tile of nc columns starting at column c0 of the I group that lie in one
  // run along I's first dim (the first run may start inside one; the others start whole).
  int run_length(int64_t c0, int c, int nc) const {
    return static_cast<int>(
        std::min<int64_t>(group_ext_[0] - (c ? 0 : c0 % group_ext_[0]), nc - c));
  }

  // The output rows of a staged tile whose I group has dims that do not continue the output
  // row: runs along I's first dim, each at its own offset (ocol: every column's).
  void tile_runs(const char* stage, char* out, const int64_t* orow, const int64_t* ocol,
                 int64_t c0, int nr, int nc, char* ostage) const {
    const int64_t row_bytes = nc * ie_;
    for (int c = 0, len; c < nc; c += len) {
      len = run_length(c0, c, nc);
      char* base = out + ocol[c];
      if (n_jgroup_ > 1)
        for (int r = 0; r < nr; ++r)
          emit(stage + r * row_bytes + c * ie_, ie_, 0, base + orow[r], 0, len, 1, ostage);
      else
        emit(stage + c * ie_, ie_, row_bytes, base + orow[0], os_j_, len, nr, ostage);
    }
  }

  // The same for a pure copy: the tile kernel moves each run from the input into the output.
  // (Padded tensors: runs of 5-30 elements; staging them cost a row copy per run and row.)
  void tile_runs_direct(const char* src, const int64_t* icol, char* out, const int64_t* orow,
                        const int64_t* ocol, int64_t c0, int nr, int nc) const {
    for (int c = 0, len; c < nc; c += len) {
      len = run_length(c0, c, nc);
      kernel_(src, icol + c, out + ocol[c], orow, nr, len, static_cast<size_t>(ie_));
    }
  }

  RowOp op_;
  OpKey key_;
  ExecSettings x_;
  Scalars s_;
  int64_t ie_, oe_, volume_;
  bool tiled_ = false, direct_ = false, nt_ = false;
  bool direct_runs_ = false;  // a pure copy of output runs (i_runs_) by the tile kernel
  int64_t j2_ext_ = 1, j2_is_ = 0, j2_os_ = 0;  // direct_runs_: the outer dim walked per unit
  int i_ = 0, j_ = 0;  // output-fastest dim (rows: the row dim) and input-fastest dim
  int64_t n_i_ = 1, n_j_ = 1, is_i_ = 0, os_i_ = 0, is_j_ = 0, os_j_ = 0;  // bytes
  int n_group_ = 1;   // I and the output dims continuing it, fastest first
  int64_t group_ext_[kMaxRank]{}, group_is_[kMaxRank]{}, group_os_[kMaxRank]{};  // bytes
  bool i_runs_ = false;  // the I group has dims that do not continue the output row
  int n_jgroup_ = 1;  // tiles: J and the input dims continuing it
  int64_t jgroup_ext_[kMaxRank]{1}, jgroup_os_[kMaxRank]{};  // (output byte strides)
  int outer_ = 0;
  int64_t outer_ext_[kMaxRank]{}, outer_is_[kMaxRank]{}, outer_os_[kMaxRank]{};
  int64_t outer_volume_ = 1, units_ = 1, segs_ = 1, seg_ = kRowSegment, batch_ = 1;
  int64_t ti_ = 1, to_ = 1, tiles_i_ = 1, tiles_j_ = 1;
  TileFn kernel_ = nullptr;
};

// XPOSE_CPU_TYPED_TILE=TIxTO overrides the default tile sides (experiments; read once).
TileRequest default_tile() {
  static const TileRequest t = [] {
    TileRequest r;
    const char* v = std::getenv("XPOSE_CPU_TYPED_TILE");
    if (v == nullptr || std::sscanf(v, "%dx%d", &r.ti, &r.to) != 2 || r.ti < 1 || r.to < 1 ||
        r.ti > Tuning::kMaxTileSide || r.to > Tuning::kMaxTileSide)
      r = TileRequest{};
    return r;
  }();
  return t;
}

}  // namespace

TileKernel typed_tile_kernel(size_t eb, Isa isa) {
  const TileFn masked = eb == 4 && (isa == Isa::kBest || isa == Isa::kAvx512)
                            ? typed_tile4_avx512()
                            : nullptr;
  return masked ? TileKernel{masked, "avx512-8x8-masked"} : select_tile_kernel(eb, isa);
}

bool typed_plan_applies(const Problem& p) { return !p.plain() || p.reads_out(); }

bool make_typed_plan(const Problem& p, const ExecSettings& x, const TileRequest& forced,
                     BackendPlanPtr* plan, std::string* why) {
  const TileRequest tile = forced.ti > 0 || forced.to > 0 ? forced : default_tile();
  const OpKey key = op_key(p);
  const RowOp op = find_op(key, x.isa);
  if (op == nullptr) {
    *why = "no typed CPU operation for types " + std::to_string(key.in) + " -> " +
           std::to_string(key.out) + " (or this CPU lacks the forced instruction set)";
    return false;
  }
  plan->reset();
  if (typed_tiles_apply(p) && select_tile_kernel(p.elem_size, x.isa).fn != nullptr)
    *plan = typed_tile_plan(p, op, scalars_of(p), key.beta, x, tile);
  if (*plan == nullptr) *plan = std::make_shared<TypedPlan>(p, op, key, x, tile);
  return true;
}

}  // namespace xpose::detail::cpu
