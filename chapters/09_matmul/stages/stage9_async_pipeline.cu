// Stage 9 - the copy engine: asynchronous copies into a ring of shared buffers.
//
// What changed from stage 8: how the tiles reach shared memory. Stages 6-8 load a tile into
// registers and store it to shared memory themselves: every float passes through a register, a
// load and a store instruction the thread issues and a barrier waits for, and at most one tile
// is in flight ahead of the arithmetic. Here the copy engine does it (cp.async, compute
// capability 8.0): a thread issues the copy and goes on with its multiply-adds, the data never
// enter its registers, and four k-tiles share a ring of buffers, so three are on their way
// while the fourth is multiplied (stage9_async_pipeline.cuh has the kernel). The thread tile
// doubles to 16 x 8 (128 sums), whose fragments for the next k step are read while the current
// one is summed; a block is 4 warps of 64 x 64 over a 128 x 128 tile.
// Why it should be faster: fewer instructions that are not FMAs (a 16 x 8 tile reads 24 floats
// of shared memory per 128 FMAs, stage 7's 8 x 8 reads 16 per 64), and the memory latency
// hidden by the copies in flight rather than by more warps: a thread now takes about 240
// registers, so an SM holds two blocks, 8 warps, as cuBLAS's kernel runs. Small blocks keep
// the barrier cheap: 4 warps wait for each other, not 8.
// What to look for: the gap to cuBLAS, and in ncu the issue slots busy (sm__inst_issued) and
// the stall reasons beside stage 8's.
#include "stage9_async_pipeline.cuh"

namespace matmul::detail {

/// 128 x 128 block tile, k 8 at a time, 4 warps of 64 x 64 (lanes 4 x 8, 16 x 8 outputs each),
/// a ring of four tiles.
using Stage9Shape = AsyncTiling<128, 128, 8, 4, 4, 2, 4>;

void launch_async_pipeline(const LaunchArgs& a) {
    launch_async_tiled<Stage9Shape>(a);
}

}  // namespace matmul::detail
