// Stage 2 - interleaved addressing with a strided index (no divergent branch).
//
// What changed from stage 1: the same pairs are added, but by different threads. Instead of
// "thread tid works if tid is a multiple of 2s", thread tid works on index = 2*s*tid, so the
// active threads are always the first blockDim/(2s) threads of the block - whole warps stay
// busy and whole warps go idle together.
//
//   step s=1:  t0: [0]+=[1]   t1: [2]+=[3]   t2: [4]+=[5]   t3: [6]+=[7]   ...
//   step s=2:  t0: [0]+=[2]   t1: [4]+=[6]   t2: [8]+=[10]  ...
//   step s=4:  t0: [0]+=[4]   t1: [8]+=[12]  ...
//
// Why it should be faster: no divergence inside a warp until fewer than 32 threads work, and no
// modulo. The new problem: in step s, thread t touches sdata[2*s*t] and sdata[2*s*t + s]:
// neighbouring threads are 2s words apart, so the lanes of a warp fall on only 16/s of the 32
// shared-memory banks (one bank from s = 16 on). Bank conflicts start at the FIRST step: at
// s = 1, lanes t and t+16 read words 32 apart, the same bank (2-way). A full warp is 2s-way
// (2, 4, 8, 16, 32-way for s = 1 ... 16); a warp with only `a` lanes left puts them on
// min(a, 16/s) banks. The old text here (and the seed article) said "from s = 16 on". The
// README draws the bank map and checks the count against ncu (measuring/bank_conflicts.py: 70
// extra passes per block of 256, 9.2 M for 2^25 ints; ncu counts 9.46 M).
// What to look for: a clear gain over stage 1 (the seed saw 1.7x on V100) despite the conflicts.
#include "device_helpers.cuh"

namespace reduction::detail {
namespace {

__global__ void reduce_interleaved_strided_index(const int* __restrict__ in, int* __restrict__ out,
                                                 std::size_t n) {
    extern __shared__ Sum sdata[];
    const unsigned int tid = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? as_sum(in[i]) : 0;
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        const unsigned int index = 2 * s * tid;  // contiguous threads, strided addresses
        if (index < blockDim.x) {
            sdata[index] += sdata[index + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = as_int(sdata[0]);
    }
}

void launch_interleaved_strided_index(const KernelArgs& a) {
    reduce_interleaved_strided_index<<<a.grid, a.block, tree_shared_bytes_for(a.block), a.stream>>>(
        a.in, a.out, a.n);
    CT_CHECK_LAUNCH();
}

}  // namespace

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage02_interleaved_strided_index_row() {
    StageInfo row("2", "interleaved_strided_index",
                  "index = 2*s*tid: no divergence, bank conflicts");
    row.launch = detail::launch_interleaved_strided_index;
    return row;
}

}  // namespace reduction::rows
