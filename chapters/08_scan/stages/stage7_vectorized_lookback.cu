// Stage 7 - stage 6 with more work per thread: int4 loads and stores, a scan in registers, and a
// shape chosen for the GPU at run time.
//
// What changed from stage 6: the tile. Each thread now owns several int4 vectors (4 values each;
// 8 vectors, 32 values, in the default shape of 256 threads) instead of 2 values, so a block
// scans block x 4 x vectors values per ticket, per pair of barriers, per look-back: the fixed
// costs of a tile are shared by many more values.
//   1. loads: 16 bytes per thread per instruction (int4), each warp instruction reading 512
//      consecutive bytes (coalesced); no staging through shared memory;
//   2. each thread scans the 4 values of each vector in registers, sequentially; the warp scans
//      the vectors' totals with shuffles (warp_inclusive_scan), row after row; the block scans
//      the warps' totals in shared memory, and warp 0 looks back with the block's aggregate;
//   3. every value gets the tile's prefix plus its warp's and lane's, and goes out as int4 stores.
// The last tile may be partial (n need not be a multiple of 4, nor of the tile): it takes the
// same path with one value at a time, and values past n are neither read nor written.
// The status words are written and read with relaxed atomics, not stage 6's release and acquire:
// the reader uses nothing but the word itself (flag and value travel together), so no ordering
// with other memory is needed, and the look-back's polls and publications skip the fences that
// release and acquire imply. One candidate keeps release/acquire, so that the header shows what
// the stronger order costs on the GPU that runs (on an H100 3-4%).
// The shape is not fixed: the file compiles the candidates of lookback_candidates.hpp (block
// size x vectors per thread, two ways of taking tiles, with or without a backoff in the
// look-back's wait), and a short tuning pass before the table (measuring/adaptive_lookback.hpp)
// times each one on the run's input, checks its output, and hands the fastest to the stage.
// A third family extends the tile in shared memory (scan_staged_lookback): each thread copies
// more int4 vectors into shared memory with cp.async before it loads its register vectors, so
// that an SM holds in flight the bytes its registers can hold and those its shared memory can:
// on an H100, without the look-back, stage 7 runs at the copy's speed, and what the look-back
// costs is the time a block waits holding its tile; the more bytes each SM holds, the more of
// that wait other blocks cover with loads. It also publishes the tile's aggregate before it
// scans its rows: the next tiles wait for the aggregate and nothing else, so a block that sums
// first and scans while its predecessors finish shortens every wait after it.
// The two ways of taking tiles:
//   - one tile per block (scan_vectorized_lookback): a block's first act is the atomicAdd on the
//     tile counter, and nothing can be loaded until its answer is back;
//   - resident blocks (scan_resident_lookback): a grid of the blocks that fit on the GPU at once
//     loops over tiles, and thread 0 takes the ticket of the block's next tile before the block
//     scans the current one, so that the atomic's round trip overlaps the tile's loads. Tickets
//     still go out in increasing order and only to running blocks, so every wait still ends.
// Why it should be faster: the same 2n bytes as stage 6 with far fewer tiles, 16-byte memory
// instructions that keep more bytes in flight, and (resident blocks) no block that sits idle
// while its ticket is on its way.
// What to look for: the fastest of the stages, and its ratio to CUB and to the copy; in the
// run's header, which candidate the tuning pass chose, the runner-up and every candidate's time:
// whether the resident blocks or the backoff beat the one-tile blocks, and by more than the
// spread between neighbouring shapes (if not, the ticket and the polling were not the cost).
#include <cuda_pipeline.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "lookback_candidates.hpp"
#include "scan_device.cuh"

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

/// What a staged tile keeps in shared memory besides its staging: each warp's offset within the
/// tile for each of the two parts (part-major: part 0's warps 0, 1, ..., then part 1's), the
/// tile's aggregate, and (after the look-back) its exclusive prefix.
template <int kBlock>
struct StagedTileSums {
    static constexpr int kWarps = kBlock / kWarpSize;
    Value offsets[2 * kWarps];
    Value aggregate;
    Value prefix;
};

/// The tile's aggregate, published as soon as the block knows it: every thread brings the sums
/// of its two parts, each warp adds its lanes' (warp_sum), and after one barrier warp 0 scans the
/// warps' totals in the tile's order, leaves each warp's offset within the tile in `sums`, and
/// publishes the aggregate. Called by every thread. No thread may touch `sums` again before the
/// next barrier, except warp 0 (finish_look_back).
template <int kBlock, StatusOrder kOrder>
__device__ __forceinline__ void publish_tile_aggregate(Value register_sum, Value staged_sum,
                                                       const LookBack<kOrder>& look_back,
                                                       StagedTileSums<kBlock>& sums) {
    constexpr int kWarps = StagedTileSums<kBlock>::kWarps;
    static_assert(2 * kWarps <= kWarpSize, "warp 0 scans every warp's total of both parts");
    const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
    const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
    register_sum = warp_sum(register_sum);
    staged_sum = warp_sum(staged_sum);
    if (lane == 0) {
        sums.offsets[warp] = register_sum;
        sums.offsets[kWarps + warp] = staged_sum;
    }
    __syncthreads();
    if (warp == 0) {
        const Value mine = lane < 2 * kWarps ? sums.offsets[lane] : 0;
        const Value inclusive = warp_inclusive_scan(mine);
        const Value aggregate = __shfl_sync(kFullMask, inclusive, kWarpSize - 1);
        if (lane < 2 * kWarps) {
            sums.offsets[lane] = inclusive - mine;
        }
        if (lane == 0) {
            sums.aggregate = aggregate;
        }
        look_back.publish_aggregate(aggregate);
    }
}

/// Warp 0's look-back, after its own rows: the tile's exclusive prefix into `sums`, its inclusive
/// prefix published. Every thread reads sums.prefix after the next barrier.
template <int kBlock, StatusOrder kOrder>
__device__ __forceinline__ void finish_look_back(const LookBack<kOrder>& look_back,
                                                 StagedTileSums<kBlock>& sums) {
    if (threadIdx.x < kWarpSize) {
        // Only lane 0 reads sums.aggregate (which it wrote), once the look-back is done: no lane
        // holds it in a register during the wait.
        const Value prefix = look_back.look_back_and_publish(sums.aggregate);
        if (threadIdx.x == 0) {
            sums.prefix = prefix;
        }
    }
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

/// The staged tile: kVectors int4 per thread in registers (the tile's first part) and kStaged
/// more in shared memory (its second part), one ticket and one look-back for both. The second
/// part is copied with __pipeline_memcpy_async (cp.async: global to shared memory without
/// registers) before the first is loaded, so both are in flight at once; each thread copies, and
/// later reads and writes back, only its own 16-byte pieces (vector_index), so waiting for its
/// own copies is enough and no barrier is needed between the copy and the scan. A partial tile
/// fills the staging with ordinary loads. Dynamic shared memory: kStaged x kBlock x 16 bytes.
/// The aggregate comes first: the tiles after this one wait for its aggregate, not for its scan,
/// so the block sums its values (a reduction: independent adds, two warp sums, one barrier),
/// publishes the aggregate, and only then scans its rows, while its predecessors finish; warp 0
/// looks back after its own rows, when the words it needs are more likely there. Scanning the rows
/// first, as the one-tile kernel does, puts the scan of every row between the last load and the
/// publication that the next tiles wait for.
/// The blocks per SM the staged kernel asks registers for: 64 registers per thread with up to 8
/// vectors in registers, 128 with more (an SM's 65,536 registers then hold 1024 / block, or 512
/// / block, blocks at once). Without it, ptxas gives 256 x 8 about 110 registers: 2 blocks per SM
/// instead of 4, half the bytes in flight. Before sm_80 there is no cp.async, and
/// __pipeline_memcpy_async copies through registers: twice the registers there.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
inline constexpr int kStagedRegisterScale = 2;
#else
inline constexpr int kStagedRegisterScale = 1;
#endif
constexpr int staged_min_blocks(int block, int vectors) {
    const int registers = (vectors <= 8 ? 64 : 128) * kStagedRegisterScale;
    return 65536 / (registers * block) > 1 ? 65536 / (registers * block) : 1;
}

template <int kBlock, int kVectors, int kStaged, StatusOrder kOrder, bool kExclusive>
__global__ void __launch_bounds__(kBlock, staged_min_blocks(kBlock, kVectors))
    scan_staged_lookback(const Value* in, Value* out, std::size_t n, unsigned int* tile_counter,
                         unsigned int tiles, LookBackState state) {
    constexpr int kWarps = kBlock / kWarpSize;
    constexpr int kRegisterItems = 4 * kVectors * kBlock;
    constexpr int kTileItems = 4 * (kVectors + kStaged) * kBlock;
    extern __shared__ uint4 staging[];  // kStaged x kBlock vectors
    __shared__ StagedTileSums<kBlock> sums;
    __shared__ unsigned int tile_taken;
    if (threadIdx.x == 0) {
        tile_taken = take_tile(tile_counter, tiles);
    }
    __syncthreads();
    const unsigned int tile = tile_taken;
    // No backoff in the staged candidates: with a constant 0 the compiler drops the sleep and its
    // registers, which the 64-register budget needs.
    const LookBack<kOrder> look_back{{state.status, state.error_flag, state.generation,
                                      state.wait_limit_ns, 0},
                                     tile};
    const std::size_t base = static_cast<std::size_t>(tile) * kTileItems;
    const int count = tile_count(n, base, kTileItems);
    const bool full = count == kTileItems;
    const Value* staged_in = in + base + kRegisterItems;
    if (full) {
        const uint4* vectors = reinterpret_cast<const uint4*>(staged_in);
#pragma unroll
        for (int k = 0; k < kStaged; ++k) {
            const int i = vector_index<kStaged>(k);
            __pipeline_memcpy_async(staging + i, vectors + i, sizeof(uint4));
        }
        __pipeline_commit();
    } else {
#pragma unroll
        for (int k = 0; k < kStaged; ++k) {
            const int i = vector_index<kStaged>(k);
            staging[i] = load_partial(staged_in, 4 * i, count - kRegisterItems);
        }
    }
    uint4 v[kVectors];
    load_vectors(in + base, full, count, v);

    // 1. The aggregate, as soon as the values are in.
    const Value register_sum = sum_of_vectors(v);
    if (full) {
        __pipeline_wait_prior(0);  // this thread's copies have landed
    }
    Value staged_sum = 0;
#pragma unroll 4
    for (int k = 0; k < kStaged; ++k) {
        const uint4 staged = staging[vector_index<kStaged>(k)];
        staged_sum = staged_sum + staged.x + staged.y + staged.z + staged.w;
    }
    publish_tile_aggregate<kBlock>(register_sum, staged_sum, look_back, sums);

    // 2. The rows, while the predecessors finish; then warp 0 looks back.
    Value running = 0;
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
        scan_row(v[k], kExclusive, running);
    }
    running = 0;
#pragma unroll 1  // unrolled, ptxas loads every staged row at once and spills at 64 registers
    for (int k = 0; k < kStaged; ++k) {
        const int i = vector_index<kStaged>(k);
        uint4 staged = staging[i];
        scan_row(staged, kExclusive, running);
        staging[i] = staged;
    }
    finish_look_back<kBlock>(look_back, sums);
    __syncthreads();

    // 3. Every value gets the tile's prefix and its warp's offset in its part.
    const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
    store_vectors(out + base, full, count, v, sums.prefix + sums.offsets[warp]);
    Value* staged_out = out + base + kRegisterItems;
    const Value staged_offset = sums.prefix + sums.offsets[kWarps + warp];
#pragma unroll
    for (int k = 0; k < kStaged; ++k) {
        const int i = vector_index<kStaged>(k);
        uint4 staged = staging[i];
        add_to_vector(staged, staged_offset);
        if (full) {
            reinterpret_cast<uint4*>(staged_out)[i] = staged;
        } else {
            store_partial(staged_out, 4 * i, count - kRegisterItems, staged);
        }
    }
}

/// One tile per block: the ticket first, then the tile.
template <int kBlock, int kVectors, StatusOrder kOrder>
__global__ void __launch_bounds__(kBlock)
    scan_vectorized_lookback(const Value* in, Value* out, std::size_t n, bool exclusive,
                             unsigned int* tile_counter, unsigned int tiles, LookBackState state) {
    __shared__ Value warp_offsets[kBlock / kWarpSize];
    __shared__ unsigned int tile_taken;
    if (threadIdx.x == 0) {
        tile_taken = take_tile(tile_counter, tiles);
    }
    __syncthreads();  // no thread can load before the ticket is back
    scan_vectorized_tile<kBlock, kVectors, kOrder>(in, out, n, exclusive, tile_taken, state,
                                                   warp_offsets, [] {});
}

/// Resident blocks: each loops over tiles until its ticket is past the last tile, and takes the
/// next ticket before it scans the current tile. A block holds at most two tickets, both taken
/// while it runs, and scans them in increasing order; it waits only on smaller tiles, whose
/// blocks are running too: the tile with the smallest unfinished ticket can always go on.
/// `tickets`: tiles + gridDim.x, every ticket the launch hands out (each block ends on one past
/// the last tile): the block that draws the very last resets the counter for the next launch.
template <int kBlock, int kVectors, StatusOrder kOrder>
__global__ void __launch_bounds__(kBlock)
    scan_resident_lookback(const Value* in, Value* out, std::size_t n, bool exclusive,
                           unsigned int* tile_counter, unsigned int tiles, unsigned int tickets,
                           LookBackState state) {
    __shared__ Value warp_offsets[kBlock / kWarpSize];
    __shared__ unsigned int next_tile;
    if (threadIdx.x == 0) {
        next_tile = take_tile(tile_counter, tickets);
    }
    __syncthreads();
    unsigned int tile = next_tile;
    while (tile < tiles) {
        // Every thread has read next_tile and the last tile's warp_offsets: both may be rewritten.
        __syncthreads();
        // take_tile() in two halves: the atomic now, and what needs its answer (the store to
        // shared memory, the reset after the launch's last ticket) only at the first barrier,
        // so that no thread waits for the answer before it has issued its loads.
        unsigned int next = 0;
        if (threadIdx.x == 0) {
            next = atomicAdd(tile_counter, 1u);
        }
        const auto hand_over_ticket = [&] {
            if (threadIdx.x == 0) {
                next_tile = next;
                if (next == tickets - 1) {
                    atomicExch(tile_counter, 0u);
                }
            }
        };
        scan_vectorized_tile<kBlock, kVectors, kOrder>(in, out, n, exclusive, tile, state,
                                                       warp_offsets, hand_over_ticket);
        tile = next_tile;  // written before the tile scan's first barrier, read after its last
    }
}

unsigned int tiles_of(std::size_t n, int tile_items) {
    return static_cast<unsigned int>((n + tile_items - 1) / tile_items);
}

template <int kBlock, int kVectors, StatusOrder kOrder = StatusOrder::kRelaxed>
void launch_one_tile_per_block(const LaunchArgs& a, unsigned int backoff_ns) {
    const unsigned int tiles = tiles_of(a.n, 4 * kVectors * kBlock);
    scan_vectorized_lookback<kBlock, kVectors, kOrder><<<tiles, kBlock, 0, a.stream>>>(
        a.in, a.out, a.n, a.exclusive, a.tile_counter, tiles, look_back_state(a, backoff_ns));
    CT_CHECK_LAUNCH();
}

/// The resident grid: the blocks of scan_resident_lookback that fit on the current device at
/// once, at most one per tile.
template <int kBlock, int kVectors, StatusOrder kOrder>
unsigned int resident_grid(unsigned int tiles) {
    int device = 0;
    CT_CHECK(cudaGetDevice(&device));
    int sms = 0;
    CT_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    int per_sm = 0;
    CT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, scan_resident_lookback<kBlock, kVectors, kOrder>, kBlock, 0));
    const unsigned int resident = static_cast<unsigned int>(std::max(1, sms * per_sm));
    return std::min(tiles, resident);
}

template <int kBlock, int kVectors, StatusOrder kOrder>
void launch_resident(const LaunchArgs& a, unsigned int backoff_ns) {
    const unsigned int tiles = tiles_of(a.n, 4 * kVectors * kBlock);
    const unsigned int grid = a.resident_grid != 0 ? std::min(a.resident_grid, tiles)
                                                   : resident_grid<kBlock, kVectors, kOrder>(tiles);
    scan_resident_lookback<kBlock, kVectors, kOrder>
        <<<grid, kBlock, 0, a.stream>>>(a.in, a.out, a.n, a.exclusive, a.tile_counter, tiles,
                                        tiles + grid, look_back_state(a, backoff_ns));
    CT_CHECK_LAUNCH();
}

template <int kBlock, int kVectors, int kStaged>
constexpr int staging_bytes() {
    return kStaged * kBlock * static_cast<int>(sizeof(uint4));
}

/// Lets scan_staged_lookback use its staging (above the 48 KiB a launch may use without asking),
/// once per device; false when the device cannot give a block that much shared memory.
template <int kBlock, int kVectors, int kStaged, StatusOrder kOrder>
bool allow_staging() {
    static int allowed_on = -1;  // the device the attribute was last set on
    int device = 0;
    CT_CHECK(cudaGetDevice(&device));
    if (device == allowed_on) {
        return true;
    }
    int most = 0;
    CT_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    constexpr int kBytes = staging_bytes<kBlock, kVectors, kStaged>();
    for (const auto kernel : {scan_staged_lookback<kBlock, kVectors, kStaged, kOrder, false>,
                              scan_staged_lookback<kBlock, kVectors, kStaged, kOrder, true>}) {
        cudaFuncAttributes attributes{};
        CT_CHECK(cudaFuncGetAttributes(&attributes, kernel));
        if (kBytes + static_cast<int>(attributes.sharedSizeBytes) > most) {
            return false;
        }
        CT_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
    }
    allowed_on = device;
    return true;
}

/// The staged kernel is compiled for each kind (inclusive, exclusive): a run-time flag would cost
/// the registers that the 64-register budget of staged_min_blocks() does not have.
template <int kBlock, int kVectors, int kStaged, StatusOrder kOrder>
void launch_staged(const LaunchArgs& a) {
    if (!allow_staging<kBlock, kVectors, kStaged, kOrder>()) {
        throw std::invalid_argument(
            "stage 7's candidate " + std::to_string(kBlock) + " x " + std::to_string(kVectors) +
            " int4 + " + std::to_string(kStaged) + " in shared memory needs " +
            std::to_string(staging_bytes<kBlock, kVectors, kStaged>() / 1024) +
            " KiB of shared memory per block, more than this GPU gives one block");
    }
    const unsigned int tiles = tiles_of(a.n, 4 * (kVectors + kStaged) * kBlock);
    constexpr int kBytes = staging_bytes<kBlock, kVectors, kStaged>();
    const auto kernel = a.exclusive
                            ? scan_staged_lookback<kBlock, kVectors, kStaged, kOrder, true>
                            : scan_staged_lookback<kBlock, kVectors, kStaged, kOrder, false>;
    kernel<<<tiles, kBlock, kBytes, a.stream>>>(a.in, a.out, a.n, a.tile_counter, tiles,
                                                look_back_state(a));
    CT_CHECK_LAUNCH();
}

// The derived default, without a tuning pass: int4 vectors per thread at each block size.
// Measured on an H100 80GB HBM3 (CUDA 13.0, driver 580.159.04) at n = 2^28, inclusive, median
// of 30 runs, one tile per block, with release/acquire status words (before stage 7 used relaxed
// ones), in ms; CUB took 0.878, the copy 0.713:
//   vectors per thread       2      4      6      8
//   block 128                -  1.129  1.005  0.926
//   block 256            1.345  1.060  0.959  0.925
//   block 512            1.220  0.998      -      -
// More vectors per thread means fewer, larger tiles: the fixed costs of a tile (taking it from
// the counter, two barriers, the look-back) are shared by more values, and each thread has more
// loads in flight. A layout where each thread's values are consecutive (each warp load touching
// 32 pieces of 16 bytes, 16 x vectors bytes apart) measured 1.27 to 1.47 ms at the same shapes,
// slower at every one, and is not kept. At block 256 this is kDefaultLookbackCandidate.
constexpr int vectors_for_block(int block) {
    return block <= 256 ? 8 : block == 512 ? 4 : 1;
}

/// How candidate `c` writes and reads the status words.
constexpr StatusOrder order_of(const LookbackCandidate& c) {
    return c.release_acquire ? StatusOrder::kReleaseAcquire : StatusOrder::kRelaxed;
}

/// Candidate `kIndex` of kLookbackCandidates, launched.
template <int kIndex>
void launch_candidate(const LaunchArgs& a) {
    constexpr LookbackCandidate c = kLookbackCandidates[kIndex];
    if constexpr (c.staged > 0) {
        launch_staged<c.block, c.vectors, c.staged, order_of(c)>(a);
    } else if constexpr (c.resident) {
        launch_resident<c.block, c.vectors, order_of(c)>(a, c.backoff_ns);
    } else {
        launch_one_tile_per_block<c.block, c.vectors, order_of(c)>(a, c.backoff_ns);
    }
}

/// The grid candidate `kIndex` launches over n values.
template <int kIndex>
unsigned int candidate_grid(std::size_t n) {
    constexpr LookbackCandidate c = kLookbackCandidates[kIndex];
    const unsigned int tiles = tiles_of(n, candidate_tile_items(kIndex));
    if constexpr (c.resident) {
        return resident_grid<c.block, c.vectors, order_of(c)>(tiles);
    } else {
        return tiles;
    }
}

/// Whether candidate `kIndex` can run on the current device (a staged one needs its shared
/// memory; every other candidate runs anywhere).
template <int kIndex>
bool candidate_fits() {
    constexpr LookbackCandidate c = kLookbackCandidates[kIndex];
    if constexpr (c.staged > 0) {
        return allow_staging<c.block, c.vectors, c.staged, order_of(c)>();
    } else {
        return true;
    }
}

/// Each candidate's launch, grid and fit, by index (the tuning pass hands an index).
struct CandidateEntry {
    void (*launch)(const LaunchArgs&);
    unsigned int (*grid)(std::size_t n);
    bool (*fits)();
};

template <std::size_t... kIndex>
constexpr std::array<CandidateEntry, sizeof...(kIndex)> make_candidate_entries(
    std::index_sequence<kIndex...>) {
    return {CandidateEntry{launch_candidate<static_cast<int>(kIndex)>,
                           candidate_grid<static_cast<int>(kIndex)>,
                           candidate_fits<static_cast<int>(kIndex)>}...};
}

constexpr std::array<CandidateEntry, kLookbackCandidateCount> kCandidateEntries =
    make_candidate_entries(std::make_index_sequence<kLookbackCandidateCount>{});

}  // namespace

int vectorized_items_per_thread(int block) {
    return 4 * vectors_for_block(block);
}

void launch_vectorized_lookback(const LaunchArgs& a) {
    if (a.candidate >= 0) {
        check_candidate(a.candidate);
        kCandidateEntries[a.candidate].launch(a);
        return;
    }
    with_block_size(AllBlockSizes{}, a.block, "vectorized_lookback", [&](auto block) {
        launch_one_tile_per_block<block(), vectors_for_block(block())>(a, 0);
    });
}

unsigned int vectorized_lookback_grid(int index, std::size_t n) {
    check_candidate(index);
    return kCandidateEntries[index].grid(n);
}

std::string describe_candidate(int index) {
    check_candidate(index);
    const LookbackCandidate& c = kLookbackCandidates[index];
    std::string text = std::to_string(c.block) + " x " + std::to_string(c.vectors) + " int4";
    if (c.staged > 0) {
        text += " + " + std::to_string(c.staged) + " in shared memory";
    }
    text += c.resident ? ", resident blocks" : ", one tile per block";
    if (c.backoff_ns != 0) {
        text += ", backoff " + std::to_string(c.backoff_ns) + " ns";
    }
    if (c.release_acquire) {
        text += ", release/acquire";
    }
    return text;
}

bool candidate_fits(int index) {
    check_candidate(index);
    return kCandidateEntries[index].fits();
}

void check_candidate(int index) {
    if (index < 0 || index >= kLookbackCandidateCount) {
        throw std::invalid_argument("stage 7 has no candidate " + std::to_string(index) +
                                    " (it has " + std::to_string(kLookbackCandidateCount) + ")");
    }
}

}  // namespace scan::detail
