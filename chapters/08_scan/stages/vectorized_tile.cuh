// Stage 7's tile, shared by its three kinds of kernel (stage7_vectorized_lookback.cu,
// shared_staging_lookback.cu): where each thread's int4 vectors lie in a tile, how a thread scans
// them in registers, how a warp scans a row of them, and the whole tile scanned from its look-back
// prefix.
#pragma once

#include <cstddef>

#include "lookback_candidates.hpp"
#include "scan_device.cuh"

namespace scan::detail {

/// Where vector k of this thread lies in the tile, in int4 units: the warp's rows of 32
/// vectors are consecutive, lane l takes vector l of each row, so that every load and store
/// instruction of a warp covers 512 consecutive bytes.
template <int kVectors>
__device__ __forceinline__ int vector_index(int k) {
    const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
    const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
    return warp * kWarpSize * kVectors + k * kWarpSize + lane;
}

/// Scans the 4 values of `v` in place (inclusive or exclusive) and returns their sum.
__device__ __forceinline__ Value scan_vector(uint4& v, bool exclusive) {
    const Value a = v.x;
    const Value ab = a + v.y;
    const Value abc = ab + v.z;
    const Value total = abc + v.w;
    v = exclusive ? make_uint4(0, a, ab, abc) : make_uint4(a, ab, abc, total);
    return total;
}

__device__ __forceinline__ void add_to_vector(uint4& v, Value carry) {
    v.x += carry;
    v.y += carry;
    v.z += carry;
    v.w += carry;
}

/// The 4 values from `first` of a partial tile of `count` values (0 past the end).
__device__ __forceinline__ uint4 load_partial(const Value* tile, int first, int count) {
    return make_uint4(first < count ? tile[first] : 0, first + 1 < count ? tile[first + 1] : 0,
                      first + 2 < count ? tile[first + 2] : 0,
                      first + 3 < count ? tile[first + 3] : 0);
}

__device__ __forceinline__ void store_partial(Value* tile, int first, int count, const uint4& v) {
    if (first < count) {
        tile[first] = v.x;
    }
    if (first + 1 < count) {
        tile[first + 1] = v.y;
    }
    if (first + 2 < count) {
        tile[first + 2] = v.z;
    }
    if (first + 3 < count) {
        tile[first + 3] = v.w;
    }
}

/// One row of the warp's scan: each lane scans its vector's 4 values in order, the warp scans the
/// 32 vector totals with shuffles, and `running` (the warp's total of the rows before, the same
/// in every lane) is added and then grows by this row's total. Row k of a warp is 32 consecutive
/// vectors, one per lane (vector_index), so the rows carry from one to the next in order.
__device__ __forceinline__ void scan_row(uint4& v, bool exclusive, Value& running) {
    const Value total = scan_vector(v, exclusive);
    const Value lane_inclusive = warp_inclusive_scan(total);
    add_to_vector(v, running + lane_inclusive - total);
    running += __shfl_sync(kFullMask, lane_inclusive, kWarpSize - 1);
}

/// This thread's kVectors vectors of a part of a tile that starts at `part`: whole when the tile
/// is `full`, else the values below `count` (counted from the part's start; <= 0: none).
template <int kVectors>
__device__ __forceinline__ void load_vectors(const Value* part, bool full, int count,
                                             uint4 (&v)[kVectors]) {
    if (full) {
        const uint4* vectors = reinterpret_cast<const uint4*>(part);
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            v[k] = vectors[vector_index<kVectors>(k)];
        }
    } else {
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            v[k] = load_partial(part, 4 * vector_index<kVectors>(k), count);
        }
    }
}

/// Writes this thread's vectors of a part, `offset` added (a partial part: nothing past count).
template <int kVectors>
__device__ __forceinline__ void store_vectors(Value* part, bool full, int count,
                                              uint4 (&v)[kVectors], Value offset) {
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
        add_to_vector(v[k], offset);
    }
    if (full) {
        uint4* vectors = reinterpret_cast<uint4*>(part);
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            vectors[vector_index<kVectors>(k)] = v[k];
        }
    } else {
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            store_partial(part, 4 * vector_index<kVectors>(k), count, v[k]);
        }
    }
}

/// The sum of the 4 values of each of this thread's vectors (left to right, so that the compiler
/// does not keep partial sums alive for scan_vector() later: registers are the staged kernel's
/// budget).
template <int kVectors>
__device__ __forceinline__ Value sum_of_vectors(const uint4 (&v)[kVectors]) {
    Value sum = 0;
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
        sum = sum + v[k].x + v[k].y + v[k].z + v[k].w;
    }
    return sum;
}

/// Scans tile `tile` of the input into the output, starting from its look-back prefix. Called by
/// every thread of the block. `before_barrier` runs in every thread just before the first
/// __syncthreads() (the resident kernel hands its next ticket to shared memory there).
/// `warp_offsets` (shared, one per warp) is read by every thread after the last barrier: the
/// caller must __syncthreads() before it calls this again with the same storage.
template <int kBlock, int kVectors, StatusOrder kOrder, typename BeforeBarrier>
__device__ __forceinline__ void scan_vectorized_tile(const Value* in, Value* out, std::size_t n,
                                                     bool exclusive, unsigned int tile,
                                                     const LookBackState& state,
                                                     Value* warp_offsets,
                                                     const BeforeBarrier& before_barrier) {
    constexpr int kWarps = kBlock / kWarpSize;
    constexpr int kTileItems = 4 * kVectors * kBlock;
    const std::size_t base = static_cast<std::size_t>(tile) * kTileItems;
    const int count = tile_count(n, base, kTileItems);
    const bool full = count == kTileItems;  // every tile but perhaps the last
    const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
    const int warp = static_cast<int>(threadIdx.x) / kWarpSize;

    uint4 v[kVectors];
    if (full) {
        const uint4* tile_in = reinterpret_cast<const uint4*>(in + base);
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            v[k] = tile_in[vector_index<kVectors>(k)];
        }
    } else {
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            v[k] = load_partial(in + base, 4 * vector_index<kVectors>(k), count);
        }
    }

    // The warp's scan, in registers. Row k of the warp is 32 consecutive vectors, one per lane:
    // each lane scans its vector's 4 values in order, the warp scans the 32 vector totals with
    // shuffles, and the rows' totals carry from one row to the next.
    Value warp_total = 0;
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
        const Value total = scan_vector(v[k], exclusive);
        const Value lane_inclusive = warp_inclusive_scan(total);
        add_to_vector(v[k], warp_total + lane_inclusive - total);
        warp_total += __shfl_sync(kFullMask, lane_inclusive, kWarpSize - 1);
    }

    // The block's scan of its warps' totals; warp 0 looks back with the block's aggregate.
    if (lane == 0) {
        warp_offsets[warp] = warp_total;
    }
    before_barrier();
    __syncthreads();
    if (warp == 0) {
        const Value mine = lane < kWarps ? warp_offsets[lane] : 0;
        const Value inclusive = warp_inclusive_scan(mine);
        const Value aggregate = __shfl_sync(kFullMask, inclusive, kWarpSize - 1);
        const Value tile_prefix =
            __shfl_sync(kFullMask, LookBack<kOrder>{state, tile}(aggregate), 0);  // lane 0's answer
        if (lane < kWarps) {
            warp_offsets[lane] = tile_prefix + inclusive - mine;
        }
    }
    __syncthreads();
    const Value offset = warp_offsets[warp];
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
        add_to_vector(v[k], offset);
    }
    if (full) {
        uint4* tile_out = reinterpret_cast<uint4*>(out + base);
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            tile_out[vector_index<kVectors>(k)] = v[k];
        }
    } else {
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            store_partial(out + base, 4 * vector_index<kVectors>(k), count, v[k]);
        }
    }
}

/// How candidate `c` writes and reads the status words.
constexpr StatusOrder order_of(const LookbackCandidate& c) {
    return c.release_acquire ? StatusOrder::kReleaseAcquire : StatusOrder::kRelaxed;
}

inline unsigned int tiles_of(std::size_t n, int tile_items) {
    return static_cast<unsigned int>((n + tile_items - 1) / tile_items);
}

}  // namespace scan::detail
