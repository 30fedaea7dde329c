/// @file gpu_test.hpp
/// @brief Helpers for GPU tests: skip with a clear message when no CUDA device is present.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cudatutorial/device_info.hpp"

namespace cudatutorial::testing {

/// The compute-sanitizer tool the tests run under ("memcheck", "racecheck", "synccheck",
/// "initcheck"), or "" when none: scripts/sanitize.sh sets CT_SANITIZE to the tool's name.
inline std::string sanitizer_tool() {
    const char* tool = std::getenv("CT_SANITIZE");
    return tool ? tool : "";
}

/// True under compute-sanitizer: GPU tests then use small problem sizes (racecheck is ~100x
/// slower).
inline bool sanitizing() {
    return !sanitizer_tool().empty();
}

}  // namespace cudatutorial::testing

/// Skips the current test (reported as SKIPPED, never as passed) when there is no CUDA device,
/// as on CI machines without a GPU. On a machine with a GPU the test runs for real.
#define CT_REQUIRE_GPU()                                                                      \
    do {                                                                                      \
        if (::cudatutorial::cuda_device_count() == 0) {                                       \
            GTEST_SKIP() << "no CUDA device: GPU test skipped (run on a machine with a GPU)"; \
        }                                                                                     \
    } while (0)
