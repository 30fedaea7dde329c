// Stage 4 - first add during the global load (half as many blocks).
//
// What changed from stage 3: in stage 3, half of the threads quit after loading one element (the
// first step already has only blockDim/2 workers). Now each thread loads TWO elements, one
// blockDim apart, and adds them before writing shared memory; a block covers 2*blockDim
// elements, so the grid has half as many blocks.
//
//   block b, thread t:  sdata[t] = in[2*b*blockDim + t] + in[2*b*blockDim + blockDim + t]
//   then the same sequential-addressing tree as stage 3.
//
// Why it should be faster: the same bytes are read with half the blocks, half the shared-memory
// traffic and half the tree steps per element; each thread has two independent loads in flight.
// What to look for: a large step (the seed saw 1.8x on V100). It is still NOT limited by memory
// (48% of DRAM peak in ncu): each thread has only two 4-byte loads in flight, once, and then
// the block spends its life in the tree - 8 steps, each behind a __syncthreads(), with nothing
// in flight. Instructions (61.5 M warp instructions at 2^25), barriers and too few bytes in
// flight set the pace; stage 5 halves the instructions and is 1.31x faster.
#include "device_helpers.cuh"

namespace reduction::detail {
namespace {

__global__ void reduce_first_add_during_load(const int* __restrict__ in, int* __restrict__ out,
                                             std::size_t n) {
    extern __shared__ Sum sdata[];
    const unsigned int tid = threadIdx.x;
    // EXERCISE BEGIN: block b covers 2 * blockDim.x elements from 2 * b * blockDim.x: each thread
    // EXERCISE HINT: adds two of them, blockDim.x apart, into sum (an element past n counts 0)
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * blockDim.x) + tid;
    Sum sum = i < n ? as_sum(in[i]) : 0;
    if (i + blockDim.x < n) {
        sum += as_sum(in[i + blockDim.x]);
    }
    // EXERCISE STUB: Sum sum = 0;
    // EXERCISE END
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = as_int(sdata[0]);
    }
}

void launch_first_add_during_load(const KernelArgs& a) {
    reduce_first_add_during_load<<<a.grid, a.block, tree_shared_bytes_for(a.block), a.stream>>>(
        a.in, a.out, a.n);
    CT_CHECK_LAUNCH();
}

}  // namespace

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage04_first_add_during_load_row() {
    StageInfo row("4", "first_add_during_load", "two loads added per thread: half the blocks");
    row.launch = detail::launch_first_add_during_load;
    row.elements_per_thread = 2;
    return row;
}

}  // namespace reduction::rows
