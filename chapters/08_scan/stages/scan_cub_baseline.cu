// The baseline: CUB's cub::DeviceScan::InclusiveSum / ExclusiveSum, the library call a CUDA
// programmer would use (itself a single-pass decoupled look-back scan, tuned per architecture).
// Its temporary storage is allocated once by the Scanner, outside the timed runs. The item count
// is passed as int when it fits (CUB's usual 32-bit offsets) and as int64 otherwise, so that the
// baseline is not slowed by 64-bit indexing at the sizes the table times.
#include <cub/device/device_scan.cuh>

#include <climits>
#include <cstdint>

#include "scan_device.cuh"

namespace scan::detail {
namespace {

template <typename Count>
void cub_scan(void* temp, std::size_t& temp_bytes, const Value* in, Value* out, Count n,
              bool exclusive, cudaStream_t stream) {
    if (exclusive) {
        CT_CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n, stream));
    } else {
        CT_CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n, stream));
    }
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

std::size_t cub_temp_storage_bytes(std::size_t n, bool exclusive) {
    std::size_t bytes = 0;
    with_count_type(n, [&](auto count) {
        cub_scan(nullptr, bytes, nullptr, nullptr, count, exclusive, nullptr);
    });
    return bytes;
}

void launch_cub_scan(void* temp, std::size_t temp_bytes, const LaunchArgs& a) {
    with_count_type(a.n, [&](auto count) {
        cub_scan(temp, temp_bytes, a.in, a.out, count, a.exclusive, a.stream);
    });
    CT_CHECK_LAUNCH();
}

}  // namespace scan::detail

// The stage's row in the stage list (scan.hpp): the build collects it from this file.
namespace scan::rows {

StageInfo scan_cub_baseline_row() {
    StageInfo row(kCubStageId, "cub_device_scan",
                  "cub::DeviceScan::InclusiveSum / ExclusiveSum (the baseline)");
    row.method = Method::kCub;
    row.items_per_thread = 0;
    row.role = cudatutorial::StageRole::kBaseline;
    return row;
}

}  // namespace scan::rows
