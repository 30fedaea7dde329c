/// @file sm_scaling.hpp
/// @brief Chapter 1, transparent scalability measured: the same grid run on partitions of 8,
/// 16, 24, ... SMs up to the whole GPU (green contexts, green_context.hpp), for a memory-bound
/// kernel (the chapter's matrix sum) and a compute-bound one (independent FMA chains).
///
/// The partition arithmetic and the scaling figures are CPU code, tested without a GPU; the
/// kernels and run_sm_scaling() need a current device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "execution_model.hpp"
#include "green_context.hpp"
#include "sm_scaling_kernels.hpp"

namespace execution_model {

// ---------------------------------------------------------------------------------------------
// Partition arithmetic
// ---------------------------------------------------------------------------------------------

/// The partition sizes to measure: the smallest group a split can make (`min_partition` rounded
/// up to a multiple of `alignment`), then one `alignment` more at a time while it stays below
/// `total_sms`, then `total_sms` itself (the whole GPU, which need not be a multiple: an H100
/// has 132 SMs, alignment 8). A minimum over the total leaves only the total. Throws
/// std::invalid_argument when a figure is < 1 (an alignment of 0 is read as 1: no alignment).
std::vector<int> partition_sizes(int total_sms, int min_partition, int alignment);

/// Distinct values in `sm_ids` (the %smid each block recorded): the SMs a launch really used.
int distinct_sms(const std::vector<unsigned int>& sm_ids);

/// Speed-up of a run on `sms` SMs in `ms` over the reference run (`base_sms`, `base_ms`),
/// divided by the ratio of SMs: 1.0 is perfect scaling, 0.5 half of it. 0 when a time is <= 0.
double scaling_efficiency(int base_sms, double base_ms, int sms, double ms);

/// One measured point: a partition and what a kernel reached on it.
struct ScalingPoint {
    int sms = 0;
    double rate = 0;  ///< GB/s or GFLOP/s, higher is better
};

/// The smallest partition whose rate reaches `fraction` of the best rate of `points` (points in
/// any order), or 0 when `points` is empty.
int first_partition_reaching(const std::vector<ScalingPoint>& points, double fraction);

// ---------------------------------------------------------------------------------------------
// The scaling run
// ---------------------------------------------------------------------------------------------

/// What the scaling section runs. The defaults are the class options.
struct ScalingConfig {
    int nx = 1 << 13;  ///< matrix columns: 2^13 x 2^13 floats, 256 MiB per matrix (> L2 by 5x)
    int ny = 1 << 13;
    BlockShape block{128, 2, 1};  ///< the sweep's fastest shape on the H100
    int fma_threads = 256;        ///< threads per block of the FMA kernel
    int fma_waves = 4;            ///< FMA grid = waves x the blocks the whole GPU holds at once
    int fma_trips = 64;           ///< loop trips per chain: 1024 FMAs per chain, 8192 per thread
    std::uint64_t seed = 1;
    /// Partitions to run; empty: partition_sizes() of the device.
    std::vector<int> partitions;
};

/// Device memory the scaling run needs (three matrices, the FMA output, the SM records).
std::size_t sm_scaling_device_bytes(const ScalingConfig& config,
                                    const cudatutorial::DeviceInfo& device);

/// The scaling table: one row per kernel and partition (ids "sum@8", "fma@8", ...), timed by
/// the common harness on the partition's stream and verified against the CPU each time.
/// Columns: SMs (the partition), SMs seen (distinct %smid; more than the partition is a FAIL),
/// GB/s per SM or GFLOP/s, x smallest (speed-up over the smallest partition), efficiency.
/// `skipped` receives why nothing ran when green contexts are unavailable (the rows are then
/// empty); rows of partitions the driver refused are untimed, with the reason.
struct ScalingResult {
    std::vector<cudatutorial::ResultRow> rows;
    std::string skipped;
    SmResource sm;                         ///< the device's figures (min partition, alignment)
    int matrix_warps_per_sm = 0;           ///< the matrix sum's active warps per SM (occupancy API)
    std::vector<ScalingPoint> matrix_sum;  ///< GB/s per partition (timed, verified rows only)
    std::vector<ScalingPoint> fma;         ///< GFLOP/s per partition (timed, verified rows only)
};
ScalingResult run_sm_scaling(const ScalingConfig& config, const cudatutorial::DeviceInfo& device,
                             const cudatutorial::BenchmarkConfig& timing);

/// Little's law read off the matrix-sum rows: lines of text for under the table (empty when
/// there are fewer than two timed matrix-sum rows). Each thread of the matrix sum loads A and B
/// (8 bytes, what its warp waits for) and stores C (4 bytes, counted in the rates): the latency is
/// the loads in flight over the load part of the rate.
std::vector<std::string> sm_scaling_notes(const ScalingResult& result,
                                          int loaded_bytes_per_thread = 8,
                                          int stored_bytes_per_thread = 4);

/// What the scaling section's table holds: its header, its rows, and the notes under it.
struct ScalingTable {
    cudatutorial::RunInfo run;                  ///< what was run, for the header
    std::vector<cudatutorial::ResultRow> rows;  ///< one per partition and kernel
    std::vector<std::string> notes;             ///< Little's law read off the rows
};

/// The scaling section of `execution_model`: runs run_sm_scaling() with the default
/// ScalingConfig and returns its table, Little's law (sm_scaling_notes) as the table's notes.
/// Where green contexts are unavailable it prints why to `out` and returns nothing (a skip is not
/// a failure).
std::optional<ScalingTable> sm_scaling_table(std::ostream& out,
                                             const cudatutorial::DeviceInfo& device,
                                             const cudatutorial::BenchmarkConfig& timing,
                                             const std::string& timing_text);

}  // namespace execution_model
