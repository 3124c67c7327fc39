// Non-temporal output of the tiled schemas, one thread's pieces at a time: whole cache lines of a
// piece are streamed at once; the partial lines at a piece's ends are held back until other
// pieces of the same thread complete them, so that they too are streamed whole. A partial line
// streamed non-temporally costs a read-modify-write in the memory controller and a regular store
// a read for ownership that stalls the stream (docs/cpu.md); they remain only where a line's
// other bytes belong to another thread or never come while the line is held.
//
// Pieces that complete each other need not be consecutive: the spans of consecutive tiles along
// loop 0 when that loop continues every output span of the tile ((17,17,83521) perm (1,0,2):
// one 2312 B span per tile; 15^6 perm (2,0,4,1,3,5): 15 spans of 1800 B per tile), and rows of
// one tile that continue each other several rows apart when the tile is staged in chunks.
// tile_plan.cpp uses it for whole output rows only (I uncut); see there why.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/kernels.hpp"

namespace xpose::detail::cpu {

class LineWriter {
 public:
  // Copies n bytes from src to dst (any alignment). Bytes of a line that is not complete yet
  // stay here until flush() or until another piece completes the line.
  void put(char* dst, const char* src, size_t n) {
    const auto mis = static_cast<int>(reinterpret_cast<uintptr_t>(dst) & (kLine - 1));
    if (mis != 0) {
      const int take = static_cast<int>(std::min<size_t>(n, kLine - mis));
      hold(dst - mis, mis, src, take);
      dst += take;
      src += take;
      n -= static_cast<size_t>(take);
    }
    const size_t whole = n / kLine * kLine;
    if (whole != 0) copy_bytes(dst, src, whole, true);  // dst is line-aligned here
    if (n > whole) hold(dst + whole, 0, src + whole, static_cast<int>(n - whole));
  }

  // Counts the caller's tiles: the age of held pieces.
  void next_tile() { ++tile_; }

  // Writes every held piece with regular stores (their lines' other bytes are elsewhere).
  void flush() {
    for (int i = 0; i < kSlots; ++i) evict(i);
  }

 private:
  static constexpr int kLine = 64;
  // 1024 lines, direct-mapped (78 KiB, in the thread's workspace next to the 32 KiB staging
  // buffer, tile_plan.cpp): a tile of up to 512 rows leaves up to two open pieces per row for a
  // later tile. A piece replaced early goes out with a regular store and its other half later
  // with another one, after the line left the cache: worse than the plain partial stores.
  // (6,17,7,6,15,4,5,21) perm (3,0,5,7,2,1,4,6), 102 open pieces per tile: 64 slots 0.50 of
  // memcpy (0.68 before holding anything), 512 slots 0.96; 4-way LRU sets of 512 lost again on
  // 71^4 perm (3,1,0,2) (568 open pieces, cyclic: 0.94 -> 0.78).
  static constexpr int kSlotBits = 10, kSlots = 1 << kSlotBits;
  // A piece held this many tiles is likely never completed (its other half was stored at once
  // or belongs to another thread) and gives its slot to a new one.
  static constexpr uint32_t kMaxAge = 64;

  void evict(int i) {
    if (line_[i] != nullptr) std::memcpy(line_[i] + lo_[i], data_[i] + lo_[i], hi_[i] - lo_[i]);
    line_[i] = nullptr;
  }

  // Bytes [lo, lo + n) of the line at `line`: joined with the held bytes of that line when they
  // touch, streamed once the line is complete. A slot taken by another line is not given up
  // (unless that line waited kMaxAge tiles): the new piece is stored at once, as without this
  // writer, and so is its other half later, while the line is likely still cached. Replacing the
  // held piece instead wrote both pieces late, one read for ownership each: (101188,246) perm
  // (1,0), 512 heads held for 16 tiles, 0.93 -> 0.78 of memcpy.
  void hold(char* line, int lo, const char* src, int n) {
    const uint64_t key = reinterpret_cast<uintptr_t>(line) / kLine;
    const auto i = static_cast<int>((key * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits));
    if (line_[i] == line && (hi_[i] == lo || lo + n == lo_[i])) {
      lo_[i] = static_cast<uint8_t>(std::min<int>(lo_[i], lo));
      hi_[i] = static_cast<uint8_t>(std::max<int>(hi_[i], lo + n));
    } else if (line_[i] == nullptr || tile_ - age_[i] > kMaxAge) {
      evict(i);
      line_[i] = line;
      lo_[i] = static_cast<uint8_t>(lo);
      hi_[i] = static_cast<uint8_t>(lo + n);
      age_[i] = tile_;
    } else {
      std::memcpy(line + lo, src, static_cast<size_t>(n));
      return;
    }
    std::memcpy(data_[i] + lo, src, static_cast<size_t>(n));
    if (lo_[i] == 0 && hi_[i] == kLine) {
      copy_bytes(line, data_[i], kLine, true);
      line_[i] = nullptr;
    }
  }

  // Slot i holds bytes [lo_[i], hi_[i]) of the line at line_[i] (nullptr: empty), since tile
  // age_[i].
  char* line_[kSlots] = {};
  uint32_t age_[kSlots] = {};
  uint32_t tile_ = 0;
  uint8_t lo_[kSlots] = {}, hi_[kSlots] = {};
  alignas(64) char data_[kSlots][kLine];
};

}  // namespace xpose::detail::cpu
