// Stage 6 - complete unroll with a compile-time block size (templates).
//
// What changed from stage 5: the kernel is a template on its block size, kBlock. The tree loop
// reads exactly like stage 5's, but its bounds are now compile-time constants, so the compiler
// unrolls it completely: no loop counter, no compare-and-branch per step, the steps that cannot
// exist for this kBlock vanish, and `tid < s` compares against an immediate. Shared memory is a
// static array of kBlock words.
//
//   kBlock = 256:  if (tid < 128) ...; __syncthreads();  if (tid < 64) ...; __syncthreads();
//                  then the __syncwarp() last warp of stage 5, also unrolled.
//
// The host picks the instantiation with ONE call, launch_for_block_size(CompleteUnrollBlocks{},
// ...) (device_helpers.cuh, which folds dispatch_block_size() over the list): adding a block
// size is one number in CompleteUnrollBlocks, and no hand-copied
// `switch (block) { case 512: kernel<512><<<...>>>; ... }` can drift out of step with it.
// Why it should be faster: fewer instructions per step. Stages 4-6 are limited by instructions,
// barriers and the few bytes each thread has in flight, not by DRAM (48-68% of peak in ncu):
// stage 5 gained 1.31x by halving the instructions, and this stage removes another 28% of them
// (32.4 M -> 23.3 M warp instructions at 2^25), so a small gain is expected.
// What to look for: the seed measured only 1.04x on V100.
#include "device_helpers.cuh"

namespace reduction::detail {
namespace {

using CompleteUnrollBlocks = BlockSizes<64, 128, 256, 512, 1024>;
static_assert(CompleteUnrollBlocks::kMin == kCompleteUnrollMinBlock &&
              CompleteUnrollBlocks::kMax == kMaxBlock);

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_complete_unroll(const int* __restrict__ in, int* __restrict__ out, std::size_t n) {
    static_assert(kBlock >= 64 && (kBlock & (kBlock - 1)) == 0, "the last warp reads tid + 32");
    __shared__ Sum sdata[kBlock];
    const unsigned int tid = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * kBlock) + tid;
    Sum sum = i < n ? as_sum(in[i]) : 0;
    if (i + kBlock < n) {
        sum += as_sum(in[i + kBlock]);
    }
    sdata[tid] = sum;
    __syncthreads();

#pragma unroll
    for (unsigned int s = kBlock / 2; s > 32; s >>= 1) {  // constant trip count: fully unrolled
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid < 32) {
        Sum v = sdata[tid] + sdata[tid + 32];
        sdata[tid] = v;
#pragma unroll
        for (unsigned int offset = 16; offset > 0; offset /= 2) {
            __syncwarp();
            v += sdata[tid + offset];
            __syncwarp();
            sdata[tid] = v;
        }
        if (tid == 0) {
            out[blockIdx.x] = as_int(v);
        }
    }
}

void launch_complete_unroll(const KernelArgs& a) {
    launch_for_block_size(CompleteUnrollBlocks{}, "complete_unroll", a,
                          [](auto block) { return reduce_complete_unroll<block()>; });
}

}  // namespace

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage06_complete_unroll_row() {
    StageInfo row("6", "complete_unroll",
                  "block size as a template parameter: the tree fully unrolled");
    row.launch = detail::launch_complete_unroll;
    row.min_block = detail::kCompleteUnrollMinBlock;
    row.elements_per_thread = 2;
    return row;
}

}  // namespace reduction::rows
