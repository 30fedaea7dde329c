// Stage 2 - interleaved (grid-stride) partitioning, still global atomics (the seed's second).
//
// Changed from stage 1: thread t reads bytes t, t + T, t + 2T, ... (T = all threads of the
// grid). In each step the 32 threads of a warp read 32 adjacent bytes: one 32-byte sector
// serves the whole warp (a coalesced access) instead of 32 sectors. What to look for: the
// memory side gets much cheaper, but every counted byte is still one global atomic, so the time
// is set by how many atomics per second L2 can perform on the few addresses of the histogram.
// With all bytes in one bin (--dist one-letter) they all queue on a single address.
#include "histogram_device.cuh"

namespace histogram {

namespace {

template <typename Bins>
__global__ void interleaved_kernel(const unsigned char* __restrict__ input, std::size_t n,
                                   unsigned int* histo, Bins bins) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const unsigned c = input[i];
        if (bins.counts(c)) {
            atomicAdd(&histo[bins.bin(c)], 1u);
        }
    }
}

LaunchShape launch_interleaved(const StageArgs& args, cudaStream_t stream) {
    detail::clear_histogram(args, stream);
    LaunchShape shape{0, args.block};
    if (args.n == 0) {
        return shape;
    }
    detail::with_bins(args.binning, [&](auto bins) {
        const auto kernel = interleaved_kernel<decltype(bins)>;
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

Stage stage2_interleaved_global_atomics_row() {
    Stage row("2", "interleaved_global_atomics",
              "grid-stride: a warp reads 32 adjacent bytes per step (coalesced); still global "
              "atomics");
    row.launch = launch_interleaved;
    row.slow = true;
    return row;
}

}  // namespace histogram::rows
