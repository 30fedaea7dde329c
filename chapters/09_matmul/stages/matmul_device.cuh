// What the stage files share: the launch checks, ceil_div, and the grid every tiled stage uses.
// Device code: include from .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cudatutorial/check.hpp"
#include "matmul_launchers.hpp"

namespace matmul::detail {

/// ceil(a / b) for positive a and b.
__host__ __device__ constexpr int ceil_div(int a, int b) {
    return (a + b - 1) / b;
}

/// The grid of a stage whose blocks each compute a tile_m x tile_n tile of C: blockIdx.x walks
/// the tile rows (up to 2^31 - 1 of them), blockIdx.y the tile columns (up to 65,535: every
/// tile is at least 32 columns wide, and n is at most 2^20).
inline dim3 tile_grid(const LaunchArgs& a, int tile_m, int tile_n) {
    return dim3(static_cast<unsigned>(ceil_div(a.m, tile_m)),
                static_cast<unsigned>(ceil_div(a.n, tile_n)));
}

/// Four floats of `row` from column `col` on, zero past the matrix's edges. kVector: one 16-byte
/// load (the caller made sure that cols is a multiple of 4 and the row 16-byte aligned).
template <bool kVector>
__device__ float4 load_four(const float* matrix, int rows, int cols, int row, int col) {
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (row >= rows) {
        return v;
    }
    const float* p = matrix + static_cast<std::size_t>(row) * cols + col;
    if constexpr (kVector) {
        return col < cols ? *reinterpret_cast<const float4*>(p) : v;
    } else {
        v.x = col < cols ? p[0] : 0.f;
        v.y = col + 1 < cols ? p[1] : 0.f;
        v.z = col + 2 < cols ? p[2] : 0.f;
        v.w = col + 3 < cols ? p[3] : 0.f;
        return v;
    }
}

/// Whether `p` is on a 16-byte boundary.
inline bool aligned16(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

/// Whether 16-byte loads and stores may be used: every row of A (k floats), of B and of C (n
/// floats) starts on a 16-byte boundary when k and n are multiples of 4 and the matrices are.
inline bool rows_allow_float4(const LaunchArgs& a) {
    return a.k % 4 == 0 && a.n % 4 == 0 && aligned16(a.a) && aligned16(a.b) && aligned16(a.c);
}

/// The same for BF16 operands, 8 to 16 bytes: every row of A (k BF16) and of B (n BF16) starts
/// on a 16-byte boundary when k and n are multiples of 8 and the matrices are.
inline bool rows_allow_16_bytes(const Bf16LaunchArgs& a) {
    return a.k % 8 == 0 && a.n % 8 == 0 && aligned16(a.a) && aligned16(a.b);
}

}  // namespace matmul::detail
