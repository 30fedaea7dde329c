/// @file execution_model.hpp
/// @brief Chapter 1, the CUDA execution model: warps, latency hiding, occupancy and the 2D
/// matrix sum, as plain host functions (the kernels live in the .cu files of this folder).
///
/// The arithmetic (warps per block, linearization, Little's law, which resource limits
/// occupancy) is pure CPU code, so that it can be tested on a machine without a GPU; everything
/// that asks the GPU (occupancy API, latency probes, the matrix sum) needs a current device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "device_query.hpp"

namespace cudatutorial {
class TableRun;  // table_run.hpp: host code, kept out of the .cu files that include this
}  // namespace cudatutorial

namespace execution_model {

// ---------------------------------------------------------------------------------------------
// Warps: how a 1D/2D/3D block is cut into warps
// ---------------------------------------------------------------------------------------------

/// A thread-block shape (blockDim). Every extent is >= 1.
struct BlockShape {
    int x = 1;
    int y = 1;
    int z = 1;
    /// x * y * z
    long long threads() const { return static_cast<long long>(x) * y * z; }
    /// "40 x 2" for 2D shapes, "8 x 8 x 4" for 3D, "256" for 1D.
    std::string to_string() const;
    friend bool operator==(const BlockShape& a, const BlockShape& b) {
        return a.x == b.x && a.y == b.y && a.z == b.z;
    }
};

/// Parses "40,2", "40x2", "8,8,4" or "256" (one to three positive extents separated by ',' or
/// 'x'). Throws cudatutorial::UsageError naming `option` on anything else.
BlockShape parse_block_shape(const std::string& text, const std::string& option = "--block-shape");

/// How many warps the hardware allocates for one block, and how many of their lanes are idle.
struct WarpCount {
    long long threads = 0;     ///< threads the program asked for (x * y * z)
    long long warps = 0;       ///< ceil(threads / warp size): warps allocated
    long long slots = 0;       ///< warps * warp size: thread slots allocated
    long long idle_lanes = 0;  ///< slots - threads: lanes of the last warp that never run
};

/// Warps per block = ceil(threads per block / warp size).
WarpCount warps_per_block(const BlockShape& block, int warp_size = 32);

/// The linear thread index the hardware uses to form warps:
/// threadIdx.z * blockDim.y * blockDim.x + threadIdx.y * blockDim.x + threadIdx.x.
/// Warp w holds linear indices [32 w, 32 w + 31].
constexpr long long linear_thread_index(const BlockShape& block, int x, int y, int z) {
    return (static_cast<long long>(z) * block.y + y) * block.x + x;
}

/// A run of threads of one warp that lie in one row of the block: x in [x_begin, x_end) at (y, z).
struct WarpSegment {
    int x_begin = 0;
    int x_end = 0;
    int y = 0;
    int z = 0;
};

/// For each warp of the block (in order), the rows of the block its threads come from. A warp
/// straddles two rows when blockDim.x is not a multiple of the warp size.
std::vector<std::vector<WarpSegment>> warp_map(const BlockShape& block, int warp_size = 32);

/// What one thread reported about itself on the GPU.
struct LaneRecord {
    int lane = -1;  ///< %laneid, read with inline PTX
    long long warp_leader_linear =
        -1;  ///< the linear index of lane 0 of its warp (via __shfl_sync)
};

/// Launches one block of shape `block` in which every thread records its %laneid and its warp's
/// lane-0 linear index; returns the records indexed by linear_thread_index. The block must be
/// launchable on the current device.
std::vector<LaneRecord> record_lanes_on_gpu(const BlockShape& block);

/// True when `records` agree with the linearization formula: lane = linear % 32 and the warp's
/// lane 0 is linear - linear % 32. `mismatch` receives the first disagreement.
bool lanes_match_linearization(const BlockShape& block, const std::vector<LaneRecord>& records,
                               int warp_size, std::string* mismatch = nullptr);

// ---------------------------------------------------------------------------------------------
// Latency hiding: Little's law
// ---------------------------------------------------------------------------------------------

/// Little's law: work in flight = latency x throughput (both in the same unit of time).
constexpr double required_parallelism(double latency, double throughput) {
    return latency * throughput;
}

/// Converts a latency counted in cycles of a clock of `clock_ghz` to nanoseconds (0 when the
/// clock is unknown).
constexpr double cycles_to_ns(double cycles, double clock_ghz) {
    return clock_ghz > 0.0 ? cycles / clock_ghz : 0.0;
}

/// Parallelism an SM needs to keep its arithmetic units busy.
struct ArithmeticParallelism {
    double operations_in_flight = 0;  ///< latency x operations per cycle per SM
    double warps_per_sm = 0;          ///< operations / warp size (one independent op per thread)
};

/// Little's law for arithmetic: `latency_cycles` of one dependent operation, `ops_per_cycle_per_sm`
/// results per cycle per SM. Both are counted in SM cycles, so the result does not depend on the
/// SM clock.
ArithmeticParallelism arithmetic_parallelism(double latency_cycles, double ops_per_cycle_per_sm,
                                             int warp_size = 32);

/// Parallelism the whole GPU needs to keep DRAM busy.
struct MemoryParallelism {
    double bytes_in_flight = 0;  ///< latency (ns) x bandwidth (GB/s = bytes per ns)
    double threads = 0;          ///< bytes in flight / bytes each thread has in flight
    double warps = 0;            ///< threads / warp size
    double warps_per_sm = 0;     ///< warps / SM count
};

/// Little's law for memory: a DRAM latency of `latency_ns` nanoseconds at `bandwidth_gbs` GB/s
/// (10^9 bytes/s = 1 byte per ns), loads of `bytes_per_thread` each, issued independently.
/// Everything is in nanoseconds: the DRAM's latency and bandwidth do not depend on the SM clock,
/// so neither do the bytes that must be in flight.
MemoryParallelism memory_parallelism(double latency_ns, double bandwidth_gbs,
                                     double bytes_per_thread, int sm_count, int warp_size = 32);

/// One dependent random load after another (the pointer chase), timed two ways over the same
/// loop.
struct DramLatency {
    double ns_per_load = 0;      ///< %globaltimer nanoseconds per load: the latency that counts
    double cycles_per_load = 0;  ///< clock64() cycles of the SM that ran the chase, per load
    /// The SM clock while the chase ran, in MHz (cycles / ns x 1000); 0 if not measured.
    double sm_clock_mhz() const {
        return ns_per_load > 0.0 ? 1000.0 * cycles_per_load / ns_per_load : 0.0;
    }
};

/// What the latency probes measured on the current GPU. The FMA figures are in SM clock cycles
/// (clock64()); the DRAM latency in nanoseconds and in SM cycles of the clock it ran at.
struct ProbeResults {
    double fma_latency_cycles = 0;    ///< one dependent FP32 FMA after another, one thread
    double fma_per_cycle_per_sm = 0;  ///< independent FP32 FMAs per cycle per SM, full SMs
    DramLatency dram;                 ///< the pointer chase
    std::size_t chase_bytes = 0;      ///< size of the pointer-chase buffer
    int chase_hops = 0;               ///< timed hops
};

/// Measures FMA latency, FMA throughput and DRAM load latency on the current device. `small`
/// shrinks every probe (for tests under compute-sanitizer); the figures are then rougher.
ProbeResults run_latency_probes(const cudatutorial::DeviceInfo& device, bool small = false);

/// One thread, `chain` dependent FMAs: cycles per FMA.
double measure_fma_latency_cycles(int chain);
/// Every SM full of warps, each thread with 8 independent FMA chains of length `chain`:
/// FMAs per cycle per SM (per-SM cycles from clock64(), averaged over the SMs).
double measure_fma_throughput_per_sm(const cudatutorial::DeviceInfo& device, int chain);
/// One thread follows `hops` pointers through a random cycle over `buffer_bytes` of device
/// memory, with L2 flushed first: nanoseconds (%globaltimer) and SM cycles (clock64()) per
/// dependent load.
DramLatency measure_dram_latency(std::size_t buffer_bytes, int hops);

/// What one way of copying device memory achieved.
struct CopyBandwidth {
    std::string method;            ///< "cudaMemcpyAsync, device to device", "int4 copy kernel ..."
    std::size_t bytes_copied = 0;  ///< size of the copy; it moves twice that (read + write)
    double median_ms = 0;          ///< median of the timed runs
    double gbs = 0;                ///< 2 x bytes copied / median time
    double percent_of_peak = 0;    ///< of the theoretical DRAM bandwidth
    bool passed = false;           ///< the destination equalled the source, before and after timing
    std::string detail;            ///< why the check failed
};

/// Copies `bytes` of device memory to another buffer with cudaMemcpyAsync and with an int4 copy
/// kernel, each timed by the common harness (`config`) and checked on the GPU: the bandwidth a
/// real program gets, to set beside the theoretical figure.
std::vector<CopyBandwidth> measure_copy_bandwidth(const cudatutorial::DeviceInfo& device,
                                                  std::size_t bytes,
                                                  const cudatutorial::BenchmarkConfig& config);

// ---------------------------------------------------------------------------------------------
// Occupancy
// ---------------------------------------------------------------------------------------------

/// What one kernel uses per thread and per block.
struct KernelResources {
    int registers_per_thread = 0;
    std::size_t static_shared_bytes = 0;
    std::size_t reserved_shared_bytes = 0;  ///< shared memory the system reserves per block
    int max_threads_per_block = 0;          ///< for this kernel (registers can lower it)
};

/// The units in which an SM hands out registers and shared memory. The runtime does not report
/// them; they are architectural constants, the same ones the CUDA Occupancy Calculator and the
/// toolkit's own `cuda_occupancy.h` (cudaOccRegAllocationGranularity,
/// cudaOccSubPartitionsPerMultiprocessor, cudaOccSMemAllocationGranularity) use.
struct AllocationUnits {
    int registers_per_warp_unit = 256;  ///< a warp's registers come in multiples of this (cc 3-12)
    int schedulers_per_sm = 4;  ///< SM sub-partitions, each with its own register file (cc 7-12)
    int max_registers_per_thread = 255;  ///< what ptxas can assign to one thread
    int shared_memory_unit = 128;        ///< bytes; 256 on cc 7.x, 128 from cc 8.0 on
};

/// The allocation units of a GPU of compute capability `cc_major`.x.
AllocationUnits allocation_units(int cc_major);

/// How many blocks of a shape fit on one SM, by each resource on its own, in the units the
/// hardware allocates.
struct OccupancyLimits {
    int by_warps = 0;   ///< max warps per SM / warps per block
    int by_blocks = 0;  ///< the device's resident-block limit
    /// Warps that fit in one scheduler's register file x schedulers, / warps per block; 0 when
    /// one block does not fit at all.
    int by_registers = 0;
    int by_shared_memory = 0;           ///< shared memory per SM / (static + reserved, rounded)
    int registers_per_warp = 0;         ///< registers x warp size, rounded up to the unit
    int warps_per_sm_by_registers = 0;  ///< whole warps per scheduler x schedulers
    /// The smallest of the four: the model's answer, to compare with the runtime's.
    int modeled_blocks() const;
};

/// The per-resource limits from the device's figures and the allocation units of its compute
/// capability. Registers: each warp gets registers x warp size rounded up to 256 (12 registers
/// per thread cost 16); the SM's register file is split between its 4 schedulers, so only
/// whole warps per scheduler count; and a block must fit in regsPerBlock with its warps rounded up
/// to a multiple of 4. cudaOccupancyMaxActiveBlocksPerMultiprocessor must give the same answer.
OccupancyLimits occupancy_limits(const BlockShape& block, const KernelResources& resources,
                                 const cudatutorial::DeviceInfo& device);

/// The textbook's formula, registers per SM / (registers per thread x threads per block): no
/// allocation units. Kept only to show how far off it is.
int blocks_by_registers_without_units(const BlockShape& block, int registers_per_thread,
                                      const cudatutorial::DeviceInfo& device);

/// The resource(s) whose limit equals `active_blocks` ("warps", "blocks", "registers",
/// "shared memory", joined with " & "), or a note when none does.
std::string limiting_resource(const OccupancyLimits& limits, int active_blocks);

/// Theoretical occupancy of one kernel at one block shape.
struct Occupancy {
    BlockShape block;
    bool launchable = false;        ///< false: the shape is over a device or kernel limit
    std::string why_not;            ///< the limit it breaks, when not launchable
    int active_blocks_per_sm = 0;   ///< cudaOccupancyMaxActiveBlocksPerMultiprocessor
    int modeled_blocks_per_sm = 0;  ///< limits.modeled_blocks(): must equal the runtime's
    int active_warps_per_sm = 0;    ///< active blocks x warps per block
    int max_warps_per_sm = 0;
    double percent = 0;  ///< 100 x active warps / max warps
    OccupancyLimits limits;
    std::string limited_by;
    KernelResources resources;
};

/// Which limit a block shape breaks on `device` for a kernel allowing `kernel_max_threads`
/// threads per block, or empty when it is launchable.
std::string block_shape_problem(const BlockShape& block, const cudatutorial::DeviceInfo& device,
                                int kernel_max_threads);

/// Registers, shared memory and block limit of any kernel (cudaFuncGetAttributes).
KernelResources kernel_resources(const void* kernel);

/// Theoretical occupancy of `kernel` for `block` on the current device: the modeled limits and
/// the runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor, side by side.
Occupancy kernel_occupancy(const void* kernel, const BlockShape& block,
                           const cudatutorial::DeviceInfo& device);

/// Registers, shared memory and block limit of the matrix-sum kernel (cudaFuncGetAttributes).
KernelResources matrix_sum_resources();

/// Theoretical occupancy of the matrix-sum kernel for `block` on the current device.
Occupancy matrix_sum_occupancy(const BlockShape& block, const cudatutorial::DeviceInfo& device);

// ---------------------------------------------------------------------------------------------
// The 2D matrix sum
// ---------------------------------------------------------------------------------------------

/// The grid that covers an nx x ny matrix with blocks of `block` (ceil division per dimension).
BlockShape grid_for(int nx, int ny, const BlockShape& block);

/// C = A + B for row-major nx x ny float matrices, one thread per element, 2D grid of 2D blocks.
/// Throws cudatutorial::CudaError when the launch is rejected (a block over the device's limits
/// gives cudaErrorInvalidConfiguration, one dimension over its own limit cudaErrorInvalidValue).
void sum_matrix_2d(const float* a, const float* b, float* c, int nx, int ny,
                   const BlockShape& block, cudaStream_t stream = nullptr);

/// Compares `c` with a + b element by element (exactly: one float addition rounds the same on
/// the CPU and the GPU). Reports the first mismatch as (ix, iy).
cudatutorial::Verification verify_matrix_sum(const float* a, const float* b, const float* c, int nx,
                                             int ny);

/// The textbook's 15 block shapes, in its order: (32,32) ... (256,8).
std::vector<BlockShape> textbook_block_shapes();

/// Parses "--blocks" items such as "32x32" or "256x1". Every item must contain an 'x': the items
/// arrive split at commas, so "32,32" would otherwise become two 32 x 1 shapes. Throws
/// cudatutorial::UsageError on an item without 'x', a bad extent, a 3D shape or an empty list.
std::vector<BlockShape> parse_block_list(const std::vector<std::string>& items);

/// Device memory the matrix sum needs for an nx x ny problem: A, B and C, nx * ny floats each.
constexpr std::size_t matrix_sum_device_bytes(int nx, int ny) {
    return 3 * sizeof(float) * static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
}

/// Throws cudatutorial::UsageError (exit code 2) when the three matrices of an nx x ny matrix sum
/// do not fit in the current device's free memory. main() calls it before any section launches a
/// kernel; run_matrix_sum_sweep() calls it again for callers that skip main().
void require_matrix_sum_memory(int nx, int ny);

/// Runs the matrix sum for every shape in `shapes` on an nx x ny problem (random inputs from
/// `seed`) and adds one row per shape to `table`, timed with its options: timed and verified, or,
/// for a shape the device rejects, an untimed row with the launch error (skipped when this
/// program predicted the rejection, a failure when it did not; the sweep goes on). Rows carry
/// the extra columns grid, warps/block, theor. occ. and limited by.
void run_matrix_sum_sweep(cudatutorial::TableRun& table, int nx, int ny,
                          const std::vector<BlockShape>& shapes,
                          const cudatutorial::DeviceInfo& device, std::uint64_t seed);

/// Bytes one matrix sum moves: two reads and one write of nx * ny floats.
constexpr double matrix_sum_bytes(int nx, int ny) {
    return 3.0 * sizeof(float) * static_cast<double>(nx) * static_cast<double>(ny);
}

// ---------------------------------------------------------------------------------------------
// Profiling
// ---------------------------------------------------------------------------------------------

/// The Nsight Compute commands and metrics that replace the textbook's nvprof metrics, as text
/// (printed by --profile-help). `program` is the executable path to put in the commands.
std::string profiling_help(const std::string& program);

}  // namespace execution_model
