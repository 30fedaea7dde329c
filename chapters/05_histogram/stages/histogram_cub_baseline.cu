// Baseline - CUB's DeviceHistogram, the library a real program would call.
//
// For 8-bit samples CUB always builds 256-bin privatized histograms in shared memory (one per
// block, whatever the number of output bins) and maps them to the requested bins at the end
// (dispatch_histogram.cuh, "is_byte_sample"); it launches two kernels (clear the output, then
// the sweep). HistogramEven needs bins of equal width. The letter binning's last bin is
// narrower when 26 is not a multiple of the width ("y-z" for width 4): bins of four letters
// would need the upper level 'a' + 28 ('}', exclusive), and HistogramEven would then count '{'
// and '|' into the last bin as if they were letters. That case uses HistogramRange with the
// exact boundaries; with byte samples both calls do the same work.
#include <cub/device/device_histogram.cuh>

#include <cstdint>

#include "histogram_device.cuh"

namespace histogram {

namespace {

std::vector<int> letter_levels(const Binning& binning) {
    std::vector<int> levels;
    for (int b = 0; b < binning.bins(); ++b) {
        levels.push_back('a' + b * binning.width);
    }
    levels.push_back('z' + 1);
    return levels;
}

LaunchShape launch_cub_histogram(const StageArgs& args, cudaStream_t stream) {
    if (args.workspace == nullptr) {
        throw std::invalid_argument("launch_cub_histogram: StageArgs::workspace is required");
    }
    Workspace& workspace = *args.workspace;
    const int levels = args.binning.bins() + 1;
    const auto samples = static_cast<std::int64_t>(args.n);
    const bool even = cub_uses_histogram_even(args.binning);
    const int lower = args.binning.kind == Binning::Kind::kBytes ? 0 : 'a';
    const int upper = args.binning.kind == Binning::Kind::kBytes ? 256 : 'z' + 1;

    if (!even) {
        std::vector<int> wanted = letter_levels(args.binning);
        if (wanted != workspace.cub_levels_host) {  // first use: outside the timed runs
            workspace.cub_levels = cudatutorial::DeviceBuffer<int>(wanted);
            workspace.cub_levels_host = std::move(wanted);
        }
    }
    const auto call = [&](void* temp, std::size_t& temp_bytes) {
        if (even) {
            return cub::DeviceHistogram::HistogramEven(temp, temp_bytes, args.input, args.histogram,
                                                       levels, lower, upper, samples, stream);
        }
        return cub::DeviceHistogram::HistogramRange(temp, temp_bytes, args.input, args.histogram,
                                                    levels, workspace.cub_levels.data(), samples,
                                                    stream);
    };
    // The bins' key of the size query: 256 for bytes, -width for letters.
    const int bins_key = args.binning.kind == Binning::Kind::kBytes ? 256 : -args.binning.width;
    detail::call_with_cub_temp(workspace.cub_temp, args.n, bins_key, call);
    return LaunchShape{0, 0, "CUB"};  // CUB chooses its own grid and block
}

}  // namespace

}  // namespace histogram

// The stage's row in the stage list (histogram.hpp): the build collects it from this file.
namespace histogram::rows {

Stage histogram_cub_baseline_row() {
    Stage row("cub", "cub_device_histogram",
              "CUB DeviceHistogram (HistogramEven; HistogramRange when the last letter bin is "
              "narrower)");
    row.launch = launch_cub_histogram;
    row.row_name = cub_call_name;
    row.role = cudatutorial::StageRole::kBaseline;
    return row;
}

}  // namespace histogram::rows
