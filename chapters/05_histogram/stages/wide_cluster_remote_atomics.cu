// Wide 3 - one histogram per thread-block cluster, spread over the cluster's shared memories,
// updated with remote atomics (sm_90+: cooperative_groups::this_cluster, distributed shared
// memory). The obvious cluster kernel, and a lesson in why it is not the fast one.
//
// Changed from wide 2: the C blocks of a cluster are scheduled at the same time on one GPC (a
// group of SMs); they land on different SMs when one SM cannot hold two of them (at 65,536 bins
// and C = 2 each block needs 128 KiB of an SM's 228 KiB). Each block can read, write and
// atomically update the other blocks' shared memory (DSMEM) through cluster.map_shared_rank(). So
// the cluster keeps ONE copy of the histogram, each block holding bins / C of it: bin b lives in
// block b mod C at offset b / C (wide_bin_math.hpp). 65,536 bins cost 128 KiB per block with C = 2,
// which fits where privatization (256 KiB) cannot. Every value is one atomicAdd through a DSMEM
// address (C - 1 in C of them in another block); the merge is `bins` global atomics per cluster.
//
// Two cluster.sync() calls: after clearing (no block may count into a slice its owner has not
// zeroed yet), and after counting (every remote atomic into my slice has landed before I merge
// it, and no block exits, freeing its shared memory, while another still writes into it).
// What to look for: faster than global atomics at 65,536 bins, but far slower than privatization
// wherever that fits (256-16,384 bins): atomics through DSMEM addresses retire at well under
// one per SM clock (measured), where ATOMS on the SM's own shared memory retires many per clock.
// The exchange kernel (wide_cluster_exchange.cu) moves the values instead of the atomics.
#include <cooperative_groups.h>

#include "wide_device.cuh"

namespace cg = cooperative_groups;

namespace histogram {

namespace {

__global__ void wide_cluster_remote_atomics_kernel(const WideValue* __restrict__ input,
                                                   std::size_t n, unsigned int* histo,
                                                   unsigned bins, unsigned shift) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ unsigned int slice_s[];
    const cg::cluster_group cluster = cg::this_cluster();
    const unsigned slice = slice_size(bins, shift);
    for (unsigned o = threadIdx.x; o < slice; o += blockDim.x) {
        slice_s[o] = 0;
    }
    cluster.sync();

    detail::count_wide_input(input, n, [&](unsigned value) {
        const BinOwner owner = bin_owner(wide_bin(value, bins), shift);
        atomicAdd(cluster.map_shared_rank(slice_s, owner.rank) + owner.offset, 1u);
    });
    cluster.sync();

    const unsigned rank = cluster.block_rank();
    for (unsigned o = threadIdx.x; o < slice; o += blockDim.x) {
        const unsigned bin = owned_bin(rank, o, shift);
        const unsigned int count = slice_s[o];
        if (bin < bins && count != 0) {
            atomicAdd(&histo[bin], count);
        }
    }
#else
    // Below sm_90 there are no clusters; the host never launches this (cluster_unsupported_reason).
    (void)input, (void)n, (void)histo, (void)bins, (void)shift;
#endif
}

const void* kernel_key() {
    return reinterpret_cast<const void*>(wide_cluster_remote_atomics_kernel);
}

}  // namespace

std::string wide_cluster_atomics_unsupported(const WideArgs& args, int cluster_size) {
    return detail::cluster_unsupported_reason(
        kernel_key(), args.block, wide_cluster_slice_bytes(args.bins, cluster_size), cluster_size,
        "a block's slice, " + std::to_string(args.bins) + " bins / " +
            std::to_string(cluster_size) + " x 4 B");
}

WideShape launch_wide_cluster_atomics(const WideArgs& args, int cluster_size, cudaStream_t stream) {
    detail::clear_wide_histogram(args, stream);
    WideShape shape = detail::cluster_shape(kernel_key(), args, cluster_size,
                                            wide_cluster_slice_bytes(args.bins, cluster_size));
    if (args.n == 0) {
        return shape;
    }
    if (shape.resident_blocks == 0) {
        throw std::runtime_error("launch_wide_cluster_atomics: " +
                                 wide_cluster_atomics_unsupported(args, cluster_size));
    }
    const std::size_t blocks_needed =
        (detail::wide_work_items(args.n) + args.block - 1) / args.block;
    shape.grid =
        detail::cluster_grid(args.grid, shape.resident_blocks / cluster_size,
                             (blocks_needed + cluster_size - 1) / cluster_size, cluster_size);
    detail::launch_clusters(wide_cluster_remote_atomics_kernel, shape, stream, args.input, args.n,
                            args.histogram, static_cast<unsigned>(args.bins),
                            cluster_shift(static_cast<unsigned>(cluster_size)));
    return shape;
}

}  // namespace histogram
