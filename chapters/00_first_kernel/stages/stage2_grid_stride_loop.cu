// Stage 2, grid-stride loop: any n fits any grid.
//
// Changed from stage 1: the grid no longer grows with n. Each thread starts at its own element
// and steps by the number of threads in the whole grid (gridDim.x * blockDim.x) until it passes
// n, so a fixed grid - by default enough blocks for every SM's thread slots once - covers any n,
// and the loop's own condition is the guard. Why it can be faster: far fewer blocks to launch and
// retire, and each thread does several elements; why it often is not, for a kernel this simple:
// at 256 threads a block stage 1's blocks come fast enough, and both are limited by the same DRAM
// bandwidth. (At 32 threads a block they do not: stage 1 then needs a million blocks, and the
// rate at which the GPU launches and retires blocks sets its time.) The pattern matters later:
// a grid sized to the GPU, not to the data, is what reductions (chapter 3) and histograms
// (chapter 5) use to keep per-thread state across many elements.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

namespace {

__global__ void vector_add_grid_stride_kernel(const float* a, const float* b, float* c,
                                              std::size_t n) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += stride) {
        c[i] = a[i] + b[i];
    }
}

}  // namespace

void launch_vector_add_grid_stride(const float* a, const float* b, float* c, std::size_t n,
                                   int block, int grid, cudaStream_t stream) {
    vector_add_grid_stride_kernel<<<grid, block, 0, stream>>>(a, b, c, n);
    CT_CHECK_LAUNCH();
}

}  // namespace first_kernel
