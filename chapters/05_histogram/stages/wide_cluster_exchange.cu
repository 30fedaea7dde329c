// Wide 4 - the cluster's histogram again, but the VALUES travel between SMs, not the atomics:
// each block stages a slice of the input in its shared memory, and every block of the cluster
// reads every staged slice through DSMEM and counts only the values whose bins it owns, with
// ordinary shared-memory atomics (ATOMS) on its own SM (sm_90+).
//
// Changed from wide 3: a remote atomic is a 4-byte request, and the SM-to-SM network retired
// well under one per SM clock in our measurement; a remote 16-byte load moves eight values. So per
// step of the loop each block loads its part of the cluster's tile (16 KiB, coalesced, from DRAM
// once), cluster.sync(), then reads all C parts (its own, and C - 1 over DSMEM) and counts the
// values it owns (bin mod C
// == its rank). Every value is examined by all C blocks but counted by one: C times the decoding
// work, no remote atomics. Two staging buffers: while others may still read the part of step i,
// a block fills the other buffer for step i + 1; one cluster.sync() per step keeps both safe
// (a block that starts writing buffer b again has passed the barrier that every reader of b's
// previous contents reached after reading it), and the next step's loads are issued before this
// step's counting, so that DRAM reads overlap it. The few values before the first 16-byte-aligned
// address and after the last vector (at most 14) are counted with remote atomics, as in wide 3.
// What to look for: at 65,536 bins, C = 2 (128 KiB of bins per block) against global atomics,
// CUB and wide 3; larger C halves the shared memory per block but multiplies the decoding work.
// What was measured (H100, 65,536 uniform bins, C = 2): the idea above is a hypothesis, and at
// the default 256 threads per block it does not hold: 1.216 ms, faster than global atomics
// (1.909 ms) and CUB (1.826 ms) but slower than wide 3 (0.832 ms; histogram_wide.txt). It beats
// wide 3 only with more threads per block to hide the DSMEM loads' latency: 0.792 vs 0.835 ms at
// 512 threads, 0.737 vs 0.849 ms at 1024 (histogram_wide_block_sweep.txt, docs/results/).
#include <cooperative_groups.h>

#include "wide_device.cuh"

namespace cg = cooperative_groups;

namespace histogram {

namespace {

/// Vectors (16 B) in one staging buffer of one block.
constexpr unsigned kStageVectors = static_cast<unsigned>(kWideStageBytes / sizeof(uint4));

__global__ void wide_cluster_exchange_kernel(const WideValue* __restrict__ input, std::size_t n,
                                             unsigned int* histo, unsigned bins, unsigned shift) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // 16-byte loads a thread keeps in flight for the next step (4 x 256 threads = one 16 KiB part)
    constexpr int kLoadsInFlight = 4;
    extern __shared__ uint4 shared_v[];  // [bins slice | staging buffer 0 | staging buffer 1]
    const cg::cluster_group cluster = cg::this_cluster();
    const unsigned cluster_size = 1u << shift;
    const unsigned rank = cluster.block_rank();
    const unsigned slice = slice_size(bins, shift);
    unsigned int* slice_s = reinterpret_cast<unsigned int*>(shared_v);
    uint4* stage_s = shared_v + (slice + 3) / 4;
    for (unsigned o = threadIdx.x; o < slice; o += blockDim.x) {
        slice_s[o] = 0;
    }
    cluster.sync();

    const detail::WideSplit split = detail::split_wide_for_vectors(input, n);
    const uint4* __restrict__ vectors = reinterpret_cast<const uint4*>(input + split.head);
    const auto count_if_mine = [&](unsigned value) {
        const unsigned bin = wide_bin(value, bins);
        if ((bin & (cluster_size - 1)) == rank) {
            atomicAdd(&slice_s[bin >> shift], 1u);
        }
    };
    // Blocks of a cluster are consecutive along x, so blockIdx.x >> shift numbers the clusters,
    // and every block of a cluster runs the same iterations (each has a cluster.sync in it).
    const std::size_t tile = static_cast<std::size_t>(cluster_size) * kStageVectors;
    const std::size_t step_size = (gridDim.x >> shift) * tile;
    const std::size_t first_base = (blockIdx.x >> shift) * tile;
    const std::size_t my_offset = static_cast<std::size_t>(rank) * kStageVectors;
    // The next step's part is loaded into registers while this step's is counted, so that the
    // loads from DRAM overlap the counting (a block of 256 threads holds a whole 16 KiB part in
    // its kLoadsInFlight registers per thread; smaller blocks load the rest when they store).
    uint4 loaded[kLoadsInFlight];
    const auto load_part = [&](std::size_t part_base) {
#pragma unroll
        for (int k = 0; k < kLoadsInFlight; ++k) {
            const unsigned j = k * blockDim.x + threadIdx.x;
            if (j < kStageVectors && part_base + j < split.vectors) {
                loaded[k] = vectors[part_base + j];
            }
        }
    };
    if (first_base < split.vectors) {
        load_part(first_base + my_offset);
    }
    unsigned buffer = 0;
    for (std::size_t base = first_base; base < split.vectors; base += step_size, buffer ^= 1u) {
        uint4* part_s = stage_s + buffer * kStageVectors;
        const std::size_t my_base = base + my_offset;
#pragma unroll
        for (int k = 0; k < kLoadsInFlight; ++k) {
            const unsigned j = k * blockDim.x + threadIdx.x;
            if (j < kStageVectors && my_base + j < split.vectors) {
                part_s[j] = loaded[k];
            }
        }
        for (unsigned j = kLoadsInFlight * blockDim.x + threadIdx.x; j < kStageVectors;
             j += blockDim.x) {
            if (my_base + j < split.vectors) {
                part_s[j] = vectors[my_base + j];
            }
        }
        cluster.sync();
        if (base + step_size < split.vectors) {
            load_part(base + step_size + my_offset);
        }
        // Start with the own part and go round, so that the C blocks read C different SMs.
        for (unsigned step = 0; step < cluster_size; ++step) {
            const unsigned source = (rank + step) & (cluster_size - 1);
            const uint4* source_s = cluster.map_shared_rank(part_s, source);
            const std::size_t source_base = base + static_cast<std::size_t>(source) * kStageVectors;
            for (unsigned j = threadIdx.x; j < kStageVectors; j += blockDim.x) {
                if (source_base + j < split.vectors) {
                    detail::count_wide_vector(source_s[j], count_if_mine);
                }
            }
        }
    }

    const auto count_anywhere = [&](unsigned value) {
        const BinOwner owner = bin_owner(wide_bin(value, bins), shift);
        atomicAdd(cluster.map_shared_rank(slice_s, owner.rank) + owner.offset, 1u);
    };
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = thread; i < split.head; i += threads) {
        count_anywhere(input[i]);
    }
    for (std::size_t i = split.tail_begin + thread; i < n; i += threads) {
        count_anywhere(input[i]);
    }
    // Every count has landed in my slice, and nobody reads my staging buffers any more: merge,
    // then exit (which frees this block's shared memory).
    cluster.sync();

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
    return reinterpret_cast<const void*>(wide_cluster_exchange_kernel);
}

}  // namespace

std::size_t wide_cluster_shared_bytes(int bins, int cluster_size) {
    const std::size_t slice = wide_cluster_slice_bytes(bins, cluster_size);
    return (slice + 15) / 16 * 16 + 2 * kWideStageBytes;
}

std::string wide_cluster_unsupported(const WideArgs& args, int cluster_size) {
    return detail::cluster_unsupported_reason(
        kernel_key(), args.block, wide_cluster_shared_bytes(args.bins, cluster_size), cluster_size,
        "a block's slice (" + std::to_string(args.bins) + " bins / " +
            std::to_string(cluster_size) + " x 4 B) and two 16 KiB staging buffers");
}

WideShape launch_wide_cluster(const WideArgs& args, int cluster_size, cudaStream_t stream) {
    detail::clear_wide_histogram(args, stream);
    WideShape shape = detail::cluster_shape(kernel_key(), args, cluster_size,
                                            wide_cluster_shared_bytes(args.bins, cluster_size));
    if (args.n == 0) {
        return shape;
    }
    if (shape.resident_blocks == 0) {
        throw std::runtime_error("launch_wide_cluster: " +
                                 wide_cluster_unsupported(args, cluster_size));
    }
    const std::size_t tiles =
        (args.n / detail::kValuesPerVector + kStageVectors * cluster_size - 1) /
        (static_cast<std::size_t>(kStageVectors) * cluster_size);
    shape.grid = detail::cluster_grid(args.grid, shape.resident_blocks / cluster_size,
                                      std::max<std::size_t>(tiles, 1), cluster_size);
    detail::launch_clusters(wide_cluster_exchange_kernel, shape, stream, args.input, args.n,
                            args.histogram, static_cast<unsigned>(args.bins),
                            cluster_shift(static_cast<unsigned>(cluster_size)));
    return shape;
}

}  // namespace histogram
