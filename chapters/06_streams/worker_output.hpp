/// @file worker_output.hpp
/// @brief The values the scenario kernels write, shared by the kernels and the CPU check.
///
/// A kernel that spins for a fixed time proves nothing by itself, so every kernel also writes
/// data that depends on its own index and on the run: a kernel writing into another kernel's
/// slice, skipping elements, or never running shows up as a mismatch.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define STREAMS_HOST_DEVICE __host__ __device__
#else
#define STREAMS_HOST_DEVICE
#endif

namespace streams {

/// The value kernel `kernel` of run `salt` writes at index `i`: an integer hash of the three
/// (the "lowbias32" mixer), never computed from floating point, so the check is exact.
STREAMS_HOST_DEVICE constexpr std::uint32_t expected_output(std::uint32_t salt,
                                                            std::uint32_t kernel, std::uint32_t i) {
    std::uint32_t x = salt * 0x9E3779B9u ^ kernel * 0x85EBCA6Bu ^ i * 0xC2B2AE35u;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

}  // namespace streams
