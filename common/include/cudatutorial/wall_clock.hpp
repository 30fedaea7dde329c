/// @file wall_clock.hpp
/// @brief Time on the host's steady clock since a moment: for waits with a limit and for timing
/// what CUDA events cannot see (host work, a whole pipeline), never for a kernel alone.
#pragma once

#include <chrono>

namespace cudatutorial {

/// Milliseconds on std::chrono::steady_clock since `start`.
inline double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

}  // namespace cudatutorial
