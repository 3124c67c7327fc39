// Cells (cells.cu, params.hpp CellParams): which problems take them, their candidate and their
// parameter block, and the slots' padding chosen by counting the bank conflicts of the kernel's
// shared-memory accesses. Host C++ only.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "cuda/planner.hpp"
#include "cuda/tile_shape.hpp"

namespace xpose::detail {

using namespace cuda_tile;

namespace {

int64_t cell_elems_of(const Problem& p, int k) {
  int64_t v = 1;
  for (int d = 0; d < k; ++d) v *= p.extent[d];
  return v;
}

// Shared-memory wavefronts of one warp access to shared bytes `at`: the most distinct 4-byte
// words of one bank.
int wavefronts(const uint32_t* at, int lanes) {
  uint32_t seen[32][32];
  int n[32] = {}, most = 0;
  for (int l = 0; l < lanes; ++l) {
    const uint32_t w = at[l] >> 2, b = w % 32;
    int i = 0;
    while (i < n[b] && seen[b][i] != w) ++i;
    if (i == n[b]) seen[b][n[b]++] = w, most = std::max(most, n[b]);
  }
  return most;
}

}  // namespace

int cell_dims(const Problem& p) {
  if (!(p.plain() || narrow_converts(p)) || p.elem_size > 2 || p.rank < 3) return 0;
  const auto es = static_cast<int64_t>(p.elem_size);
  int most = 0;
  for (int k = 1; k < p.rank; ++k) {
    most = std::max(most, p.perm[k - 1]);
    if (most != k - 1) continue;  // output dims 0..k-1 are not input dims 0..k-1
    // Typed rows (k = 1) keep the narrow kernel's tiles: converted in rows_kernel, widening
    // pairs ran 0.65-0.8x of them (f16 -> f32, e4m3 -> bf16 on cutt-random; H200, session 44).
    if (k == 1 && !p.plain()) continue;
    const int64_t elems = cell_elems_of(p, k);
    // Cells on words whose other dims stay in order (fused into one) may be smaller (params.hpp).
    const bool tiny = k >= 2 && p.rank == k + 1 && elems * es % 4 == 0;
    // A larger closed prefix may hold enough.
    if (elems * es < (k == 1 ? kCellRowMinBytes : tiny ? kCellWordMinBytes : kCellMinBytes))
      continue;
    if (elems > kCellMaxElems || elems * es > kCellMaxBytes || k > kMaxCellDims) return 0;
    return k;
  }
  return 0;
}

namespace {

// A sample of a tile's shared-memory accesses in cells.cu: at most kSampled warp steps of the
// writes, evenly spread over a tile's output stretch (a lane a word, each element from its
// cell's slot, after its table entries), scaled to the tile. The loads (a lane a 16-byte piece,
// stored whole without padding, else as four words) repeat every warp step: one step, counted.
struct CellSample {
  static constexpr uint32_t kSampled = 4;
  struct Access {
    std::array<uint32_t, 32> cell, src;  // a lane's cell in the tile and byte in the cell's input
    int lanes = 0;
  };
  std::vector<Access> writes;
  uint32_t pieces = 0;  // of a cell
  int64_t load_steps = 0, write_steps = 0, sampled = 0;
  int table_wavefronts = 0;

  CellSample(const CellParams& cp, int es) {
    const auto cb = static_cast<uint32_t>(cp.cell_bytes);
    const auto words = static_cast<uint32_t>(cp.cells_per_tile) * cb / 4;
    pieces = cp.pieces.d;
    // Cells on words: one table load a word (4 or 8 bytes a lane); else one an element.
    table_wavefronts = cb % 4 == 0 ? (es == 1 ? 2 : 1) : 4 / es;
    load_steps = (static_cast<int64_t>(cp.cells_per_tile) * pieces + 31) / 32;
    write_steps = (words + 31) / 32;
    sampled = std::min<int64_t>(write_steps, kSampled);
    for (int64_t s = 0; s < sampled; ++s) {
      const auto k0 = static_cast<uint32_t>(32 * (s * write_steps / sampled));
      Access acc;
      acc.lanes = static_cast<int>(std::min<uint32_t>(32, words - k0));
      for (int m = 0; m < 4; m += es) {
        for (int l = 0; l < acc.lanes; ++l) {
          const uint32_t t = 4 * (k0 + l) + m, q = t / cb, b = t - q * cb;
          acc.cell[l] = q;
          acc.src[l] = cell_source(cp, b / es) * es;
        }
        writes.push_back(acc);
      }
    }
  }

  int64_t loads_with(int pad_log) const {
    if (pad_log == 0) return 4 * load_steps;  // 16 bytes a lane: a wavefront per 8 lanes
    int64_t step = 0;
    std::array<uint32_t, 32> at;
    for (uint32_t m = 0; m < 4; ++m) {
      for (uint32_t l = 0; l < 32; ++l) at[l] = cell_padded(16 * (l % pieces), pad_log) + 4 * m;
      step += wavefronts(at.data(), 32);
    }
    return step * load_steps;
  }

  int64_t writes_with(int pad_log) const {
    const uint32_t slot = cell_slot_bytes(pieces, pad_log);
    int64_t w = table_wavefronts * sampled;
    std::array<uint32_t, 32> at;
    for (const Access& acc : writes) {
      for (int l = 0; l < acc.lanes; ++l)
        at[l] = acc.cell[l] * slot + cell_padded(acc.src[l], pad_log);
      w += wavefronts(at.data(), acc.lanes);
    }
    return sampled ? w * write_steps / sampled : 0;
  }

  // The fewest the writes can take: a wavefront an element access, and the table's.
  int64_t least_writes() const {
    const int64_t w = table_wavefronts * sampled + static_cast<int64_t>(writes.size());
    return sampled ? w * write_steps / sampled : 0;
  }
};

}  // namespace

int64_t cell_wavefronts(const CellParams& cp, int es, int pad_log) {
  const CellSample sample(cp, es);
  return sample.loads_with(pad_log) + sample.writes_with(pad_log);
}

int cell_pad_log(const CellParams& cp, int es) {
  const CellSample sample(cp, es);
  const int64_t plain = sample.writes_with(0);
  // Writes within half again of conflict-free: no padding (the loads' stores stay whole).
  if (2 * plain <= 3 * sample.least_writes()) return 0;
  int best = 0;
  int64_t least = sample.loads_with(0) + plain;
  for (int pad_log = 5; pad_log <= 9; ++pad_log) {
    if ((int64_t{1} << pad_log) >= cp.cell_bytes) break;
    const int64_t w = sample.loads_with(pad_log) + sample.writes_with(pad_log);
    if (w < least) least = w, best = pad_log;
  }
  return best;
}

namespace {

// Pieces of a row's slot in rows_kernel: the aligned 16-byte chunks that cover it at any shift.
int64_t row_pieces(int64_t row_bytes) { return ceil_div(row_bytes + 15, 16); }

// Rows a tile of rows_kernel: up to kCellTileBytes, within kRowBlockSmemBytes of shared memory
// (three buffers of offsets, two of slots).
int64_t rows_per_tile(int64_t row_bytes) {
  int64_t n = std::clamp<int64_t>(kCellTileBytes / row_bytes, 1, kCellThreads);
  while (n > 1 && row_tile_smem_bytes(n, 16 * row_pieces(row_bytes)) > kRowBlockSmemBytes) --n;
  return n;
}

}  // namespace

void make_cells(const Problem& p, const DeviceInfo& dev, Choice* c) {
  const int k = cell_dims(p);
  const int64_t elems = cell_elems_of(p, k);
  const int64_t nb =
      k == 1 ? rows_per_tile(elems * p.elem_size)
             : std::clamp<int64_t>(kCellTileBytes / (elems * p.elem_size), 1, kCellThreads);
  c->cells = true;
  c->factor = kCellFactor;
  c->predicted *= c->factor;
  c->threads = kCellThreads;
  c->in_run = c->out_run = elems;
  c->tile_volume = nb * elems;
  c->num_tiles = ceil_div(p.volume / elems, nb);
  c->grid = static_cast<unsigned>(
      std::min<int64_t>(c->num_tiles, static_cast<int64_t>(kCellBlocksPerSm) * dev.sms));
}

void build_cells(const Problem& p, const Choice& c, CellParams* cp) {
  const Geometry g = geometry(p);
  const int k = cell_dims(p);
  const int es = g.esize;
  cp->n_local = k;
  for (int i = 0; i < k; ++i) {
    const int d = p.perm[i];
    cp->local_ext[i] = FastDiv32::make(static_cast<uint32_t>(p.extent[d]));
    cp->local_stride[i] = static_cast<int32_t>(cell_elems_of(p, d));
  }
  cp->cell_elems = static_cast<int32_t>(c.in_run);
  cp->cell_bytes = cp->cell_elems * es;
  cp->cells_per_tile = static_cast<int32_t>(c.tile_volume / c.in_run);
  cp->pieces = FastDiv32::make(static_cast<uint32_t>(ceil_div(cp->cell_bytes, 16)));
  cp->num_cells = p.volume / c.in_run;
  cp->num_tiles = c.num_tiles;
  cp->in_bytes = p.bytes();
  cp->op = elem_op(p);
  cp->cells = FastDiv32::make(static_cast<uint32_t>(cp->cell_bytes));
  cp->n_grid = 0;
  for (int i = k; i < p.rank; ++i) {
    const int d = p.perm[i];
    GridDim& gd = cp->grid[cp->n_grid++];
    gd.count = FastDiv64::make(static_cast<uint64_t>(p.extent[d]));
    gd.in_step = g.s_in[d];
    gd.out_step = g.s_out[d];
    gd.extent = p.extent[d];
    gd.tile = 1;
    gd.slot = -1;
  }
  cp->rows = k == 1;
  if (cp->rows) {  // rows_kernel: no table, slots of the aligned chunks that cover a row
    cp->pieces = FastDiv32::make(static_cast<uint32_t>(row_pieces(cp->cell_bytes)));
    cp->slot_bytes = static_cast<int32_t>(16 * cp->pieces.d);
    return;
  }
  cp->table_bytes = static_cast<int32_t>(ceil_div(2 * cp->cell_elems, 16) * 16);
  cp->pad_log = cell_pad_log(*cp, es);
  cp->slot_bytes = static_cast<int32_t>(cell_slot_bytes(cp->pieces.d, cp->pad_log));
}

}  // namespace xpose::detail
