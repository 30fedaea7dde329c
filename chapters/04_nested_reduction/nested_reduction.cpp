// Chapter 4, host side without kernels: the launch-count formulas, input
// validation, and the pending-launch pool. Everything here except the pool runs without a GPU
// (the CPU tests check it).
#include "nested_reduction.hpp"

#include <cuda_runtime_api.h>

#include <sstream>

#include "cudatutorial/check.hpp"
#include "cudatutorial/sizes.hpp"
#include "cudatutorial/stage.hpp"
#include "nested_launchers.hpp"

namespace nested_reduction {

namespace ct = cudatutorial;

const std::vector<VersionInfo>& versions() {
    return rows::stage_list();
}

const VersionInfo& info(Version version) {
    for (const auto& entry : versions()) {
        if (entry.version == version) {
            return entry;
        }
    }
    throw std::logic_error("nested_reduction::info: unknown version");
}

std::uint64_t chunk_count(std::uint64_t n, int block) {
    if (block <= 0) {
        throw std::invalid_argument("chunk_count: block must be positive");
    }
    const auto b = static_cast<std::uint64_t>(block);
    return (n + b - 1) / b;
}

int log2_exact(std::uint64_t power_of_two) {
    if (!ct::is_power_of_two(power_of_two)) {
        throw std::invalid_argument("log2_exact: " + std::to_string(power_of_two) +
                                    " is not a power of two");
    }
    int log = 0;
    while (power_of_two > 1) {
        power_of_two >>= 1;
        ++log;
    }
    return log;
}

std::uint64_t device_launches(Version version, std::uint64_t n, int block) {
    // Levels after the first: chunk sizes B/2, B/4, ..., 2 (one-child-per-block versions) or
    // strides B/4, ..., 1 (per-level version): log2 B - 1 of them either way.
    const auto levels =
        static_cast<std::uint64_t>(log2_exact(static_cast<std::uint64_t>(block)) - 1);
    return info(version).one_child_per_block ? chunk_count(n, block) * levels : levels;
}

std::string formula_with_numbers(Version version, std::uint64_t n, int block) {
    const int log_b = log2_exact(static_cast<std::uint64_t>(block));
    std::ostringstream text;
    if (info(version).one_child_per_block) {
        text << chunk_count(n, block) << "*(" << log_b << "-1)";
    } else {
        text << log_b << "-1";
    }
    text << " = " << device_launches(version, n, block);
    return text.str();
}

std::uint64_t pending_launches_needed(Version version, std::uint64_t n, int block) {
    const std::uint64_t launches = device_launches(version, n, block);
    return launches > kDefaultPendingLaunches ? launches : kDefaultPendingLaunches;
}

std::string unsupported_reason(Version version, std::uint64_t n, int block) {
    if (n < 1 || n > kMaxN) {
        return "--n must be between 1 and " + ct::describe_size(kMaxN) + ", got " +
               std::to_string(n);
    }
    if (!ct::is_power_of_two_in(block, kMinBlock, kMaxBlock)) {
        return "--block must be a power of two between " + std::to_string(kMinBlock) + " and " +
               std::to_string(kMaxBlock) + ", got " + std::to_string(block);
    }
    if (info(version).one_child_per_block) {
        const std::uint64_t launches = device_launches(version, n, block);
        if (launches > kMaxPerBlockLaunches) {
            return "--version " + info(version).id + " launches one child per block per level: " +
                   formula_with_numbers(version, n, block) + " device launches, more than the " +
                   std::to_string(kMaxPerBlockLaunches) +
                   " this chapter allows (the textbook's 2^20 ints in blocks of 512); use a "
                   "smaller --n or a larger --block";
        }
    }
    return {};
}

void validate(Version version, std::uint64_t n, int block) {
    const std::string reason = unsupported_reason(version, n, block);
    if (!reason.empty()) {
        // Every reason starts with the option it is about ("--block must be ..."): the error
        // names it apart, as every usage error does ("--block: must be ...").
        const std::size_t space = reason.find(' ');
        throw ct::UsageError(reason.substr(0, space), reason.substr(space + 1));
    }
}

std::string describe_failures(const LaunchCounters& counters, std::size_t pool_slots) {
    if (counters.failed == 0) {
        return {};
    }
    const auto code = static_cast<cudaError_t>(counters.first_error);
    std::ostringstream text;
    text << counters.failed << " device-side launch" << (counters.failed == 1 ? "" : "es")
         << " failed (first error " << cudaGetErrorName(code) << ": " << cudaGetErrorString(code)
         << "); the partial sums those children should have written were never written";
    if (code == cudaErrorLaunchPendingCountExceeded || code == cudaErrorLaunchOutOfResources) {
        text << ". The pending-launch pool (cudaLimitDevRuntimePendingLaunchCount, now "
             << pool_slots << ") was too small: raise it with --pending-launches";
    }
    return text.str();
}

std::size_t pending_launch_pool() {
    std::size_t slots = 0;
    CT_CHECK(cudaDeviceGetLimit(&slots, cudaLimitDevRuntimePendingLaunchCount));
    return slots;
}

void set_pending_launch_pool(std::size_t slots) {
    CT_CHECK(cudaDeviceSynchronize());
    CT_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, slots));
    const std::size_t now = pending_launch_pool();
    if (now != slots) {
        throw ct::CudaError(cudaErrorInvalidValue,
                            "cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, " +
                                std::to_string(slots) + ") left the pool at " +
                                std::to_string(now));
    }
}

// --- hello world: validation and expectations ---------------------------------------------------

void validate_hello(int blocks, int threads) {
    if (blocks < 1 || blocks > kMaxHelloBlocks) {
        throw ct::UsageError("--blocks", "must be between 1 and " +
                                             std::to_string(kMaxHelloBlocks) + ", got " +
                                             std::to_string(blocks));
    }
    if (!ct::is_power_of_two_in(threads, 1, kMaxHelloThreads)) {
        throw ct::UsageError("--threads", "must be a power of two between 1 and " +
                                              std::to_string(kMaxHelloThreads) + ", got " +
                                              std::to_string(threads));
    }
}

std::vector<std::uint64_t> expected_hello_lines(int blocks, int threads) {
    std::vector<std::uint64_t> lines;
    for (int t = threads; t >= 1; t /= 2) {
        lines.push_back(static_cast<std::uint64_t>(blocks) * static_cast<std::uint64_t>(t));
    }
    return lines;
}

std::uint64_t expected_hello_launches(HelloVariant variant, int blocks, int threads) {
    const auto depths = static_cast<std::uint64_t>(log2_exact(static_cast<std::uint64_t>(threads)));
    return variant == HelloVariant::kOneBlockChildren ? static_cast<std::uint64_t>(blocks) * depths
                                                      : depths;
}

}  // namespace nested_reduction
