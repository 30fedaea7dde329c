// Stage 1 - Hillis-Steele (Kogge-Stone) block scan: the naive parallel scan.
//
// The first parallel answer: after step d, value i holds the sum of the 2^d values ending at i.
// Each step every value adds the one `offset` places to its left, and the offset doubles:
//
//   in         x0  x1     x2        x3           ...
//   offset 1   x0  x0+x1  x1+x2     x2+x3
//   offset 2   x0  x0+x1  x0+..+x2  x0+..+x3
//   offset 4   ...                                  log2(tile) steps in all
//
// A step reads values that other threads overwrite in the same step, so each step reads one
// buffer and writes the other (a double buffer in shared memory), with a __syncthreads() between
// steps so that nobody reads a value before it is written. A tile of 2 x block values takes
// log2(2B) steps; the step at offset d adds in 2B - d lanes (the first d have no partner), so
// 2B log2(2B) - (2B - 1) adds in all where a sequential scan needs 2B - 1. With B = 256: 9 steps,
// each followed by a barrier, 4097 adds: 4.0 times stage 2's work-efficient scan (1022).
// The whole input is covered by the frame of scan_then_propagate.cuh (scan tiles, scan their
// totals, add the carries), which stays the same up to stage 4: only the block scan changes.
// What to look for: about a quarter of the copy's speed on an H100: the frame moves the values
// four times, and the tile scan does 8 times the adds of a sequential scan (at B = 256). Stage 2
// does less work.
#include "scan_then_propagate.cuh"

namespace scan::detail {
namespace {

template <int kBlock>
struct HillisSteeleTileScan {
    static constexpr int kBlockThreads = kBlock;
    static constexpr int kTileItems = 2 * kBlock;

    struct Storage {
        Value buffer[2][kTileItems];  ///< step d reads buffer[d % 2], writes the other
        Value seed;
    };

    template <typename PrefixOp>
    __device__ static void scan(const Value* in, Value* out, int count, bool exclusive, Storage& s,
                                const PrefixOp& prefix_of) {
        const int t = static_cast<int>(threadIdx.x);
        // Each thread owns the values t and t + kBlock (coalesced loads and stores).
        const Value x0 = t < count ? in[t] : 0;
        const Value x1 = t + kBlock < count ? in[t + kBlock] : 0;
        s.buffer[0][t] = x0;
        s.buffer[0][t + kBlock] = x1;
        __syncthreads();
        int src = 0;
        for (int offset = 1; offset < kTileItems; offset *= 2) {
            for (int i = t; i < kTileItems; i += kBlock) {
                Value v = s.buffer[src][i];
                if (i >= offset) {
                    v += s.buffer[src][i - offset];
                }
                s.buffer[1 - src][i] = v;
            }
            __syncthreads();  // the step is complete before anyone reads it
            src = 1 - src;
        }
        if (t < kWarpSize) {  // the inclusive scan's last value is the tile's total
            const Value seed = prefix_of(s.buffer[src][kTileItems - 1]);
            if (t == 0) {
                s.seed = seed;
            }
        }
        __syncthreads();
        // Inclusive minus the value itself is exact modulo 2^32: the exclusive scan.
        const Value seed = s.seed;
        if (t < count) {
            out[t] = seed + s.buffer[src][t] - (exclusive ? x0 : 0);
        }
        if (t + kBlock < count) {
            out[t + kBlock] = seed + s.buffer[src][t + kBlock] - (exclusive ? x1 : 0);
        }
    }
};

void launch_hillis_steele(const LaunchArgs& a) {
    with_block_size(AllBlockSizes{}, a.block, "hillis_steele", [&](auto block) {
        scan_then_propagate<HillisSteeleTileScan<block()>>(a.in, a.out, a.n, a.exclusive,
                                                           a.level_totals, a.stream);
    });
}

}  // namespace

}  // namespace scan::detail

// The stage's row in the stage list (scan.hpp): the build collects it from this file.
namespace scan::rows {

StageInfo stage1_hillis_steele_row() {
    StageInfo row("1", "hillis_steele",
                  "log2(2B) doubling steps in a shared double buffer: 2B log2(2B) - (2B - 1) adds");
    row.launch = detail::launch_hillis_steele;
    return row;
}

}  // namespace scan::rows
