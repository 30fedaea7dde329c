// The 2D matrix sum C = A + B (the textbook's sumMatrixOnGPU2D), its launch, and its occupancy.
//
// One thread per element on a 2D grid of 2D blocks. The kernel does almost nothing (two loads,
// one add, one store), so its speed is the speed of memory: what changes between block shapes is
// how each warp's 32 threads map onto the matrix rows (blockDim.x decides how many consecutive
// floats one warp touches in a row) and how many blocks there are to keep the SMs busy.
//
// Changed from the textbook: the element index is computed in 64 bits (iy * nx overflows 32-bit
// arithmetic from 2^32 elements on), and the bounds check compares unsigned with unsigned.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "execution_model.hpp"

namespace execution_model {

namespace ct = cudatutorial;

namespace {

__global__ void sum_matrix_2d_kernel(const float* a, const float* b, float* c, int nx, int ny) {
    const unsigned int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix < static_cast<unsigned int>(nx) && iy < static_cast<unsigned int>(ny)) {
        const size_t idx = static_cast<size_t>(iy) * static_cast<size_t>(nx) + ix;
        c[idx] = a[idx] + b[idx];
    }
}

}  // namespace

BlockShape grid_for(int nx, int ny, const BlockShape& block) {
    const auto blocks = [](long long n, long long per_block) {
        return static_cast<int>((n + per_block - 1) / per_block);
    };
    return BlockShape{blocks(nx, block.x), blocks(ny, block.y), 1};
}

void sum_matrix_2d(const float* a, const float* b, float* c, int nx, int ny,
                   const BlockShape& block, cudaStream_t stream) {
    const BlockShape grid = grid_for(nx, ny, block);
    sum_matrix_2d_kernel<<<dim3(grid.x, grid.y), dim3(block.x, block.y, block.z), 0, stream>>>(
        a, b, c, nx, ny);
    CT_CHECK_LAUNCH();
}

KernelResources kernel_resources(const void* kernel) {
    cudaFuncAttributes attributes{};
    CT_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    int device = 0;
    CT_CHECK(cudaGetDevice(&device));
    int reserved = 0;
    // Compute capability 8.0 and later reserve 1 KiB of shared memory per block for the system.
    if (cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device) !=
        cudaSuccess) {
        cudaGetLastError();
        reserved = 0;
    }
    KernelResources resources;
    resources.registers_per_thread = attributes.numRegs;
    resources.static_shared_bytes = attributes.sharedSizeBytes;
    resources.reserved_shared_bytes = static_cast<std::size_t>(reserved);
    resources.max_threads_per_block = attributes.maxThreadsPerBlock;
    return resources;
}

Occupancy kernel_occupancy(const void* kernel, const BlockShape& block,
                           const ct::DeviceInfo& device) {
    Occupancy occupancy;
    occupancy.block = block;
    occupancy.resources = kernel_resources(kernel);
    occupancy.max_warps_per_sm = device.max_warps_per_sm;
    occupancy.why_not =
        block_shape_problem(block, device, occupancy.resources.max_threads_per_block);
    occupancy.limits = occupancy_limits(block, occupancy.resources, device);
    if (!occupancy.why_not.empty()) {
        return occupancy;  // not launchable: no occupancy to speak of
    }
    occupancy.launchable = true;
    occupancy.modeled_blocks_per_sm = occupancy.limits.modeled_blocks();
    // The runtime's answer, computed independently of our model: the two must agree (the GPU
    // test checks every shape), or the model is missing a rule of the hardware.
    CT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy.active_blocks_per_sm, kernel,
                                                           static_cast<int>(block.threads()), 0));
    occupancy.active_warps_per_sm = static_cast<int>(
        occupancy.active_blocks_per_sm * warps_per_block(block, device.warp_size).warps);
    occupancy.percent = device.max_warps_per_sm > 0
                            ? 100.0 * occupancy.active_warps_per_sm / device.max_warps_per_sm
                            : 0.0;
    occupancy.limited_by = limiting_resource(occupancy.limits, occupancy.active_blocks_per_sm);
    return occupancy;
}

KernelResources matrix_sum_resources() {
    return kernel_resources(reinterpret_cast<const void*>(sum_matrix_2d_kernel));
}

Occupancy matrix_sum_occupancy(const BlockShape& block, const ct::DeviceInfo& device) {
    return kernel_occupancy(reinterpret_cast<const void*>(sum_matrix_2d_kernel), block, device);
}

}  // namespace execution_model
