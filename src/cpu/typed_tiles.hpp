// Typed problems on dense tensors and sub-tensors through the tiled engine (tile_plan.cpp): the
// `blocked` geometry, tile order and non-temporal staging of plain problems, with the conversion
// and scaling done on each tile while it is in L1 (docs/cpu.md, "Typed, strided and scaled").
#pragma once

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cpu/plans.hpp"
#include "cpu/typed_ops.hpp"

namespace xpose::detail::cpu {

// Whether `p` may go through typed_tile_plan: a leading dimension that changes (rank >= 2,
// perm[0] != 0), no extent-1 dims (normalized), and dense tensors or sub-tensors whose dims 0
// are contiguous on both sides (input dim 0 and output dim 0 of stride 1, every stride > 0).
bool typed_tiles_apply(const Problem& p);

// Whether a tile of `to` columns of a conversion from `in_elem`- to `out_elem`-byte elements
// converts each input column first and transposes in the output's size (ConvertFirstTile), or
// transposes in the input's size and converts after: narrowing conversions without beta, in
// tiles of at most 64 columns.
bool converts_first(size_t in_elem, size_t out_elem, bool reads_out, int64_t to);

// The tiled plan of `p` with `op` (its element operation, scalars `s`) applied to every tile
// (pure copies of sub-tensors: the engine's own tile kernel); `tile`: forced sides (0: the
// default of the output's element size). x.nt is dropped when the operation reads the output
// (beta). nullptr for a sub-tensor whose tiles would be too small for the engine to pay
// (typed_plan.cpp's tiles then take it).
BackendPlanPtr typed_tile_plan(const Problem& p, RowOp op, const Scalars& s, bool reads_out,
                               ExecSettings x, const TileRequest& tile);

}  // namespace xpose::detail::cpu
