// The CUDA backend's seam between host C++ (planner, plans: no CUDA headers) and the files that
// include cuda_runtime.h (runtime.cu, the kernel files). Everything here is CUDA-free: streams
// travel as void*, errors as a status plus CUDA's text.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cuda/params.hpp"
#include "xpose/xpose.h"

namespace xpose::detail {

// What the planner and the cost model need of a device; read once per device and cached.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int arch = 0;                 // compute capability, 10 x major + minor (90: sm_90); 0 unknown
  int sms = 0;
  int64_t l2_bytes = 0;
  int smem_per_block = 0;       // bytes, without opt-in
  int smem_per_sm = 0;          // bytes
  int regs_per_sm = 0;
  int max_threads_per_sm = 0;
  double clock_hz = 0;          // SM clock
  double dram_bytes_per_s = 0;  // peak: 2 * memory clock * bus width
  int tiled_regs[5] = {};       // registers per thread of the tiled kernel, by log2(elem size)
  int narrow_regs = 0;          // registers per thread of the narrow kernel
  // ... of its instantiations that may launch kNarrowSmallBlocks blocks an SM (raw rows, and
  // those bounded to that: params.hpp)
  int narrow_four_regs = 0;
};

// The device's properties (nullptr only if the query fails; `why` then says why).
const DeviceInfo* device_info(int ordinal, std::string* why);

// Kernel launches: enqueue only. `stream` is a cudaStream_t. On failure: XPOSE_ERROR_DEVICE with
// CUDA's text (recorded through fail()).
// `log2_piece` below log2_elem: in and out need only be multiples of 2^log2_piece bytes
// (elements moved through global memory in pieces of that width, one shared-memory buffer);
// otherwise (-1) both are multiples of the element size.
xpose_status_t launch_tiled(const TiledParams& p, int log2_elem, const void* in, void* out,
                            void* stream, unsigned grid, unsigned threads, unsigned smem_bytes,
                            int log2_piece = -1);
// `vec_log2`: log2 of the access width in bytes (0..4); the caller checked that the width
// divides both pointers, row_bytes and every stride.
xpose_status_t launch_rows(const RowParams& p, int vec_log2, const void* in, void* out,
                           void* stream, unsigned grid);
// Typed rows (p.op converts or scales; rows_typed.cu): pointers that are multiples of their
// element sizes.
xpose_status_t launch_rows_typed(const RowParams& p, const void* in, void* out, void* stream,
                                 unsigned grid);
// Per device, once (the device current): registers per thread of the tiled kernel for each
// element size (cudaFuncGetAttributes), and its shared-memory opt-in for big tiles.
void tiled_kernel_regs(int regs[5]);
// The narrow kernel (elements of `elem_size` 1 or 2 bytes; any pointers; typed tiles, p.op not
// plain, go to launch_narrow_typed) on device `device` (current): enqueue only.
xpose_status_t launch_narrow(const NarrowParams& p, int elem_size, const void* in, void* out,
                             void* stream, unsigned grid, int device);
// The narrow kernel's typed tiles (p.op converts or scales: narrow_typed.cu), launch_narrow's
// for them: pointers that are multiples of their element sizes.
xpose_status_t launch_narrow_typed(const NarrowParams& p, const void* in, void* out,
                                   void* stream, unsigned grid, int device);
// The narrow kernel's converting loads (p.in_log2 > 0: f32 inputs in tiles of their output's
// fp8 elements, narrow_loads.cu), launch_narrow's for them: pointers that are multiples of
// their element sizes.
xpose_status_t launch_narrow_loads(const NarrowParams& p, const void* in, void* out,
                                   void* stream, unsigned grid, int device);
// Narrow 2D tiles (elements of `elem_size` 1 or 2 bytes; any pointers): enqueue only.
xpose_status_t launch_narrow2d(const Narrow2dParams& p, int elem_size, const void* in, void* out,
                               void* stream, unsigned grid);
// Thin 2D tiles (plain elements of `elem_size` 1 or 2 bytes; any pointers; p.thin 1 or 2) with
// `smem_bytes` of dynamic shared memory (thin2d_smem_bytes): enqueue only.
xpose_status_t launch_thin2d(const Narrow2dParams& p, int elem_size, const void* in, void* out,
                             void* stream, unsigned grid, unsigned smem_bytes);
// Cells (plain elements of `elem_size` 1 or 2 bytes; any pointers; typed cells, p.op not
// plain, go to launch_cells_typed): enqueue only.
xpose_status_t launch_cells(const CellParams& p, int elem_size, const void* in, void* out,
                            void* stream, unsigned grid);
// Typed cells (p.op converts or scales: cells_typed.cu), launch_cells' for them: pointers that
// are multiples of their element sizes.
xpose_status_t launch_cells_typed(const CellParams& p, const void* in, void* out, void* stream,
                                  unsigned grid);
// Wide 2D tiles (plain elements of 2^log2_elem = 4, 8 or 16 bytes moved in pieces of
// 2^log2_piece, the widest both pointers allow): enqueue only.
xpose_status_t launch_wide2d(const Narrow2dParams& p, int log2_elem, int log2_piece,
                             const void* in, void* out, void* stream, unsigned grid);
// The direct kernel (elements of 2^log2_elem bytes moved in pieces of 2^log2_piece, the widest
// both pointers allow): enqueue only.
xpose_status_t launch_direct(const DirectParams& p, int log2_elem, int log2_piece, const void* in,
                             void* out, void* stream, unsigned grid);
// The general kernel (any problem; typed and strided ones, general.cu): enqueue only. Any
// pointers (elements not aligned to their size move byte by byte).
xpose_status_t launch_general(const GeneralParams& p, const void* in, void* out, void* stream,
                              unsigned grid);
// Per device, once (the device current): the narrow kernel's shared-memory opt-in and its tile
// counters (tile_deal.hpp); returns the most registers per thread of its instantiations, and in
// *four_regs the most of those that may launch kNarrowSmallBlocks blocks an SM.
int narrow_kernel_setup(int ordinal, int* four_regs);
// The typed instantiations' shared-memory opt-in (narrow_typed.cu, narrow_loads.cu;
// narrow_kernel_setup's).
void narrow_typed_setup();
void narrow_loads_setup();
// Tests only: how many slots of the tile counters' table narrow launches share (tile_deal.hpp;
// all of them by default), or 0: tiles round-robin, as captured launches take them.
void narrow_tile_slots(unsigned n);

// Makes `ordinal` current for the scope of a launch and restores the caller's device after.
class DeviceGuard {
 public:
  explicit DeviceGuard(int ordinal);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  xpose_status_t status() const { return status_; }

 private:
  int previous_ = -1;
  xpose_status_t status_ = XPOSE_SUCCESS;
};

// A scratch buffer for time_runs: `bytes` allocated, the runs handed its start plus `offset`
// bytes (a strided tensor's pointer: its elements may lie before it, negative strides).
struct Scratch {
  int64_t bytes = 0, offset = 0;
};

// Measure planning: allocates scratch input and output buffers on `ordinal` (both filled with
// a non-zero pattern), times each run on a private stream (two warm-up launches, then `reps`
// rounds that take every run in turn, each sample a batch of launches spanning >= ~100 us; the
// median per run), frees everything. A run enqueues on the stream it is given.
using TimedRun = std::function<xpose_status_t(const void* in, void* out, void* stream)>;
xpose_status_t time_runs(int ordinal, Scratch in_buf, Scratch out_buf,
                         const std::vector<TimedRun>& runs, int reps,
                         std::vector<double>* seconds);

}  // namespace xpose::detail
