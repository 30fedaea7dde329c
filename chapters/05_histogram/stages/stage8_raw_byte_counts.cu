// Stage 8 (beyond the book) - count raw byte values, map them to bins once at the end.
//
// Changed from stage 7: the per-byte work no longer depends on the binning. Every byte goes to
// its own counter (256 of them, lane-replicated as in stage 6), and only when a block merges
// do the 256 byte counts become bins: byte value v adds its total to bin_of(v), or nowhere when
// v is not counted. This is CUB's trick for 8-bit samples. Why it should be faster: the
// measurements of stages 5-7 showed letters slower than bytes on the same data, because the
// letter test and the bin arithmetic (subtract, compare, multiply, shift) cost more integer
// instructions per byte than the shared-memory atomic itself (ncu: 14 instructions per byte for
// letters in stage 5, 4.8 for bytes). An SM issues at most four warp instructions per clock, so
// at 2.7 TB/s of input the whole GPU can spend only about 12 instructions per byte. Counting raw
// bytes needs two (extract the byte, form the address) besides the atomic. Prediction: letters as
// fast as bytes (about 0.10 ms at 2^28), bytes unchanged from stage 7 (for --bins bytes the two
// stages do the same work).
#include "device_common.cuh"

namespace histogram {

namespace {

constexpr int kCopies = detail::kLaneCopies;  // one per lane of a warp (= shared-memory banks)
constexpr int kValues = 256;                  // one counter per byte value
constexpr int kVectorsPerThread = 4;

// Counts every byte, whatever the binning: the binning only appears in the merge.
struct EveryByte {
    __device__ bool counts(unsigned) const { return true; }
    __device__ unsigned bin(unsigned c) const { return c; }
};

template <typename Bins>
__global__ void raw_byte_counts_kernel(const unsigned char* __restrict__ input, std::size_t n,
                                       unsigned int* histo, Bins bins) {
    __shared__ unsigned int copies_s[kValues * kCopies];  // 32 KiB: [byte value][lane]
    for (int i = threadIdx.x; i < kValues * kCopies; i += blockDim.x) {
        copies_s[i] = 0;
    }
    __syncthreads();

    const unsigned lane = threadIdx.x % kCopies;
    unsigned int* const mine = copies_s + lane;
    const auto count = [&](unsigned value) { atomicAdd(&mine[value * kCopies], 1u); };
    const EveryByte every_byte;
    detail::count_input_coarsened<kVectorsPerThread>(input, n, every_byte, count);
    __syncthreads();

    // The binning, once per byte value per block: letters add 26 of the 256 totals to their
    // bins (several values to one bin), bytes all 256 one to one.
    for (int value = threadIdx.x; value < kValues; value += blockDim.x) {
        if (!bins.counts(static_cast<unsigned>(value))) {
            continue;
        }
        const unsigned int total = detail::sum_lane_copies(copies_s, value, lane);
        if (total != 0) {
            atomicAdd(&histo[bins.bin(static_cast<unsigned>(value))], total);
        }
    }
}

}  // namespace

LaunchShape launch_raw_byte_counts(const StageArgs& args, cudaStream_t stream) {
    detail::clear_histogram(args, stream);
    LaunchShape shape{0, args.block};
    if (args.n == 0) {
        return shape;
    }
    const std::size_t vectors = detail::split_for_vectors(args.input, args.n).vectors;
    const std::size_t tiles_of_one_thread = (vectors + kVectorsPerThread - 1) / kVectorsPerThread;
    detail::with_bins(args.binning, [&](auto bins) {
        const auto kernel = raw_byte_counts_kernel<decltype(bins)>;
        shape.grid = detail::resolve_grid(kernel, args.grid, args.block, 0, tiles_of_one_thread);
        kernel<<<shape.grid, args.block, 0, stream>>>(args.input, args.n, args.histogram, bins);
        CT_CHECK_LAUNCH();
    });
    return shape;
}

}  // namespace histogram
