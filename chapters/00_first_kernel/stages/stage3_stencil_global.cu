// Stage 3, 1D stencil from global memory: every thread reads its own neighbourhood.
//
// out[i] = in[i - r] + ... + in[i + r], with zeros outside the array. One thread per output
// element, guarded like stage 1. Each input element is read by 2r + 1 threads, so the kernel
// asks global memory for (2r + 1) x n ints while only n distinct ones exist. On a GPU without
// caches that would cost 2r + 1 times the traffic; on every GPU this course supports, the L1 and
// L2 caches catch most of the repeats, which is why stage 4's shared memory wins less than the
// textbook arithmetic promises. What to look for: the time against stage 4's, and GB/s counted
// on the n ints read and n written that an ideal kernel moves.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

namespace {

__global__ void stencil_global_kernel(const int* in, int* out, std::size_t n, int radius) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        int sum = 0;
        for (int j = -radius; j <= radius; ++j) {
            const long long k = static_cast<long long>(i) + j;  // signed: i + j may be below 0
            if (k >= 0 && k < static_cast<long long>(n)) {
                sum += in[k];
            }
        }
        out[i] = sum;
    }
}

}  // namespace

void launch_stencil_global(const int* in, int* out, std::size_t n, int radius, int block,
                           cudaStream_t stream) {
    stencil_global_kernel<<<blocks_for(n, block), block, 0, stream>>>(in, out, n, radius);
    CT_CHECK_LAUNCH();
}

}  // namespace first_kernel
