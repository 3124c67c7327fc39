// Typed problems on dense tensors through the tiled engine (tile_plan.cpp): the `blocked`
// geometry, tile order and non-temporal staging of plain problems, with the conversion and
// scaling done on each tile while it is in L1 (docs/cpu.md, "Typed, strided and scaled").
#pragma once

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cpu/plans.hpp"
#include "cpu/typed_ops.hpp"

namespace xpose::detail::cpu {

// Whether `p` goes through typed_tile_plan: dense strides on both sides (not `strided`), a
// leading dimension that changes (rank >= 2, perm[0] != 0) and no extent-1 dims (normalized).
bool typed_tiles_apply(const Problem& p);

// The tiled plan of `p` with `op` (its element operation, scalars `s`) applied to every tile;
// `tile`: forced sides (0: the default of the output's element size). x.nt is dropped when the
// operation reads the output (beta).
BackendPlanPtr typed_tile_plan(const Problem& p, RowOp op, const Scalars& s, bool reads_out,
                               ExecSettings x, const TileRequest& tile);

}  // namespace xpose::detail::cpu
