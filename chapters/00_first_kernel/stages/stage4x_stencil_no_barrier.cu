// Stage 4x, the shared-memory stencil without its barrier: a labelled wrong answer.
//
// Stage 4 with __syncthreads() left out. A warp that has stored its own slots of the tile goes on
// to read its neighbours' slots at once, whether or not the warps that load them (the halo is
// loaded by the block's first threads, in a second pass) have stored them yet; a slot not yet
// written still holds whatever the previous block on this SM left there. The result is then
// wrong in a few places, in different places from run to run - or, on an unlucky day, right:
// a race does not promise to show. What catches it surely: compute-sanitizer's racecheck, which
// reports every shared-memory read that no barrier separates from another thread's write.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

namespace {

__global__ void stencil_no_barrier_kernel(const int* in, int* out, std::size_t n, int radius) {
    extern __shared__ int tile[];
    const std::size_t block_start = blockIdx.x * static_cast<std::size_t>(blockDim.x);
    const int tile_size = static_cast<int>(blockDim.x) + 2 * radius;
    for (int k = static_cast<int>(threadIdx.x); k < tile_size; k += static_cast<int>(blockDim.x)) {
        const long long g = static_cast<long long>(block_start) - radius + k;
        tile[k] = (g >= 0 && g < static_cast<long long>(n)) ? in[g] : 0;
    }
    // wrong on purpose: no __syncthreads() here
    const std::size_t i = block_start + threadIdx.x;
    if (i < n) {
        int sum = 0;
        for (int j = 0; j <= 2 * radius; ++j) {
            sum += tile[threadIdx.x + j];
        }
        out[i] = sum;
    }
}

}  // namespace

void launch_stencil_no_barrier(const int* in, int* out, std::size_t n, int radius, int block,
                               cudaStream_t stream) {
    const std::size_t tile_bytes = (static_cast<std::size_t>(block) + 2 * radius) * sizeof(int);
    stencil_no_barrier_kernel<<<blocks_for(n, block), block, tile_bytes, stream>>>(in, out, n,
                                                                                   radius);
    CT_CHECK_LAUNCH();
}

}  // namespace first_kernel
