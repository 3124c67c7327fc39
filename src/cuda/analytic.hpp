// The CUDA planner's analytic cost model: each candidate's predicted time from the device's
// properties and the candidate's tile (docs/cuda.md, "Planner and cost model"), and the tuning
// table it and the planner's candidates read. Host C++ only: no CUDA header.
#pragma once

#include <cstdint>

#include "cuda/planner.hpp"
#include "cuda/runtime.hpp"
#include "cuda/tile_shape.hpp"

namespace xpose::detail::analytic {

// Tuning as data. Each value names what justifies it (docs/perf/cuda-h100.md).
struct Tuning {
  double copy_fraction = 0.90;      // device copy / peak DRAM bandwidth (H100: ~3.0 of 3.35 TB/s)
  double latency_s = 2.5e-6;        // one tile round (load, barrier, store) under load: a tile
                                    // kernel with 16 KB of loads in flight per SM ran at 0.64
                                    // of copy on the H100 (docs/perf/cuda-h100.md)
  double launch_s = 2.5e-6;         // launch + ramp of one kernel (cudaMemcpyAsync of 1 MB ~ 3 us)
  double read_unit = 64, read_merge = 0.25;  // reads: neighbours' partial units hit in L2
  double write_unit = 128, write_merge = 0.0;
  // The narrow kernel's reads: its rows are 16-byte envelopes (cp.async), so the partial units
  // at a run's ends are partly its neighbours' and found in L2 more often than the tile
  // kernel's. At 0.25, fresh 1-byte problems took input runs of two dims (80-130 bytes) with
  // output runs of 111-120 where measure planning took input dim 0 alone with output runs
  // 1.5-2x longer, 1.2-1.4x faster (docs/perf/narrow-h100.md, sessions 19 and 22); in narrow2d
  // tiles, rows off lines cost 13 % on the input side and 27 % on the output side. Problems
  // whose input dim 0 stays leading keep read_merge (analytic.cpp cost_narrow).
  double narrow_read_merge = 0.5;
  // Fixed cost of a run, as bytes (DRAM page and L2 set changes): aligned 128-byte runs ran at
  // 0.83 of copy, 1 KB runs at 0.92 (TTLG 6D suite, docs/perf/cuda-h100.md).
  double run_overhead_bytes = 24;
  double issue_efficiency = 0.5;    // of 4 warp instructions per SM per cycle
  double tile_fixed_instr = 40;     // per thread per tile: loop, barriers, limits
  double grid_dim_instr = 14;       // per thread per tile and grid dimension: 64-bit fast div
  double slot_instr = 14;           // per thread slot per tile: 2 loads, 2 stores, checks
  double row_item_instr = 50;       // per warp item of the row kernel (plus grid_dim_instr/dim)
  double row_word_instr = 40;       // per realigned 16-byte word (rows.cu; plus the row decode)
  // Narrow kernel (narrow.cu), thread instructions per read position (a 16-byte chunk: table
  // entry, two loads, the funnel shift, four shared stores), per write position (a span's
  // entry and alignment) and per word it writes (four gathered bytes), counted from its SASS.
  double narrow_chunk_instr = 50;
  double narrow_position_instr = 25;
  double narrow_word_instr = 14;
  double narrow_quad_instr = 45;  // per lane of a quad task (4 rows x 4 bytes of columns)
  // Narrow runs up to 4 KB: with overlapping runs (22^6 perm (1,0,2,4,3,5)) a run must reach
  // past two dims for the tile to fill its 16 KB; 968-byte tiles ran at 0.13 of copy.
  int64_t narrow_run_targets_bytes[6] = {64, 128, 256, 512, 1024, 4096};
  int64_t run_targets_bytes[4] = {128, 256, 512, 1024};  // input/output run targets
  int64_t run_targets_elems[2] = {32, 8};  // small runs: tiles that fit for 1-byte elements
  // Non-plain problems whose input dim 0 stays leading (FVI match) with at least this many
  // elements a row take tiles of whole rows (planner.cpp tiled_choices).
  int64_t typed_row_tile_elems = 256;
  // cp.async buffers of the tile kernel (elements >= 4 B). Run 6 (docs/perf/cuda-h100.md):
  // 3 and 4 buffers ran slower than 2 (TTLG 17 median 0.82 against 0.87), so 2.
  int stages = 2;
  // V1BF banded tile walk, offered to measure planning from this size on with this band width
  // (tiles; the paper's w = 8). On the H100 banded and plain walks ran alike (0.89 of copy on
  // 2 GB rank-2 tensors, docs/perf/cuda-h100.md run 8), so the heuristic never bands.
  int64_t band_min_bytes = int64_t{1} << 30;
  int band_width = 8;
  // The direct kernel (a thread per output element, direct.cu) for tensors up to this size,
  // chosen before any tile: there a launch is the time, and the tile kernels' setup, barriers
  // and pipeline added 1.2-2.6 us to it. Graph-replayed on an H200 (docs/perf/middle-h100.md),
  // direct beat the tile kernels on every sizes case of 4-256 KiB (2D/4D/6D, 2/4/8-byte
  // elements: 1.1-2.3 us against 2.1-3.9) and at 1 MiB on those of up to 2^17 elements (f64;
  // f32 6D), not on more (fp16 2D: 4.7 us against 4.3).
  int64_t direct_max_bytes = int64_t{1} << 20;
  int64_t direct_max_elems = int64_t{1} << 17;
  double direct_elem_instr = 12;  // per element and output dim: a fast division, the offset
  // Plain tensors of 4- and 8-byte elements whose input and output fit in L2 together
  // (l2_resident_share of it; up to ~18 MB each on the H100): a block moves one or two tiles,
  // its time is the latency of its prologue and tile rounds, and the model (DRAM time) ranked
  // big blocks first where smaller ones, more of them per SM, finish sooner. Tiled predictions
  // there scale by (threads / 256) ^ l2_threads_exponent. Fitted on 40 random problems of
  // 1-16 MiB (seed 557827778), checked on 120 fresh ones (three seeds): chosen / fastest
  // candidate, geometric mean, 4 B 1.155 -> 1.092, 8 B 1.113 -> 1.063; 16 B 1.092 -> 1.084 by
  // the same measure but graph-replayed 0.91-0.97x slower, so not 16 B (docs/perf/middle-h100.md).
  double l2_resident_share = 0.75;
  double l2_threads_exponent = 0.2;
};
inline constexpr Tuning kTune{};

int log2_of(size_t v);
// One tile buffer, bytes, rounded to 16 (as build_tiled lays them out).
int64_t buffer_bytes(int64_t smem_elems, int esize);
// Threads of a tile kernel block for a tile of `volume` elements.
int default_threads(int64_t volume);

// A candidate's prediction and its CostTerms, and the kernel's launch shape (grid, stages).
// forced_stages: a schema's `stages=` (0: the planner's depth).
void cost_tiled(const cuda_tile::Geometry& g, const DeviceInfo& dev, const cuda_tile::Tile& T,
                int forced_stages, Choice* c);
// cost_narrow also sets c->raw_grid (from c->raw_rows, which the caller sets) and
// c->realigned_grid.
void cost_narrow(const cuda_tile::Geometry& g, const DeviceInfo& dev, const cuda_tile::Tile& T,
                 Choice* c);
void cost_rows(const cuda_tile::Geometry& g, const DeviceInfo& dev, Choice* c);
// Whether p's input and output together fit in the share of L2 the model calls resident
// (kTune.l2_resident_share; false where the device's L2 is unknown).
bool l2_resident(const Problem& p, const DeviceInfo& dev);
// Whether the direct kernel applies to `p` (kTune.direct_max_bytes and _elems), and its cost.
bool direct_fits(const Problem& p);
void cost_direct(const cuda_tile::Geometry& g, const DeviceInfo& dev, Choice* c);

}  // namespace xpose::detail::analytic
