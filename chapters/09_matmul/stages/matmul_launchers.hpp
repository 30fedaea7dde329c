// Internal to matmul_kernels: the host-side entry points of the stage files, used by the
// Multiplier (multiplier.cpp) and the tests. Host code only (no <<< >>> here).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <string>

namespace matmul::detail {

/// What one run of a stage needs: C = A . B, all row-major FP32, already on the device.
struct LaunchArgs {
    const float* a = nullptr;       ///< m x k
    const float* b = nullptr;       ///< k x n
    float* c = nullptr;             ///< m x n
    int m = 0;                      ///< rows of A and C
    int n = 0;                      ///< columns of B and C
    int k = 0;                      ///< columns of A, rows of B
    cudaStream_t stream = nullptr;  ///< where to launch
    /// Stage 8: the candidate shape to run (warp_tiling_candidate_name), as the tuning pass
    /// chose it; -1: candidate 0, stage 7's shape. Ignored by the other stages.
    int candidate = -1;
};

/// The same for a BF16 stage (the tensor cores' table): A and B in BF16, C written in BF16
/// (rounded to nearest from FP32 sums), all row-major.
struct Bf16LaunchArgs {
    const __nv_bfloat16* a = nullptr;  ///< m x k
    const __nv_bfloat16* b = nullptr;  ///< k x n
    __nv_bfloat16* c = nullptr;        ///< m x n
    int m = 0;
    int n = 0;
    int k = 0;
    cudaStream_t stream = nullptr;
};

// One launcher per stage file. Each checks its launch with CT_CHECK_LAUNCH.
void launch_naive(const LaunchArgs& args);                    // stage 1
void launch_coalesced(const LaunchArgs& args);                // stage 2
void launch_shared_tiling(const LaunchArgs& args);            // stage 3
void launch_register_blocking_1d(const LaunchArgs& args);     // stage 4
void launch_register_blocking_2d(const LaunchArgs& args);     // stage 5
void launch_vectorized_transposed(const LaunchArgs& args);    // stage 6
void launch_warp_tiling(const LaunchArgs& args);              // stage 7
void launch_tuned_warp_tiling(const LaunchArgs& args);        // stage 8
void launch_async_pipeline(const LaunchArgs& args);           // stage 9
void launch_wmma(const Bf16LaunchArgs& args);                 // stage 10
void launch_mma_sync(const Bf16LaunchArgs& args);             // stage 11
void launch_wgmma_tma(const Bf16LaunchArgs& args);            // stage 12 (sm_90a)
void launch_warp_specialized(const Bf16LaunchArgs& args);     // stage 13 (sm_90a)
void launch_persistent_clusters(const Bf16LaunchArgs& args);  // stage 14 (sm_90a)

/// Stage 14's schedule for an m x n product on the current GPU: "66 clusters of 2 blocks
/// resident (...) over 256 tiles of 256 x 256: 3.88 waves". Compute capability 9.0 only.
std::string persistent_schedule(int m, int n);

/// Stage 8's candidate shapes: how many, and each one's name ("128x128 tile, 64x32 warps, ...").
int warp_tiling_candidates();
std::string warp_tiling_candidate_name(int index);

}  // namespace matmul::detail
