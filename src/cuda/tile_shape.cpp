// The CUDA planner's tile geometry (tile_shape.hpp). Host C++ only.
#include "cuda/tile_shape.hpp"

namespace xpose::detail::cuda_tile {
namespace {

int64_t padded_pitch(int64_t run, int esize) {
  // Odd pitch in 4-byte words (or in elements for >= 4 bytes): conflict-free column reads.
  if (esize >= 4) return run % 2 == 0 ? run + 1 : run;
  const int64_t per_word = 4 / esize;
  int64_t pitch = ceil_div(run, per_word) * per_word;
  if ((pitch / per_word) % 2 == 0) pitch += per_word;
  return pitch;
}

}  // namespace

// Tiles of more than kElemsPerThread * kTileThreadsSmall elements take blocks of more than
// kTileThreadsSmall threads, one block per SM (big tiles, up to kMaxTileVolume elements and
// kMaxTileSmemBytes per buffer). A forced thread count of kTileThreadsSmall or less (`Small`)
// keeps the tile within what those threads cover. Narrow tiles hold up to kNarrowTileBytes of
// data, whatever the threads.
int64_t max_tile_volume(TileKind kind, int esize) {
  switch (kind) {
    case TileKind::Small: return kElemsPerThread * kTileThreadsSmall;
    case TileKind::Big: return kMaxTileVolume;
    case TileKind::Narrow: return kNarrowTileBytes / esize;
  }
  return 0;
}

bool make_tile(const Geometry& g, int a, int64_t ta, int c, int64_t tc, Tile* tile,
               TileKind kind) {
  const Problem& p = *g.p;
  Tile& T = *tile;
  // One pass over the dims: the tile extent is the larger of the two runs' (input dims 0..a-1
  // and output dims 0..c-1 whole, dim a by ta, output dim c by tc, 1 elsewhere), and everything
  // that is a product or a count over dims. Locals, not T's fields, so they stay in registers;
  // only the (at most two) blocked dims need a division.
  const int64_t max_volume = max_tile_volume(kind, g.esize);
  int64_t volume = 1, num_tiles = 1, in_run = 1, out_run = 1;
  int n_dims = 0, n_grid = 0;
  bool overlap = false;
  for (int k = 0; k < g.rank; ++k) {
    const int64_t e = p.extent[k];
    const int j = g.out_pos[k];
    const int64_t t = std::max(k < a ? e : k == a ? std::max<int64_t>(ta, 1) : 1,
                               j < c ? e : j == c ? tc : 1);
    T.t[k] = t;
    if (k <= a) in_run *= t;
    if (j <= c) out_run *= t;
    int64_t nb = e;
    if (t > 1) {
      overlap = overlap || (k <= a && j <= c);
      ++n_dims;
      volume *= t;
      if (volume > max_volume) return false;
      nb = t == e ? 1 : ceil_div(e, t);
    }
    n_grid += nb > 1;
    num_tiles *= nb;
  }
  if (n_dims > kMaxTileDims) return false;
  T.volume = volume, T.num_tiles = num_tiles, T.in_run = in_run, T.out_run = out_run;
  T.n_dims = n_dims, T.n_grid = n_grid;
  T.overlap = overlap;
  T.blocked[0] = T.t[a] > 1 && T.t[a] < p.extent[a] ? a : -1;
  const int oc = p.perm[c];
  T.blocked[1] = oc != a && T.t[oc] > 1 && T.t[oc] < p.extent[oc] ? oc : -1;
  // Contiguous spans: whole dims in order, then the first partial one. Spans start at sums of
  // the strides of the dims after them (and of tile steps of the partial one): their gcd with
  // 128 is how well the spans sit on cache lines (odd extents: badly).
  const auto spans = [&](const auto& dim_at, const Extents& stride, const int64_t* tail_align,
                         int64_t* span, int64_t* align, int esize) {
    int j = 0;
    for (; j < g.rank; ++j) {
      *span *= T.t[dim_at(j)];
      if (T.t[dim_at(j)] < p.extent[dim_at(j)]) break;
    }
    if (j < g.rank)
      *align = gcd_pow2(gcd_pow2(*align, T.t[dim_at(j)] * stride[dim_at(j)] * esize),
                        tail_align[j + 1]);
  };
  T.in_span = T.out_span = 1;
  T.in_align = T.out_align = 128;
  spans([](int j) { return j; }, g.s_in, g.in_tail_align, &T.in_span, &T.in_align, g.esize);
  spans([&](int j) { return p.perm[j]; }, g.s_out, g.out_tail_align, &T.out_span, &T.out_align,
        g.out_esize);
  const int64_t rows = T.volume / T.in_run;
  // The output-fastest tile dim f, and the volume of the input run's dims before it (when f is
  // in the run): its shared-memory stride in elements, unpadded.
  int f = -1;
  for (int j = 0; j < g.rank && f < 0; ++j)
    if (T.t[p.perm[j]] > 1) f = p.perm[j];
  int64_t below = 1, from = 1;
  if (f >= 0 && f <= a)
    for (int k = 0; k <= a; ++k) (k < f ? below : from) *= T.t[k];
  T.run_pad_dim = -1;
  T.run_elems = T.in_run;
  if (kind == TileKind::Narrow) {
    // Two raw buffers, the rows, a row table and a span table of 16 bytes an entry, then a
    // column table (quads: 16 bytes a span, up to a multiple of 4 spans) or a 2-byte offset per
    // output-run element. Rows padded after every `below` elements where that many put four
    // or more of a gathering group's lanes on one bank, and at least four lanes gather along f
    // (params.hpp kNarrowRowPad).
    int64_t row_bytes = T.in_run * g.esize;
    if (f > 0 && f <= a && below % 16 == 0 && T.t[f] * g.esize >= 16) {
      T.run_pad_dim = f;
      row_bytes = narrow_padded_row_bytes(row_bytes, below * g.esize);
    }
    T.pitch = narrow_pitch(row_bytes);
    T.smem_elems = 0;
    T.smem_bytes = 2 * rows * narrow_raw_pitch(T.in_run * g.esize, g.in_log2) +
                   narrow_data_bytes(rows, T.in_run * g.esize, T.pitch, !T.overlap) +
                   16 * (rows + T.volume / T.out_run) +
                   (T.overlap ? ceil_div(2 * T.out_run, 16) * 16
                              : 64 * ceil_div(T.volume / T.out_run, 4));
    T.raw_smem_bytes = T.overlap && T.run_pad_dim < 0 && g.in_log2 == 0
                           ? narrow_raw_rows_smem(narrow_raw_strides(g, T, a, 0, nullptr), rows,
                                                  T.volume / T.out_run, T.out_run)
                           : 0;
    return T.smem_bytes <= kNarrowMaxSmemBytes;
  }
  // The input run's footprint with f's stride padded to odd (classic tiles of 4 bytes and
  // more; below, elements move through registers unpadded).
  if (g.esize >= 4 && f >= 0 && f <= a && below > 1 && below % 2 == 0) {
    T.run_pad_dim = f;
    T.run_elems = (below + 1) * from;
  }
  T.pitch = padded_pitch(T.run_elems, g.esize);
  T.smem_elems = T.pitch * rows;
  T.smem_bytes = T.smem_elems * g.esize;
  return T.smem_bytes <= (kind == TileKind::Big ? kMaxTileSmemBytes : 24 * 1024);
}

int64_t narrow_raw_strides(const Geometry& g, const Tile& T, int a, int skew, int64_t* smem) {
  const int64_t chunks = ceil_div(T.in_run * g.esize + 15, kNarrowChunk);  // a row's, at most
  int64_t s = kNarrowChunk * (chunks + 1), last = 0;
  for (int j = 0; j < g.rank; ++j) {
    const int k = g.p->perm[j];
    if (k <= a || T.t[k] == 1) continue;
    const int64_t to = g.s_in[k] * g.esize;  // any sign
    const int64_t at = s + ((to - s) % 16 + 16) % 16 + (last == 0 ? kNarrowChunk * skew : 0);
    if (smem) smem[k] = at;
    last += (T.t[k] - 1) * at;
    s = at * T.t[k];
  }
  // A row's first chunk starts at most a chunk past its offset rounded down to a chunk.
  return last / kNarrowChunk * kNarrowChunk + kNarrowChunk * (chunks + 1);
}

bool wide_offsets(const Geometry& g, const Tile& T) {
  int64_t max_in = 0, max_out = 0;  // the farthest offset from the tile's base either way
  for (int k = 0; k < g.rank; ++k) {
    max_in += (T.t[k] - 1) * (g.s_in[k] < 0 ? -g.s_in[k] : g.s_in[k]);
    max_out += (T.t[k] - 1) * (g.s_out[k] < 0 ? -g.s_out[k] : g.s_out[k]);
  }
  return std::max(max_in, max_out) > INT32_MAX;
}

int walk_grid(const Geometry& g, const Tile& T, const int* slot, GridDim* grid) {
  const Problem& p = *g.p;
  int order[kMaxRank];
  int n_order = 0;
  for (const int s : {1, 0})
    if (T.blocked[s] >= 0) order[n_order++] = T.blocked[s];
  for (int j = 0; j < p.rank; ++j)
    if (p.perm[j] != T.blocked[0] && p.perm[j] != T.blocked[1]) order[n_order++] = p.perm[j];
  int n = 0;
  for (int i = 0; i < n_order; ++i) {
    const int k = order[i];
    const int64_t nb = ceil_div(p.extent[k], T.t[k]);
    if (nb <= 1) continue;
    GridDim& gd = grid[n++];
    gd.count = FastDiv64::make(static_cast<uint64_t>(nb));
    gd.in_step = T.t[k] * g.s_in[k];
    gd.out_step = T.t[k] * g.s_out[k];
    gd.extent = p.extent[k];
    gd.tile = static_cast<int32_t>(T.t[k]);
    gd.slot = slot[k];
  }
  return n;
}

int continuing_grid(const Geometry& g, const Tile& T, int c, int64_t out_run,
                    const GridDim* grid, int n_grid) {
  const Problem& p = *g.p;
  if (T.blocked[1] >= 0) return n_grid > 0 && grid[0].slot == 1 ? 0 : -1;
  if (c + 1 >= p.rank || T.t[p.perm[c + 1]] != 1) return -1;
  const int next = p.perm[c + 1];
  const int k = T.blocked[0] >= 0 ? 1 : 0;
  return k < n_grid && grid[k].in_step == g.s_in[next] && grid[k].out_step == out_run ? k : -1;
}

Geometry geometry(const Problem& p, int in_log2) {
  Geometry g;
  g.p = &p;
  g.rank = p.rank;
  g.esize = static_cast<int>(p.elem_size) >> in_log2;
  g.in_log2 = in_log2;
  g.out_esize = static_cast<int>(p.out_elem());
  g.s_in = p.input().stride;
  g.s_out = p.output_strides();
  for (int j = 0; j < p.rank; ++j) g.out_pos[p.perm[j]] = j;
  g.in_tail_align[p.rank] = g.out_tail_align[p.rank] = 128;
  for (int j = p.rank - 1; j >= 0; --j) {
    g.in_tail_align[j] = gcd_pow2(g.in_tail_align[j + 1], g.s_in[j] * g.esize);
    g.out_tail_align[j] = gcd_pow2(g.out_tail_align[j + 1], g.s_out[p.perm[j]] * g.out_esize);
  }
  return g;
}

}  // namespace xpose::detail::cuda_tile
