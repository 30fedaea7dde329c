// Stage 2 - Blelloch (Brent-Kung) block scan: work-efficient, with bank conflicts.
//
// What changed from stage 1: the same tile of 2 x block values is scanned in two sweeps over a
// balanced tree, in place, instead of log2 full steps:
//   up-sweep (reduce):  pairs at distance 1, 2, 4, ... are added into the right one of each pair;
//                       the last value ends up holding the tile's total;
//   down-sweep:         the last value is set to 0, then going back down the tree each left
//                       child takes its parent's value and each right child parent + old left.
// What is left is the exclusive scan of the tile. Each sweep does 2B - 1 adds in all: about 4B
// adds where stage 1 did 2B log2(2B) - (2B - 1) (4.0 times fewer at B = 256), in one buffer; the
// price is twice as many levels, with fewer threads busy at each. Why it should be faster: less
// work. The catch: at distance d the active threads touch the shared-memory words d*(2t+1) - 1 and
// d*(2t+2) - 1, a stride of 2d words. Shared memory has 32 banks of 4-byte words, and words 32
// apart sit in the same bank: lanes t and t + 16 collide at d = 1 (a 2-way bank conflict: the
// accesses are served one after the other), 4 lanes at d = 2, ..., every active lane on one bank
// from d = 16 on (16-way at most in a tile of 512, 32-way in one of 2048). Stage 3 removes them.
// What to look for: on an H100, slower than stage 1 (0.78x at n = 2^28) despite the adds it
// saves: twice as many levels, each behind a barrier, and conflicts at the deep ones. Less work
// is not less time while the time goes to barriers and conflicts.
#include "scan_then_propagate.cuh"

namespace scan::detail {
namespace {

template <int kBlock>
struct BlellochTileScan {
    static constexpr int kBlockThreads = kBlock;
    static constexpr int kTileItems = 2 * kBlock;

    struct Storage {
        Value data[kTileItems];
        Value total;
        Value seed;
    };

    template <typename PrefixOp>
    __device__ static void scan(const Value* in, Value* out, int count, bool exclusive, Storage& s,
                                const PrefixOp& prefix_of) {
        const int t = static_cast<int>(threadIdx.x);
        const Value x0 = t < count ? in[t] : 0;
        const Value x1 = t + kBlock < count ? in[t + kBlock] : 0;
        s.data[t] = x0;
        s.data[t + kBlock] = x1;

        // Up-sweep: after the level with distance d, data[k*2d - 1] holds the sum of its 2d
        // values.
        int distance = 1;
        for (int active = kTileItems / 2; active > 0; active /= 2) {
            __syncthreads();
            if (t < active) {
                const int left = distance * (2 * t + 1) - 1;
                const int right = distance * (2 * t + 2) - 1;
                s.data[right] += s.data[left];
            }
            distance *= 2;
        }
        __syncthreads();
        // EXERCISE BEGIN: the down-sweep. Thread 0 keeps the tile's total (its last value) in
        // EXERCISE HINT: s.total and sets the last value to 0, the root's prefix. Then one level
        // EXERCISE HINT: per step: active = 1, 2, 4, ... threads, distance halving from
        // EXERCISE HINT: kTileItems / 2 (it is kTileItems after the up-sweep), a barrier before
        // EXERCISE HINT: each level; thread t < active takes left = distance * (2t + 1) - 1 and
        // EXERCISE HINT: right = distance * (2t + 2) - 1: the left child gets the parent's value
        // EXERCISE HINT: (data[right]), the right child the parent's value plus the left's old one
        if (t == 0) {
            s.total = s.data[kTileItems - 1];
            s.data[kTileItems - 1] = 0;  // the exclusive prefix of the whole tile
        }
        // Down-sweep: each left child takes its parent's prefix, each right child the parent's
        // prefix plus the left child's old sum.
        for (int active = 1; active < kTileItems; active *= 2) {
            distance /= 2;
            __syncthreads();
            if (t < active) {
                const int left = distance * (2 * t + 1) - 1;
                const int right = distance * (2 * t + 2) - 1;
                const Value left_sum = s.data[left];
                s.data[left] = s.data[right];
                s.data[right] += left_sum;
            }
        }
        // EXERCISE END
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
            out[t] = seed + s.data[t] + (exclusive ? 0 : x0);
        }
        if (t + kBlock < count) {
            out[t + kBlock] = seed + s.data[t + kBlock] + (exclusive ? 0 : x1);
        }
    }
};

void launch_blelloch(const LaunchArgs& a) {
    with_block_size(AllBlockSizes{}, a.block, "blelloch", [&](auto block) {
        scan_then_propagate<BlellochTileScan<block()>>(a.in, a.out, a.n, a.exclusive,
                                                       a.level_totals, a.stream);
    });
}

}  // namespace

}  // namespace scan::detail

// The stage's row in the stage list (scan.hpp): the build collects it from this file.
namespace scan::rows {

StageInfo stage2_blelloch_row() {
    StageInfo row("2", "blelloch",
                  "up-sweep and down-sweep of a tree: about 4B adds, bank conflicts");
    row.launch = detail::launch_blelloch;
    return row;
}

}  // namespace scan::rows
