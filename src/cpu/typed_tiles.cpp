// Typed tiles (typed_tiles.hpp): each tile of the tiled engine is transposed as raw input
// elements by the tile kernel of the input's element size (typed_tile_kernel) into an L1 band on
// the stack, a band of rows at a time, and each band goes through the element operation
// (typed_ops.hpp) into the engine's output: the output itself, or the staging buffer that the
// engine streams out in whole lines. The separate typed schema's geometry (typed_plan.cpp)
// staged every tile through L2 and streamed rows of any length, partial lines included.
// Conversions with a fused kernel (fused_tiles.hpp, AVX-512: f32, bf16 and f16 to fp8, f32 to
// bf16 / f16, f16 <-> bf16) skip the band: the kernel converts each output row in registers
// (FusedTile). Sub-tensors whose tiles are large enough take the same engine with their strides
// (the geometry's offsets; J and I grow only over dims that continue them in memory), pure
// copies among them with the engine's own tile kernel.
#include "cpu/typed_tiles.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "cpu/fused_tiles.hpp"
#include "cpu/typed_plan.hpp"

namespace xpose::detail::cpu {
namespace {

// A band: an L1-resident slice of a tile, on the stack (nothing to allocate or fail; with the
// engine's own tables well under the 128 KiB of the smallest thread stacks). Tile rows are at
// most kMaxTileSide x 16 bytes = 8 KiB, so every band holds at least 2 rows.
constexpr int64_t kBandBytes = 16 << 10;

// Narrowing conversions convert first (ConvertFirstTile) in tiles of at most this many columns:
// long input columns, few of them (r5x15-1 of cutt-random, 126 x 16 bf16 -> e4m3: 7.0 -> 4.3 ms
// on one Zen 4 core, warm); tiles of ~120 columns were slower that way (r4x5-3, 65 x 123:
// 5.1 -> 9.2 ms), their column-by-column reads on as many pages. Raised to 192 columns for 4-
// and 8-byte sources, cutt-random ran 1.15-1.27x faster (geometric mean of the changed plans,
// 16-core Xeon host) but a fresh set 0.80-1.04x (thin input tiles of 13 rows 0.19-0.50x), so
// 64 stays for every source (docs/perf/typed-h100.md, session 11).
constexpr int kConvertFirstMaxCols = 64;

// A tile operation of a typed plan: a tile kernel of one element size, the element operation and
// its scalars, the input and output element sizes.
class TypedTileOp : public TileOp {
 public:
  TypedTileOp(TileKernel raw, RowOp op, const Scalars& s, int64_t ie, int64_t oe)
      : raw_(raw), op_(op), s_(s), ie_(ie), oe_(oe) {}

 protected:
  TileKernel raw_;
  RowOp op_;
  Scalars s_;
  int64_t ie_, oe_;
};

class ConvertTile final : public TypedTileOp {
 public:
  using TypedTileOp::TypedTileOp;

  void run(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
           int nc) const override {
    alignas(64) char band[kBandBytes];
    const int64_t pitch = nc * ie_;
    int rows = static_cast<int>(std::min<int64_t>(nr, kBandBytes / pitch));
    if (rows < nr && rows >= 8) rows = rows / 8 * 8;  // whole register blocks of the tile kernels
    int64_t brow[Tuning::kMaxTileSide];
    for (int r = 0; r < rows; ++r) brow[r] = r * pitch;
    for (int r0 = 0; r0 < nr; r0 += rows) {
      const int n = std::min(rows, nr - r0);
      raw_.fn(in + r0 * ie_, icol, band, brow, n, nc, static_cast<size_t>(ie_));
      // Rows evenly spaced in the output (J one input dim) in one call, else one call each.
      const int64_t step = n > 1 ? orow[r0 + 1] - orow[r0] : 0;
      int even = 1;
      while (even < n && orow[r0 + even] == orow[r0] + even * step) ++even;
      if (even == n) {
        op_(band, ie_, pitch, out + orow[r0], oe_, step, nc, n, s_);
        continue;
      }
      for (int r = 0; r < n; ++r)
        op_(band + r * pitch, ie_, 0, out + orow[r0 + r], oe_, 0, nc, 1, s_);
    }
  }

  std::string name() const override { return std::string("typed over ") + raw_.name; }
};

// Asks for every line of n columns of `bytes` bytes at in + icol[c] before any is used: the
// element operation walks one column after another and, on its own, has the few lines of one
// column in flight at a time (2x slower than the tile kernels, which read 8-16 columns at once).
inline void prefetch_columns(const char* in, const int64_t* icol, int n, int64_t bytes) {
  for (int c = 0; c < n; ++c) {
    const char* p = in + icol[c];
    for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
    __builtin_prefetch(p + bytes - 1);
  }
}

// Narrowing conversions (f32 -> bf16, bf16 -> e4m3: fewer output bytes) the other way round:
// each tile column, contiguous in the input, goes through the element operation into a band
// column (the input read once, by the operation, in long runs), and the band is transposed in
// the output's element size, whose kernels move fewer bytes per element (the 1-byte kernel
// transposes twice the elements of the 2-byte one per register). A band is a slice of columns.
class ConvertFirstTile final : public TypedTileOp {
 public:
  using TypedTileOp::TypedTileOp;

  void run(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
           int nc) const override {
    alignas(64) char band[kBandBytes];
    const int64_t pitch = nr * oe_;
    // As many columns as the band holds in input elements: the prefetched input stays in L1.
    int cols = static_cast<int>(std::min<int64_t>(nc, kBandBytes / (nr * ie_)));
    if (cols < nc && cols >= raw_.block_cols && raw_.block_cols > 0)
      cols = cols / raw_.block_cols * raw_.block_cols;  // whole register blocks
    int64_t bcol[Tuning::kMaxTileSide + Tuning::kMaxLineExt];
    for (int c = 0; c < cols; ++c) bcol[c] = c * pitch;
    for (int c0 = 0; c0 < nc; c0 += cols) {
      const int n = std::min(cols, nc - c0);
      prefetch_columns(in, icol + c0, n, nr * ie_);
      // Columns evenly spaced in the input (I one input dim) in one call, else one call each.
      const int64_t step = n > 1 ? icol[c0 + 1] - icol[c0] : 0;
      int even = 1;
      while (even < n && icol[c0 + even] == icol[c0] + even * step) ++even;
      if (even == n) {
        op_(in + icol[c0], ie_, step, band, oe_, pitch, nr, n, s_);
      } else {
        for (int c = 0; c < n; ++c)
          op_(in + icol[c0 + c], ie_, 0, band + c * pitch, oe_, 0, nr, 1, s_);
      }
      raw_.fn(band, bcol, out + c0 * oe_, orow, nr, n, static_cast<size_t>(oe_));
    }
  }

  std::string name() const override { return std::string("typed into ") + raw_.name; }
};

// Unscaled conversions without beta that have a fused kernel (fused_tiles.hpp): the tile in one
// pass, converted in registers between the block transpose and the store.
class FusedTile final : public TileOp {
 public:
  explicit FusedTile(TileKernel k) : k_(k) {}

  void run(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
           int nc) const override {
    k_.fn(in, icol, out, orow, nr, nc, 0);
  }

  std::string name() const override { return k_.name; }
  // The engine's prefetch of the next tile: f32 sources on the 2-core build VM, (126,16,46,8,33)
  // perm (1,0,4,3,2) to f16 9.5 -> 6.6 ms, (71,71,71,71) perm (1,3,2,0) to bf16 11.3 -> 10.0 ms
  // (docs/perf/typed-h100.md, session 39).
  bool prefetches() const override { return true; }

 private:
  TileKernel k_;
};

// Strided problems take the engine only where its tiles pay (16-core host, --pad 7,
// cutt-random and fresh problems, docs/perf/typed-h100.md, session 40); else typed_plan.cpp's
// tiles, which grow I over further output dims and move short output runs straight:
// - tiles of at least kStridedMinTile elements (padded dims 0 of 3-12 elements made tiles of
//   12-121: 0.43-0.76x the old tiles);
// - pure copies: input runs of at least 32 bytes and output runs longer than those the old
//   tiles move straight (kDirectRunBytes; output runs of 56-64 bytes 0.83-0.87x, input runs
//   of 20 bytes 0.87x);
// - no beta: padded 2D and 3D problems with beta = 1 ran 0.83-0.89x the old tiles (not
//   analysed further).
constexpr int64_t kStridedMinTile = 256;
constexpr int64_t kStridedCopyMinIn = 32;

bool strided_tiles_pay(const Problem& p, const TileGeometry& g) {
  if (int64_t{g.ti} * g.to < kStridedMinTile || p.reads_out()) return false;
  if (p.typed()) return true;
  const int64_t in_run = g.j_inner * g.j_last_extent * static_cast<int64_t>(g.in_eb);
  const int64_t out_run = g.i_inner * g.i_last_extent * static_cast<int64_t>(g.eb);
  return in_run >= kStridedCopyMinIn && out_run > kDirectRunBytes;
}

// The operation of each tile: nullptr (the engine's own tile kernel) for pure copies of
// sub-tensors; the fused kernel where one applies; else conversion first (narrowing, narrow
// tiles) or after the transpose, through a band.
TileOpPtr tile_op(const Problem& p, RowOp op, const Scalars& s, bool reads_out, Isa isa, int to) {
  if (!p.typed() && !reads_out) return nullptr;
  const bool scaled = p.alpha[0] != 1 || p.alpha[1] != 0;
  if (!reads_out && !scaled && takes_fused_tile(p.in_type, p.out_type, isa, to))
    return std::make_shared<FusedTile>(fused_tile_kernel(p.in_type, p.out_type, isa));
  const auto ie = static_cast<int64_t>(p.elem_size), oe = static_cast<int64_t>(p.out_elem());
  if (converts_first(p.elem_size, p.out_elem(), reads_out, to))
    return std::make_shared<ConvertFirstTile>(typed_tile_kernel(p.out_elem(), isa), op, s, ie, oe);
  return std::make_shared<ConvertTile>(typed_tile_kernel(p.elem_size, isa), op, s, ie, oe);
}

}  // namespace

bool converts_first(size_t in_elem, size_t out_elem, bool reads_out, int64_t to) {
  return out_elem < in_elem && !reads_out && to <= kConvertFirstMaxCols;
}

bool typed_tiles_apply(const Problem& p) {
  // Normalized problems have no extent-1 dims; hand-built ones may (tests), which the tiled
  // geometry, made for normalized plain problems, is not meant for.
  for (int k = 0; k < p.rank; ++k)
    if (p.extent[k] < 2) return false;
  if (p.rank < 2 || p.perm[0] == 0) return false;
  if (!p.strided) return true;
  // Sub-tensors: the tiles' rows and columns are runs of input dim 0 and output dim 0, so both
  // must be contiguous, and every stride positive (the geometry's loop order and tile walk).
  for (int k = 0; k < p.rank; ++k)
    if (p.in_stride[k] <= 0 || p.out_stride[k] <= 0) return false;
  return p.in_stride[0] == 1 && p.out_stride[p.perm[0]] == 1;
}

BackendPlanPtr typed_tile_plan(const Problem& p, RowOp op, const Scalars& s, bool reads_out,
                               ExecSettings x, const TileRequest& tile) {
  Shape sh = shape_of(p);
  sh.eb = p.out_elem();
  sh.in_eb = p.elem_size;
  sh.strided = p.strided;
  sh.in_stride = p.in_stride;
  sh.out_stride = p.out_stride;
  TileGeometry g;
  std::string why;
  make_tile_geometry(sh, tile, &g, &why);  // never a matrix request: always applies
  if (p.strided && !strided_tiles_pay(p, g)) return nullptr;
  if (reads_out || !staged_rows_fit(g)) x.nt = false;
  return make_tile_plan("typed", g, x, predict_tile(g, p.volume, x),
                        tile_op(p, op, s, reads_out, x.isa, g.to));
}

}  // namespace xpose::detail::cpu
