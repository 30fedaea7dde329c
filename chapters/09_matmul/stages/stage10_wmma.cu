// Stage 10: the tensor cores through WMMA, BF16 in, FP32 sums, BF16 out.
//
// What changed from stage 9: the multiply itself. Until now a thread's FMA computed one product
// and one sum; a tensor core's MMA instruction computes a whole small matrix product. WMMA
// (nvcuda::wmma, compute capability 7.0; BF16 from 8.0) is the portable C++ face of it: a warp
// loads a 16 x 16 "fragment" of A and one of B from shared memory, and mma_sync adds their
// 16 x 16 x 16 product (8,192 FLOP) into a 16 x 16 accumulator fragment, FP32, spread over the
// warp's registers in a layout the API keeps opaque. Inputs are BF16 (FP32's exponent, 8
// significant bits): half the bytes of FP32, and the tensor cores' native input.
//
// The rest is stage 9's skeleton at tensor-core sizes: a 128 x 128 block tile, 8 warps of
// 64 x 32 (4 x 2 accumulator fragments each), k-tiles of 32 copied by cp.async into two shared
// buffers (the next one in flight while the block multiplies the current one). Shared rows are
// padded by 8 BF16 (16 bytes): the 8 rows of 16 bytes each step of a fragment load reads then
// fall in 8 different groups of 4 banks.
//
// Why it cannot reach an H100's peak: WMMA compiles to mma.sync (HMMA), which a warp issues
// on its own, fed from registers, which the fragment loads fill from shared memory; Hopper's
// full rate needs wgmma (stages to come), where a warpgroup's MMA reads its operands straight
// from shared memory, asynchronously. The table shows how far this stage gets.
//
// Edges: a 16-byte copy moves 8 BF16 along a row, so it needs k and n multiples of 8 (and
// aligned matrices); rows and k-tiles past the matrix copy zeros. Otherwise the copies are
// element by element, through registers. The epilogue goes through shared memory (the fragment
// layout is opaque): each warp stores one accumulator at a time to a 16 x 16 FP32 scratch, then
// its lanes round to BF16 and write the elements inside C.
#include <cuda_bf16.h>
#include <cuda_pipeline_primitives.h>
#include <mma.h>

#include "bf16_device.cuh"
#include "cudatutorial/check.hpp"
#include "matmul_device.cuh"
#include "matmul_launchers.hpp"

namespace matmul::detail {
namespace {

constexpr int kTileM = 128;
constexpr int kTileN = 128;
constexpr int kTileK = 32;
constexpr int kWarpsM = 2;  // warps down the block tile
constexpr int kWarpsN = 4;  // and across it
constexpr int kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWarpM = kTileM / kWarpsM;  // 64
constexpr int kWarpN = kTileN / kWarpsN;  // 32
constexpr int kFragment = 16;             // WMMA's m = n = k for BF16
constexpr int kFragmentsM = kWarpM / kFragment;
constexpr int kFragmentsN = kWarpN / kFragment;
constexpr int kPad = 8;                  // BF16: 16 bytes
constexpr int kStrideA = kTileK + kPad;  // A tile: kTileM rows of kTileK (+ pad)
constexpr int kStrideB = kTileN + kPad;  // B tile: kTileK rows of kTileN (+ pad)
constexpr int kElementsA = kTileM * kStrideA;
constexpr int kElementsB = kTileK * kStrideB;
constexpr int kChunk = kBf16PerChunk;

struct SharedTiles {
    __nv_bfloat16 a[2][kElementsA];
    __nv_bfloat16 b[2][kElementsB];
    float scratch[kThreads / 32][kFragment * kFragment];  // the epilogue's, one per warp
};
static_assert(sizeof(SharedTiles) <= 48 * 1024, "static shared memory");
static_assert(kFragmentsM * kFragment == kWarpM && kFragmentsN * kFragment == kWarpN,
              "whole fragments per warp tile");
static_assert(kTileK % kChunk == 0 && kTileN % kChunk == 0, "whole 16-byte chunks per tile row");
static_assert((kElementsA * 2) % 32 == 0 && (kElementsB * 2) % 32 == 0,
              "fragment loads need 32-byte aligned addresses");

/// Starts the copies of k-tile `k0` into buffer `buffer`: A's 128 x 32 and B's 32 x 128, each
/// 512 chunks of 16 bytes, two a thread.
template <bool kVector>
__device__ void copy_tiles(SharedTiles& s, const __nv_bfloat16* a, const __nv_bfloat16* b, int m,
                           int n, int k, int tile_row, int tile_col, int k0, int buffer) {
    const int t = static_cast<int>(threadIdx.x);
    constexpr int kChunksA = kTileM * kTileK / kChunk;
    for (int e = t; e < kChunksA; e += kThreads) {
        const int row = e / (kTileK / kChunk);
        const int kk = (e % (kTileK / kChunk)) * kChunk;
        const bool inside = tile_row + row < m && k0 + kk < k;
        const __nv_bfloat16* from =
            inside ? a + static_cast<std::size_t>(tile_row + row) * k + k0 + kk : a;
        copy_bf16_chunk<kVector>(&s.a[buffer][row * kStrideA + kk], from, inside, k - (k0 + kk));
    }
    constexpr int kChunksB = kTileK * kTileN / kChunk;
    for (int e = t; e < kChunksB; e += kThreads) {
        const int kk = e / (kTileN / kChunk);
        const int col = (e % (kTileN / kChunk)) * kChunk;
        const bool inside = k0 + kk < k && tile_col + col < n;
        const __nv_bfloat16* from =
            inside ? b + static_cast<std::size_t>(k0 + kk) * n + tile_col + col : b;
        copy_bf16_chunk<kVector>(&s.b[buffer][kk * kStrideB + col], from, inside,
                                 n - (tile_col + col));
    }
}

// Two blocks per SM (16 warps): at most 128 registers a thread, which the 8 accumulator
// fragments (64 floats) and 6 operand fragments fit without spilling.
template <bool kVector>
__global__ void __launch_bounds__(kThreads, 2)
    matmul_wmma(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n,
                int k) {
#if MATMUL_BF16_TENSOR_CORES
    using namespace nvcuda;
    __shared__ __align__(128) SharedTiles s;
    const int tile_row = static_cast<int>(blockIdx.x) * kTileM;  // tile_grid()'s order
    const int tile_col = static_cast<int>(blockIdx.y) * kTileN;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int warp_row = (warp / kWarpsN) * kWarpM;  // within the block tile
    const int warp_col = (warp % kWarpsN) * kWarpN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> sum[kFragmentsM][kFragmentsN];
    for (auto& row : sum) {
        for (auto& fragment : row) {
            wmma::fill_fragment(fragment, 0.0f);
        }
    }
    const int tiles = ceil_div(k, kTileK);
    copy_tiles<kVector>(s, a, b, m, n, k, tile_row, tile_col, 0, 0);
    __pipeline_commit();
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles) {  // the next k-tile on its way while this one is multiplied
            copy_tiles<kVector>(s, a, b, m, n, k, tile_row, tile_col, (t + 1) * kTileK,
                                (t + 1) % 2);
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);  // tile t's copies (this thread's) have landed
        __syncthreads();           // ... and every other thread's
        const __nv_bfloat16* a_tile = s.a[t % 2];
        const __nv_bfloat16* b_tile = s.b[t % 2];
#pragma unroll
        for (int kk = 0; kk < kTileK; kk += kFragment) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>
                a_frag[kFragmentsM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major>
                b_frag[kFragmentsN];
#pragma unroll
            for (int i = 0; i < kFragmentsM; ++i) {
                wmma::load_matrix_sync(
                    a_frag[i], a_tile + (warp_row + i * kFragment) * kStrideA + kk, kStrideA);
            }
#pragma unroll
            for (int j = 0; j < kFragmentsN; ++j) {
                wmma::load_matrix_sync(b_frag[j], b_tile + kk * kStrideB + warp_col + j * kFragment,
                                       kStrideB);
            }
#pragma unroll
            for (int i = 0; i < kFragmentsM; ++i) {
#pragma unroll
                for (int j = 0; j < kFragmentsN; ++j) {
                    wmma::mma_sync(sum[i][j], a_frag[i], b_frag[j], sum[i][j]);
                }
            }
        }
        __syncthreads();  // everyone is done with buffer t % 2 before the copies of t + 2
    }

    // The epilogue: one fragment at a time through the warp's scratch; lane l rounds and
    // writes 8 elements of row l / 2.
    float* scratch = s.scratch[warp];
    const int lane = static_cast<int>(threadIdx.x) % 32;
    for (int i = 0; i < kFragmentsM; ++i) {
        for (int j = 0; j < kFragmentsN; ++j) {
            wmma::store_matrix_sync(scratch, sum[i][j], kFragment, wmma::mem_row_major);
            __syncwarp();
            const int row = tile_row + warp_row + i * kFragment + lane / 2;
            const int col0 = tile_col + warp_col + j * kFragment + (lane % 2) * 8;
            for (int q = 0; q < 8; ++q) {
                if (row < m && col0 + q < n) {
                    c[static_cast<std::size_t>(row) * n + col0 + q] =
                        __float2bfloat16_rn(scratch[(lane / 2) * kFragment + (lane % 2) * 8 + q]);
                }
            }
            __syncwarp();  // the scratch is read before the next fragment overwrites it
        }
    }
#endif
}

}  // namespace

void launch_wmma(const Bf16LaunchArgs& a) {
    const dim3 grid(static_cast<unsigned>(ceil_div(a.m, kTileM)),
                    static_cast<unsigned>(ceil_div(a.n, kTileN)));
    if (rows_allow_16_bytes(a)) {
        matmul_wmma<true><<<grid, kThreads, 0, a.stream>>>(a.a, a.b, a.c, a.m, a.n, a.k);
    } else {
        matmul_wmma<false><<<grid, kThreads, 0, a.stream>>>(a.a, a.b, a.c, a.m, a.n, a.k);
    }
    CT_CHECK_LAUNCH();
}

}  // namespace matmul::detail
