// Stage 1, even/odd branch (the textbook's mathKernel1): divergent by construction.
//
// Even threads take the if-path, odd threads the else-path, so every warp holds 16 lanes of
// each. A divergent warp issues both paths, each with only its own 16 lanes active (since Volta
// the two groups are scheduled independently and may be interleaved; see the README's
// independent-thread-scheduling section). What to look for: nothing, in the time. The branch bodies
// are one assignment each, so the compiler does not branch at all: it computes the condition and
// selects 100 or 200 (predication / a select instruction), and the kernel is limited by its
// stores anyway. ncu's branch-uniformity metric prints 0% here, having no branch to measure (see
// the README), and the time equals stage 2's. Stage 5 makes the bodies long enough for divergence to show.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "divergence.hpp"

namespace divergence {

namespace {

__global__ void even_odd_divergent_kernel(float* c, int n) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float a = 0.0f;
    float b = 0.0f;
    if (tid % 2 == 0) {
        a = kIfValue;
    } else {
        b = kElseValue;
    }
    if (tid < n) {
        c[tid] = a + b;
    }
}

}  // namespace

void launch_even_odd_divergent(float* c, int n, int block, cudaStream_t stream) {
    even_odd_divergent_kernel<<<(n + block - 1) / block, block, 0, stream>>>(c, n);
    CT_CHECK_LAUNCH();
}

}  // namespace divergence
