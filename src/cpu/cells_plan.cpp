// The `cells` schema's plan (cells.hpp): which problems it takes, the permute tables of a cell
// and the walk over cells, made at plan time; execute splits the output's cells among threads.
#include <algorithm>
#include <memory>
#include <sstream>

#include "cpu/cells.hpp"
#include "cpu/plans.hpp"

namespace xpose::detail::cpu {
namespace {

class CellsPlan final : public BackendPlan {
 public:
  // g: the cells as runs (make_run_geometry(p, k)).
  CellsPlan(const Problem& p, int k, const RunGeometry& g, const ExecSettings& x,
            double predicted)
      : k_(k), x_(x), predicted_(predicted), fn_(cells_kernel()) {
    const auto es = static_cast<int64_t>(p.elem_size);
    t_.bytes = g.run * es;
    t_.regs = static_cast<int>((t_.bytes + 63) / 64);
    // Output byte b of a cell: element b / es over the output's dims 0..k-1, byte b % es of it.
    int64_t in_stride[kMaxRank], acc = 1;  // elements, within a cell
    for (int d = 0; d < k; ++d) {
      in_stride[d] = acc;
      acc *= p.extent[d];
    }
    for (int64_t b = 0; b < t_.bytes; ++b) {
      int64_t rest = b / es, src = 0;
      for (int i = 0; i < k; ++i) {
        const int64_t e = p.extent[p.perm[i]];
        src += rest % e * in_stride[p.perm[i]];
        rest /= e;
      }
      const int64_t from = src * es + b % es;
      const int o = static_cast<int>(b / 64), lane = static_cast<int>(b % 64);
      const int q = static_cast<int>(from / 128);
      t_.idx[o][q][lane] = static_cast<uint8_t>(from % 128);
      t_.mask[o][q] |= uint64_t{1} << lane;
    }
    cells_ = p.volume / g.run;
    w_.rank = g.outer_rank;
    for (int i = 0; i < g.outer_rank; ++i) {
      w_.extent[i] = g.outer_extent[i];
      w_.in_stride[i] = g.outer_in_stride[i] * es;
    }
  }

  xpose_status_t execute(const void* in, void* out, void*) const override {
    const auto* src = static_cast<const char*>(in);
    auto* dst = static_cast<char*>(out);
    run_chunks(x_.threads, cells_, cells_ * t_.bytes, [&](int64_t c0, int64_t c1) {
      fn_(t_, w_, src, dst, c0, c1, x_.nt);
      if (x_.nt) store_fence();
    });
    return XPOSE_SUCCESS;
  }

  double predicted_seconds() const override { return predicted_; }

  std::string describe() const override {
    std::ostringstream d;
    d << "cells cell=" << t_.bytes << "B nt=" << x_.nt << " threads=" << x_.threads
      << " kernel=avx512vbmi\n  " << cells_ << " cells of input dims 0.." << k_ - 1 << " ("
      << t_.bytes << " B, " << t_.regs
      << " registers), each permuted in registers; outer dims (output order):";
    for (int i = 0; i < w_.rank; ++i) d << " " << w_.extent[i];
    d << "\n  stores: " << (x_.nt ? "non-temporal via staging" : "regular") << "; predicted "
      << predicted_ * 1e3 << " ms\n";
    return d.str();
  }

 private:
  int k_;
  ExecSettings x_;
  double predicted_;
  CellFn fn_;
  CellTables t_;
  CellWalk w_;
  int64_t cells_ = 0;
};

}  // namespace

int cell_dims(const Problem& p, std::string* why) {
  if (!p.plain() || p.rank < 2 || p.perm[0] == 0) {
    *why = "cells takes plain problems whose leading dimension moves (rank >= 2)";
    return 0;
  }
  int k = 0, top = -1;
  int64_t elems = 1;
  for (int i = 0; i < p.rank && k == 0; ++i) {
    top = std::max(top, p.perm[i]);
    elems *= p.extent[i];
    if (top == i && i >= 1) k = i + 1;
  }
  if (k == 0 || elems * static_cast<int64_t>(p.elem_size) > kMaxCellBytes) {
    *why = "the first input dims that are the output's first (a cell) hold more than " +
           std::to_string(kMaxCellBytes) + " bytes, or none do";
    return 0;
  }
  if (cells_kernel() == nullptr) {
    *why = "this CPU or build lacks AVX-512 VBMI";
    return 0;
  }
  return k;
}

BackendPlanPtr make_cells_plan(const Problem& p, int k, const ExecSettings& x) {
  // Costed as `direct` copying the cells as runs (what moves through memory is the same).
  const RunGeometry g = make_run_geometry(p, k);
  return std::make_shared<CellsPlan>(p, k, g, x, predict_run(p, g, x));
}

}  // namespace xpose::detail::cpu
