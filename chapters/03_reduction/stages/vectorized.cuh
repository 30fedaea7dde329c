// Internal to reduction_kernels: the device code the beyond-the-book stages (10-12) share.
//  - load16<policy>: one 16-byte load, in one of three flavours (the tuning sweep compares them);
//  - thread_sum_vectorized: a grid-stride walk over the input with int4 loads, several in
//    flight per thread, plus the scalar head/tail that 16-byte alignment leaves;
//  - block_sum: a block reduction made of warp reductions (cg::reduce) - no shared-memory tree.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdint>

#include "device_helpers.cuh"
#include "vector_split.hpp"

namespace reduction::detail {

namespace cg = cooperative_groups;

/// Block sizes of stages 10-12.
using VectorizedBlocks = BlockSizes<32, 64, 128, 256, 512, 1024>;
static_assert(VectorizedBlocks::kMin == kMinBlock && VectorizedBlocks::kMax == kMaxBlock);

/// How a 16-byte load is issued.
enum class LoadPolicy : int {
    kPlain = 0,      ///< `*p` through a const __restrict__ pointer (the read-only data path)
    kStreaming = 1,  ///< __ldcs: "evict first", the data is used once
    kPrefetchL2 = 2  ///< ld.global.nc.L1::no_allocate.L2::256B: ask L2 to fetch 256-byte blocks
};

template <LoadPolicy kPolicy>
__device__ __forceinline__ int4 load16(const int4* __restrict__ p) {
    if constexpr (kPolicy == LoadPolicy::kPlain) {
        return *p;
    } else if constexpr (kPolicy == LoadPolicy::kStreaming) {
        return __ldcs(p);
    } else {
        int4 v;
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(p));
        return v;
    }
}

__device__ __forceinline__ Sum add4(int4 v) {
    return as_sum(v.x) + as_sum(v.y) + as_sum(v.z) + as_sum(v.w);
}

/// This thread's share of in[0, n): grid-stride over int4 vectors, kLoads independent 16-byte
/// loads issued before any of them is added (so kLoads requests are in flight per thread).
/// The first threads of the grid also take the (at most 3 + 3) scalar head and tail elements.
template <int kBlock, int kLoads, LoadPolicy kPolicy>
__device__ __forceinline__ Sum thread_sum_vectorized(const int* __restrict__ in, std::size_t n) {
    const VectorSplitParts parts = split_vectors(reinterpret_cast<std::uintptr_t>(in), n);
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * kBlock;

    Sum sum = 0;
    if (thread < parts.head) {
        sum += as_sum(in[thread]);
    }
    const std::size_t tail_begin = parts.head + 4 * parts.vectors;
    if (thread < parts.tail) {
        sum += as_sum(in[tail_begin + thread]);
    }

    const int4* __restrict__ body = reinterpret_cast<const int4*>(in + parts.head);
    std::size_t v = thread;
    for (; v + (kLoads - 1) * threads < parts.vectors; v += kLoads * threads) {
        int4 x[kLoads];
#pragma unroll
        for (int k = 0; k < kLoads; ++k) {
            x[k] = load16<kPolicy>(body + v + k * threads);  // all loads first ...
        }
#pragma unroll
        for (int k = 0; k < kLoads; ++k) {
            sum += add4(x[k]);  // ... then the adds
        }
    }
    for (; v < parts.vectors; v += threads) {  // fewer than kLoads vectors left for this thread
        sum += add4(load16<kPolicy>(body + v));
    }
    return sum;
}

/// The sum of `v` over the block, valid in thread 0: each warp reduces its 32 values with
/// cg::reduce (a single redux.sync instruction for 32-bit integers on sm_80 and later), warp 0
/// then reduces the per-warp sums. One __syncthreads(), kBlock/32 words of shared memory.
/// Safe to call twice in a kernel if a __syncthreads() separates the calls.
template <int kBlock>
__device__ __forceinline__ Sum block_sum(Sum v) {
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    v = cg::reduce(warp, v, cg::plus<Sum>());
    if constexpr (kBlock > 32) {
        __shared__ Sum warp_sums[kBlock / 32];
        if (warp.thread_rank() == 0) {
            warp_sums[warp.meta_group_rank()] = v;
        }
        __syncthreads();
        if (warp.meta_group_rank() == 0) {
            v = warp.thread_rank() < kBlock / 32 ? warp_sums[warp.thread_rank()] : 0;
            v = cg::reduce(warp, v, cg::plus<Sum>());
        }
    }
    return v;
}

/// The loads in flight per thread and the load flavour that stages 10-12 use; chosen with the
/// tuning sweep (tests/03_reduction/gpu_test.cu, DISABLED_VectorizedSweep) - see the README.
inline constexpr int kStageLoadsInFlight = 4;
inline constexpr LoadPolicy kStageLoadPolicy = LoadPolicy::kPlain;

/// Resident blocks per SM for `kernel<kBlock>` instantiated over VectorizedBlocks.
template <typename KernelFor>
int vectorized_occupancy(int block, KernelFor&& kernel_for, const char* stage) {
    int blocks = 0;
    const bool known = dispatch_block_size(VectorizedBlocks{}, block, [&](auto b) {
        CT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_for(b), b(), 0));
    });
    if (!known) {
        unsupported_block_size(stage, block);
    }
    return blocks;
}

}  // namespace reduction::detail
