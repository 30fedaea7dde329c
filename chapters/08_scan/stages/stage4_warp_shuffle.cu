// Stage 4 - warp shuffles: the block scan in registers, shared memory only between warps.
//
// What changed from stage 3: no tree in shared memory. A warp scans 32 values held in its lanes'
// registers with __shfl_up_sync: lane i reads lane i - d's register directly, for d = 1, 2, 4,
// 8, 16 (warp_inclusive_scan in scan_device.cuh) - stage 1's doubling steps, but within one
// warp. The lanes of a warp are not promised to run in step (since Volta each thread has its own
// program counter): __shfl_up_sync itself waits for the lanes of its mask, so a shuffle needs no
// barrier and no shared-memory round trip.
// The tile is 2 x block values as before; each thread takes two neighbours and adds them first,
// so the warps scan pair sums:
//   1. each thread: s = x[2t] + x[2t+1]                       (in registers)
//   2. each warp: inclusive scan of its 32 s in 5 shuffles    (in registers)
//   3. the last lane of each warp writes its warp's total to shared memory; barrier; warp 0
//      scans those (at most 32) totals with the same shuffles; barrier
//   4. each thread adds the totals of the warps before it, and writes x[2t] and x[2t+1]
//      (block_inclusive_scan and WarpShuffleTileScan in scan_device.cuh: stages 5, 6 and 6x use
//      this tile scan too).
// Two barriers for the scan itself where stage 3 had 2 log2(2B), and about 2B + 10 B/32 adds.
// The tile is staged through shared memory only so that the loads and stores stay coalesced.
// Why it should be faster: a shuffle costs about what one shared-memory access does, and most
// of the barriers are gone.
// What to look for: the best of the frame's stages (1.28x over stage 3 on an H100), and still
// below half of the copy: the frame's four passes over memory now weigh more than the tile scan
// (stage 5).
#include "scan_then_propagate.cuh"

namespace scan::detail {
namespace {

void launch_warp_shuffle(const LaunchArgs& a) {
    with_block_size(AllBlockSizes{}, a.block, "warp_shuffle", [&](auto block) {
        scan_then_propagate<WarpShuffleTileScan<block()>>(a.in, a.out, a.n, a.exclusive,
                                                          a.level_totals, a.stream);
    });
}

}  // namespace

}  // namespace scan::detail

// The stage's row in the stage list (scan.hpp): the build collects it from this file.
namespace scan::rows {

StageInfo stage4_warp_shuffle_row() {
    StageInfo row("4", "warp_shuffle",
                  "warp scans in registers (__shfl_up_sync), then the warps' totals");
    row.launch = detail::launch_warp_shuffle;
    return row;
}

}  // namespace scan::rows
