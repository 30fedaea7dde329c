// Stage 6 - 16-byte loads, A's tile stored transposed, no bank conflicts.
//
// What changed from stage 5 (same 128 x 128 tile, same 8 x 8 outer product per thread):
//  1. Global loads of 16 bytes (float4): one instruction brings 4 floats, a quarter of the load
//     instructions. Only where the data allow it: a float4 must start on a 16-byte boundary, so
//     every row of A and of B must be a multiple of 4 floats long (k and n multiples of 4) and
//     the pointers 16-byte aligned. Otherwise (k = 4093, n = 4097) the same kernel loads one
//     float at a time: the launcher picks, and the tests run both.
//  2. A's tile is stored transposed, a_tile[k][row]: a thread's 8 values of A for step i are
//     then 8 consecutive words, two 16-byte shared loads instead of eight 4-byte ones (stage 5's
//     As[row][i] put them 8 words apart). B's row was already contiguous: two 16-byte loads.
//  3. Bank conflicts removed. A 16-byte shared load is served a quarter-warp (8 threads, 128
//     bytes) at a time; it is conflict-free when those 8 threads read 8 different 16-byte pieces
//     of one 128-byte line. With stage 5's layout a thread's 8 columns of B are contiguous, so
//     threads 0..7 start 32 bytes apart: banks 0-3, 8-11, 16-19, 24-27, then 0-3 again: a
//     2-way conflict on every load of B. Here a thread takes columns 4 tx .. 4 tx + 3 and
//     64 + 4 tx .. 64 + 4 tx + 3: threads 0..7 read 128 consecutive bytes, one per bank.
//     The transposed store into a_tile has the same trap (threads t and t + 1 write the same
//     row index of two k's, 512 bytes apart: the same bank); a padding of 4 floats per k-row
//     moves them 16 bytes apart.
// Why it should be faster: fewer load instructions, global and shared, for the same arithmetic,
// and no shared access replayed for a conflict. What to look for: ncu's
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum (make profile CHAPTER=matmul) at 0
// for this stage and in the millions for stage 5.
#include "matmul_device.cuh"

namespace matmul::detail {
namespace {

constexpr int kTileM = 128;
constexpr int kTileN = 128;
constexpr int kTileK = 8;
constexpr int kThreads = 256;
constexpr int kPad = 4;  // a_tile's row of 128 floats padded to 132: 16 bytes further each k

template <bool kVector>
__device__ void load_tiles(const float* a, const float* b, int m, int n, int k, int tile_row,
                           int tile_col, int k0, float (&a_tile)[kTileK][kTileM + kPad],
                           float (&b_tile)[kTileK][kTileN]) {
    const int t = static_cast<int>(threadIdx.x);
    // A: 128 rows x 8 floats; thread t takes 4 consecutive floats of row t / 2.
    const int a_row = t / 2, a_col = (t % 2) * 4;
    const float4 av = load_four<kVector>(a, m, k, tile_row + a_row, k0 + a_col);
    a_tile[a_col + 0][a_row] = av.x;  // transposed: a_tile[k][row]
    a_tile[a_col + 1][a_row] = av.y;
    a_tile[a_col + 2][a_row] = av.z;
    a_tile[a_col + 3][a_row] = av.w;
    // B: 8 rows x 128 floats; thread t takes 4 consecutive floats of row t / 32.
    const int b_row = t / 32, b_col = (t % 32) * 4;
    const float4 bv = load_four<kVector>(b, k, n, k0 + b_row, tile_col + b_col);
    *reinterpret_cast<float4*>(&b_tile[b_row][b_col]) = bv;
}

/// Four sums of row `row` of C, columns col .. col + 3, as far as C reaches.
template <bool kVector>
__device__ void store_four(float* c, int m, int n, int row, int col, const float* sum) {
    if (row >= m || col >= n) {
        return;
    }
    float* out = c + static_cast<std::size_t>(row) * n + col;
    if constexpr (kVector) {  // n % 4 == 0: all four are inside
        *reinterpret_cast<float4*>(out) = make_float4(sum[0], sum[1], sum[2], sum[3]);
    } else {
        for (int s = 0; s < 4 && col + s < n; ++s) {
            out[s] = sum[s];
        }
    }
}

template <bool kVector>
__global__ void __launch_bounds__(kThreads)
    matmul_vectorized_transposed(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ __align__(16) float a_tile[kTileK][kTileM + kPad];
    __shared__ __align__(16) float b_tile[kTileK][kTileN];
    const int t = static_cast<int>(threadIdx.x);
    const int tile_row = static_cast<int>(blockIdx.x) * kTileM;
    const int tile_col = static_cast<int>(blockIdx.y) * kTileN;
    const int thread_row = (t / 16) * 8;  // 8 consecutive rows
    const int thread_col = (t % 16) * 4;  // columns thread_col + 0..3 and 64 + thread_col + 0..3

    float sum[8][8] = {};
    for (int k0 = 0; k0 < k; k0 += kTileK) {
        load_tiles<kVector>(a, b, m, n, k, tile_row, tile_col, k0, a_tile, b_tile);
        __syncthreads();
        for (int i = 0; i < kTileK; ++i) {
            float a_reg[8], b_reg[8];
            *reinterpret_cast<float4*>(&a_reg[0]) =
                *reinterpret_cast<const float4*>(&a_tile[i][thread_row]);
            *reinterpret_cast<float4*>(&a_reg[4]) =
                *reinterpret_cast<const float4*>(&a_tile[i][thread_row + 4]);
            *reinterpret_cast<float4*>(&b_reg[0]) =
                *reinterpret_cast<const float4*>(&b_tile[i][thread_col]);
            *reinterpret_cast<float4*>(&b_reg[4]) =
                *reinterpret_cast<const float4*>(&b_tile[i][64 + thread_col]);
            for (int r = 0; r < 8; ++r) {
                for (int s = 0; s < 8; ++s) {
                    sum[r][s] += a_reg[r] * b_reg[s];
                }
            }
        }
        __syncthreads();
    }
    for (int r = 0; r < 8; ++r) {
        const int row = tile_row + thread_row + r;
        store_four<kVector>(c, m, n, row, tile_col + thread_col, &sum[r][0]);
        store_four<kVector>(c, m, n, row, tile_col + 64 + thread_col, &sum[r][4]);
    }
}

}  // namespace

void launch_vectorized_transposed(const LaunchArgs& a) {
    const dim3 grid = tile_grid(a, kTileM, kTileN);
    if (rows_allow_float4(a)) {
        matmul_vectorized_transposed<true>
            <<<grid, kThreads, 0, a.stream>>>(a.a, a.b, a.c, a.m, a.n, a.k);
    } else {
        matmul_vectorized_transposed<false>
            <<<grid, kThreads, 0, a.stream>>>(a.a, a.b, a.c, a.m, a.n, a.k);
    }
    CT_CHECK_LAUNCH();
}

}  // namespace matmul::detail
