// Internal to reduction_kernels: what every stage file shares on the device side.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "cudatutorial/check.hpp"
#include "stage_launchers.hpp"

namespace reduction::detail {

// Sums are carried as `unsigned int`. Unsigned addition is defined to wrap modulo 2^32, which
// is bit for bit the int32 two's-complement wrap-around the GPU's 32-bit integer add performs
// anyway (IADD has no overflow trap) - without the undefined behaviour of signed overflow in
// C++. Converting int <-> unsigned is free (same bits). See reduction.hpp for the semantics.
using Sum = unsigned int;

__device__ __forceinline__ Sum as_sum(int value) {
    return static_cast<Sum>(value);
}
__device__ __forceinline__ int as_int(Sum value) {
    return static_cast<int>(value);
}

/// A compile-time list of the block sizes a templated stage is instantiated for.
template <int... Sizes>
struct BlockSizes {
    static constexpr int kMin = std::min({Sizes...});
    static constexpr int kMax = std::max({Sizes...});
};

/// Calls `launch(std::integral_constant<int, B>{})` for the B of `Sizes` equal to `block`, so a
/// kernel templated on its block size is written once and instantiated for every supported
/// size from this one line of code - no hand-copied switch (where one copied case can go
/// wrong). Returns false when `block` is not in the list.
template <int... Sizes, typename Launch>
bool dispatch_block_size(BlockSizes<Sizes...>, int block, Launch&& launch) {
    return ((block == Sizes ? (launch(std::integral_constant<int, Sizes>{}), true) : false) || ...);
}

/// Shared memory of the tree stages: one Sum per thread.
inline std::size_t tree_shared_bytes_for(int block) {
    return static_cast<std::size_t>(block) * sizeof(Sum);
}

}  // namespace reduction::detail
