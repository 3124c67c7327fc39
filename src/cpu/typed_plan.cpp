// The `typed` schema: every problem that is not plain() (strides of any sign, broadcast input,
// conversion, alpha/beta, integer accumulation), docs/cpu.md. Two shapes:
//  - rows: the dimension fastest in the output is also the one walked in the input; each row
//    is one element operation (typed_ops.hpp) at the two strides, long rows cut in segments;
//  - tiles: the input's fastest dimension J and the output's fastest I differ; a TI x TO tile
//    is transposed as raw elements into a staging buffer (the SIMD tile kernels when J is
//    contiguous, a scalar gather otherwise), then each of its output rows is one element
//    operation from the buffer into the output. A pure copy with a contiguous output row skips
//    the buffer: the tile kernel writes the output itself.
// Work units (row segments, tiles) are spread over OpenMP threads by run_chunks like the dense
// schemas'. Strides come from the Problem, in elements, turned into bytes here.
#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "core/status.hpp"
#include "cpu/plans.hpp"
#include "cpu/typed_ops.hpp"
#include "cpu/typed_plan.hpp"

namespace xpose::detail::cpu {
namespace {

constexpr int64_t kRowSegment = 4096;       // elements per row unit (long rows split)
constexpr int64_t kStageBytes = 16 << 10;   // a tile's staging buffer (L1-resident)

bool is_complex(xpose_type_t t) { return t == XPOSE_TYPE_C32 || t == XPOSE_TYPE_C64; }

OpKey op_key(const Problem& p) {
  OpKey k;
  k.in = p.in_type;
  k.out = p.typed() ? p.out_type : p.in_type;
  k.elem_size = p.elem_size;
  const bool cx = is_complex(p.in_type);
  k.alpha = p.typed() && (p.alpha[0] != 1 || (cx && p.alpha[1] != 0));
  k.beta = p.beta[0] != 0 || (cx && p.beta[1] != 0);
  return k;
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
    if (stride[k] != 0 && extent[k] > 1 && (best < 0 || std::llabs(stride[k]) < std::llabs(stride[best])))
      best = k;
  return best;
}

class TypedPlan final : public BackendPlan {
 public:
  TypedPlan(const Problem& p, RowOp op, const OpKey& key, const ExecSettings& x)
      : op_(op), key_(key), x_(x), ie_(static_cast<int64_t>(p.elem_size)),
        oe_(static_cast<int64_t>(p.out_elem())), volume_(p.volume) {
    const Layout in = p.input();
    const Extents os = p.output_strides();
    s_.af[0] = static_cast<float>(p.alpha[0]), s_.af[1] = static_cast<float>(p.alpha[1]);
    s_.bf[0] = static_cast<float>(p.beta[0]), s_.bf[1] = static_cast<float>(p.beta[1]);
    s_.ad[0] = p.alpha[0], s_.ad[1] = p.alpha[1], s_.bd[0] = p.beta[0], s_.bd[1] = p.beta[1];
    Extents ostr{};
    for (int k = 0; k < p.rank; ++k) ostr[k] = os[k];
    i_ = std::max(0, fastest(p.rank, p.extent, ostr));
    j_ = fastest(p.rank, p.extent, in.stride);
    tiled_ = p.rank >= 2 && j_ >= 0 && j_ != i_;
    if (!tiled_) j_ = i_;
    bool grouped[kMaxRank] = {};
    grouped[i_] = grouped[j_] = true;
    group_ext_[0] = p.rank ? p.extent[i_] : 1, group_is_[0] = p.rank ? in.stride[i_] * ie_ : 0;
    n_group_ = 1;
    // The output dims that continue I in the output join it (tiles: their input offsets per
    // column come from icol; rows: short rows are staged back to back), so that short output
    // rows still give long element operations.
    for (int last = i_, k = 0; k < p.rank; ++k) {
      if (grouped[k] || p.extent[k] <= 1 || ostr[k] != ostr[last] * p.extent[last]) continue;
      grouped[k] = true;
      group_ext_[n_group_] = p.extent[k], group_is_[n_group_++] = in.stride[k] * ie_;
      last = k, k = -1;  // look for the dim continuing this one
    }
    for (int k = 0; k < p.rank; ++k) {
      if (grouped[k]) continue;
      outer_ext_[outer_] = p.extent[k];
      outer_is_[outer_] = in.stride[k] * ie_;
      outer_os_[outer_++] = ostr[k] * oe_;
    }
    n_i_ = 1;
    for (int g = 0; g < n_group_; ++g) n_i_ *= group_ext_[g];
    n_j_ = p.rank ? p.extent[j_] : 1;
    is_i_ = p.rank ? in.stride[i_] * ie_ : ie_, os_i_ = p.rank ? ostr[i_] * oe_ : oe_;
    is_j_ = p.rank ? in.stride[j_] * ie_ : ie_, os_j_ = p.rank ? ostr[j_] * oe_ : oe_;
    outer_volume_ = volume_ / (tiled_ ? n_i_ * n_j_ : n_i_);
    if (tiled_) {
      const int64_t side = ie_ <= 1 ? 128 : ie_ <= 4 ? 64 : 32;
      ti_ = std::min(n_j_, side);
      to_ = std::min(n_i_, std::max<int64_t>(side, kStageBytes / (ti_ * ie_)));
      to_ = std::min<int64_t>(to_, Tuning::kMaxTileSide);
      tiles_j_ = (n_j_ + ti_ - 1) / ti_, tiles_i_ = (n_i_ + to_ - 1) / to_;
      units_ = tiles_i_ * tiles_j_ * outer_volume_;
      direct_ = is_copy() && os_i_ == oe_;
      if (is_j_ == ie_) kernel_ = select_tile_kernel(static_cast<size_t>(ie_), x.isa).fn;
    } else {
      seg_ = n_group_ > 1 ? kStageBytes / ie_ : kRowSegment;
      segs_ = (n_i_ + seg_ - 1) / seg_;
      units_ = segs_ * outer_volume_;
    }
  }

  xpose_status_t execute(const void* in, void* out, void*) const override {
    const auto* src = static_cast<const char*>(in);
    auto* dst = static_cast<char*>(out);
    const int64_t bytes = volume_ * (ie_ + oe_ * (key_.beta ? 2 : 1));
    run_chunks(x_.threads, units_, bytes, [&](int64_t u0, int64_t u1) {
      if (tiled_) tiles(src, dst, u0, u1);
      else rows(src, dst, u0, u1);
    });
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
    d << "typed " << (tiled_ ? "tiles" : "rows") << " threads=" << x_.threads << "\n  "
      << ie_ << " B -> " << oe_ << " B elements, types " << key_.in << " -> " << key_.out
      << (key_.alpha ? ", alpha" : "") << (key_.beta ? ", beta (reads out)" : "") << "\n  ";
    if (tiled_)
      d << "tile " << ti_ << " x " << to_ << " (input dim " << j_ << " x output-fastest dim "
        << i_ << "), " << (direct_ ? "straight to the output" : "staged, then converted")
        << (kernel_ ? ", SIMD gather" : ", scalar gather");
    else
      d << "rows of " << n_i_ << " (dim " << i_ << (n_group_ > 1 ? " and the output dims after it, staged" : "")
        << "), segments of " << seg_;
    d << "; " << outer_ << " outer dims\n";
    return d.str();
  }

 private:
  bool is_copy() const {
    return !key_.alpha && !key_.beta && key_.in == key_.out && !(key_.in >= XPOSE_TYPE_F8_E4M3);
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

  // Row segments [u0, u1): unit u is segment u % segs_ of the row at outer index u / segs_.
  void rows(const char* in, char* out, int64_t u0, int64_t u1) const {
    alignas(64) char stage[kStageBytes];
    int64_t coord[kMaxRank], io, oo;
    outer_offsets(u0 / segs_, coord, &io, &oo);
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t seg = u % segs_;
      if (seg == 0 && u != u0) next_outer(coord, &io, &oo);
      const int64_t e0 = seg * seg_, n = std::min(seg_, n_i_ - e0);
      if (n_group_ == 1) {
        op_(in + io + e0 * is_i_, is_i_, out + oo + e0 * os_i_, os_i_, n, s_);
        continue;
      }
      // The group's rows, back to back in the stage, then one operation into the output.
      int64_t digit[kMaxRank], off = 0, q = e0;
      for (int g = 0; g < n_group_; ++g) {
        digit[g] = q % group_ext_[g];
        q /= group_ext_[g];
        off += digit[g] * group_is_[g];
      }
      for (int64_t e = e0; e < e0 + n;) {
        const int64_t run = std::min(group_ext_[0] - digit[0], e0 + n - e);
        char* to = stage + (e - e0) * ie_;
        if (is_i_ == ie_) {
          std::memcpy(to, in + io + off, static_cast<size_t>(run * ie_));
        } else {
          for (int64_t k = 0; k < run; ++k)
            std::memcpy(to + k * ie_, in + io + off + k * is_i_, static_cast<size_t>(ie_));
        }
        e += run;
        digit[0] += run, off += run * group_is_[0];
        for (int g = 0; g + 1 < n_group_ && digit[g] == group_ext_[g]; ++g) {
          off += group_is_[g + 1] - group_ext_[g] * group_is_[g];
          digit[g] = 0;
          ++digit[g + 1];
        }
      }
      op_(stage, ie_, out + oo + e0 * os_i_, os_i_, n, s_);
    }
  }

  // icol[c] = input byte offset of column c0 + c of the I group (n columns).
  void columns(int64_t c0, int n, int64_t* icol) const {
    int64_t digit[kMaxRank], off = 0;
    for (int g = 0; g < n_group_; ++g) {
      digit[g] = c0 % group_ext_[g];
      c0 /= group_ext_[g];
      off += digit[g] * group_is_[g];
    }
    for (int c = 0; c < n; ++c) {
      icol[c] = off;
      for (int g = 0; g < n_group_; ++g) {
        off += group_is_[g];
        if (++digit[g] < group_ext_[g]) break;
        off -= group_is_[g] * group_ext_[g];
        digit[g] = 0;
      }
    }
  }

  // Tiles [u0, u1): I tile fastest, then J tile, then the outer index.
  void tiles(const char* in, char* out, int64_t u0, int64_t u1) const {
    alignas(64) char stage[kStageBytes + 64];
    int64_t icol[Tuning::kMaxTileSide], orow[Tuning::kMaxTileSide];
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t ti = u % tiles_i_, tj = (u / tiles_i_) % tiles_j_;
      int64_t coord[kMaxRank], io, oo;
      outer_offsets(u / (tiles_i_ * tiles_j_), coord, &io, &oo);
      const int64_t r0 = tj * ti_, c0 = ti * to_;
      const int nr = static_cast<int>(std::min(ti_, n_j_ - r0));
      const int nc = static_cast<int>(std::min(to_, n_i_ - c0));
      const char* src = in + io + r0 * is_j_;
      char* dst = out + oo + r0 * os_j_ + c0 * os_i_;
      columns(c0, nc, icol);
      if (direct_ && kernel_) {
        for (int r = 0; r < nr; ++r) orow[r] = r * os_j_;
        kernel_(src, icol, dst, orow, nr, nc, static_cast<size_t>(ie_));
        continue;
      }
      const int64_t row_bytes = nc * ie_;
      if (kernel_) {
        for (int r = 0; r < nr; ++r) orow[r] = r * row_bytes;
        kernel_(src, icol, stage, orow, nr, nc, static_cast<size_t>(ie_));
      } else {
        for (int r = 0; r < nr; ++r)
          for (int c = 0; c < nc; ++c)
            std::memcpy(stage + r * row_bytes + c * ie_, src + r * is_j_ + icol[c],
                        static_cast<size_t>(ie_));
      }
      if (nc == n_i_ && os_j_ == n_i_ * os_i_)  // the whole tile is one run of the output
        op_(stage, ie_, dst, os_i_, int64_t{nr} * nc, s_);
      else
        for (int r = 0; r < nr; ++r)
          op_(stage + r * row_bytes, ie_, dst + r * os_j_, os_i_, nc, s_);
    }
  }

  RowOp op_;
  OpKey key_;
  ExecSettings x_;
  Scalars s_;
  int64_t ie_, oe_, volume_;
  bool tiled_ = false, direct_ = false;
  int i_ = 0, j_ = 0;  // output-fastest dim (rows: the row dim) and input-fastest dim
  int64_t n_i_ = 1, n_j_ = 1, is_i_ = 0, os_i_ = 0, is_j_ = 0, os_j_ = 0;  // bytes
  int n_group_ = 1;  // tiles: I and the output dims continuing it, fastest first
  int64_t group_ext_[kMaxRank]{}, group_is_[kMaxRank]{};
  int outer_ = 0;
  int64_t outer_ext_[kMaxRank]{}, outer_is_[kMaxRank]{}, outer_os_[kMaxRank]{};
  int64_t outer_volume_ = 1, units_ = 1, segs_ = 1, seg_ = kRowSegment;
  int64_t ti_ = 1, to_ = 1, tiles_i_ = 1, tiles_j_ = 1;
  TileFn kernel_ = nullptr;
};

}  // namespace

bool typed_plan_applies(const Problem& p) { return !p.plain() || p.reads_out(); }

bool make_typed_plan(const Problem& p, const ExecSettings& x, BackendPlanPtr* plan,
                     std::string* why) {
  const OpKey key = op_key(p);
  const RowOp op = find_op(key, x.isa);
  if (op == nullptr) {
    *why = "no typed CPU operation for types " + std::to_string(key.in) + " -> " +
           std::to_string(key.out) + " (or this CPU lacks the forced instruction set)";
    return false;
  }
  *plan = std::make_shared<TypedPlan>(p, op, key, x);
  return true;
}

}  // namespace xpose::detail::cpu
