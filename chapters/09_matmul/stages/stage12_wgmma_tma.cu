// Stage 12: Hopper's own path to the tensor cores. wgmma reads its tiles straight from shared
// memory, and the copy engine (TMA) puts them there, each k-tile announced by an mbarrier.
//
// What changed from stage 11, and why it should be faster:
//   - wgmma instead of mma.sync. One instruction of the 4 warps of a warpgroup multiplies
//     64 x 128 x 16 (262,144 FLOP, against 4,096 for an mma.sync), and it reads A and B from
//     shared memory itself, through 64-bit descriptors: no ldmatrix, no fragment registers, and
//     the warps are free while it runs (it is asynchronous: they wait for a committed group).
//     On an H100 only wgmma reaches the tensor cores' full rate; mma.sync gets a fraction.
//   - TMA instead of cp.async. One thread asks the copy engine for a whole box of A (128 rows x
//     64 k) and two of B (64 k x 64 columns each): 32 KiB per k-tile, no address arithmetic per
//     thread, and the 128-byte swizzle wgmma wants is applied by the copy engine on the way.
//     Elements past the matrix's edges arrive as zeros, so any m works, and any n and k that
//     a tensor map accepts (below).
//   - An mbarrier per ring buffer: the issuing thread says how many bytes will land
//     (expect_tx); the copy engine counts them off; the barrier's phase flips when all have
//     arrived, and the warps wait on that phase (a parity bit that alternates at each reuse).
//   - B stays row-major. wgmma's B is K-major by default; for 16-bit types it also reads an
//     N-major tile (the transpose flag), so B's rows are copied as they are.
// One warpgroup per block (128 x 128 tile, two 64 x 128 accumulators, 128 FP32 a thread), a ring
// of 3 k-tiles of 64 (96 KiB: two blocks share an SM). One barrier per k-tile tells the issuing
// thread that every warp's MMAs on the oldest buffer are done before it is refilled; stage 13
// removes that wait by giving the copies their own warps.
//
// The edges: a tensor map needs rows that are multiples of 16 bytes (k and n multiples of 8)
// and a 16-byte aligned matrix. Other shapes run stage 11's kernel (launch_tma_stage, in
// wgmma.cuh; the table's note says so at such a shape).
//
// Built for sm_90a alone (CMakeLists.txt): wgmma has no PTX fallback and does not load on other
// architectures, so the stage list runs it on compute capability 9.0 only.
#include <cuda.h>
#include <cuda_bf16.h>

#include <cstdint>

#include "bf16_device.cuh"
#include "cudatutorial/check.hpp"
#include "matmul_device.cuh"
#include "matmul_launchers.hpp"
#include "tensor_maps.hpp"
#include "wgmma.cuh"

namespace matmul::detail {
namespace {

constexpr int kTileM = 128;
constexpr int kTileN = 128;
constexpr int kTileK = 64;  // 64 BF16 = 128 bytes: one swizzled row of A
constexpr int kStages = 3;
constexpr int kThreads = 128;  // one warpgroup
constexpr int kBoxN = 64;      // B's boxes: 64 columns = 128 bytes, the swizzle's row
constexpr std::uint32_t kBytesA = kTileM * kTileK * sizeof(__nv_bfloat16);  // 16 KiB
constexpr std::uint32_t kBytesB = kTileK * kTileN * sizeof(__nv_bfloat16);  // 16 KiB
constexpr std::uint32_t kBytesBoxB = kTileK * kBoxN * sizeof(__nv_bfloat16);
constexpr std::uint32_t kStageBytes = kBytesA + kBytesB;
// + 1 KiB: the tiles start on a 1,024-byte boundary (the 128-byte swizzle's period).
constexpr std::size_t kSharedBytes = kStages * kStageBytes + 1024;
constexpr std::uint32_t kSwizzleRow = 128;      // bytes: a row of a swizzled box
constexpr std::uint32_t kSwizzlePeriod = 1024;  // 8 rows

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/// Starts k-tile `t`'s three copies into ring buffer t % kStages (one thread calls this).
__device__ void issue_copies(unsigned char* tiles, std::uint64_t* full, const CUtensorMap* a_map,
                             const CUtensorMap* b_map, int tile_row, int tile_col, int t) {
    const int stage = t % kStages;
    unsigned char* a_tile = tiles + stage * kStageBytes;
    unsigned char* b_tile = a_tile + kBytesA;
    hopper::mbarrier_expect_bytes(&full[stage], kStageBytes);
    hopper::tma_load_2d(a_tile, a_map, t * kTileK, tile_row, &full[stage]);
    hopper::tma_load_2d(b_tile, b_map, tile_col, t * kTileK, &full[stage]);
    hopper::tma_load_2d(b_tile + kBytesBoxB, b_map, tile_col + kBoxN, t * kTileK, &full[stage]);
}
#endif

__global__ void __launch_bounds__(kThreads)
    matmul_wgmma_tma(const __grid_constant__ CUtensorMap a_map,
                     const __grid_constant__ CUtensorMap b_map, __nv_bfloat16* c, int m, int n,
                     int k) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ unsigned char shared_raw[];
    __shared__ std::uint64_t full[kStages];  // one mbarrier per ring buffer
    unsigned char* tiles =
        shared_raw +
        ((kSwizzlePeriod - hopper::smem(shared_raw) % kSwizzlePeriod) % kSwizzlePeriod);
    const int tile_row = static_cast<int>(blockIdx.x) * kTileM;  // tile_grid()'s order
    const int tile_col = static_cast<int>(blockIdx.y) * kTileN;
    const int tiles_k = ceil_div(k, kTileK);
    const bool issuer = threadIdx.x == 0;

    if (issuer) {
        for (int s = 0; s < kStages; ++s) {
            hopper::mbarrier_init(&full[s], 1);  // one arrival a phase: the issuer's expect_tx
        }
        hopper::fence_barrier_init();
    }
    __syncthreads();
    if (issuer) {
        for (int t = 0; t < kStages - 1 && t < tiles_k; ++t) {
            issue_copies(tiles, full, &a_map, &b_map, tile_row, tile_col, t);
        }
    }

    float sum[2][64] = {};  // rows 0-63 and 64-127 of the block's tile
    for (int t = 0; t < tiles_k; ++t) {
        const int stage = t % kStages;
        hopper::mbarrier_wait(&full[stage], (t / kStages) % 2);  // the buffer's use t / kStages
        const unsigned char* a_tile = tiles + stage * kStageBytes;
        const unsigned char* b_tile = a_tile + kBytesA;
        hopper::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kTileK / 16; ++kk) {
            // B (N-major): 16 k rows from row 16 kk; 8-row groups 1,024 bytes apart (stride),
            // the second 64-column box kBytesBoxB further (leading).
            const std::uint64_t b =
                hopper::descriptor(b_tile + kk * 16 * kSwizzleRow, kBytesBoxB, kSwizzlePeriod);
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                // A (K-major): 64 rows from row 64 half, k from 16 kk (32 bytes into each row);
                // 8-row groups 1,024 bytes apart; the leading offset is unused when swizzled.
                const std::uint64_t a = hopper::descriptor(
                    a_tile + half * 64 * kSwizzleRow + kk * 16 * sizeof(__nv_bfloat16), 16,
                    kSwizzlePeriod);
                hopper::wgmma_m64n128k16(sum[half], a, b);
            }
        }
        hopper::wgmma_commit();
        // This k-tile's MMAs may run on (the next ones accumulate into the same registers, which
        // wgmma allows while nothing else touches them); the previous k-tile's are done.
        hopper::wgmma_wait<1>();
        __syncthreads();  // ... in every warp: the previous k-tile's buffer may be refilled
        if (issuer && t + kStages - 1 < tiles_k) {
            issue_copies(tiles, full, &a_map, &b_map, tile_row, tile_col, t + kStages - 1);
        }
    }
    hopper::wgmma_wait<0>();
    hopper::fence_registers(sum[0]);
    hopper::fence_registers(sum[1]);

    // Warp w holds rows 16 w .. 16 w + 15 of each 64-row half, 16 tiles of 16 x 8 across.
    const int warp = static_cast<int>(threadIdx.x) / 32;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            store_accumulator_16x8(c, m, n, tile_row + half * 64 + warp * 16, tile_col + j * 8,
                                   &sum[half][4 * j]);
        }
    }
#endif
}

}  // namespace

void launch_wgmma_tma(const Bf16LaunchArgs& a) {
    static_assert(kBoxN == 64, "launch_tma_stage's B boxes are 64 columns");
    hopper::launch_tma_stage(matmul_wgmma_tma, a, kTileM, kTileN, kTileK, kThreads, kSharedBytes);
}

}  // namespace matmul::detail
