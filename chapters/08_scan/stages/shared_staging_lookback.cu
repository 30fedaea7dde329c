// Stage 7's third kind of kernel, a candidate of its tuning pass (lookback_candidates.hpp): the
// tile extended in shared memory. Each thread copies more int4 vectors into shared memory with
// cp.async before it loads its register vectors, so that an SM holds in flight the bytes its
// registers can hold and those its shared memory can: on an H100, without the look-back, stage 7
// runs at the copy's speed, and what the look-back costs is the time a block waits holding its
// tile; the more bytes each SM holds, the more of that wait other blocks cover with loads.
// It also publishes the tile's aggregate before it scans its rows: the next tiles wait for the
// aggregate and nothing else, so a block that sums first and scans while its predecessors finish
// shortens every wait after it.
// What to look for: in the tuning pass's header, whether a staged candidate beats the register-
// only ones (stage7_vectorized_lookback.cu), and by more than the spread between neighbouring
// shapes.
#include <cuda_pipeline.h>

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include "lookback_candidates.hpp"
#include "scan_launchers.hpp"
#include "vectorized_tile.cuh"

namespace scan::detail {
namespace {

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
    const LookBack<kOrder> look_back{
        {state.status, state.error_flag, state.generation, state.wait_limit_ns, 0}, tile};
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

/// Candidate `kIndex`'s launch and fit when it is staged; nulls for the others.
template <int kIndex>
constexpr StagedCandidate staged_entry() {
    constexpr LookbackCandidate c = kLookbackCandidates[kIndex];
    if constexpr (c.staged > 0) {
        return {launch_staged<c.block, c.vectors, c.staged, order_of(c)>,
                allow_staging<c.block, c.vectors, c.staged, order_of(c)>};
    } else {
        return {};
    }
}

template <std::size_t... kIndex>
constexpr std::array<StagedCandidate, sizeof...(kIndex)> make_staged_entries(
    std::index_sequence<kIndex...>) {
    return {staged_entry<static_cast<int>(kIndex)>()...};
}

constexpr std::array<StagedCandidate, kLookbackCandidateCount> kStagedEntries =
    make_staged_entries(std::make_index_sequence<kLookbackCandidateCount>{});

}  // namespace

StagedCandidate staged_candidate(int index) {
    check_candidate(index);
    return kStagedEntries[static_cast<std::size_t>(index)];
}

}  // namespace scan::detail
