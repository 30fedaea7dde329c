// Stage 5 - unrolled last warp, synchronized with __syncwarp() (the correct form).
//
// What changed from stage 4: the shared-memory tree stops at 64 partial sums; the last six
// steps (64 -> 32 -> ... -> 1) are done by the first warp alone, without __syncthreads() (a
// barrier for the whole block that the other warps, already idle, would also have to reach).
//
//   lane t (all 32 lanes, no `if (t < s)`):  v = sdata[t] + sdata[t+32]; sdata[t] = v
//   then for offset 16, 8, 4, 2, 1:          sync; v += sdata[t+offset]; sync; sdata[t] = v
//
// The two __syncwarp() per step are what the historical version (stage05_historical_volatile_
// last_warp.cu) left out: the first (before the read) makes every lane's WRITE of the previous
// step visible before anyone reads sdata[t+offset]; the second (between the read and the write)
// orders every lane's READ of sdata[t+offset] before lane t+offset overwrites that word.
// __syncwarp() is a barrier among the lanes of one warp only - cheap.
// Why it should be faster: fewer block-wide barriers, no `tid < s` tests in the last steps.
// What to look for: the prediction was a small gain at most (the seed did not even time this
// form on the V100). Measured on the H100: 1.31x over stage 4, because stage 4 was limited by
// instructions and barriers, not by memory: warp instructions 61.5 M -> 32.4 M at 2^25, block-wide
// barriers per block 9 -> 3.
#include "device_helpers.cuh"

namespace reduction::detail {
namespace {

__global__ void reduce_unrolled_last_warp(const int* __restrict__ in, int* __restrict__ out,
                                          std::size_t n) {
    extern __shared__ Sum sdata[];
    const unsigned int tid = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * blockDim.x) + tid;
    Sum sum = i < n ? as_sum(in[i]) : 0;
    if (i + blockDim.x < n) {
        sum += as_sum(in[i + blockDim.x]);
    }
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid < 32) {  // the whole first warp (blockDim.x >= 64), so the full mask is right
        Sum v = sdata[tid] + sdata[tid + 32];
        sdata[tid] = v;  // word t is read by lane t only in the line above: no hazard yet
#pragma unroll
        for (unsigned int offset = 16; offset > 0; offset /= 2) {
            __syncwarp();  // every lane has stored its v (previous step) ...
            v += sdata[tid + offset];
            __syncwarp();  // ... and read its neighbour before anyone overwrites it
            sdata[tid] = v;
        }
        if (tid == 0) {
            out[blockIdx.x] = as_int(v);
        }
    }
}

void launch_unrolled_last_warp(const KernelArgs& a) {
    reduce_unrolled_last_warp<<<a.grid, a.block, tree_shared_bytes_for(a.block), a.stream>>>(
        a.in, a.out, a.n);
    CT_CHECK_LAUNCH();
}

}  // namespace

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage05_unrolled_last_warp_row() {
    StageInfo row("5", "unrolled_last_warp",
                  "last warp without __syncthreads, ordered by __syncwarp()");
    row.launch = detail::launch_unrolled_last_warp;
    row.min_block = detail::kCompleteUnrollMinBlock;
    row.elements_per_thread = 2;
    return row;
}

}  // namespace reduction::rows
