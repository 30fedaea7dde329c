// Internal to reduction_kernels: the device code the beyond-the-book stages (10-12) share.
//  - load16<policy>: one 16-byte load, plain or with the L2 prefetch hint;
//  - thread_sum_vectorized<block, variant>: this thread's share of the input with int4 loads,
//    several in flight per thread (tile_sum: one tile), in the layout of candidate `variant`
//    (vectorized_candidates.hpp), plus the scalar head/tail that 16-byte alignment leaves;
//  - block_sum: a block reduction made of warp reductions (cg::reduce) - no shared-memory tree;
//  - dispatch_variant: from a run-time candidate index to its compiled instantiation.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "device_helpers.cuh"
#include "vector_split.hpp"
#include "vectorized_candidates.hpp"

namespace reduction::detail {

namespace cg = cooperative_groups;

/// Block sizes of stages 10-12.
using VectorizedBlocks = BlockSizes<32, 64, 128, 256, 512, 1024>;
static_assert(VectorizedBlocks::kMin == kMinBlock && VectorizedBlocks::kMax == kMaxBlock);

/// The int4 at p + kOffset. The offset is a template argument so that the hinted load's inline
/// assembly can name it as an immediate ([p+offset]): with a run-time address per load, the
/// eight loads of an 8-load candidate would each hold a 64-bit address in registers, and at
/// 1024 threads per block (64 registers each) ptxas would spill.
template <LoadPolicy kPolicy, int kOffset>
__device__ __forceinline__ int4 load16(const int4* __restrict__ p) {
    if constexpr (kPolicy == LoadPolicy::kPlain) {
        return p[kOffset];
    } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
        // The L2::256B prefetch size needs sm_80 (ptxas rejects it for sm_75): Turing takes the
        // plain read-only path instead.
        return __ldg(p + kOffset);
#else
        int4 v;
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4+%5];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(p), "n"(kOffset * 16));
        return v;
#endif
    }
}

/// x[k] = the int4 at p + k * kSpacing for every k: all the loads of a tile, issued back to back.
template <LoadPolicy kPolicy, int kSpacing, int... kK>
__device__ __forceinline__ void load_tile(int4 (&x)[sizeof...(kK)], const int4* __restrict__ p,
                                          std::integer_sequence<int, kK...>) {
    ((x[kK] = load16<kPolicy, kK * kSpacing>(p)), ...);
}

__device__ __forceinline__ Sum add4(int4 v) {
    return as_sum(v.x) + as_sum(v.y) + as_sum(v.z) + as_sum(v.w);
}

/// This thread's part of tile `tile` of the int4 body (kLoads * kBlock vectors): vectors
/// tile * kTile + t + k * kBlock for k < kLoads, a warp reading 512 adjacent bytes per load. All
/// kLoads 16-byte loads are issued before any is added, so kLoads requests are in flight per
/// thread; the last, partial tile checks each vector against `vectors`.
template <int kBlock, int kVariant>
__device__ __forceinline__ Sum tile_sum(const int4* __restrict__ body, std::size_t tile,
                                        std::size_t vectors) {
    constexpr VectorizedVariant kV = kVectorizedVariants[kVariant];
    constexpr int kLoads = kV.loads;
    constexpr std::size_t kTile = static_cast<std::size_t>(kLoads) * kBlock;
    const std::size_t v = tile * kTile + threadIdx.x;
    Sum sum = 0;
    if (tile * kTile + kTile <= vectors) {
        int4 x[kLoads];
        load_tile<kV.policy, kBlock>(x, body + v,
                                     std::make_integer_sequence<int, kLoads>{});  // loads ...
#pragma unroll
        for (int k = 0; k < kLoads; ++k) {
            sum += add4(x[k]);  // ... then the adds
        }
    } else {
#pragma unroll
        for (int k = 0; k < kLoads; ++k) {
            if (v + k * kBlock < vectors) {
                sum += add4(load16<kV.policy, 0>(body + v + k * kBlock));
            }
        }
    }
    return sum;
}

/// This thread's share of in[0, n) for candidate kVariant: the int4 vectors are cut into tiles of
/// kLoads * kBlock; a block takes its tiles in the candidate's layout (tile_sum() reads one). The
/// first threads of the grid also take the (at most 3 + 3) scalar head and tail, so nothing past
/// in[n - 1] is read. A one-shot candidate reads tile blockIdx.x only: its grid must have a block
/// per tile (config::one_shot_blocks(); the launcher checks).
template <int kBlock, int kVariant>
__device__ __forceinline__ Sum thread_sum_vectorized(const int* __restrict__ in, std::size_t n) {
    constexpr VectorizedVariant kV = kVectorizedVariants[kVariant];
    constexpr std::size_t kTile = static_cast<std::size_t>(kV.loads) * kBlock;
    const VectorSplitParts parts = split_vectors(reinterpret_cast<std::uintptr_t>(in), n);
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x;

    Sum sum = 0;
    if (thread < parts.head) {
        sum += as_sum(in[thread]);
    }
    const std::size_t tail_begin = parts.head + 4 * parts.vectors;
    if (thread < parts.tail) {
        sum += as_sum(in[tail_begin + thread]);
    }

    const int4* __restrict__ body = reinterpret_cast<const int4*>(in + parts.head);
    const std::size_t tiles = (parts.vectors + kTile - 1) / kTile;
    if constexpr (kV.layout == Layout::kOneShot) {
        if (blockIdx.x < tiles) {  // no loop: this block's one tile
            sum += tile_sum<kBlock, kVariant>(body, blockIdx.x, parts.vectors);
        }
        return sum;
    }
    std::size_t tile = blockIdx.x;
    std::size_t end = tiles;
    std::size_t stride = gridDim.x;
    if constexpr (kV.layout == Layout::kBlockSegments) {
        const std::size_t per_block = (tiles + gridDim.x - 1) / gridDim.x;
        tile = blockIdx.x * per_block;
        end = tile + per_block < tiles ? tile + per_block : tiles;
        stride = 1;
    }
    for (; tile < end; tile += stride) {
        sum += tile_sum<kBlock, kVariant>(body, tile, parts.vectors);
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

/// The second __launch_bounds__ argument of the stage kernels: 0 (no request) except for the
/// 8-load candidates at 1024 threads, where ptxas would otherwise squeeze the kernel into 32
/// registers (two resident blocks) and spill; with 1 it takes 54 and one block stays resident.
template <int kBlock, int kVariant>
inline constexpr int kMinBlocksFor =
    kBlock == 1024 && kVectorizedVariants[kVariant].loads >= 8 ? 1 : 0;

/// Calls `call(std::integral_constant<int, V>{})` for the candidate V == `variant`; false when
/// `variant` is not a candidate index, or is a one-shot candidate and kOneShotToo is false
/// (stages 10 and 11: those are not even compiled for them). Every other candidate is compiled,
/// whichever a run picks.
template <bool kOneShotToo, int kIndex, typename Call>
bool call_if_variant(int variant, Call& call) {
    if constexpr (kOneShotToo || !is_one_shot(kIndex)) {
        if (variant == kIndex) {
            call(std::integral_constant<int, kIndex>{});
            return true;
        }
    }
    return false;
}
template <bool kOneShotToo, typename Call, int... kIndices>
bool dispatch_variant_in(int variant, Call&& call, std::integer_sequence<int, kIndices...>) {
    return (call_if_variant<kOneShotToo, kIndices>(variant, call) || ...);
}
template <bool kOneShotToo = false, typename Call>
bool dispatch_variant(int variant, Call&& call) {
    return dispatch_variant_in<kOneShotToo>(
        variant, call, std::make_integer_sequence<int, kVectorizedVariantCount>{});
}

/// Resident blocks per SM for `kernel<kBlock>` instantiated over VectorizedBlocks.
template <typename KernelFor>
int vectorized_occupancy(int block, KernelFor&& kernel_for, const char* stage) {
    return blocks_per_sm_for_block_size(VectorizedBlocks{}, stage, block, kernel_for);
}

}  // namespace reduction::detail
