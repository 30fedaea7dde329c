// Internal to nested_reduction_kernels: what every kernel file of this chapter shares on the
// device side. Compiled with relocatable device code (-rdc=true): a kernel that launches kernels
// needs the device runtime (cudadevrt) linked in a separate device-link step.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "nested_reduction.hpp"

namespace nested_reduction::detail {

// Sums wrap modulo 2^32 like the CPU reference (reduction::reference_sum): the addition is done
// on unsigned ints, where wrapping is defined, instead of relying on signed overflow.
__device__ __forceinline__ int wrap_add(int a, int b) {
    return static_cast<int>(static_cast<unsigned int>(a) + static_cast<unsigned int>(b));
}

// The first level reads the caller's input, which is never written (the textbook reduced in
// place and destroyed its input). Elements past the end count as 0, so any N works.
__device__ __forceinline__ int load_or_zero(const int* in, std::size_t n, std::size_t i) {
    return i < n ? in[i] : 0;
}

// Records the outcome of the device-side launch just made by this thread. A device launch
// reports failure only through the launching thread's last-error state (exactly as on the host),
// so it must be read right after the launch, by the same thread. A launch that fails simply does
// not happen: without this record, the only trace would be a partial sum never written.
__device__ __forceinline__ void record_launch(LaunchCounters* counters) {
    const cudaError_t status = cudaGetLastError();
    if (status == cudaSuccess) {
        atomicAdd(&counters->launched, 1ull);
    } else {
        atomicAdd(&counters->failed, 1ull);
        atomicCAS(&counters->first_error, 0, static_cast<int>(status));
    }
}

}  // namespace nested_reduction::detail
