// Stage 4 - privatization plus aggregation of runs (the seed's fourth kernel, bugs fixed as in
// stage 3).
//
// Changed from stage 3: a thread remembers the bin of its previous byte and how many bytes in a
// row fell into it, and issues one atomicAdd(count) when the bin changes, instead of one atomic
// per byte. The textbook expects this to help when equal values cluster (long runs, one letter)
// because fewer atomics compete for the hot bin. The catch: a thread's consecutive bytes are a
// whole grid apart (grid-stride), so for the bookkeeping to pay, runs must be longer than the
// grid's thread count, and the extra compare and branch are paid on every byte. What to look
// for: the runs and one-letter tables against uniform, and whether the Hopper SM even needed
// the help (shared-memory atomics on one address are not slow there: see stage 3's row for
// one-letter).
#include "histogram_device.cuh"

namespace histogram {

namespace {

template <typename Bins>
__global__ void privatized_aggregated_kernel(const unsigned char* __restrict__ input, std::size_t n,
                                             unsigned int* histo, int n_bins, Bins bins) {
    extern __shared__ unsigned int histo_s[];
    for (int b = threadIdx.x; b < n_bins; b += blockDim.x) {
        histo_s[b] = 0;
    }
    __syncthreads();

    int previous_bin = -1;
    unsigned int run = 0;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const unsigned c = input[i];
        if (bins.counts(c)) {
            const int bin = static_cast<int>(bins.bin(c));
            if (bin == previous_bin) {
                ++run;
            } else {
                if (run > 0) {
                    atomicAdd(&histo_s[previous_bin], run);
                }
                previous_bin = bin;
                run = 1;
            }
        }
    }
    if (run > 0) {
        atomicAdd(&histo_s[previous_bin], run);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < n_bins; b += blockDim.x) {
        const unsigned int count = histo_s[b];
        if (count != 0) {
            atomicAdd(&histo[b], count);
        }
    }
}

LaunchShape launch_privatized_aggregated(const StageArgs& args, cudaStream_t stream) {
    detail::clear_histogram(args, stream);
    LaunchShape shape{0, args.block};
    if (args.n == 0) {
        return shape;
    }
    const int n_bins = args.binning.bins();
    const std::size_t shared = static_cast<std::size_t>(n_bins) * sizeof(unsigned int);
    detail::with_bins(args.binning, [&](auto bins) {
        const auto kernel = privatized_aggregated_kernel<decltype(bins)>;
        shape.grid = detail::resolve_grid(kernel, args.grid, args.block, shared, args.n);
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

Stage stage4_privatized_aggregated_row() {
    Stage row("4", "privatized_aggregated",
              "stage 3, but a thread adds a run of equal bins with one atomic instead of one per "
              "byte");
    row.launch = launch_privatized_aggregated;
    return row;
}

}  // namespace histogram::rows
