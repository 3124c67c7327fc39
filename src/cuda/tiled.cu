// Tiled / Packed / PackedSplit / FVI-Match-Small: the launches of the tile kernel
// (tile_kernel.cuh) for plain problems, by element size, offset width, block size and piece
// width, and the dispatch of typed problems to their pair's instantiation (tiled_typed_*.cu).
#include <cuda_runtime.h>

#include <array>

#include "core/status.hpp"
#include "cuda/runtime.hpp"
#include "cuda/tile_kernel.cuh"

namespace xpose::detail {
namespace {

using namespace tiles;

template <int Log2, class Off, int MaxThreads, int Piece>
cudaError_t launch_one(const TiledParams& p, const void* in, void* out, cudaStream_t stream,
                       unsigned grid, unsigned threads, unsigned smem) {
  using T = Elem<Log2>;
  return launch_kernel(&tiled_kernel<PlainOp<T>, Off, MaxThreads, Piece>, grid, threads, smem,
                       stream, p, static_cast<const T*>(in), static_cast<T*>(out));
}

// Per device, once: registers of the small-block instantiation, and the shared-memory opt-in
// (kMaxTileStages buffers of up to kMaxTileSmemBytes) for every instantiation.
template <class T, int MaxThreads, int Piece>
void allow_smem() {
  constexpr int kSmem = kMaxTileStages * kMaxTileSmemBytes + 64;
  cudaFuncSetAttribute(tiled_kernel<PlainOp<T>, int32_t, MaxThreads, Piece>,
                       cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(tiled_kernel<PlainOp<T>, int64_t, MaxThreads, Piece>,
                       cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
}

// The piece widths below the element's own (big-block instantiations only, kPieceFn).
template <int Log2, int Piece = 0>
void allow_smem_pieces() {
  if constexpr (Piece < Log2) {
    allow_smem<Elem<Log2>, kMaxTileThreads, Piece>();
    allow_smem_pieces<Log2, Piece + 1>();
  }
}

template <int Log2>
int setup_one() {
  using T = Elem<Log2>;
  allow_smem<T, kTileThreadsSmall, Log2>();
  allow_smem<T, kMaxTileThreads, Log2>();
  allow_smem_pieces<Log2>();
  cudaGetLastError();
  cudaFuncAttributes a{};
  return cudaFuncGetAttributes(&a, tiled_kernel<PlainOp<T>, int32_t, kTileThreadsSmall, Log2>) ==
                 cudaSuccess
             ? a.numRegs
             : 0;
}

using LaunchFn = cudaError_t (*)(const TiledParams&, const void*, void*, cudaStream_t, unsigned,
                                 unsigned, unsigned);
// The instantiation for elements of 2^Log2 bytes moved in pieces of 2^Piece bytes (Piece ==
// Log2: the aligned kernel); null for pieces wider than the element. Narrower pieces (the path
// for unaligned pointers) exist for big blocks only, which launch_tiled uses for any block size:
// the same 64-register cap, half the instantiations (the binary grew by 4.8 MB with both).
template <int Log2, int Piece, int MaxThreads>
constexpr bool kInstantiated =
    Piece == Log2 || (Piece < Log2 && MaxThreads == kMaxTileThreads);
template <int Log2, int Piece, class Off, int MaxThreads>
constexpr LaunchFn kPieceFn =
    kInstantiated<Log2, Piece, MaxThreads>
        ? &launch_one<Log2, Off, MaxThreads,
                      (kInstantiated<Log2, Piece, MaxThreads> ? Piece : Log2)>
        : nullptr;
template <int Log2, class Off, int MaxThreads>
constexpr std::array<LaunchFn, 5> kPieceRow = {
    kPieceFn<Log2, 0, Off, MaxThreads>, kPieceFn<Log2, 1, Off, MaxThreads>,
    kPieceFn<Log2, 2, Off, MaxThreads>, kPieceFn<Log2, 3, Off, MaxThreads>,
    kPieceFn<Log2, 4, Off, MaxThreads>};
template <class Off, int MaxThreads>
constexpr std::array<LaunchFn, 5> kPieces[5] = {
    kPieceRow<0, Off, MaxThreads>, kPieceRow<1, Off, MaxThreads>, kPieceRow<2, Off, MaxThreads>,
    kPieceRow<3, Off, MaxThreads>, kPieceRow<4, Off, MaxThreads>};
// The dispatch table: [block size][offset width] -> [element size][piece width].
constexpr const std::array<LaunchFn, 5>* kLaunch[2][2] = {
    {kPieces<int32_t, kTileThreadsSmall>, kPieces<int64_t, kTileThreadsSmall>},
    {kPieces<int32_t, kMaxTileThreads>, kPieces<int64_t, kMaxTileThreads>}};

}  // namespace

xpose_status_t launch_tiled(const TiledParams& p, int log2_elem, const void* in, void* out,
                            void* stream, unsigned grid, unsigned threads, unsigned smem_bytes,
                            int log2_piece) {
  if (p.op.in_type != XPOSE_TYPE_BYTES) {
    const TypedTileFn fn =
        in_part(p.op.in_type, 0) ? typed_tile_narrow(p.op) : typed_tile_wide(p.op);
    if (!fn)
      return fail(XPOSE_ERROR_UNSUPPORTED, "no CUDA tile kernel converts type " +
                                               std::to_string(p.op.in_type) + " to type " +
                                               std::to_string(p.op.out_type));
    return launch_status(fn(p, in, out, static_cast<cudaStream_t>(stream), grid, threads,
                            smem_bytes),
                         "tiled");
  }
  const int piece = log2_piece < 0 || log2_piece > log2_elem ? log2_elem : log2_piece;
  const int big = threads > kTileThreadsSmall || piece < log2_elem ? 1 : 0;
  const LaunchFn fn = kLaunch[big][p.wide ? 1 : 0][log2_elem][piece];
  return launch_status(fn(p, in, out, static_cast<cudaStream_t>(stream), grid, threads,
                          smem_bytes),
                       "tiled");
}

void tiled_kernel_regs(int regs[5]) {
  constexpr int kSmem = kMaxTileStages * kMaxTileSmemBytes + 64;
  typed_tile_setup_narrow(kSmem);
  typed_tile_setup_wide(kSmem);
  regs[0] = setup_one<0>();
  regs[1] = setup_one<1>();
  regs[2] = setup_one<2>();
  regs[3] = setup_one<3>();
  regs[4] = setup_one<4>();
}

}  // namespace xpose::detail
