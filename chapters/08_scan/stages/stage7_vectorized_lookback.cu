// Stage 7 - stage 6 with more work per thread: int4 loads and stores, a scan in registers.
//
// What changed from stage 6: the tile. Each thread now owns kVectors int4 vectors (4 x kVectors
// values; 8 vectors, 32 values, at the default block of 256) instead of 2 values, so a block
// scans block x 4 x kVectors values per tile counter, per pair of barriers, per look-back: the
// fixed costs of a tile are shared by 16 times more data.
//   1. loads: 16 bytes per thread per instruction (int4), each warp instruction reading 512
//      consecutive bytes (coalesced); no staging through shared memory;
//   2. each thread scans the 4 values of each vector in registers, sequentially; the warp scans
//      the vectors' totals with shuffles (warp_inclusive_scan), row after row; the block scans
//      the warps' totals in shared memory, and warp 0 looks back with the block's aggregate;
//   3. every value gets the tile's prefix plus its warp's and lane's, and goes out as int4 stores.
// The last tile may be partial (n need not be a multiple of 4, nor of the tile): it takes the
// same path with one value at a time, and values past n are neither read nor written.
// Why it should be faster: the same 2n bytes as stage 6 with a sixteenth of the tiles, and
// 16-byte memory instructions, so that fewer instructions keep more bytes in flight.
// What to look for: the fastest of the stages, close to CUB (0.95x on an H100 at n = 2^28) and
// about three quarters of the copy, where CUB reaches about four fifths. The shape was tuned on
// an H100: see vectors_for_block() below.
#include "scan_device.cuh"

#include <vector>

namespace scan::detail {
namespace {

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

template <int kBlock, int kVectors>
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
            tile_out[vector_index<kVectors>(k)] = v[k];
        }
    } else {
#pragma unroll
        for (int k = 0; k < kVectors; ++k) {
            store_partial(out + base, 4 * vector_index<kVectors>(k), count, v[k]);
        }
    }
}

template <int kBlock, int kVectors>
void launch_shape(const LaunchArgs& a) {
    constexpr std::size_t kTileItems = 4 * kVectors * kBlock;
    const auto tiles = static_cast<unsigned int>((a.n + kTileItems - 1) / kTileItems);
    scan_vectorized_lookback<kBlock, kVectors><<<tiles, kBlock, 0, a.stream>>>(
        a.in, a.out, a.n, a.exclusive, a.tile_counter, tiles, look_back_state(a));
    CT_CHECK_LAUNCH();
}

// The tuned shape: int4 vectors per thread at each block size.
// Measured on an H100 80GB HBM3 (CUDA 13.0, driver 580.159.04) at n = 2^28, inclusive, median
// of 30 runs (the tuning test, ScanGpuTuning.Stage7Shapes), in ms; CUB took 0.878, the copy 0.713:
//   vectors per thread       2      4      6      8
//   block 128                -  1.129  1.005  0.926
//   block 256            1.345  1.060  0.959  0.925
//   block 512            1.220  0.998      -      -
// More vectors per thread means fewer, larger tiles: the fixed costs of a tile (taking it from
// the counter, two barriers, the look-back) are shared by more values, and each thread has more
// loads in flight. 8 vectors (32 values, tiles of 8192 at block 256) was the fastest measured,
// at 128 and 256 threads alike; 512 threads were slower at the same tile size. 12 and 16 vectors
// are compiled as candidates but were not measured yet. A layout where each thread's values are
// consecutive (each warp load touching 32 pieces of 16 bytes, 16 x vectors bytes apart) measured
// 1.27 to 1.47 ms at the same shapes, slower at every one, and is not kept.
constexpr int vectors_for_block(int block) {
    return block <= 256 ? 8 : block == 512 ? 4 : 1;
}

struct ShapeEntry {
    VectorizedShape shape;
    void (*launch)(const LaunchArgs&);
};

/// Every compiled candidate, for the tuning test (the shapes the stage runs are among them, but
/// for blocks 32, 64 and 1024).
const std::vector<ShapeEntry>& shape_entries() {
    static const std::vector<ShapeEntry> entries = {
        {{128, 4}, launch_shape<128, 4>},   {{128, 6}, launch_shape<128, 6>},
        {{128, 8}, launch_shape<128, 8>},   {{128, 12}, launch_shape<128, 12>},
        {{128, 16}, launch_shape<128, 16>}, {{256, 2}, launch_shape<256, 2>},
        {{256, 4}, launch_shape<256, 4>},   {{256, 6}, launch_shape<256, 6>},
        {{256, 8}, launch_shape<256, 8>},   {{256, 12}, launch_shape<256, 12>},
        {{512, 2}, launch_shape<512, 2>},   {{512, 4}, launch_shape<512, 4>},
    };
    return entries;
}

}  // namespace

int vectorized_items_per_thread(int block) {
    return 4 * vectors_for_block(block);
}

void launch_vectorized_lookback(const LaunchArgs& a) {
    with_block_size(AllBlockSizes{}, a.block, "vectorized_lookback",
                    [&](auto block) { launch_shape<block(), vectors_for_block(block())>(a); });
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
        if (entry.shape.block == shape.block && entry.shape.vectors == shape.vectors) {
            entry.launch(a);
            return;
        }
    }
    throw std::invalid_argument("stage 7 has no compiled shape of block " +
                                std::to_string(shape.block) + " with " +
                                std::to_string(shape.vectors) + " vectors per thread");
}

}  // namespace scan::detail
