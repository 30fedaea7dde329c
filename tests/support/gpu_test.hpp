/// @file gpu_test.hpp
/// @brief Helpers for GPU tests: skip with a clear message when no CUDA device is present.
#pragma once

#include <gtest/gtest.h>

#include "cudatutorial/device_info.hpp"

/// Skips the current test (reported as SKIPPED, never as passed) when there is no CUDA device,
/// as on CI machines without a GPU. On a machine with a GPU the test runs for real.
#define CT_REQUIRE_GPU()                                                                  \
    do {                                                                                  \
        if (::cudatutorial::cuda_device_count() == 0) {                                   \
            GTEST_SKIP() << "no CUDA device: GPU test skipped (run on a machine with a GPU)"; \
        }                                                                                 \
    } while (0)
