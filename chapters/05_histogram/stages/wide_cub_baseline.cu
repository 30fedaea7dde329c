// Wide baseline - CUB's DeviceHistogram::HistogramEven over 16-bit samples, levels 0..65536.
//
// For samples wider than a byte CUB privatizes in shared memory only up to 256 bins
// (MAX_PRIVATIZED_SMEM_BINS in dispatch_histogram.cuh); above that each block of its sweep clears
// its own copy of the histogram in global memory (temporary storage: bins x 4 B x blocks), counts
// into it with global atomics (a run of equal bins as one atomic), and adds it to the output with
// one atomic per bin (agent_histogram.cuh). For integer samples it computes the bin as
// (sample - lower) x bins / (upper - lower) in integers, which is wide_bin() exactly, so its
// result must match the reference bin for bin at every bin count.
// The build's -Xptxas=-warn-spills reports 14 bytes of spill stores in CUB's own shared-memory
// sweep kernel for 16-bit samples (DeviceHistogramSweepKernel, Policy1000, sm_90, CUDA 13.0).
// It is instantiated because the bin count is known only at run time; the spill is CUB's.
#include <cub/device/device_histogram.cuh>

#include <cstdint>

#include "wide_device.cuh"

namespace histogram {

WideShape launch_wide_cub(const WideArgs& args, cudaStream_t stream) {
    if (args.workspace == nullptr) {
        throw std::invalid_argument("launch_wide_cub: WideArgs::workspace is required");
    }
    WideWorkspace& workspace = *args.workspace;
    const int levels = args.bins + 1;
    const int lower = 0;
    const int upper = static_cast<int>(kWideValues);
    const auto samples = static_cast<std::int64_t>(args.n);
    const auto call = [&](void* temp, std::size_t& temp_bytes) {
        return cub::DeviceHistogram::HistogramEven(temp, temp_bytes, args.input, args.histogram,
                                                   levels, lower, upper, samples, stream);
    };
    detail::call_with_cub_temp(workspace.cub_temp, args.n, args.bins, call);
    WideShape shape;
    shape.chosen_by = "CUB";  // its own grid, block and temporary storage
    return shape;
}

}  // namespace histogram
