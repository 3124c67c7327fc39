// Slots of the tile counters (tile_order.cuh) handed to launches, one launch a slot at a time.
//
// Per device: `end[s]`, the value slot s's counter reaches once the launch the host gave it last
// has taken all its tickets, and `done[s]` in mapped host memory, the value it has reached, which
// that launch's last ticket taker writes. A slot is free when the two are equal; a claim moves
// `end` on by the launch's tickets (compare-and-swap: one claim wins), so the launch's tickets are
// the old `end` (its base) and on, whatever stream runs it and whatever runs beside it. Claims
// cost a few host atomics and no CUDA call.
#include "cuda/tile_deal.hpp"

#include <cuda_runtime.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cuda/runtime.hpp"

namespace xpose::detail {
namespace {

struct Table {
  unsigned long long* counters = nullptr;  // device memory
  unsigned long long* done = nullptr;      // host memory, mapped
  unsigned long long* done_dev = nullptr;  // the device's address of `done`
  std::atomic<unsigned long long> end[kTileSlots] = {};
  std::atomic<unsigned> cursor{0};
};

constexpr int kMaxDevices = 64;
std::array<std::atomic<Table*>, kMaxDevices> tables{};  // never freed (launches may be in flight)
std::atomic<unsigned> slots_used{kTileSlots};
constexpr int kClaimTries = 4;

Table* table(int ordinal) {
  if (ordinal < 0 || ordinal >= kMaxDevices) return nullptr;
  return tables[ordinal].load(std::memory_order_acquire);
}

}  // namespace

void tile_deal_setup(int ordinal, unsigned long long* counters) {
  if (ordinal < 0 || ordinal >= kMaxDevices || counters == nullptr || table(ordinal) != nullptr)
    return;
  constexpr size_t kBytes = kTileSlots * sizeof(unsigned long long);  // whole pages
  void* host = std::aligned_alloc(4096, kBytes);
  if (host == nullptr) return;
  std::memset(host, 0, kBytes);
  void* dev = nullptr;
  if (cudaHostRegister(host, kBytes, cudaHostRegisterMapped | cudaHostRegisterPortable) !=
      cudaSuccess) {
    cudaGetLastError();
    std::free(host);
    return;
  }
  if (cudaHostGetDevicePointer(&dev, host, 0) != cudaSuccess) {
    cudaGetLastError();
    cudaHostUnregister(host);
    std::free(host);
    return;
  }
  auto t = std::make_unique<Table>();
  t->counters = counters;
  t->done = static_cast<unsigned long long*>(host);
  t->done_dev = static_cast<unsigned long long*>(dev);
  Table* expected = nullptr;
  if (tables[ordinal].compare_exchange_strong(expected, t.get(), std::memory_order_acq_rel))
    t.release();
}

TileDeal tile_deal_claim(int ordinal, uint64_t tickets) {
  TileDeal d{};
  Table* t = table(ordinal);
  const unsigned slots = slots_used.load(std::memory_order_relaxed);
  if (t == nullptr || slots == 0) return d;
  for (int i = 0; i < kClaimTries; ++i) {
    const unsigned s = t->cursor.fetch_add(1, std::memory_order_relaxed) % slots;
    unsigned long long end = t->end[s].load(std::memory_order_acquire);
    if (std::atomic_ref<unsigned long long>(t->done[s]).load(std::memory_order_acquire) != end)
      continue;  // its launch is still taking tickets
    if (!t->end[s].compare_exchange_strong(end, end + tickets, std::memory_order_acq_rel))
      continue;  // claimed by another thread meanwhile
    d.counter = t->counters + s;
    d.done = t->done_dev + s;
    d.base = end;
    return d;
  }
  return d;
}

void tile_deal_cancel(int ordinal, const TileDeal& deal) {
  Table* t = table(ordinal);
  if (t == nullptr || deal.counter == nullptr) return;
  // Nothing else moves a claimed slot's `end`: its `done` differs until the launch's last take.
  t->end[deal.counter - t->counters].store(deal.base, std::memory_order_release);
}

void narrow_tile_slots(unsigned n) {
  slots_used.store(n < kTileSlots ? n : kTileSlots, std::memory_order_relaxed);
}

}  // namespace xpose::detail
