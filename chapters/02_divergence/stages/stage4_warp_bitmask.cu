// Stage 4, warp parity from a shift and a mask (the textbook's mathKernel4), fixed.
//
// Changed from stage 2: the warp index is tid >> 5 and its parity is tested with & 0x01 instead
// of / and %. The textbook writes `if (itid & 0x01 == 0)`. In C and C++, == binds tighter than &,
// so that is `itid & (0x01 == 0)`, which is `itid & 0`, which is 0: the if-path is dead code,
// every thread takes the else-path and writes 200. The textbook's explanation (even warps take
// the if-path) describes the code it meant, `(itid & 0x01) == 0`. Both versions are below; the
// textbook's runs as a labelled bug demonstration that fails its check. What to look for: the
// fixed kernel gives stage 2's output in stage 2's time; the textbook's gives 200 everywhere.
// (Note also that `tid >> 5` hard-codes a warp size of 32, where stage 2 used warpSize.)
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "divergence.hpp"

namespace divergence {

namespace {

__global__ void warp_bitmask_fixed_kernel(float* c, int n) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float ia = 0.0f;
    float ib = 0.0f;
    const int itid = tid >> 5;
    if ((itid & 0x01) == 0) {  // parentheses: test the low bit, then compare
        ia = kIfValue;
    } else {
        ib = kElseValue;
    }
    if (tid < n) {
        c[tid] = ia + ib;
    }
}

// LABELLED BUG, kept as printed in the textbook: the condition is always false.
__global__ void warp_bitmask_textbook_kernel(float* c, int n) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float ia = 0.0f;
    float ib = 0.0f;
    const int itid = tid >> 5;
    if (itid & 0x01 == 0) {  // parses as itid & (0x01 == 0), i.e. itid & 0
        ia = kIfValue;
    } else {
        ib = kElseValue;
    }
    if (tid < n) {
        c[tid] = ia + ib;
    }
}

}  // namespace

void launch_warp_bitmask_fixed(float* c, int n, int block, cudaStream_t stream) {
    warp_bitmask_fixed_kernel<<<(n + block - 1) / block, block, 0, stream>>>(c, n);
    CT_CHECK_LAUNCH();
}

void launch_warp_bitmask_textbook(float* c, int n, int block, cudaStream_t stream) {
    warp_bitmask_textbook_kernel<<<(n + block - 1) / block, block, 0, stream>>>(c, n);
    CT_CHECK_LAUNCH();
}

}  // namespace divergence
