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
// A third family, which extends the tile in shared memory, is in shared_staging_lookback.cu.
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
#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "lookback_candidates.hpp"
#include "vectorized_tile.cuh"

namespace scan::detail {
namespace {

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

/// Candidate `kIndex` of kLookbackCandidates, launched.
template <int kIndex>
void launch_candidate(const LaunchArgs& a) {
    constexpr LookbackCandidate c = kLookbackCandidates[kIndex];
    if constexpr (c.staged > 0) {
        staged_candidate(kIndex).launch(a);  // shared_staging_lookback.cu
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
        return staged_candidate(kIndex).fits();
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

// The stage's row in the stage list (scan.hpp): the build collects it from this file.
namespace scan::rows {

StageInfo stage7_vectorized_lookback_row() {
    StageInfo row("7", "vectorized_lookback",
                  "stage 6 with int4 loads, several vectors per thread, the shape tuned per run");
    row.launch = detail::launch_vectorized_lookback;
    row.method = Method::kSinglePass;
    row.items_per_thread_at = detail::vectorized_items_per_thread;
    row.uses_tuner = true;
    return row;
}

}  // namespace scan::rows
