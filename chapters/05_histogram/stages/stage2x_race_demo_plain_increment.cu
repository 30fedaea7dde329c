// LABELLED BUG DEMONSTRATION - stage 2 with a plain histo[bin]++ instead of atomicAdd.
//
// `histo[bin]++` on memory that other threads update at the same time is three steps: load the
// count, add one, store it. When two threads load the same old value, both store old + 1 and one
// count is lost (the seed's figure of two threads racing on histo[x]). This kernel is in the
// table to show how much is lost; it always reports FAIL (expected) with the number of counts
// lost, it never counts as a failure of the program, and its test (HistogramBugDemo) checks that
// the loss the table reports is the one a separate count of both histograms gives, and that
// uniform input does lose counts. compute-sanitizer's racecheck does not see it (racecheck
// checks shared memory only), which is one more reason to know the pattern on sight. The
// sanitizer script skips it by name (BugDemo).
#include "histogram_device.cuh"

namespace histogram {

namespace {

template <typename Bins>
__global__ void plain_increment_kernel(const unsigned char* __restrict__ input, std::size_t n,
                                       unsigned int* histo, Bins bins) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const unsigned c = input[i];
        if (bins.counts(c)) {
            histo[bins.bin(c)]++;  // the race: load, add, store, not indivisible
        }
    }
}

LaunchShape launch_race_plain_increment(const StageArgs& args, cudaStream_t stream) {
    detail::clear_histogram(args, stream);
    LaunchShape shape{0, args.block};
    if (args.n == 0) {
        return shape;
    }
    detail::with_bins(args.binning, [&](auto bins) {
        const auto kernel = plain_increment_kernel<decltype(bins)>;
        shape.grid = detail::resolve_grid(kernel, args.grid, args.block, 0, args.n);
        kernel<<<shape.grid, args.block, 0, stream>>>(args.input, args.n, args.histogram, bins);
        CT_CHECK_LAUNCH();
    });
    return shape;
}

}  // namespace

}  // namespace histogram

// The stage's row in the stage list (histogram.hpp): the build collects it from this file.
namespace histogram::rows {

Stage stage2x_race_demo_plain_increment_row() {
    Stage row("race", "race_demo_plain_increment",
              "stage 2 with histo[bin]++ instead of atomicAdd: read-modify-write races lose "
              "counts");
    row.launch = launch_race_plain_increment;
    row.slow = true;
    row.role = cudatutorial::StageRole::kExpectedFailure;
    return row;
}

}  // namespace histogram::rows
