// The wide section's host side: 16-bit inputs, the CPU reference, the comparison, and the kernel
// list (the kernels are in stages/wide_*.cu).
#include "wide_histogram.hpp"

#include <algorithm>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "cudatutorial/data.hpp"

namespace histogram {

namespace ct = cudatutorial;

namespace {
const ct::NameTable<WideDistribution>& wide_distributions() {
    static const ct::NameTable<WideDistribution> table = {
        {WideDistribution::kUniform, "uniform"},
        {WideDistribution::kSkewed, "skewed"},
        {WideDistribution::kRuns, "runs"},
        {WideDistribution::kOneValue, "one-letter"}};
    return table;
}
}  // namespace

const std::vector<WideDistribution>& all_wide_distributions() {
    static const std::vector<WideDistribution> list = wide_distributions().values();
    return list;
}

std::string wide_distribution_name(WideDistribution distribution) {
    return wide_distributions().name(distribution);
}

WideDistribution parse_wide_distribution(const std::string& name) {
    return wide_distributions().parse(name, "16-bit distribution");
}

std::vector<WideValue> generate_wide_input(WideDistribution distribution, std::size_t n,
                                           std::uint64_t seed) {
    std::vector<WideValue> data(n);
    switch (distribution) {
        case WideDistribution::kUniform:
            ct::parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) {
                    data[i] = static_cast<WideValue>(ct::hash64(seed, i) >> 48);
                }
            });
            break;
        case WideDistribution::kSkewed:
            // r^4 / 2^48 in integers (r^4 < 2^64): the density of u^4, P(value < v) =
            // (v / 65536)^(1/4). Bin 0 of 65,536 gets 1/16 of all values, the top half 16%.
            ct::parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) {
                    const std::uint64_t r = ct::hash64(seed, i) >> 48;
                    data[i] = static_cast<WideValue>((r * r * r * r) >> 48);
                }
            });
            break;
        case WideDistribution::kRuns: {
            std::size_t position = 0;
            for (std::uint64_t run = 0; position < n; ++run) {
                const std::size_t length =
                    1 + ct::bounded(ct::hash64(seed, 2 * run),
                                    static_cast<std::uint32_t>(kMaxRunLength));
                const auto value = static_cast<WideValue>(ct::hash64(seed, 2 * run + 1) >> 48);
                const std::size_t end = std::min(n, position + length);
                std::fill(data.begin() + static_cast<std::ptrdiff_t>(position),
                          data.begin() + static_cast<std::ptrdiff_t>(end), value);
                position = end;
            }
            break;
        }
        case WideDistribution::kOneValue:
            std::fill(data.begin(), data.end(), WideValue{0x6161});
            break;
    }
    return data;
}

Histogram wide_reference_histogram(const WideValue* data, std::size_t n, int bins) {
    if (bins < 1 || bins > static_cast<int>(kWideValues)) {
        throw std::invalid_argument("wide_reference_histogram: bins must be 1..65536, not " +
                                    std::to_string(bins));
    }
    Histogram total(static_cast<std::size_t>(bins), 0u);
    std::mutex mutex;
    ct::parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        Histogram part(total.size(), 0u);
        for (std::size_t i = begin; i < end; ++i) {
            ++part[wide_bin(data[i], static_cast<unsigned>(bins))];
        }
        const std::lock_guard<std::mutex> lock(mutex);
        for (std::size_t b = 0; b < total.size(); ++b) {
            total[b] += part[b];
        }
    });
    return total;
}

std::string WideShape::describe() const {
    return chosen_by != nullptr ? std::string(chosen_by) + "'s own"
                                : std::to_string(grid) + " x " + std::to_string(block);
}

Comparison compare_wide_histograms(const Histogram& reference, const Histogram& result) {
    return compare_counts(reference, result, [](int bin) { return "bin " + std::to_string(bin); });
}

namespace {

// One plain function per cluster size: the kernel list holds function pointers.
template <int kCluster>
WideShape launch_cluster(const WideArgs& args, cudaStream_t stream) {
    return launch_wide_cluster(args, kCluster, stream);
}

template <int kCluster>
std::string cluster_unsupported(const WideArgs& args) {
    return wide_cluster_unsupported(args, kCluster);
}

// The remote-atomics kernel is shown with clusters of 2: the one size where its slice (128 KiB
// at 65,536 bins) is large and its share of remote atomics (1 in 2) the smallest.
WideShape launch_remote_atomics(const WideArgs& args, cudaStream_t stream) {
    return launch_wide_cluster_atomics(args, 2, stream);
}

std::string remote_atomics_unsupported(const WideArgs& args) {
    return wide_cluster_atomics_unsupported(args, 2);
}

std::string always_supported(const WideArgs&) {
    return {};
}

}  // namespace

const std::vector<WideKernel>& wide_kernels() {
    static const std::vector<WideKernel> list = {
        WideKernel("global", "wide_global_atomics",
                   "every value one atomicAdd on the global histogram (executed in L2)")
            .with_launcher(launch_wide_global_atomics)
            .with(&WideNeeds::unsupported, always_supported)
            .with(&WideNeeds::slow, true),
        WideKernel("private", "wide_privatized_shared",
                   "stage 3's idea: all bins in each block's shared memory, merged once; only "
                   "while they fit")
            .with_launcher(launch_wide_privatized_shared)
            .with(&WideNeeds::unsupported, wide_privatized_unsupported),
        WideKernel("dsmem_atomics", "wide_cluster_remote_atomics_x2",
                   "one histogram per cluster of 2 blocks, half the bins each; every value an "
                   "atomicAdd through DSMEM (map_shared_rank)")
            .with_launcher(launch_remote_atomics)
            .with(&WideNeeds::unsupported, remote_atomics_unsupported)
            .with(&WideNeeds::cluster, 2),
        WideKernel("cluster1", "wide_cluster_exchange_x1",
                   "the exchange kernel with clusters of one block: privatization plus staging")
            .with_launcher(launch_cluster<1>)
            .with(&WideNeeds::unsupported, cluster_unsupported<1>)
            .with(&WideNeeds::cluster, 1),
        WideKernel("cluster2", "wide_cluster_exchange_x2",
                   "clusters of 2 blocks, each owning every 2nd bin; blocks stage input, read each "
                   "other's over DSMEM, count their own bins locally")
            .with_launcher(launch_cluster<2>)
            .with(&WideNeeds::unsupported, cluster_unsupported<2>)
            .with(&WideNeeds::cluster, 2),
        WideKernel("cluster4", "wide_cluster_exchange_x4", "the same with 4 blocks per cluster")
            .with_launcher(launch_cluster<4>)
            .with(&WideNeeds::unsupported, cluster_unsupported<4>)
            .with(&WideNeeds::cluster, 4),
        WideKernel("cluster8", "wide_cluster_exchange_x8",
                   "the same with 8 blocks, the largest portable cluster size")
            .with_launcher(launch_cluster<8>)
            .with(&WideNeeds::unsupported, cluster_unsupported<8>)
            .with(&WideNeeds::cluster, 8),
        WideKernel("cluster16", "wide_cluster_exchange_x16",
                   "the same with 16 blocks (non-portable: opted in per kernel)")
            .with_launcher(launch_cluster<16>)
            .with(&WideNeeds::unsupported, cluster_unsupported<16>)
            .with(&WideNeeds::cluster, 16),
        WideKernel("cub", "cub_histogram_even",
                   "CUB DeviceHistogram::HistogramEven over 16-bit samples")
            .with_launcher(launch_wide_cub)
            .with(&WideNeeds::unsupported, always_supported)
            .with_role(ct::StageRole::kBaseline),
    };
    return list;
}

const WideKernel* find_wide_kernel(const std::string& id_or_name) {
    return cudatutorial::find_stage_in(wide_kernels(), id_or_name);
}

std::size_t wide_cluster_slice_bytes(int bins, int cluster_size) {
    return static_cast<std::size_t>(slice_size(
               static_cast<unsigned>(bins), cluster_shift(static_cast<unsigned>(cluster_size)))) *
           sizeof(unsigned int);
}

}  // namespace histogram
