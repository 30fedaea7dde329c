// Stage 11: the tensor-core instruction itself, mma.sync m16n8k16, fed by ldmatrix from
// swizzled shared memory through a ring of four k-tiles.
//
// What changed from stage 10, and why each should be faster:
//   - PTX instead of WMMA. `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` is what
//     WMMA compiles to, but written out the fragments' layout is ours to know: each lane holds
//     documented elements of A (4 registers of 2 BF16), B (2) and C (4 floats). The epilogue no
//     longer goes through shared memory: lane l's sums are C's rows l / 4 and l / 4 + 8, columns
//     2 (l % 4) and the next one, written from registers as BF16 pairs.
//   - ldmatrix: one instruction loads four 8 x 8 BF16 matrices from shared memory into exactly
//     the fragment layout mma.sync wants, each lane giving the address of one 16-byte row. B is
//     row-major (k x n), while the instruction wants B's columns: `ldmatrix .trans` transposes
//     on the way, so no transposed copy of B is ever made.
//   - An XOR swizzle instead of padding: 16-byte chunk c of row r is stored at chunk
//     c ^ f(r), so the 8 rows one ldmatrix reads fall in 8 different groups of 4 banks (A's rows
//     are 64 bytes: f(r) = (r / 2) % 4; B's are 256 bytes: f(r) = r % 8). No byte is wasted and
//     every row stays 16-byte aligned for cp.async.
//   - A ring of 4 k-tiles of 32 (stage 9's pipeline): three copies in flight while the block
//     multiplies.
// Tiles: 128 x 128 per block, 8 warps of 64 x 32, each warp 4 x 4 mma.sync tiles of 16 x 8 per
// k step of 16: 16 MMAs for 4 + 2 ldmatrix.x4.
//
// Edges as in stage 10: rows of multiples of 8 BF16 (and aligned matrices) copy 16 bytes
// asynchronously, zeros past the matrix; other shapes copy element by element, and C is written
// one element at a time where n is odd or the row would end inside a pair.
#include <cuda_bf16.h>
#include <cuda_pipeline_primitives.h>

#include "bf16_device.cuh"
#include "cudatutorial/check.hpp"
#include "matmul_device.cuh"
#include "matmul_launchers.hpp"

namespace matmul::detail {
namespace {

constexpr int kTileM = 128;
constexpr int kTileN = 128;
constexpr int kTileK = 32;
constexpr int kStages = 4;
constexpr int kWarpsM = 2;
constexpr int kWarpsN = 4;
constexpr int kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWarpM = kTileM / kWarpsM;  // 64: 4 MMA tiles of 16 rows
constexpr int kWarpN = kTileN / kWarpsN;  // 32: 4 MMA tiles of 8 columns
constexpr int kMmaM = 16;
constexpr int kMmaN = 8;
constexpr int kMmaK = 16;
constexpr int kTilesM = kWarpM / kMmaM;
constexpr int kTilesN = kWarpN / kMmaN;
constexpr int kChunksPerRowA = kTileK / kBf16PerChunk;  // 4 chunks of 16 bytes: 64-byte rows
constexpr int kChunksPerRowB = kTileN / kBf16PerChunk;  // 16: 256-byte rows
constexpr int kElementsA = kTileM * kTileK;
constexpr int kElementsB = kTileK * kTileN;
constexpr std::size_t kSharedBytes = sizeof(__nv_bfloat16) * kStages * (kElementsA + kElementsB);
static_assert(kTilesN % 2 == 0, "B's fragments are loaded two n-tiles at a time");
static_assert(kTileK % kMmaK == 0, "whole MMA k steps per k-tile");
static_assert(kTilesM * kMmaM == kWarpM && kTilesN * kMmaN == kWarpN, "whole MMA tiles per warp");
static_assert(kChunksPerRowA == 4 && kChunksPerRowB == 16, "the swizzles below assume them");

#if MATMUL_BF16_TENSOR_CORES
/// Where chunk `chunk` of A's row `row` is stored (in BF16 from the tile's start): rows of 4
/// chunks, two rows per 128-byte bank line, the chunk XORed with (row / 2) % 4.
__device__ int a_offset(int row, int chunk) {
    return row * kTileK + ((chunk ^ ((row >> 1) & 3)) * kBf16PerChunk);
}

/// Where chunk `chunk` of B's row `row` is stored: rows of 16 chunks (two bank lines), the chunk
/// XORed with row % 8 (within its 8-chunk half's bank line, the low 3 bits).
__device__ int b_offset(int row, int chunk) {
    return row * kTileN + ((chunk ^ (row & 7)) * kBf16PerChunk);
}

/// Starts the copies of k-tile `k0` into ring buffer `stage`: A's 128 x 32 and B's 32 x 128,
/// 512 chunks of 16 bytes each, two of each per thread, each to its swizzled place.
template <bool kVector>
__device__ void copy_tiles(__nv_bfloat16* ring, const __nv_bfloat16* a, const __nv_bfloat16* b,
                           int m, int n, int k, int tile_row, int tile_col, int k0, int stage) {
    __nv_bfloat16* a_tile = ring + stage * (kElementsA + kElementsB);
    __nv_bfloat16* b_tile = a_tile + kElementsA;
    const int t = static_cast<int>(threadIdx.x);
    for (int e = t; e < kTileM * kChunksPerRowA; e += kThreads) {
        const int row = e / kChunksPerRowA;
        const int chunk = e % kChunksPerRowA;
        const int kk = chunk * kBf16PerChunk;
        const bool inside = tile_row + row < m && k0 + kk < k;
        const __nv_bfloat16* from =
            inside ? a + static_cast<std::size_t>(tile_row + row) * k + k0 + kk : a;
        copy_bf16_chunk<kVector>(a_tile + a_offset(row, chunk), from, inside, k - (k0 + kk));
    }
    for (int e = t; e < kTileK * kChunksPerRowB; e += kThreads) {
        const int row = e / kChunksPerRowB;
        const int chunk = e % kChunksPerRowB;
        const int col = chunk * kBf16PerChunk;
        const bool inside = k0 + row < k && tile_col + col < n;
        const __nv_bfloat16* from =
            inside ? b + static_cast<std::size_t>(k0 + row) * n + tile_col + col : b;
        copy_bf16_chunk<kVector>(b_tile + b_offset(row, chunk), from, inside, n - (tile_col + col));
    }
}

__device__ unsigned shared_address(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// ldmatrix.x4: four 8 x 8 BF16 matrices, lane l giving the address of row l % 8 of matrix
/// l / 8; register i receives matrix i in the mma.sync fragment layout.
__device__ void load_matrix_x4(unsigned (&r)[4], const __nv_bfloat16* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(row)));
}

/// The same, each matrix transposed on its way into the registers.
__device__ void load_matrix_x4_trans(unsigned (&r)[4], const __nv_bfloat16* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(row)));
}

/// d += a . b for one 16 x 8 x 16 tile: a 16 x 16 of A (4 registers), b 16 x 8 of B (2).
__device__ void mma_16x8x16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// The warp's 64 x 32 of the k-tile in ring buffer `stage`, in two k steps of 16.
__device__ void multiply_stage(const __nv_bfloat16* ring, int stage, int warp_row, int warp_col,
                               float (&sum)[kTilesM][kTilesN][4]) {
    const __nv_bfloat16* a_tile = ring + stage * (kElementsA + kElementsB);
    const __nv_bfloat16* b_tile = a_tile + kElementsA;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int matrix = lane / 8;  // which of ldmatrix's four matrices this lane addresses
    const int within = lane % 8;  // and which of its rows
#pragma unroll
    for (int kk = 0; kk < kTileK; kk += kMmaK) {
        // A: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (8-15, 8-15).
        unsigned a_frag[kTilesM][4];
#pragma unroll
        for (int i = 0; i < kTilesM; ++i) {
            const int row = warp_row + i * kMmaM + (matrix % 2) * 8 + within;
            const int chunk = (kk + (matrix / 2) * 8) / kBf16PerChunk;
            load_matrix_x4(a_frag[i], a_tile + a_offset(row, chunk));
        }
        // B, two n-tiles at a time: matrices (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15),
        // (k 8-15, n 8-15), each transposed: registers 0, 1 feed n-tile j, 2, 3 n-tile j + 1.
        unsigned b_frag[kTilesN / 2][4];
#pragma unroll
        for (int j = 0; j < kTilesN / 2; ++j) {
            const int row = kk + (matrix % 2) * 8 + within;
            const int chunk = (warp_col + j * 2 * kMmaN + (matrix / 2) * 8) / kBf16PerChunk;
            load_matrix_x4_trans(b_frag[j], b_tile + b_offset(row, chunk));
        }
#pragma unroll
        for (int i = 0; i < kTilesM; ++i) {
#pragma unroll
            for (int j = 0; j < kTilesN; ++j) {
                const unsigned(&b)[4] = b_frag[j / 2];
                mma_16x8x16(sum[i][j], a_frag[i], b[(j % 2) * 2], b[(j % 2) * 2 + 1]);
            }
        }
    }
}

#endif  // MATMUL_BF16_TENSOR_CORES

// Two blocks per SM: 16 warps, at most 128 registers a thread (64 sums, 24 fragment registers).
template <bool kVector>
__global__ void __launch_bounds__(kThreads, 2)
    matmul_mma_sync(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n,
                    int k) {
#if MATMUL_BF16_TENSOR_CORES
    extern __shared__ __align__(128) __nv_bfloat16 ring[];
    const int tile_row = static_cast<int>(blockIdx.x) * kTileM;  // tile_grid()'s order
    const int tile_col = static_cast<int>(blockIdx.y) * kTileN;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int warp_row = (warp / kWarpsN) * kWarpM;
    const int warp_col = (warp % kWarpsN) * kWarpN;

    float sum[kTilesM][kTilesN][4] = {};
    const int tiles = ceil_div(k, kTileK);
    // Stage 9's ring: tiles 0 .. kStages - 2 in flight, one commit group each (empty groups past
    // the last tile keep the count the wait relies on).
    for (int s = 0; s < kStages - 1; ++s) {
        if (s < tiles) {
            copy_tiles<kVector>(ring, a, b, m, n, k, tile_row, tile_col, s * kTileK, s);
        }
        __pipeline_commit();
    }
    for (int t = 0; t < tiles; ++t) {
        __pipeline_wait_prior(kStages - 2);  // this thread's copies of tile t have landed
        __syncthreads();  // everyone's have, and everyone is done with tile t - 1's buffer
        const int next = t + kStages - 1;
        if (next < tiles) {
            copy_tiles<kVector>(ring, a, b, m, n, k, tile_row, tile_col, next * kTileK,
                                next % kStages);
        }
        __pipeline_commit();
        multiply_stage(ring, t % kStages, warp_row, warp_col, sum);
    }
    for (int i = 0; i < kTilesM; ++i) {
        for (int j = 0; j < kTilesN; ++j) {
            store_accumulator_16x8(c, m, n, tile_row + warp_row + i * kMmaM,
                                   tile_col + warp_col + j * kMmaN, sum[i][j]);
        }
    }
#endif
}

}  // namespace

void launch_mma_sync(const Bf16LaunchArgs& a) {
    const dim3 grid(static_cast<unsigned>(ceil_div(a.m, kTileM)),
                    static_cast<unsigned>(ceil_div(a.n, kTileN)));
    const auto launch = [&](auto kernel) {
        // 64 KiB of shared memory: more than the 48 KiB a block gets without asking.
        CT_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(kSharedBytes)));
        kernel<<<grid, kThreads, kSharedBytes, a.stream>>>(a.a, a.b, a.c, a.m, a.n, a.k);
        CT_CHECK_LAUNCH();
    };
    if (rows_allow_16_bytes(a)) {
        launch(matmul_mma_sync<true>);
    } else {
        launch(matmul_mma_sync<false>);
    }
}

}  // namespace matmul::detail
