// Device-side pieces the wide kernels share: one way of reading 16-bit values (16-byte loads,
// several in flight per thread), so that the wide kernels differ only in where they count, the
// occupancy and attribute bookkeeping of their launches, and the cluster launch itself
// (cluster_shape, launch_clusters), written once for both cluster kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "histogram_device.cuh"
#include "wide_histogram.hpp"

namespace histogram::detail {

/// 16-byte loads in flight per thread (stage 7's coarsening): 32 values per thread per step.
inline constexpr int kWideVectorsPerThread = 4;
/// Values per 16-byte load.
inline constexpr int kValuesPerVector = 8;

/// How 16-byte loads cover n values at `input`: `head` values before the first 16-byte-aligned
/// address, `vectors` aligned loads, and the values from `tail_begin` on, read one by one.
struct WideSplit {
    std::size_t head = 0;
    std::size_t vectors = 0;
    std::size_t tail_begin = 0;
};

__host__ __device__ inline WideSplit split_wide_for_vectors(const WideValue* input, std::size_t n) {
    WideSplit split;
    const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(input) % 16;
    split.head = misalignment ? (16 - misalignment) / sizeof(WideValue) : 0;
    if (split.head > n) {
        split.head = n;
    }
    split.vectors = (n - split.head) / kValuesPerVector;
    split.tail_begin = split.head + split.vectors * kValuesPerVector;
    return split;
}

template <typename Count>
__device__ __forceinline__ void count_wide_vector(const uint4& v, const Count& count) {
    count(v.x & 0xFFFFu);
    count(v.x >> 16);
    count(v.y & 0xFFFFu);
    count(v.y >> 16);
    count(v.z & 0xFFFFu);
    count(v.z >> 16);
    count(v.w & 0xFFFFu);
    count(v.w >> 16);
}

/// Calls count(value) for every value of input[0, n), spread over the whole grid: tiles of
/// kWideVectorsPerThread x blockDim 16-byte loads per block (a warp's load reads 512 adjacent
/// bytes), then the unaligned head and the tail one value per thread.
template <typename Count>
__device__ __forceinline__ void count_wide_input(const WideValue* __restrict__ input, std::size_t n,
                                                 const Count& count) {
    const WideSplit split = split_wide_for_vectors(input, n);
    const uint4* __restrict__ vectors = reinterpret_cast<const uint4*>(input + split.head);
    const std::size_t tile = static_cast<std::size_t>(blockDim.x) * kWideVectorsPerThread;
    for (std::size_t base = blockIdx.x * tile; base < split.vectors; base += gridDim.x * tile) {
        if (base + tile <= split.vectors) {
            uint4 loaded[kWideVectorsPerThread];
#pragma unroll
            for (int j = 0; j < kWideVectorsPerThread; ++j) {
                loaded[j] = vectors[base + j * blockDim.x + threadIdx.x];
            }
#pragma unroll
            for (int j = 0; j < kWideVectorsPerThread; ++j) {
                count_wide_vector(loaded[j], count);
            }
        } else {
            for (int j = 0; j < kWideVectorsPerThread; ++j) {
                const std::size_t v = base + j * blockDim.x + threadIdx.x;
                if (v < split.vectors) {
                    count_wide_vector(vectors[v], count);
                }
            }
        }
    }
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = thread; i < split.head; i += threads) {
        count(static_cast<unsigned>(input[i]));
    }
    for (std::size_t i = split.tail_begin + thread; i < n; i += threads) {
        count(static_cast<unsigned>(input[i]));
    }
}

/// Blocks that give every thread at least one 16-byte load's worth of values (never 0).
inline std::size_t wide_work_items(std::size_t n) {
    return (n + kValuesPerVector - 1) / kValuesPerVector;
}

/// Zeroes the output: every launch computes the whole histogram from scratch.
inline void clear_wide_histogram(const WideArgs& args, cudaStream_t stream) {
    CT_CHECK(cudaMemsetAsync(args.histogram, 0,
                             static_cast<std::size_t>(args.bins) * sizeof(unsigned int), stream));
}

/// The current device's properties that the wide launches consult, read once per device: host
/// time before a launch lands in the timed interval.
struct WideDeviceLimits {
    int device = 0;
    int cc_major = 0;
    int cc_minor = 0;
    int sm_count = 0;
    std::size_t shared_per_block_optin = 0;  ///< bytes a block may have after opting in
};
WideDeviceLimits wide_device_limits();

/// Lets `kernel` use up to the device's opt-in shared memory per block (above the default 48 KiB)
/// and, when `clusters` (sm_90+ only), clusters beyond the portable 8 blocks. Once per kernel and
/// device.
void allow_large_shared_and_clusters(const void* kernel, bool clusters);

/// A launch configuration with `cluster_size` blocks per cluster along x (cudaLaunchKernelEx).
/// `attribute` must outlive the returned configuration.
cudaLaunchConfig_t cluster_launch_config(unsigned grid, int block, std::size_t shared,
                                         int cluster_size, cudaStream_t stream,
                                         cudaLaunchAttribute& attribute);

/// How many clusters of this shape of `kernel` the GPU holds at once (0: none fits, or the
/// shape cannot launch at all), from cudaOccupancyMaxActiveClusters. Cached per kernel, shape
/// and device: the query costs host time.
int max_active_clusters(const void* kernel, int block, std::size_t shared, int cluster_size);

/// The shape of a cluster launch of `kernel` for `args`: `cluster_size` blocks per cluster of
/// args.block threads, `shared` bytes of dynamic shared memory per block, and the blocks the GPU
/// holds at once in such clusters (0: none fits). The grid is left 0: it depends on how the
/// kernel divides its work (cluster_grid).
WideShape cluster_shape(const void* kernel, const WideArgs& args, int cluster_size,
                        std::size_t shared);

/// Launches `kernel` with `shape` (grid, block, cluster size, dynamic shared memory) on
/// `stream`: the cluster size is a launch attribute of cudaLaunchKernelEx, not a compile-time
/// __cluster_dims__, so one kernel serves every size.
template <typename... Params, typename... Args>
void launch_clusters(void (*kernel)(Params...), const WideShape& shape, cudaStream_t stream,
                     Args... args) {
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config =
        cluster_launch_config(static_cast<unsigned>(shape.grid), shape.block, shape.shared_bytes,
                              shape.cluster, stream, attribute);
    CT_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
    CT_CHECK_LAUNCH();
}

/// Why a cluster kernel needing `shared` bytes per block cannot run here ("" when it can).
std::string cluster_unsupported_reason(const void* kernel, int block, std::size_t shared,
                                       int cluster_size, const std::string& what_needs_it);

/// The grid of a cluster launch: `requested` blocks rounded up to whole clusters, or (0) as many
/// clusters as are resident at once, but no more than `clusters_needed`. A multiple of
/// cluster_size, never 0.
int cluster_grid(int requested, int resident_clusters, std::size_t clusters_needed,
                 int cluster_size);

}  // namespace histogram::detail
