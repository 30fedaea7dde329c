// Stage 6 - single pass: a chained scan with decoupled look-back (Merrill and Garland).
//
// What changed from stage 5: one kernel, one read of the input, one write of the output. A block
// cannot wait for a separate kernel to hand it its carry, so it gets the carry from the blocks
// before it while they are all running. Each tile publishes a status word (scan_device.cuh):
//   1. scan the tile (stage 4's tile scan) and publish its aggregate, the tile's own total
//      (flag A); tile 0 publishes its inclusive prefix at once (flag P);
//   2. look back: one warp reads the words of the 32 tiles before it; while any is not yet
//      published it waits; then a ballot finds the nearest P: the sum of the A values after it
//      plus that P is the tile's carry. No P in the window: add the 32 A values, look further
//      back. (A waiting block never waits for a whole scan, only for aggregates, which every
//      running block publishes soon: the "decoupled" part.)
//   3. publish the tile's inclusive prefix (P = carry + aggregate), write the tile + carry.
// The flag and the value are one 64-bit word written with one release store, so that a reader
// never sees a flag with a stale value, and read with acquire loads.
// The trap: a block may only wait for tiles whose blocks are running or done. CUDA does not
// promise that blocks start in blockIdx order, so the tile is not blockIdx.x: thread 0 takes the
// next one from a global counter (take_tile), and tiles are handed out in the order blocks start.
// Stage 6x shows what happens when that is ignored. Every wait is bounded (1 s by default): a
// block that waits longer gives up, raises an error flag, and the host reports the row as failed.
// Why it should be faster: 2n values cross memory instead of 3n.
// What to look for: the least traffic so far, and yet the slowest correct row on an H100 (0.41x
// stage 5 at n = 2^28): 2^28 values make 524288 tiles of 512, and every tile pays the counter,
// the tile scan's barriers and a look-back that waits for the tile before it. With tiles this
// small the chain of tiles, not memory, sets the pace. Stage 7 gives each block 16 times more.
#include "scan_device.cuh"

namespace scan::detail {
namespace {

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    scan_decoupled_lookback(const Value* in, Value* out, std::size_t n, bool exclusive,
                            unsigned int* tile_counter, unsigned int tiles, LookBackState state) {
    using TileScan = WarpShuffleTileScan<kBlock>;
    __shared__ typename TileScan::Storage storage;
    __shared__ unsigned int tile_taken;
    if (threadIdx.x == 0) {
        tile_taken = take_tile(tile_counter, tiles);  // not blockIdx.x: see the file comment
    }
    __syncthreads();
    const unsigned int tile = tile_taken;
    const std::size_t base = static_cast<std::size_t>(tile) * TileScan::kTileItems;
    const int count = tile_count(n, base, TileScan::kTileItems);
    TileScan::scan(in + base, out + base, count, exclusive, storage,
                   LookBack<StatusOrder::kReleaseAcquire>{state, tile});
}

void launch_decoupled_lookback(const LaunchArgs& a) {
    with_block_size(AllBlockSizes{}, a.block, "decoupled_lookback", [&](auto block) {
        constexpr int kTileItems = WarpShuffleTileScan<block()>::kTileItems;
        const auto tiles = static_cast<unsigned int>((a.n + kTileItems - 1) / kTileItems);
        scan_decoupled_lookback<block()><<<tiles, block(), 0, a.stream>>>(
            a.in, a.out, a.n, a.exclusive, a.tile_counter, tiles, look_back_state(a));
        CT_CHECK_LAUNCH();
    });
}

}  // namespace

}  // namespace scan::detail

// The stage's row in the stage list (scan.hpp): the build collects it from this file.
namespace scan::rows {

StageInfo stage6_decoupled_lookback_row() {
    StageInfo row("6", "decoupled_lookback",
                  "one pass: each tile's carry from its predecessors' status words");
    row.launch = detail::launch_decoupled_lookback;
    row.method = Method::kSinglePass;
    return row;
}

}  // namespace scan::rows
