// Tiles dealt to a launch's blocks in index order (narrow.cu). A grid of persistent blocks that
// takes tiles round-robin (block b: b, b + grid, ...) lets the blocks drift apart, and tiles
// next to each other, which share the partial sectors at their edges, then run far apart in
// time: the narrow kernel read 275 MB from DRAM for a 200 MB input (docs/perf/narrow-h100.md,
// "Tiles in order"). Here each block takes its first kFixedRounds tiles round-robin (before the
// blocks can drift) and every further tile from a counter of the launch, so the tiles in flight
// stay a window of consecutive ones. Launches whose tiles share no sector (NarrowParams::
// shared_sectors, and pointers on 32 bytes) keep round-robin: order gains them nothing there.
//
// The counter is one of a table of slots in device memory, handed to the launch by the host
// (tile_deal.hpp) with `base`, the counter's value when the launch starts. The host gives a slot
// to one launch at a time, so a launch's tickets are base, base + 1, ... in whatever stream or
// order it runs. Counters are never reset: a launch takes exactly deal_tickets() of them (one a
// counted tile, and one more a block: the first it finds past the last tile, where it stops).
// The block that takes the launch's last ticket tells the host, through `done` in mapped host
// memory, that the slot is free; its tiles may still be in flight, the counter is no longer
// needed. Launches the host gives no slot (captured into a graph, whose replays would repeat
// `base`; or no slot free) take every tile round-robin.
//
// A device reset (cudaDeviceReset) while the library is loaded is not supported: the table,
// like the device's properties and the kernels' shared-memory opt-ins, is set up once per device
// and process.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/tile_deal.hpp"

namespace xpose::detail {

// Rounds of tiles every block takes round-robin (b, b + grid) before the counter's: the blocks
// cannot drift apart in them, and the answer to a block's first take, asked at its start, has a
// tile's time to arrive. (One round, or two tickets held ahead, measured slower.)
inline constexpr int kFixedRounds = 2;

// Whether a launch of `grid` blocks over `num_tiles` tiles deals some of them by a counter.
__host__ __device__ constexpr bool counts_tiles(int64_t num_tiles, int64_t grid) {
  return num_tiles > kFixedRounds * grid;
}

// Tickets such a launch takes from its counter: one a counted tile, and one more a block (the
// first it finds past the last tile, where it stops).
__host__ __device__ constexpr uint64_t deal_tickets(int64_t num_tiles, int64_t grid) {
  return static_cast<uint64_t>(num_tiles - (kFixedRounds - 1) * grid);
}

// The order of one block's tiles; used by one thread of the block only (the kernel keeps it in
// shared memory: in registers, live through the tile loop, it cost the loop registers).
class TileOrder {
 public:
  // Takes the block's first counted tile (the answer is read a tile later).
  __device__ __forceinline__ void start(const TileDeal& d, int64_t num_tiles) {
    deal_ = d;
    num_tiles_ = num_tiles;
    if (deal_.counter != nullptr) ticket_ = atomicAdd(deal_.counter, 1ull);
  }

  // The tile this block moves after tile t; num_tiles at the block's end.
  __device__ __forceinline__ int64_t after(int64_t t) {
    const int64_t grid = gridDim.x;
    if (deal_.counter == nullptr || t < (kFixedRounds - 1) * grid) return t + grid;
    const uint64_t n = ticket_ - deal_.base;
    const uint64_t counted = num_tiles_ - kFixedRounds * grid;
    if (n < counted) {
      ticket_ = atomicAdd(deal_.counter, 1ull);
      return kFixedRounds * grid + static_cast<int64_t>(n);
    }
    const unsigned long long end = deal_.base + counted + grid;
    if (ticket_ + 1 == end)  // the launch's last ticket: every take is done, the slot is free
      asm volatile("st.relaxed.sys.u64 [%0], %1;" : : "l"(deal_.done), "l"(end) : "memory");
    return num_tiles_;
  }

 private:
  TileDeal deal_;
  int64_t num_tiles_;
  unsigned long long ticket_;
};

}  // namespace xpose::detail
