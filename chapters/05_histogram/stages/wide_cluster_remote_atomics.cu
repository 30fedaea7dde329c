// Wide 3 - one histogram per thread-block cluster, spread over the cluster's shared memories
// (sm_90+: cooperative_groups::this_cluster, distributed shared memory).
//
// Changed from wide 2: a cluster of C blocks (C = 1, 2, 4, 8, or 16 with the non-portable opt-in)
// runs on C SMs of one GPC at the same time, and each block can read, write and atomically update
// the other blocks' shared memory (DSMEM) through cluster.map_shared_rank(). So the cluster keeps
// ONE copy of the histogram, each block holding bins / C of it: bin b lives in block b mod C at
// offset b / C (wide_bin_math.hpp). 65,536 bins cost 256 KiB / C per block: 128 KiB with C = 2,
// which fits where privatization (256 KiB) cannot, and 32 KiB with C = 8, seven blocks per SM.
// Every value is one shared-memory atomic, local (1 in C) or remote over the SM-to-SM network
// (C - 1 in C); a remote atomic costs more than a local ATOMS but never leaves the GPC and
// never touches L2. The merge is `bins` global atomics per cluster instead of per block.
//
// Two cluster.sync() calls: after clearing (no block may count into a slice its owner has not
// zeroed yet), and after counting (every remote atomic into my slice has landed before I merge
// it, and no block exits, freeing its shared memory, while another still writes into it).
// What to look for: at 65,536 bins the cluster rows against global atomics and CUB; across C,
// more blocks per SM (occupancy) against more remote traffic; cluster1 against `private` (the
// same algorithm, so the cost of the cluster machinery).
#include <cooperative_groups.h>

#include <map>
#include <mutex>
#include <tuple>

#include "wide_device.cuh"

namespace cg = cooperative_groups;

namespace histogram {

namespace {

__global__ void wide_cluster_kernel(const WideValue* __restrict__ input, std::size_t n,
                                    unsigned int* histo, unsigned bins, unsigned shift) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ unsigned int slice_s[];
    const cg::cluster_group cluster = cg::this_cluster();
    const unsigned slice = slice_size(bins, shift);
    for (unsigned o = threadIdx.x; o < slice; o += blockDim.x) {
        slice_s[o] = 0;
    }
    cluster.sync();

    detail::count_wide_input(input, n, [&](unsigned value) {
        const BinOwner owner = bin_owner(wide_bin(value, bins), shift);
        atomicAdd(cluster.map_shared_rank(slice_s, owner.rank) + owner.offset, 1u);
    });
    cluster.sync();

    const unsigned rank = cluster.block_rank();
    for (unsigned o = threadIdx.x; o < slice; o += blockDim.x) {
        const unsigned bin = owned_bin(rank, o, shift);
        const unsigned int count = slice_s[o];
        if (bin < bins && count != 0) {
            atomicAdd(&histo[bin], count);
        }
    }
#else
    // Below sm_90 there are no clusters; the host never launches this (wide_cluster_unsupported).
    (void)input, (void)n, (void)histo, (void)bins, (void)shift;
#endif
}

cudaLaunchConfig_t cluster_config(dim3 grid, int block, std::size_t shared,
                                  cudaLaunchAttribute& attribute, int cluster_size,
                                  cudaStream_t stream) {
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = static_cast<unsigned>(cluster_size);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = dim3(static_cast<unsigned>(block));
    config.dynamicSmemBytes = shared;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    return config;
}

void prepare_kernel(int cluster_size) {
    detail::allow_large_shared_and_clusters(reinterpret_cast<const void*>(wide_cluster_kernel),
                                            cluster_size > 8);
}

// How many clusters of this shape the GPU holds at once (0: none fits), cached per shape and
// device: the query costs host time.
int max_active_clusters(int block, std::size_t shared, int cluster_size) {
    using Key = std::tuple<int, std::size_t, int, int>;
    static std::map<Key, int> cache;
    static std::mutex mutex;
    const Key key{block, shared, cluster_size, detail::wide_device_limits().device};
    {
        const std::lock_guard<std::mutex> lock(mutex);
        const auto found = cache.find(key);
        if (found != cache.end()) {
            return found->second;
        }
    }
    prepare_kernel(cluster_size);
    cudaLaunchAttribute attribute{};
    const cudaLaunchConfig_t config = cluster_config(
        dim3(static_cast<unsigned>(cluster_size)), block, shared, attribute, cluster_size, nullptr);
    int clusters = 0;
    const cudaError_t status =
        cudaOccupancyMaxActiveClusters(&clusters, wide_cluster_kernel, &config);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();  // a shape that cannot launch at all: report it as 0 clusters
        clusters = 0;
    }
    const std::lock_guard<std::mutex> lock(mutex);
    cache.emplace(key, clusters);
    return clusters;
}

}  // namespace

std::string wide_cluster_unsupported(const WideArgs& args, int cluster_size) {
    const detail::WideDeviceLimits limits = detail::wide_device_limits();
    if (limits.cc_major < 9) {
        return "thread-block clusters need compute capability 9.0; this GPU has " +
               std::to_string(limits.cc_major) + "." + std::to_string(limits.cc_minor);
    }
    const std::size_t shared = wide_cluster_shared_bytes(args.bins, cluster_size);
    if (shared > limits.shared_per_block_optin) {
        return "a block's slice, " + std::to_string(args.bins) + " bins / " +
               std::to_string(cluster_size) + " x 4 B = " + std::to_string(shared) +
               " B, is more shared memory than the " +
               std::to_string(limits.shared_per_block_optin) + " B a block may have";
    }
    if (max_active_clusters(args.block, shared, cluster_size) == 0) {
        return "cudaOccupancyMaxActiveClusters: no cluster of " + std::to_string(cluster_size) +
               " blocks of " + std::to_string(args.block) + " threads and " +
               std::to_string(shared) + " B of shared memory fits on this GPU";
    }
    return {};
}

WideShape launch_wide_cluster(const WideArgs& args, int cluster_size, cudaStream_t stream) {
    detail::clear_wide_histogram(args, stream);
    const unsigned shift = cluster_shift(static_cast<unsigned>(cluster_size));
    WideShape shape;
    shape.block = args.block;
    shape.cluster = cluster_size;
    shape.shared_bytes = wide_cluster_shared_bytes(args.bins, cluster_size);
    const int resident = max_active_clusters(args.block, shape.shared_bytes, cluster_size);
    shape.resident_blocks = resident * cluster_size;
    if (args.n == 0) {
        return shape;
    }
    if (resident == 0) {
        throw std::runtime_error("launch_wide_cluster: " +
                                 wide_cluster_unsupported(args, cluster_size));
    }
    std::size_t clusters = 0;
    if (args.grid > 0) {
        clusters = (static_cast<std::size_t>(args.grid) + cluster_size - 1) / cluster_size;
    } else {
        const std::size_t blocks_needed =
            (detail::wide_work_items(args.n) + args.block - 1) / args.block;
        const std::size_t clusters_needed = (blocks_needed + cluster_size - 1) / cluster_size;
        clusters =
            std::max<std::size_t>(1, std::min(static_cast<std::size_t>(resident), clusters_needed));
    }
    shape.grid = static_cast<int>(clusters) * cluster_size;
    cudaLaunchAttribute attribute{};
    const cudaLaunchConfig_t config =
        cluster_config(dim3(static_cast<unsigned>(shape.grid)), args.block, shape.shared_bytes,
                       attribute, cluster_size, stream);
    CT_CHECK(cudaLaunchKernelEx(&config, wide_cluster_kernel, args.input, args.n, args.histogram,
                                static_cast<unsigned>(args.bins), shift));
    CT_CHECK_LAUNCH();
    return shape;
}

}  // namespace histogram
