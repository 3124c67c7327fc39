// The CPU backend's `typed` schema (typed_plan.cpp): what plans every problem that is not
// plain(), i.e. strided, converting, scaled or accumulating (docs/cpu.md).
#pragma once

#include <cstdint>
#include <string>

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cpu/plans.hpp"

namespace xpose::detail::cpu {

// Whether `p` needs the typed schema: no other schema reads strides, types or scalars.
bool typed_plan_applies(const Problem& p);

// Output runs of padded pure copies up to this long are moved by the tile kernel with regular
// stores; longer ones staged and streamed (16-core host, --pad 7, direct against staged: runs of
// 28-80 bytes 0.60-0.80 of the time, 108-136 bytes 0.78-0.98, 144-164 bytes 1.06-1.19). Pure
// copies of sub-tensors with such runs keep these tiles (typed_tiles.cpp).
inline constexpr int64_t kDirectRunBytes = 128;

// The typed schemas' 4-byte tile kernel with masked edges (typed_tile4_avx512.cpp); nullptr
// where this CPU or build lacks AVX-512 F/VL.
TileFn typed_tile4_avx512();

// The tile kernel of the typed schemas for `eb`-byte elements under `isa`: the masked AVX-512
// one for 4 bytes where it applies, else the shared kernel (select_tile_kernel).
TileKernel typed_tile_kernel(size_t eb, Isa isa);

// Builds the typed plan of `p` (tile sides of `tile`, 0: the default); false, with `why`, when
// its types have no operation (make_problem admits none such) or the forced instruction set is
// missing. x.nt: the output is written with non-temporal stores where its rows are contiguous.
bool make_typed_plan(const Problem& p, const ExecSettings& x, const TileRequest& tile,
                     BackendPlanPtr* plan, std::string* why);

}  // namespace xpose::detail::cpu
