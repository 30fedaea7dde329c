// Stage 1 - interleaved addressing with a divergent branch (the starting point).
//
// What it does: each block copies blockDim.x elements into shared memory, then halves the
// number of partial sums log2(blockDim.x) times. In step s (1, 2, 4, ...) thread `tid` adds
// sdata[tid + s] into sdata[tid] when tid is a multiple of 2s, so the survivors are the
// threads 0, 2s, 4s, ... - spread over every warp.
//
//   step s=1:  t0 += t1   t2 += t3   t4 += t5   t6 += t7   ...  (every 2nd thread works)
//   step s=2:  t0 += t2              t4 += t6              ...  (every 4th)
//   step s=4:  t0 += t4                                    ...  (every 8th)
//
// Why it is slow: divergence - in step s only 1 thread in 2s of a warp has work, yet every warp
// runs every step until the last. On sm_90 the compiler turns this short `if` into predicated
// instructions rather than a branch, so the idle lanes do not take another path: they are
// predicated off, which wastes them just the same. (Nsight Compute's
// smsp__thread_inst_executed_per_inst_executed counts predicated-off lanes as active and reads
// about 31.8 of 32 here; smsp__thread_inst_executed_pred_on_per_inst_executed counts only the
// lanes that do work.) Every step also evaluates `tid % (2*s)`, an integer modulo by a variable
// (a long sequence). Stage 2 is the textbook's fix: pack the working threads into whole warps.
// What to look for: the slowest row; compare its "first pass ms" with the seed's V100 figure.
#include "device_helpers.cuh"

namespace reduction::detail {
namespace {

__global__ void reduce_interleaved_divergent(const int* __restrict__ in, int* __restrict__ out,
                                             std::size_t n) {
    extern __shared__ Sum sdata[];
    const unsigned int tid = threadIdx.x;
    // 64-bit index: n may exceed 2^31 elements (up to what device memory holds).
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? as_sum(in[i]) : 0;  // the tail block pads with the neutral element 0
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {  // divergent: active threads are 2s apart
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = as_int(sdata[0]);
    }
}

void launch_interleaved_divergent(const KernelArgs& a) {
    reduce_interleaved_divergent<<<a.grid, a.block, tree_shared_bytes_for(a.block), a.stream>>>(
        a.in, a.out, a.n);
    CT_CHECK_LAUNCH();
}

}  // namespace

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage01_interleaved_divergent_row() {
    StageInfo row("1", "interleaved_divergent", "tid % (2s) == 0 adds: divergent warps, modulo");
    row.launch = detail::launch_interleaved_divergent;
    return row;
}

}  // namespace reduction::rows
