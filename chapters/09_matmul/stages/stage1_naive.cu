// Stage 1 - naive: one thread per element of C, consecutive threads walking down a column.
//
// The matrix multiply as the definition writes it: thread (row, col) computes
//   C[row][col] = sum over i of A[row][i] * B[i][col]
// with a loop of k multiply-adds, reading A's row and B's column straight from global memory.
// The mapping is the trap: threadIdx.x picks the row, so the 32 threads of a warp hold 32
// consecutive rows of one column. At each step i they read A[row][i] for 32 rows: 32 addresses
// k floats apart, 32 memory transactions for 32 useful floats; B[i][col] is one address for the
// whole warp (a broadcast); the stores to C land n floats apart, again one transaction each.
// Every product costs two loads, and one of them is uncoalesced.
// What to look for: the slowest row by far, around 1% of the FP32 peak on an H100. Stage 2 only
// swaps which index threadIdx.x picks.
#include "matmul_device.cuh"

namespace matmul::detail {
namespace {

constexpr int kBlockRows = 32;  // threadIdx.x: 32 consecutive rows, the warp
constexpr int kBlockCols = 32;  // threadIdx.y: 32 columns

__global__ void matmul_naive(const float* a, const float* b, float* c, int m, int n, int k) {
    const int row = static_cast<int>(blockIdx.x) * kBlockRows + static_cast<int>(threadIdx.x);
    const int col = static_cast<int>(blockIdx.y) * kBlockCols + static_cast<int>(threadIdx.y);
    if (row >= m || col >= n) {
        return;
    }
    const float* a_row = a + static_cast<std::size_t>(row) * k;  // 64-bit offsets: m k > 2^31
    float sum = 0.0f;
    for (int i = 0; i < k; ++i) {
        sum += a_row[i] * b[static_cast<std::size_t>(i) * n + col];
    }
    c[static_cast<std::size_t>(row) * n + col] = sum;
}

}  // namespace

void launch_naive(const LaunchArgs& a) {
    matmul_naive<<<tile_grid(a, kBlockRows, kBlockCols), dim3(kBlockRows, kBlockCols), 0,
                   a.stream>>>(a.a, a.b, a.c, a.m, a.n, a.k);
    CT_CHECK_LAUNCH();
}

}  // namespace matmul::detail
