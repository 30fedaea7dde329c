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
    /// Stage 7: the candidate to run (an index into kLookbackCandidates, lookback_candidates.hpp,
    /// with its own block size: `block` is ignored), or -1 for the shape that
    /// vectorized_items_per_thread() gives `block` (one tile per block, no backoff).
    int candidate = -1;
    /// Stage 7's resident candidates: the blocks to launch (at most one per tile), or 0 for as
    /// many as fit at once, asked of the device at each launch. The Scanner passes the grid it
    /// asked for once (vectorized_lookback_grid); the tests pass a few blocks, to make each loop
    /// over many tiles.
    unsigned int resident_grid = 0;
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

/// The blocks stage 7's candidate `index` launches over n values: one per tile, or for a
/// resident candidate as many as fit on the current device at once (at most one per tile).
unsigned int vectorized_lookback_grid(int index, std::size_t n);

// CUB's DeviceScan (scan_cub_baseline.cu).
std::size_t cub_temp_storage_bytes(std::size_t n, bool exclusive);
void launch_cub_scan(void* temp, std::size_t temp_bytes, const LaunchArgs& args);

}  // namespace scan::detail
