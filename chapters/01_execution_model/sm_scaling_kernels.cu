// The two kernels of the scaling section that the chapter did not have: a compute-bound FMA
// loop, and an SM census.
//
// The FMA kernel is the opposite of the matrix sum: it reads nothing and writes 4 bytes per
// thread after 8192 FMAs, so its time is set by the FMA units of the SMs it runs on, and it
// should scale with them to the last SM. Each thread runs 8 independent chains (the latency
// section's throughput probe does the same), so a few warps per SM already keep the units busy.
// Each block records the SM it ran on (%smid): the proof that a green context confined it.
//
// The census kernel does nothing but record %smid per block. Launched with the matrix sum's
// grid and block on the same stream, it shows which SMs that stream reaches, without touching
// the matrix-sum kernel (matrix_sum.cu), which is timed exactly as the sweep times it.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_clocks.cuh"
#include "sm_scaling_kernels.hpp"

namespace execution_model {

namespace {

using cudatutorial::sm_id;

__global__ void fma_chains_kernel(float* out, unsigned int* block_sm, int trips, float a, float b) {
    const unsigned long long thread =
        static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    float x[kScalingFmaChains];
#pragma unroll
    for (int k = 0; k < kScalingFmaChains; ++k) {
        x[k] = static_cast<float>((thread & 1023u) + k);
    }
    for (int trip = 0; trip < trips; ++trip) {
#pragma unroll
        for (int u = 0; u < kScalingFmaUnroll; ++u) {
#pragma unroll
            for (int k = 0; k < kScalingFmaChains; ++k) {
                x[k] = fmaf(x[k], a, b);  // chains k and k+1 do not wait for each other
            }
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < kScalingFmaChains; ++k) {
        sum += x[k];
    }
    out[thread] = sum;
    if (threadIdx.x == 0) {
        block_sm[blockIdx.x] = sm_id();
    }
}

__global__ void sm_census_kernel(unsigned int* block_sm) {
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        block_sm[static_cast<unsigned long long>(blockIdx.y) * gridDim.x + blockIdx.x] = sm_id();
    }
}

}  // namespace

void launch_fma_chains(float* out, unsigned int* block_sm, int blocks, int threads, int trips,
                       cudaStream_t stream) {
    fma_chains_kernel<<<blocks, threads, 0, stream>>>(out, block_sm, trips, 1.0f, 1.0f);
    CT_CHECK_LAUNCH();
}

void launch_sm_census(unsigned int* block_sm, const BlockShape& grid, const BlockShape& block,
                      cudaStream_t stream) {
    sm_census_kernel<<<dim3(grid.x, grid.y), dim3(block.x, block.y, block.z), 0, stream>>>(
        block_sm);
    CT_CHECK_LAUNCH();
}

}  // namespace execution_model
