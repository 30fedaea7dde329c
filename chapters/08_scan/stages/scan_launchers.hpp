// Internal to scan_kernels: the host-side entry points of the stage files, used by the Scanner
// (scanner.cpp) and by the tests. Host code only (no <<< >>> here).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace scan::detail {

using Value = std::uint32_t;

/// What one run of a stage needs. The Scanner owns every buffer named here.
struct LaunchArgs {
    const Value* in = nullptr;      ///< n values
    Value* out = nullptr;           ///< n values
    std::size_t n = 0;              ///< values to scan
    bool exclusive = false;         ///< exclusive (true) or inclusive scan
    int block = 0;                  ///< threads per block
    cudaStream_t stream = nullptr;  ///< where to launch
    /// Scan-then-propagate and reduce-then-scan: one buffer of tile totals per level
    /// (config::level_sizes), host array of device pointers.
    Value* const* level_totals = nullptr;
    // Single-pass stages (6, 6x, 7):
    unsigned long long* tile_status = nullptr;  ///< one status word per tile, zeroed once
    unsigned int* tile_counter = nullptr;       ///< 0 between launches (the last tile resets it)
    unsigned int* error_flag = nullptr;         ///< set by a wait that timed out; sticky
    unsigned int generation = 1;                ///< this run's number, 1..2^30-1 (see TileStatus)
    unsigned long long wait_limit_ns = 0;       ///< the bound on every look-back wait
};

/// Items each thread of stage 7 scans per tile, by block size (the tuned shape).
int vectorized_items_per_thread(int block);

// One launcher per stage file. Each checks its launches with CT_CHECK_LAUNCH.
void launch_hillis_steele(const LaunchArgs& args);            // stage 1
void launch_blelloch(const LaunchArgs& args);                 // stage 2
void launch_blelloch_padded(const LaunchArgs& args);          // stage 3
void launch_warp_shuffle(const LaunchArgs& args);             // stage 4
void launch_reduce_then_scan(const LaunchArgs& args);         // stage 5
void launch_decoupled_lookback(const LaunchArgs& args);       // stage 6
void launch_lookback_by_block_index(const LaunchArgs& args);  // stage 6x
void launch_vectorized_lookback(const LaunchArgs& args);      // stage 7

/// Stage 7's compiled shapes (block size, int4 vectors per thread), for the tuning test: the
/// stage itself runs vectorized_items_per_thread(block) / 4 vectors.
struct VectorizedShape {
    int block = 0;
    int vectors = 0;  ///< int4 per thread: 4 x vectors items
};
std::vector<VectorizedShape> vectorized_shapes();
/// Stage 7 with an explicit shape from vectorized_shapes() (args.block is ignored).
void launch_vectorized_lookback_shape(const LaunchArgs& args, VectorizedShape shape);

// CUB's DeviceScan (scan_cub_baseline.cu).
std::size_t cub_temp_storage_bytes(std::size_t n, bool exclusive);
void launch_cub_scan(void* temp, std::size_t temp_bytes, const LaunchArgs& args);

}  // namespace scan::detail
