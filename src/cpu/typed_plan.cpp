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
    for (int k = 0; k < p.rank; ++k) {
      if (k == i_ || k == j_) continue;
      outer_ext_[outer_] = p.extent[k];
      outer_is_[outer_] = in.stride[k] * ie_;
      outer_os_[outer_++] = ostr[k] * oe_;
    }
    n_i_ = p.rank ? p.extent[i_] : 1, n_j_ = p.rank ? p.extent[j_] : 1;
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
      segs_ = (n_i_ + kRowSegment - 1) / kRowSegment;
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
      d << "rows of " << n_i_ << " (dim " << i_ << "), segments of " << kRowSegment;
    d << "; " << outer_ << " outer dims\n";
    return d.str();
  }

 private:
  bool is_copy() const {
    return !key_.alpha && !key_.beta && key_.in == key_.out && !(key_.in >= XPOSE_TYPE_F8_E4M3);
  }

  // Byte offsets of outer index `q` (column-major over the outer dims).
  void outer_offsets(int64_t q, int64_t* io, int64_t* oo) const {
    *io = *oo = 0;
    for (int d = 0; d < outer_; ++d) {
      const int64_t c = q % outer_ext_[d];
      q /= outer_ext_[d];
      *io += c * outer_is_[d], *oo += c * outer_os_[d];
    }
  }

  void rows(const char* in, char* out, int64_t u0, int64_t u1) const {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t seg = u % segs_;
      int64_t io, oo;
      outer_offsets(u / segs_, &io, &oo);
      const int64_t e0 = seg * kRowSegment, n = std::min(kRowSegment, n_i_ - e0);
      op_(in + io + e0 * is_i_, is_i_, out + oo + e0 * os_i_, os_i_, n, s_);
    }
  }

  void tiles(const char* in, char* out, int64_t u0, int64_t u1) const {
    alignas(64) char stage[kStageBytes + 64];
    int64_t icol[Tuning::kMaxTileSide], orow[Tuning::kMaxTileSide];
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t ti = u % tiles_i_, tj = (u / tiles_i_) % tiles_j_;
      int64_t io, oo;
      outer_offsets(u / (tiles_i_ * tiles_j_), &io, &oo);
      const int64_t r0 = tj * ti_, c0 = ti * to_;
      const int nr = static_cast<int>(std::min(ti_, n_j_ - r0));
      const int nc = static_cast<int>(std::min(to_, n_i_ - c0));
      const char* src = in + io + r0 * is_j_ + c0 * is_i_;
      char* dst = out + oo + r0 * os_j_ + c0 * os_i_;
      if (direct_ && kernel_) {
        for (int c = 0; c < nc; ++c) icol[c] = c * is_i_;
        for (int r = 0; r < nr; ++r) orow[r] = r * os_j_;
        kernel_(src, icol, dst, orow, nr, nc, static_cast<size_t>(ie_));
        continue;
      }
      const int64_t row_bytes = nc * ie_;
      if (kernel_) {
        for (int c = 0; c < nc; ++c) icol[c] = c * is_i_;
        for (int r = 0; r < nr; ++r) orow[r] = r * row_bytes;
        kernel_(src, icol, stage, orow, nr, nc, static_cast<size_t>(ie_));
      } else {
        for (int r = 0; r < nr; ++r)
          for (int c = 0; c < nc; ++c)
            std::memcpy(stage + r * row_bytes + c * ie_, src + r * is_j_ + c * is_i_,
                        static_cast<size_t>(ie_));
      }
      for (int r = 0; r < nr; ++r) op_(stage + r * row_bytes, ie_, dst + r * os_j_, os_i_, nc, s_);
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
  int outer_ = 0;
  int64_t outer_ext_[kMaxRank]{}, outer_is_[kMaxRank]{}, outer_os_[kMaxRank]{};
  int64_t outer_volume_ = 1, units_ = 1, segs_ = 1;
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
