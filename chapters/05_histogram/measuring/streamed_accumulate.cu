// The one kernel the streamed path adds: chunk counts (32-bit) into running totals (64-bit).
//
// Why not count in 64 bits directly: the stage's shared-memory counters and its merge atomics are
// 32-bit, and a chunk holds at most 2^31 bytes (--chunk), so no per-chunk count can overflow;
// only the sum over chunks can, as soon as more than 2^32 - 1 bytes of the input fall in one bin
// (4 GiB of 'a': the adversarial test). One 64-bit add per bin per chunk costs nothing next to
// the chunk's copy. What to look for: nothing in the timings; in the tests, totals that carry
// past 2^32 (StreamedGpu.AccumulationCarriesPastThirtyTwoBits).
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "streamed_pipeline.hpp"

namespace histogram {

namespace {

// The two streams of the pipeline add their chunks' counts at the same time: atomic adds.
__global__ void accumulate_counts_kernel(const unsigned int* __restrict__ chunk_counts,
                                         unsigned long long* total, int bins) {
    for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < bins; b += gridDim.x * blockDim.x) {
        atomicAdd(&total[b], static_cast<unsigned long long>(chunk_counts[b]));
    }
}

}  // namespace

void accumulate_counts(const unsigned int* d_chunk_counts, unsigned long long* d_total, int bins,
                       cudaStream_t stream) {
    static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t), "64-bit totals");
    if (bins <= 0) {
        return;
    }
    constexpr int kBlock = 256;
    accumulate_counts_kernel<<<(bins + kBlock - 1) / kBlock, kBlock, 0, stream>>>(d_chunk_counts,
                                                                                  d_total, bins);
    CT_CHECK_LAUNCH();
}

}  // namespace histogram
