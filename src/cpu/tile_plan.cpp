// Execution of the tiled schemas: the outer loop nest split in contiguous ranges of tiles that
// OpenMP threads take as they become free (run_chunks), one micro-kernel call per tile, and for
// non-temporal output a per-thread staging buffer (made once per thread) streamed out row by row.

#include <algorithm>
#include <memory>
#include <sstream>
#include <utility>

#include "cpu/line_writer.hpp"
#include "cpu/plans.hpp"
#include "cpu/tile_walk.hpp"

namespace xpose::detail::cpu {
namespace {

// Staging buffer of the non-temporal path, per thread: any staged row fits (staged_rows_fit();
// build() in cpu_backend.cpp plans regular stores for geometries that fail it).
constexpr int64_t kStageBytes = kTuning.stage_bytes;

// One thread's non-temporal workspace: the staging buffer and the held partial lines, ~110 KiB.
// On the heap, made once per thread and reused (LineWriter is empty again after flush()), not
// on the stack: a caller's thread may have a small stack (musl's default is 128 KiB).
struct NtWorkspace {
  alignas(64) char buf[kStageBytes];
  LineWriter lines;
};

NtWorkspace& nt_workspace() {
  thread_local const std::unique_ptr<NtWorkspace> ws = std::make_unique<NtWorkspace>();
  return *ws;
}

class TilePlan final : public BackendPlan {
 public:
  TilePlan(const char* schema, const TileGeometry& g, const ExecSettings& x, double predicted,
           TileOpPtr op)
      : schema_(schema), g_(g), x_(x), kernel_(select_tile_kernel(g.eb, x.isa)), op_(std::move(op)),
        predicted_(predicted) {
    if (g.in_eb <= 2 || (op_ && op_->prefetches())) find_prefetch_lines();
    // Whole output rows (I uncut) and a tile that fits the staging buffer: rows are staged in
    // output order, so rows that continue each other several rows apart ((4,192,7,..) perm
    // (4,3,1,..): 80 B rows, every 4th continuing the last) leave as one span, not as pieces
    // of a line for the LineWriter to join one by one.
    const int64_t row = g.to * static_cast<int64_t>(g.eb);
    if (x_.nt && g.loop[g.i_loop].extent > 1) find_wrap();
    aligned_rows_ = x_.nt && rows_line_aligned();
    sorted_ = x_.nt && g.loop[g.i_loop].extent == 1 && g.ti * row <= kStageBytes;
    if (!sorted_) return;
    for (int r = 0; r < g.ti; ++r) order_[r] = static_cast<int16_t>(r);
    std::sort(order_, order_ + g.ti, [&](int16_t a, int16_t b) { return g.orow[a] < g.orow[b]; });
    for (int k = 0; k < g.ti; ++k) srow_[order_[k]] = k * row;
    // The spans of a full tile (rows that continue each other in the output, in output order),
    // found once here instead of by a scan of every row of every tile (80 x 2 tiles of
    // (8,10,2,22,17,33,11) perm (2,0,3,6,4,1,5): ten 128 B spans each, 135762 tiles).
    for (int k = 0; k < g.ti;) {
      int e = k + 1;
      while (e < g.ti && g.orow[order_[e]] == g.orow[order_[e - 1]] + row) ++e;
      span_first_[spans_] = static_cast<int16_t>(k);
      span_rows_[spans_++] = static_cast<int16_t>(e - k);
      k = e;
    }
  }

  // Whether every tile row starts and ends on a cache line whenever the output pointer does: the
  // rows, the I segments, the whole output row and every step of the nest are whole lines (as in
  // the 16-extent suite). Then no line straddles two tiles and the `ext` columns would be
  // transposed only to be dropped (8 of 32 columns of a 256 x 32 tile).
  bool rows_line_aligned() const {
    const TileGeometry& g = g_;
    const int64_t line = kTuning.line_bytes, eb = static_cast<int64_t>(g.eb);
    if (g.to * eb % line != 0 || g.i_inner * g.i_last_extent * eb % line != 0) return false;
    for (int r = 0; r < g.ti; ++r)
      if (g.orow[r] % line != 0) return false;
    for (int l = 0; l < g.loops; ++l)
      if (g.loop[l].out_stride % line != 0) return false;
    return true;
  }

  // Rows cut into I segments: when the output row continues in row r + step of the same tile
  // (the next output dim after I is in J), the last segment's tile finishes that line with the
  // first columns of row r + step (from the first segment), and the first segment's tile leaves
  // that head alone: the `ext` columns between segments, carried over a row end. Needs a first
  // segment at least a line wide.
  void find_wrap() {
    const TileGeometry& g = g_;
    const int64_t full = g.i_inner * g.i_last_extent * static_cast<int64_t>(g.eb);
    if (g.to < line_ext(g.eb)) return;
    for (int s = 1; s < g.ti && wrap_ == 0; ++s)
      if (g.orow[s] == g.orow[0] + full) wrap_ = s;
    for (int r = 0; wrap_ > 0 && r + wrap_ < g.ti; ++r)
      cont_[r] = g.orow[r + wrap_] == g.orow[r] + full;
  }

  xpose_status_t execute(const void* in, void* out, void*) const override {
    const auto* src = static_cast<const char*>(in);
    auto* dst = static_cast<char*>(out);
    const bool whole = aligned_rows_ && (reinterpret_cast<uintptr_t>(dst) & 63) == 0;
    run_chunks(x_.threads, g_.tasks, g_.tasks * g_.ti * g_.to * static_cast<int64_t>(g_.eb),
               [&](int64_t t0, int64_t t1) { run(src, dst, t0, t1, whole); });
    return XPOSE_SUCCESS;
  }

  std::string describe() const override;
  double predicted_seconds() const override { return predicted_; }

 private:
  // Tiles [t0, t1) of the nest. `whole`: every tile row is whole lines (rows_line_aligned() and
  // a line-aligned output), so no tile finishes a line for the next one.
  void run(const char* in, char* out, int64_t t0, int64_t t1, bool whole) const {
    if (t0 >= t1) return;
    TileCursor cur(g_, t0);
    const TileGeometry& g = g_;
    NtWorkspace* ws = x_.nt ? &nt_workspace() : nullptr;
    const int64_t i_end = g.loop[g.i_loop].extent - 1;
    TileCursor ahead = cur;
    for (int64_t t = t0; t < t1; ++t, cur.next(g)) {
      if (prefetch_lines_ > 0) {
        ahead.next(g);
        if (t + 1 < t1) prefetch_input(in + ahead.in_off);
      }
      int nr = g.ti, nc = g.to;
      const int64_t jc = cur.coord[g.j_loop], ic = cur.coord[g.i_loop];
      if (jc == g.loop[g.j_loop].extent - 1)
        nr = static_cast<int>(g.j_inner * (g.j_last_extent - jc * g.j_seg));
      if (ic == i_end) nc = static_cast<int>(g.i_inner * (g.i_last_extent - ic * g.i_seg));
      if (x_.nt) {
        // Columns of the next I segment that finish this tile's last line of each row.
        const int next = ic + 1 == i_end
                             ? static_cast<int>(g.i_inner * (g.i_last_extent - (ic + 1) * g.i_seg))
                             : g.to;
        const bool wrap = wrap_ > 0 && ic == i_end && !whole;
        const int ext = whole || ic == i_end ? 0 : std::min(next, line_ext(g.eb));
        staged(in + cur.in_off, out + cur.out_off, nr, nc, wrap ? line_ext(g.eb) : ext, ic == 0,
               wrap ? in + cur.in_off - ic * g.loop[g.i_loop].in_stride : nullptr, ws);
      } else {
        tile(in + cur.in_off, g.icol, out + cur.out_off, g.orow, nr, nc);
      }
    }
    if (x_.nt) {
      ws->lines.flush();
      store_fence();
    }
  }

  // One tile through the staging buffer, in chunks of rows that fit it. Only whole output lines
  // are streamed (a partial non-temporal line is a read-modify-write in memory, and a regular
  // store to it a read for ownership): each line that straddles two I segments of a row is
  // written by the tile holding its first byte, which transposes `ext` extra columns of the next
  // segment for it and leaves the head of its own row to the previous segment (unless `first`).
  // Only the two ends of a whole output row remain partial: regular stores for rows cut into I
  // segments; whole rows go through `lines`, which holds them until later spans complete them.
  // `wrap_in`: the first I segment of this last-segment tile's rows, whose first `ext` columns
  // of row r + wrap_ finish row r's last line (find_wrap); nullptr otherwise.
  void staged(const char* in, char* out, int nr, int nc, int ext, bool first,
              const char* wrap_in, NtWorkspace* ws) const {
    char* buf = ws->buf;
    LineWriter* lines = &ws->lines;
    int64_t brow[Tuning::kMaxTileSide];
    lines->next_tile();
    const auto eb = static_cast<int64_t>(g_.eb), ieb = static_cast<int64_t>(g_.in_eb);
    const int64_t row_bytes = nc * eb, pitch = (nc + ext) * eb, line = kTuning.line_bytes;
    const bool cut = g_.loop[g_.i_loop].extent > 1;
    if (sorted_) {  // nc == to, ext == 0; rows of a ragged last J segment (>= nr) are absent
      tile(in, g_.icol, buf, srow_, nr, nc);
      if (nr == g_.ti) {
        for (int i = 0; i < spans_; ++i) {
          const int r = order_[span_first_[i]];
          put(lines, out + g_.orow[r], buf + srow_[r], span_rows_[i] * row_bytes);
        }
        return;
      }
      for (int k = 0; k < g_.ti;) {
        const int r = order_[k];
        int e = k + 1;
        while (r < nr && e < g_.ti && order_[e] < nr &&
               g_.orow[order_[e]] == g_.orow[order_[e - 1]] + row_bytes)
          ++e;
        if (r < nr) put(lines, out + g_.orow[r], buf + srow_[r], (e - k) * row_bytes);
        k = e;
      }
      return;
    }
    const int chunk = chunk_rows(nr, pitch);
    for (int r = 0; r < std::min(chunk, nr); ++r) brow[r] = r * pitch;
    for (int r0 = 0; r0 < nr; r0 += chunk) {
      const int rows = std::min(chunk, nr - r0);
      const int w = wrap_in == nullptr ? 0 : std::min(rows, nr - wrap_ - r0);
      tile(in + r0 * ieb, g_.icol, buf, brow, rows, wrap_in == nullptr ? nc + ext : nc);
      if (w > 0) tile(wrap_in + (r0 + wrap_) * ieb, g_.icol, buf + nc * eb, brow, w, ext);
      for (int r = 0; r < rows;) {
        char* start = out + g_.orow[r0 + r];
        // Rows that continue each other in the output (one I segment spans the whole row, as
        // with odd extents where J holds the next output dim) are streamed as one span.
        int e = r + 1;
        while (ext == 0 && first && e < rows && g_.orow[r0 + e] == g_.orow[r0 + e - 1] + row_bytes)
          ++e;
        const int64_t mis = static_cast<int64_t>(reinterpret_cast<uintptr_t>(start) & (line - 1));
        const int R = r0 + r;
        const bool head_done = first && R >= wrap_ && wrap_ > 0 && cont_[R - wrap_];
        const int64_t lo = (first && !head_done) || mis == 0 ? 0 : std::min(row_bytes, line - mis);
        int64_t hi = (e - r) * row_bytes;
        if (ext > 0 && (wrap_in == nullptr || (r < w && cont_[R])))
          hi = std::min(pitch, (mis + row_bytes + line - 1) / line * line - mis);
        // Rows cut into I segments keep their direct partial stores: a row's head waits a whole
        // sweep of its segments for its partner, too long for the writer's slots
        // ((225,15,225,15) perm (2,1,0,3): 900 heads over 14 tiles, 0.88 -> 0.63 of memcpy).
        if (hi > lo && cut)
          copy_bytes(start + lo, buf + brow[r] + lo, static_cast<size_t>(hi - lo), true);
        else if (hi > lo)
          put(lines, start + lo, buf + brow[r] + lo, static_cast<size_t>(hi - lo));
        r = e;
      }
    }
  }

  // A whole output row (or span of rows) through the LineWriter, except where the output has
  // gaps between rows (padded sub-tensors): no other row completes its partial end lines, and
  // holding them only stored each twice (the neighbouring row's piece of the same line at once,
  // the held one later, after the line left the cache).
  void put(LineWriter* lines, char* dst, const char* src, int64_t n) const {
    if (g_.out_gaps) copy_bytes(dst, src, static_cast<size_t>(n), true);
    else lines->put(dst, src, static_cast<size_t>(n));
  }

  // The lines of a full tile's input (offsets from the tile's first element, line-sized steps
  // from each column's start and its last byte), each once, so that a tile's requests cost one
  // instruction a line: short columns that continue each other asked for each line up to 8
  // times (16 x 16-byte tiles of (16,16,16,16,16,8) perm (1,0,3,2,5,4), 8 x 512 ones of 8^8:
  // 0.80x as fast as without any prefetch). At most kMaxPrefetch lines; no allocation (the
  // planner builds every candidate).
  void find_prefetch_lines() {
    const int64_t run = g_.ti * static_cast<int64_t>(g_.in_eb), line = kTuning.line_bytes;
    int64_t last = -1;
    const auto add = [&](int64_t at) {
      const int64_t l = at / line * line;
      if (l != last && prefetch_lines_ < kMaxPrefetch) prefetch_off_[prefetch_lines_++] = l;
      last = l;
    };
    for (int c = 0; c < g_.to; ++c) {
      for (int64_t o = 0; o < run; o += line) add(g_.icol[c] + o);
      add(g_.icol[c] + run - 1);
    }
    // In address order (requests to one page together): 8-10 % faster than column order on
    // (11,185,3,152,35) perm (2,1,0,4,3) and (11,121,11,121,11) perm (2,1,4,0,3).
    std::sort(prefetch_off_, prefetch_off_ + prefetch_lines_);
    prefetch_lines_ = static_cast<int>(
        std::unique(prefetch_off_, prefetch_off_ + prefetch_lines_) - prefetch_off_);
  }

  // The input lines of the tile at `in` (find_prefetch_lines()), requested one tile ahead into
  // L2 (addresses as integers: a ragged tile's columns may reach past the tensor, which a
  // prefetch never faults on).
  void prefetch_input(const char* in) const {
    const auto base = reinterpret_cast<uintptr_t>(in);
    for (int i = 0; i < prefetch_lines_; ++i)
      __builtin_prefetch(reinterpret_cast<const void*>(base + prefetch_off_[i]), 0, 2);
  }

  void tile(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
            int nc) const {
    if (op_) op_->run(in, icol, out, orow, nr, nc);
    else kernel_.fn(in, icol, out, orow, nr, nc, g_.eb);
  }

  // Rows per staging chunk: as many as fit, in equal chunks of whole 8-row blocks (245 rows of
  // 400 B went 81 + 81 + 81 + 2, the last chunk a pass over every input column for 2 rows).
  static int chunk_rows(int nr, int64_t pitch) {
    const int fit = static_cast<int>(std::max<int64_t>(1, kStageBytes / pitch));
    if (fit >= nr) return nr;
    const int blocks = fit >= 8 ? fit / 8 * 8 : fit;
    const int chunks = (nr + blocks - 1) / blocks, even = (nr + chunks - 1) / chunks;
    return fit >= 8 ? std::min(blocks, (even + 7) / 8 * 8) : even;
  }

  const char* schema_;
  TileGeometry g_;
  // Row r's output row continues in row r + wrap_ when cont_[r] (find_wrap); 0: no wrap.
  int wrap_ = 0;
  bool cont_[Tuning::kMaxTileSide]{};
  // Staging in output order (see the constructor): rows sorted by output offset, and each
  // row's offset in the staging buffer.
  bool sorted_ = false;
  int16_t order_[Tuning::kMaxTileSide]{};
  int64_t srow_[Tuning::kMaxTileSide]{};
  // Spans of a full sorted tile: span i is rows order_[k] for k in span_first_[i] ..
  // span_first_[i] + span_rows_[i] - 1, consecutive in the output and in the staging buffer.
  int spans_ = 0;
  int16_t span_first_[Tuning::kMaxTileSide]{}, span_rows_[Tuning::kMaxTileSide]{};
  bool aligned_rows_ = false;  // rows_line_aligned() (non-temporal plans only)
  // 1- and 2-byte tiles read short runs of many columns (128 B of 128 columns), too short for
  // the hardware prefetchers, so one thread waited on memory most of the time; each tile asks
  // for the next one's input lines into L2 (locality 2: a column band at a power-of-two stride
  // would evict itself from L1). (4096, 2048) perm (1, 0), (32,16,32,16,32) perm (4,2,0,3,1)
  // and (292,292,292) perm (2,1,0), one thread, cold: 1.35-1.50 -> 1.16-1.38 ms, 2.03-2.11 ->
  // 1.60-1.96 ms, 6.6-6.9 -> 4.2-5.2 ms (min to median of three, on the loaded build VM); thin
  // tiles of 11- and 13-byte columns of cutt-random up to 2.4x. Typed tiles of 1- and 2-byte
  // inputs too, and fused ones of any (TileOp::prefetches): 2-core build VM, cutt-random and
  // fresh, e4m3 -> bf16 (bands) 1.07-1.09x; 8-byte inputs converted in bands lost (f64 -> f32
  // 0.93x), so those stay without.
  static constexpr int kMaxPrefetch = 1024;
  int prefetch_lines_ = 0;  // 0: no prefetch (plain tiles of wider elements, typed bands of them)
  int64_t prefetch_off_[kMaxPrefetch];  // [0, prefetch_lines_) set; not zeroed (every candidate)
  ExecSettings x_;
  TileKernel kernel_;
  TileOpPtr op_;
  double predicted_;
};

std::string TilePlan::describe() const {
  std::ostringstream d;
  d << schema_ << " ti=" << g_.ti << " to=" << g_.to << " nt=" << x_.nt
    << " threads=" << x_.threads << " kernel=" << (op_ ? op_->name() : kernel_.name) << "\n";
  d << "  element " << g_.eb << " B; minor input multi-index: input dims 0.." << g_.m - 1
    << " (last cut to " << g_.j_seg << " of " << g_.j_last_extent << ")\n";
  d << "  minor output multi-index: output dims 0.." << g_.k - 1 << " (last cut to "
    << g_.i_seg << " of " << g_.i_last_extent << ")\n";
  d << "  outer nest (innermost first):";
  for (int l = 0; l < g_.loops; ++l)
    d << " " << g_.loop[l].extent << (l == g_.j_loop ? "[J seg]" : "")
      << (l == g_.i_loop ? "[I seg]" : "");
  d << "; " << g_.tasks << " tiles in contiguous ranges taken by free threads\n";
  if (g_.b_loop != 1 || g_.ga != g_.loop[0].extent || g_.gb != 1)
    d << "  tile order: groups of " << g_.ga << " x " << g_.gb << " tiles over loops 0 and "
      << g_.b_loop << " (TLB reuse)\n";
  d << "  stores: " << (x_.nt ? "non-temporal via staging" : "regular") << "; predicted "
    << predicted_ * 1e3 << " ms\n";
  return d.str();
}

}  // namespace

BackendPlanPtr make_tile_plan(const char* schema, const TileGeometry& g, const ExecSettings& x,
                              double predicted, TileOpPtr op) {
  return std::make_shared<TilePlan>(schema, g, x, predicted, std::move(op));
}

}  // namespace xpose::detail::cpu
