/// @file parallel_for.hpp
/// @brief Implementation of parallel_for_ranges (data.hpp).
#pragma once

#include <algorithm>
#include <thread>
#include <vector>

namespace cudatutorial {

template <typename RangeFill>
void parallel_for_ranges(std::size_t n, RangeFill&& fill) {
    constexpr std::size_t kMinPerThread = std::size_t{1} << 20;
    const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t threads = std::min<std::size_t>(hardware, n / kMinPerThread + 1);
    if (threads <= 1) {
        fill(std::size_t{0}, n);
        return;
    }
    std::vector<std::thread> workers;
    const std::size_t chunk = (n + threads - 1) / threads;
    for (std::size_t t = 0; t < threads; ++t) {
        const std::size_t begin = std::min(n, t * chunk);
        const std::size_t end = std::min(n, begin + chunk);
        workers.emplace_back([&fill, begin, end] { fill(begin, end); });
    }
    for (auto& worker : workers) {
        worker.join();
    }
}

}  // namespace cudatutorial
