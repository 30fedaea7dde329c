// The CPU reference of Chapter 3: the 32-bit wrap-around sum (see reduction.hpp).
#include <cstdint>

#include "reduction.hpp"

namespace reduction {

int reference_sum(const int* data, std::size_t n) {
    // Unsigned arithmetic wraps by definition; signed overflow would be undefined behaviour.
    std::uint32_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sum += static_cast<std::uint32_t>(data[i]);
    }
    // Converting back to int is modular since C++20 and implementation-defined (but two's
    // complement on every compiler we support) before it.
    return static_cast<int>(sum);
}

}  // namespace reduction
