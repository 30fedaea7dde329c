// Host-side bookkeeping of the wide kernels' launches (see wide_device.cuh): device limits read
// once per device, kernel attributes set once per kernel and device, and the cluster launch
// plumbing (configuration, occupancy, the shape, why a cluster shape cannot run) both cluster
// kernels share.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

#include "wide_device.cuh"

namespace histogram::detail {

WideDeviceLimits wide_device_limits() {
    static std::map<int, WideDeviceLimits> cache;
    static std::mutex mutex;
    int device = 0;
    CT_CHECK(cudaGetDevice(&device));
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = cache.find(device);
    if (found != cache.end()) {
        return found->second;
    }
    WideDeviceLimits limits;
    limits.device = device;
    int optin = 0;
    CT_CHECK(cudaDeviceGetAttribute(&limits.cc_major, cudaDevAttrComputeCapabilityMajor, device));
    CT_CHECK(cudaDeviceGetAttribute(&limits.cc_minor, cudaDevAttrComputeCapabilityMinor, device));
    CT_CHECK(cudaDeviceGetAttribute(&limits.sm_count, cudaDevAttrMultiProcessorCount, device));
    CT_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    limits.shared_per_block_optin = static_cast<std::size_t>(optin);
    cache.emplace(device, limits);
    return limits;
}

void allow_large_shared_and_clusters(const void* kernel, bool clusters) {
    static std::set<std::pair<const void*, int>> done;
    static std::mutex mutex;
    const WideDeviceLimits limits = wide_device_limits();
    const std::lock_guard<std::mutex> lock(mutex);
    if (!done.insert({kernel, limits.device}).second) {
        return;
    }
    CT_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(limits.shared_per_block_optin)));
    if (clusters) {
        CT_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    }
}

cudaLaunchConfig_t cluster_launch_config(unsigned grid, int block, std::size_t shared,
                                         int cluster_size, cudaStream_t stream,
                                         cudaLaunchAttribute& attribute) {
    attribute = cudaLaunchAttribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = static_cast<unsigned>(cluster_size);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(static_cast<unsigned>(block));
    config.dynamicSmemBytes = shared;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    return config;
}

int max_active_clusters(const void* kernel, int block, std::size_t shared, int cluster_size) {
    using Key = std::tuple<const void*, int, std::size_t, int, int>;
    static std::map<Key, int> cache;
    static std::mutex mutex;
    const Key key{kernel, block, shared, cluster_size, wide_device_limits().device};
    {
        const std::lock_guard<std::mutex> lock(mutex);
        const auto found = cache.find(key);
        if (found != cache.end()) {
            return found->second;
        }
    }
    allow_large_shared_and_clusters(kernel, true);
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = cluster_launch_config(
        static_cast<unsigned>(cluster_size), block, shared, cluster_size, nullptr, attribute);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
        (void)cudaGetLastError();  // a shape that cannot launch at all counts as 0 clusters
        clusters = 0;
    }
    const std::lock_guard<std::mutex> lock(mutex);
    cache.emplace(key, clusters);
    return clusters;
}

WideShape cluster_shape(const void* kernel, const WideArgs& args, int cluster_size,
                        std::size_t shared) {
    WideShape shape;
    shape.block = args.block;
    shape.cluster = cluster_size;
    shape.shared_bytes = shared;
    shape.resident_blocks =
        max_active_clusters(kernel, args.block, shared, cluster_size) * cluster_size;
    return shape;
}

std::string cluster_unsupported_reason(const void* kernel, int block, std::size_t shared,
                                       int cluster_size, const std::string& what_needs_it) {
    const WideDeviceLimits limits = wide_device_limits();
    if (limits.cc_major < 9) {
        return "thread-block clusters need compute capability 9.0; this GPU has " +
               std::to_string(limits.cc_major) + "." + std::to_string(limits.cc_minor);
    }
    if (shared > limits.shared_per_block_optin) {
        return what_needs_it + " = " + std::to_string(shared) +
               " B of shared memory per block, more than the " +
               std::to_string(limits.shared_per_block_optin) + " B a block may have";
    }
    if (max_active_clusters(kernel, block, shared, cluster_size) == 0) {
        return "cudaOccupancyMaxActiveClusters: no cluster of " + std::to_string(cluster_size) +
               " blocks of " + std::to_string(block) + " threads and " + std::to_string(shared) +
               " B of shared memory fits on this GPU";
    }
    return {};
}

int cluster_grid(int requested, int resident_clusters, std::size_t clusters_needed,
                 int cluster_size) {
    std::size_t clusters = 0;
    if (requested > 0) {
        clusters = (static_cast<std::size_t>(requested) + cluster_size - 1) / cluster_size;
    } else {
        clusters = std::max<std::size_t>(
            1, std::min(static_cast<std::size_t>(resident_clusters), clusters_needed));
    }
    return static_cast<int>(clusters) * cluster_size;
}

}  // namespace histogram::detail
