// Stage 7 - many elements per thread: a grid-stride loop, grid sized from the device.
//
// What changed from stage 6: the grid no longer has one block per 2*kBlock elements. It has
// exactly as many blocks as the GPU can keep resident at once - the number of SMs times the
// resident blocks per SM that cudaOccupancyMaxActiveBlocksPerMultiprocessor computes for this
// kernel and block size (132 x 8 = 1056 blocks of 256 on an H100) - and each thread walks the
// input with a stride of the whole grid, adding pairs as in stage 4 until it runs out:
//
//   grid of G blocks, T = 2*kBlock*G:  thread t of block b adds in[2*kBlock*b + t],
//   in[2*kBlock*b + t + kBlock], then the same two at + T, + 2T, ... - then stage 6's tree.
//
// Why it should be faster: the block start-up, the shared-memory tree and the partial-sum write
// happen once per resident block instead of once per 512 elements, so nearly all the time goes
// to loads; the second pass shrinks from 65536 partials to 1056. (The seed hard-coded 128 blocks,
// which leaves a V100's 80 SMs under-filled; the occupancy API gives the right figure on any
// GPU.)
// What to look for: the first-pass time approaching the bandwidth of a plain 4-byte load loop.
#include "device_helpers.cuh"

namespace reduction::detail {
namespace {

using GridStrideBlocks = BlockSizes<64, 128, 256, 512, 1024>;
static_assert(GridStrideBlocks::kMin == kCompleteUnrollMinBlock &&
              GridStrideBlocks::kMax == kMaxBlock);

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_grid_stride(const int* __restrict__ in, int* __restrict__ out, std::size_t n) {
    __shared__ Sum sdata[kBlock];
    const unsigned int tid = threadIdx.x;
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
    __syncthreads();

#pragma unroll
    for (unsigned int s = kBlock / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid < 32) {
        Sum v = sdata[tid] + sdata[tid + 32];
        sdata[tid] = v;
#pragma unroll
        for (unsigned int offset = 16; offset > 0; offset /= 2) {
            __syncwarp();
            v += sdata[tid + offset];
            __syncwarp();
            sdata[tid] = v;
        }
        if (tid == 0) {
            out[blockIdx.x] = as_int(v);
        }
    }
}

void launch_grid_stride(const KernelArgs& a) {
    launch_for_block_size(GridStrideBlocks{}, "grid_stride", a,
                          [](auto block) { return reduce_grid_stride<block()>; });
}

int grid_stride_blocks_per_sm(int block) {
    return blocks_per_sm_for_block_size(GridStrideBlocks{}, "grid_stride", block,
                                        [](auto b) { return reduce_grid_stride<b()>; });
}

}  // namespace

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage07_grid_stride_occupancy_row() {
    StageInfo row("7", "grid_stride_occupancy",
                  "grid-stride loop, grid = SMs x resident blocks per SM");
    row.launch = detail::launch_grid_stride;
    row.min_block = detail::kCompleteUnrollMinBlock;
    row.elements_per_thread = 2;
    row.blocks_per_sm = detail::grid_stride_blocks_per_sm;
    row.combine = Combine::kOneBlockPass;
    return row;
}

}  // namespace reduction::rows
