// Test kernels with a range of register counts (register_pressure_kernels.cu).
#pragma once

#include <vector>

/// Kernels of increasing register use, as pointers for cudaFuncGetAttributes and the occupancy API.
std::vector<const void*> register_pressure_kernels();
