// The CPU backend's `typed` schema (typed_plan.cpp): what plans every problem that is not
// plain(), i.e. strided, converting, scaled or accumulating (docs/cpu.md).
#pragma once

#include <string>

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cpu/plans.hpp"

namespace xpose::detail::cpu {

// Whether `p` needs the typed schema: no other schema reads strides, types or scalars.
bool typed_plan_applies(const Problem& p);

// Builds the typed plan of `p` (tile sides of `tile`, 0: the default); false, with `why`, when
// its types have no operation (make_problem admits none such) or the forced instruction set is
// missing. x.nt: the output is written with non-temporal stores where its rows are contiguous.
// The typed schemas' 4-byte tile kernel with masked edges (typed_tile4_avx512.cpp); nullptr
// where this CPU or build lacks AVX-512 F/VL.
TileFn typed_tile4_avx512();

// The tile kernel of the typed schemas for `eb`-byte elements under `isa`: the masked AVX-512
// one for 4 bytes where it applies, else the shared kernel (select_tile_kernel).
TileKernel typed_tile_kernel(size_t eb, Isa isa);

bool make_typed_plan(const Problem& p, const ExecSettings& x, const TileRequest& tile,
                     BackendPlanPtr* plan, std::string* why);

}  // namespace xpose::detail::cpu
