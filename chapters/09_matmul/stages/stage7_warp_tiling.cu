// Stage 7 - warp tiling: block tile -> warp tile -> thread tile.
//
// What changed from stage 6: which elements of the block's 128 x 128 tile a thread owns. In
// stage 6 the 32 threads of a warp held 2 rows x 16 columns of 8 x 8 blocks: a 16 x 128 strip
// of C, so at each step the warp read 16 floats of A and 128 of B from shared memory (144). Here
// the block is 8 warps of 64 x 32 (two rows of four), each warp's 32 lanes a grid of 8 x 4 lanes
// with 8 x 8 outputs each, as two 4 x 4 sub-tiles apart: a warp reads 64 floats of A and 32
// of B per step (96), a third less, for the same 2,048 multiply-adds
// (stage7_warp_tiling.cuh has the kernel). The same layout is what the tensor cores' warp-wide
// instructions impose (part of the chapter's second half): a warp owns a tile of C.
// Why it should be faster: stage 6 spends about as many shared-memory loads as it needs
// instructions to issue; a squarer warp tile asks the same arithmetic of fewer loads.
// What to look for: the step over stage 6, and how far from cuBLAS it still is.
#include "stage7_warp_tiling.cuh"

namespace matmul::detail {

/// 128 x 128 block tile, 8 warps of 64 x 32, the next tile loaded only after this one.
using Stage7Shape = WarpTiling<128, 128, 8, false>;

void launch_warp_tiling(const LaunchArgs& a) {
    launch_warp_tiled<Stage7Shape, true>(a);
}

}  // namespace matmul::detail
