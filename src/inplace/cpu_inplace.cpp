// CPU backend of the in-place swaps (core/backend.hpp's InplaceRequest): OpenMP over the items
// of a pairing::Enumeration (tile pairs of the lower triangle, V1B by default). 1- and 2-byte
// words go through the out-of-place backend's SIMD tile kernels (one tile copied aside, the
// other transposed onto it, the copy transposed back); wider ones are swapped element by element
// through registers. A pair of tiles fits in L1 (kCpuTile), so the strided side of the swap is
// read and written back while its cache lines are resident.
#include <algorithm>
#include <cstring>

#include "core/backend.hpp"
#include "core/status.hpp"
#include "cpu/kernels.hpp"
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

// The swap of swap_tile_pair through a tile kernel `k` for `eb`-byte words: the lower tile A
// (rows y0.., columns x0..) is copied aside, the upper tile B (its transpose's place) is
// transposed onto A, and the copy onto B. A diagonal tile is copied aside and transposed back.
void swap_tile_pair_kernel(char* data, size_t eb, const SwapGeometry& g, const TileJob& j,
                           const cpu::TileKernel& k) {
  constexpr int64_t kMax = inplace::kCpuTile[0];  // the largest CPU tile edge (1-byte words)
  static_assert(inplace::kCpuTile[1] <= kMax);
  alignas(64) char buf[kMax * kMax * 2];
  int64_t brow[kMax], arow[kMax], bcol[kMax];
  const auto e = static_cast<int64_t>(eb);
  const int64_t s = g.row_stride;
  const int64_t ex = std::min(g.tile, g.n - j.x0), ey = std::min(g.tile, g.n - j.y0);
  char* plane = data + j.base * e;
  for (int64_t i = 0; i < ex; ++i) brow[i] = ((j.x0 + i) * s + j.y0) * e;  // B's rows
  for (int64_t r = 0; r < ey; ++r) arow[r] = ((j.y0 + r) * s + j.x0) * e;  // A's rows
  for (int64_t r = 0; r < ey; ++r) {
    bcol[r] = r * ex * e;  // the copy's rows
    std::memcpy(buf + bcol[r], plane + arow[r], static_cast<size_t>(ex * e));
  }
  const int nx = static_cast<int>(ex), ny = static_cast<int>(ey);
  if (j.x0 != j.y0) k.fn(plane, brow, plane, arow, ny, nx, eb);
  k.fn(buf, bcol, plane, j.x0 != j.y0 ? brow : arow, nx, ny, eb);
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

void run_kernel(size_t unit, const cpu::TileKernel& k, const SwapGeometry& launch, void* data,
                int threads) {
  const int64_t items = static_cast<int64_t>(launch.items());
  char* d = static_cast<char*>(data);
#pragma omp parallel for schedule(static, 4) num_threads(threads)
  for (int64_t it = 0; it < items; ++it) {
    TileJob j;
    if (launch.job(static_cast<uint64_t>(it), &j)) swap_tile_pair_kernel(d, unit, launch, j, k);
  }
}

void run_words(size_t unit, const cpu::TileKernel& k, const SwapGeometry& g, void* data,
               int threads) {
  if (unit <= 2) {
    run_kernel(unit, k, g, data, threads);
    return;
  }
  switch (unit) {
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
  cpu::Isa isa = cpu::Isa::kBest;
  if (!cpu::parse_isa(r.cpu_isa.empty() ? "best" : r.cpu_isa, &isa))
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, "in-place CPU isa '" + r.cpu_isa +
                                                  "' is unknown; valid: scalar, sse2, avx2, avx512");
  const cpu::TileKernel k = cpu::select_tile_kernel(f.unit ? f.unit : 1, isa);
  if (k.fn == nullptr)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT,
                "in-place CPU isa '" + r.cpu_isa + "' is not available on this CPU or build");
  const SwapGeometry g = inplace::make_geometry(r.n, r.mid, r.outer, tile, scheme, w, region);
  inplace::for_each_launch(g, [&](const SwapGeometry& launch) {
    if (f.unit)
      run_words(f.unit, k, launch, data, threads);
    else
      run_chunks(launch, data, f.chunk, threads);
  });
  return XPOSE_SUCCESS;
}

}  // namespace xpose::detail
