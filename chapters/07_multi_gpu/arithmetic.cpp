// The arithmetic of chapter 7 that needs no GPU: shards, the ring schedule, nccl-tests' bandwidth
// formulas and the all-reduce inputs. Tested on CI (tests/07_multi_gpu/arithmetic_test.cpp).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "cudatutorial/data.hpp"
#include "multi_gpu.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

Range split_range(std::size_t n, int parts, int index, std::size_t granule) {
    if (parts < 1 || index < 0 || index >= parts || granule == 0) {
        throw std::invalid_argument(
            "split_range: need parts >= 1, 0 <= index < parts, granule >= 1");
    }
    // Whole granules are shared out (the last granule may be partial); the first `extra` parts
    // take one granule more than the others.
    const std::size_t units = (n + granule - 1) / granule;
    const std::size_t count = static_cast<std::size_t>(parts);
    const std::size_t i = static_cast<std::size_t>(index);
    const std::size_t base = units / count;
    const std::size_t extra = units % count;
    const std::size_t first_unit = i * base + (i < extra ? i : extra);
    const std::size_t units_here = base + (i < extra ? 1 : 0);
    Range range;
    range.begin = std::min(n, first_unit * granule);
    range.end = std::min(n, (first_unit + units_here) * granule);
    return range;
}

RingStep ring_step(int gpus, int gpu, int step) {
    if (gpus < 1 || gpu < 0 || gpu >= gpus || step < 0 || step >= ring_steps(gpus)) {
        throw std::invalid_argument("ring_step: gpu " + std::to_string(gpu) + ", step " +
                                    std::to_string(step) + " out of range for " +
                                    std::to_string(gpus) + " GPUs");
    }
    const auto wrap = [gpus](int value) { return ((value % gpus) + gpus) % gpus; };
    RingStep result;
    result.sender = wrap(gpu - 1);
    if (step < gpus - 1) {
        result.reduce = true;
        result.chunk = wrap(gpu - 1 - step);
    } else {
        result.reduce = false;
        result.chunk = wrap(gpu - (step - (gpus - 1)));
    }
    return result;
}

double algorithm_bandwidth_gbs(double bytes, double ms) {
    return ms > 0.0 ? bytes / (ms * 1e-3) / 1e9 : 0.0;
}

double allreduce_bus_bandwidth_gbs(double algorithm_gbs, int gpus) {
    return gpus > 1 ? algorithm_gbs * 2.0 * (gpus - 1) / gpus : 0.0;
}

float allreduce_input_value(std::uint64_t seed, int gpu, std::size_t index) {
    // A different stream of values per GPU; 17 values, -8..8, all exact in float.
    const std::uint64_t bits =
        ct::hash64(seed ^ (0xA24BAED4963EE407ull * static_cast<std::uint64_t>(gpu + 1)), index);
    return static_cast<float>(static_cast<int>(ct::bounded(bits, 17)) - 8);
}

float allreduce_expected_value(std::uint64_t seed, int gpus, std::size_t index) {
    // Integer accumulation: the exact sum, whatever order the GPUs add in.
    long long sum = 0;
    for (int g = 0; g < gpus; ++g) {
        sum += static_cast<long long>(allreduce_input_value(seed, g, index));
    }
    return static_cast<float>(sum);
}

std::vector<float> allreduce_input(std::uint64_t seed, int gpu, std::size_t n) {
    std::vector<float> values(n);
    ct::parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            values[i] = allreduce_input_value(seed, gpu, i);
        }
    });
    return values;
}

std::vector<float> allreduce_expected(std::uint64_t seed, int gpus, std::size_t n) {
    std::vector<float> values(n);
    ct::parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            values[i] = allreduce_expected_value(seed, gpus, i);
        }
    });
    return values;
}

const char* copy_path_name(CopyPath path) {
    switch (path) {
        case CopyPath::kHostStaged:
            return "host_staged";
        case CopyPath::kPeerNoAccess:
            return "peer_no_access";
        case CopyPath::kPeerAccess:
            return "peer_access";
        case CopyPath::kPeerBidirectional:
            return "peer_bidirectional";
    }
    return "?";
}

const char* combine_name(Combine combine) {
    switch (combine) {
        case Combine::kHost:
            return "host";
        case Combine::kPeer:
            return "peer";
        case Combine::kNccl:
            return "nccl";
    }
    return "?";
}

}  // namespace multi_gpu
