// Stage 1x, vector add without the guard: a labelled wrong answer.
//
// Stage 1 with `if (i < n)` left out. The launch still asks for ceil(n / block) blocks, so when
// n is not a multiple of the block the last block's threads past n read a[i] and b[i] beyond the
// arrays and write c[i] beyond them. Nothing crashes: a kernel's out-of-bounds write is not
// checked by the hardware unless it leaves the memory the process owns, and a few elements past
// an array usually land in memory that is still allocated (here, the canary the program puts
// behind every array; elsewhere, another array of yours). What catches it: the program's check
// (the canary behind c is no longer poison), and compute-sanitizer's memcheck when the arrays
// have no slack behind them (--canary 0), since memcheck knows each allocation's exact size.
// When n is a multiple of the block there is no partial block, and this stage passes: a missing
// guard hides until someone uses an awkward size.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

namespace {

__global__ void vector_add_no_guard_kernel(const float* a, const float* b, float* c) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    c[i] = a[i] + b[i];  // wrong on purpose: no `if (i < n)`
}

}  // namespace

void launch_vector_add_no_guard(const float* a, const float* b, float* c, std::size_t n, int block,
                                int /*grid*/, cudaStream_t stream) {
    vector_add_no_guard_kernel<<<blocks_for(n, block), block, 0, stream>>>(a, b, c);
    CT_CHECK_LAUNCH();
}

}  // namespace first_kernel
