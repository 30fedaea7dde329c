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
//
// The launch: the histogram must be zero before the first block merges into it, but no block
// touches it before its merge, at the very end. So the clear is a one-block kernel that first
// lets the stream's next kernel be scheduled (programmatic dependent launch, chapter 6), and the
// count waits for it (cudaGridDependencySynchronize) only just before merging: the clear and the
// count's launch overlap instead of following each other, which takes most of a launch gap out of
// every call (H100, 2^28 random bytes: 0.0946 ms before, 0.0940 and 0.0939 ms in two runs after).
// Before compute capability 9.0 the two launches simply follow each other (a memset, then the
// count).
//
// Adaptive: the kernel above is candidate 0 of a few (raw_count_candidates.hpp). With at most 8
// bins a thread can keep its counts in registers (../adaptive_register_counts.cuh) and needs no
// atomic per byte, which is what binds on an H200; the next loads can be issued before the
// current bytes are counted (pipelined). Which candidate runs is derived from the device's
// figures and the binning, or measured by a short tuning pass that the executable runs, reports
// in its header and hands to this stage in its Workspace.
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "adaptive_register_counts.cuh"
#include "cudatutorial/programmatic_launch.cuh"
#include "histogram_device.cuh"
#include "raw_count_candidates.hpp"
#include "raw_count_choice.hpp"

namespace histogram {

namespace {

constexpr int kCopies = detail::kLaneCopies;  // one per lane of a warp (= shared-memory banks)
constexpr int kValues = 256;                  // one counter per byte value

// Counts every byte, whatever the binning: the binning only appears in the merge.
struct EveryByte {
    __device__ bool counts(unsigned) const { return true; }
    __device__ unsigned bin(unsigned c) const { return c; }
};

template <int kLoads, bool kPipelined, typename Bins>
__global__ void __launch_bounds__(1024)
    raw_byte_counts_kernel(const unsigned char* __restrict__ input, std::size_t n,
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
    if constexpr (kPipelined) {
        const detail::VectorSplit split = detail::split_for_vectors(input, n);
        detail::stream_vectors_pipelined<kLoads>(
            reinterpret_cast<const uint4*>(input + split.head), split.vectors,
            [&](const uint4& v) { detail::count_vector(v, every_byte, count); });
        const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
        detail::count_leftovers(input, n, split, thread, threads, every_byte, count);
    } else {
        detail::count_input_coarsened<kLoads>(input, n, every_byte, count);
    }
    __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // The clear launched just before this kernel has finished and its zeros are visible (see the
    // file comment); launched the ordinary way, this returns at once.
    cudaGridDependencySynchronize();
#endif

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

// Zeroes the histogram, having first let the stream's next kernel start (see the file comment).
__global__ void clear_then_release_kernel(unsigned int* histo, int bins) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
    for (int i = threadIdx.x; i < bins; i += blockDim.x) {
        histo[i] = 0;
    }
}

// The clear, then `kernel`, which waits for it before touching the histogram: overlapped where
// the device allows, one after the other elsewhere.
template <typename Kernel, typename... KernelArgs>
void clear_then_launch(const StageArgs& args, Kernel kernel, int grid, cudaStream_t stream,
                       KernelArgs... kernel_args) {
    if (!cudatutorial::current_device_has_programmatic_launch()) {
        detail::clear_histogram(args, stream);
        kernel<<<grid, args.block, 0, stream>>>(kernel_args...);
        return;
    }
    clear_then_release_kernel<<<1, 256, 0, stream>>>(args.histogram, args.binning.bins());
    CT_CHECK_LAUNCH();
    cudatutorial::launch_programmatic(kernel, dim3(static_cast<unsigned>(grid)),
                                      dim3(static_cast<unsigned>(args.block)), stream,
                                      kernel_args...);
}

/// Launches candidate kIndex of adaptive::kRawCountVariants (the host has checked that it applies).
template <int kIndex>
void launch_candidate(const StageArgs& args, std::size_t vectors, cudaStream_t stream,
                      LaunchShape& shape) {
    using adaptive::Counters;
    constexpr int kLoads = adaptive::kRawCountVariants[kIndex].loads;
    const std::size_t tiles_of_one_thread = (vectors + kLoads - 1) / kLoads;
    detail::with_bins(args.binning, [&](auto bins) {
        using Bins = decltype(bins);
        constexpr adaptive::RawCountVariant kV = adaptive::kRawCountVariants[kIndex];
        if constexpr (kV.counters == Counters::kSharedAtomics) {
            const auto kernel = raw_byte_counts_kernel<kV.loads, kV.pipelined, Bins>;
            shape.grid =
                detail::resolve_grid(kernel, args.grid, args.block, 0, tiles_of_one_thread);
            clear_then_launch(args, kernel, shape.grid, stream, args.input, args.n, args.histogram,
                              bins);
        } else if constexpr (std::is_same_v<Bins, detail::LetterBins>) {
            const auto kernel = detail::register_nibble_counts_kernel<kV.loads, Bins>;
            shape.grid =
                detail::resolve_grid(kernel, args.grid, args.block, 0, tiles_of_one_thread);
            detail::clear_histogram(args, stream);  // this kernel does not wait: clear first
            kernel<<<shape.grid, args.block, 0, stream>>>(args.input, args.n, args.histogram,
                                                          args.binning.bins(), bins);
        }
    });
}

/// Calls launch_candidate<V> for V == variant: every candidate is compiled.
template <int... kIndices>
void launch_candidate_in(int variant, const StageArgs& args, std::size_t vectors,
                         cudaStream_t stream, LaunchShape& shape,
                         std::integer_sequence<int, kIndices...>) {
    ((variant == kIndices ? launch_candidate<kIndices>(args, vectors, stream, shape) : void()),
     ...);
}

}  // namespace

namespace adaptive {

std::string describe_variant(int variant) {
    if (variant < 0 || variant >= kRawCountVariantCount) {
        return "unknown candidate " + std::to_string(variant);
    }
    const RawCountVariant& v = kRawCountVariants[variant];
    return std::string(v.counters == Counters::kSharedAtomics ? "shared atomics"
                                                              : "register nibbles") +
           ", " + std::to_string(v.loads) + " loads" + (v.pipelined ? ", pipelined" : "");
}

bool variant_applies(int variant, const Binning& binning) {
    if (variant < 0 || variant >= kRawCountVariantCount) {
        return false;
    }
    return kRawCountVariants[variant].counters == Counters::kSharedAtomics ||
           binning.bins() <= kMaxRegisterBins;
}

}  // namespace adaptive

LaunchShape adaptive::launch_raw_byte_counts_variant(const StageArgs& args, int variant,
                                                     cudaStream_t stream) {
    if (!variant_applies(variant, args.binning)) {
        throw std::invalid_argument("stage 8: candidate " + std::to_string(variant) + " (" +
                                    describe_variant(variant) + ") cannot count " +
                                    args.binning.describe());
    }
    LaunchShape shape{0, args.block};
    if (args.n == 0) {
        detail::clear_histogram(args, stream);
        return shape;
    }
    const std::size_t vectors = detail::split_for_vectors(args.input, args.n).vectors;
    launch_candidate_in(variant, args, vectors, stream, shape,
                        std::make_integer_sequence<int, adaptive::kRawCountVariantCount>{});
    CT_CHECK_LAUNCH();
    return shape;
}

// Stage 8 as the list runs it: the candidate the workspace holds, else the one derived for the
// device (stages/raw_count_choice.hpp).
LaunchShape launch_raw_byte_counts(const StageArgs& args, cudaStream_t stream) {
    return adaptive::launch_raw_byte_counts_variant(args, adaptive::raw_count_variant_for(args),
                                                    stream);
}

}  // namespace histogram

// The stage's row in the stage list (histogram.hpp): the build collects it from this file.
namespace histogram::rows {

Stage stage8_raw_byte_counts_row() {
    Stage row("8", "raw_byte_counts",
              "stage 7 counting the 256 raw byte values; the binning is applied once, at the "
              "merge");
    row.launch = launch_raw_byte_counts;
    row.uses_tuner = true;
    return row;
}

}  // namespace histogram::rows
