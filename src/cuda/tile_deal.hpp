// The host's side of the tile counters of tile_order.cuh: which launch deals its tiles from
// which slot of a device's table. CUDA-free (the narrow kernel's file calls it).
#pragma once

#include <cstdint>

namespace xpose::detail {

inline constexpr int kTileSlots = 4096;

// A launch's counter; a null counter: tiles round-robin. Plain data (a kernel argument, and a
// member of shared-memory state): value-initialize it.
struct TileDeal {
  unsigned long long* counter;  // device memory
  unsigned long long* done;     // mapped host memory: the counter's value when the slot is free
  unsigned long long base;      // the counter's value before the launch's first take
};

// Per device, once, the device current: the table of `kTileSlots` counters in device memory
// (zero when the module loads) and the host memory the device reports free slots in. Without
// it (or where mapping host memory fails) every launch takes its tiles round-robin.
void tile_deal_setup(int ordinal, unsigned long long* counters);

// A free slot of the device's table for one launch that takes `tickets` (deal_tickets), or a
// null deal where none of the few slots tried is free. Thread-safe; no CUDA call.
TileDeal tile_deal_claim(int ordinal, uint64_t tickets);

// The launch of a claimed deal failed: its slot is free again.
void tile_deal_cancel(int ordinal, const TileDeal& deal);

}  // namespace xpose::detail
