// Stage 3 - privatization: one histogram per block in shared memory (the seed's third kernel,
// with its two bugs fixed).
//
// Changed from stage 2: the atomics go to a private copy of the histogram in the block's shared
// memory. A shared-memory atomic is executed by the SM itself: 45 cycles of latency measured
// (about a shared load's), against hundreds of cycles for a round trip to L2, and only the
// block's own threads compete for each copy.
// At the end each block adds its copy to the global histogram: one global atomic per non-empty
// bin per block instead of one per byte. What to look for: the largest single step in the
// table (about two orders of magnitude), and that the all-one-letter input does NOT get slower.
//
// The seed's version had two bugs, both invisible with 7 bins and 256 threads:
//  - `if (threadIdx.x < n_bins) histo_s[threadIdx.x] = 0;` clears only the first blockDim bins,
//    so 256 bins with a 128-thread block start from garbage. Here every loop over bins strides
//    by blockDim.x, which is right for any bin count and any block size.
//  - the host never zeroed the global histogram before the launch, so running the kernel twice
//    (as every benchmark does) doubles the counts. clear_histogram() does it on every launch.
#include "histogram_device.cuh"

namespace histogram {

namespace {

template <typename Bins>
__global__ void privatized_shared_kernel(const unsigned char* __restrict__ input, std::size_t n,
                                         unsigned int* histo, int n_bins, Bins bins) {
    extern __shared__ unsigned int histo_s[];
    // EXERCISE BEGIN: clear the block's private histogram histo_s[0, n_bins), for any block size,
    // EXERCISE HINT: then a barrier (__syncthreads()): no thread may count into a bin that
    // EXERCISE HINT: another thread has not cleared yet
    for (int b = threadIdx.x; b < n_bins; b += blockDim.x) {
        histo_s[b] = 0;
    }
    __syncthreads();
    // EXERCISE END

    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const unsigned c = input[i];
        if (bins.counts(c)) {
            // EXERCISE BEGIN: count c in the private histogram (bin bins.bin(c))
            atomicAdd(&histo_s[bins.bin(c)], 1u);
            // EXERCISE END
        }
    }
    // EXERCISE BEGIN: wait at a barrier until the whole block has counted, then add the private
    // EXERCISE HINT: histogram to the global one, histo (an empty bin needs no global atomic)
    __syncthreads();

    for (int b = threadIdx.x; b < n_bins; b += blockDim.x) {
        const unsigned int count = histo_s[b];
        if (count != 0) {  // an empty bin needs no global atomic
            atomicAdd(&histo[b], count);
        }
    }
    // EXERCISE END
}

LaunchShape launch_privatized_shared(const StageArgs& args, cudaStream_t stream) {
    detail::clear_histogram(args, stream);
    LaunchShape shape{0, args.block};
    if (args.n == 0) {
        return shape;
    }
    const int n_bins = args.binning.bins();
    const std::size_t shared = static_cast<std::size_t>(n_bins) * sizeof(unsigned int);
    detail::with_bins(args.binning, [&](auto bins) {
        const auto kernel = privatized_shared_kernel<decltype(bins)>;
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

Stage stage3_privatized_shared_row() {
    Stage row("3", "privatized_shared",
              "one histogram per block in shared memory (fast atomics), merged with one atomic "
              "per bin");
    row.launch = launch_privatized_shared;
    return row;
}

}  // namespace histogram::rows
