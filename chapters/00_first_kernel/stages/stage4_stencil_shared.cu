// Stage 4, 1D stencil through shared memory: load once, then a barrier, then read many times.
//
// Changed from stage 3: the block first copies the inputs it needs - its own blockDim.x elements
// plus r on each side (the halo) - from global memory into a tile in shared memory, the on-chip
// memory all threads of one block share. Each input is then read from global memory about once
// per block instead of 2r + 1 times, and the 2r + 1 reads per output hit the tile.
//
// The barrier, __syncthreads(), is what makes the tile safe to read: thread t sums tile slots
// that other threads - often of other warps - wrote, and nothing orders one warp's stores before
// another warp's loads except a barrier, which no thread of the block passes until every thread
// has reached it (and whose shared-memory writes are then visible to all). Two rules follow: every
// thread of the block must reach it (so the guard `i < n` comes after it, not around it: threads
// past n still load halo and still arrive), and it must come between the last write and the
// first read. Stage 4x leaves it out.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

namespace {

__global__ void stencil_shared_kernel(const int* in, int* out, std::size_t n, int radius) {
    extern __shared__ int tile[];  // blockDim.x + 2 * radius ints, sized at the launch
    const std::size_t block_start = blockIdx.x * static_cast<std::size_t>(blockDim.x);
    const int tile_size = static_cast<int>(blockDim.x) + 2 * radius;
    // EXERCISE BEGIN: fill tile[k] = in[block_start - radius + k] for every k in [0, tile_size)
    // EXERCISE HINT: (0 outside the array), the threads of the block sharing the work (k starts at
    // EXERCISE HINT: threadIdx.x and steps by blockDim.x), then make every write visible to every
    // EXERCISE HINT: thread of the block before anyone reads the tile
    for (int k = static_cast<int>(threadIdx.x); k < tile_size; k += static_cast<int>(blockDim.x)) {
        const long long g = static_cast<long long>(block_start) - radius + k;
        tile[k] = (g >= 0 && g < static_cast<long long>(n)) ? in[g] : 0;
    }
    __syncthreads();
    // EXERCISE END
    const std::size_t i = block_start + threadIdx.x;
    if (i < n) {
        int sum = 0;
        for (int j = 0; j <= 2 * radius; ++j) {
            sum += tile[threadIdx.x + j];  // tile[threadIdx.x + radius] is in[i]
        }
        out[i] = sum;
    }
}

}  // namespace

void launch_stencil_shared(const int* in, int* out, std::size_t n, int radius, int block,
                           cudaStream_t stream) {
    const std::size_t tile_bytes = (static_cast<std::size_t>(block) + 2 * radius) * sizeof(int);
    stencil_shared_kernel<<<blocks_for(n, block), block, tile_bytes, stream>>>(in, out, n, radius);
    CT_CHECK_LAUNCH();
}

}  // namespace first_kernel
