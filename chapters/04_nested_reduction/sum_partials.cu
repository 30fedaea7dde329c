// The host-launched final pass shared by every version: one block adds the G partial sums.
//
// It is launched on the same stream right after the first level. A grid is not complete until
// every grid it launched (fire-and-forget) and its tail launches have completed, and the next
// grid in the host stream waits for that: so this kernel starts only after the whole nested
// recursion has finished, without any device-side synchronization.
#include "cudatutorial/check.hpp"
#include "nested_device.cuh"
#include "nested_launchers.hpp"

namespace nested_reduction::detail {
namespace {

constexpr int kSumThreads = 1024;

__global__ void sum_partials_kernel(const int* partials, unsigned int count, int* sum) {
    __shared__ unsigned int warp_sums[kSumThreads / 32];
    unsigned int acc = 0;  // unsigned: wraps modulo 2^32 like the reference
    for (unsigned int i = threadIdx.x; i < count; i += blockDim.x) {
        acc += static_cast<unsigned int>(partials[i]);
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        acc += __shfl_down_sync(0xffffffffu, acc, offset);
    }
    const unsigned int lane = threadIdx.x % 32;
    const unsigned int warp = threadIdx.x / 32;
    if (lane == 0) {
        warp_sums[warp] = acc;
    }
    __syncthreads();
    if (warp == 0) {
        acc = lane < blockDim.x / 32 ? warp_sums[lane] : 0u;
        for (int offset = 16; offset > 0; offset /= 2) {
            acc += __shfl_down_sync(0xffffffffu, acc, offset);
        }
        if (lane == 0) {
            *sum = static_cast<int>(acc);
        }
    }
}

}  // namespace

void launch_sum_partials(const int* partials, unsigned int count, int* sum, cudaStream_t stream) {
    sum_partials_kernel<<<1, kSumThreads, 0, stream>>>(partials, count, sum);
    CT_CHECK_LAUNCH();
}

}  // namespace nested_reduction::detail
