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
// kMaxTileSmemBytes per buffer). A forced thread count of kTileThreadsSmall or less (`big`
// false) keeps the tile within what those threads cover.
bool make_tile(const Geometry& g, int a, int64_t ta, int c, int64_t tc, Tile* tile, bool big) {
  const Problem& p = *g.p;
  Tile& T = *tile;
  for (int k = 0; k < g.rank; ++k) T.t[k] = 1;
  for (int k = 0; k < a; ++k) T.t[k] = p.extent[k];
  T.t[a] = std::max(T.t[a], ta);
  for (int j = 0; j < c; ++j) T.t[p.perm[j]] = p.extent[p.perm[j]];
  T.t[p.perm[c]] = std::max(T.t[p.perm[c]], tc);
  bool in_run_dim[kMaxRank] = {};
  for (int k = 0; k <= a; ++k) in_run_dim[k] = T.t[k] > 1;
  for (int j = 0; j <= c; ++j) T.overlap |= in_run_dim[p.perm[j]] && T.t[p.perm[j]] > 1;
  T.in_run = 1;
  for (int k = 0; k <= a; ++k) T.in_run *= T.t[k];
  T.out_run = 1;
  for (int j = 0; j <= c; ++j) T.out_run *= T.t[p.perm[j]];
  for (int k = 0; k < g.rank; ++k) {
    int64_t nb = p.extent[k];
    if (T.t[k] > 1) {
      ++T.n_dims;
      T.volume *= T.t[k];
      if (T.volume > (big ? kMaxTileVolume : kElemsPerThread * kTileThreadsSmall)) return false;
      nb = ceil_div(nb, T.t[k]);
    }
    if (nb > 1) ++T.n_grid;
    T.num_tiles *= nb;
  }
  if (T.n_dims > kMaxTileDims) return false;
  if (T.t[a] > 1 && T.t[a] < p.extent[a]) T.blocked[0] = a;
  const int oc = p.perm[c];
  if (oc != a && T.t[oc] > 1 && T.t[oc] < p.extent[oc]) T.blocked[1] = oc;
  // Contiguous spans: whole dims in order, then the first partial one. Spans start at sums of
  // the strides of the dims after them (and of tile steps of the partial one): their gcd with
  // 128 is how well the spans sit on cache lines (odd extents: badly).
  const auto spans = [&](const auto& dim_at, const Extents& stride, const int64_t* tail_align,
                         int64_t* span, int64_t* align) {
    int j = 0;
    for (; j < g.rank; ++j) {
      *span *= T.t[dim_at(j)];
      if (T.t[dim_at(j)] < p.extent[dim_at(j)]) break;
    }
    if (j < g.rank)
      *align = gcd_pow2(gcd_pow2(*align, T.t[dim_at(j)] * stride[dim_at(j)] * g.esize),
                        tail_align[j + 1]);
  };
  spans([](int j) { return j; }, g.s_in, g.in_tail_align, &T.in_span, &T.in_align);
  spans([&](int j) { return p.perm[j]; }, g.s_out, g.out_tail_align, &T.out_span, &T.out_align);
  T.pitch = padded_pitch(T.in_run, g.esize);
  T.smem_elems = T.pitch * (T.volume / T.in_run);
  return T.smem_elems * g.esize <= (big ? kMaxTileSmemBytes : 24 * 1024);
}

Geometry geometry(const Problem& p) {
  Geometry g;
  g.p = &p;
  g.rank = p.rank;
  g.esize = static_cast<int>(p.elem_size);
  int64_t s = 1;
  for (int k = 0; k < p.rank; ++k) {
    g.s_in[k] = s;
    s *= p.extent[k];
  }
  g.s_out = p.output_strides();
  g.in_tail_align[p.rank] = g.out_tail_align[p.rank] = 128;
  for (int j = p.rank - 1; j >= 0; --j) {
    g.in_tail_align[j] = gcd_pow2(g.in_tail_align[j + 1], g.s_in[j] * g.esize);
    g.out_tail_align[j] = gcd_pow2(g.out_tail_align[j + 1], g.s_out[p.perm[j]] * g.esize);
  }
  return g;
}

}  // namespace xpose::detail::cuda_tile
