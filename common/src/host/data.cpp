#include "cudatutorial/data.hpp"

#include <stdexcept>

namespace cudatutorial {

std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi) {
    if (lo > hi) {
        throw std::invalid_argument("random_ints: lo > hi");
    }
    const std::uint64_t range = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo) + 1;
    std::vector<int> values(n);
    parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const std::uint64_t bits = hash64(seed, i);
            // range can be 2^32 (the whole int range): then every bit pattern is fine.
            const std::uint64_t offset = range >= (1ull << 32)
                                             ? (bits >> 32)
                                             : bounded(bits, static_cast<std::uint32_t>(range));
            values[i] =
                static_cast<int>(static_cast<std::int64_t>(lo) + static_cast<std::int64_t>(offset));
        }
    });
    return values;
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
    std::vector<float> values(n);
    parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const float unit = static_cast<float>(hash64(seed, i) >> 40) * (1.0f / 16777216.0f);
            values[i] = lo + (hi - lo) * unit;
        }
    });
    return values;
}

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
    std::vector<unsigned char> values(n);
    parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            values[i] = static_cast<unsigned char>(hash64(seed, i) >> 56);
        }
    });
    return values;
}

std::vector<unsigned char> random_lowercase(std::size_t n, std::uint64_t seed) {
    std::vector<unsigned char> values(n);
    parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            values[i] = static_cast<unsigned char>('a' + bounded(hash64(seed, i), 26));
        }
    });
    return values;
}

}  // namespace cudatutorial
