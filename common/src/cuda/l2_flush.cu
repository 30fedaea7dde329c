// The L2 flush kernel (benchmark.hpp, L2Flusher). Reading a buffer twice the size of L2 evicts
// whatever the timed kernel would otherwise find there. Reading rather than writing matters: a
// memset would leave the cache full of dirty lines, and their write-back would then be charged to
// the next timed kernel.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"

namespace cudatutorial::detail {
namespace {

__global__ void read_sweep(const int4* __restrict__ data, std::size_t count, int* sink) {
    int4 sum = {0, 0, 0, 0};
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const int4 v = data[i];
        sum.x ^= v.x;
        sum.y ^= v.y;
        sum.z ^= v.z;
        sum.w ^= v.w;
    }
    // Never true for the buffer's contents (all bytes 0x5a); keeps the loads from being removed.
    if ((sum.x & sum.y & sum.z & sum.w) == 0x12345678) {
        *sink = sum.x;
    }
}

}  // namespace

void launch_l2_read_sweep(const void* buffer, std::size_t bytes, int* sink, cudaStream_t stream) {
    read_sweep<<<1024, 256, 0, stream>>>(static_cast<const int4*>(buffer), bytes / sizeof(int4),
                                         sink);
    CT_CHECK_LAUNCH();
}

}  // namespace cudatutorial::detail
