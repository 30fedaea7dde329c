// Wide 1 - global atomics: every 16-bit value is one atomicAdd on the global histogram.
//
// The fallback that always works, whatever the bin count: the counters live in global memory
// and every atomic is executed by the L2 slice that owns its address. With 65,536 bins spread
// uniformly the atomics seldom meet on one address, so the limit is how many atomics the L2
// slices retire per clock, not the serialization on a hot counter that made stage 2 take 69 ms
// on 256 bins. With few bins (256) or skewed data the hot counters come back.
// What to look for: the time falls as the bins grow (less contention per counter), but stays
// far above the input's read time; every shared-memory kernel below must beat it.
#include "wide_device.cuh"

namespace histogram {

namespace {

__global__ void wide_global_atomics_kernel(const WideValue* __restrict__ input, std::size_t n,
                                           unsigned int* histo, unsigned bins) {
    detail::count_wide_input(input, n,
                             [&](unsigned value) { atomicAdd(&histo[wide_bin(value, bins)], 1u); });
}

}  // namespace

WideShape launch_wide_global_atomics(const WideArgs& args, cudaStream_t stream) {
    detail::clear_wide_histogram(args, stream);
    WideShape shape;
    shape.block = args.block;
    const auto kernel = wide_global_atomics_kernel;
    shape.resident_blocks = static_cast<int>(detail::blocks_filling_the_gpu(kernel, args.block, 0));
    if (args.n == 0) {
        return shape;
    }
    shape.grid =
        detail::resolve_grid(kernel, args.grid, args.block, 0, detail::wide_work_items(args.n));
    kernel<<<shape.grid, args.block, 0, stream>>>(args.input, args.n, args.histogram,
                                                  static_cast<unsigned>(args.bins));
    CT_CHECK_LAUNCH();
    return shape;
}

}  // namespace histogram
