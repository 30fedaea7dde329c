// Stage 7 - stage 6 with more work per thread: int4 loads and stores, a scan in registers.
//
// What changed from stage 6: the tile. Each thread now owns kVectors int4 vectors (4 x kVectors
// values) instead of 2 values, so a block scans block x 4 x kVectors values per look-back, per
// tile counter, per barrier: the fixed costs of a tile are shared by 8 to 16 times more data.
//   1. loads: 16 bytes per thread per instruction (int4), each warp instruction reading 512
//      consecutive bytes (coalesced); no staging through shared memory;
//   2. each thread scans the 4 values of each vector in registers, sequentially; the warp scans
//      the vectors' totals with shuffles (warp_inclusive_scan); the block scans the warps' totals
//      in shared memory (one barrier), and warp 0 looks back with the block's aggregate;
//   3. every value gets the tile's prefix plus its warp's and lane's, and goes out as int4 stores.
// The last tile may be partial (n need not be a multiple of 4, nor of the tile): it takes the
// same path with one value at a time, and values past n are neither read nor written.
// Why it should be faster: the same 2n bytes as stage 6 with a fraction of the per-tile work,
// and 16-byte memory instructions, so fewer instructions in flight cover the memory latency.
// What to look for: at n = 2^28 on an H100, near the copy and level with CUB (x CUB about 1).
//
// The shape (block size, vectors per thread, which values a thread owns) was tuned on an H100:
// see vectorized_items_per_thread() below.
#include "scan_device.cuh"

#include <vector>

namespace scan::detail {
namespace {

/// Which values a thread owns.
enum class Layout {
    /// Vector k of lane l of warp w is the tile's vector w*32*kVectors + 32*k + l: every load
    /// instruction of a warp reads 512 consecutive bytes.
    kWarpStriped,
    /// Thread t owns the vectors t*kVectors .. t*kVectors + kVectors - 1: its 4 x kVectors values
    /// are consecutive, and a warp's load instruction touches 32 pieces of 16 bytes spread over
    /// 512 x kVectors bytes (the rest of each line comes in with the next instructions).
    kThreadBlocked,
};

template <int kBlock, int kVectors, Layout kLayout>
__device__ __forceinline__ int vector_index(int k) {
    const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
    const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
    if constexpr (kLayout == Layout::kWarpStriped) {
        return warp * kWarpSize * kVectors + k * kWarpSize + lane;
    } else {
        return static_cast<int>(threadIdx.x) * kVectors + k;
    }
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

template <int kBlock, int kVectors, Layout kLayout>
__global__ void __launch_bounds__(kBlock)
    scan_vectorized_lookback(const Value* in, Value* out, std::size_t n, bool exclusive,
                             unsigned int* tile_counter, unsigned int tiles, LookBackState state) {
    constexpr int kWarps = kBlock / kWarpSize;
    constexpr int kTileItems = 4 * kVectors * kBlock;
    __shared__ Value warp_offsets[kWarps];
    __shared__ unsigned int tile_taken;
    if (threadIdx.x == 0) {
        tile_taken = take_tile(tile_counter, tiles);
    }
    __syncthreads();
    const unsigned int tile = tile_taken;
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
            v[k] = tile_in[vector_index<kBlock, kVectors, kLayout>(k)];
        }
    } else {
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            v[k] = load_partial(in + base, 4 * vector_index<kBlock, kVectors, kLayout>(k), count);
        }
    }

    // The warp's scan, in registers.
    Value warp_total = 0;
    if constexpr (kLayout == Layout::kWarpStriped) {
        // Row k of the warp is 32 consecutive vectors, one per lane: scan each row across the
        // lanes, and carry the rows' totals from one row to the next.
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            const Value total = scan_vector(v[k], exclusive);
            const Value lane_inclusive = warp_inclusive_scan(total);
            add_to_vector(v[k], warp_total + lane_inclusive - total);
            warp_total += __shfl_sync(kFullMask, lane_inclusive, kWarpSize - 1);
        }
    } else {
        // A thread's values are consecutive: scan them in order, then the threads' totals.
        Value thread_total = 0;
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            const Value total = scan_vector(v[k], exclusive);
            add_to_vector(v[k], thread_total);
            thread_total += total;
        }
        const Value lane_inclusive = warp_inclusive_scan(thread_total);
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            add_to_vector(v[k], lane_inclusive - thread_total);
        }
        warp_total = __shfl_sync(kFullMask, lane_inclusive, kWarpSize - 1);
    }

    // The block's scan of its warps' totals; warp 0 looks back with the block's aggregate.
    if (lane == 0) {
        warp_offsets[warp] = warp_total;
    }
    __syncthreads();
    if (warp == 0) {
        const Value mine = lane < kWarps ? warp_offsets[lane] : 0;
        const Value inclusive = warp_inclusive_scan(mine);
        const Value aggregate = __shfl_sync(kFullMask, inclusive, kWarpSize - 1);
        const Value tile_prefix =
            __shfl_sync(kFullMask, LookBack{state, tile}(aggregate), 0);  // lane 0's answer
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
            tile_out[vector_index<kBlock, kVectors, kLayout>(k)] = v[k];
        }
    } else {
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            store_partial(out + base, 4 * vector_index<kBlock, kVectors, kLayout>(k), count, v[k]);
        }
    }
}

template <int kBlock, int kVectors, Layout kLayout>
void launch_shape(const LaunchArgs& a) {
    constexpr std::size_t kTileItems = 4 * kVectors * kBlock;
    const auto tiles = static_cast<unsigned int>((a.n + kTileItems - 1) / kTileItems);
    scan_vectorized_lookback<kBlock, kVectors, kLayout><<<tiles, kBlock, 0, a.stream>>>(
        a.in, a.out, a.n, a.exclusive, a.tile_counter, tiles, look_back_state(a));
    CT_CHECK_LAUNCH();
}

// The tuned shape: int4 vectors per thread at each block size, and the layout.
// TUNING: measured on an H100 at n = 2^28 (see the tuning test, ScanGpuTuning); the choice and
// why are recorded here once measured.
constexpr Layout kLayout = Layout::kWarpStriped;
constexpr int vectors_for_block(int block) {
    return block <= 64 ? 8 : block == 128 ? 6 : block == 256 ? 4 : block == 512 ? 2 : 1;
}

struct ShapeEntry {
    VectorizedShape shape;
    void (*launch)(const LaunchArgs&);
};

/// Every compiled candidate, for the tuning test.
const std::vector<ShapeEntry>& shape_entries() {
    static const std::vector<ShapeEntry> entries = {
        {{128, 4, false}, launch_shape<128, 4, Layout::kWarpStriped>},
        {{128, 6, false}, launch_shape<128, 6, Layout::kWarpStriped>},
        {{128, 8, false}, launch_shape<128, 8, Layout::kWarpStriped>},
        {{256, 2, false}, launch_shape<256, 2, Layout::kWarpStriped>},
        {{256, 4, false}, launch_shape<256, 4, Layout::kWarpStriped>},
        {{256, 6, false}, launch_shape<256, 6, Layout::kWarpStriped>},
        {{256, 8, false}, launch_shape<256, 8, Layout::kWarpStriped>},
        {{512, 2, false}, launch_shape<512, 2, Layout::kWarpStriped>},
        {{512, 4, false}, launch_shape<512, 4, Layout::kWarpStriped>},
        {{128, 4, true}, launch_shape<128, 4, Layout::kThreadBlocked>},
        {{128, 6, true}, launch_shape<128, 6, Layout::kThreadBlocked>},
        {{256, 2, true}, launch_shape<256, 2, Layout::kThreadBlocked>},
        {{256, 4, true}, launch_shape<256, 4, Layout::kThreadBlocked>},
        {{256, 8, true}, launch_shape<256, 8, Layout::kThreadBlocked>},
        {{512, 2, true}, launch_shape<512, 2, Layout::kThreadBlocked>},
    };
    return entries;
}

}  // namespace

int vectorized_items_per_thread(int block) {
    return 4 * vectors_for_block(block);
}

void launch_vectorized_lookback(const LaunchArgs& a) {
    with_block_size(AllBlockSizes{}, a.block, "vectorized_lookback", [&](auto block) {
        launch_shape<block(), vectors_for_block(block()), kLayout>(a);
    });
}

std::vector<VectorizedShape> vectorized_shapes() {
    std::vector<VectorizedShape> shapes;
    for (const ShapeEntry& entry : shape_entries()) {
        shapes.push_back(entry.shape);
    }
    return shapes;
}

void launch_vectorized_lookback_shape(const LaunchArgs& a, VectorizedShape shape) {
    for (const ShapeEntry& entry : shape_entries()) {
        if (entry.shape.block == shape.block && entry.shape.vectors == shape.vectors &&
            entry.shape.thread_blocked == shape.thread_blocked) {
            entry.launch(a);
            return;
        }
    }
    throw std::invalid_argument("stage 7 has no compiled shape of block " +
                                std::to_string(shape.block) + " with " +
                                std::to_string(shape.vectors) + " vectors per thread");
}

}  // namespace scan::detail
