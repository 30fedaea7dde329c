// Stage 9's kernel, a template (stage9_async_pipeline.cu says what it teaches and which shape
// it runs). Device code: include from .cu files only.
//
// The tiles are stage 7's (block tile -> warp tile -> thread tile, 4 x 4 sub-tiles, lanes as a
// kLanesM x kLanesN grid); what changes is how a k-tile gets into shared memory and how many
// are on their way:
//   - the copy engine's asynchronous copy (cp.async, compute capability 8.0) moves global
//     memory to shared memory without passing through registers, so a thread issues a copy and
//     goes on multiplying; nothing waits for it until the tile is needed;
//   - kStages k-tiles live in a ring of shared buffers: while the block multiplies tile t, the
//     copies of tiles t + 1 .. t + kStages - 1 are in flight. One barrier per k-tile;
//   - A's tile is still stored transposed (a[k][row], stage 6's reason), which a 16-byte copy
//     cannot do: A is copied 4 bytes at a time, each to its transposed place. B's rows go over
//     as they are, 16 bytes at a time;
//   - the fragments a thread reads from shared memory for step i + 1 are loaded while it
//     multiplies step i (two register sets), so the shared loads' latency hides behind FMAs.
// Past the matrix's edges a copy reads nothing and writes zeros (cp.async's source size 0),
// so any m, n, k works; B's 16-byte copies need n % 4 == 0 and aligned rows, as in stage 6,
// and kVector = false copies B 4 bytes at a time.
#pragma once

#include <cuda_pipeline_primitives.h>

#include "matmul_device.cuh"
#include "stage7_warp_tiling.cuh"

namespace matmul::detail {

/// A pipelined kernel's shape: stage 7's tiles plus the k-tile depth and the ring's length.
template <int kTileMArg, int kTileNArg, int kTileKArg, int kLanesMArg, int kSubMArg, int kSubNArg,
          int kStagesArg>
struct AsyncTiling {
    static constexpr int kTileM = kTileMArg;
    static constexpr int kTileN = kTileNArg;
    static constexpr int kTileK = kTileKArg;  // a multiple of 8
    static constexpr int kLanesM = kLanesMArg;
    static constexpr int kLanesN = 32 / kLanesM;
    static constexpr int kSubM = kSubMArg;
    static constexpr int kSubN = kSubNArg;
    static constexpr int kThreadM = 4 * kSubM;
    static constexpr int kThreadN = 4 * kSubN;
    static constexpr int kWarpM = kThreadM * kLanesM;
    static constexpr int kWarpN = kThreadN * kLanesN;
    static constexpr int kWarps = (kTileM / kWarpM) * (kTileN / kWarpN);
    static constexpr int kThreads = 32 * kWarps;
    static constexpr int kStages = kStagesArg;
    /// Blocks per SM the registers are budgeted for (stage 7's rule): 2 with an 8 x 8 tile of
    /// 256 threads or fewer (at most 128 registers a thread), 1 with a bigger one.
    static constexpr int kMinBlocks = kThreadM * kThreadN <= 64 && kThreads <= 256 ? 2 : 1;
    // a[k][row] rows kTileM + 4 floats apart: the 4-byte copies of a warp (4 rows x 8 k's, see
    // copy_tile) land in banks 4 k + row, all 32 different, and each k-row stays 16-byte aligned.
    static constexpr int kStrideA = kTileM + 4;
    static constexpr int kFloatsA = kTileK * kStrideA;  // per stage
    static constexpr int kFloatsB = kTileK * kTileN;
    static constexpr std::size_t kSharedBytes =
        sizeof(float) * static_cast<std::size_t>(kStages) * (kFloatsA + kFloatsB);
    static constexpr int kCopiesA = kTileM * kTileK / kThreads;      // 4-byte, per thread
    static constexpr int kCopiesB = kTileK * kTileN / 4 / kThreads;  // 16-byte, per thread
    static_assert(kTileM % kWarpM == 0 && kTileN % kWarpN == 0, "whole warps per tile");
    static_assert(kTileK % 8 == 0, "A is copied in 8-wide k slices");
    static_assert((kTileM * kTileK) % kThreads == 0 && (kTileK * kTileN / 4) % kThreads == 0,
                  "every thread copies the same number of pieces");
    static_assert(kStages >= 2, "a ring of at least two buffers");
};

/// Copies kBytes (4 or 16) from global to shared memory asynchronously (compute capability 8.0
/// and later; before, an ordinary load and store). `inside` false: reads nothing, writes zeros.
template <int kBytes>
__device__ void copy_async(float* shared, const float* global, bool inside) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const auto to = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    const int from_bytes = inside ? kBytes : 0;
    if constexpr (kBytes == 16) {  // .cg: through L2 only, the operand is reused from shared
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(global),
                     "r"(from_bytes)
                     : "memory");
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(to), "l"(global),
                     "r"(from_bytes)
                     : "memory");
    }
#else
    for (int i = 0; i < kBytes / 4; ++i) {
        shared[i] = inside ? global[i] : 0.f;
    }
#endif
}

/// Starts the copies of k-tile `k0` into ring buffer `stage`: A transposed, 4 bytes a copy;
/// B as it is, 16 bytes a copy (kVector) or 4.
template <class Shape, bool kVector>
__device__ void copy_tile(float* ring, const float* a, const float* b, int m, int n, int k,
                          int tile_row, int tile_col, int k0, int stage) {
    float* a_tile = ring + stage * (Shape::kFloatsA + Shape::kFloatsB);
    float* b_tile = a_tile + Shape::kFloatsA;
    const int t = static_cast<int>(threadIdx.x);
    // A in 8-wide k slices: a warp's 32 lanes take 4 rows x 8 consecutive k (four 32-byte
    // pieces of global memory, each a whole sector).
    for (int j = 0; j < Shape::kCopiesA; ++j) {
        const int e = t + j * Shape::kThreads;
        const int slice = e / (Shape::kTileM * 8);
        const int within = e % (Shape::kTileM * 8);
        const int kk = slice * 8 + within % 8;
        const int row = within / 8;
        const bool inside = tile_row + row < m && k0 + kk < k;
        const float* from = inside ? a + static_cast<std::size_t>(tile_row + row) * k + k0 + kk : a;
        copy_async<4>(a_tile + kk * Shape::kStrideA + row, from, inside);
    }
    constexpr int kPerRow = Shape::kTileN / 4;
    for (int j = 0; j < Shape::kCopiesB; ++j) {
        const int e = t + j * Shape::kThreads;
        const int kk = e / kPerRow;
        const int col = (e % kPerRow) * 4;
        float* to = b_tile + kk * Shape::kTileN + col;
        const bool row_inside = k0 + kk < k;
        const float* row_start = b + static_cast<std::size_t>(k0 + kk) * n + tile_col;
        if constexpr (kVector) {  // n % 4 == 0: the four columns are all inside or all outside
            const bool inside = row_inside && tile_col + col < n;
            copy_async<16>(to, inside ? row_start + col : b, inside);
        } else {
            for (int q = 0; q < 4; ++q) {
                const bool inside = row_inside && tile_col + col + q < n;
                copy_async<4>(to + q, inside ? row_start + col + q : b, inside);
            }
        }
    }
}

/// A thread's values of A and B for one k step: kThreadM of A's column, kThreadN of B's row.
template <class Shape>
struct Fragments {
    float a[Shape::kThreadM];
    float b[Shape::kThreadN];
};

template <class Shape>
__device__ void load_fragments(Fragments<Shape>& f, const float* a_tile, const float* b_tile,
                               int kk, int row0, int col0) {
    for (int sub = 0; sub < Shape::kSubM; ++sub) {
        *reinterpret_cast<float4*>(&f.a[4 * sub]) = *reinterpret_cast<const float4*>(
            a_tile + kk * Shape::kStrideA + row0 + sub * 4 * Shape::kLanesM);
    }
    for (int sub = 0; sub < Shape::kSubN; ++sub) {
        *reinterpret_cast<float4*>(&f.b[4 * sub]) = *reinterpret_cast<const float4*>(
            b_tile + kk * Shape::kTileN + col0 + sub * 4 * Shape::kLanesN);
    }
}

/// The k-tile in ring buffer `stage`, step by step; step i + 1's fragments are read while step
/// i's outer product is summed.
template <class Shape>
__device__ void multiply_stage(const float* ring, int stage, int row0, int col0,
                               float (&sum)[Shape::kThreadM][Shape::kThreadN]) {
    const float* a_tile = ring + stage * (Shape::kFloatsA + Shape::kFloatsB);
    const float* b_tile = a_tile + Shape::kFloatsA;
    Fragments<Shape> f[2];
    load_fragments(f[0], a_tile, b_tile, 0, row0, col0);
#pragma unroll
    for (int kk = 0; kk < Shape::kTileK; ++kk) {
        if (kk + 1 < Shape::kTileK) {
            load_fragments(f[(kk + 1) % 2], a_tile, b_tile, kk + 1, row0, col0);
        }
        const Fragments<Shape>& now = f[kk % 2];
#pragma unroll
        for (int r = 0; r < Shape::kThreadM; ++r) {
#pragma unroll
            for (int c = 0; c < Shape::kThreadN; ++c) {
                sum[r][c] += now.a[r] * now.b[c];
            }
        }
    }
}

template <class Shape, bool kVector>
__global__ void __launch_bounds__(Shape::kThreads, Shape::kMinBlocks)
    matmul_async_pipeline(const float* a, const float* b, float* c, int m, int n, int k) {
    extern __shared__ __align__(16) float ring[];
    const ThreadPlace<Shape> place;  // stage 7's layout of warps and lanes
    const int tile_row = place.tile_row;
    const int tile_col = place.tile_col;

    float sum[Shape::kThreadM][Shape::kThreadN] = {};
    const int tiles = ceil_div(k, Shape::kTileK);
    // Fill the ring but one buffer: tiles 0 .. kStages - 2 in flight, one commit group each
    // (an empty group past the last tile keeps the count of groups the wait below relies on).
    for (int s = 0; s < Shape::kStages - 1; ++s) {
        if (s < tiles) {
            copy_tile<Shape, kVector>(ring, a, b, m, n, k, tile_row, tile_col, s * Shape::kTileK,
                                      s);
        }
        __pipeline_commit();
    }
    for (int t = 0; t < tiles; ++t) {
        // Tile t is group t: at most kStages - 2 newer groups may still be in flight.
        __pipeline_wait_prior(Shape::kStages - 2);
        // Every thread's copies of tile t have landed, and every thread is done with tile
        // t - 1, whose buffer the copies below overwrite.
        __syncthreads();
        const int next = t + Shape::kStages - 1;
        if (next < tiles) {
            copy_tile<Shape, kVector>(ring, a, b, m, n, k, tile_row, tile_col, next * Shape::kTileK,
                                      next % Shape::kStages);
        }
        __pipeline_commit();
        multiply_stage<Shape>(ring, t % Shape::kStages, place.row0, place.col0, sum);
    }
    store_result<Shape, kVector>(c, m, n, tile_row + place.row0, tile_col + place.col0, sum);
}

/// Launches `Shape`'s pipelined kernel over the whole of C: B copied 16 bytes at a time where
/// rows_allow_float4(), 4 bytes otherwise.
template <class Shape>
void launch_async_tiled(const LaunchArgs& a) {
    const dim3 grid = tile_grid(a, Shape::kTileM, Shape::kTileN);
    const auto launch = [&](auto kernel) {
        // More than 48 KiB of shared memory per block must be asked for.
        CT_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(Shape::kSharedBytes)));
        kernel<<<grid, Shape::kThreads, Shape::kSharedBytes, a.stream>>>(a.a, a.b, a.c, a.m, a.n,
                                                                         a.k);
        CT_CHECK_LAUNCH();
    };
    if (rows_allow_float4(a)) {
        launch(matmul_async_pipeline<Shape, true>);
    } else {
        launch(matmul_async_pipeline<Shape, false>);
    }
}

}  // namespace matmul::detail
