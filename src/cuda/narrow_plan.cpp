// The narrow kernel's parameter block (params.hpp's NarrowParams, narrow.cu) for a tile choice:
// the planner's tile as rows (input runs) and spans (output runs) with their decodes, in bytes.
// Host C++ only.
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

#include "cuda/planner.hpp"
#include "cuda/tile_shape.hpp"

namespace xpose::detail {

using namespace cuda_tile;

namespace {

// The block of a tile choice; `raw`: rows gathered from their raw copies (NarrowParams::
// raw_rows), the first row dim's stride `skew` chunks more than it needs, else realigned into
// rows of `pitch` bytes.
void build_layout(const Problem& p, const Choice& c, const Geometry& g, const Tile& T, bool raw,
                  NarrowParams* np, int skew = 0) {
  const int64_t es = g.esize;
  int slot[kMaxRank];
  for (int k = 0; k < p.rank; ++k) slot[k] = -1;
  for (int s = 0; s < 2; ++s)
    if (T.blocked[s] >= 0) {
      slot[T.blocked[s]] = s;
      np->slot_tile[s] = static_cast<int32_t>(T.t[T.blocked[s]]);
    }
  // Shared-memory strides (bytes): the input run's dims within a row (padded before
  // run_pad_dim: tile_shape.hpp), the other tile dims (in output order) across rows: rows
  // `pitch` apart, or raw rows' (tile_shape.hpp narrow_raw_strides).
  int64_t smem[kMaxRank] = {};
  int64_t s = es;
  for (int k = 0; k <= c.a; ++k) {
    if (k == T.run_pad_dim) {
      np->row_break = static_cast<int32_t>(s);
      np->break_div = FastDiv32::make(static_cast<uint32_t>(s));
      s += kNarrowRowPad;
    }
    if (T.t[k] > 1) smem[k] = s, s *= T.t[k];
  }
  const int64_t raw_bytes = raw ? narrow_raw_strides(g, T, c.a, skew, smem) : 0;
  s = T.pitch;
  for (int j = 0; j < p.rank && !raw; ++j) {
    const int k = p.perm[j];
    if (k > c.a && T.t[k] > 1) smem[k] = s, s *= T.t[k];
  }
  const auto dim = [&](int k, int64_t stride) {
    TileDim d;
    d.extent = FastDiv32::make(static_cast<uint32_t>(T.t[k]));
    d.smem_stride = static_cast<int32_t>(smem[k]);
    d.slot = slot[k];
    d.stride = stride * es;
    return d;
  };
  // A side's runs, cut by the slot of its last dim. Rows are numbered in output order (with
  // disjoint runs, a row is then a position of the output run), spans in input order (so, with
  // disjoint runs, a span is a position of the input run: a column).
  const auto phase = [&](NarrowPhase& ph, bool read) {
    const int last = read ? c.a : p.perm[c.c];
    int64_t unit = es;
    for (int j = 0; j < (read ? c.a : c.c); ++j) unit *= T.t[read ? j : p.perm[j]];
    const int64_t run = read ? T.in_run : T.out_run;
    for (int j = 0; j < p.rank; ++j) {
      const int k = read ? p.perm[j] : j;
      const bool in_run = read ? k <= c.a : g.out_pos[k] <= c.c;
      if (!in_run && T.t[k] > 1) ph.dim[ph.n_dims++] = dim(k, read ? g.s_in[k] : g.s_out[k]);
    }
    ph.runs = static_cast<int32_t>(T.volume / run);
    ph.slot = slot[last];
    ph.unit = static_cast<int32_t>(unit);
    ph.full = static_cast<int32_t>(run * es);
  };
  NarrowPhase& rd = np->rd;
  phase(rd, true);
  rd.per_run = static_cast<int32_t>(ceil_div(rd.full, kNarrowChunk));
  rd.div = FastDiv32::make(static_cast<uint32_t>(rd.per_run));
  NarrowPhase& wr = np->wr;
  phase(wr, false);
  wr.per_run = static_cast<int32_t>(ceil_div(wr.full + 31, kNarrowWord));  // from its sector
  np->group_shift = narrow_group_shift(wr.full);
  const int group = 1 << np->group_shift;
  wr.positions = wr.runs * group * static_cast<int32_t>(ceil_div(wr.per_run, group * kNarrowWords));
  wr.div = FastDiv32::make(static_cast<uint32_t>(wr.runs));
  // Output-run elements: evenly spaced in shared memory when each of the run's dims continues
  // the one before it (always for disjoint runs: the first rows in output order), else a table.
  int run_dims[kMaxRank];
  int n_run = 0;
  for (int j = 0; j <= c.c; ++j)
    if (T.t[p.perm[j]] > 1) run_dims[n_run++] = p.perm[j];
  bool linear = !raw;  // raw rows: always a table (their write phase's only instantiation)
  for (int i = 1; i < n_run; ++i)
    linear = linear && smem[run_dims[i]] == smem[run_dims[i - 1]] * T.t[run_dims[i - 1]];
  np->lin_stride = static_cast<int32_t>(n_run > 0 ? smem[run_dims[0]] : es);
  if (!linear)
    for (int i = 0; i < n_run; ++i) np->tab[np->n_tab++] = dim(run_dims[i], 0);
  np->out_run = static_cast<int32_t>(T.out_run);
  np->shared_sectors = T.in_align % 32 != 0 || T.out_align % 32 != 0 ? 1 : 0;
  np->quad = T.overlap ? 0 : 1;
  np->pitch = static_cast<int32_t>(T.pitch);
  np->raw_rows = raw ? 1 : 0;
  // Converting loads: the raw rows in the input's bytes (in_log2), which the loads scale to.
  const int L = g.in_log2;
  np->in_log2 = L;
  np->raw_pitch = static_cast<int32_t>(narrow_raw_pitch(T.in_run * es, L));
  np->raw_bytes = rd.runs * np->raw_pitch;
  np->raw_per_row = static_cast<int32_t>(ceil_div((int64_t{rd.full} << L) + 15, kNarrowChunk));
  np->raw_positions = rd.runs * np->raw_per_row;
  np->raw_div = FastDiv32::make(static_cast<uint32_t>(np->raw_per_row));
  np->rows_div = FastDiv32::make(static_cast<uint32_t>(rd.runs));
  np->data_bytes = static_cast<int32_t>(narrow_data_bytes(rd.runs, rd.full, T.pitch, np->quad));
  np->smem_bytes = static_cast<int32_t>(T.smem_bytes);
  if (raw) {
    np->raw_bytes = static_cast<int32_t>(raw_bytes);
    np->data_bytes = 0;
    np->smem_bytes = static_cast<int32_t>(narrow_raw_rows_smem(np->raw_bytes, rd.runs, wr.runs,
                                                               T.out_run));
  }
  np->column_words = static_cast<int32_t>(narrow_column_words(rd.runs));
  // The input bytes of a tile past its base: its farthest row's envelope.
  int64_t reach = 0;
  for (int k = 0; k < p.rank; ++k) reach += (T.t[k] - 1) * g.s_in[k] * es;
  np->in_reach = ((reach + rd.full) << L) + 32;
  np->in_bytes = p.bytes();
  np->out_bytes = p.out_bytes();
  np->op = elem_op(p);
  np->num_tiles = T.num_tiles;
  np->n_grid = walk_grid(g, T, slot, np->grid);
  // Halo rows (params.hpp), along the dim that continues the output runs (continuing_grid).
  // Full tiles' runs of at least two quad words, so that a tile before the last writes a word
  // of its own at each end. 1-byte quads whose runs start off words only (H100, session 25,
  // 151 fresh and dtypes quads: 1 B off words 1.092x, 2 B off words 1.007x, runs on words
  // 0.975x).
  const int kw = static_cast<int>(4 * es);
  const int k = continuing_grid(g, T, c.c, T.out_run, np->grid, np->n_grid);
  const int64_t halo_smem = narrow_halo_smem_bytes(T.in_run * es);
  // Typed tiles (narrow_typed.cu) take no halo rows (their quads' only instantiation has none).
  if (np->quad && es == 1 && p.plain() && T.out_align % kw != 0 && k >= 0 &&
      rd.runs >= kNarrowHaloRows && wr.full >= 2 * kw &&
      np->smem_bytes + halo_smem <= kNarrowMaxSmemBytes) {
    np->halo = 1;
    np->halo_grid = k;
    np->halo_tiles = static_cast<int64_t>(np->grid[k].count.d);
    np->halo_in_step = np->grid[k].in_step * es;
    np->raw_bytes += kNarrowHaloRows * np->raw_pitch;
    np->smem_bytes += static_cast<int32_t>(halo_smem);
  }
  np->deal_warp = narrow_deal_warp(np->quad != 0, es, rd.full, !p.plain()) ? 1 : 0;
}

}  // namespace

int64_t narrow_gather_wavefronts(const NarrowParams& np, int es) {
  const auto shared_of = [](const TileDim* dims, int n, uint32_t idx) {
    int64_t at = 0;
    for (int k = 0; k < n; ++k) {
      const uint32_t q = dims[k].extent.div(idx);
      at += int64_t{idx - q * dims[k].extent.d} * dims[k].smem_stride;
      idx = q;
    }
    return at;
  };
  // The offset of output-run element el from its span's base, decoded when a lane first reads
  // it (the sampled warps read elements under kEls).
  constexpr int kEls = 1024;
  const int n_el = std::min(np.out_run, kEls);
  int64_t el_at[kEls];
  std::fill(el_at, el_at + n_el, int64_t{-1});
  const auto at_el = [&](int el) {
    if (el_at[el] < 0)
      el_at[el] = np.n_tab ? shared_of(np.tab, np.n_tab, static_cast<uint32_t>(el))
                           : int64_t{el} * np.lin_stride;
    return el_at[el];
  };
  // Each sampled warp's loads of its words' first bytes (write_gathered's positions), per word
  // of a position: per bank the distinct 4-byte words its lanes read, the most of them.
  const int shift = np.group_shift, len = np.wr.full;
  int64_t waves = 0;
  int64_t span_at[32];
  int first[32];
  for (int w = 0; w < kNarrowSampleWarps; ++w) {
    for (int l = 0; l < 32; ++l) {
      const int i = 32 * w + l, q = i >> shift;
      const int group = q / np.wr.runs;
      if (i >= np.wr.positions) span_at[l] = -1;
      else if (l == 0 || q != (i - 1) >> shift)  // a group's lanes share their span
        span_at[l] = shared_of(np.wr.dim, np.wr.n_dims,
                               static_cast<uint32_t>(q - group * np.wr.runs));
      else span_at[l] = span_at[l - 1];
      first[l] = (((group * kNarrowWords) << shift) + (i & ((1 << shift) - 1))) * kNarrowWord;
    }
    for (int m = 0; m < kNarrowWords; ++m) {
      int64_t words[32][32];
      int n[32] = {};
      int most = 0;
      for (int l = 0; l < 32; ++l) {
        const int ob = first[l] + (m << shift) * kNarrowWord, el = ob / es;
        if (span_at[l] < 0 || ob >= len || el >= n_el) continue;
        const int64_t word = (span_at[l] + at_el(el)) / 4;
        const int b = static_cast<int>(word % 32);
        bool seen = false;
        for (int x = 0; x < n[b] && !seen; ++x) seen = words[b][x] == word;
        if (!seen) words[b][n[b]++] = word, most = std::max(most, n[b]);
      }
      waves += most;
    }
  }
  return waves;
}

void build_narrow(const Problem& p, const Choice& c, NarrowParams* np, RawRows rule) {
  const Geometry g = narrow_geometry(p);
  Tile T;
  make_tile(g, c.a, c.ta, c.c, c.tc, &T, TileKind::Narrow);
  *np = NarrowParams{};
  build_layout(p, c, g, T, false, np);
  // Gathered tiles without padded rows: raw rows where they fit and the write phase's loads
  // from them meet on banks at most narrow_raw_waves(es) times as often as from realigned rows;
  // where they would meet more often, with the first row dim a chunk further apart. (Session
  // 36, H200: skews of 1-7 chunks let 22 of 241 gathered problems more take raw rows, 20 of
  // them with one chunk; 1-byte problems of new seeds ran 1.17x against 1.15x without.)
  if (np->quad || np->row_break || np->in_log2 || rule == RawRows::Never) return;
  double most = 0;
  for (int skew = 0; skew < 2; ++skew) {
    NarrowParams raw{};
    build_layout(p, c, g, T, true, &raw, skew);
    if (raw.smem_bytes > kNarrowMaxSmemBytes) return;
    if (rule == RawRows::WhereTheyFit) {
      *np = raw;
      return;
    }
    if (skew == 0)
      most = narrow_raw_waves(g.esize) *
             static_cast<double>(narrow_gather_wavefronts(*np, g.esize));
    if (narrow_gather_wavefronts(raw, g.esize) <= most) {
      *np = raw;
      return;
    }
  }
}

// planner.hpp. From f32 narrow2d.cu ran 0.51-0.88x of the typed tiles (f32 -> bf16), which
// group f32 elements and pipeline their loads (session 18, docs/perf/typed-h100.md).
bool narrow_converts(const Problem& p) {
  const auto narrow = [](xpose_type_t t) {
    return t == XPOSE_TYPE_F8_E4M3 || t == XPOSE_TYPE_F8_E5M2 || t == XPOSE_TYPE_F16 ||
           t == XPOSE_TYPE_BF16;
  };
  return p.typed() && !p.strided && !p.reads_out() && narrow(p.in_type) &&
         (narrow(p.out_type) || p.out_type == XPOSE_TYPE_F32);
}

// planner.hpp. From f32 to fp8 these tiles ran 1.07-1.16x tiled.cu's typed tiles by geometric
// mean on cutt-random and fresh problems; to bf16 and f16, 0.95-1.06x, so those keep the typed
// tiles (their raw rows of f32 halve the tiles that fit; H200, session 44,
// docs/perf/typed-h100.md).
bool narrow_loads(const Problem& p) {
  return p.typed() && !p.strided && !p.reads_out() && p.in_type == XPOSE_TYPE_F32 &&
         (p.out_type == XPOSE_TYPE_F8_E4M3 || p.out_type == XPOSE_TYPE_F8_E5M2);
}

Geometry cuda_tile::narrow_geometry(const Problem& p) {
  return geometry(p, narrow_loads(p) ? 2 : 0);
}

// Plain elements of 4 bytes and more whose one-dim runs fill a warp (wide2d.cu), perm[0] != 0.
bool wide2d_takes(const Problem& p) {
  return p.plain() && p.elem_size >= 4 && p.perm[0] != 0 && p.extent[0] >= kWide2dTile &&
         p.extent[p.perm[0]] >= kWide2dTile;
}

bool packed2d_takes(const Problem& p) {
  if (!p.plain() || p.elem_size > 2 || p.perm[0] == 0) return false;
  const int64_t per_word = 4 / static_cast<int64_t>(p.elem_size);
  const int64_t least = std::max<int64_t>(kWide2dTile, kNarrow2dMinBytes / p.elem_size);
  const int64_t e0 = p.extent[0], e1 = p.extent[p.perm[0]];
  return e0 % per_word == 0 && e1 % per_word == 0 && e0 >= least && e1 >= least;
}

bool takes_narrow2d(const Problem& p, int a, int c) {
  if (a != 0 || c != 0 || p.perm[0] == 0) return false;
  if (!(p.plain() && p.elem_size <= 2) && !narrow_converts(p)) return false;
  const auto es = static_cast<int64_t>(p.elem_size), eo = static_cast<int64_t>(p.out_elem());
  const int64_t e0 = p.extent[0], e1 = p.extent[p.perm[0]];
  if (e0 * es < kNarrow2dMinBytes || e1 * eo < kNarrow2dMinBytes) return false;
  // Plain elements: any such runs. Session 17 kept 2-byte output dims that were odd (partial
  // words at both ends of every output run) or under 256 bytes (half-empty tiles) on the narrow
  // kernel, where they ran 0.63-0.99x; with halo rows (session 18) and rows loaded by walks
  // (session 19), the 23 dtypes cases that rule excluded ran 1.06x faster in narrow2d
  // (0.78-1.53x), and measure planning chose it on 22 (docs/perf/narrow-h100.md). Conversions:
  // f32 outputs in runs of whole sectors (output dim 0 a multiple of 8): f16 -> f32 ran
  // 1.15-1.33x of the typed tiles on those and 0.67-0.95x on the others (session 18). Output
  // dims under a tile, which session 18 left to the typed tiles ((71, 71, 71, 71) bf16 -> e4m3,
  // one tile of 71, ran 0.85x then), ran 1.26-1.35x faster in narrow2d after the walk (16 fresh
  // problems with output dims of 32-127; (71, 71, 71, 71) 0.87-1.26x; session 19).
  return p.plain() || eo < 4 || e1 % 8 == 0;
}

// planner.hpp. Dims cut evenly instead, in pieces of 16 bytes, ran 0.83-0.95x where that
// shortened the output runs: (19365, 1291) 1 B, 256 -> 224.
std::pair<int64_t, int64_t> narrow2d_tile(const Problem& p, bool wide) {
  if (wide) {  // 32 x 32 elements; packed, 32 words x 32 words of elements
    const int64_t per_word = std::max<int64_t>(1, 4 / static_cast<int64_t>(p.elem_size));
    return {std::min<int64_t>(p.extent[0], kWide2dTile * per_word),
            std::min<int64_t>(p.extent[p.perm[0]], kWide2dTile * per_word)};
  }
  const auto es = static_cast<int64_t>(p.elem_size), eo = static_cast<int64_t>(p.out_elem());
  return {std::min<int64_t>(p.extent[0], kNarrow2dInBytes / es),
          std::min<int64_t>(p.extent[p.perm[0]], kNarrow2dOutBytes / eo)};
}


bool narrow2d_short_tiles(const Problem& p) { return p.plain() && p.elem_size == 1; }

namespace {

// The most bytes of a thin tile's rows of the long dim for a short dim of extent s in a
// problem of `bytes` (params.hpp).
int64_t thin2d_row_bytes(int64_t s, int64_t bytes) {
  const int64_t tile = bytes >= kThin2dLargeMinBytes ? kThin2dLargeTileBytes : kThin2dTileBytes;
  return std::clamp<int64_t>(tile / s / 128 * 128, 128, kThin2dMaxRowBytes);
}

// Flat input: the words of an output run of `row` bytes at any shift, and the pieces a warp
// each that the s runs of a tile go in (Narrow2dParams).
void build_thin_runs(int64_t s, int64_t row, Narrow2dParams* np) {
  constexpr int64_t warps = kThin2dThreads / 32;
  np->thin_words = static_cast<int32_t>((row + 6) / 4);
  np->thin_parts_log = 0;
  while ((s << (np->thin_parts_log + 1)) <= warps) ++np->thin_parts_log;
  const int64_t parts = int64_t{1} << np->thin_parts_log;
  np->thin_part_words = static_cast<int32_t>((ceil_div(np->thin_words, parts) + 31) / 32 * 32);
}

}  // namespace

int thin2d_takes(const Problem& p) {
  if (!p.plain() || p.elem_size > 2 || p.rank < 2) return 0;
  const auto es = static_cast<int64_t>(p.elem_size);
  const auto is_short = [&](int d) { return p.extent[d] * es < kNarrow2dMinBytes; };
  // The short dim and the long one; tiles of at least kThin2dMinTileBytes.
  int mode = 0, short_dim = 0, long_dim = 0;
  if (p.perm[1] == 0 && is_short(p.perm[0]) && !is_short(0))
    mode = 1, short_dim = p.perm[0], long_dim = 0;
  else if (p.perm[0] == 1 && is_short(0) && !is_short(1))
    mode = 2, short_dim = 0, long_dim = 1;
  if (mode == 0) return 0;
  const int64_t s = p.extent[short_dim];
  const int64_t row = std::min(p.extent[long_dim] * es, thin2d_row_bytes(s, p.bytes()));
  return row * s >= kThin2dMinTileBytes ? mode : 0;
}

std::pair<int64_t, int64_t> thin2d_tile(const Problem& p, int mode) {
  const auto es = static_cast<int64_t>(p.elem_size);
  const int long_dim = mode == 1 ? 0 : 1, short_dim = mode == 1 ? p.perm[0] : 0;
  const int64_t s = p.extent[short_dim], e = p.extent[long_dim];
  // Tiles of equal rows along the long dim: (300, 21, 7000) perm (1, 0, 2) 2 B ran at 0.64 of a
  // copy in tiles of 256 and 44 elements, at 0.90 in one of 300 (session 30).
  const int64_t most = thin2d_row_bytes(s, p.bytes()) / es;
  const int64_t n = ceil_div(e, ceil_div(e, most));
  return mode == 1 ? std::pair{n, s} : std::pair{s, n};
}

int thin2d_smem_bytes(const Narrow2dParams& np, int es) {
  // The stretch at any shift, with the flat output's guards before and after it.
  const int guard = np.thin == 1 ? thin2d_guard(np.tj) : 0;
  const int words = (2 * guard + np.ti * np.tj * es + 6) / 4;
  return 4 * (words + np.thin_skew * (words / 32 + 1));
}

// Found by counting, for every s, the bank conflicts of the accesses thin2d.cu makes (the test
// does it again): flat output, 16-byte chunks of rows a lane, each element stored at its place;
// flat input, a lane a word of a run, each element loaded from its place.
int thin2d_skew(int thin, int s) {
  if (thin == 1) {
    for (int t : {15, 25, 30, 31, 37, 41, 45, 50, 53, 55, 62})
      if (s == t) return 3;
    return 1;
  }
  return s % 4 != 0 ? 0 : s == 60 ? 3 : 1;
}

void make_narrow2d(const Problem& p, const DeviceInfo& dev, Choice* c) {
  auto [ti, tj] = c->thin ? thin2d_tile(p, c->thin) : narrow2d_tile(p, c->wide2d);
  const int64_t e0 = p.extent[0], e1 = p.extent[p.perm[0]];
  // Short output runs where full tiles would be few (planner.hpp).
  if (!c->wide2d && !c->thin && narrow2d_short_tiles(p) &&
      ceil_div(e0, ti) * ceil_div(e1, tj) * (p.volume / e0 / e1) <
          static_cast<int64_t>(kNarrow2dShortTilesPerSm) * dev.sms)
    tj = std::min<int64_t>(tj, kNarrow2dShortOutBytes / static_cast<int64_t>(p.out_elem()));
  c->narrow2d = true;
  if (c->thin)
    c->factor = kThin2dFactor;
  else if (!c->wide2d)
    c->factor = kNarrow2dFactor;
  c->predicted *= c->factor;
  c->threads = c->thin ? kThin2dThreads : c->wide2d ? kWide2dThreads : kNarrow2dThreads;
  c->in_run = ti;
  c->out_run = tj;
  c->tile_volume = ti * tj;
  c->num_tiles = ceil_div(e0, ti) * ceil_div(e1, tj) * (p.volume / e0 / e1);
  c->grid = static_cast<unsigned>(std::min<int64_t>(c->num_tiles, INT32_MAX));  // a block a tile
}

void build_narrow2d(const Problem& p, const Choice& c, Narrow2dParams* np) {
  const Geometry g = geometry(p);
  const int64_t es = g.esize;
  const int i = 0, j = p.perm[0];  // the input run's dim, the output run's
  Tile T;  // what walk_grid reads of it: the tile extents and the blocked dims
  int slot[kMaxRank];
  for (int k = 0; k < p.rank; ++k) T.t[k] = 1, slot[k] = -1;
  T.t[i] = c.in_run, T.t[j] = c.out_run;  // make_narrow2d's tile
  if (T.t[i] < p.extent[i]) T.blocked[0] = i, slot[i] = 0;
  if (T.t[j] < p.extent[j]) T.blocked[1] = j, slot[j] = 1;
  np->ti = np->slot_tile[0] = static_cast<int32_t>(T.t[i]);
  np->tj = np->slot_tile[1] = static_cast<int32_t>(T.t[j]);
  np->in_row = g.s_in[j] * es;
  np->out_row = g.s_out[i] * g.out_esize;
  np->in_bytes = p.bytes();
  np->op = elem_op(p);
  np->n_grid = walk_grid(g, T, slot, np->grid);
  // The run dim with fewer tiles walks first, so that the blocks in flight (a few hundred tiles)
  // cover it whole and both tensors are read and written in long stretches: with the other
  // first, (194484, 1031) perm (1, 0) 1 B ran 0.34 of a copy instead of 0.52 (session 17).
  if (np->n_grid >= 2 && np->grid[0].slot >= 0 && np->grid[1].slot >= 0 &&
      np->grid[0].count.d > np->grid[1].count.d)
    std::swap(np->grid[0], np->grid[1]);
  np->num_tiles = 1;
  np->split = np->out_row % 4 != 0;
  bool off_sectors = np->out_row % 32 != 0;
  for (int k = 0; k < np->n_grid; ++k) {
    np->num_tiles *= static_cast<int64_t>(np->grid[k].count.d);
    if (np->grid[k].slot == 1) np->run_tiles = static_cast<int64_t>(np->grid[k].count.d);
    if (np->grid[k].out_step * g.out_esize % 4 != 0) np->split = 1;
    if (np->grid[k].out_step * g.out_esize % 32 != 0) off_sectors = true;
  }
  if (c.thin) {  // no halo, sector tiles or chains: partial words are stored in pieces
    np->thin = c.thin;
    const int64_t s = np->thin == 1 ? np->tj : np->ti;
    const int64_t row = (np->thin == 1 ? np->ti : np->tj) * es;  // bytes of the long dim's tile
    np->thin_skew = thin2d_skew(np->thin, static_cast<int>(s));
    if (np->thin == 1)
      np->thin_load = FastDiv32::make(static_cast<uint32_t>((row + 30) / 16));
    else
      build_thin_runs(s, row, np);
    return;
  }
  // Chains (params.hpp): the tile holds the output runs' dim whole and the output's next dim is
  // a grid dim (continuing_grid; blocked runs continue along their own dim: run_tiles above).
  // Tiles along it write runs that continue each other: 119-byte runs off words, a thread
  // storing each partial word at both ends in pieces, took 4x the L2 write requests of whole
  // sectors and ran at 0.46 of a copy ((119, 14161, 119) perm (2, 1, 0), 1 B; 0.69 with chains
  // of sector tiles; docs/perf/narrow-h100.md, session 25). Plain moves only (kChain).
  const int k1 = continuing_grid(g, T, 0, T.t[j], np->grid, np->n_grid);
  if (p.plain() && !c.wide2d && T.blocked[1] < 0 && k1 >= 0 && T.t[j] * es >= 4) {
    np->chain_grid = k1;
    np->run_tiles = static_cast<int64_t>(np->grid[k1].count.d);
    np->chain_delta = (T.t[j] * g.s_in[j] - np->grid[k1].in_step) * es;
  }
  // Sector tiles (params.hpp kNarrow2dSectorMinBytes): plain tiles, several along runs that
  // start off sectors, tensors above L2; along blocked runs full tiles only (full input runs,
  // not short output runs: narrow2d_out_bytes): with input runs under a tile's (fewer output
  // runs a tile) they ran 0.68-1.04x. Chains of runs of at least a sector (the halo's 32 bytes)
  // take them whatever the input runs: (119, 14161, 119) perm (2, 1, 0), 1 B, 0.56 of a copy
  // with word halos, 0.70 with sector halos (session 25).
  const bool full = np->ti * es >= kNarrow2dInBytes &&
                    (!narrow2d_short_tiles(p) || narrow2d_out_bytes(np->tj) == kNarrow2dOutBytes);
  const bool chain_sectors = np->chain_grid >= 0 && np->tj * es >= 32;
  np->sector = p.plain() && !c.wide2d && (np->chain_grid >= 0 ? chain_sectors : full) &&
               np->run_tiles > 1 && off_sectors && p.bytes() >= kNarrow2dSectorMinBytes;
}

}  // namespace xpose::detail
