// Wide 2 - privatization, while it fits: stage 3's idea for 16-bit values. Each block keeps all
// the bins in its shared memory, counts there, and merges into the global histogram once.
//
// Changed from wide 1: the atomics go to the SM's own shared memory (ATOMS, about 45 cycles)
// instead of L2. The price is shared memory: bins x 4 B per block. 4,096 bins take 16 KiB and
// leave room for many blocks per SM; 16,384 bins take 64 KiB, three blocks per SM on an H100
// (228 KiB per SM); 65,536 bins need 256 KiB, more than the 227 KiB a block may have at all, and
// the row is skipped with a note. Fewer resident blocks mean fewer loads in flight, and every
// block's merge adds `bins` global atomics however little it counted.
// What to look for: the best kernel for small bin counts; slower as the bins grow (occupancy and
// merge), and absent at 65,536.
#include "wide_device.cuh"

namespace histogram {

namespace {

__global__ void wide_privatized_shared_kernel(const WideValue* __restrict__ input, std::size_t n,
                                              unsigned int* histo, unsigned bins) {
    extern __shared__ unsigned int histo_s[];
    for (unsigned b = threadIdx.x; b < bins; b += blockDim.x) {
        histo_s[b] = 0;
    }
    __syncthreads();
    detail::count_wide_input(
        input, n, [&](unsigned value) { atomicAdd(&histo_s[wide_bin(value, bins)], 1u); });
    __syncthreads();
    for (unsigned b = threadIdx.x; b < bins; b += blockDim.x) {
        const unsigned int count = histo_s[b];
        if (count != 0) {
            atomicAdd(&histo[b], count);
        }
    }
}

std::size_t shared_bytes(const WideArgs& args) {
    return static_cast<std::size_t>(args.bins) * sizeof(unsigned int);
}

}  // namespace

std::string wide_privatized_unsupported(const WideArgs& args) {
    const detail::WideDeviceLimits limits = detail::wide_device_limits();
    if (shared_bytes(args) > limits.shared_per_block_optin) {
        return std::to_string(args.bins) + " bins x 4 B = " + std::to_string(shared_bytes(args)) +
               " B of shared memory per block, more than the " +
               std::to_string(limits.shared_per_block_optin) + " B a block may have on this GPU";
    }
    return {};
}

WideShape launch_wide_privatized_shared(const WideArgs& args, cudaStream_t stream) {
    detail::clear_wide_histogram(args, stream);
    const auto kernel = wide_privatized_shared_kernel;
    detail::allow_large_shared_and_clusters(reinterpret_cast<const void*>(kernel), false);
    WideShape shape;
    shape.block = args.block;
    shape.shared_bytes = shared_bytes(args);
    shape.resident_blocks =
        static_cast<int>(detail::blocks_filling_the_gpu(kernel, args.block, shape.shared_bytes));
    if (args.n == 0) {
        return shape;
    }
    shape.grid = detail::resolve_grid(kernel, args.grid, args.block, shape.shared_bytes,
                                      detail::wide_work_items(args.n));
    kernel<<<shape.grid, args.block, shape.shared_bytes, stream>>>(
        args.input, args.n, args.histogram, static_cast<unsigned>(args.bins));
    CT_CHECK_LAUNCH();
    return shape;
}

}  // namespace histogram
