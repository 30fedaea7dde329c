// Stage 5, long branch bodies: divergence that costs time.
//
// Changed from stages 1 and 2: each path is now a loop of `work` integer steps (the if-path a
// multiply-add chain, the else-path xorshift), too long to predicate, so the compiler emits a
// real branch. Two kernels do exactly the same work and differ only in the branch condition:
//  - long_even_odd_divergent: tid % 2, so every warp runs the if-loop with its 16 even lanes
//    and then the else-loop with its 16 odd lanes: each warp issues both loops;
//  - long_warp_aligned: (tid / warpSize) % 2, so each warp runs one loop with all 32 lanes.
// The work is arithmetic on registers (no sinf: its slow path diverges by itself and would blur
// the comparison), and the kernels are compute-bound, so issue slots are what divergence wastes.
// What to look for: the divergent kernel takes about twice as long; in ncu, threads per executed
// instruction (smsp__thread_inst_executed_per_inst_executed.ratio) near 16 instead of 32.
#include <cuda_runtime.h>

#include <cstdint>

#include "cudatutorial/check.hpp"
#include "divergence.hpp"

namespace divergence {

namespace {

__device__ std::uint32_t input_of(std::uint32_t tid) {
    return tid * 2654435761u + 0x9E3779B9u;
}

__device__ std::uint32_t path_a(std::uint32_t x, int work) {
    for (int step = 0; step < work; ++step) {
        x = x * 1664525u + static_cast<std::uint32_t>(step);
    }
    return x;
}

__device__ std::uint32_t path_b(std::uint32_t x, int work) {
    for (int step = 0; step < work; ++step) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
    }
    return x;
}

__global__ void long_even_odd_divergent_kernel(std::uint32_t* out, int n, int work) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) {
        return;
    }
    std::uint32_t x = input_of(static_cast<std::uint32_t>(tid));
    if (tid % 2 == 0) {
        x = path_a(x, work);
    } else {
        x = path_b(x, work);
    }
    out[tid] = x;
}

__global__ void long_warp_aligned_kernel(std::uint32_t* out, int n, int work) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) {
        return;
    }
    std::uint32_t x = input_of(static_cast<std::uint32_t>(tid));
    if ((tid / warpSize) % 2 == 0) {
        x = path_a(x, work);
    } else {
        x = path_b(x, work);
    }
    out[tid] = x;
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
