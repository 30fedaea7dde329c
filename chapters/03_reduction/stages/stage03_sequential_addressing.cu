// Stage 3 - sequential addressing (no bank conflicts).
//
// What changed from stage 2: the tree is folded the other way. In step s (blockDim/2, /4, ...)
// thread tid < s adds sdata[tid + s] into sdata[tid]: the upper half onto the lower half.
//
//   block of 8, step s=4:  t0: [0]+=[4]   t1: [1]+=[5]   t2: [2]+=[6]   t3: [3]+=[7]
//               step s=2:  t0: [0]+=[2]   t1: [1]+=[3]
//               step s=1:  t0: [0]+=[1]
//
// Why it should be faster: the 32 threads of a warp read 32 consecutive words - one per bank -
// and write 32 consecutive words, so every shared-memory access is conflict-free; the active
// threads are still the first s, so no divergence either until s < 32.
// What to look for: a smaller gain than the textbook's 2x (the seed saw 1.25x on V100): bank
// conflicts were never the main cost once divergence was gone - half the threads doing nothing
// after the load is (stage 4).
#include "device_helpers.cuh"

namespace reduction::detail {
namespace {

__global__ void reduce_sequential_addressing(const int* __restrict__ in, int* __restrict__ out,
                                             std::size_t n) {
    extern __shared__ Sum sdata[];
    const unsigned int tid = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? as_sum(in[i]) : 0;
    __syncthreads();

    // EXERCISE BEGIN: the tree, upper half onto lower half: s = blockDim.x / 2, ..., 1;
    // EXERCISE HINT: thread tid < s adds sdata[tid + s] into sdata[tid]; a barrier after each step
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];  // consecutive threads, consecutive words
        }
        __syncthreads();
    }
    // EXERCISE END
    if (tid == 0) {
        out[blockIdx.x] = as_int(sdata[0]);
    }
}

void launch_sequential_addressing(const KernelArgs& a) {
    reduce_sequential_addressing<<<a.grid, a.block, tree_shared_bytes_for(a.block), a.stream>>>(
        a.in, a.out, a.n);
    CT_CHECK_LAUNCH();
}

}  // namespace

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage03_sequential_addressing_row() {
    StageInfo row("3", "sequential_addressing",
                  "tid < s adds tid + s: conflict-free shared memory");
    row.launch = detail::launch_sequential_addressing;
    return row;
}

}  // namespace reduction::rows
