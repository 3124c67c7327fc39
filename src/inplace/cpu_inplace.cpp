// CPU backend of the in-place swaps (core/backend.hpp's InplaceRequest): OpenMP over the items
// of a pairing::Enumeration (tile pairs of the lower triangle, V1B by default), each tile pair
// swapped element by element through registers. A pair of tiles fits in L1 (kCpuTile), so the
// strided side of the swap is read and written back while its cache lines are resident.
#include <algorithm>
#include <cstring>

#include "core/backend.hpp"
#include "core/status.hpp"
#include "cpu/plans.hpp"
#include "inplace/geometry.hpp"

namespace xpose::detail {
namespace {

using inplace::SwapGeometry;
using inplace::TileJob;

// An element of N bytes with alignment 1: any `data` alignment is accepted.
template <size_t N>
struct Elem {
  unsigned char b[N];
};

template <class T>
void swap_tile_pair(T* data, const SwapGeometry& g, const TileJob& j) {
  const int64_t s = g.row_stride;
  const int64_t ex = std::min(g.tile, g.n - j.x0), ey = std::min(g.tile, g.n - j.y0);
  T* plane = data + j.base;
  if (j.x0 == j.y0) {  // a diagonal tile: its strict lower half trades with its upper half
    for (int64_t r = 1; r < ey; ++r)
      for (int64_t i = 0; i < r; ++i)
        std::swap(plane[(j.x0 + i) + (j.y0 + r) * s], plane[(j.y0 + r) + (j.x0 + i) * s]);
    return;
  }
  for (int64_t r = 0; r < ey; ++r) {
    T* a = plane + j.x0 + (j.y0 + r) * s;  // row y0 + r of the lower tile, contiguous
    T* b = plane + (j.y0 + r) + j.x0 * s;  // column y0 + r of the upper tile, stride s
    for (int64_t i = 0; i < ex; ++i) std::swap(a[i], b[i * s]);
  }
}

// Swaps two chunks of `bytes` through a small stack buffer.
void swap_chunks(unsigned char* a, unsigned char* b, size_t bytes) {
  unsigned char buf[256];
  for (size_t done = 0; done < bytes; done += sizeof buf) {
    const size_t len = std::min(sizeof buf, bytes - done);
    std::memcpy(buf, a + done, len);
    std::memcpy(a + done, b + done, len);
    std::memcpy(b + done, buf, len);
  }
}

template <class T>
void run_tiles(const SwapGeometry& launch, void* data, int threads) {
  const int64_t items = static_cast<int64_t>(launch.items());
  T* d = static_cast<T*>(data);
  // Small static chunks: consecutive items (nearby tiles in the enumeration) run at the same
  // time on different threads, which is the locality the scheme was chosen for.
#pragma omp parallel for schedule(static, 4) num_threads(threads)
  for (int64_t it = 0; it < items; ++it) {
    TileJob j;
    if (launch.job(static_cast<uint64_t>(it), &j)) swap_tile_pair(d, launch, j);
  }
}

void run_chunks(const SwapGeometry& launch, void* data, size_t chunk, int threads) {
  const int64_t items = static_cast<int64_t>(launch.items());
  unsigned char* d = static_cast<unsigned char*>(data);
#pragma omp parallel for schedule(static, 64) num_threads(threads)
  for (int64_t it = 0; it < items; ++it) {
    TileJob j;  // tile edge 1: (x0, y0) is the cell itself
    if (!launch.job(static_cast<uint64_t>(it), &j) || j.x0 == j.y0) continue;
    const int64_t a = j.base + j.x0 + j.y0 * launch.row_stride;
    const int64_t b = j.base + j.y0 + j.x0 * launch.row_stride;
    swap_chunks(d + a * chunk, d + b * chunk, chunk);
  }
}

void run_words(size_t unit, const SwapGeometry& g, void* data, int threads) {
  switch (unit) {
    case 1: run_tiles<Elem<1>>(g, data, threads); break;
    case 2: run_tiles<Elem<2>>(g, data, threads); break;
    case 4: run_tiles<Elem<4>>(g, data, threads); break;
    case 8: run_tiles<Elem<8>>(g, data, threads); break;
    default: run_tiles<Elem<16>>(g, data, threads); break;
  }
}

}  // namespace

xpose_status_t cpu_transpose_inplace(const InplaceRequest& r, const xpose_options_t& options,
                                     void* data) {
  const inplace::Folding f = inplace::fold(r.elem_size, r.inner);
  const int threads = cpu::resolve_threads(options.num_threads);
  const auto scheme = r.scheme < 0 ? pairing::Scheme::kV1B : static_cast<pairing::Scheme>(r.scheme);
  const int64_t tile = f.unit ? inplace::kCpuTile[inplace::log2_size(f.unit)] : 1;
  const int64_t w = r.w > 0 ? r.w : inplace::kCpuBandWidth;
  const int64_t region = r.region > 0 ? r.region : inplace::kDefaultRegion;
  const SwapGeometry g = inplace::make_geometry(r.n, r.mid, r.outer, tile, scheme, w, region);
  inplace::for_each_launch(g, [&](const SwapGeometry& launch) {
    if (f.unit)
      run_words(f.unit, launch, data, threads);
    else
      run_chunks(launch, data, f.chunk, threads);
  });
  return XPOSE_SUCCESS;
}

}  // namespace xpose::detail
