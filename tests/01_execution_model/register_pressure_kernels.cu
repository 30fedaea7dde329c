// Kernels that hold more or fewer values in registers, so the occupancy model is checked against
// the runtime at many register counts, not only at the matrix sum's 12.
#include <cuda_runtime.h>

#include "register_pressure_kernels.hpp"

namespace {

// kValues values stay live across the mixing loop, so the register count grows with kValues
// (what ptxas picks exactly does not matter: the test reads it back with cudaFuncGetAttributes).
template <int kValues>
__global__ void register_pressure_kernel(const float* in, float* out, int n) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v[kValues];
#pragma unroll
    for (int i = 0; i < kValues; ++i) {
        v[i] = in[(t + i * 97) % n];
    }
#pragma unroll
    for (int round = 0; round < 3; ++round) {
#pragma unroll
        for (int i = 0; i < kValues; ++i) {
            v[i] = v[i] * v[(i + 1) % kValues] + v[(i + 5) % kValues];
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < kValues; ++i) {
        sum += v[i] * static_cast<float>(i + 1);
    }
    if (t < n) {
        out[t] = sum;
    }
}

}  // namespace

std::vector<const void*> register_pressure_kernels() {
    return {reinterpret_cast<const void*>(register_pressure_kernel<4>),
            reinterpret_cast<const void*>(register_pressure_kernel<12>),
            reinterpret_cast<const void*>(register_pressure_kernel<20>),
            reinterpret_cast<const void*>(register_pressure_kernel<36>),
            reinterpret_cast<const void*>(register_pressure_kernel<52>),
            reinterpret_cast<const void*>(register_pressure_kernel<80>),
            reinterpret_cast<const void*>(register_pressure_kernel<120>),
            reinterpret_cast<const void*>(register_pressure_kernel<180>)};
}
