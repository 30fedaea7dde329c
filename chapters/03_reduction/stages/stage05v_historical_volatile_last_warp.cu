// Stage 5, historical form - unrolled last warp with `volatile` and no synchronization.
// *** WRONG SINCE VOLTA. Kept only as a lesson; not part of the table's progression. ***
//
// What changed from stage 4: once 32 or fewer threads are active, the 2005-2016 textbooks drop
// __syncthreads() and let the first warp finish alone, relying on two assumptions:
//   1. the 32 threads of a warp execute each instruction together ("warp-synchronous"), so a
//      value written by lane t+16 in one line is there when lane t reads it in the next;
//   2. `volatile` stops the compiler from keeping sdata[] in registers between the lines.
//
//   lane t:  sdata[t] += sdata[t+32];  sdata[t] += sdata[t+16];  ...  sdata[t] += sdata[t+1];
//
// Why it is wrong today: since Volta (sm_70), independent thread scheduling gives every thread
// its own program counter; the lanes of a warp are no longer guaranteed to run in lockstep, and
// the CUDA programming guide says warp-synchronous code must synchronize with __syncwarp().
// In line `sdata[t] += sdata[t+16]`, lane t reads word t+16 while lane t+16 writes it: without
// a barrier that is a data race (undefined behaviour), whatever the hardware happens to do.
// It usually still gives the right sum on today's GPUs - which is exactly why it survived so
// long - and compute-sanitizer's racecheck tool reports the hazard (see the chapter README).
// The correct version is stage05_unrolled_last_warp.cu.
#include "device_helpers.cuh"

namespace reduction::detail {
namespace {

// Historical code, reproduced on purpose: a race between lanes of one warp.
__device__ void warp_reduce_volatile(volatile Sum* sdata, unsigned int tid) {
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

__global__ void reduce_volatile_last_warp(const int* __restrict__ in, int* __restrict__ out,
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
    if (tid < 32) {
        warp_reduce_volatile(sdata, tid);  // no barrier: relies on lockstep (wrong since Volta)
    }
    if (tid == 0) {
        out[blockIdx.x] = as_int(sdata[0]);
    }
}

void launch_volatile_last_warp(const KernelArgs& a) {
    reduce_volatile_last_warp<<<a.grid, a.block, tree_shared_bytes_for(a.block), a.stream>>>(
        a.in, a.out, a.n);
    CT_CHECK_LAUNCH();
}

}  // namespace

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage05v_historical_volatile_last_warp_row() {
    StageInfo row("5v", "volatile_last_warp_HISTORICAL",
                  "the textbook's volatile warp-synchronous last warp: a data race since Volta");
    row.launch = detail::launch_volatile_last_warp;
    row.min_block = detail::kCompleteUnrollMinBlock;
    row.elements_per_thread = 2;
    row.role = cudatutorial::StageRole::kExpectedFailure;
    row.by_default = false;  // run only when named
    return row;
}

}  // namespace reduction::rows
