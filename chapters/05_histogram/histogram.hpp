/// @file histogram.hpp
/// @brief Chapter 5's host API: binnings, inputs (generated or read from a file), the CPU
/// reference, the comparison that counts lost updates, and the stage list that the executable,
/// the tests and the README share.
///
/// Every kernel is reached through a plain host function (Stage::launch); no `<<< >>>` outside
/// the .cu files. A launch computes the whole histogram from scratch: it clears its own output
/// first (the seed's host code never zeroed it, so a second run would have added to the first).
/// @code
///   const histogram::Binning binning = histogram::Binning::letters(4);   // 7 bins
///   const auto host = histogram::generate_input(histogram::Distribution::kUniform, n, seed);
///   const histogram::Histogram expected = histogram::reference_histogram(host, binning);
///   histogram::Workspace workspace;
///   histogram::StageArgs args{d_input, n, d_bins, binning, 256, 0, &workspace};
///   histogram::find_stage("6")->launch(args, stream);
/// @endcode
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cudatutorial/stage.hpp"

#include "bin_math.hpp"
#include "cudatutorial/device_buffer.hpp"

namespace histogram {

/// One count per bin. 32-bit counters: inputs are limited to kMaxInputBytes so none overflows.
using Histogram = std::vector<unsigned int>;

/// The largest input the chapter accepts: every count fits a 32-bit unsigned counter.
inline constexpr std::uint64_t kMaxInputBytes = 0xFFFFFFFFull;

/// How a byte maps to a bin.
struct Binning {
    enum class Kind {
        kLetters,  ///< 'a'..'z' in groups of `width`; every other byte is ignored (the seed's)
        kBytes,    ///< 256 bins, one per byte value (the classic image/byte histogram)
    };
    Kind kind = Kind::kLetters;
    int width = 4;  ///< letters per bin (1..26); unused for kBytes

    /// Lowercase letters in groups of `width` (1..26): ceil(26 / width) bins. Throws
    /// std::invalid_argument for a width outside 1..26.
    static Binning letters(int width);
    /// 256 bins, one per byte value.
    static Binning bytes();

    /// Number of bins: ceil(26 / width) for letters, 256 for bytes.
    int bins() const;
    /// The bin of byte `c`, or -1 when the byte is not counted (a non-letter under kLetters).
    int bin_of(unsigned char c) const;
    /// A bin's label: "a-d", "y-z", "e" for letters; "0x41" for bytes.
    std::string label(int bin) const;
    /// "letters, width 4 (7 bins)" or "bytes (256 bins)".
    std::string describe() const;
    /// The same bins: the same kind and, for letters, the same width.
    bool operator==(const Binning& other) const;
};

/// Generated inputs (--dist).
enum class Distribution {
    kUniform,      ///< uniform random lowercase letters (the seed's input)
    kSkewed,       ///< letters with English letter frequencies ('e' 12.7%, ..., 'z' 0.07%)
    kRuns,         ///< runs of one random letter, run lengths uniform in [1, kMaxRunLength]
    kOneLetter,    ///< every byte 'a': the worst contention for every bin-per-atomic kernel
    kRandomBytes,  ///< uniform random bytes 0..255 (about 10% of them lowercase letters)
};

/// Longest run of the kRuns distribution (mean about 64 Ki bytes).
inline constexpr std::size_t kMaxRunLength = std::size_t{1} << 17;

/// Every distribution, in the order above.
const std::vector<Distribution>& all_distributions();
/// "uniform", "skewed", "runs", "one-letter", "random-bytes".
std::string distribution_name(Distribution distribution);
/// The inverse of distribution_name; throws std::invalid_argument for an unknown name.
Distribution parse_distribution(const std::string& name);

/// n bytes of `distribution`, deterministic for a given seed. A shorter input is a prefix of a
/// longer one with the same seed (the tests rely on it).
std::vector<unsigned char> generate_input(Distribution distribution, std::size_t n,
                                          std::uint64_t seed);

/// The English letter frequencies of Distribution::kSkewed, in 1/100000, 'a' to 'z' (the
/// streamed path regenerates that input chunk by chunk from them: streamed_source.cpp).
const std::vector<std::uint32_t>& english_letter_frequencies();

/// The whole file at `path`, read in binary. An empty file gives an empty vector. Throws
/// cudatutorial::UsageError (exit code 2) naming the file and the reason when it does not exist,
/// is not a regular file, cannot be read, or is larger than kMaxInputBytes.
std::vector<unsigned char> read_input_file(const std::string& path);

/// The seed's sequential loop, one byte after another: the definition of the right answer.
Histogram sequential_histogram(const unsigned char* data, std::size_t n, const Binning& binning);

/// The CPU reference used by the executable and the tests: sequential_histogram over slices of
/// the input on several host threads, partial histograms summed (the same counts, faster).
Histogram reference_histogram(const unsigned char* data, std::size_t n, const Binning& binning);
inline Histogram reference_histogram(const std::vector<unsigned char>& data,
                                     const Binning& binning) {
    return reference_histogram(data.data(), data.size(), binning);
}

/// Sum of all counts (64-bit: a racy result may be anything).
std::uint64_t total_count(const Histogram& histogram);

/// How a GPU histogram differs from the reference.
struct Comparison {
    bool equal = false;               ///< same number of bins and every bin equal
    std::size_t mismatched_bins = 0;  ///< bins whose counts differ
    /// reference total - result total: the updates a race lost (negative if the result counted
    /// too much, e.g. from an output that was not cleared).
    std::int64_t counts_lost = 0;
    std::string detail;  ///< empty when equal; else the first mismatching bins and counts lost
};

/// Compares bin by bin; `binning` only labels the bins in the detail text.
Comparison compare_histograms(const Histogram& reference, const Histogram& result,
                              const Binning& binning);

/// compare_histograms with any bin labels (`bin_label(b)` names bin b in the detail): the
/// comparison behind every histogram check, byte bins and 16-bit bins alike.
Comparison compare_counts(const Histogram& reference, const Histogram& result,
                          const std::function<std::string(int)>& bin_label);

/// CUB's temporary storage for one problem (the byte and the wide baselines both use it),
/// allocated on first use, outside the timed runs (the harness validates one run before it
/// starts timing). Its size is asked for once per problem: a query costs host time, and host
/// time before a launch shows up in the timed interval.
struct CubTempStorage {
    cudatutorial::DeviceBuffer<unsigned char> buffer;
    std::size_t bytes = 0;    ///< the size CUB asked for (at least 1)
    std::size_t query_n = 0;  ///< the problem it was asked for: the samples,
    int query_bins = -1;      ///< and a key of the bins
};

/// What a stage keeps between its launches on one device: CUB's temporary storage and bin
/// boundaries, and stage 8's candidate.
struct Workspace {
    CubTempStorage cub_temp;                     ///< CUB's temporary storage
    cudatutorial::DeviceBuffer<int> cub_levels;  ///< bin boundaries for HistogramRange
    std::vector<int> cub_levels_host;            ///< what cub_levels holds
    /// Stage 8's candidate (an index into kRawCountVariants, stages/raw_count_candidates.hpp) for
    /// the binning `raw_count_binning`. Whoever runs stage 8 may choose it first (the executable
    /// stores its tuning pass's choice here, before the table); left at -1, or chosen for
    /// another binning, it is derived from the device's figures by the next launch and kept, so
    /// that the launches after it do not derive it again.
    int raw_count_variant = -1;
    Binning raw_count_binning;  ///< the binning raw_count_variant was chosen for
};

/// Everything a stage's launch needs.
struct StageArgs {
    const unsigned char* input = nullptr;  ///< device pointer to n bytes (any alignment)
    std::size_t n = 0;                     ///< input bytes; 0 gives an all-zero histogram
    unsigned int* histogram = nullptr;     ///< device pointer to binning.bins() counters
    Binning binning;
    /// Threads per block, 1..1024: every stage but the race counts correctly with any block and
    /// grid (the executable accepts powers of two from 32). CUB ignores it.
    int block = 256;
    int grid = 0;  ///< blocks; 0 = automatic (enough to fill the GPU, no more than the work)
    /// Needed by CUB; stage 8 keeps its candidate there (without one it derives it every launch).
    Workspace* workspace = nullptr;
};

/// The launch configuration a stage actually used.
struct LaunchShape {
    int grid = 0;   ///< blocks of the main kernel (0 for CUB: it chooses its own)
    int block = 0;  ///< threads per block
    /// The library that chose its own grid and block ("CUB"), or null.
    const char* chosen_by = nullptr;
    /// "1056 x 256" (grid x block), or "CUB's own" where a library chose.
    std::string describe() const;
};

/// What a stage's row says beyond its launcher.
struct StageNeeds {
    /// Global-memory atomics: about 4-200 ms each at 2^28 bytes on the H100, so the executable
    /// times them with fewer repetitions (the table says how many).
    bool slow = false;
    /// The name of its table row for a binning, for a stage that makes a different call for
    /// different binnings (CUB: cub_call_name); null: `name`, whatever the binning.
    std::string (*row_name)(const Binning& binning) = nullptr;
};

/// One row of the chapter's table, at the end of its stage's file (cudatutorial::StageRow). Its
/// launcher clears the output and computes the histogram of args.input on `stream`
/// (asynchronous), and returns the launch configuration used. A stage with uses_tuner (stage 8)
/// runs one of the compiled candidates of stages/raw_count_candidates.hpp, chosen for the GPU and
/// the binning: the executable runs the tuning pass before its table and hands the choice over in
/// the Workspace.
using Stage =
    cudatutorial::StageRow<StageNeeds, LaunchShape (*)(const StageArgs& args, cudaStream_t stream)>;

/// The stage as its table row shows it for `binning`: its descriptor, named by row_name.
cudatutorial::StageDescriptor descriptor_for(const Stage& stage, const Binning& binning);

/// Every stage in table order: 1, 2, race, 3, 4, 5, 6, 7, 8, cub; the rows of stages/stage[0-9]*.cu
/// in file-name order (stage2x, the race, after stage 2), then CUB's, collected by the build.
const std::vector<Stage>& stages();
/// The stage with this id or name, or nullptr.
const Stage* find_stage(const std::string& id_or_name);

/// Stage 8 (stages/stage8_raw_byte_counts.cu) with the candidate args.workspace holds, else the
/// one derived for the current device, which the workspace then keeps
/// (stages/raw_count_choice.hpp: raw_count_variant_for). The tests call it directly.
LaunchShape launch_raw_byte_counts(const StageArgs& args, cudaStream_t stream);

namespace rows {
/// The stage list, generated by the build from the rows at the end of stages/stage[0-9]*.cu and
/// stages/histogram_cub_baseline.cu (cmake/StageList.cmake); stages() returns it.
const std::vector<Stage>& stage_list();
}  // namespace rows

/// Whether CUB's row uses HistogramEven (every bin as wide as the others) or HistogramRange (the
/// letters' last bin is narrower, e.g. "y-z" with width 4, which HistogramEven cannot express).
bool cub_uses_histogram_even(const Binning& binning);
/// The call CUB's row makes for `binning`, which names the row: "cub_histogram_even" or
/// "cub_histogram_range".
std::string cub_call_name(const Binning& binning);

/// What one thread's chain of dependent global atomics costs (atomic_latency_probe.cu).
struct AtomicLatency {
    double same_address_ns = 0;       ///< one address, always in L2
    double same_address_cycles = 0;   ///< the same in SM clock cycles (clock64)
    double scattered_ns = 0;          ///< addresses spread over a buffer much larger than L2
    double scattered_cycles = 0;      ///< the same in SM clock cycles
    std::size_t scattered_bytes = 0;  ///< size of that buffer
    int iterations = 0;               ///< dependent atomics per measurement
    double shared_atomic_ns = 0;      ///< one shared-memory counter (the SM's own ATOMS)
    double shared_atomic_cycles = 0;  ///< the same in SM clock cycles
    double shared_load_ns = 0;        ///< a chain of plain shared loads, for comparison
    double shared_load_cycles = 0;    ///< the same in SM clock cycles
};

/// Runs one thread issuing `iterations` atomicAdds, each depending on the previous one's result,
/// so that nothing overlaps: the time per atomic is its latency (the seed's model of atomic
/// throughput); then the same chain on a shared-memory counter (16 times as long), and a chain of
/// plain shared loads as the baseline of a shared access. Uses the current device.
AtomicLatency measure_atomic_latency(int iterations = 4096);

}  // namespace histogram
