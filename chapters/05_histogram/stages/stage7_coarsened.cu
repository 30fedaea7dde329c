// Stage 7 (beyond the book) - thread coarsening: stage 6 with four 16-byte loads in flight per
// thread.
//
// Changed from stage 6: each pass of a thread's loop first issues kVectorsPerThread independent
// 16-byte loads and only then counts their 64 bytes. In stage 6 a thread waits for one load,
// counts 16 bytes (about a hundred instructions), then asks for the next: while it counts,
// it has nothing in flight. To keep DRAM busy the SMs need roughly bandwidth x latency bytes
// outstanding (3.35 TB/s x 348 ns, chapter 1's measured DRAM latency, = 1.1 MiB, about 8.6 KiB
// per SM); with four loads per thread that needs only a quarter of the warps waiting at any
// time. Prediction: a few percent at
// most, and only if stage 6 is not yet at the bandwidth ceiling. What to look for: x prev.
// The loop itself is detail::count_input_coarsened (histogram_device.cuh): stage 8 reuses it.
#include "histogram_device.cuh"

namespace histogram {

namespace {

constexpr int kCopies = detail::kLaneCopies;  // one per lane of a warp (= shared-memory banks)
constexpr int kVectorsPerThread = 4;

template <typename Bins>
__global__ void coarsened_kernel(const unsigned char* __restrict__ input, std::size_t n,
                                 unsigned int* histo, int n_bins, Bins bins) {
    extern __shared__ unsigned int copies_s[];  // [n_bins][kCopies], as in stage 6
    for (int i = threadIdx.x; i < n_bins * kCopies; i += blockDim.x) {
        copies_s[i] = 0;
    }
    __syncthreads();

    const unsigned lane = threadIdx.x % kCopies;
    unsigned int* const mine = copies_s + lane;
    const auto count = [&](unsigned bin) { atomicAdd(&mine[bin * kCopies], 1u); };
    detail::count_input_coarsened<kVectorsPerThread>(input, n, bins, count);
    __syncthreads();

    for (int b = threadIdx.x; b < n_bins; b += blockDim.x) {
        const unsigned int total = detail::sum_lane_copies(copies_s, b, lane);
        if (total != 0) {
            atomicAdd(&histo[b], total);
        }
    }
}

LaunchShape launch_coarsened(const StageArgs& args, cudaStream_t stream) {
    detail::clear_histogram(args, stream);
    LaunchShape shape{0, args.block};
    if (args.n == 0) {
        return shape;
    }
    const int n_bins = args.binning.bins();
    const std::size_t shared = static_cast<std::size_t>(n_bins) * kCopies * sizeof(unsigned int);
    const std::size_t vectors = detail::split_for_vectors(args.input, args.n).vectors;
    const std::size_t tiles_of_one_thread = (vectors + kVectorsPerThread - 1) / kVectorsPerThread;
    detail::with_bins(args.binning, [&](auto bins) {
        const auto kernel = coarsened_kernel<decltype(bins)>;
        shape.grid =
            detail::resolve_grid(kernel, args.grid, args.block, shared, tiles_of_one_thread);
        kernel<<<shape.grid, args.block, shared, stream>>>(args.input, args.n, args.histogram,
                                                           n_bins, bins);
        CT_CHECK_LAUNCH();
    });
    return shape;
}

}  // namespace

}  // namespace histogram

// The stage's row in the stage list (histogram.hpp): the build collects it from this file.
namespace histogram::rows {

Stage stage7_coarsened_row() {
    Stage row("7", "coarsened_x4",
              "stage 6 with four independent 16-byte loads in flight per thread (thread "
              "coarsening)");
    row.launch = launch_coarsened;
    return row;
}

}  // namespace histogram::rows
