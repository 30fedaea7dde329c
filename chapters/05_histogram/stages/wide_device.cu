// Host-side bookkeeping of the wide kernels' launches (see wide_device.cuh): device limits read
// once per device, kernel attributes set once per kernel and device.
#include <map>
#include <mutex>
#include <set>
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

void allow_large_shared_and_clusters(const void* kernel, bool non_portable_clusters) {
    static std::set<std::pair<const void*, int>> done;
    static std::mutex mutex;
    const WideDeviceLimits limits = wide_device_limits();
    const std::lock_guard<std::mutex> lock(mutex);
    if (!done.insert({kernel, limits.device}).second) {
        return;
    }
    CT_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(limits.shared_per_block_optin)));
    if (non_portable_clusters) {
        CT_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    }
}

}  // namespace histogram::detail
