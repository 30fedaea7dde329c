/// @file programmatic_launch.cuh
/// @brief Programmatic dependent launch (PDL, chapter 6): whether the GPU has it, and one launch
/// with it. A kernel launched this way may be scheduled while the previous kernel of its stream
/// still runs; it must call cudaGridDependencySynchronize() before it touches anything that
/// kernel writes. Chapter 5's stage 8 and chapter 7's stage 9 launch this way.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "cudatutorial/check.hpp"

namespace cudatutorial {

/// Whether the current device runs programmatic dependent launches (compute capability 9.0+).
inline bool current_device_has_programmatic_launch() {
    int device = 0;
    int major = 0;
    CT_CHECK(cudaGetDevice(&device));
    CT_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return major >= 9;
}

/// Launches kernel<<<grid, block, 0, stream>>>(args...) with
/// cudaLaunchAttributeProgrammaticStreamSerialization (see the file comment); throws CudaError
/// if the launch fails. Call it only where current_device_has_programmatic_launch().
template <typename... Params, typename... Args>
void launch_programmatic(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                         Args&&... args) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    CT_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace cudatutorial
