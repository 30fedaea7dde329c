// How an int array is cut for 16-byte (int4) loads: a scalar head up to the first 16-byte
// boundary, whole int4 vectors, a scalar tail. One definition for the host (tests, planning) and
// the device (stages 10-12). Internal to reduction_kernels; reduction.hpp exposes it as
// reduction::config::split_for_vectors.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define REDUCTION_HOST_DEVICE __host__ __device__
#else
#define REDUCTION_HOST_DEVICE
#endif

namespace reduction::detail {

struct VectorSplitParts {
    std::size_t head;
    std::size_t vectors;
    std::size_t tail;
};

/// `address` must be int-aligned (a multiple of 4), as every int* is.
REDUCTION_HOST_DEVICE constexpr VectorSplitParts split_vectors(std::uintptr_t address,
                                                               std::size_t n) {
    const std::size_t to_boundary = ((16 - (address & 15)) & 15) / sizeof(int);  // 0..3
    const std::size_t head = to_boundary < n ? to_boundary : n;
    const std::size_t vectors = (n - head) / 4;
    return {head, vectors, n - head - 4 * vectors};
}

}  // namespace reduction::detail
