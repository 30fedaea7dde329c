// Stage 5 - reduce, then scan: two passes over the input instead of three.
//
// What changed from stage 4: the order of the frame's work. Stages 1-4 write a local scan of
// every tile, then read it back to add the carry: the values cross memory four times (read,
// write, read, write). A tile's carry needs only the totals of the tiles before it, and a total
// needs no scan, so:
//   1. reduce_tiles:          each block sums its tile, one total per tile;     reads n
//   2. the totals:            exclusive scan of the totals = each tile's carry (the frame of
//                             stages 1-4 with stage 4's tile scan: 1/512 of the data at block 256)
//   3. scan_tiles_from_carry: each block scans its tile again, starting from its carry, and
//                             writes the final values;                         reads n, writes n
// Three crossings of memory instead of four: the input is read twice, the output written once.
// The tile scan is stage 4's (WarpShuffleTileScan), so the difference is the traffic alone.
// Why it should be faster: memory traffic is what bounds a scan; 3n instead of 4n values moved.
// What to look for: faster than stage 4, if by less than the 4/3 the traffic promises (1.17x on
// an H100 at n = 2^28, about half of the copy): three launches over small tiles. Reading the
// input once needs a single pass (stage 6).
#include "scan_then_propagate.cuh"

namespace scan::detail {
namespace {

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_tiles(const Value* in, Value* tile_totals, std::size_t n) {
    constexpr int kTileItems = WarpShuffleTileScan<kBlock>::kTileItems;
    __shared__ Value warp_totals[kBlock / kWarpSize];
    const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kTileItems;
    const int count = tile_count(n, base, kTileItems);
    const int t = static_cast<int>(threadIdx.x);
    const Value value =
        (t < count ? in[base + t] : 0) + (t + kBlock < count ? in[base + t + kBlock] : 0);
    const Value total = block_sum<kBlock>(value, warp_totals);
    if (t == 0) {
        tile_totals[blockIdx.x] = total;
    }
}

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    scan_tiles_from_carry(const Value* in, Value* out, const Value* carries, std::size_t n,
                          bool exclusive) {
    using TileScan = WarpShuffleTileScan<kBlock>;
    __shared__ typename TileScan::Storage storage;
    const std::size_t base = static_cast<std::size_t>(blockIdx.x) * TileScan::kTileItems;
    const int count = tile_count(n, base, TileScan::kTileItems);
    TileScan::scan(in + base, out + base, count, exclusive, storage, CarryIn{carries, blockIdx.x});
}

template <int kBlock>
void reduce_then_scan(const LaunchArgs& a) {
    constexpr int kTileItems = WarpShuffleTileScan<kBlock>::kTileItems;
    const std::size_t tiles = (a.n + kTileItems - 1) / kTileItems;
    const unsigned int grid = static_cast<unsigned int>(tiles);  // planned below 2^31
    if (tiles == 1) {  // no carries: one scan of the one tile
        scan_tiles_from_carry<kBlock>
            <<<1, kBlock, 0, a.stream>>>(a.in, a.out, nullptr, a.n, a.exclusive);
        CT_CHECK_LAUNCH();
        return;
    }
    Value* carries = a.level_totals[0];
    reduce_tiles<kBlock><<<grid, kBlock, 0, a.stream>>>(a.in, carries, a.n);
    CT_CHECK_LAUNCH();
    scan_then_propagate<WarpShuffleTileScan<kBlock>>(carries, carries, tiles, /*exclusive=*/true,
                                                     a.level_totals + 1, a.stream);
    scan_tiles_from_carry<kBlock>
        <<<grid, kBlock, 0, a.stream>>>(a.in, a.out, carries, a.n, a.exclusive);
    CT_CHECK_LAUNCH();
}

void launch_reduce_then_scan(const LaunchArgs& a) {
    with_block_size(AllBlockSizes{}, a.block, "reduce_then_scan",
                    [&](auto block) { reduce_then_scan<block()>(a); });
}

}  // namespace

}  // namespace scan::detail

// The stage's row in the stage list (scan.hpp): the build collects it from this file.
namespace scan::rows {

StageInfo stage5_reduce_then_scan_row() {
    StageInfo row("5", "reduce_then_scan",
                  "reduce tiles, scan totals, scan tiles from their carry: 3n moved, not 4n");
    row.launch = detail::launch_reduce_then_scan;
    row.method = Method::kReduceThenScan;
    return row;
}

}  // namespace scan::rows
