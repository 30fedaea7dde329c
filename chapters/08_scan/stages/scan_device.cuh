// What the stage files share: the block-size dispatch, the warp and block scans built from
// __shfl_up_sync (stage 4's idea, reused by stages 5-7), the tile scan of stages 4-6x, the
// prefix operations a tile scan takes, and the decoupled look-back of stages 6, 6x and 7 (the
// tile status word, its publication (release/acquire or relaxed), the bounded wait and its
// optional backoff).
// Device code: include from .cu files only.
#pragma once

#include <cuda_runtime.h>
#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_clocks.cuh"
#include "scan_launchers.hpp"

namespace scan::detail {

inline constexpr unsigned int kFullMask = 0xffffffffu;
inline constexpr int kWarpSize = 32;

// ---------------------------------------------------------------------------------------------
// Block sizes: a kernel templated on its block size is instantiated for the sizes in its list,
// and the launcher picks the instantiation at run time.

template <int... kBlocks>
struct BlockSizes {};

/// Calls f(std::integral_constant<int, block>) for the entry of `sizes` equal to `block`; throws
/// std::invalid_argument naming `stage` when there is none (validate_configuration() rejects
/// such sizes before any launch).
template <int kFirst, int... kRest, typename F>
void with_block_size(BlockSizes<kFirst, kRest...>, int block, const char* stage, F&& f) {
    if (block == kFirst) {
        f(std::integral_constant<int, kFirst>{});
        return;
    }
    if constexpr (sizeof...(kRest) > 0) {
        with_block_size(BlockSizes<kRest...>{}, block, stage, f);
    } else {
        throw std::invalid_argument(std::string("stage ") + stage +
                                    " has no kernel for block size " + std::to_string(block));
    }
}

using AllBlockSizes = BlockSizes<32, 64, 128, 256, 512, 1024>;

/// How many values of a tile of `tile_items` starting at `base` lie below n (1..tile_items).
__device__ __forceinline__ int tile_count(std::size_t n, std::size_t base, int tile_items) {
    const std::size_t left = n - base;
    return left < static_cast<std::size_t>(tile_items) ? static_cast<int>(left) : tile_items;
}

// ---------------------------------------------------------------------------------------------
// Warp and block scans in registers (stage 4's idea)

/// Inclusive scan across the 32 lanes of a warp, register to register: after the step with
/// offset d, lane i holds the sum of lanes i-2d+1..i (Kogge-Stone inside one warp: 5 shuffles,
/// no shared memory, no barrier). Every lane of the warp must call it.
__device__ __forceinline__ Value warp_inclusive_scan(Value value) {
    const unsigned int lane = threadIdx.x % kWarpSize;
#pragma unroll
    for (unsigned int offset = 1; offset < kWarpSize; offset *= 2) {
        const Value below = __shfl_up_sync(kFullMask, value, offset);
        if (lane >= offset) {
            value += below;
        }
    }
    return value;
}

/// The sum of `value` over the warp, in every lane (butterfly: 5 shuffles).
__device__ __forceinline__ Value warp_sum(Value value) {
#pragma unroll
    for (unsigned int offset = kWarpSize / 2; offset > 0; offset /= 2) {
        value += __shfl_xor_sync(kFullMask, value, offset);
    }
    return value;
}

/// Inclusive scan of one value per thread across a block of kBlock threads: each warp scans in
/// registers, the last lane of each warp leaves its warp's total in `warp_totals` (shared, one
/// per warp), the first warp scans those totals, and each warp adds the totals of the warps
/// before it. `total` receives the block's sum in every thread. Ends with threads reading
/// `warp_totals`: a second call on the same storage needs a __syncthreads() before it.
template <int kBlock>
__device__ __forceinline__ Value block_inclusive_scan(Value value, Value* warp_totals,
                                                      Value& total) {
    constexpr int kWarps = kBlock / kWarpSize;
    static_assert(kWarps >= 1 && kWarps <= kWarpSize, "one warp scans the warp totals");
    const Value inclusive = warp_inclusive_scan(value);
    if constexpr (kWarps == 1) {
        total = __shfl_sync(kFullMask, inclusive, kWarpSize - 1);
        return inclusive;
    } else {
        const unsigned int lane = threadIdx.x % kWarpSize;
        const unsigned int warp = threadIdx.x / kWarpSize;
        if (lane == kWarpSize - 1) {
            warp_totals[warp] = inclusive;
        }
        __syncthreads();
        if (warp == 0) {
            const Value mine = lane < kWarps ? warp_totals[lane] : 0;
            const Value scanned = warp_inclusive_scan(mine);
            if (lane < kWarps) {
                warp_totals[lane] = scanned;
            }
        }
        __syncthreads();
        total = warp_totals[kWarps - 1];
        return warp == 0 ? inclusive : inclusive + warp_totals[warp - 1];
    }
}

/// The sum of one value per thread across the block, valid in thread 0 (stage 5's reduction).
template <int kBlock>
__device__ __forceinline__ Value block_sum(Value value, Value* warp_totals) {
    constexpr int kWarps = kBlock / kWarpSize;
    value = warp_sum(value);
    if constexpr (kWarps == 1) {
        return value;
    } else {
        const unsigned int lane = threadIdx.x % kWarpSize;
        const unsigned int warp = threadIdx.x / kWarpSize;
        if (lane == 0) {
            warp_totals[warp] = value;
        }
        __syncthreads();
        Value sum = 0;
        if (warp == 0) {
            sum = warp_sum(lane < kWarps ? warp_totals[lane] : 0);
        }
        return sum;
    }
}

// ---------------------------------------------------------------------------------------------
// Prefix operations. A tile scan calls prefix_of(tile_total) once the tile's total is known and
// before it writes anything: every lane of warp 0 calls it (a look-back needs a whole warp), and
// lane 0's answer is added to every output of the tile.

/// Scan-then-propagate's first kernel: the tile starts from 0, and lane 0 records the tile's total
/// for the next level (nothing to record when the input is one tile: `totals` null).
struct RecordTotal {
    Value* totals = nullptr;
    unsigned int tile = 0;
    __device__ Value operator()(Value tile_total) const {
        if (totals != nullptr && threadIdx.x == 0) {
            totals[tile] = tile_total;
        }
        return 0;
    }
};

/// Reduce-then-scan's last kernel: the tile starts from its carry, the scanned totals of the
/// tiles before it (no carries when the input is one tile: `carries` null).
struct CarryIn {
    const Value* carries = nullptr;
    unsigned int tile = 0;
    __device__ Value operator()(Value) const { return carries != nullptr ? carries[tile] : 0; }
};

// ---------------------------------------------------------------------------------------------
// Stage 4's tile scan, reused by stages 5, 6 and 6x: a tile of 2 x kBlock values, each thread
// scanning two neighbours in registers, then block_inclusive_scan over the pairs.

template <int kBlock>
struct WarpShuffleTileScan {
    static constexpr int kBlockThreads = kBlock;
    static constexpr int kTileItems = 2 * kBlock;

    struct Storage {
        alignas(16) Value tile[kTileItems];  ///< the tile, staged for coalesced loads and stores
        Value warp_totals[kBlock / kWarpSize];
        Value seed;  ///< prefix_of's answer, for every thread
    };

    /// Scans in[0..count) into out[0..count) (count <= kTileItems; missing values count as 0),
    /// starting from prefix_of(tile total). Called by every thread of the block.
    template <typename PrefixOp>
    __device__ static void scan(const Value* in, Value* out, int count, bool exclusive, Storage& s,
                                const PrefixOp& prefix_of) {
        const int t = static_cast<int>(threadIdx.x);
        // Loads at t and t + kBlock: consecutive threads, consecutive addresses (coalesced).
        s.tile[t] = t < count ? in[t] : 0;
        s.tile[t + kBlock] = t + kBlock < count ? in[t + kBlock] : 0;
        __syncthreads();
        // Each thread takes the neighbours 2t and 2t+1 in one 8-byte read (no bank conflict).
        const uint2 pair = reinterpret_cast<const uint2*>(s.tile)[t];
        const Value pair_sum = pair.x + pair.y;
        Value total = 0;
        const Value inclusive = block_inclusive_scan<kBlock>(pair_sum, s.warp_totals, total);
        if (t < kWarpSize) {
            const Value seed = prefix_of(total);
            if (t == 0) {
                s.seed = seed;
            }
        }
        __syncthreads();  // s.seed is set; every read of s.tile above is done
        const Value before = s.seed + (inclusive - pair_sum);  // everything before value 2t
        reinterpret_cast<uint2*>(s.tile)[t] = exclusive
                                                  ? make_uint2(before, before + pair.x)
                                                  : make_uint2(before + pair.x, before + pair_sum);
        __syncthreads();
        if (t < count) {
            out[t] = s.tile[t];
        }
        if (t + kBlock < count) {
            out[t + kBlock] = s.tile[t + kBlock];
        }
    }
};

// ---------------------------------------------------------------------------------------------
// Decoupled look-back (stages 6, 6x, 7; Merrill and Garland's single-pass chained scan)
//
// Each tile publishes its status in one 64-bit word: the high 32 bits are (generation << 2) |
// flag, the low 32 bits the value, so that a reader can never see a flag with another value than
// the one published with it. The flag says what the value is:
//   kAggregate        the tile's own total (published as soon as the tile is scanned),
//   kInclusivePrefix  the sum of every value up to the end of the tile (published once known).
// A word whose generation is not this run's is "invalid": not published yet in this run. Each
// run has a new generation (1..2^30-1, counted by the Scanner), so the words never need clearing
// between runs, only once when they are allocated (zero is no run's generation).

inline constexpr unsigned int kAggregate = 1;
inline constexpr unsigned int kInclusivePrefix = 2;

__device__ __forceinline__ unsigned long long pack_status(unsigned int generation,
                                                          unsigned int flag, Value value) {
    return (static_cast<unsigned long long>((generation << 2) | flag) << 32) | value;
}
__device__ __forceinline__ unsigned int status_generation(unsigned long long word) {
    return static_cast<unsigned int>(word >> 34);
}
__device__ __forceinline__ unsigned int status_flag(unsigned long long word) {
    return static_cast<unsigned int>(word >> 32) & 3u;
}
__device__ __forceinline__ Value status_value(unsigned long long word) {
    return static_cast<Value>(word);
}

/// How the status words are written and read. Both are correct for this protocol, because the
/// reader uses nothing but the word itself (the deep dive's memory-model argument):
///   kReleaseAcquire  st.release.gpu / ld.acquire.gpu: "everything I wrote before this word is
///                    yours", the protocol stated in the code (stages 6 and 6x);
///   kRelaxed         st.relaxed.gpu / ld.relaxed.gpu: the word and nothing else, which is all
///                    the look-back needs, and no fence around each access (stage 7).
enum class StatusOrder { kReleaseAcquire, kRelaxed };

/// One atomic 64-bit store of the word at device scope. With kReleaseAcquire, a reader that sees
/// the word with an acquire load also sees everything this thread wrote before it.
template <StatusOrder kOrder>
__device__ __forceinline__ void publish_status(unsigned long long* status, unsigned int tile,
                                               unsigned long long word) {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> ref(status[tile]);
    ref.store(word, kOrder == StatusOrder::kRelaxed ? cuda::memory_order_relaxed
                                                    : cuda::memory_order_release);
}

/// One atomic 64-bit load of the word at device scope, the pair of publish_status().
template <StatusOrder kOrder>
__device__ __forceinline__ unsigned long long read_status(unsigned long long* status,
                                                          unsigned int tile) {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> ref(status[tile]);
    return ref.load(kOrder == StatusOrder::kRelaxed ? cuda::memory_order_relaxed
                                                    : cuda::memory_order_acquire);
}

/// Whether a block of this run has given up. The flag holds the generation (run number) of the
/// last run that raised it, so a run's flag is fresh without a memset: a flag raised by the
/// warm-up run does not make the timed runs give up at their first wait.
__device__ __forceinline__ bool error_raised(unsigned int* error_flag, unsigned int generation) {
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> ref(*error_flag);
    return ref.load(cuda::memory_order_relaxed) == generation;
}

__device__ __forceinline__ void raise_error(unsigned int* error_flag, unsigned int generation) {
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> ref(*error_flag);
    ref.store(generation, cuda::memory_order_relaxed);
}

/// Thread 0's tile: the next from a global counter, so that tiles are taken in the order blocks
/// start and a block only ever waits on tiles taken by blocks already running. `tiles` is how
/// many tickets the launch hands out in all (one per block; stage 7's resident blocks: one per
/// tile plus the one each block ends on). The block that takes the last sets the counter back to
/// 0: every ticket has been taken by then, and the next launch starts from 0 without a memset.
__device__ __forceinline__ unsigned int take_tile(unsigned int* counter, unsigned int tiles) {
    const unsigned int tile = atomicAdd(counter, 1u);
    if (tile == tiles - 1) {
        atomicExch(counter, 0u);
    }
    return tile;
}

/// The look-back, by the 32 lanes of one warp: the exclusive prefix of `tile` from the words
/// of its predecessors, 32 at a time (lane i reads tile - 1 - i, then 32 tiles further back).
/// Once no word of the window is invalid, a ballot finds the nearest inclusive prefix: the
/// lanes up to it add their values and the look-back ends; without one, the 32 aggregates are
/// added and the window moves back. Every wait is bounded: after `wait_limit_ns` of
/// %globaltimer, or as soon as another block has given up, it raises the error flag and returns
/// false (the prefix is then wrong, and the host reports the run as failed).
/// `backoff_ns` 0: the warp polls back to back. Otherwise it sleeps between polls (__nanosleep),
/// 32 ns at first, doubling up to `backoff_ns`: fewer loads of words that are not ready compete
/// with the loads of the blocks that are still scanning. The time limit bounds the wait either way.
template <StatusOrder kOrder>
__device__ __forceinline__ bool look_back(unsigned long long* status, unsigned int tile,
                                          unsigned int generation, unsigned int* error_flag,
                                          unsigned long long wait_limit_ns, unsigned int backoff_ns,
                                          Value& exclusive) {
    const unsigned int lane = threadIdx.x % kWarpSize;
    long long window_end = tile;  // the window is tiles window_end - 32 .. window_end - 1
    unsigned long long wait_started = 0;
    unsigned int sleep_ns = backoff_ns < 32 ? backoff_ns : 32;
    Value sum = 0;
    for (;;) {
        const long long predecessor = window_end - 1 - static_cast<long long>(lane);
        unsigned long long word = 0;
        for (;;) {
            // Before tile 0 there is nothing: an inclusive prefix of 0 ends the look-back there.
            word = predecessor >= 0
                       ? read_status<kOrder>(status, static_cast<unsigned int>(predecessor))
                       : pack_status(generation, kInclusivePrefix, 0);
            if (!__any_sync(kFullMask, status_generation(word) != generation)) {
                break;
            }
            const unsigned long long now = cudatutorial::global_timer_ns();
            if (wait_started == 0) {
                wait_started = now;
            }
            const bool give_up =
                now - wait_started > wait_limit_ns || error_raised(error_flag, generation);
            if (__any_sync(kFullMask, give_up)) {
                if (lane == 0) {
                    raise_error(error_flag, generation);
                }
                return false;
            }
            if (sleep_ns != 0) {
                __nanosleep(sleep_ns);
                sleep_ns = 2 * sleep_ns < backoff_ns ? 2 * sleep_ns : backoff_ns;
            }
        }
        const unsigned int prefixes =
            __ballot_sync(kFullMask, status_flag(word) == kInclusivePrefix);
        // Lane 0 is the nearest predecessor: the lowest lane with a prefix is the nearest prefix.
        const unsigned int last_lane = prefixes != 0 ? __ffs(prefixes) - 1 : kWarpSize - 1;
        sum += warp_sum(lane <= last_lane ? status_value(word) : 0);
        if (prefixes != 0) {
            exclusive = sum;
            return true;
        }
        window_end -= kWarpSize;
    }
}

/// What the single-pass kernels share about the run: the status words, the error flag, this
/// run's generation, the wait limit and the wait's backoff (0: none; stage 7's candidates).
struct LookBackState {
    unsigned long long* status = nullptr;
    unsigned int* error_flag = nullptr;
    unsigned int generation = 1;
    unsigned long long wait_limit_ns = 0;
    unsigned int backoff_ns = 0;
};

inline LookBackState look_back_state(const LaunchArgs& args, unsigned int backoff_ns = 0) {
    return {args.tile_status, args.error_flag, args.generation, args.wait_limit_ns, backoff_ns};
}

/// The prefix operation of the single-pass stages: publish the tile's aggregate (tile 0: its
/// inclusive prefix, it has no predecessor), look back, publish the inclusive prefix, and return
/// the exclusive prefix. A look-back that gave up publishes nothing more. kOrder: how the status
/// words are written and read (stages 6 and 6x: release/acquire; stage 7: relaxed).
/// The two steps can also be taken apart (stage 7's staged tiles publish the aggregate as soon as
/// they know it, and look back later): publish_aggregate(), then look_back_and_publish().
template <StatusOrder kOrder = StatusOrder::kReleaseAcquire>
struct LookBack {
    LookBackState state;
    unsigned int tile = 0;

    /// Step 1, lane 0's store: the tile's aggregate, or tile 0's inclusive prefix.
    __device__ void publish_aggregate(Value aggregate) const {
        if (threadIdx.x % kWarpSize == 0) {
            publish_status<kOrder>(
                state.status, tile,
                pack_status(state.generation, tile == 0 ? kInclusivePrefix : kAggregate, aggregate));
        }
    }

    /// Step 2, by every lane of one warp: the tile's exclusive prefix (tile 0: 0), its inclusive
    /// prefix published once known. Lane 0 alone reads `aggregate`, after the look-back (it may
    /// be in shared memory, written by lane 0).
    __device__ Value look_back_and_publish(const Value& aggregate) const {
        if (tile == 0) {
            return 0;
        }
        Value exclusive = 0;
        if (look_back<kOrder>(state.status, tile, state.generation, state.error_flag,
                              state.wait_limit_ns, state.backoff_ns, exclusive) &&
            threadIdx.x % kWarpSize == 0) {
            publish_status<kOrder>(
                state.status, tile,
                pack_status(state.generation, kInclusivePrefix, exclusive + aggregate));
        }
        return exclusive;
    }

    __device__ Value operator()(Value aggregate) const {
        publish_aggregate(aggregate);
        return look_back_and_publish(aggregate);
    }
};

}  // namespace scan::detail
