// Stage 14: persistent clusters. Stage 13's block, kept resident and fed tiles in an order that
// reuses L2, paired with a neighbour that shares B's tile through TMA multicast, and writing C
// through shared memory with the copy engine.
//
// What changed from stage 13, and why it should be faster:
//   - Persistent. The grid is as many clusters as fit on the GPU at once
//     (cudaOccupancyMaxActiveClusters), and each loops over tiles. The producer starts the next
//     tile's copies while the consumers are still writing the last one's C: the ring never
//     drains between tiles, and no block pays a launch or a prologue but once.
//   - Clusters of two along M. The two CTAs of a cluster compute the two 128 x 256 halves of a
//     256 x 256 tile: their B tile is the same. Each loads its own A and half of B, multicast to
//     both: every byte of B read from L2 feeds two SMs, and L2's traffic per FLOP falls by a
//     third (per k-tile, 16 + 16 KiB read for each CTA instead of 16 + 32).
//   - A grouped order. Consecutive 256 x 256 tiles walk down 8 tile rows before moving right, so
//     the clusters running at one time share A's rows and B's columns in L2.
//   - The epilogue through shared memory. A consumer writes each 64 x 64 piece of its sums into
//     a swizzled buffer with stmatrix (one instruction per 16 x 16) and one thread hands it to the
//     copy engine (a TMA store, clipped at C's edges); two buffers, so the next piece is written
//     while the last one is stored. Stage 13's stores left each warp's 32 lanes on 8 rows, 16
//     bytes a row.
//   - Empty barriers across the cluster. A buffer of the ring is refilled in both CTAs at once
//     (the multicast), so it is free only when the consumers of both are done with it: each
//     consumer warp arrives on the empty barrier of both CTAs, with a release at CTA scope
//     (mbarrier_arrive_in says why that is enough).
//
// What to look for: on the H100, 0.99x cuBLAS at 4096^3 (1.14x stage 13), 0.98x at 8192^3.
// Released at cluster scope instead, the same kernel ran at 0.37x, its warps stalled on a memory
// barrier half the time (the lesson's exercise 5).
//
// Edges as in stage 12 (rows of multiples of 16 bytes, else stage 11's kernel): a tile, a half
// tile or a whole CTA past C's edge reads zeros and stores nothing. Built for sm_90a alone.
#include <cuda.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "bf16_device.cuh"
#include "cudatutorial/check.hpp"
#include "cudatutorial/report.hpp"
#include "matmul.hpp"
#include "matmul_device.cuh"
#include "matmul_launchers.hpp"
#include "tensor_maps.hpp"
#include "wgmma.cuh"

namespace matmul::detail {
namespace {

constexpr int kTileM = 128;  // one CTA's rows; a cluster's tile is kCluster times taller
constexpr int kTileN = 256;
constexpr int kTileK = 64;
constexpr int kStages = 4;
constexpr int kCluster = 2;                       // CTAs along M sharing B's tile
constexpr int kGroupRows = 8;                     // cluster tiles down a column before moving right
constexpr int kConsumers = 2;                     // warpgroups that multiply, 64 rows each
constexpr int kThreads = 128 * (1 + kConsumers);  // + the producer warpgroup
constexpr int kBoxN = 64;                         // 128 bytes: the swizzle's row
constexpr int kBoxesB = kTileN / kBoxN;           // 4, of which each CTA loads 2
constexpr int kBoxesPerCta = kBoxesB / kCluster;
constexpr int kConsumerWarps = 4 * kConsumers;
constexpr int kProducerRegisters = 40;
constexpr int kConsumerRegisters = 232;
constexpr std::uint32_t kBytesA = kTileM * kTileK * sizeof(__nv_bfloat16);    // 16 KiB
constexpr std::uint32_t kBytesBoxB = kTileK * kBoxN * sizeof(__nv_bfloat16);  // 8 KiB
constexpr std::uint32_t kStageBytes = kBytesA + kBoxesB * kBytesBoxB;         // 48 KiB
constexpr int kBoxC = 64;  // C leaves in 64 x 64 pieces: a swizzle row of 128 bytes
constexpr std::uint32_t kBytesBoxC = kBoxC * kBoxC * sizeof(__nv_bfloat16);  // 8 KiB
constexpr int kStagingBuffers = 2;                                           // per consumer
constexpr std::size_t kSharedBytes =
    kStages * kStageBytes + kConsumers * kStagingBuffers * kBytesBoxC + 1024;  // 225 KiB
constexpr std::uint32_t kSwizzleRow = 128;
constexpr std::uint32_t kSwizzlePeriod = 1024;
constexpr std::uint16_t kWholeCluster = (1u << kCluster) - 1;
static_assert(128 * kProducerRegisters + 128 * kConsumers * kConsumerRegisters <= 65536,
              "the register file of one SM");
static_assert(kSharedBytes <= 227 * 1024, "an H100 SM's shared memory for one block");

/// The first row and column of cluster tile `tile` (kCluster x kTileM by kTileN), in the
/// grouped order: kGroupRows tile rows at a time, down each column of the group, then right.
__device__ inline int2 grouped_tile(int tile, int tile_rows, int tile_cols) {
    const int per_group = kGroupRows * tile_cols;
    const int first_row = tile / per_group * kGroupRows;
    const int rows_here = min(kGroupRows, tile_rows - first_row);
    const int in_group = tile % per_group;
    return make_int2((first_row + in_group % rows_here) * kCluster * kTileM,
                     in_group / rows_here * kTileN);
}

/// Writes a consumer's 64 x 256 sums to C in four 64 x 64 pieces: stmatrix into a swizzled
/// staging buffer (as a TMA map with the 128-byte swizzle lays a box out), then one thread's TMA
/// store. `stores` counts the pieces this consumer has written, choosing the buffer.
__device__ inline void store_tile(float (&sum)[128], unsigned char* staging, int& stores,
                                  const CUtensorMap* c_map, int row, int col, unsigned consumer) {
    const int thread = static_cast<int>(threadIdx.x) % 128;
    const int warp = thread / 32;
    const int lane = thread % 32;
    const int matrix = lane / 8;  // the 8 x 8 matrix whose row this lane addresses
    const int row_in_piece = warp * 16 + (matrix % 2) * 8 + lane % 8;
#pragma unroll
    for (int piece = 0; piece < kTileN / kBoxC; ++piece, ++stores) {
        unsigned char* buffer = staging + (stores % kStagingBuffers) * kBytesBoxC;
        if (thread == 0) {
            hopper::bulk_wait_read<kStagingBuffers - 1>();  // this buffer's last store has read it
        }
        hopper::named_barrier(1 + consumer, 128);
#pragma unroll
        for (int pair = 0; pair < kBoxC / 16; ++pair) {
            const int j = piece * (kBoxC / 8) + 2 * pair;  // accumulator tiles j, j + 1 (16 x 8)
            const int chunk = 2 * pair + matrix / 2;       // 16-byte column chunk of the row
            unsigned char* address =
                buffer + row_in_piece * kSwizzleRow + ((chunk ^ (row_in_piece % 8)) * 16);
            hopper::stmatrix_x4(address, hopper::pack_bf16x2(sum[4 * j], sum[4 * j + 1]),
                                hopper::pack_bf16x2(sum[4 * j + 2], sum[4 * j + 3]),
                                hopper::pack_bf16x2(sum[4 * j + 4], sum[4 * j + 5]),
                                hopper::pack_bf16x2(sum[4 * j + 6], sum[4 * j + 7]));
        }
        hopper::fence_shared_for_copy_engine();
        hopper::named_barrier(1 + consumer, 128);
        if (thread == 0) {
            hopper::tma_store_2d(c_map, col + piece * kBoxC, row, buffer);
            hopper::bulk_commit();
        }
    }
}

/// A consumer warp's release of the ring's buffer whose `empty` barrier this is, in every CTA of
/// the cluster (the multicast refills it in all of them at once): lane r arrives in CTA r, the
/// arrivals leave together.
__device__ inline void release_in_cluster(std::uint64_t* empty) {
    const unsigned lane = threadIdx.x % 32;
    if (lane < kCluster) {
        hopper::mbarrier_arrive_in(empty, lane);
    }
}

/// The producer warp's loop: every k-tile of every tile of this cluster, in the ring's order
/// (`use` counts k-tiles across tiles, as the ring sees them); lane 0 issues the copies. The
/// whole warp walks the loop: lanes left waiting at the kernel's final cluster barrier while
/// lane 0 works would share the warp with it.
__device__ __forceinline__ void produce_tiles(const CUtensorMap* a_map, const CUtensorMap* b_map,
                                              unsigned char* tiles, std::uint64_t* full,
                                              std::uint64_t* empty, unsigned rank, int tile_rows,
                                              int tile_cols, int tiles_k) {
    const bool issuer = threadIdx.x == 0;
    int use = 0;
    for (int tile = hopper::cluster_index(); tile < tile_rows * tile_cols;
         tile += hopper::cluster_count()) {
        const int2 origin = grouped_tile(tile, tile_rows, tile_cols);
        const int row = origin.x + static_cast<int>(rank) * kTileM;
        for (int t = 0; t < tiles_k; ++t, ++use) {
            const int stage = use % kStages;
            // Both CTAs' consumers released its last use, after wgmma had read it; the copies
            // issued after this wait cannot overtake those reads.
            if (use >= kStages) {
                hopper::mbarrier_wait(&empty[stage], (use / kStages - 1) % 2);
            }
            if (issuer) {
                unsigned char* a_tile = tiles + stage * kStageBytes;
                hopper::mbarrier_expect_bytes(&full[stage], kStageBytes);  // B: both halves
                hopper::tma_load_2d(a_tile, a_map, t * kTileK, row, &full[stage]);
                for (int box = static_cast<int>(rank) * kBoxesPerCta;
                     box < (static_cast<int>(rank) + 1) * kBoxesPerCta; ++box) {
                    hopper::tma_load_2d_multicast(a_tile + kBytesA + box * kBytesBoxB, b_map,
                                                  origin.y + box * kBoxN, t * kTileK, &full[stage],
                                                  kWholeCluster);
                }
            }
            __syncwarp();
        }
    }
}

__global__ void __launch_bounds__(kThreads, 1)
    matmul_persistent_clusters(const __grid_constant__ CUtensorMap a_map,
                               const __grid_constant__ CUtensorMap b_map,
                               const __grid_constant__ CUtensorMap c_map, int m, int n, int k) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ unsigned char shared_raw[];
    __shared__ std::uint64_t full[kStages];
    __shared__ std::uint64_t empty[kStages];
    // The same offset in every CTA: multicast copies land at the sender's addresses.
    unsigned char* tiles =
        shared_raw +
        ((kSwizzlePeriod - hopper::smem(shared_raw) % kSwizzlePeriod) % kSwizzlePeriod);
    const unsigned rank = hopper::cluster_rank();
    const int tile_rows = ceil_div(m, kCluster * kTileM);
    const int tile_cols = ceil_div(n, kTileN);
    const int cluster_tiles = tile_rows * tile_cols;
    const int tiles_k = ceil_div(k, kTileK);
    const int warpgroup = static_cast<int>(threadIdx.x) / 128;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            hopper::mbarrier_init(&full[s], 1);  // this CTA's producer's expect_tx
            // lane 0 of each consumer warp of every CTA of the cluster
            hopper::mbarrier_init(&empty[s], kConsumerWarps * kCluster);
        }
        hopper::fence_barrier_init();
    }
    hopper::cluster_sync();  // no copy lands on, nor arrival reaches, a barrier not yet made

    if (warpgroup == 0) {
        // The producer: warp 0 (produce_tiles); its other warps go on to the final barrier.
        hopper::release_registers_to<kProducerRegisters>();
        if (threadIdx.x < 32) {
            produce_tiles(&a_map, &b_map, tiles, full, empty, rank, tile_rows, tile_cols, tiles_k);
        }
    } else {
        // A consumer: rows 64 (warpgroup - 1) .. + 63 of its CTA's half of each tile.
        hopper::claim_registers_up_to<kConsumerRegisters>();
        const unsigned consumer = static_cast<unsigned>(warpgroup - 1);
        const int rows = static_cast<int>(consumer) * 64;
        unsigned char* staging =
            tiles + kStages * kStageBytes + consumer * kStagingBuffers * kBytesBoxC;
        int use = 0;
        int stores = 0;
        for (int tile = hopper::cluster_index(); tile < cluster_tiles;
             tile += hopper::cluster_count()) {
            const int2 origin = grouped_tile(tile, tile_rows, tile_cols);
            float sum[128];
#pragma unroll
            for (int i = 0; i < 128; ++i) {
                sum[i] = 0.0f;
            }
            for (int t = 0; t < tiles_k; ++t, ++use) {
                const int stage = use % kStages;
                hopper::mbarrier_wait(&full[stage], (use / kStages) % 2);
                const unsigned char* a_tile = tiles + stage * kStageBytes;
                const unsigned char* b_tile = a_tile + kBytesA;
                hopper::wgmma_fence();
#pragma unroll
                for (int kk = 0; kk < kTileK / 16; ++kk) {
                    const std::uint64_t a = hopper::descriptor(
                        a_tile + rows * kSwizzleRow + kk * 16 * 2, 16, kSwizzlePeriod);
                    const std::uint64_t b = hopper::descriptor(b_tile + kk * 16 * kSwizzleRow,
                                                               kBytesBoxB, kSwizzlePeriod);
                    hopper::wgmma_m64n256k16(sum, a, b);
                }
                hopper::wgmma_commit();
                // The last k-tile's MMAs run on; the one before is read: release it, in both CTAs.
                hopper::wgmma_wait<1>();
                if (t > 0) {
                    release_in_cluster(&empty[(use - 1) % kStages]);
                }
            }
            hopper::wgmma_wait<0>();
            hopper::fence_registers(sum);
            release_in_cluster(&empty[(use - 1) % kStages]);  // the tile's last k-tile is read
            store_tile(sum, staging, stores, &c_map,
                       origin.x + static_cast<int>(rank) * kTileM + rows, origin.y, consumer);
        }
        if (threadIdx.x % 128 == 0) {
            hopper::bulk_wait<0>();  // every store of C has landed before the block ends
        }
    }
    // No CTA leaves while its partner may still copy into its shared memory or arrive on it.
    hopper::cluster_sync();
#endif
}

/// The launch of `clusters` clusters of kCluster blocks on `stream`: the configuration
/// cudaLaunchKernelEx and cudaOccupancyMaxActiveClusters take, with its cluster attribute.
struct ClusterLaunch {
    cudaLaunchAttribute cluster = {};
    cudaLaunchConfig_t config = {};

    ClusterLaunch(int clusters, cudaStream_t stream) {
        cluster.id = cudaLaunchAttributeClusterDimension;
        cluster.val.clusterDim.x = kCluster;
        cluster.val.clusterDim.y = 1;
        cluster.val.clusterDim.z = 1;
        config.gridDim = dim3(static_cast<unsigned>(clusters * kCluster));
        config.blockDim = dim3(kThreads);
        config.dynamicSmemBytes = kSharedBytes;
        config.stream = stream;
        config.attrs = &cluster;  // hence not copyable
        config.numAttrs = 1;
    }
    ClusterLaunch(const ClusterLaunch&) = delete;
    ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

/// How many clusters of this kernel fit on the current GPU at once (0: none), asked once per
/// device: the grid of every launch.
int resident_clusters() {
    static int device_asked = -1;
    static int clusters = 0;
    int device = 0;
    CT_CHECK(cudaGetDevice(&device));
    if (device != device_asked) {
        CT_CHECK(cudaFuncSetAttribute(matmul_persistent_clusters,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(kSharedBytes)));
        const ClusterLaunch one(1, nullptr);
        CT_CHECK(
            cudaOccupancyMaxActiveClusters(&clusters, matmul_persistent_clusters, &one.config));
        device_asked = device;
    }
    return clusters;
}

int cluster_tiles_of(int m, int n) {
    return ceil_div(m, kCluster * kTileM) * ceil_div(n, kTileN);
}

}  // namespace

void launch_persistent_clusters(const Bf16LaunchArgs& a) {
    if (!rows_allow_16_bytes(a) || !aligned16(a.c)) {
        launch_mma_sync(a);
        return;
    }
    const int clusters = std::min(resident_clusters(), cluster_tiles_of(a.m, a.n));
    if (clusters < 1) {
        throw cudatutorial::CudaError(cudaErrorInvalidConfiguration,
                                      "stage 14: not one cluster of " + std::to_string(kCluster) +
                                          " blocks with " + std::to_string(kSharedBytes / 1024) +
                                          " KiB of shared memory fits on this GPU");
    }
    const CUtensorMap a_map = bf16_tensor_map(a.a, a.m, a.k, kTileM, kTileK);
    const CUtensorMap b_map = bf16_tensor_map(a.b, a.k, a.n, kTileK, kBoxN);
    const CUtensorMap c_map = bf16_tensor_map(a.c, a.m, a.n, kBoxC, kBoxC);
    const ClusterLaunch launch(clusters, a.stream);
    CT_CHECK(cudaLaunchKernelEx(&launch.config, matmul_persistent_clusters, a_map, b_map, c_map,
                                a.m, a.n, a.k));
    CT_CHECK_LAUNCH();
}

std::string persistent_schedule(int m, int n) {
    const int tiles = cluster_tiles_of(m, n);
    const int clusters = std::min(resident_clusters(), tiles);
    if (clusters < 1) {
        return "no cluster fits";
    }
    return std::to_string(clusters) + " clusters of " + std::to_string(kCluster) +
           " blocks resident (cudaOccupancyMaxActiveClusters) over " + std::to_string(tiles) +
           " tiles of " + std::to_string(kCluster * kTileM) + " x " + std::to_string(kTileN) +
           ": " + cudatutorial::format_fixed(static_cast<double>(tiles) / clusters, 2) + " waves";
}

}  // namespace matmul::detail
