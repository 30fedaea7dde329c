// Internal to multi_gpu_kernels: the launch shape of chapter 7's element-wise kernels
// (kernels.cu, allreduce/stage3_ring_peer_kernel.cu). Host code.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace multi_gpu::detail {

/// Threads per block of the element-wise kernels.
constexpr int kElementwiseThreads = 256;
/// Enough blocks to keep every SM of any current GPU busy and many loads in flight; the kernels
/// are grid-stride, so this is an upper bound, not a requirement.
constexpr std::size_t kElementwiseMaxBlocks = 4096;

/// Blocks for `items` items, one a thread, at most kElementwiseMaxBlocks.
inline unsigned int blocks_for(std::size_t items) {
    const std::size_t blocks = (items + kElementwiseThreads - 1) / kElementwiseThreads;
    return static_cast<unsigned int>(
        std::max<std::size_t>(1, std::min(blocks, kElementwiseMaxBlocks)));
}

/// Whether `pointer` allows 16-byte (float4) accesses.
inline bool aligned16(const void* pointer) {
    return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0;
}

}  // namespace multi_gpu::detail
