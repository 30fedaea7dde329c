// Stage 3, explicit predicate (the textbook's mathKernel3): the even/odd split written as two
// independent ifs on a bool, the way the compiler's predication works.
//
// Changed from stage 1: instead of if/else, `ipred = (tid % 2 == 0)` guards one statement and
// `!ipred` the other. Every lane evaluates both guarded statements; each takes effect only where
// its predicate is true, and no lane waits for another. The textbook shows this kernel profiling
// as "divergent" on its Tesla-era compiler; on CUDA 13 for sm_90 it compiles to the same selects
// as stage 1. What to look for: the same time as stages 1 and 2, and the same output as stage 1.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "divergence.hpp"

namespace divergence {

namespace {

__global__ void predicated_ipred_kernel(float* c, int n) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float ia = 0.0f;
    float ib = 0.0f;
    const bool ipred = (tid % 2 == 0);
    if (ipred) {
        ia = kIfValue;
    }
    if (!ipred) {
        ib = kElseValue;
    }
    if (tid < n) {
        c[tid] = ia + ib;
    }
}

}  // namespace

void launch_predicated_ipred(float* c, int n, int block, cudaStream_t stream) {
    predicated_ipred_kernel<<<(n + block - 1) / block, block, 0, stream>>>(c, n);
    CT_CHECK_LAUNCH();
}

}  // namespace divergence
