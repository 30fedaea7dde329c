// Stage 3 - shared-memory tiling: each block stages tiles of A and B in shared memory.
//
// What changed from stage 2: a block of 32 x 32 threads computes a 32 x 32 tile of C, walking
// the k dimension 32 at a time. At each step the block copies a 32 x 32 tile of A and one of B
// from global into shared memory (one float per thread each, coalesced), waits at a barrier,
// and every thread then runs 32 multiply-adds out of shared memory; a second barrier keeps the
// next copy from overwriting a tile that slower warps still read. Tile t of C's tile row takes
// A's tiles along its rows and B's tiles down its columns: k / 32 steps in all.
// Each float loaded from global memory now serves 32 products instead of 1: global traffic falls
// 32-fold. Inside the block, thread (ty, tx) reads As[ty][i] (the same address across the warp:
// a broadcast) and Bs[i][tx] (32 consecutive words: 32 banks, no conflict).
// Guards: a tile that crosses the edge of A or B loads zeros there (they add nothing), and only
// threads inside C store, so any m, n and k work, k not a multiple of 32 included.
// What to look for: a large step over stage 2. But each multiply-add still costs two
// shared-memory loads: shared memory, not arithmetic, now limits. Stage 4 keeps values in
// registers.
#include "matmul_device.cuh"

namespace matmul::detail {
namespace {

constexpr int kTile = 32;

__global__ void matmul_shared_tiling(const float* a, const float* b, float* c, int m, int n,
                                     int k) {
    __shared__ float a_tile[kTile][kTile];
    __shared__ float b_tile[kTile][kTile];
    const int tx = static_cast<int>(threadIdx.x);
    const int ty = static_cast<int>(threadIdx.y);
    const int row = static_cast<int>(blockIdx.x) * kTile + ty;
    const int col = static_cast<int>(blockIdx.y) * kTile + tx;
    float sum = 0.0f;
    // EXERCISE BEGIN: the tile loop. For k0 = 0, 32, 64, ... below k: thread (ty, tx) copies
    // EXERCISE HINT: A[row][k0 + tx] into a_tile[ty][tx] and B[k0 + ty][col] into b_tile[ty][tx]
    // EXERCISE HINT: (0 where the index is outside A or B: any m, n, k must work), waits until
    // EXERCISE HINT: the whole block has copied, adds a_tile[ty][i] * b_tile[i][tx] for i < 32 to
    // EXERCISE HINT: sum, and waits again before the next copy overwrites the tiles. Offsets
    // EXERCISE HINT: into A and B as std::size_t: m k can pass 2^31.
    for (int k0 = 0; k0 < k; k0 += kTile) {
        // One float of each tile per thread, zero outside the matrices.
        a_tile[ty][tx] =
            row < m && k0 + tx < k ? a[static_cast<std::size_t>(row) * k + k0 + tx] : 0.0f;
        b_tile[ty][tx] =
            k0 + ty < k && col < n ? b[static_cast<std::size_t>(k0 + ty) * n + col] : 0.0f;
        __syncthreads();  // both tiles complete before anyone reads them
        for (int i = 0; i < kTile; ++i) {
            sum += a_tile[ty][i] * b_tile[i][tx];
        }
        __syncthreads();  // everyone done with these tiles before the next copy
    }
    // EXERCISE END
    if (row < m && col < n) {
        c[static_cast<std::size_t>(row) * n + col] = sum;
    }
}

}  // namespace

void launch_shared_tiling(const LaunchArgs& a) {
    matmul_shared_tiling<<<tile_grid(a, kTile, kTile), dim3(kTile, kTile), 0, a.stream>>>(
        a.a, a.b, a.c, a.m, a.n, a.k);
    CT_CHECK_LAUNCH();
}

}  // namespace matmul::detail
