// Stage 3 - Blelloch with padding: the same sweeps without bank conflicts.
//
// What changed from stage 2: only where each value lives in shared memory. Value i is stored at
// i + i/32 + i/1024 instead of i: one spare word after every 32 (and one more after every 1024),
// so that values a multiple of 32 apart, which stage 2 put in one bank, now fall in different
// banks. The sweeps, the adds and the barriers are stage 2's, index for index.
//
//   value      0 ... 31 | 32 ... 63 | 64 ...
//   word       0 ... 31 | 33 ... 64 | 66 ...      (words 32, 65, ... are never used)
//
// With both terms, no level of either sweep has two lanes of a warp on one bank, for every tile
// size from 64 to 2048 values (with i/32 alone, the levels at distances 32 to 512 of the
// 2048-value tile keep 2-way conflicts: the deep dive counts them). The loads and stores still go
// to consecutive words. Cost: 1/32 more shared memory and an add or two per index.
// Why it should be faster: a conflict serializes a warp's shared-memory access; the sweeps are
// mostly such accesses, so removing up to 32-way conflicts shortens every deep level.
// What to look for: the largest step of stages 1-4 (1.56x over stage 2 on an H100 at n = 2^28,
// faster than stage 1 too): the conflicts were what cost stage 2 its time, not the adds.
#include "scan_then_propagate.cuh"

namespace scan::detail {
namespace {

/// Where value i of the tile lives: one padding word per 32 values, one more per 1024.
__device__ __forceinline__ int padded(int i) {
    return i + (i >> 5) + (i >> 10);
}

template <int kBlock>
struct BlellochPaddedTileScan {
    static constexpr int kBlockThreads = kBlock;
    static constexpr int kTileItems = 2 * kBlock;
    static constexpr int kPaddedItems =
        kTileItems + (kTileItems - 1) / 32 + (kTileItems - 1) / 1024;

    struct Storage {
        Value data[kPaddedItems];
        Value total;
        Value seed;
    };

    template <typename PrefixOp>
    __device__ static void scan(const Value* in, Value* out, int count, bool exclusive, Storage& s,
                                const PrefixOp& prefix_of) {
        const int t = static_cast<int>(threadIdx.x);
        const Value x0 = t < count ? in[t] : 0;
        const Value x1 = t + kBlock < count ? in[t + kBlock] : 0;
        s.data[padded(t)] = x0;
        s.data[padded(t + kBlock)] = x1;

        int distance = 1;
        for (int active = kTileItems / 2; active > 0; active /= 2) {
            __syncthreads();
            if (t < active) {
                const int left = distance * (2 * t + 1) - 1;
                const int right = distance * (2 * t + 2) - 1;
                s.data[padded(right)] += s.data[padded(left)];
            }
            distance *= 2;
        }
        __syncthreads();
        if (t == 0) {
            s.total = s.data[padded(kTileItems - 1)];
            s.data[padded(kTileItems - 1)] = 0;
        }
        for (int active = 1; active < kTileItems; active *= 2) {
            distance /= 2;
            __syncthreads();
            if (t < active) {
                const int left = padded(distance * (2 * t + 1) - 1);
                const int right = padded(distance * (2 * t + 2) - 1);
                const Value left_sum = s.data[left];
                s.data[left] = s.data[right];
                s.data[right] += left_sum;
            }
        }
        __syncthreads();
        if (t < kWarpSize) {
            const Value seed = prefix_of(s.total);
            if (t == 0) {
                s.seed = seed;
            }
        }
        __syncthreads();
        const Value seed = s.seed;
        if (t < count) {
            out[t] = seed + s.data[padded(t)] + (exclusive ? 0 : x0);
        }
        if (t + kBlock < count) {
            out[t + kBlock] = seed + s.data[padded(t + kBlock)] + (exclusive ? 0 : x1);
        }
    }
};

void launch_blelloch_padded(const LaunchArgs& a) {
    with_block_size(AllBlockSizes{}, a.block, "blelloch_padded", [&](auto block) {
        scan_then_propagate<BlellochPaddedTileScan<block()>>(a.in, a.out, a.n, a.exclusive,
                                                             a.level_totals, a.stream);
    });
}

}  // namespace

}  // namespace scan::detail

// The stage's row in the stage list (scan.hpp): the build collects it from this file.
namespace scan::rows {

StageInfo stage3_blelloch_padded_row() {
    StageInfo row("3", "blelloch_padded",
                  "stage 2 with a padding word every 32: no bank conflicts");
    row.launch = detail::launch_blelloch_padded;
    return row;
}

}  // namespace scan::rows
