// What the BF16 stage files share: the 16-byte copy of 8 BF16 into shared memory (asynchronous
// where rows allow it, element by element otherwise). Device code: include from .cu files only.
#pragma once

#include <cuda_bf16.h>

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

}  // namespace matmul::detail
