/// @file wide_histogram.hpp
/// @brief The wide section (--section wide): 16-bit values into up to 65,536 bins, more than one
/// block's shared memory holds. Inputs, the CPU reference, and the kernel list that the
/// executable, the tests and the README share.
///
/// Privatization (stage 3 onwards) needs a copy of every bin in each block's shared memory:
/// 65,536 bins x 4 B = 256 KiB, more than the 227 KiB a block may have on an H100. The kernels
/// here show what is left: global atomics, privatization while it fits, and thread-block
/// clusters (sm_90+), whose blocks keep one histogram spread over their SMs' shared memory and
/// reach each other's part through distributed shared memory (DSMEM).
/// @code
///   const auto host = histogram::generate_wide_input(histogram::WideDistribution::kUniform, n, 7);
///   const histogram::Histogram expected = histogram::wide_reference_histogram(host, 65536);
///   histogram::WideArgs args{d_input, n, d_bins, 65536, 256, 0, &workspace};
///   const histogram::WideKernel* kernel = histogram::find_wide_kernel("cluster4");
///   if (kernel->unsupported(args).empty()) kernel->launch(args, stream);
/// @endcode
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/stage.hpp"

#include "cudatutorial/device_buffer.hpp"
#include "histogram.hpp"
#include "wide_bin_math.hpp"

namespace histogram {

/// One input element of the wide section.
using WideValue = std::uint16_t;

/// Generated 16-bit inputs. The names are --dist's, read for 16-bit values.
enum class WideDistribution {
    kUniform,   ///< uniform random values 0..65535
    kSkewed,    ///< floor(r^4 / 2^48), r uniform 16-bit: 1/16 of the values are 0, dense low bins
    kRuns,      ///< runs of one random value, run lengths uniform in [1, kMaxRunLength]
    kOneValue,  ///< every value 0x6161 (the one-letter input read two bytes at a time)
};

/// Every wide distribution, in the order above.
const std::vector<WideDistribution>& all_wide_distributions();
/// "uniform", "skewed", "runs", "one-letter" (the --dist names).
std::string wide_distribution_name(WideDistribution distribution);
/// The inverse of wide_distribution_name; throws std::invalid_argument for any other name.
WideDistribution parse_wide_distribution(const std::string& name);

/// n values of `distribution`, deterministic for a given seed; a shorter input is a prefix of a
/// longer one with the same seed.
std::vector<WideValue> generate_wide_input(WideDistribution distribution, std::size_t n,
                                           std::uint64_t seed);

/// The CPU reference: wide_bin of every value, counted on several host threads. `bins` 1..65536.
Histogram wide_reference_histogram(const WideValue* data, std::size_t n, int bins);
inline Histogram wide_reference_histogram(const std::vector<WideValue>& data, int bins) {
    return wide_reference_histogram(data.data(), data.size(), bins);
}

/// compare_histograms for wide bins (labels are bin numbers: "bin 4096").
Comparison compare_wide_histograms(const Histogram& reference, const Histogram& result);

/// CUB's temporary storage, allocated on the first (validated, untimed) run.
struct WideWorkspace {
    CubTempStorage cub_temp;
};

/// Everything a wide kernel's launch needs.
struct WideArgs {
    const WideValue* input = nullptr;          ///< device pointer to n values
    std::size_t n = 0;                         ///< values; 0 gives an all-zero histogram
    unsigned int* histogram = nullptr;         ///< device pointer to `bins` counters
    int bins = static_cast<int>(kWideValues);  ///< 1..65536
    int block = 256;                           ///< threads per block, 1..1024 (CUB ignores it)
    /// Blocks; 0 = as many as are resident at once (capped by the work). Cluster kernels round
    /// it up to a multiple of the cluster size.
    int grid = 0;
    WideWorkspace* workspace = nullptr;  ///< needed by CUB only
};

/// The launch configuration a wide kernel used.
struct WideShape {
    int grid = 0;                  ///< blocks (0 for CUB)
    int block = 0;                 ///< threads per block (0 for CUB)
    int cluster = 0;               ///< blocks per cluster (0: not a cluster launch)
    std::size_t shared_bytes = 0;  ///< dynamic shared memory per block
    int resident_blocks = 0;       ///< blocks the GPU holds at once with this shape (0: unknown)
    /// The library that chose its own launches ("CUB"), or null.
    const char* chosen_by = nullptr;
    /// "1056 x 256" (grid x block), or "CUB's own" where a library chose.
    std::string describe() const;
};

/// One row of the wide section's table.
/// Ids "global", "private", "dsmem_atomics", "cluster1".."cluster16", and "cub" (the baseline).
struct WideNeeds {
    int cluster = 0;    ///< cluster size; 0 for the kernels without clusters
    bool slow = false;  ///< global atomics: timed with --slow-reps
    /// Why this kernel cannot run `args` on the current device ("" when it can): shared memory
    /// that does not fit, no clusters below sm_90, no cluster of that size resident. Host only.
    std::string (*unsupported)(const WideArgs& args) = nullptr;
};
/// Its launcher clears the output and computes the histogram on `stream` (asynchronous).
using WideKernel =
    cudatutorial::StageRow<WideNeeds, WideShape (*)(const WideArgs& args, cudaStream_t stream)>;

/// Every wide kernel in table order: global, private, dsmem_atomics, cluster1, 2, 4, 8, 16,
/// cub.
const std::vector<WideKernel>& wide_kernels();
/// The wide kernel with this id or name, or nullptr.
const WideKernel* find_wide_kernel(const std::string& id_or_name);

/// The kernels, one idea per file under stages/wide_*.cu.
WideShape launch_wide_global_atomics(const WideArgs& args, cudaStream_t stream);
WideShape launch_wide_privatized_shared(const WideArgs& args, cudaStream_t stream);
std::string wide_privatized_unsupported(const WideArgs& args);
/// The cluster kernel with remote atomics (wide_cluster_remote_atomics.cu), `cluster_size`
/// (1, 2, 4, 8 or 16) blocks per cluster.
WideShape launch_wide_cluster_atomics(const WideArgs& args, int cluster_size, cudaStream_t stream);
std::string wide_cluster_atomics_unsupported(const WideArgs& args, int cluster_size);
/// The cluster kernel that exchanges values (wide_cluster_exchange.cu), `cluster_size` (1, 2, 4,
/// 8 or 16) blocks per cluster.
WideShape launch_wide_cluster(const WideArgs& args, int cluster_size, cudaStream_t stream);
std::string wide_cluster_unsupported(const WideArgs& args, int cluster_size);
WideShape launch_wide_cub(const WideArgs& args, cudaStream_t stream);

/// One staging buffer of the exchange kernel, per block (it has two).
inline constexpr std::size_t kWideStageBytes = 16384;
/// A cluster block's share of the bins: slice_size(bins, log2 C) x 4 B.
std::size_t wide_cluster_slice_bytes(int bins, int cluster_size);
/// Dynamic shared memory a block of the exchange kernel needs: its slice (rounded up to 16 B)
/// and two staging buffers.
std::size_t wide_cluster_shared_bytes(int bins, int cluster_size);

}  // namespace histogram
