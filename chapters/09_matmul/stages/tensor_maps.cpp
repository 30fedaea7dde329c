// The TMA tensor maps of the Hopper stages (tensor_maps.hpp).
//
// cuTensorMapEncodeTiled is a driver function with no runtime equivalent. It is taken from the
// driver the runtime already uses (cudaGetDriverEntryPointByVersion), as chapter 1's green
// contexts are, rather than by linking libcuda: a driver without it then fails this stage only.
// It runs on the host alone (no GPU work), so encoding at every launch costs about a microsecond.
#include "tensor_maps.hpp"

#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <string>

#include "cudatutorial/check.hpp"

namespace matmul::detail {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_function() {
    static const PFN_cuTensorMapEncodeTiled_v12000 function = [] {
        void* pointer = nullptr;
        cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
        const cudaError_t error = cudaGetDriverEntryPointByVersion(
            "cuTensorMapEncodeTiled", &pointer, 12000, cudaEnableDefault, &status);
        if (error != cudaSuccess || status != cudaDriverEntryPointSuccess) {
            cudaGetLastError();  // not sticky; keep it out of the next check
            pointer = nullptr;
        }
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(pointer);
    }();
    if (function == nullptr) {
        throw cudatutorial::CudaError(cudaErrorNotSupported,
                                      "cuTensorMapEncodeTiled is not available from this driver");
    }
    return function;
}

}  // namespace

CUtensorMap bf16_tensor_map(const __nv_bfloat16* matrix, std::uint64_t rows, std::uint64_t cols,
                            std::uint32_t box_rows, std::uint32_t box_cols) {
    CUtensorMap map{};
    // Dimension 0 is the contiguous one (a row's columns), dimension 1 the rows.
    const cuuint64_t size[2] = {cols, rows};
    const cuuint64_t row_bytes[1] = {cols * sizeof(__nv_bfloat16)};
    const cuuint32_t box[2] = {box_cols, box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult result = encode_function()(
        &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
        const_cast<void*>(static_cast<const void*>(matrix)), size, row_bytes, box, element_strides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS) {
        throw cudatutorial::CudaError(cudaErrorInvalidValue,
                                      "cuTensorMapEncodeTiled refused a " + std::to_string(rows) +
                                          " x " + std::to_string(cols) + " BF16 matrix (error " +
                                          std::to_string(static_cast<int>(result)) + ")");
    }
    return map;
}

}  // namespace matmul::detail
