// Internal to reduction_kernels: the host-side entry points of the stage files, used by the
// Reducer (reducer.cpp) and by the tests. Host code only (no <<< >>> here).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace reduction::detail {

/// Block-size ranges (powers of two). The templated stages instantiate exactly these and
/// static_assert that their dispatch lists agree; the stage list in reducer.cpp uses them too.
inline constexpr int kMaxBlock = 1024;
inline constexpr int kMinBlock = 32;                ///< stages 1-4, 9 and beyond
inline constexpr int kCompleteUnrollMinBlock = 64;  ///< stages 5-8: the last warp reads tid + 32

/// What one launch of a stage kernel needs.
struct KernelArgs {
    const int* in = nullptr;          ///< elements to sum
    int* out = nullptr;               ///< one partial per block, or the sum (grid 1 / single pass)
    std::size_t n = 0;                ///< number of elements in `in`
    unsigned int grid = 0;            ///< blocks
    int block = 0;                    ///< threads per block
    cudaStream_t stream = nullptr;    ///< where to launch
    int* partials = nullptr;          ///< single-pass stages: one slot per block
    unsigned int* counter = nullptr;  ///< last-block stage: blocks finished (0 between launches)
    int variant = 1;  ///< stages 10-12: index into kVectorizedVariants (vectorized_candidates.hpp)
};

/// Throws std::invalid_argument when a stage is asked for a block size its dispatch list does not
/// hold (validate_configuration() rejects such sizes before any launch).
[[noreturn]] void unsupported_block_size(const char* stage, int block);

// One launcher per stage file. Each checks its launch with CT_CHECK_LAUNCH.
void launch_interleaved_divergent(const KernelArgs& args);      // stage 1
void launch_interleaved_strided_index(const KernelArgs& args);  // stage 2
void launch_sequential_addressing(const KernelArgs& args);      // stage 3
void launch_first_add_during_load(const KernelArgs& args);      // stage 4
void launch_volatile_last_warp(const KernelArgs& args);         // stage 5, historical form
void launch_unrolled_last_warp(const KernelArgs& args);         // stage 5, __syncwarp form
void launch_complete_unroll(const KernelArgs& args);            // stage 6
void launch_grid_stride(const KernelArgs& args);                // stage 7
void launch_cooperative_groups_tile(const KernelArgs& args);    // stage 8
void launch_warp_shuffle(const KernelArgs& args);               // stage 9
void launch_vectorized_loads(const KernelArgs& args);           // stage 10
void launch_single_pass_last_block(const KernelArgs& args);     // stage 11
void launch_single_pass_atomic(const KernelArgs& args);         // stage 12

// Resident blocks per SM of the grid-stride stages' kernels at this block size
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor on the instantiated kernel).
int grid_stride_blocks_per_sm(int block);
int cooperative_groups_tile_blocks_per_sm(int block);
int warp_shuffle_blocks_per_sm(int block);
// Stages 10-12: of the instantiation for candidate `variant` (vectorized_candidates.hpp). The
// launchers below take the candidate from KernelArgs::variant.
int vectorized_loads_blocks_per_sm(int block, int variant);
int single_pass_last_block_blocks_per_sm(int block, int variant);
int single_pass_atomic_blocks_per_sm(int block, int variant);

// CUB's DeviceReduce::Sum (reduction_cub_baseline.cu).
std::size_t cub_temp_storage_bytes(std::size_t n);
void launch_cub_sum(void* temp, std::size_t temp_bytes, const int* in, int* out, std::size_t n,
                    cudaStream_t stream);

}  // namespace reduction::detail
