// Stage 2 - coalesced: the same kernel, threadIdx.x now picks the column.
//
// What changed from stage 1: one line, which index comes from threadIdx.x. The 32 threads of a
// warp now hold 32 consecutive columns of one row. At each step i they read B[i][col..col+31]:
// 32 neighbouring floats, 128 bytes, one coalesced transaction; A[row][i] is one address for the
// whole warp (a broadcast); the stores to C are 128 contiguous bytes. Same arithmetic, same
// number of loads per product, a 32nd of the memory transactions for B and C.
// Why it should be faster: the warp's loads were 32 transactions for 32 floats; now they are
// one. What to look for: several times stage 1 - and still far from the peak: every product
// still loads two floats from global memory (or L1/L2), 8 bytes per 2 FLOP. Stage 3 reuses them.
#include "matmul_device.cuh"

namespace matmul::detail {
namespace {

constexpr int kBlockCols = 32;  // threadIdx.x: 32 consecutive columns, the warp
constexpr int kBlockRows = 32;  // threadIdx.y: 32 rows

__global__ void matmul_coalesced(const float* a, const float* b, float* c, int m, int n, int k) {
    const int col = static_cast<int>(blockIdx.y) * kBlockCols + static_cast<int>(threadIdx.x);
    const int row = static_cast<int>(blockIdx.x) * kBlockRows + static_cast<int>(threadIdx.y);
    if (row >= m || col >= n) {
        return;
    }
    const float* a_row = a + static_cast<std::size_t>(row) * k;
    float sum = 0.0f;
    for (int i = 0; i < k; ++i) {
        sum += a_row[i] * b[static_cast<std::size_t>(i) * n + col];
    }
    c[static_cast<std::size_t>(row) * n + col] = sum;
}

}  // namespace

void launch_coalesced(const LaunchArgs& a) {
    matmul_coalesced<<<tile_grid(a, kBlockRows, kBlockCols), dim3(kBlockCols, kBlockRows), 0,
                       a.stream>>>(a.a, a.b, a.c, a.m, a.n, a.k);
    CT_CHECK_LAUNCH();
}

}  // namespace matmul::detail
