// Typed tiles (tile_kernel.cuh) of the type pairs whose input elements have 4 bytes or more: one
// of the two files of typed instantiations, which compile in parallel.
#include "cuda/tile_kernel.cuh"

namespace xpose::detail::tiles {

TypedTileFn typed_tile_wide(const ElemOp& op) { return find_typed_tile<1>(op); }

void typed_tile_setup_wide(int smem) { setup_typed_tiles<1>(smem); }

}  // namespace xpose::detail::tiles
