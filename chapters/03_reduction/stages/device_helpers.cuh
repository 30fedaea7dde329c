// Internal to reduction_kernels: what every stage file shares on the device side.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "cudatutorial/check.hpp"
#include "reduction_launchers.hpp"

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

/// Launches the instantiation of a block-size-templated stage kernel that matches `a.block`:
/// `kernel_for(std::integral_constant<int, B>{})` returns the kernel for block size B, e.g.
/// `[](auto b) { return reduce_warp_shuffle<b()>; }`. Throws for a size not in `Blocks`.
template <typename Blocks, typename KernelFor>
void launch_for_block_size(Blocks blocks, const char* stage, const KernelArgs& a,
                           KernelFor&& kernel_for) {
    const bool launched = dispatch_block_size(blocks, a.block, [&](auto block) {
        kernel_for(block)<<<a.grid, block(), 0, a.stream>>>(a.in, a.out, a.n);
    });
    if (!launched) {
        unsupported_block_size(stage, a.block);
    }
    CT_CHECK_LAUNCH();
}

/// Resident blocks per SM of the instantiation for `block` (the occupancy calculator), with
/// `kernel_for` as in launch_for_block_size().
template <typename Blocks, typename KernelFor>
int blocks_per_sm_for_block_size(Blocks blocks, const char* stage, int block,
                                 KernelFor&& kernel_for) {
    int resident = 0;
    const bool known = dispatch_block_size(blocks, block, [&](auto b) {
        CT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel_for(b), b(), 0));
    });
    if (!known) {
        unsupported_block_size(stage, block);
    }
    return resident;
}

/// Shared memory of the tree stages: one Sum per thread.
inline std::size_t tree_shared_bytes_for(int block) {
    return static_cast<std::size_t>(block) * sizeof(Sum);
}

}  // namespace reduction::detail
