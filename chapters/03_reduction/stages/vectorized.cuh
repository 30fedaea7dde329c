// Internal to reduction_kernels: the device code the beyond-the-book stages (10-12) share.
//  - load16<policy>: one 16-byte load, in one of three flavours (the tuning sweeps compared them);
//  - thread_sum_vectorized: a grid-stride walk over the input with int4 loads, several in
//    flight per thread, plus the scalar head/tail that 16-byte alignment leaves;
//  - block_sum: a block reduction made of warp reductions (cg::reduce) - no shared-memory tree.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>
#include <cstdint>

#include "device_helpers.cuh"
#include "tuned_constants.hpp"
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
                     ///< (sm_80 and newer; sm_75 falls back to __ldg)
};

template <LoadPolicy kPolicy>
__device__ __forceinline__ int4 load16(const int4* __restrict__ p) {
    if constexpr (kPolicy == LoadPolicy::kPlain) {
        return *p;
    } else if constexpr (kPolicy == LoadPolicy::kStreaming) {
        return __ldcs(p);
    } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
        // The L2::256B prefetch size needs sm_80 (ptxas rejects it for sm_75): Turing takes the
        // plain read-only path instead.
        return __ldg(p);
#else
        int4 v;
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(p));
        return v;
#endif
    }
}

__device__ __forceinline__ Sum add4(int4 v) {
    return as_sum(v.x) + as_sum(v.y) + as_sum(v.z) + as_sum(v.w);
}

/// How the int4 vectors are dealt out to the threads of the grid (T threads, B per block, L
/// loads in flight per thread, G blocks):
///  - kThreadStride: thread t loads vectors t, t + T, ..., t + (L-1)T, then adds L*T. Each
///    block reads L separate runs of B vectors (B * 16 bytes each) per iteration.
///  - kBlockTiles: block b owns tiles of L*B consecutive vectors (b, b + G, b + 2G, ...);
///    thread t loads t, t + B, ..., t + (L-1)B of its block's tile. Each block reads one run of
///    L * B * 16 bytes per iteration (16 KiB for B = 256, L = 4).
enum class Layout : int { kThreadStride = 0, kBlockTiles = 1 };

/// This thread's share of in[0, n): a grid-stride walk over int4 vectors, kLoads independent
/// 16-byte loads issued before any of them is added (so kLoads requests are in flight per
/// thread). The first threads of the grid also take the (at most 3 + 3) scalar head and tail.
template <int kBlock, int kLoads, LoadPolicy kPolicy, Layout kLayout>
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
    // Distance between a thread's loads within one iteration, and from one iteration to the next.
    constexpr bool kTiles = kLayout == Layout::kBlockTiles;
    const std::size_t spacing = kTiles ? kBlock : threads;
    const std::size_t step = kLoads * threads;
    std::size_t v =
        kTiles ? static_cast<std::size_t>(blockIdx.x) * (kLoads * kBlock) + threadIdx.x : thread;
    for (; v + (kLoads - 1) * spacing < parts.vectors; v += step) {
        int4 x[kLoads];
#pragma unroll
        for (int k = 0; k < kLoads; ++k) {
            x[k] = load16<kPolicy>(body + v + k * spacing);  // all loads first ...
        }
#pragma unroll
        for (int k = 0; k < kLoads; ++k) {
            sum += add4(x[k]);  // ... then the adds
        }
    }
    // The last, partial iteration: later iterations start even further out, so only this one
    // can still hold vectors for this thread.
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
        if (v + k * spacing < parts.vectors) {
            sum += add4(load16<kPolicy>(body + v + k * spacing));
        }
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

/// What stages 10-12 use (see tuned_constants.hpp: chosen by the tuning sweep).
inline constexpr int kStageLoadsInFlight = tuned::kLoadsInFlight;
inline constexpr LoadPolicy kStageLoadPolicy = static_cast<LoadPolicy>(tuned::kLoadPolicy);
inline constexpr Layout kStageLayout = static_cast<Layout>(tuned::kLayout);
static_assert(kStageLoadsInFlight >= 1 && kStageLoadsInFlight <= 8);
static_assert(tuned::kOccupancyDivisor >= 1);

/// This thread's share of in[0, n) with the stage constants.
template <int kBlock>
__device__ __forceinline__ Sum thread_sum_stage(const int* __restrict__ in, std::size_t n) {
    return thread_sum_vectorized<kBlock, kStageLoadsInFlight, kStageLoadPolicy, kStageLayout>(in,
                                                                                              n);
}

/// Resident blocks per SM for `kernel<kBlock>` instantiated over VectorizedBlocks.
template <typename KernelFor>
int vectorized_occupancy(int block, KernelFor&& kernel_for, const char* stage) {
    return blocks_per_sm_for_block_size(VectorizedBlocks{}, stage, block, kernel_for);
}

/// Blocks per SM the beyond-the-book stages launch: the resident maximum divided by the tuned
/// divisor (with more loads in flight per thread, fewer resident warps can keep DRAM busy).
inline int stage_blocks_per_sm(int resident) {
    return resident >= 1 ? std::max(1, resident / tuned::kOccupancyDivisor) : resident;
}

}  // namespace reduction::detail
