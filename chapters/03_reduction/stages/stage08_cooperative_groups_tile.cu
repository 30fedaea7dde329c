// Stage 8 - cooperative groups: the last warp synchronizes as a thread_block_tile<32>.
//
// What changed from stage 7: only how the last warp is named and synchronized. Instead of a
// bare `if (tid < 32)` and __syncwarp(), the block is partitioned into tiles of 32 threads with
// cooperative_groups::tiled_partition<32>(); the first tile does the last six steps and calls
// tile.sync(). The tile is a typed object: its size is a compile-time constant, it knows its
// rank (meta_group_rank()), and the same code reads correctly for a tile of 16 or 8.
//
//   tile 0 (threads 0-31):  v = sdata[t] + sdata[t+32]; then per offset:
//                           tile.sync(); v += sdata[t+offset]; tile.sync(); sdata[t] = v
//
// Why it might be faster: it should not be. The tile is the same 32 threads and tile.sync() the
// same warp barrier as __syncwarp(); on the H100 build, cuobjdump counts the same BAR.SYNC and LDG
// instructions in this object as in stage 7's, and no separate warp-barrier instruction in either.
// That does not make tile.sync() / __syncwarp() removable: it is also a memory barrier for the
// COMPILER, which may otherwise keep sdata[t] in a register or move a load above another lane's
// store - the bug of the historical stage 5.
// This stage is about expressing the warp as a group, which stage 9 then uses for shuffles and
// the beyond-the-book stages for cg::reduce.
// What to look for: the same time as stage 7 (the seed measured 0.999x on V100).
#include <cooperative_groups.h>

#include "device_helpers.cuh"

namespace cg = cooperative_groups;

namespace reduction::detail {
namespace {

using TileBlocks = BlockSizes<64, 128, 256, 512, 1024>;
static_assert(TileBlocks::kMin == kCompleteUnrollMinBlock && TileBlocks::kMax == kMaxBlock);

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_cooperative_groups_tile(const int* __restrict__ in, int* __restrict__ out,
                                   std::size_t n) {
    __shared__ Sum sdata[kBlock];
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const unsigned int tid = block.thread_rank();
    const std::size_t grid_stride = static_cast<std::size_t>(2 * kBlock) * gridDim.x;
    Sum sum = 0;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * kBlock) + tid; i < n;
         i += grid_stride) {
        sum += as_sum(in[i]);
        if (i + kBlock < n) {
            sum += as_sum(in[i + kBlock]);
        }
    }
    sdata[tid] = sum;
    block.sync();

#pragma unroll
    for (unsigned int s = kBlock / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        block.sync();
    }
    if (tile.meta_group_rank() == 0) {  // the first warp, as a group
        const unsigned int lane = tile.thread_rank();
        Sum v = sdata[lane] + sdata[lane + 32];
        sdata[lane] = v;
#pragma unroll
        for (unsigned int offset = tile.num_threads() / 2; offset > 0; offset /= 2) {
            tile.sync();
            v += sdata[lane + offset];
            tile.sync();
            sdata[lane] = v;
        }
        if (lane == 0) {
            out[blockIdx.x] = as_int(v);
        }
    }
}

void launch_cooperative_groups_tile(const KernelArgs& a) {
    launch_for_block_size(TileBlocks{}, "cooperative_groups_tile", a,
                          [](auto block) { return reduce_cooperative_groups_tile<block()>; });
}

int cooperative_groups_tile_blocks_per_sm(int block) {
    return blocks_per_sm_for_block_size(TileBlocks{}, "cooperative_groups_tile", block,
                                        [](auto b) { return reduce_cooperative_groups_tile<b()>; });
}

}  // namespace

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage08_cooperative_groups_tile_row() {
    StageInfo row("8", "cooperative_groups_tile",
                  "last warp as a thread_block_tile<32>, tile.sync()");
    row.launch = detail::launch_cooperative_groups_tile;
    row.min_block = detail::kCompleteUnrollMinBlock;
    row.elements_per_thread = 2;
    row.blocks_per_sm = detail::cooperative_groups_tile_blocks_per_sm;
    row.combine = Combine::kOneBlockPass;
    return row;
}

}  // namespace reduction::rows
