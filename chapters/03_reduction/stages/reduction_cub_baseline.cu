// The baseline: CUB's cub::DeviceReduce::Sum, the library call a CUDA programmer would use.
// The input is passed as `unsigned int`: the same bits, the same speed, and addition modulo
// 2^32 without signed overflow - exactly the semantics of every stage (see reduction.hpp).
// The item count is passed as int when it fits (CUB's usual 32-bit offsets) and as int64
// otherwise, so the baseline is not slowed by 64-bit indexing at the sizes we time.
#include <cub/device/device_reduce.cuh>

#include <climits>
#include <cstdint>

#include "device_helpers.cuh"

namespace reduction::detail {
namespace {

template <typename Count>
void cub_sum(void* temp, std::size_t& temp_bytes, const int* in, int* out, Count n,
             cudaStream_t stream) {
    CT_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, reinterpret_cast<const unsigned int*>(in),
                                    reinterpret_cast<unsigned int*>(out), n, stream));
}

template <typename Call>
void with_count_type(std::size_t n, Call&& call) {
    if (n <= static_cast<std::size_t>(INT_MAX)) {
        call(static_cast<int>(n));
    } else {
        call(static_cast<std::int64_t>(n));
    }
}

}  // namespace

std::size_t cub_temp_storage_bytes(std::size_t n) {
    std::size_t bytes = 0;
    with_count_type(n, [&](auto count) { cub_sum(nullptr, bytes, nullptr, nullptr, count, 0); });
    return bytes;
}

void launch_cub_sum(void* temp, std::size_t temp_bytes, const int* in, int* out, std::size_t n,
                    cudaStream_t stream) {
    with_count_type(n, [&](auto count) { cub_sum(temp, temp_bytes, in, out, count, stream); });
    CT_CHECK_LAUNCH();
}

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo reduction_cub_baseline_row() {
    StageInfo row(kCubStageId, "cub_device_reduce_sum", "cub::DeviceReduce::Sum (the baseline)");
    row.combine = Combine::kCub;
    row.shared = Shared::kNone;
    row.role = cudatutorial::StageRole::kBaseline;
    return row;
}

}  // namespace reduction::rows
