// Internal to nested_reduction_kernels: the host-side launchers of each version's first level
// and of the final sum (defined in the .cu files, called by NestedReducer::run).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "nested_reduction.hpp"

namespace nested_reduction::detail {

/// Where one run reads and writes. `work` holds G * B/2 ints (the first level's sums, reduced in
/// place by the deeper levels), `partials` G ints (one per chunk).
struct RunBuffers {
    const int* in = nullptr;
    std::size_t n = 0;
    int block = 0;
    unsigned int chunks = 0;  ///< G
    int* work = nullptr;
    int* partials = nullptr;
    LaunchCounters* counters = nullptr;
};

/// Version 1: stages/v1_per_block_sync_fire_and_forget.cu
void launch_per_block_sync(const RunBuffers& buffers, cudaStream_t stream);
/// Version 2: stages/v2_per_block_tail_launch.cu
void launch_per_block_tail(const RunBuffers& buffers, cudaStream_t stream);
/// Version 3: stages/v3_per_level_tail_launch.cu
void launch_per_level_tail(const RunBuffers& buffers, cudaStream_t stream);
/// The host-launched final pass: the G partials into *sum (sum_partials.cu).
void launch_sum_partials(const int* partials, unsigned int count, int* sum, cudaStream_t stream);

}  // namespace nested_reduction::detail
