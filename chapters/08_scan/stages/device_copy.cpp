// The ceiling, not a scan: cudaMemcpyAsync of the n values from the input to the output, device
// to device. It reads and writes the bytes every scan must (n values in, n out) and does nothing
// else, so no single-pass scan can beat it on the same GPU: the table's "% of copy" column is
// each stage's distance from it (measuring/copy_ceiling.hpp).
#include <cuda_runtime_api.h>

#include "cudatutorial/check.hpp"
#include "scan.hpp"
#include "stages/scan_launchers.hpp"

namespace scan::detail {
namespace {

void launch_device_copy(const LaunchArgs& a) {
    CT_CHECK(cudaMemcpyAsync(a.out, a.in, a.n * sizeof(Value), cudaMemcpyDeviceToDevice, a.stream));
}

}  // namespace
}  // namespace scan::detail

// The ceiling's row in the stage list (scan.hpp): the build collects it from this file.
namespace scan::rows {

StageInfo device_copy_row() {
    StageInfo row(kCopyStageId, "device_to_device_copy",
                  "cudaMemcpyAsync of the n values: the same bytes as a scan, no adds (the "
                  "ceiling)");
    row.launch = detail::launch_device_copy;
    row.method = Method::kCopy;
    row.items_per_thread = 0;
    row.role = cudatutorial::StageRole::kBaseline;
    return row;
}

}  // namespace scan::rows
