/// @file device_info.hpp
/// @brief What the GPU is and what it can do, read from the runtime at run time.
///
/// CUDA 13 removed several cudaDeviceProp fields the textbooks use (clockRate, memoryClockRate,
/// kernelExecTimeoutEnabled, computeMode...). Everything here is read with cudaGetDeviceProperties
/// where the field still exists and cudaDeviceGetAttribute where it does not, so the figures are
/// the running device's own: no tables of per-architecture constants.
#pragma once

#include <cstddef>
#include <string>

#include "cudatutorial/report.hpp"

namespace cudatutorial {

/// Properties and limits of one CUDA device.
struct DeviceInfo {
    int id = 0;                            ///< device ordinal
    std::string name;                      ///< marketing name, e.g. "NVIDIA H100 80GB HBM3"
    int cc_major = 0;                      ///< compute capability, major
    int cc_minor = 0;                      ///< compute capability, minor
    int sm_count = 0;                      ///< streaming multiprocessors
    int warp_size = 0;                     ///< threads per warp
    int max_threads_per_block = 0;         ///< block size limit
    int max_block_dim[3] = {0, 0, 0};      ///< per-dimension block limits
    int max_grid_dim[3] = {0, 0, 0};       ///< per-dimension grid limits
    int max_threads_per_sm = 0;            ///< resident threads per SM
    int max_warps_per_sm = 0;              ///< max_threads_per_sm / warp_size
    int max_blocks_per_sm = 0;             ///< resident blocks per SM
    std::size_t shared_mem_per_block = 0;  ///< default static+dynamic limit per block (bytes)
    std::size_t shared_mem_per_block_optin =
        0;                              ///< limit with cudaFuncAttributeMaxDynamicSharedMemorySize
    std::size_t shared_mem_per_sm = 0;  ///< shared memory per SM (bytes)
    int registers_per_block = 0;        ///< 32-bit registers available to one block
    int registers_per_sm = 0;           ///< 32-bit registers per SM
    std::size_t constant_memory = 0;    ///< constant memory (bytes)
    std::size_t global_memory = 0;      ///< device memory (bytes)
    int l2_cache_bytes = 0;             ///< L2 cache size (bytes)
    int sm_clock_khz = 0;               ///< peak SM clock (kHz), 0 if not reported
    int memory_clock_khz = 0;           ///< peak memory clock (kHz), 0 if not reported
    int memory_bus_width_bits = 0;      ///< memory bus width (bits), 0 if not reported
    int async_engine_count = 0;         ///< copy engines that can overlap with kernels
    bool concurrent_kernels = false;    ///< can run kernels of different streams at once
    bool integrated = false;            ///< shares memory with the host (Jetson, laptops' iGPU)
    int runtime_version = 0;            ///< CUDA runtime version, e.g. 13000
    int driver_version = 0;             ///< highest CUDA version the driver supports, e.g. 13000
    std::string driver_release;         ///< the NVIDIA driver's own version, e.g. "580.95.05"

    /// "9.0"
    std::string compute_capability() const;
    /// Theoretical DRAM bandwidth in GB/s (10^9 bytes per second); 0 when the device does not
    /// report its memory clock or bus width.
    double theoretical_bandwidth_gbs() const;
};

/// Theoretical DRAM bandwidth: 2 transfers per clock (double data rate) x clock x bus width / 8,
/// in GB/s (10^9 bytes/s). `memory_clock_khz` is what cudaDevAttrMemoryClockRate reports.
double theoretical_bandwidth_gbs(int memory_clock_khz, int memory_bus_width_bits);

/// The theoretical DRAM bandwidth of `device` (GB/s) from its two attributes alone, without the
/// rest of query_device(): cheap enough for a launch path. 0 when either is not reported.
double device_bandwidth_gbs(int device);

/// "13.0" from the runtime/driver encoding 13000.
std::string cuda_version_string(int encoded_version);

/// Number of usable CUDA devices; 0 (never an exception) when there is no GPU or no driver.
int cuda_device_count();

/// The NVIDIA driver's own version ("580.95.05"), read from NVML (libnvidia-ml, loaded at run
/// time if present) or else from /proc/driver/nvidia/version; empty when neither is available.
/// Not the CUDA version the driver supports: that is cudaDriverGetVersion's "13.0".
std::string nvidia_driver_release();

/// What a student should read when no GPU can be used, for the CUDA error `code` that said so
/// (cudaErrorNoDevice, cudaErrorInsufficientDriver): no GPU, no driver, or a driver older than
/// this program's CUDA runtime, in plain words, on one line: where to find a GPU (the README's
/// "Your machine") and what still runs without one.
std::string no_device_message(int code);

/// Reads the properties of device `device`. Throws NoDeviceError when there is no CUDA device and
/// UsageError when `device` is not a valid ordinal.
DeviceInfo query_device(int device);

/// Makes `device` current (cudaSetDevice) and returns its properties; same errors as query_device.
DeviceInfo select_device(int device);

/// Free device memory on the current device, in bytes.
std::size_t free_device_memory();

/// Throws UsageError, naming `what`, the bytes asked and the bytes free, when `bytes` of new
/// allocations would not fit in the current device's free memory (with a small reserve).
void require_device_memory(std::size_t bytes, const std::string& what);

/// "1.50 GiB", "32.0 MiB", "512 B"
std::string format_bytes(double bytes);

/// A RunInfo filled from the device and the clock.
RunInfo make_run_info(const std::string& program, const std::string& title,
                      const DeviceInfo& device);

}  // namespace cudatutorial
