// Stage 5 - 2D register blocking: each thread computes an 8 x 8 block of C as outer products.
//
// What changed from stage 4: a block of 256 threads computes a 128 x 128 tile of C; each thread
// owns an 8 x 8 block of it (64 sums in registers). For each of the 8 steps of a k-tile, the
// thread loads 8 values of A's column and 8 of B's row from shared memory into registers and
// multiplies every pair: the outer product of two vectors of 8, 64 multiply-adds for 16 loads.
//
//   for i in 0..8:
//       a_reg[0..8] = As[8 ty .. 8 ty + 7][i]      8 shared loads
//       b_reg[0..8] = Bs[i][8 tx .. 8 tx + 7]      8 shared loads
//       sum[r][s] += a_reg[r] * b_reg[s]           64 FMAs, all in registers
//
// Arithmetic intensity, the FLOPs per byte loaded, is the measure: 64 FMAs per 16 shared loads
// (4 per load, where stage 4 did 8 per 9 and stage 3 one per 2), and each global float now
// serves 128 products. The price is registers: 64 sums, 16 operands, the addresses (about 128
// per thread), so fewer threads fit on an SM; 8 warps per block still hide the latency.
// What to look for: a large step over stage 4, the first stage in sight of cuBLAS. The loads are
// still one float each, and the 8 values of A a thread reads are 8 words 8 apart in
// shared memory, the same bank for every thread of a group: stage 6 fixes both.
#include "matmul_device.cuh"

namespace matmul::detail {
namespace {

constexpr int kTileM = 128;
constexpr int kTileN = 128;
constexpr int kTileK = 8;
constexpr int kThreadM = 8;                                          // rows of C per thread
constexpr int kThreadN = 8;                                          // columns of C per thread
constexpr int kThreads = (kTileM / kThreadM) * (kTileN / kThreadN);  // 256
constexpr int kLoadsPerThread = kTileM * kTileK / kThreads;          // 4 of A, 4 of B
static_assert(kTileM * kTileK == kTileK * kTileN, "A's and B's tiles are the same size");

__global__ void __launch_bounds__(kThreads)
    matmul_register_blocking_2d(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float a_tile[kTileM][kTileK];
    __shared__ float b_tile[kTileK][kTileN];
    const int t = static_cast<int>(threadIdx.x);
    const int tile_row = static_cast<int>(blockIdx.x) * kTileM;
    const int tile_col = static_cast<int>(blockIdx.y) * kTileN;
    const int thread_row = (t / (kTileN / kThreadN)) * kThreadM;  // its 8 x 8 block in the tile
    const int thread_col = (t % (kTileN / kThreadN)) * kThreadN;

    float sum[kThreadM][kThreadN] = {};
    float a_reg[kThreadM];
    float b_reg[kThreadN];
    for (int k0 = 0; k0 < k; k0 += kTileK) {
        for (int l = 0; l < kLoadsPerThread; ++l) {  // consecutive threads, consecutive columns
            const int e = t + l * kThreads;
            const int ar = e / kTileK, ac = e % kTileK;
            const int gr = tile_row + ar, gc = k0 + ac;
            a_tile[ar][ac] = gr < m && gc < k ? a[static_cast<std::size_t>(gr) * k + gc] : 0.0f;
            const int br = e / kTileN, bc = e % kTileN;
            const int hr = k0 + br, hc = tile_col + bc;
            b_tile[br][bc] = hr < k && hc < n ? b[static_cast<std::size_t>(hr) * n + hc] : 0.0f;
        }
        __syncthreads();
        // EXERCISE BEGIN: the outer products. For each of the kTileK steps i of the tile: load
        // EXERCISE HINT: the thread's kThreadM values of A's column i (rows thread_row ..
        // EXERCISE HINT: thread_row + 7 of a_tile) into a_reg and its kThreadN values of B's row i
        // EXERCISE HINT: (columns thread_col .. thread_col + 7 of b_tile) into b_reg, then add
        // EXERCISE HINT: a_reg[r] * b_reg[s] to sum[r][s] for every pair: 16 loads, 64 FMAs.
        for (int i = 0; i < kTileK; ++i) {
            for (int r = 0; r < kThreadM; ++r) {
                a_reg[r] = a_tile[thread_row + r][i];
            }
            for (int s = 0; s < kThreadN; ++s) {
                b_reg[s] = b_tile[i][thread_col + s];
            }
            for (int r = 0; r < kThreadM; ++r) {
                for (int s = 0; s < kThreadN; ++s) {
                    sum[r][s] += a_reg[r] * b_reg[s];
                }
            }
        }
        // EXERCISE END
        __syncthreads();
    }
    for (int r = 0; r < kThreadM; ++r) {
        const int row = tile_row + thread_row + r;
        for (int s = 0; s < kThreadN; ++s) {
            const int col = tile_col + thread_col + s;
            if (row < m && col < n) {
                c[static_cast<std::size_t>(row) * n + col] = sum[r][s];
            }
        }
    }
}

}  // namespace

void launch_register_blocking_2d(const LaunchArgs& a) {
    matmul_register_blocking_2d<<<tile_grid(a, kTileM, kTileN), kThreads, 0, a.stream>>>(
        a.a, a.b, a.c, a.m, a.n, a.k);
    CT_CHECK_LAUNCH();
}

}  // namespace matmul::detail
