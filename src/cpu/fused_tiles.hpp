// Tile kernels that convert in registers (fused_tiles_avx512.cpp): the input's block transpose,
// then each output row of the block converted and stored in the output's type, so a typed tile
// costs one pass over its elements instead of a transpose into an L1 band and a conversion of
// the band (typed_tiles.cpp). Unscaled conversions without beta only.
#pragma once

#include "cpu/kernels.hpp"
#include "xpose/xpose.h"

namespace xpose::detail::cpu {

// The fused kernel of the conversion `in` -> `out` under `isa` (TileFn's contract with input
// elements of `in`'s size and output elements of `out`'s; `eb` ignored); fn is nullptr where
// there is none: other pairs, other instruction sets, CPUs without AVX-512 F/BW/VL/DQ, builds
// other than GCC's for x86-64. Pairs: f32, bf16 and f16 -> f8 e4m3 and e5m2; f32 -> bf16, f16;
// f16 <-> bf16. block_cols: the width of its register block (16 or 32 columns), which a tile
// must reach to take it.
TileKernel fused_tile_kernel(xpose_type_t in, xpose_type_t out, Isa isa);

// Whether tiles of `to` columns of `in` -> `out` under `isa` take the fused kernel: it has one
// and `to` holds a whole block. Narrower tiles keep the band conversion (typed_tiles.cpp): a
// masked block of 5-6 of its 16-32 columns ran 0.33-0.76x their speed (16-core host, fresh
// problems with tiles of 240-360 x 5-6; docs/perf/typed-h100.md, session 39).
bool takes_fused_tile(xpose_type_t in, xpose_type_t out, Isa isa, int64_t to);

}  // namespace xpose::detail::cpu
