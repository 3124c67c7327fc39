// Typed tiles (tile_kernel.cuh) of the type pairs whose input elements have 1 or 2 bytes: one
// of the two files of typed instantiations, which compile in parallel.
#include "cuda/tile_kernel.cuh"

namespace xpose::detail::tiles {

TypedTileFn typed_tile_narrow(const ElemOp& op) { return find_typed_tile<0>(op); }

void typed_tile_setup_narrow(int smem) { setup_typed_tiles<0>(smem); }

}  // namespace xpose::detail::tiles
