// Tuning of the CPU backend as data: every block size and threshold the planner uses, each with
// what justified it. Measurements are on the 2-core development VM (docs/perf/cpu-2core.md);
// values marked "structural" follow from the hardware (cache lines, registers), not from a run.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xpose::detail::cpu {

// Tile shape of the blocked schemas for one element size: TI elements along the minor input
// multi-index (contiguous reads) and TO along the minor output multi-index (contiguous writes).
struct TileShape {
  int ti;
  int to;
};

struct Tuning {
  // Structural: x86 cache line.
  int64_t line_bytes = 64;
  // Tiles per element size 1, 2, 4, 8, 16 B: runs of 128..512 B on both sides (whole lines,
  // long enough for the L2 streamer) and at most 32 KiB per tile (the staging buffer of the
  // non-temporal path, within a 48 KiB L1D). 8 B: on the TTLG 6D + cuTT suites (2 threads,
  // docs/perf/cpu-2core.md) 32x32 gave median 0.51 of memcpy, 64x64 0.64, 128x64 0.62; the
  // other sizes keep the same run lengths in bytes. Since tiles are walked by column blocks and
  // write whole lines, 8 B is 256 x 32 (2 KiB input runs, 256 B output rows, two staging
  // chunks): 2D-like cuTT cases 0.83 -> 0.93 of memcpy against 64 x 64.
  TileShape tile_by_size[5] = {{128, 128}, {128, 128}, {128, 64}, {256, 32}, {32, 32}};
  // A second `blocked` candidate per size where it differs (the cost model picks): square tiles
  // for problems whose whole output rows are short, where a 32-wide I leaves rows that do not
  // continue each other ((19,6,12,86,7,33) perm (5,2,4,3,1,0): 264 B rows, 0.52 of memcpy with
  // 256 x 32, 0.88 with 64 x 64).
  TileShape square_by_size[5] = {{128, 128}, {128, 128}, {128, 64}, {64, 64}, {32, 32}};
  // Further `blocked` candidates for 1-byte elements: the tile of 256-byte input runs and the
  // short-dim tiles of its area (32 KiB, the staging buffer; cpu_backend.cpp), ranked at their
  // prediction x narrow_long_tile_margin, so taken only where the model puts them that far
  // ahead. There the larger tile keeps dims whole that the default cuts: (188,13,79,133) perm
  // (3,1,0,2), 94 x 133 (input dim 0 in two) -> 188 x 266, predicted 8.4 -> 3.3 ms. On the
  // 16-core device host, the 28 plans they changed among 720 random 1-byte problems and the
  // build VM's picks ran 1.45x faster by geomean (0.73-3.02x with 16 threads, 0.90-2.69x with
  // one). As the default 1-byte tile, 256 x 128 ran 0.61-2.46x on the 2-core VM where the
  // model put it within 10 % of 128 x 128 (session 27, docs/perf/cpu-16core.md).
  TileShape narrow_long_tile = {256, 128};
  double narrow_long_tile_margin = 1.2;
  // `cells` (cells.hpp) ranks at its prediction (a `direct` copy's of runs of a cell) x
  // cells_margin: the tiled candidates of such problems cut them into tiles of one cell, and
  // the run model overcharges cells whose inputs are scattered ((7,10,98,4320) perm (1,0,3,2) of
  // 2 bytes: predicted 24.0 ms against blocked's 24.0, ran 10.1 against 26-29). On the 2-core
  // build VM, 40 random cells problems (session 38): cells 0.88-9.1x blocked, geomean 2.65x; the
  // four below 1.0x at 0.96-1.13 of memcpy either way; 16-core host, 80 problems: 2.34x
  // (docs/perf/cpu-16core.md).
  double cells_margin = 0.5;
  // Super-elements (the leading run of a `super` plan, any byte size other than 1..16 B):
  // square tiles of about super_tile_bytes, at least super_min_side elements a side. 568 B
  // elements (cuTT r4, extents 71 71 5041 perm 0 2 1) ran at 0.44 of memcpy with 2x2 tiles, 0.63
  // with 8x8 (per-tile overhead). 120 B elements (TTLG 15^6 with the leading index in place):
  // 8x8 (512 B runs) 0.75 median of 5 cases, 16x16 0.72, 32x32 0.87 (3.8 KiB runs).
  int64_t super_tile_bytes = int64_t{128} << 10;
  int64_t super_min_side = 8;
  // Staging buffer of the non-temporal path, per thread (structural: fits a 48 KiB L1D with the
  // tile's input lines in flight). A staged output row, TO plus line_ext columns, must fit it:
  // TO is capped for large super-elements, and a plan whose rows still do not fit (a forced TO,
  // super-elements of more than half of it) stores without staging (cpu_backend.cpp).
  int64_t stage_bytes = int64_t{32} << 10;
  // Upper bound of TI and TO (plan-time offset tables live in the plan object). Structural:
  // twice the largest tile side above, since segmenting rounds a side up to whole sub-blocks.
  static constexpr int kMaxTileSide = 512;
  // Structural: columns that finish a partial output line, at most 63 of 1-byte elements.
  static constexpr int kMaxLineExt = 63;
  // `direct` (leading index stays) copies whole runs; below this run length `super` is a
  // candidate too (the model picks). 1 KiB: on the 16-core device (bench/suites/cpu-rows.txt,
  // docs/perf/cpu-16core.md) `super` ran 512 B and 1008 B runs at 1.15-1.35 of memcpy whatever
  // the walk, `direct` at 0.76-1.23; from 2 KiB runs `direct` was ahead unless runs start cold.
  int64_t direct_min_run_bytes = 1024;
  // Cold runs: `direct` walks the output in order, so when consecutive output runs are not
  // contiguous in the input, each read starts a stream; up to direct_max_streams of them in turn
  // the prefetchers follow (the walk comes back next to each), past that every run starts cold.
  // Cold runs shorter than cold_run_max_bytes make `super` (tiles of runs: long reads and
  // writes) a candidate too, and cost cold_run_bytes more per run, less as the run grows to
  // that length. (126,40,5056) perm (0,2,1), cuTT r4x5-2: direct 0.73-0.93 of memcpy on the
  // 16-core device; on the build VM, 512 B-2 KiB runs with 2400-49000 cold streams ran direct
  // at 0.63-0.96 and super at 1.11-1.24, with 26-661 streams direct at 0.95-1.18 (and ahead of
  // super from 2 KiB runs): docs/perf/cpu-16core.md.
  int64_t direct_max_streams = 1024;
  int64_t cold_run_max_bytes = 4096;
  double cold_run_bytes = 1024;
  // `matrix` (batches of 2D transposes) applies when both leading extents span a cache line.
  // Lyakh's condition R >= L (paper 003, section II).
  int64_t matrix_min_run_bytes = 64;
  // Non-temporal stores when the output exceeds this fraction of the LLC share of the threads
  // used: the written data would evict the input before it is reused, and regular stores pay a
  // read-for-ownership per line. 1/2 because the input shares the cache.
  double nt_llc_fraction = 0.5;
  // The same for the tiles of 1- and 2-byte elements (`blocked`, `matrix`), whose regular stores
  // write each tile's rows in place (many rows at once, at power-of-two strides in one cache
  // set) where non-temporal ones stage the tile and stream whole lines: on the 16-core device,
  // the quick suite with 1-byte elements (8 MiB, 16 threads, regular stores by the rule above)
  // ran at 0.41-0.45 of memcpy (median), forced non-temporal at 0.59-0.66 (q01 0.35 -> 0.16 ms;
  // docs/perf/cpu-16core.md, session 11). A quarter of the fraction above: 5 MiB on 16 threads.
  double narrow_nt_llc_fraction = 0.125;
  // LLC share per thread assumed at most: a VM or container reports the whole socket's L3
  // (480 MiB on the 2-core development VM) while it competes with the socket's other cores.
  // 2.5 MiB/core is above Sapphire Rapids (1.875) and below Zen 4 (4). On the development VM a
  // 134 MB TTLG transpose ran at 0.33 of memcpy with regular stores, 0.64..0.76 with
  // non-temporal ones (docs/perf/cpu-2core.md). On the 16-core device (300 MiB L3 reported)
  // non-temporal stores were faster on every 91..200 MB suite (plan time 0.5..0.99x of regular
  // stores, docs/perf/cpu-16core.md), so glibc's rule (regular below 151 MiB per call) is not
  // followed for transposes.
  int64_t llc_share_per_thread = int64_t{5} << 19;
  // LLC size assumed when sysconf cannot tell: a typical 32 MiB server L3.
  int64_t fallback_llc_bytes = int64_t{32} << 20;
  // Execute splits its work (tiles, or output lines of copy/direct) into chunks_per_thread
  // chunks per thread, each of at least min_chunk_bytes, handed out in order to whichever thread
  // is free. On the 16-core device equal static ranges left the run waiting for its slowest
  // thread: 197 suite cases took 0.87-0.90 of the time with 8 or 32 chunks per thread (median
  // ratio 1.03 -> 1.17-1.18 of memcpy, worst 0.71 -> 0.83; an A/A control moved 0.3 %;
  // docs/perf/cpu-16core.md, session 6). The 256 KiB floor keeps chunks of small tensors long
  // against a chunk's fixed costs (a cursor, a scan of the held-line slots, a fence, a dispatch).
  int chunks_per_thread = 16;
  int64_t min_chunk_bytes = int64_t{256} << 10;
  // Small and cache-resident tensors (issue 14; 16-core device VM, `sizes` suite with
  // --latency: repeated calls on warm caches, docs/perf/middle-h100.md). Below
  // serial_below_bytes execute runs on the calling thread: starting a team cost more than the
  // work (4-64 KiB: 1.0-41x faster, median 2.5-20x by size). Below static_below_bytes the chunks
  // go to the threads in fixed ranges, so that repeated calls on the same buffers find their
  // lines in the same cores' caches, as the memcpy's static split does (256 KiB-4 MiB: 1.2-2.9x
  // faster, median 1.9-2.1x; at 16 MiB 0.74-1.84x, so 16 MiB keeps the dynamic hand-out).
  int64_t serial_below_bytes = int64_t{128} << 10;
  int64_t static_below_bytes = int64_t{8} << 20;
  // Cost model: sustained copy bandwidth of one thread and of the whole socket (read + write
  // bytes per second). From the parallel memcpy baseline on the development VM.
  double bandwidth_per_thread = 12e9;
  double bandwidth_socket = 200e9;
  // Cost model: bytes per second one thread moves through the register blocks of the 1- and
  // 2-byte kernels (block area, edges included): 1024 x 512 bytes perm (1, 0), warm, one thread,
  // on the EPYC build VM: 27 GB/s with AVX2 and AVX-512BW blocks, 16 GB/s with SSE2's.
  double narrow_block_rate = 27e9;
  // Cost model: fixed cost of one tile (loop-nest step, table walk) and of one run of a
  // `direct` plan (a memcpy call), seconds.
  double tile_overhead_s = 15e-9;
  double run_overhead_s = 5e-9;
  // Cost model: write traffic relative to the bytes written, for regular stores to an output
  // beyond the cache (the read-for-ownership of each line), and for non-temporal stores to one
  // that fits (the data must come back from memory when next read).
  double rfo_write_factor = 1.5;
  double nt_in_cache_factor = 1.2;
  // Cost model: a partial output line of a non-temporal tile (regular stores: a read for
  // ownership that stalls the stream), in full-line writes. Skipping them in a test build
  // sped odd-extent cases up 1.34..1.9x with 12..22% of the lines partial: 3..9 lines each.
  double partial_line_cost = 5;
  // Regular stores of 4-byte tiles: the 8 x 8 kernel writes half a line of each of 8 output rows
  // a block, and walks a column block down all TI rows before the next one completes those
  // lines, so a tile's TI partial output lines must stay in L1 meanwhile. Where more of them
  // than an L1 set holds fall into one set (power-of-two row strides: 2 KiB rows put them in 2
  // of the 64 sets, 4 KiB rows in one), they evict each other and each is read and written back
  // again. One thread, warm, f32 (512,512) perm (1,0): TI 128 (64 lines a set) 0.081 ms, TI 16
  // (8 a set) 0.038; (256,1024): TI 128 0.172 ms, TI 8 0.048; (1024,256): TI 128 0.061, TI 32
  // 0.047; (520,504), no such sets: every TI within 0.031-0.067 (build VM, session 46). Such
  // tiles' writes cost set_conflict_factor times as much, and the default tile with TI halved
  // until its rows spare the sets (at least 8, TO at least few_rows_min_to) is a candidate for
  // 4-byte elements (structural: 64 sets of 8 ways, the L1D of Zen 4 and the fewest ways of
  // recent x86 cores; Sapphire and Emerald Rapids have 12).
  int l1_sets = 64;
  int l1_ways = 8;
  double set_conflict_factor = 3;
  int few_rows_min_to = 128;
  int few_rows_min_ti = 8;
  // ... where both tensors fit the threads' L2 (structural: 1 MiB a core on Zen 4, 2 on
  // Sapphire and Emerald Rapids), so that repeated calls find them there. Beyond it the fewer
  // rows' shorter input runs cost more than the crowding: (32,64,128,2) perm (2,1,3,0), 2 MiB
  // on 2 threads, ran 0.80x with TI 8 even warm. Within it, 8-9 of 40 random power-of-two
  // problems of 64 KiB-16 MiB changed plans and ran 1.8-1.9x faster by geometric mean warm (1
  // and 2 threads), 1.08-1.10x from memory (caches flushed before each call; 0.76-1.67x),
  // none of 40 problems of other extents changed (docs/perf/cpu-2core.md, session 46).
  int64_t l2_bytes_per_thread = int64_t{1} << 20;
  // Tile order: page size assumed (structural: 4 KiB, the worst case; huge pages only help) and
  // the pages a group of tiles may touch so that both its input and output pages stay in the
  // TLB: half of the 2048-entry STLB of Sapphire/Emerald Rapids (set-associative, shared with
  // the staging buffer, stack and page-walk noise). See docs/cpu.md "Tile order".
  int64_t page_bytes = 4096;
  double tlb_group_pages = 1024;
  // Measure planning times this many of the best-predicted candidates.
  int measure_top = 3;
  // Measure planning repetitions per candidate (after one warm-up); the minimum is kept.
  int measure_reps = 3;
};

inline constexpr Tuning kTuning{};

}  // namespace xpose::detail::cpu
