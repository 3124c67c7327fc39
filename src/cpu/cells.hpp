// The CPU backend's `cells` schema: problems whose first k >= 2 input dims are the output's first
// k in another order (batched small matrices: (5, 12, N) perm (1, 0, 2); (17, 17, ...) perm (1,
// 0, ...)). Such a problem is a permutation of contiguous cells of S = extent[0] x ... x
// extent[k-1] elements, each transposed inside. The tiled schemas cut it into tiles of one cell
// (5 x 12 bytes, say), where their register blocks ran mostly empty: 0.15-0.5 of a memcpy.
// Here each cell of at most kMaxCellBytes is loaded whole into up to 8 AVX-512 registers, its
// bytes put in output order by two-source byte permutes (VBMI vpermi2b: one per output register
// and input register pair, from tables made at plan time), and stored whole; cells are walked in
// output order (docs/cpu.md).
#pragma once

#include <cstdint>
#include <string>

#include "core/backend.hpp"
#include "core/problem.hpp"

namespace xpose::detail::cpu {

struct ExecSettings;

inline constexpr int kMaxCellRegs = 8;  // 64-byte registers of a cell
inline constexpr int64_t kMaxCellBytes = 64 * kMaxCellRegs;

// Output byte b of a cell (64 x o + lane) comes from input byte 128 x q + idx[o][q][lane] of the
// cell, for the one pair q of input registers (2q, 2q + 1) whose bit is set in mask[o][q].
struct CellTables {
  int regs = 0;       // 64-byte registers a cell spans (the last one masked)
  int64_t bytes = 0;  // of a cell
  alignas(64) uint8_t idx[kMaxCellRegs][kMaxCellRegs / 2][64]{};
  uint64_t mask[kMaxCellRegs][kMaxCellRegs / 2]{};
};

// The cells in output order: an odometer over the output's dims k.. (fastest first), each with
// its input stride in bytes.
struct CellWalk {
  int rank = 0;
  int64_t extent[kMaxRank]{};
  int64_t in_stride[kMaxRank]{};
};

// Moves output cells [begin, end); `nt`: the output through a staging buffer and non-temporal
// stores (the caller's store_fence() follows).
using CellFn = void (*)(const CellTables& t, const CellWalk& w, const char* in, char* out,
                        int64_t begin, int64_t end, bool nt);
// cells_avx512vbmi.cpp's kernel; nullptr where this build or CPU lacks AVX-512 VBMI.
CellFn cells_kernel();

// The cell dims k of `p` (its smallest closed prefix of at least two dims), or 0 with `why`
// when `p` is not a cells problem of at most kMaxCellBytes a cell that this CPU can run.
int cell_dims(const Problem& p, std::string* why);

// The plan; its prediction is a `direct` copy's of runs of a cell (run_plan.cpp's model).
BackendPlanPtr make_cells_plan(const Problem& p, int k, const ExecSettings& x);

}  // namespace xpose::detail::cpu
