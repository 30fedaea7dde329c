// Stage 4 - 1D register blocking: each thread computes a column of 8 elements of C.
//
// What changed from stage 3: a block of 512 threads computes a 64 x 64 tile of C; each thread
// owns 8 vertically adjacent elements (one column of 8 rows) and keeps their sums in registers.
// The k dimension goes 8 at a time: the block stages a 64 x 8 tile of A and an 8 x 64 tile of B
// (one float of each per thread). For each of the 8 steps inside the tile, a thread loads one
// value of B from shared memory into a register and uses it 8 times, once per row it owns:
//   for i in 0..8:  b = Bs[i][col];  for r in 0..8: sum[r] += As[row0 + r][i] * b
// Shared-memory loads per multiply-add fall from 2 (stage 3) to 1 + 1/8; the block loads each
// global float into 64 products instead of 32.
// Why it should be faster: stage 3 was limited by shared-memory loads; this stage does more
// arithmetic per load (its arithmetic intensity against shared memory goes up).
// What to look for: about twice stage 3. As[row0 + r][i]: the 32 threads of a warp span 32
// columns of one group of 8 rows, so they read the same As word (a broadcast).
#include "matmul_device.cuh"

namespace matmul::detail {
namespace {

constexpr int kTileM = 64;
constexpr int kTileN = 64;
constexpr int kTileK = 8;
constexpr int kRowsPerThread = 8;
constexpr int kThreads = kTileM * kTileN / kRowsPerThread;  // 512
static_assert(kThreads == kTileM * kTileK && kThreads == kTileK * kTileN,
              "each thread loads one float of each tile");

__global__ void __launch_bounds__(kThreads)
    matmul_register_blocking_1d(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float a_tile[kTileM][kTileK];
    __shared__ float b_tile[kTileK][kTileN];
    const int t = static_cast<int>(threadIdx.x);
    const int tile_row = static_cast<int>(blockIdx.x) * kTileM;
    const int tile_col = static_cast<int>(blockIdx.y) * kTileN;
    // Which element of each tile this thread loads (consecutive threads: consecutive columns).
    const int a_load_row = t / kTileK, a_load_col = t % kTileK;
    const int b_load_row = t / kTileN, b_load_col = t % kTileN;
    // Which 8 elements of C it computes: column t % 64, rows 8 (t / 64) .. 8 (t / 64) + 7.
    const int col = t % kTileN;
    const int row0 = (t / kTileN) * kRowsPerThread;

    float sum[kRowsPerThread] = {};
    for (int k0 = 0; k0 < k; k0 += kTileK) {
        const int ar = tile_row + a_load_row, ac = k0 + a_load_col;
        a_tile[a_load_row][a_load_col] =
            ar < m && ac < k ? a[static_cast<std::size_t>(ar) * k + ac] : 0.0f;
        const int br = k0 + b_load_row, bc = tile_col + b_load_col;
        b_tile[b_load_row][b_load_col] =
            br < k && bc < n ? b[static_cast<std::size_t>(br) * n + bc] : 0.0f;
        __syncthreads();
        for (int i = 0; i < kTileK; ++i) {
            const float b_value = b_tile[i][col];  // one shared load, used 8 times
            for (int r = 0; r < kRowsPerThread; ++r) {
                sum[r] += a_tile[row0 + r][i] * b_value;
            }
        }
        __syncthreads();
    }
    for (int r = 0; r < kRowsPerThread; ++r) {
        const int row = tile_row + row0 + r;
        if (row < m && tile_col + col < n) {
            c[static_cast<std::size_t>(row) * n + tile_col + col] = sum[r];
        }
    }
}

}  // namespace

void launch_register_blocking_1d(const LaunchArgs& a) {
    matmul_register_blocking_1d<<<tile_grid(a, kTileM, kTileN), kThreads, 0, a.stream>>>(
        a.a, a.b, a.c, a.m, a.n, a.k);
    CT_CHECK_LAUNCH();
}

}  // namespace matmul::detail
