/// @file sm_scaling_kernels.hpp
/// @brief Chapter 1's SM-scaling kernels: the compute-bound FMA chains (with their CPU reference)
/// and the census of the SMs a launch reaches. What runs them on partitions of the GPU and
/// reports the scaling is measuring/sm_scaling.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "execution_model.hpp"

namespace execution_model {

/// Independent FMA chains per thread: enough for the SM's FMA units to stay busy without full
/// occupancy (the chapter's latency section: 4-cycle FMA latency, about 16 warps per SM).
constexpr int kScalingFmaChains = 8;
/// FMAs per chain per loop trip (unrolled).
constexpr int kScalingFmaUnroll = 16;

/// Chain k of thread t starts at (t mod 1024) + k and runs x = fma(x, 1, 1) `steps` times,
/// so it ends at its start + steps, exactly (integers below 2^24 are exact in float). The
/// thread's output is the sum of its chains, added in chain order. This is the CPU reference.
float fma_chains_expected(std::uint64_t thread, int steps);

/// The same as fma_chains_expected, but by running the FMAs one by one with std::fma (the test
/// checks that the closed form above is what the FMAs compute).
float fma_chains_by_steps(std::uint64_t thread, int steps);

/// Launches `blocks` x `threads` threads, each running kScalingFmaChains chains of
/// `trips` x kScalingFmaUnroll FMAs (x = fma(x, a, b) with a = b = 1 passed at run time, so the
/// compiler cannot fold them); out[t] = the sum of thread t's chains, block_sm[b] = the %smid of
/// block b.
void launch_fma_chains(float* out, unsigned int* block_sm, int blocks, int threads, int trips,
                       cudaStream_t stream);

/// FLOPs of one launch: 2 per FMA.
constexpr double fma_chains_flops(long long blocks, int threads, int trips) {
    return 2.0 * static_cast<double>(blocks) * threads * kScalingFmaChains * kScalingFmaUnroll *
           trips;
}

/// Every block of a `grid` of `block`-shaped blocks writes its %smid to block_sm[y * grid.x + x]:
/// launched on the same stream, with the matrix sum's grid and block, it shows the SMs that
/// stream's kernels can reach (the matrix-sum kernel itself records nothing).
void launch_sm_census(unsigned int* block_sm, const BlockShape& grid, const BlockShape& block,
                      cudaStream_t stream);

}  // namespace execution_model
