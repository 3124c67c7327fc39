// Geometry of the tiled schemas (`blocked`, `matrix`, `super`): which dims form the minor input
// and output multi-indices, how their last dims are segmented, the outer loop nest, the offset
// tables of one tile, and the cost model. Lyakh, paper 003 section II, with disjoint J and I.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "cpu/plans.hpp"

namespace xpose::detail::cpu {
namespace {

// Input strides (elements): the shape's own, or those of a compact column-major shape.
void input_strides(const Shape& s, int64_t* stride) {
  if (s.strided) {
    std::copy_n(s.in_stride.begin(), s.rank, stride);
    return;
  }
  int64_t acc = 1;
  for (int d = 0; d < s.rank; ++d) {
    stride[d] = acc;
    acc *= s.extent[d];
  }
}

// Output strides (elements) of each input dim.
void output_strides(const Shape& s, int64_t* stride) {
  if (s.strided) {
    std::copy_n(s.out_stride.begin(), s.rank, stride);
    return;
  }
  int64_t acc = 1;
  for (int i = 0; i < s.rank; ++i) {
    stride[s.perm[i]] = acc;
    acc *= s.extent[s.perm[i]];
  }
}

TileShape default_tile(size_t eb) {
  if (std::has_single_bit(eb) && eb <= 16) return kTuning.tile_by_size[std::countr_zero(eb)];
  const auto root = static_cast<int64_t>(
      std::sqrt(static_cast<double>(kTuning.super_tile_bytes) / static_cast<double>(eb)));
  const int side = static_cast<int>(std::max(kTuning.super_min_side, root));
  return {side, side};
}

// The minor multi-indices: grows J (input dims 0, 1, ..) and I (output dims 0, 1, ..) in turn
// until each reaches its target volume or meets a dim the other already holds.
struct Minor {
  int m = 1, k = 1;
  int64_t vol_j = 1, vol_i = 1;
  bool in_j[kMaxRank]{}, in_i[kMaxRank]{};
};

// The narrower side grows first, so that it reaches its small target before the wider one
// takes the dims both want (a 256 x 32 tile of (225,225,15,15) perm (2,1,0,3) took input dim 1
// into J and left 120-byte output rows; I first makes them 360 B).
// Strided shapes: J and I grow only over dims that continue them in memory (a tile row is
// contiguous in the input, a tile column in the output).
void grow(const Shape& s, int64_t tj, int64_t tk, Minor* mi) {
  const auto continues_in = [&](int d) {
    return !s.strided || s.in_stride[d] == s.in_stride[d - 1] * s.extent[d - 1];
  };
  const auto continues_out = [&](int i) {
    return !s.strided ||
           s.out_stride[s.perm[i]] == s.out_stride[s.perm[i - 1]] * s.extent[s.perm[i - 1]];
  };
  const auto grow_j = [&] {
    if (mi->vol_j >= tj || mi->m >= s.rank || mi->in_i[mi->m] || !continues_in(mi->m))
      return false;
    mi->in_j[mi->m] = true;
    mi->vol_j *= s.extent[mi->m++];
    return true;
  };
  const auto grow_i = [&] {
    if (mi->vol_i >= tk || mi->k >= s.rank || mi->in_j[s.perm[mi->k]] || !continues_out(mi->k))
      return false;
    mi->in_i[s.perm[mi->k]] = true;
    mi->vol_i *= s.extent[s.perm[mi->k++]];
    return true;
  };
  for (bool changed = true; changed;) {
    if (tk < tj) {
      changed = grow_i();
      changed = grow_j() || changed;
    } else {
      changed = grow_j();
      changed = grow_i() || changed;
    }
  }
}

// Whether a strided output leaves gaps between its elements: its dims, by stride, are not a
// compact layout in some order (a padded sub-tensor, not a dense tensor stored dims permuted).
bool output_gaps(const Shape& s) {
  if (!s.strided) return false;
  int64_t os[kMaxRank];
  output_strides(s, os);
  int order[kMaxRank];
  for (int d = 0; d < s.rank; ++d) order[d] = d;
  std::sort(order, order + s.rank, [&](int a, int b) { return os[a] < os[b]; });
  int64_t dense = 1;
  for (int k = 0; k < s.rank; ++k) {
    if (os[order[k]] != dense) return true;
    dense *= s.extent[order[k]];
  }
  return false;
}

// Segment length of a last dim of `extent` after `inner` elements, for a side of about
// `target`: balanced segments (100 by 32 gives 4 x 25, not 3 x 32 + 4); uncut up to `slack`
// times the target.
int64_t segment(int64_t extent, int64_t inner, int64_t target, int64_t slack) {
  if (inner * extent <= slack * target) return extent;
  const int64_t want = std::max<int64_t>(1, (target + inner - 1) / inner);
  const int64_t count = (extent + want - 1) / want;
  return (extent + count - 1) / count;
}

// out[0..count) = the offsets (times `scale`) of the first `count` points of the box `ext` (dims
// fastest first) at `stride`, in order: an odometer (planning builds these tables for every
// candidate; a division a dim and entry took a fifth of 1-byte planning).
// Only offsets of points inside the box are formed (the tensor's, which fit in 64 bits; one
// past a dim's end may not: plan_fuzzer).
void box_offsets(int dims, const int64_t* ext, const int64_t* stride, int count, int64_t scale,
                 int64_t* out) {
  int64_t digit[kMaxRank] = {}, off = 0;
  for (int n = 0; n < count;) {
    out[n] = off * scale;
    if (++n == count) break;
    for (int i = 0; i < dims; ++i) {
      if (++digit[i] < ext[i]) {
        off += stride[i];
        break;
      }
      off -= (ext[i] - 1) * stride[i];
      digit[i] = 0;
    }
  }
}

void fill_tables(const Shape& s, const Minor& mi, TileGeometry* g) {
  int64_t is[kMaxRank], os[kMaxRank], ext[kMaxRank], stride[kMaxRank];
  input_strides(s, is);
  output_strides(s, os);
  const int64_t eb = static_cast<int64_t>(s.eb), ieb = static_cast<int64_t>(g->in_eb);
  for (int i = 0; i < mi.k; ++i) {  // I: output dims 0..k-1, the last one cut to i_seg
    ext[i] = i + 1 < mi.k ? s.extent[s.perm[i]] : g->i_seg;
    stride[i] = is[s.perm[i]];
  }
  box_offsets(mi.k, ext, stride, g->to, ieb, g->icol);
  for (int d = 0; d < mi.m; ++d) {  // J: input dims 0..m-1, the last one cut to j_seg
    ext[d] = d + 1 < mi.m ? s.extent[d] : g->j_seg;
    stride[d] = os[d];
  }
  box_offsets(mi.m, ext, stride, g->ti, eb, g->orow);
}

// The outer nest: segment loops of J and I plus every dim outside J and I, innermost the one
// with the smallest output stride, so consecutive tiles write nearby output.
void fill_loops(const Shape& s, const Minor& mi, TileGeometry* g) {
  int64_t is[kMaxRank], os[kMaxRank];
  input_strides(s, is);
  output_strides(s, os);
  const int64_t eb = static_cast<int64_t>(s.eb), ieb = static_cast<int64_t>(g->in_eb);
  const int jl = mi.m - 1, il = s.perm[mi.k - 1];
  // A loop's step in bytes: `elems` strides of `size` bytes. A loop of two or more iterations
  // steps by at most (extent - 1) strides, whose bytes make_problem_ex bounds below 2^63; a loop
  // of one iteration never steps, and its step may not fit (a dim of extent 1 at any stride, a
  // segment that is a whole dim: extent x |stride|): it then takes the largest multiple of 4096
  // of its sign, ordered among the loops as its own.
  const auto step = [](int64_t elems, int64_t stride, int64_t size) {
    int64_t r;
    if (!__builtin_mul_overflow(elems, stride, &r) && !__builtin_mul_overflow(r, size, &r))
      return r;
    const int64_t big = std::numeric_limits<int64_t>::max() / 4096 * 4096;
    return stride < 0 ? -big : big;
  };
  int n = 0;
  g->loop[n++] = {(g->j_last_extent + g->j_seg - 1) / g->j_seg, step(g->j_seg, is[jl], ieb),
                  step(g->j_seg, os[jl], eb)};
  g->loop[n++] = {(g->i_last_extent + g->i_seg - 1) / g->i_seg, step(g->i_seg, is[il], ieb),
                  step(g->i_seg, os[il], eb)};
  for (int d = 0; d < s.rank; ++d)
    if (!mi.in_j[d] && !mi.in_i[d])
      g->loop[n++] = {s.extent[d], step(1, is[d], ieb), step(1, os[d], eb)};
  int role[kMaxRank + 2];
  for (int l = 0; l < n; ++l) role[l] = l < 2 ? l : 2;
  for (int a = 1; a < n; ++a)  // insertion sort by output stride, carrying the roles
    for (int b = a; b > 0 && g->loop[b].out_stride < g->loop[b - 1].out_stride; --b) {
      std::swap(g->loop[b], g->loop[b - 1]);
      std::swap(role[b], role[b - 1]);
    }
  g->loops = n;
  g->tasks = 1;
  for (int l = 0; l < n; ++l) {
    if (role[l] == 0) g->j_loop = l;
    if (role[l] == 1) g->i_loop = l;
    g->tasks *= g->loop[l].extent;
  }
  g->b_loop = 1;
  g->ga = g->loop[0].extent;
  g->gb = 1;
}

// icol[to + c]: column c of the next I segment, which only a tile with a next segment reads
// (tile_plan.cpp), and only as far as that segment reaches. Filled for the columns the second
// segment has, so each offset is that of an element of the tensor: adding the segment stride to
// a column past the tensor's end overflowed 64 bits for tensors of ~2^62 bytes (issue 17).
void fill_next_columns(TileGeometry* g) {
  const int64_t segments = g->loop[g->i_loop].extent;
  if (segments < 2) return;
  const int64_t second = g->i_inner * std::min(g->i_seg, g->i_last_extent - g->i_seg);
  const int64_t ext = std::min<int64_t>({g->to, line_ext(g->eb), second});
  for (int64_t c = 0; c < ext; ++c) g->icol[g->to + c] = g->icol[c] + g->loop[g->i_loop].in_stride;
}

// Pages one tile side touches: `n` runs of `run` bytes at offsets `off` (runs that continue
// each other count as one), each about 1 + run / page pages.
double side_pages(const int64_t* off, int n, int64_t run) {
  int spans = 1;
  for (int i = 1; i < n; ++i) spans += off[i] != off[i - 1] + run;
  return spans + static_cast<double>(n) * static_cast<double>(run) / kTuning.page_bytes;
}

// Tile order (tile_walk.hpp). Loop 0 (smallest output stride) shares output pages between
// consecutive tiles; when its input stride is a page or more, the input pages come back only
// along the loop with the smallest input stride (B), after a whole sweep of loop 0. If that
// sweep touches more pages than the TLB holds, the plane (loop 0, B) is walked in groups:
// gb steps of B use up an input page, ga steps of loop 0 keep the group within the budget.
void choose_groups(TileGeometry* g) {
  static const bool off = [] {
    const char* v = std::getenv("XPOSE_CPU_GROUP");  // "0": plain odometer (experiments)
    return v != nullptr && v[0] == '0';
  }();
  const int64_t page = kTuning.page_bytes, eb = static_cast<int64_t>(g->eb);
  if (off || g->loops < 2 || g->loop[0].in_stride < page) return;
  int b = -1;
  for (int l = 1; l < g->loops; ++l)
    if (g->loop[l].extent > 1 && (b < 0 || g->loop[l].in_stride < g->loop[b].in_stride)) b = l;
  if (b < 0 || g->loop[b].in_stride >= page) return;
  const double tile_pages =
      side_pages(g->icol, g->to, g->ti * eb) + side_pages(g->orow, g->ti, g->to * eb);
  const int64_t ea = g->loop[0].extent;
  g->b_loop = b;
  // A whole sweep of loop 0 fits: B just comes next (input pages back after ea tiles).
  if (static_cast<double>(ea) * tile_pages <= kTuning.tlb_group_pages) return;
  g->gb = std::min(g->loop[b].extent, (page + g->loop[b].in_stride - 1) / g->loop[b].in_stride);
  const auto ga = static_cast<int64_t>(kTuning.tlb_group_pages / (tile_pages * g->gb));
  g->ga = std::clamp<int64_t>(ga, 1, ea);
}

}  // namespace

Shape shape_of(const Problem& p) {
  Shape s;
  s.rank = p.rank;
  s.extent = p.extent;
  s.perm = p.perm;
  s.eb = p.elem_size;
  s.volume = p.volume;
  return s;
}

Shape super_shape(const Problem& p) {
  Shape s;
  s.rank = p.rank - 1;
  for (int d = 1; d < p.rank; ++d) s.extent[d - 1] = p.extent[d];
  for (int i = 1; i < p.rank; ++i) s.perm[i - 1] = p.perm[i] - 1;
  s.eb = p.elem_size * static_cast<size_t>(p.extent[0]);
  s.volume = p.volume / p.extent[0];
  return s;
}

bool make_tile_geometry(const Shape& s, const TileRequest& req, TileGeometry* g,
                        std::string* why) {
  const int64_t eb = static_cast<int64_t>(s.eb);
  if (req.matrix && (s.extent[0] * eb < kTuning.matrix_min_run_bytes ||
                     s.extent[s.perm[0]] * eb < kTuning.matrix_min_run_bytes)) {
    *why = "both leading extents must span " + std::to_string(kTuning.matrix_min_run_bytes) +
           " bytes (input " + std::to_string(s.extent[0]) + ", output " +
           std::to_string(s.extent[s.perm[0]]) + " elements of " + std::to_string(eb) + " B)";
    return false;
  }
  const TileShape def = default_tile(s.eb);
  int64_t tj = req.ti > 0 ? req.ti : def.ti, tk = req.to > 0 ? req.to : def.to;
  // Output rows of up to twice the TO target (segment() below) must fit the staging buffer of the
  // non-temporal path with their line_ext columns: a bound for super-elements of more than 16 B.
  const int64_t stage_to = std::max<int64_t>(
      1, (kTuning.stage_bytes / eb - line_ext(s.eb)) / 2);
  if (req.to <= 0) tk = std::min(tk, stage_to);
  Minor mi;
  mi.in_j[0] = mi.in_i[s.perm[0]] = true;
  mi.vol_j = s.extent[0];
  mi.vol_i = s.extent[s.perm[0]];
  if (!req.matrix) {
    grow(s, tj, tk, &mi);
    // A side that cannot reach its target (its next dim is in the other multi-index) hands its
    // share of the tile area to the other side, so tiles stay large enough to amortize the nest.
    const int64_t cap = Tuning::kMaxTileSide / 2;
    if (mi.vol_j < tj) tk = std::min({cap, stage_to, tk * tj / mi.vol_j});
    if (mi.vol_i < tk) tj = std::min(cap, tj * tk / std::max<int64_t>(1, mi.vol_i));
    grow(s, tj, tk, &mi);
  }
  *g = TileGeometry{};
  g->eb = s.eb;
  g->in_eb = s.in_eb ? s.in_eb : s.eb;
  g->m = mi.m;
  g->k = mi.k;
  g->j_last_extent = s.extent[mi.m - 1];
  g->j_inner = mi.vol_j / g->j_last_extent;
  g->j_seg = segment(g->j_last_extent, g->j_inner, tj, 1);
  g->i_last_extent = s.extent[s.perm[mi.k - 1]];
  g->i_inner = mi.vol_i / g->i_last_extent;
  // A whole output row (I uncut) up to twice the target: its rows can continue each other in
  // the output (next output dim in J) and need no partial lines at segment ends, as when
  // (80,51,175,35) perm (3,0,2,1) cut its 35-element rows into 18 + 17 (0.57 of memcpy, 1.15
  // uncut).
  g->i_seg = segment(g->i_last_extent, g->i_inner, tk, 2);
  g->ti = static_cast<int>(g->j_inner * g->j_seg);
  g->to = static_cast<int>(g->i_inner * g->i_seg);
  g->out_gaps = output_gaps(s);
  fill_tables(s, mi, g);
  fill_loops(s, mi, g);
  fill_next_columns(g);
  choose_groups(g);
  return true;
}

// Runs of `run` bytes at offsets off[0..n) joined where one continues another in memory, in any
// order: n / (the number of joined spans).
double joined_runs(const int64_t* off, int n, int64_t run) {
  // Tables of a tile side (at most kMaxTileSide entries), often in order already.
  int64_t buf[Tuning::kMaxTileSide];
  std::vector<int64_t> heap;
  int64_t* o = buf;
  if (n > Tuning::kMaxTileSide) heap.resize(static_cast<size_t>(n)), o = heap.data();
  std::copy(off, off + n, o);
  if (!std::is_sorted(o, o + n)) std::sort(o, o + n);
  int spans = 1;
  for (int i = 1; i < n; ++i) spans += o[i] != o[i - 1] + run;
  return static_cast<double>(n) / spans;
}

// Time in the register blocks of a 1- or 2-byte kernel (TileKernel::block_rows/cols): a tile
// edge that cuts a block still costs the whole block, so thin tiles (264 x 3 bytes when the
// next output dim is in J) cost up to 16 times their bytes. 0 for the other kernels.
double block_seconds(const TileGeometry& g, const ExecSettings& x) {
  const TileKernel k = select_tile_kernel(g.eb, x.isa);
  if (k.block_rows == 0) return 0;
  const int64_t blocks = (g.ti + k.block_rows - 1) / k.block_rows *
                         ((g.to + k.block_cols - 1) / k.block_cols);
  const double block_bytes = static_cast<double>(k.block_rows * k.block_cols) *
                             static_cast<double>(g.eb);
  return static_cast<double>(g.tasks * blocks) * block_bytes /
         (kTuning.narrow_block_rate * x.threads);
}

bool l1_crowding_counts(int64_t volume, size_t elem, int threads) {
  return elem == 4 && volume <= kTuning.l2_bytes_per_thread * threads / 8;  // in + out
}

int rows_per_l1_set(const TileGeometry& g) {
  int count[256] = {}, most = 0;
  const int sets = std::min(kTuning.l1_sets, 256);
  for (int r = 0; r < g.ti; ++r) {
    const auto set = static_cast<int>((g.orow[r] / kTuning.line_bytes) % sets);
    most = std::max(most, ++count[set]);
  }
  return most;
}

double predict_tile(const TileGeometry& g, int64_t volume, const ExecSettings& x, size_t elem) {
  // In integers first: the problem's bytes, validated below 2^63, may round up to 2^63 as a
  // double, which no int64_t holds (found by plan_fuzzer, issue 17).
  const int64_t total = volume * static_cast<int64_t>(g.eb);
  const double bytes = static_cast<double>(total);
  const int64_t line = kTuning.line_bytes, eb = static_cast<int64_t>(g.eb);
  // 1- and 2-byte elements: a tile's runs that continue each other in memory count as one
  // (11-byte input columns of (11,185,3,..) perm (2,1,0,..), adjacent along the tile), so their
  // lines are not charged as partial. Wider elements keep the plain run length, as measured.
  const bool narrow = eb <= 2;
  // Problems of 1- and 2-byte elements, super plans included (their leading runs of 3..63 bytes).
  const bool narrow_problem = (elem != 0 ? static_cast<int64_t>(elem) : eb) <= 2;
  const double in_run =
      static_cast<double>(g.ti * eb) * (narrow ? joined_runs(g.icol, g.to, g.ti * eb) : 1.0);
  const double out_run =
      static_cast<double>(g.to * eb) * (narrow ? joined_runs(g.orow, g.ti, g.to * eb) : 1.0);
  // A run of R bytes at an arbitrary element offset touches about (R + line - eb) / line lines;
  // neighbouring tiles reuse about half of the partial lines while they are still cached.
  const auto waste = [&](double run) {
    return 1.0 + 0.5 * static_cast<double>(std::max<int64_t>(0, line - eb)) / run;
  };
  const double read = bytes * waste(in_run);
  double write = bytes * write_factor(total, x);
  if (!x.nt) {
    write *= waste(out_run);
    // Plain 4-byte tiles in L2 whose partial output lines crowd an L1 set (tuning.hpp).
    if (eb == 4 && l1_crowding_counts(volume, elem, x.threads) &&
        rows_per_l1_set(g) > kTuning.l1_ways)
      write *= kTuning.set_conflict_factor;
  } else {
    // Non-temporal tiles write whole lines except at the two ends of each whole output row (all
    // I dims) that is not line-sized, unless the tile's rows continue each other there.
    const int64_t row = g.i_inner * g.i_last_extent * eb;
    const bool whole_rows = g.loop[g.i_loop].extent == 1;
    int next = 1;  // rows continuing the first one in place
    while (whole_rows && next < g.ti && g.orow[next] == g.orow[next - 1] + row) ++next;
    double span = next;
    // Whole rows of a tile that fits the staging buffer are staged in output order, so rows
    // that continue each other anywhere in the tile leave as one span: (43,5460,9) perm (2,1,0)
    // of 13-byte super-elements has 117-byte rows continuing each other 43 rows apart, and was
    // charged 10 line writes per 117 bytes (predicted 8.6 ms, ran 2.2 ms), so `direct` won at
    // 25 ms. (Larger tiles leave such rows to the LineWriter, which joins them at a cost: a
    // 160 x 110 tile of 2-byte elements with 220-byte rows ran 2.1x slower than an 8 x 330 one.)
    if (narrow_problem && whole_rows && g.ti * row <= kTuning.stage_bytes)
      span = std::max(span, joined_runs(g.orow, g.ti, row));
    if (row % line != 0)
      write += bytes / (static_cast<double>(row) * span) * 2 * kTuning.partial_line_cost *
               static_cast<double>(line);
  }
  const double bw = std::min(kTuning.bandwidth_socket, kTuning.bandwidth_per_thread * x.threads);
  const double overhead = static_cast<double>(g.tasks) * kTuning.tile_overhead_s / x.threads;
  return (read + write) / bw + overhead + block_seconds(g, x);
}

}  // namespace xpose::detail::cpu
