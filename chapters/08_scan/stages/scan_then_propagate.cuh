// The frame of stages 1-4: a scan of any length from a block scan that handles one tile.
//
//   1. scan_tiles:   every block scans its tile (independently of the others) and records the
//                    tile's total;                                        reads n, writes n
//   2. the totals:   an exclusive scan of the tile totals gives each tile its carry, the sum of
//                    everything before it: the same frame one level down (the totals of 2^28
//                    values in tiles of 512 are 524288 values, then 1024, then 2: one block);
//   3. add_carries:  every value of tile t gets carry[t] added;            reads n, writes n
//
// Four passes over n values in all, whatever the block scan: only the tile scan changes from
// stage 1 to stage 4, so that every row of the table computes the same full-length answer.
//
// A tile scan (TileScan) provides kBlockThreads, kTileItems, a Storage type for its shared memory,
// and a static scan(in, out, count, exclusive, storage, prefix_of) called by every thread of the
// block (see the prefix operations in scan_device.cuh).
#pragma once

#include <cstddef>

#include "scan_device.cuh"

namespace scan::detail {

template <typename TileScan>
__global__ void __launch_bounds__(TileScan::kBlockThreads)
    scan_tiles(const Value* in, Value* out, Value* tile_totals, std::size_t n, bool exclusive) {
    __shared__ typename TileScan::Storage storage;
    const std::size_t base = static_cast<std::size_t>(blockIdx.x) * TileScan::kTileItems;
    const int count = tile_count(n, base, TileScan::kTileItems);
    TileScan::scan(in + base, out + base, count, exclusive, storage,
                   RecordTotal{tile_totals, blockIdx.x});
}

/// Block b adds carry[b + 1] to tile b + 1 (tile 0's carry is 0: it is not launched).
template <int kBlock, int kTileItems>
__global__ void __launch_bounds__(kBlock)
    add_carries(Value* out, const Value* carries, std::size_t n) {
    const unsigned int tile = blockIdx.x + 1;
    const std::size_t base = static_cast<std::size_t>(tile) * kTileItems;
    const int count = tile_count(n, base, kTileItems);
    const Value carry = carries[tile];
    for (int i = static_cast<int>(threadIdx.x); i < count; i += kBlock) {
        out[base + i] += carry;
    }
}

/// Scans in[0..n) into out[0..n) (in == out allowed: a block reads its whole tile before it
/// writes). `totals` holds one device buffer per level, as config::level_sizes() plans them.
template <typename TileScan>
void scan_then_propagate(const Value* in, Value* out, std::size_t n, bool exclusive,
                         Value* const* totals, cudaStream_t stream) {
    constexpr int kBlock = TileScan::kBlockThreads;
    const std::size_t tiles = (n + TileScan::kTileItems - 1) / TileScan::kTileItems;
    if (tiles == 1) {
        scan_tiles<TileScan><<<1, kBlock, 0, stream>>>(in, out, nullptr, n, exclusive);
        CT_CHECK_LAUNCH();
        return;
    }
    const unsigned int grid = static_cast<unsigned int>(tiles);  // planned below 2^31
    scan_tiles<TileScan><<<grid, kBlock, 0, stream>>>(in, out, totals[0], n, exclusive);
    CT_CHECK_LAUNCH();
    // The carries: an exclusive scan of the tile totals, in place, by the same frame.
    scan_then_propagate<TileScan>(totals[0], totals[0], tiles, /*exclusive=*/true, totals + 1,
                                  stream);
    add_carries<kBlock, TileScan::kTileItems><<<grid - 1, kBlock, 0, stream>>>(out, totals[0], n);
    CT_CHECK_LAUNCH();
}

}  // namespace scan::detail
