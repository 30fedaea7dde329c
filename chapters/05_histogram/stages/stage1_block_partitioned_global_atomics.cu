// Stage 1 - block partitioning with global atomics (the seed's first kernel).
//
// The input is cut into one contiguous section per thread, the way one would split work among
// a few CPU threads. Every counted byte is one atomicAdd on the histogram in global memory:
// atomics make the read-modify-write of a bin indivisible, so concurrent updates are not lost
// (compare the race demonstration). What to look for in the table: this is the slowest stage.
// Two things hurt: the atomics (resolved one after another in L2 for each bin) and the access
// pattern: in one step the 32 threads of a warp read 32 bytes that lie a whole section apart,
// 32 different memory sectors for 32 useful bytes.
#include "histogram_device.cuh"

namespace histogram {

namespace {

template <typename Bins>
__global__ void block_partitioned_kernel(const unsigned char* __restrict__ input, std::size_t n,
                                         unsigned int* histo, Bins bins) {
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    // The seed wrote (n - 1) / threads + 1, which breaks for n = 0 with unsigned sizes.
    const std::size_t section = (n + threads - 1) / threads;
    const std::size_t begin = thread * section;
    const std::size_t end = begin + section < n ? begin + section : n;
    for (std::size_t i = begin; i < end; ++i) {
        const unsigned c = input[i];
        if (bins.counts(c)) {
            atomicAdd(&histo[bins.bin(c)], 1u);
        }
    }
}

LaunchShape launch_block_partitioned(const StageArgs& args, cudaStream_t stream) {
    detail::clear_histogram(args, stream);
    LaunchShape shape{0, args.block};
    if (args.n == 0) {
        return shape;
    }
    detail::with_bins(args.binning, [&](auto bins) {
        const auto kernel = block_partitioned_kernel<decltype(bins)>;
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

Stage stage1_block_partitioned_global_atomics_row() {
    Stage row("1", "block_partitioned_global_atomics",
              "each thread counts its own contiguous section with atomicAdd on the global "
              "histogram");
    row.launch = launch_block_partitioned;
    row.slow = true;
    return row;
}

}  // namespace histogram::rows
