// Stage 6x - WRONG ON PURPOSE: stage 6 with the tile taken from blockIdx.x.
//
// What changed from stage 6: one line. The tile is no longer taken from a counter in the order
// blocks start; it is computed from blockIdx.x, as if blocks started in index order. CUDA makes
// no such promise: the hardware may start the blocks of a grid in any order, and only as many
// run at once as fit on the SMs. To show the consequence every time, rather than once in a
// while, this stage uses an order the hardware is free to choose: tile = gridDim.x - 1 -
// blockIdx.x, so the blocks that start first hold the last tiles.
// With more tiles than can be resident (the table's default n has tens of thousands; an H100
// holds about a thousand such blocks at once), every running block looks back at tiles whose
// blocks cannot start until a running block finishes - and none can finish. Without a bound this
// is a deadlock: the GPU would hang until the driver's watchdog, or forever. Here each wait is
// bounded (scan_device.cuh, look_back): after the wait limit (1 s by default) the first block
// gives up and raises the error flag, every other waiting block sees the flag and gives up too,
// the kernel ends, and the host reports FAIL (expected): waits timed out, result wrong. The GPU
// stays usable; the next stage runs normally.
// With a single tile, or few enough tiles to be resident at once, it may pass: a pass proves
// nothing about block order. Excluded from the sanitizer runs (its failure is the point).
#include "scan_device.cuh"

namespace scan::detail {
namespace {

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    scan_lookback_by_block_index(const Value* in, Value* out, std::size_t n, bool exclusive,
                                 LookBackState state) {
    using TileScan = WarpShuffleTileScan<kBlock>;
    __shared__ typename TileScan::Storage storage;
    // The bug: a tile from the block's index assumes an order of starting that CUDA does not
    // promise. Reversed, it is an order the hardware may legally choose.
    const unsigned int tile = gridDim.x - 1 - blockIdx.x;
    const std::size_t base = static_cast<std::size_t>(tile) * TileScan::kTileItems;
    const int count = tile_count(n, base, TileScan::kTileItems);
    TileScan::scan(in + base, out + base, count, exclusive, storage,
                   LookBack<StatusOrder::kReleaseAcquire>{state, tile});
}

void launch_lookback_by_block_index(const LaunchArgs& a) {
    with_block_size(AllBlockSizes{}, a.block, "lookback_by_block_index", [&](auto block) {
        constexpr int kTileItems = WarpShuffleTileScan<block()>::kTileItems;
        const auto tiles = static_cast<unsigned int>((a.n + kTileItems - 1) / kTileItems);
        scan_lookback_by_block_index<block()>
            <<<tiles, block(), 0, a.stream>>>(a.in, a.out, a.n, a.exclusive, look_back_state(a));
        CT_CHECK_LAUNCH();
    });
}

}  // namespace

}  // namespace scan::detail

// The stage's row in the stage list (scan.hpp): the build collects it from this file.
namespace scan::rows {

StageInfo stage6x_lookback_by_block_index_row() {
    StageInfo row("6x", "lookback_by_block_index_WRONG",
                  "tile from blockIdx, assuming blocks start in order: waits that cannot end, cut "
                  "off by the time limit");
    row.launch = detail::launch_lookback_by_block_index;
    row.method = Method::kSinglePass;
    row.role = cudatutorial::StageRole::kExpectedFailure;
    return row;
}

}  // namespace scan::rows
