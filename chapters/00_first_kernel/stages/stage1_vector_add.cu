// Stage 1, vector add: one thread per element, the guard, and the launch.
//
// The first kernel: c[i] = a[i] + b[i]. The launch asks for ceil(n / block) blocks of `block`
// threads; each thread computes which element is its own from where it sits in the grid
// (blockIdx.x, the block's number; blockDim.x, threads per block; threadIdx.x, its number in the
// block). The last block usually hangs over the end of the arrays (n is rarely a multiple of the
// block), so every thread checks i < n before it touches memory: that guard is the line stage 1x
// leaves out.
//
// The index is computed in 64 bits. blockIdx.x * blockDim.x is a product of two 32-bit unsigned
// values and wraps past 2^32 (the textbooks' `int i = blockIdx.x * blockDim.x + threadIdx.x`
// goes negative past 2^31): converting one factor to std::size_t first makes the whole product
// 64-bit, so n may exceed 2^31 elements.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

namespace {

__global__ void vector_add_kernel(const float* a, const float* b, float* c, std::size_t n) {
    // EXERCISE BEGIN: this thread's element i (64-bit: from blockIdx.x, blockDim.x, threadIdx.x),
    // EXERCISE HINT: then c[i] = a[i] + b[i] - only when i is inside the arrays (the last block
    // EXERCISE HINT: hangs over their end)
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
    // EXERCISE END
}

}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, int block,
                       int /*grid*/, cudaStream_t stream) {
    // <<<blocks, threads per block, dynamic shared memory bytes, stream>>>
    vector_add_kernel<<<blocks_for(n, block), block, 0, stream>>>(a, b, c, n);
    CT_CHECK_LAUNCH();
}

}  // namespace first_kernel
