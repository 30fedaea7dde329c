// Stage 2, warp-aligned branch (the textbook's mathKernel2): same work, no divergence.
//
// Changed from stage 1: the condition is (tid / warpSize) % 2 == 0, so the branch changes value
// only between warps: warps 0, 2, 4... take the if-path with all 32 lanes, warps 1, 3, 5... the
// else-path. No warp needs both paths. The output differs from stage 1's (it alternates every
// 32 elements, not every element): the point is the branch granularity, not the result. What to
// look for: the same time as stage 1, because stage 1 was never slowed by its branch (predicated).
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "divergence.hpp"

namespace divergence {

namespace {

__global__ void warp_aligned_kernel(float* c, int n) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float a = 0.0f;
    float b = 0.0f;
    // EXERCISE BEGIN: stage 1's two paths (a = kIfValue, b = kElseValue), with a condition that
    // EXERCISE HINT: changes value only between whole warps (warpSize threads)
    if ((tid / warpSize) % 2 == 0) {
        a = kIfValue;
    } else {
        b = kElseValue;
    }
    // EXERCISE END
    if (tid < n) {
        c[tid] = a + b;
    }
}

}  // namespace

void launch_warp_aligned(float* c, int n, int block, cudaStream_t stream) {
    warp_aligned_kernel<<<(n + block - 1) / block, block, 0, stream>>>(c, n);
    CT_CHECK_LAUNCH();
}

}  // namespace divergence
