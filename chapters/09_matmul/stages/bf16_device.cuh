// What the BF16 stage files share: the 16-byte copy of 8 BF16 into shared memory (asynchronous
// where rows allow it, element by element otherwise), and the store of a 16 x 8 tile of sums
// from the registers the tensor cores leave them in. Device code: include from .cu files only.
#pragma once

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

// Whether this compilation pass can use the BF16 tensor cores (compute capability 8.0): always on
// the host's pass; in device passes for older architectures (the no-GPU build's list starts at
// 7.5) the BF16 kernels compile to empty bodies, and the stage list keeps them from running there.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define MATMUL_BF16_TENSOR_CORES 1
#else
#define MATMUL_BF16_TENSOR_CORES 0
#endif

namespace matmul::detail {

/// BF16 per 16-byte copy.
constexpr int kBf16PerChunk = 8;

/// Copies the 8 BF16 at `global` to `shared` (16 bytes, 16-byte aligned there). kVector: one
/// asynchronous cp.async (compute capability 8.0), reading nothing and writing zeros when
/// !inside; the caller waits for it with the pipeline primitives. Otherwise element by element
/// through registers, the first `valid` of them read when inside, zeros for the rest.
template <bool kVector>
__device__ void copy_bf16_chunk(__nv_bfloat16* shared, const __nv_bfloat16* global, bool inside,
                                int valid) {
    if constexpr (kVector) {
        const auto to = static_cast<unsigned>(__cvta_generic_to_shared(shared));
        // .cg: through L2 only; the tile is reused from shared memory, not from L1.
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(global),
                     "r"(inside ? 16 : 0)
                     : "memory");
    } else {
        for (int i = 0; i < kBf16PerChunk; ++i) {
            shared[i] = inside && i < valid ? global[i] : __float2bfloat16(0.0f);
        }
    }
}

/// Lane l's sums of one 16 x 8 tile, as mma.sync and wgmma both leave them: (row l / 4, columns 2
/// (l % 4) + 0, 1) in d[0], d[1] and the same columns 8 rows down in d[2], d[3]; rounded to BF16,
/// written where inside C.
__device__ inline void store_accumulator_16x8(__nv_bfloat16* c, int m, int n, int row0, int col0,
                                              const float* d) {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int col = col0 + (lane % 4) * 2;
    for (int half = 0; half < 2; ++half) {
        const int row = row0 + lane / 4 + half * 8;
        if (row >= m || col >= n) {
            continue;
        }
        __nv_bfloat16* to = c + static_cast<std::size_t>(row) * n + col;
        const bool aligned_pairs = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % 4 == 0;
        if (col + 1 < n && aligned_pairs) {  // the pair is inside C and 4-byte aligned
            *reinterpret_cast<__nv_bfloat162*>(to) =
                __floats2bfloat162_rn(d[half * 2], d[half * 2 + 1]);
        } else {
            to[0] = __float2bfloat16_rn(d[half * 2]);
            if (col + 1 < n) {
                to[1] = __float2bfloat16_rn(d[half * 2 + 1]);
            }
        }
    }
}

}  // namespace matmul::detail
