// Internal to matmul_kernels: the TMA tensor maps of the Hopper stages (tensor_maps.cpp). Host
// code only.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>

#include <cstdint>

namespace matmul::detail {

/// A tensor map for the copy engine (TMA) over a row-major BF16 matrix of `rows` x `cols`: each
/// copy moves a box of `box_rows` x `box_cols` (box_cols x 2 bytes at most 128), stored in shared
/// memory with the 128-byte swizzle, elements past the matrix read as zeros. The rows must be
/// multiples of 16 bytes (cols % 8 == 0) and `matrix` 16-byte aligned: the caller checks.
/// Throws cudatutorial::CudaError when the driver has no cuTensorMapEncodeTiled or refuses.
CUtensorMap bf16_tensor_map(const __nv_bfloat16* matrix, std::uint64_t rows, std::uint64_t cols,
                            std::uint32_t box_rows, std::uint32_t box_cols);

}  // namespace matmul::detail
