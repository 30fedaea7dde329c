// Stage 6 (beyond the book) - 32 sub-histograms per block, one per lane, bank-conflict free.
//
// Changed from stage 5: the block keeps 32 copies of the histogram, and lane L of every warp
// counts into copy L. The copies are interleaved: copy L of bin b is the word b * 32 + L, so it
// sits in shared-memory bank L whatever b is. Shared memory has 32 banks and serves one word per
// bank per cycle: in stage 5 the 32 lanes of a warp hit random bins, several of them in the
// same bank, and the atomic is replayed once per extra word in the busiest bank (about 3.5
// times on average for 256 uniform bins). Here the 32 lanes always hit 32 different banks: one
// pass in the bank model, whatever the data (uniform, skewed or all one letter). ncu measures
// close to that, not exactly: 1.14 passes per warp atomic on random bytes (1.2 M of 9.6 M
// counted as conflicts), 1.07 on letters, against 3.2 in stage 5. The cost: 32x the shared memory
// (32 KiB for 256 bins, 0.9 KiB for 7) and a 32-way sum per bin at the end.
// Prediction: uniform 256-bin input runs as fast as one-letter input (its best case in stage
// 5), close to DRAM bandwidth; letters gain less (7 bins rarely collide in banks). What to look
// for: x CUB above 1 for both binnings, and no slowdown on skewed or one-letter input.
#include "histogram_device.cuh"

namespace histogram {

namespace {

constexpr int kCopies = detail::kLaneCopies;  // one per lane of a warp (= shared-memory banks)

template <typename Bins>
__global__ void lane_replicated_kernel(const unsigned char* __restrict__ input, std::size_t n,
                                       unsigned int* histo, int n_bins, Bins bins) {
    extern __shared__ unsigned int copies_s[];  // [n_bins][kCopies]
    for (int i = threadIdx.x; i < n_bins * kCopies; i += blockDim.x) {
        copies_s[i] = 0;
    }
    __syncthreads();

    const unsigned lane = threadIdx.x % kCopies;
    unsigned int* const mine = copies_s + lane;  // my copy of bin b is mine[b * kCopies]
    // Warps of the block still share a copy, so the update stays atomic (and cheap).
    const auto count = [&](unsigned bin) { atomicAdd(&mine[bin * kCopies], 1u); };
    const detail::VectorSplit split = detail::split_for_vectors(input, n);
    const uint4* __restrict__ vectors = reinterpret_cast<const uint4*>(input + split.head);
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t v = thread; v < split.vectors; v += stride) {
        detail::count_vector(vectors[v], bins, count);
    }
    detail::count_leftovers(input, n, split, thread, stride, bins, count);
    __syncthreads();

    // Thread t sums bin b's 32 copies, in an order rotated by its lane (no bank conflicts).
    for (int b = threadIdx.x; b < n_bins; b += blockDim.x) {
        const unsigned int total = detail::sum_lane_copies(copies_s, b, lane);
        if (total != 0) {
            atomicAdd(&histo[b], total);
        }
    }
}

LaunchShape launch_lane_replicated(const StageArgs& args, cudaStream_t stream) {
    detail::clear_histogram(args, stream);
    LaunchShape shape{0, args.block};
    if (args.n == 0) {
        return shape;
    }
    const int n_bins = args.binning.bins();
    const std::size_t shared = static_cast<std::size_t>(n_bins) * kCopies * sizeof(unsigned int);
    const std::size_t vectors = detail::split_for_vectors(args.input, args.n).vectors;
    detail::with_bins(args.binning, [&](auto bins) {
        const auto kernel = lane_replicated_kernel<decltype(bins)>;
        shape.grid = detail::resolve_grid(kernel, args.grid, args.block, shared, vectors);
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

Stage stage6_lane_replicated_row() {
    Stage row("6", "lane_replicated",
              "stage 5 with 32 sub-histograms, copy = lane, laid out so every lane hits its own "
              "bank");
    row.launch = launch_lane_replicated;
    return row;
}

}  // namespace histogram::rows
