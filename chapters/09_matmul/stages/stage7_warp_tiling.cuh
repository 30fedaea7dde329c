// Stage 7's kernel, a template that stage 8 instantiates at other shapes (stage7_warp_tiling.cu
// says what it teaches). Device code: include from .cu files only.
//
// Three levels of tiles, each with its own reason:
//   block tile  kTileM x kTileN   staged in shared memory, k 8 at a time: reuse across the block
//   warp tile   kWarpM x kWarpN   a warp's part of it: what the warp reads from shared memory
//   thread tile kThreadM x kThreadN   in registers, as kSubM x kSubN sub-tiles of 4 x 4 (stage 7:
//                                 2 x 2, an 8 x 8 tile): reuse in registers
// The 32 lanes of a warp form a kLanesM x kLanesN grid; lane (lm, ln) owns rows
// 4 kLanesM i + 4 lm + 0..3 of the warp tile (i < kSubM) and columns 4 kLanesN j + 4 ln + 0..3
// (j < kSubN). So at each step the warp reads kWarpM + kWarpN floats of shared memory (kSubM
// 16-byte loads of A and kSubN of B per thread), each quarter-warp 8 consecutive 16-byte pieces
// or one broadcast: no bank conflict.
#pragma once

#include "matmul_device.cuh"

namespace matmul::detail {

/// A warp-tiled kernel's shape: the block tile, how the warp's lanes are laid out, whether the
/// next k-tile is loaded while the current one is multiplied, and the 4 x 4 sub-tiles of a
/// thread (stage 8's candidates).
template <int kTileMArg, int kTileNArg, int kLanesMArg, bool kPrefetchArg, int kSubMArg = 2,
          int kSubNArg = 2>
struct WarpTiling {
    static constexpr int kTileM = kTileMArg;
    static constexpr int kTileN = kTileNArg;
    static constexpr int kTileK = 8;
    static constexpr int kLanesM = kLanesMArg;
    static constexpr int kLanesN = 32 / kLanesM;
    static constexpr int kSubM = kSubMArg;
    static constexpr int kSubN = kSubNArg;
    static constexpr int kThreadM = 4 * kSubM;  // outputs per thread: kThreadM x kThreadN
    static constexpr int kThreadN = 4 * kSubN;
    static constexpr int kWarpM = kThreadM * kLanesM;
    static constexpr int kWarpN = kThreadN * kLanesN;
    static constexpr int kWarps = (kTileM / kWarpM) * (kTileN / kWarpN);
    static constexpr int kThreads = 32 * kWarps;
    /// Blocks per SM the registers are budgeted for: 2 with an 8 x 8 tile (at most 128
    /// registers a thread at 256 threads), 1 with a bigger tile or more threads.
    static constexpr int kMinBlocks = kThreadM * kThreadN <= 64 && kThreads <= 256 ? 2 : 1;
    static constexpr bool kPrefetch = kPrefetchArg;
    static constexpr int kPad = 4;  // a_tile's rows 16 bytes apart in banks (stage 6)
    static constexpr int kFloat4sA = kTileM * kTileK / 4;  // per k-tile
    static constexpr int kFloat4sB = kTileK * kTileN / 4;
    static constexpr int kLoadsA = (kFloat4sA + kThreads - 1) / kThreads;  // per thread, at most
    static constexpr int kLoadsB = (kFloat4sB + kThreads - 1) / kThreads;
    static_assert(kTileM % kWarpM == 0 && kTileN % kWarpN == 0, "whole warps per tile");
    static_assert(kFloat4sA % 32 == 0 && kFloat4sB % 32 == 0, "whole warps load each tile");
};

/// The block's shared tiles, `Stages` deep (2 when the next tile is loaded ahead).
template <class Shape, int kStages>
struct TileStorage {
    float a[kStages][Shape::kTileK][Shape::kTileM + Shape::kPad];  // transposed: a[k][row]
    float b[kStages][Shape::kTileK][Shape::kTileN];
};

/// The float4s one thread carries from global to shared memory for one k-tile.
template <class Shape>
struct TileRegisters {
    float4 a[Shape::kLoadsA];
    float4 b[Shape::kLoadsB];
};

/// Where a thread's outputs lie (the layout above): its block's tile of C, and the first row
/// and column of its sub-tiles inside that tile. Warps fill the tile row by row, a warp's lanes
/// a kLanesM x kLanesN grid, lane_m = lane % kLanesM varying fastest.
template <class Shape>
struct ThreadPlace {
    int tile_row;  ///< the block's first row of C
    int tile_col;  ///< the block's first column of C
    int row0;      ///< the thread's first row inside the tile (then every 4 kLanesM rows)
    int col0;      ///< the thread's first column inside the tile (then every 4 kLanesN columns)
    __device__ ThreadPlace() {
        const int warp = static_cast<int>(threadIdx.x) / 32;
        const int lane = static_cast<int>(threadIdx.x) % 32;
        constexpr int kWarpsN = Shape::kTileN / Shape::kWarpN;
        tile_row = static_cast<int>(blockIdx.x) * Shape::kTileM;
        tile_col = static_cast<int>(blockIdx.y) * Shape::kTileN;
        row0 = (warp / kWarpsN) * Shape::kWarpM + 4 * (lane % Shape::kLanesM);
        col0 = (warp % kWarpsN) * Shape::kWarpN + 4 * (lane / Shape::kLanesM);
    }
};

template <class Shape, bool kVector>
__device__ void load_global(TileRegisters<Shape>& r, const float* a, const float* b, int m, int n,
                            int k, int tile_row, int tile_col, int k0) {
    const int t = static_cast<int>(threadIdx.x);
    for (int j = 0; j < Shape::kLoadsA; ++j) {  // A: kTileM rows of 8 floats, 2 float4 a row
        const int e = t + j * Shape::kThreads;
        if (e < Shape::kFloat4sA) {
            r.a[j] = load_four<kVector>(a, m, k, tile_row + e / 2, k0 + (e % 2) * 4);
        }
    }
    for (int j = 0; j < Shape::kLoadsB; ++j) {  // B: 8 rows of kTileN floats
        const int e = t + j * Shape::kThreads;
        constexpr int kPerRow = Shape::kTileN / 4;
        if (e < Shape::kFloat4sB) {
            r.b[j] = load_four<kVector>(b, k, n, k0 + e / kPerRow, tile_col + (e % kPerRow) * 4);
        }
    }
}

template <class Shape, int kStages>
__device__ void store_shared(const TileRegisters<Shape>& r, TileStorage<Shape, kStages>& s,
                             int stage) {
    const int t = static_cast<int>(threadIdx.x);
    for (int j = 0; j < Shape::kLoadsA; ++j) {
        const int e = t + j * Shape::kThreads;
        if (e >= Shape::kFloat4sA) {
            break;
        }
        const int row = e / 2, col = (e % 2) * 4;
        s.a[stage][col + 0][row] = r.a[j].x;  // transposed
        s.a[stage][col + 1][row] = r.a[j].y;
        s.a[stage][col + 2][row] = r.a[j].z;
        s.a[stage][col + 3][row] = r.a[j].w;
    }
    for (int j = 0; j < Shape::kLoadsB; ++j) {
        const int e = t + j * Shape::kThreads;
        constexpr int kPerRow = Shape::kTileN / 4;
        if (e >= Shape::kFloat4sB) {
            break;
        }
        *reinterpret_cast<float4*>(&s.b[stage][e / kPerRow][(e % kPerRow) * 4]) = r.b[j];
    }
}

/// The thread's outer products for the 8 steps of one k-tile.
template <class Shape, int kStages>
__device__ void multiply_tile(const TileStorage<Shape, kStages>& s, int stage, int row0, int col0,
                              float (&sum)[Shape::kThreadM][Shape::kThreadN]) {
    for (int i = 0; i < Shape::kTileK; ++i) {
        float a_reg[Shape::kThreadM], b_reg[Shape::kThreadN];
        for (int sub = 0; sub < Shape::kSubM; ++sub) {
            *reinterpret_cast<float4*>(&a_reg[4 * sub]) =
                *reinterpret_cast<const float4*>(&s.a[stage][i][row0 + sub * 4 * Shape::kLanesM]);
        }
        for (int sub = 0; sub < Shape::kSubN; ++sub) {
            *reinterpret_cast<float4*>(&b_reg[4 * sub]) =
                *reinterpret_cast<const float4*>(&s.b[stage][i][col0 + sub * 4 * Shape::kLanesN]);
        }
        for (int r = 0; r < Shape::kThreadM; ++r) {
            for (int c = 0; c < Shape::kThreadN; ++c) {
                sum[r][c] += a_reg[r] * b_reg[c];
            }
        }
    }
}

template <class Shape, bool kVector>
__device__ void store_result(float* c, int m, int n, int row0, int col0,
                             const float (&sum)[Shape::kThreadM][Shape::kThreadN]) {
    for (int r = 0; r < Shape::kThreadM; ++r) {
        const int row = row0 + (r / 4) * 4 * Shape::kLanesM + r % 4;
        for (int half = 0; half < Shape::kSubN; ++half) {
            const int col = col0 + half * 4 * Shape::kLanesN;
            if (row >= m || col >= n) {
                continue;
            }
            float* out = c + static_cast<std::size_t>(row) * n + col;
            if constexpr (kVector) {  // n % 4 == 0: the four columns are inside C
                *reinterpret_cast<float4*>(out) =
                    make_float4(sum[r][4 * half], sum[r][4 * half + 1], sum[r][4 * half + 2],
                                sum[r][4 * half + 3]);
            } else {
                for (int q = 0; q < 4 && col + q < n; ++q) {
                    out[q] = sum[r][4 * half + q];
                }
            }
        }
    }
}

template <class Shape, bool kVector>
__global__ void __launch_bounds__(Shape::kThreads, Shape::kMinBlocks)
    matmul_warp_tiling(const float* a, const float* b, float* c, int m, int n, int k) {
    constexpr int kStages = Shape::kPrefetch ? 2 : 1;
    __shared__ __align__(16) TileStorage<Shape, kStages> tiles;
    const ThreadPlace<Shape> place;
    const int tile_row = place.tile_row;
    const int tile_col = place.tile_col;

    float sum[Shape::kThreadM][Shape::kThreadN] = {};
    TileRegisters<Shape> next;
    load_global<Shape, kVector>(next, a, b, m, n, k, tile_row, tile_col, 0);
    store_shared(next, tiles, 0);
    __syncthreads();
    int stage = 0;
    for (int k0 = 0; k0 < k; k0 += Shape::kTileK) {
        const bool more = k0 + Shape::kTileK < k;
        if (Shape::kPrefetch && more) {  // in flight while this tile is multiplied
            load_global<Shape, kVector>(next, a, b, m, n, k, tile_row, tile_col,
                                        k0 + Shape::kTileK);
        }
        multiply_tile(tiles, stage, place.row0, place.col0, sum);
        if (Shape::kPrefetch) {
            if (more) {
                store_shared(next, tiles, stage ^ 1);  // the other buffer: nobody reads it now
            }
            __syncthreads();
            stage ^= 1;
        } else if (more) {
            __syncthreads();  // everyone done with this tile before it is overwritten
            load_global<Shape, kVector>(next, a, b, m, n, k, tile_row, tile_col,
                                        k0 + Shape::kTileK);
            store_shared(next, tiles, 0);
            __syncthreads();
        }
    }
    store_result<Shape, kVector>(c, m, n, tile_row + place.row0, tile_col + place.col0, sum);
}

/// Launches `Shape`'s kernel over the whole of C: 16-byte loads where rows_allow_float4(),
/// one float at a time otherwise (both instantiated only when kWithScalar).
template <class Shape, bool kWithScalar>
void launch_warp_tiled(const LaunchArgs& a) {
    const dim3 grid = tile_grid(a, Shape::kTileM, Shape::kTileN);
    if constexpr (kWithScalar) {
        if (!rows_allow_float4(a)) {
            matmul_warp_tiling<Shape, false>
                <<<grid, Shape::kThreads, 0, a.stream>>>(a.a, a.b, a.c, a.m, a.n, a.k);
            CT_CHECK_LAUNCH();
            return;
        }
    }
    matmul_warp_tiling<Shape, true>
        <<<grid, Shape::kThreads, 0, a.stream>>>(a.a, a.b, a.c, a.m, a.n, a.k);
    CT_CHECK_LAUNCH();
}

}  // namespace matmul::detail
