// Stage 13: warp specialization. One warpgroup only copies, two only multiply, and a ring of
// mbarriers in both directions replaces the block-wide barrier of stage 12.
//
// What changed from stage 12, and why it should be faster:
//   - Roles. Warpgroup 0 is the producer: one of its threads issues the TMA copies of each
//     k-tile as soon as a buffer is free, and nothing else. Warpgroups 1 and 2 are consumers:
//     each multiplies its 64 rows of the block's 128 x 256 tile with wgmma m64n256k16 (one
//     instruction: 64 x 256 x 16), and never copies. Neither waits for the other except on the
//     buffer they share.
//   - Two barriers per buffer. full[s] completes when the copy engine has landed k-tile t's
//     bytes (as in stage 12); empty[s] completes when every consumer warp is done reading it,
//     and the producer waits on it before refilling. No __syncthreads in the loop: the producer
//     runs up to four k-tiles ahead, and a slow consumer holds back only the buffer it reads.
//   - setmaxnreg. The producer needs a few registers, the consumers 128 sums each plus their
//     addresses: the producer gives its registers back (down to 40 a thread) and the consumers
//     take them (up to 232), within the SM's 64 K: 128 x 40 + 256 x 232 = 64,512.
//   - A bigger tile per block, 128 x 256 (B arrives as four 64-column boxes), with a ring of 4
//     k-tiles of 64 (48 KiB each): every byte of A copied serves 256 columns, and each consumer
//     issues one wgmma per 16 k instead of two.
//
// Edges as in stage 12 (rows of multiples of 16 bytes, else stage 11's kernel). Built for
// sm_90a alone.
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
constexpr int kTileN = 256;
constexpr int kTileK = 64;
constexpr int kStages = 4;
constexpr int kConsumers = 2;                     // warpgroups that multiply, 64 rows each
constexpr int kThreads = 128 * (1 + kConsumers);  // + the producer warpgroup
constexpr int kBoxN = 64;                         // 128 bytes: the swizzle's row
constexpr int kBoxesB = kTileN / kBoxN;           // 4
constexpr int kConsumerWarps = 4 * kConsumers;    // arrivals on an empty barrier
constexpr int kProducerRegisters = 40;
constexpr int kConsumerRegisters = 232;
constexpr std::uint32_t kBytesA = kTileM * kTileK * sizeof(__nv_bfloat16);    // 16 KiB
constexpr std::uint32_t kBytesBoxB = kTileK * kBoxN * sizeof(__nv_bfloat16);  // 8 KiB
constexpr std::uint32_t kStageBytes = kBytesA + kBoxesB * kBytesBoxB;         // 48 KiB
constexpr std::size_t kSharedBytes = kStages * kStageBytes + 1024;
constexpr std::uint32_t kSwizzleRow = 128;
constexpr std::uint32_t kSwizzlePeriod = 1024;
static_assert(128 * kProducerRegisters + 128 * kConsumers * kConsumerRegisters <= 65536,
              "the register file of one SM");

// The ring's phases. An mbarrier counts its phases 0, 1, 2, ... and a wait names the one it
// waits for by its parity alone: mbarrier_wait(b, p) returns once the latest phase of b with
// parity p has completed, and at once if b's current (incomplete) phase has the other parity, as
// a new barrier's phase 0 does for p = 1. K-tile t lives in buffer t % kStages, and is that
// buffer's use t / kStages (0, 1, 2, ...).
// EXERCISE BEGIN: the parity each side waits for. full[s] completes one phase per use of buffer
// EXERCISE HINT: s (when the copy engine has landed the k-tile's bytes); empty[s] one phase per
// EXERCISE HINT: use too (when the consumer warps have released it). A consumer about to read
// EXERCISE HINT: k-tile t waits for full's phase of use t / kStages. The producer about to refill
// EXERCISE HINT: buffer s with k-tile t (t >= kStages) waits until the previous use of s, k-tile
// EXERCISE HINT: t - kStages, is released: which phase of empty[s] is that? (Too early a phase
// EXERCISE HINT: reads a buffer before it is filled or refills one still read; too late, and a
// EXERCISE HINT: wait never ends: here it gives up after 4 s and the product comes out wrong.)
// EXERCISE STUB: __device__ inline unsigned filled_parity(int /* t */) { return 0; }
// EXERCISE STUB: __device__ inline unsigned released_parity(int /* t */) { return 0; }
/// The parity of full[t % kStages]'s phase that completes when k-tile t has landed.
__device__ inline unsigned filled_parity(int t) {
    return static_cast<unsigned>(t / kStages) % 2;
}
/// The parity of empty[t % kStages]'s phase that completes when k-tile t - kStages, the buffer's
/// previous use, has been read by every consumer warp (t >= kStages).
__device__ inline unsigned released_parity(int t) {
    return static_cast<unsigned>(t / kStages - 1) % 2;
}
// EXERCISE END

__global__ void __launch_bounds__(kThreads, 1)
    matmul_warp_specialized(const __grid_constant__ CUtensorMap a_map,
                            const __grid_constant__ CUtensorMap b_map, __nv_bfloat16* c, int m,
                            int n, int k) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ unsigned char shared_raw[];
    __shared__ std::uint64_t full[kStages];
    __shared__ std::uint64_t empty[kStages];
    unsigned char* tiles =
        shared_raw +
        ((kSwizzlePeriod - hopper::smem(shared_raw) % kSwizzlePeriod) % kSwizzlePeriod);
    const int tile_row = static_cast<int>(blockIdx.x) * kTileM;  // tile_grid()'s order
    const int tile_col = static_cast<int>(blockIdx.y) * kTileN;
    const int tiles_k = ceil_div(k, kTileK);
    const int warpgroup = static_cast<int>(threadIdx.x) / 128;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            hopper::mbarrier_init(&full[s], 1);                // the producer's expect_tx
            hopper::mbarrier_init(&empty[s], kConsumerWarps);  // lane 0 of each consumer warp
        }
        hopper::fence_barrier_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        // The producer. Use j of buffer s (k-tile t = j kStages + s) first waits for the
        // consumers to have released use j - 1.
        hopper::release_registers_to<kProducerRegisters>();
        if (threadIdx.x == 0) {
            for (int t = 0; t < tiles_k; ++t) {
                const int stage = t % kStages;
                if (t >= kStages) {
                    hopper::mbarrier_wait(&empty[stage], released_parity(t));
                }
                unsigned char* a_tile = tiles + stage * kStageBytes;
                hopper::mbarrier_expect_bytes(&full[stage], kStageBytes);
                hopper::tma_load_2d(a_tile, &a_map, t * kTileK, tile_row, &full[stage]);
                for (int box = 0; box < kBoxesB; ++box) {
                    hopper::tma_load_2d(a_tile + kBytesA + box * kBytesBoxB, &b_map,
                                        tile_col + box * kBoxN, t * kTileK, &full[stage]);
                }
            }
        }
        return;
    }

    // A consumer: rows 64 (warpgroup - 1) .. + 63 of the block's tile, all 256 columns.
    hopper::claim_registers_up_to<kConsumerRegisters>();
    const int rows = (warpgroup - 1) * 64;
    float sum[128] = {};
    for (int t = 0; t < tiles_k; ++t) {
        const int stage = t % kStages;
        hopper::mbarrier_wait(&full[stage], filled_parity(t));
        const unsigned char* a_tile = tiles + stage * kStageBytes;
        const unsigned char* b_tile = a_tile + kBytesA;
        hopper::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kTileK / 16; ++kk) {
            const std::uint64_t a = hopper::descriptor(
                a_tile + rows * kSwizzleRow + kk * 16 * sizeof(__nv_bfloat16), 16, kSwizzlePeriod);
            const std::uint64_t b =
                hopper::descriptor(b_tile + kk * 16 * kSwizzleRow, kBytesBoxB, kSwizzlePeriod);
            hopper::wgmma_m64n256k16(sum, a, b);
        }
        hopper::wgmma_commit();
        // EXERCISE BEGIN: release a buffer once this warp is done reading it. The MMAs of k-tile t
        // EXERCISE HINT: were just issued and still read their buffer; wgmma_wait<1>() returns
        // EXERCISE HINT: when at most one group (t's) is still running, so t - 1's buffer is read:
        // EXERCISE HINT: then lane 0 of each warp arrives once (mbarrier_arrive) on that buffer's
        // EXERCISE HINT: empty barrier, which expects kConsumerWarps arrivals a phase.
        hopper::wgmma_wait<1>();
        if (t > 0 && threadIdx.x % 32 == 0) {
            hopper::mbarrier_arrive(&empty[(t - 1) % kStages]);
        }
        // EXERCISE END
    }
    hopper::wgmma_wait<0>();
    hopper::fence_registers(sum);

    const int warp = (static_cast<int>(threadIdx.x) % 128) / 32;
#pragma unroll
    for (int j = 0; j < kTileN / 8; ++j) {
        store_accumulator_16x8(c, m, n, tile_row + rows + warp * 16, tile_col + j * 8, &sum[4 * j]);
    }
#endif
}

}  // namespace

void launch_warp_specialized(const Bf16LaunchArgs& a) {
    static_assert(kBoxN == 64, "launch_tma_stage's B boxes are 64 columns");
    hopper::launch_tma_stage(matmul_warp_specialized, a, kTileM, kTileN, kTileK, kThreads,
                             kSharedBytes);
}

}  // namespace matmul::detail
