// Stage 5, long branch bodies: divergence that costs time.
//
// Changed from stages 1 and 2: each path is now a loop of `work` integer steps (xorshift on four
// independent states; the two paths use different shift triples, so they cost the same), too long
// to predicate, so the compiler emits a real branch. Two kernels do exactly the same work and
// differ only in the branch condition:
//  - long_even_odd_divergent: tid % 2, so every warp issues the if-loop for its 16 even lanes
//    and the else-loop for its 16 odd lanes: both loops, each at half width. The two groups are
//    scheduled independently (Volta and later) and, in the sm_90 code, never reconverge: the
//    compiler copies the store and the exit into both paths, so there is no BSSY/BSYNC;
//  - long_warp_aligned: (tid / warpSize) % 2, so each warp runs one loop with all 32 lanes.
// The work is integer arithmetic on registers (no sinf: its slow path diverges by itself and
// would blur the comparison). Four independent chains per thread make the kernels limited by
// instruction issue, not by the latency of one chain, so the issue slots are what divergence
// wastes. (A first version had a multiply-add chain on one path, which the compiler folded four
// steps at a time: with unbalanced paths both kernels took the same time. The deep dive tells
// why.)
// What to look for: the divergent kernel takes about twice as long; in ncu, threads per executed
// instruction (smsp__thread_inst_executed_per_inst_executed.ratio) near 16 instead of 32.
#include <cuda_runtime.h>

#include <cstdint>

#include "cudatutorial/check.hpp"
#include "divergence.hpp"

namespace divergence {

namespace {

// kLongStates (4) independent chains per thread: enough ILP to keep the SM's issue slots full,
// so that the time measures instructions issued.
constexpr int kStates = kLongStates;

__device__ std::uint32_t input_of(std::uint32_t i) {
    return i * 2654435761u + 0x9E3779B9u;
}

// xorshift32 steps on 4 independent states; the two paths differ only in the shift triple, so
// they cost the same (balanced paths: a warp that finished its path early would otherwise idle).
template <int kA, int kB, int kC>
__device__ std::uint32_t xorshift_states(std::uint32_t tid, int work) {
    std::uint32_t s[kStates];
#pragma unroll
    for (int k = 0; k < kStates; ++k) {
        s[k] = input_of(tid * kStates + k);
    }
    for (int step = 0; step < work; ++step) {
#pragma unroll
        for (int k = 0; k < kStates; ++k) {
            s[k] ^= s[k] << kA;
            s[k] ^= s[k] >> kB;
            s[k] ^= s[k] << kC;
        }
    }
    return s[0] + s[1] + s[2] + s[3];  // + rather than ^: xorshift is linear in ^
}

__device__ std::uint32_t path_a(std::uint32_t tid, int work) {
    return xorshift_states<13, 17, 5>(tid, work);
}

__device__ std::uint32_t path_b(std::uint32_t tid, int work) {
    return xorshift_states<5, 17, 13>(tid, work);
}

__global__ void long_even_odd_divergent_kernel(std::uint32_t* out, int n, int work) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) {
        return;
    }
    const auto id = static_cast<std::uint32_t>(tid);
    if (tid % 2 == 0) {
        out[tid] = path_a(id, work);
    } else {
        out[tid] = path_b(id, work);
    }
}

__global__ void long_warp_aligned_kernel(std::uint32_t* out, int n, int work) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) {
        return;
    }
    const auto id = static_cast<std::uint32_t>(tid);
    if ((tid / warpSize) % 2 == 0) {
        out[tid] = path_a(id, work);
    } else {
        out[tid] = path_b(id, work);
    }
}

}  // namespace

void launch_long_even_odd_divergent(std::uint32_t* out, int n, int work, int block,
                                    cudaStream_t stream) {
    long_even_odd_divergent_kernel<<<(n + block - 1) / block, block, 0, stream>>>(out, n, work);
    CT_CHECK_LAUNCH();
}

void launch_long_warp_aligned(std::uint32_t* out, int n, int work, int block, cudaStream_t stream) {
    long_warp_aligned_kernel<<<(n + block - 1) / block, block, 0, stream>>>(out, n, work);
    CT_CHECK_LAUNCH();
}

}  // namespace divergence
