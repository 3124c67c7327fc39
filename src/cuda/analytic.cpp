// The CUDA planner's analytic cost model (analytic.hpp). Model: DRAM time from TTLG-style
// transaction counts (32-byte sectors touched by each contiguous run), scaled by a
// memory-warp-parallelism factor in the spirit of cuTT's MWP-CWP (bytes in flight per SM
// against bandwidth x latency) and by load balance over the folded grid; issue and
// shared-memory time as the compute side; the larger wins, plus launch cost. Host C++ only.
#include "cuda/analytic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace xpose::detail::analytic {

using namespace cuda_tile;


static constexpr bool is_pow2(double v) {
  return v >= 1 && v == static_cast<double>(static_cast<int64_t>(v)) &&
         (static_cast<int64_t>(v) & (static_cast<int64_t>(v) - 1)) == 0;
}
static_assert(is_pow2(kTune.read_unit) && is_pow2(kTune.write_unit), "run_efficiency scales");

int log2_of(size_t v) {
  int l = 0;
  while ((size_t{1} << l) < v) ++l;
  return l;
}

// Fraction of the bytes moved for a run of `bytes` that are useful, counting whole units of
// `unit` bytes (the start moving in steps of `step` bytes), with neighbours reusing a share
// `merge` of the partial units through L2. H100 (docs/perf/cuda-h100.md): 64-byte output runs
// ran at half the speed of 128-byte ones, so writes count 128-byte lines, reads 64 bytes.
// Units are powers of two (is_pow2 above), so scaling by 1 / unit is exactly dividing by it,
// without two divisions on this per-candidate path.
static double run_efficiency(int64_t bytes, int64_t step, double unit, double merge) {
  const double per_unit = 1.0 / unit;
  const double g = static_cast<double>(gcd_pow2(128, step > 0 ? step : 128));
  const double units =
      std::max(std::ceil(bytes * per_unit), (bytes + unit - std::min(g, unit)) * per_unit);
  const double eff = bytes / (unit * units);
  return (eff + (1.0 - eff) * merge) * bytes / (bytes + kTune.run_overhead_bytes);
}

// One tile buffer, bytes, rounded to 16 (as build_tiled lays them out).
int64_t buffer_bytes(int64_t smem_elems, int esize) { return (smem_elems * esize + 15) / 16 * 16; }

int default_threads(int64_t volume) {
  const int64_t t = ceil_div(ceil_div(volume, 4), 32) * 32;
  return static_cast<int>(std::clamp<int64_t>(t, 64, kMaxTileThreads));
}

static int tiled_regs(const DeviceInfo& dev, int log2e) {
  const int r = dev.tiled_regs[log2e];
  return r > 0 ? r : 80;
}

// Blocks of the tiled kernel resident on one SM.
static int tiled_resident(const DeviceInfo& dev, int log2e, int threads, int64_t smem) {
  const int regs = (tiled_regs(dev, log2e) + 7) / 8 * 8;
  int r = std::min(dev.regs_per_sm / (regs * threads), dev.max_threads_per_sm / threads);
  r = std::min<int64_t>(r, dev.smem_per_sm / (smem + 1024 + kTileStaticSmemBytes));
  return std::clamp(r, 1, 32);
}

// Pipeline depth wanted: kTune.stages, or XPOSE_CUDA_STAGES (2..kMaxTileStages) for A/B runs.
static int wanted_stages() {
  static const int s = [] {
    const char* e = std::getenv("XPOSE_CUDA_STAGES");
    const int v = e ? std::atoi(e) : 0;
    return v >= 2 && v <= kMaxTileStages ? v : kTune.stages;
  }();
  return s;
}

// Buffers for a tile of `buffer` bytes: 1 below 4-byte elements (reads through registers), else
// the deepest pipeline up to `want` that keeps as many blocks resident as two buffers do.
static int choose_stages(const DeviceInfo& dev, int log2e, int threads, int64_t buffer, int want) {
  if (log2e < 2) return 1;
  const int base = tiled_resident(dev, log2e, threads, 2 * buffer);
  int s = std::clamp(want, 2, kMaxTileStages);
  while (s > 2 && (s * buffer > kMaxTileStages * kMaxTileSmemBytes ||
                   tiled_resident(dev, log2e, threads, s * buffer) < base))
    --s;
  return s;
}

static double dram_time(const DeviceInfo& dev, const Problem& p, double eff_r, double eff_w) {
  const double bytes = static_cast<double>(p.bytes());
  return bytes / (dev.dram_bytes_per_s * kTune.copy_fraction) * (1.0 / eff_r + 1.0 / eff_w);
}

// Latency hiding: bytes in flight per SM against what bandwidth x latency asks for.
static double parallelism(const DeviceInfo& dev, double bytes_in_flight_per_sm) {
  // Loads in flight against half the copy bandwidth (the read half).
  const double need = 0.5 * dev.dram_bytes_per_s * kTune.copy_fraction * kTune.latency_s / dev.sms;
  return std::min(1.0, bytes_in_flight_per_sm / need);
}

static double issue_time(const DeviceInfo& dev, double thread_instr) {
  return thread_instr / (dev.sms * dev.clock_hz * 128.0 * kTune.issue_efficiency);
}

// The memory side of a tile candidate with `resident` blocks per SM: sets c->grid (the folded
// grid) and returns DRAM time over latency hiding, load balance and edge-tile fill, with the
// pieces in `terms`.
static double tile_memory(const Geometry& g, const DeviceInfo& dev, const Tile& T, int resident,
                          Choice* c, CostTerms* terms, double read_merge = kTune.read_merge) {
  const Problem& p = *g.p;
  const int64_t capacity = static_cast<int64_t>(resident) * dev.sms;
  c->grid = static_cast<unsigned>(std::min<int64_t>(T.num_tiles, capacity));
  const double eff_r = run_efficiency(T.in_span * g.esize, T.in_align, kTune.read_unit,
                                      read_merge);
  const double eff_w = run_efficiency(T.out_span * g.esize, T.out_align,
                                      kTune.write_unit, kTune.write_merge);
  // Blocks per SM actually busy, each with volume * esize bytes of loads in flight per phase.
  const double per_sm = std::min<double>(resident, static_cast<double>(c->grid) / dev.sms);
  double mwp = parallelism(dev, per_sm * T.volume * g.esize);
  // A lone small block per SM idles its loads at the barriers; a big block (one per SM by
  // design) keeps the next tile's loads in flight (run 5: big tiles raised the TTLG 15 median
  // from 0.85 to 0.90).
  if (per_sm < 1.5 && c->threads <= kTileThreadsSmall) mwp *= 0.75;
  const double rounds = std::ceil(static_cast<double>(T.num_tiles) / c->grid);
  const double balance = static_cast<double>(T.num_tiles) / (rounds * c->grid);
  const double sm_share = std::min(1.0, static_cast<double>(c->grid) / dev.sms);
  // Edge tiles of a blocked dim (extent 3 blocked by 2: tiles of 2 and 1) cost about a full
  // tile's round for part of its bytes: the share of tile slots that hold data. Run 6: rank-12
  // tiles blocking an extent-3 dim by 2 (fill 0.75) ran at 0.54-0.68 of copy, the same problems
  // with that dim outside the run at 0.73-0.86.
  double fill = 1.0;
  for (const int d : T.blocked)
    if (d >= 0)
      fill *= static_cast<double>(p.extent[d]) /
              static_cast<double>(ceil_div(p.extent[d], T.t[d]) * T.t[d]);
  *terms = {p.bytes() / dev.dram_bytes_per_s, 1 / eff_r, 1 / eff_w, 1 / mwp,
            1 / (balance * sm_share), 1 / fill, 0, 0, rounds, 0, kTune.launch_s,
            static_cast<double>(p.bytes()), static_cast<double>(T.in_span * g.esize),
            static_cast<double>(T.out_span * g.esize), static_cast<double>(g.esize)};
  return dram_time(dev, p, eff_r, eff_w) / (mwp * balance * sm_share * fill);
}

// The prediction from the memory time and the compute side (thread instructions, shared-memory
// wavefronts of the whole run).
static void finish_cost(const DeviceInfo& dev, double mem, double instr, double wavefronts,
                 CostTerms terms, Choice* c) {
  const double sm_share = std::min(1.0, static_cast<double>(c->grid) / dev.sms);
  const double smem = wavefronts / (dev.sms * dev.clock_hz);
  const double issue = issue_time(dev, instr) / sm_share;
  c->predicted = kTune.launch_s + std::max({mem, issue, smem});
  terms.issue_s = issue;
  terms.smem_s = smem;
  terms.analytic_s = c->predicted;
  c->terms = terms;
}

// forced_stages: a schema's `stages=` (0: the planner's depth).
void cost_tiled(const Geometry& g, const DeviceInfo& dev, const Tile& T, int forced_stages,
                Choice* c) {
  const int log2e = log2_of(g.esize);
  const int threads = c->threads;
  const int64_t slots = ceil_div(T.volume, threads);
  // Deeper pipelines only where they cost no resident block, so the model (calibrated on two
  // buffers) is left as it was: the depth is the kernel's, not a ranking input.
  const int64_t buffer = buffer_bytes(T.smem_elems, g.esize);
  c->stages = forced_stages > 0 && log2e >= 2
                  ? forced_stages
                  : choose_stages(dev, log2e, threads, buffer, wanted_stages());
  CostTerms terms;
  const double mem =
      tile_memory(g, dev, T, tiled_resident(dev, log2e, threads, buffer * c->stages), c, &terms);
  const double instr =
      static_cast<double>(T.num_tiles) * threads *
          (kTune.tile_fixed_instr + kTune.grid_dim_instr * T.n_grid + kTune.slot_instr * slots) +
      static_cast<double>(c->grid) * threads * slots * 2 * 8.0 * T.n_dims;
  const double wavefronts = 2.0 * T.num_tiles * slots * (threads / 32.0) *
                            std::max(1.0, g.esize * 32.0 / 128.0);
  finish_cost(dev, mem, instr, wavefronts, terms, c);
  // The L2 band (analytic.hpp): the ranking's prediction only; the regression's features keep
  // the unscaled analytic time (it ranks the problems it covers by its own fit).
  const Problem& p = *g.p;
  if (p.plain() && g.esize <= 8 && l2_resident(p, dev)) {
    c->terms.l2_factor = std::pow(threads / 256.0, kTune.l2_threads_exponent);
    c->predicted *= c->terms.l2_factor;
  }
}

bool l2_resident(const Problem& p, const DeviceInfo& dev) {
  return dev.l2_bytes > 0 &&
         2.0 * static_cast<double>(p.bytes()) <= kTune.l2_resident_share * dev.l2_bytes;
}

// Blocks of the narrow kernel resident on one SM: its registers `narrow_regs` (two blocks at
// least, its launch bounds), threads and the tile's shared memory with the tables. Quad blocks
// with a deal warp (NarrowParams::deal_warp) have 32 threads more, whose launch bounds hold them
// to the same blocks.
static int narrow_resident(const DeviceInfo& dev, int narrow_regs, int64_t smem) {
  const int regs = (narrow_regs > 0 ? narrow_regs : 128) + 7;
  int r = std::min(dev.regs_per_sm / (regs / 8 * 8 * kNarrowThreads),
                   dev.max_threads_per_sm / kNarrowThreads);
  r = std::min<int64_t>(r, dev.smem_per_sm / (smem + 1024));
  return std::clamp(r, 1, 32);
}

void cost_narrow(const Geometry& g, const DeviceInfo& dev, const Tile& T, Choice* c) {
  c->threads = kNarrowThreads;
  c->stages = 1;
  c->narrow = true;
  CostTerms terms;
  // Where input dim 0 stays leading (FVI match) the narrow tiles keep the tile kernel's merge:
  // there the higher one chose tiles that ran 0.83-1.01x (docs/perf/narrow-h100.md, session 22).
  const double merge = g.p->perm[0] != 0 ? kTune.narrow_read_merge : kTune.read_merge;
  const int resident = narrow_resident(dev, dev.narrow_regs, T.smem_bytes);
  const double mem = tile_memory(g, dev, T, resident, c, &terms, merge);
  // The grids of small tiles, with more blocks an SM (params.hpp kNarrowSmallBlocks): where
  // build_narrow takes raw rows (Choice::raw_rows: they fit), and where it realigns them (1-byte
  // gathered tiles; 1-byte quads without the deal warp, whose shared memory may grow by halo
  // rows). The cost stays three blocks': the narrow trees fitted on those launches ranked the
  // four-block build's candidates as well as a refit on it (session 37,
  // docs/perf/model-h200.md).
  const int64_t bytes = T.volume * g.esize;
  const auto small_grid = [&](int64_t smem) {
    const int n = std::min(kNarrowSmallBlocks, narrow_resident(dev, dev.narrow_four_regs, smem));
    return n > resident ? static_cast<unsigned>(
                              std::min<int64_t>(T.num_tiles, static_cast<int64_t>(n) * dev.sms))
                        : c->grid;
  };
  c->raw_grid = c->raw_rows && bytes < kNarrowGatheredFourBlockBytes
                    ? small_grid(T.raw_smem_bytes)
                    : c->grid;
  c->realigned_grid = c->grid;
  if (g.esize == 1 && T.overlap && bytes < kNarrowGatheredFourBlockBytes)
    c->realigned_grid = small_grid(T.smem_bytes);
  if (g.esize == 1 && !T.overlap && bytes <= kNarrowQuadFourBlockBytes &&
      !narrow_deal_warp(true, g.esize, T.in_run * g.esize, !g.p->plain()))
    c->realigned_grid = small_grid(T.smem_bytes + narrow_halo_smem_bytes(T.in_run * g.esize));
  const int64_t rows = T.volume / T.in_run, spans = T.volume / T.out_run;
  const int64_t chunks = rows * ceil_div(T.in_run * g.esize, kNarrowChunk);
  const int64_t per_span = ceil_div(T.out_run * g.esize + 31, kNarrowWord);
  const int64_t words = spans * per_span;
  const int64_t group = int64_t{1} << narrow_group_shift(T.out_run * g.esize);  // narrow.cu
  const int64_t positions = spans * group * ceil_div(per_span, group * kNarrowWords);
  // Disjoint runs: one lane per 4 rows x one shared-memory word of columns (31 of 32 lanes
  // store); others gather word by word.
  const double lane_blocks = (T.out_run / 4.0 + 1) * ceil_div(T.in_run * g.esize, 4) * 32 / 31;
  const double write = !T.overlap ? lane_blocks * kTune.narrow_quad_instr
                                  : positions * kTune.narrow_position_instr +
                                        words * kTune.narrow_word_instr * (g.esize == 2 ? 0.6 : 1);
  const double per_tile = chunks * kTune.narrow_chunk_instr + write +
                          kNarrowThreads * (kTune.tile_fixed_instr + kTune.grid_dim_instr * T.n_grid);
  const double instr = static_cast<double>(T.num_tiles) * per_tile +
                       static_cast<double>(c->grid) * (rows + spans) * 8.0 * T.n_dims;
  // Per chunk four 4-byte stores (4-way: eight banks per warp), per word one load per element.
  const double wavefronts =
      static_cast<double>(T.num_tiles) * (chunks * 4.0 * 4.0 + words * 4.0 / g.esize) / 32.0;
  finish_cost(dev, mem, instr, wavefronts, terms, c);
}

// Alignment (bytes, gcd with 128) of the output rows' starts (output strides in output
// elements: a conversion's output is not of the input's size).
static int64_t row_align(const Geometry& g) {
  int64_t a = 128;
  for (int k = 1; k < g.rank; ++k) a = gcd_pow2(a, g.s_out[k] * g.out_esize);
  return a;
}

void cost_rows(const Geometry& g, const DeviceInfo& dev, Choice* c) {
  const Problem& p = *g.p;
  const int64_t row_bytes = (p.rank <= 1 ? p.volume : p.extent[0]) * g.esize;
  const int64_t rows = p.volume * g.esize / row_bytes;
  const int64_t chunks = ceil_div(row_bytes, kRowChunkBytes);
  const int64_t items = rows * chunks;
  const int64_t capacity = static_cast<int64_t>(dev.sms) * (dev.max_threads_per_sm / 256);
  // Rows no 4-byte access fits run realigned, a thread per 16-byte output word, or long ones a
  // warp per chunk of a row's words (rows.cu, params.hpp realign_long).
  const bool realign = row_bytes % 4 != 0;
  const int64_t row_words = ceil_div(row_bytes, 16) + 1;
  const int64_t words = rows * row_words;
  const bool by_chunks = realign && p.rank > 1 && realign_long(row_bytes, p.bytes());
  const int64_t blocks = by_chunks ? ceil_div(rows * ceil_div(row_words, kRealignChunkWords), 8)
                         : realign ? ceil_div(words, 256)
                                   : ceil_div(items, 8);
  c->grid = static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, capacity)));
  c->in_run = c->out_run = row_bytes / g.esize;
  c->num_tiles = items;
  const double eff_w = p.rank <= 1 ? 1.0
                                    : run_efficiency(row_bytes, row_align(g), kTune.write_unit,
                                                     kTune.write_merge);
  const double warps_per_sm = std::min<double>(dev.max_threads_per_sm / 32.0,
                                               static_cast<double>(items) / dev.sms);
  const double mwp = parallelism(dev, warps_per_sm * std::min(row_bytes, kRowChunkBytes));
  const double sm_share = std::min(1.0, static_cast<double>(c->grid) * 8 / dev.sms / 8);
  const double mem = dram_time(dev, p, 1.0, eff_w) / (mwp * std::max(sm_share, 1e-3));
  const int64_t width = std::min<int64_t>(16, row_bytes & -row_bytes);
  const double instr =
      realign ? static_cast<double>(words) *
                    (kTune.row_word_instr + kTune.grid_dim_instr * (p.rank - 1))
              : static_cast<double>(items) * 32 *
                        (kTune.row_item_instr + kTune.grid_dim_instr * (p.rank - 1)) +
                    static_cast<double>(p.bytes()) / width * 6;
  const double issue = issue_time(dev, instr);
  c->predicted = kTune.launch_s + std::max(mem, issue);
  c->terms = {p.bytes() / dev.dram_bytes_per_s, 1, 1 / eff_w, 1 / mwp,
              1 / std::max(sm_share, 1e-3), 1, issue, 0, std::ceil(items / (8.0 * c->grid)),
              c->predicted, kTune.launch_s, static_cast<double>(p.bytes()),
              static_cast<double>(row_bytes), static_cast<double>(row_bytes),
              static_cast<double>(g.esize)};
}

bool direct_fits(const Problem& p) {
  return p.rank >= 2 && p.bytes() <= kTune.direct_max_bytes && p.volume <= kTune.direct_max_elems;
}

void cost_direct(const Geometry& g, const DeviceInfo& dev, Choice* c) {
  const Problem& p = *g.p;
  c->threads = kDirectThreads;
  c->grid = static_cast<unsigned>(ceil_div(p.volume, kDirectThreads));
  c->in_run = 1;
  c->out_run = p.extent[p.perm[0]];
  c->num_tiles = c->grid;
  // Reads are scattered (a sector per element at worst); at these sizes the launch dominates.
  const double issue =
      issue_time(dev, static_cast<double>(p.volume) * kTune.direct_elem_instr * p.rank);
  const double mem = dram_time(dev, p, 1.0 / 8, 1.0);
  c->predicted = kTune.launch_s + std::max(mem, issue);
  c->terms = {p.bytes() / dev.dram_bytes_per_s, 8, 1, 1, 1, 1, issue, 0, 1, c->predicted,
              kTune.launch_s, static_cast<double>(p.bytes()), static_cast<double>(g.esize),
              static_cast<double>(c->out_run * g.esize), static_cast<double>(g.esize)};
}

}  // namespace xpose::detail::analytic
