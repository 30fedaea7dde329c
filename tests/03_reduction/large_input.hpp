// The opt-in input past 2^31 elements that gpu_test.cu (stages 1, 7, 10, CUB) and
// adaptive_gpu_test.cpp (stage 12's one-shot candidates) sum: 2^31 + 5 random ints, so element
// indices pass 2^31 - 1, on the device, with its expected sums. 8 GiB of device memory and
// 8 GiB of host memory (freed before the kernels run), so it runs only with CT_LARGE_TESTS=1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"
#include "reduction.hpp"

namespace reduction_test {

inline constexpr std::size_t kLargeN = (std::size_t{1} << 31) + 5;

/// Why the large input cannot be used here, or "" when it can: CT_LARGE_TESTS is not 1, the test
/// runs under compute-sanitizer, or less than the input plus `workspace_bytes` is free.
inline std::string large_input_skip_reason(std::size_t workspace_bytes) {
    const char* enabled = std::getenv("CT_LARGE_TESTS");
    if (enabled == nullptr || std::string(enabled) != "1") {
        return "needs 8 GiB of device memory: run with CT_LARGE_TESTS=1 to enable";
    }
    if (cudatutorial::testing::sanitizing()) {
        return "8 GiB under compute-sanitizer would take far too long";
    }
    const std::size_t needed = kLargeN * sizeof(int) + workspace_bytes;
    const std::size_t free = cudatutorial::free_device_memory();
    if (free < needed) {
        return "needs " + cudatutorial::format_bytes(static_cast<double>(needed)) +
               " of free device memory, " + cudatutorial::format_bytes(static_cast<double>(free)) +
               " free";
    }
    return "";
}

struct LargeInput {
    cudatutorial::DeviceBuffer<int> d_in;  ///< kLargeN random ints
    int expected = 0;                      ///< the sum of all of them
    /// The sum without the first and the last element: d_in.data() + 1, kLargeN - 2 ints, a
    /// start 4 bytes past a 16-byte boundary (a scalar head), by modular arithmetic instead of
    /// a second 8 GiB pass.
    int expected_inner = 0;
};

inline LargeInput make_large_input(std::uint64_t seed) {
    std::vector<int> host = reduction::make_input(reduction::Pattern::kRandom, kLargeN, seed);
    LargeInput input;
    input.expected = reduction::reference_sum(host);
    input.expected_inner = static_cast<int>(static_cast<std::uint32_t>(input.expected) -
                                            static_cast<std::uint32_t>(host.front()) -
                                            static_cast<std::uint32_t>(host.back()));
    input.d_in = cudatutorial::DeviceBuffer<int>(host);
    return input;
}

}  // namespace reduction_test
