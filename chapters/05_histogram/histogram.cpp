// Host side of Chapter 5: binnings, generated and file inputs, the CPU reference, the
// comparison, and the stage list (the kernels are in stages/*.cu).
#include "histogram.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "cudatutorial/check.hpp"
#include "cudatutorial/data.hpp"
#include "stages/raw_count_choice.hpp"

namespace histogram {

namespace ct = cudatutorial;

// ---------------------------------------------------------------------------------------------
// Binnings

Binning Binning::letters(int width) {
    if (width < 1 || width > static_cast<int>(kLetters)) {
        throw std::invalid_argument("letter bin width " + std::to_string(width) +
                                    " is out of range: it must be from 1 to 26");
    }
    return Binning{Kind::kLetters, width};
}

Binning Binning::bytes() {
    return Binning{Kind::kBytes, 1};
}

int Binning::bins() const {
    return kind == Kind::kBytes ? 256 : (static_cast<int>(kLetters) + width - 1) / width;
}

int Binning::bin_of(unsigned char c) const {
    if (kind == Kind::kBytes) {
        return c;
    }
    const int position = c - 'a';
    return position >= 0 && position < static_cast<int>(kLetters) ? position / width : -1;
}

std::string Binning::label(int bin) const {
    if (kind == Kind::kBytes) {
        char text[8];
        std::snprintf(text, sizeof text, "0x%02x", bin);
        return text;
    }
    const char first = static_cast<char>('a' + bin * width);
    const char last = static_cast<char>(std::min<int>('z', first + width - 1));
    return first == last ? std::string(1, first) : std::string{first, '-', last};
}

bool Binning::operator==(const Binning& other) const {
    return kind == other.kind && (kind == Kind::kBytes || width == other.width);
}

std::string Binning::describe() const {
    if (kind == Kind::kBytes) {
        return "bytes (256 bins)";
    }
    return "letters, width " + std::to_string(width) + " (" + std::to_string(bins()) + " bins)";
}

// ---------------------------------------------------------------------------------------------
// Inputs

namespace {
const ct::NameTable<Distribution>& distributions() {
    static const ct::NameTable<Distribution> table = {{Distribution::kUniform, "uniform"},
                                                      {Distribution::kSkewed, "skewed"},
                                                      {Distribution::kRuns, "runs"},
                                                      {Distribution::kOneLetter, "one-letter"},
                                                      {Distribution::kRandomBytes, "random-bytes"}};
    return table;
}
}  // namespace

const std::vector<Distribution>& all_distributions() {
    static const std::vector<Distribution> all = distributions().values();
    return all;
}

std::string distribution_name(Distribution distribution) {
    return distributions().name(distribution);
}

Distribution parse_distribution(const std::string& name) {
    return distributions().parse(name, "distribution");
}

namespace {

// English letter frequencies in 1/100000 (Lewand's table, the one most textbooks print).
constexpr std::array<std::uint32_t, kLetters> kEnglishFrequency = {
    8167, 1492, 2782, 4253, 12702, 2228, 2015, 6094, 6966, 153,  772, 4025, 2406,
    6749, 7507, 1929, 95,   5987,  6327, 9056, 2758, 978,  2360, 150, 1974, 74};

std::vector<unsigned char> english_like(std::size_t n, std::uint64_t seed) {
    std::array<std::uint32_t, kLetters> cumulative{};
    std::uint32_t total = 0;
    for (std::size_t i = 0; i < kLetters; ++i) {
        total += kEnglishFrequency[i];
        cumulative[i] = total;
    }
    std::vector<unsigned char> data(n);
    ct::parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const std::uint32_t draw = ct::bounded(ct::hash64(seed, i), total);
            const auto letter =
                std::upper_bound(cumulative.begin(), cumulative.end(), draw) - cumulative.begin();
            data[i] = static_cast<unsigned char>('a' + letter);
        }
    });
    return data;
}

std::vector<unsigned char> runs_of_letters(std::size_t n, std::uint64_t seed) {
    std::vector<unsigned char> data(n);
    std::size_t position = 0;
    for (std::uint64_t run = 0; position < n; ++run) {
        const std::size_t length =
            1 + ct::bounded(ct::hash64(seed, 2 * run), static_cast<std::uint32_t>(kMaxRunLength));
        const auto letter =
            static_cast<unsigned char>('a' + ct::bounded(ct::hash64(seed, 2 * run + 1), kLetters));
        const std::size_t end = std::min(n, position + length);
        std::fill(data.begin() + static_cast<std::ptrdiff_t>(position),
                  data.begin() + static_cast<std::ptrdiff_t>(end), letter);
        position = end;
    }
    return data;
}

}  // namespace

const std::vector<std::uint32_t>& english_letter_frequencies() {
    static const std::vector<std::uint32_t> table(kEnglishFrequency.begin(),
                                                  kEnglishFrequency.end());
    return table;
}

std::vector<unsigned char> generate_input(Distribution distribution, std::size_t n,
                                          std::uint64_t seed) {
    switch (distribution) {
        case Distribution::kUniform:
            return ct::random_lowercase(n, seed);
        case Distribution::kSkewed:
            return english_like(n, seed);
        case Distribution::kRuns:
            return runs_of_letters(n, seed);
        case Distribution::kOneLetter:
            return std::vector<unsigned char>(n, 'a');
        case Distribution::kRandomBytes:
            return ct::random_bytes(n, seed);
    }
    throw std::invalid_argument("generate_input: unknown distribution");
}

std::vector<unsigned char> read_input_file(const std::string& path) {
    namespace fs = std::filesystem;
    const auto fail = [&](const std::string& why) {
        return ct::UsageError("--input", "cannot read '" + path + "': " + why);
    };
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (error || !fs::exists(status)) {
        throw fail(error ? error.message() : "no such file");
    }
    if (!fs::is_regular_file(status)) {
        throw fail("not a regular file");
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw fail(std::strerror(errno));
    }
    file.seekg(0, std::ios::end);
    const std::streamoff size = file.tellg();
    if (size < 0) {
        throw fail("cannot tell its size");
    }
    if (static_cast<std::uint64_t>(size) > kMaxInputBytes) {
        throw fail("it has " + std::to_string(size) + " bytes; at most " +
                   std::to_string(kMaxInputBytes) + " fit 32-bit counters");
    }
    file.seekg(0, std::ios::beg);
    std::vector<unsigned char> data(static_cast<std::size_t>(size));
    if (size > 0 && !file.read(reinterpret_cast<char*>(data.data()), size)) {
        throw fail("read error");
    }
    return data;
}

// ---------------------------------------------------------------------------------------------
// The CPU reference

Histogram sequential_histogram(const unsigned char* data, std::size_t n, const Binning& binning) {
    Histogram counts(static_cast<std::size_t>(binning.bins()), 0u);
    for (std::size_t i = 0; i < n; ++i) {
        const int bin = binning.bin_of(data[i]);
        if (bin >= 0) {
            ++counts[static_cast<std::size_t>(bin)];
        }
    }
    return counts;
}

Histogram reference_histogram(const unsigned char* data, std::size_t n, const Binning& binning) {
    Histogram total(static_cast<std::size_t>(binning.bins()), 0u);
    std::mutex mutex;
    ct::parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        const Histogram part = sequential_histogram(data + begin, end - begin, binning);
        const std::lock_guard<std::mutex> lock(mutex);
        for (std::size_t b = 0; b < total.size(); ++b) {
            total[b] += part[b];
        }
    });
    return total;
}

std::uint64_t total_count(const Histogram& histogram) {
    std::uint64_t total = 0;
    for (const unsigned int count : histogram) {
        total += count;
    }
    return total;
}

Comparison compare_counts(const Histogram& reference, const Histogram& result,
                          const std::function<std::string(int)>& bin_label) {
    Comparison comparison;
    comparison.counts_lost = static_cast<std::int64_t>(total_count(reference)) -
                             static_cast<std::int64_t>(total_count(result));
    if (reference.size() != result.size()) {
        comparison.mismatched_bins = std::max(reference.size(), result.size());
        comparison.detail = "expected " + std::to_string(reference.size()) + " bins, got " +
                            std::to_string(result.size());
        return comparison;
    }
    std::ostringstream first;
    for (std::size_t b = 0; b < reference.size(); ++b) {
        if (reference[b] != result[b]) {
            if (comparison.mismatched_bins < 3) {
                first << (comparison.mismatched_bins ? ", " : "") << bin_label(static_cast<int>(b))
                      << " " << result[b] << " instead of " << reference[b];
            }
            ++comparison.mismatched_bins;
        }
    }
    comparison.equal = comparison.mismatched_bins == 0;
    if (!comparison.equal) {
        std::ostringstream detail;
        detail << comparison.mismatched_bins << " of " << reference.size() << " bins wrong ("
               << first.str() << (comparison.mismatched_bins > 3 ? ", ..." : "") << "); ";
        const std::uint64_t expected = total_count(reference);
        if (comparison.counts_lost >= 0) {
            char percent[32];
            std::snprintf(percent, sizeof percent, "%.2f%%",
                          expected ? 100.0 * static_cast<double>(comparison.counts_lost) /
                                         static_cast<double>(expected)
                                   : 0.0);
            detail << comparison.counts_lost << " of " << expected << " counts lost (" << percent
                   << ")";
        } else {
            detail << -comparison.counts_lost << " counts too many";
        }
        comparison.detail = detail.str();
    }
    return comparison;
}

Comparison compare_histograms(const Histogram& reference, const Histogram& result,
                              const Binning& binning) {
    return compare_counts(reference, result,
                          [&binning](int bin) { return "'" + binning.label(bin) + "'"; });
}

// ---------------------------------------------------------------------------------------------
// The stage list

namespace {

/// One row of the stage list, written field by field with each field named (C++17 has no
/// designated initializers): `stage("3", "privatized_shared").idea(...).launcher(...)`. A field
/// left out keeps the default: a step of the progression, timed with the options' repetitions,
/// one launch that needs no tuning pass.
class StageRow {
  public:
    StageRow(std::string id, std::string name) {
        stage_.id = std::move(id);
        stage_.name = std::move(name);
    }
    /// What changed from the previous stage, in one line (the table and --stage list show it).
    StageRow& idea(std::string text) {
        stage_.idea = std::move(text);
        return *this;
    }
    /// The host function in the stage's file that clears the output and launches the kernel.
    StageRow& launcher(LaunchShape (*launch)(const StageArgs&, cudaStream_t)) {
        stage_.launch = launch;
        return *this;
    }
    /// One global atomic per byte, 4-200 ms at 2^28: timed with --slow-reps.
    StageRow& slow() {
        stage_.slow = true;
        return *this;
    }
    /// Runs the candidate a tuning pass chooses for the GPU and the binning: the executable runs
    /// the pass before its table (Stage::uses_tuner).
    StageRow& tuned_candidates() {
        stage_.uses_tuner = true;
        return *this;
    }
    /// The name of its table row for a binning, where it differs from the stage's name.
    StageRow& row_name(std::string (*name_for)(const Binning&)) {
        stage_.row_name = name_for;
        return *this;
    }
    /// Its role in the table (a progression step unless said otherwise).
    StageRow& role(ct::StageRole role) {
        stage_.role = role;
        return *this;
    }
    operator Stage() const { return stage_; }  // NOLINT(google-explicit-constructor)

  private:
    Stage stage_;
};

StageRow stage(std::string id, std::string name) {
    return StageRow(std::move(id), std::move(name));
}

}  // namespace

const std::vector<Stage>& stages() {
    static const std::vector<Stage> list = {
        stage("1", "block_partitioned_global_atomics")
            .idea("each thread counts its own contiguous section with atomicAdd on the global "
                  "histogram")
            .launcher(launch_block_partitioned)
            .slow(),
        stage("2", "interleaved_global_atomics")
            .idea("grid-stride: a warp reads 32 adjacent bytes per step (coalesced); still global "
                  "atomics")
            .launcher(launch_interleaved)
            .slow(),
        stage("race", "race_demo_plain_increment")
            .idea("stage 2 with histo[bin]++ instead of atomicAdd: read-modify-write races lose "
                  "counts")
            .launcher(launch_race_plain_increment)
            .slow()
            .role(ct::StageRole::kExpectedFailure),
        stage("3", "privatized_shared")
            .idea("one histogram per block in shared memory (fast atomics), merged with one atomic "
                  "per bin")
            .launcher(launch_privatized_shared),
        stage("4", "privatized_aggregated")
            .idea("stage 3, but a thread adds a run of equal bins with one atomic instead of one "
                  "per byte")
            .launcher(launch_privatized_aggregated),
        stage("5", "vectorized_private")
            .idea("stage 3 with 16-byte loads: a thread reads 16 bytes per load, 16x fewer load "
                  "requests")
            .launcher(launch_vectorized_private),
        stage("6", "lane_replicated")
            .idea("stage 5 with 32 sub-histograms, copy = lane, laid out so every lane hits its "
                  "own bank")
            .launcher(launch_lane_replicated),
        stage("7", "coarsened_x4")
            .idea("stage 6 with four independent 16-byte loads in flight per thread (thread "
                  "coarsening)")
            .launcher(launch_coarsened),
        stage("8", "raw_byte_counts")
            .idea("stage 7 counting the 256 raw byte values; the binning is applied once, at the "
                  "merge")
            .launcher(launch_raw_byte_counts)
            .tuned_candidates(),
        stage("cub", "cub_device_histogram")
            .idea("CUB DeviceHistogram (HistogramEven; HistogramRange when the last letter bin is "
                  "narrower)")
            .launcher(launch_cub_histogram)
            .row_name(cub_call_name)
            .role(ct::StageRole::kBaseline),
    };
    return list;
}

// Stage 8 as the list runs it: the choice of candidate is made here, so that the stage file
// holds the kernels and their launch, and nothing from measuring/.
LaunchShape launch_raw_byte_counts(const StageArgs& args, cudaStream_t stream) {
    return adaptive::launch_raw_byte_counts_variant(args, adaptive::raw_count_variant_for(args),
                                                    stream);
}

const Stage* find_stage(const std::string& id_or_name) {
    return cudatutorial::find_stage_in(stages(), id_or_name);
}

bool cub_uses_histogram_even(const Binning& binning) {
    return binning.kind == Binning::Kind::kBytes || kLetters % binning.width == 0;
}

std::string cub_call_name(const Binning& binning) {
    return cub_uses_histogram_even(binning) ? "cub_histogram_even" : "cub_histogram_range";
}

std::string LaunchShape::describe() const {
    return chosen_by != nullptr ? std::string(chosen_by) + "'s own"
                                : std::to_string(grid) + " x " + std::to_string(block);
}

ct::StageDescriptor Stage::descriptor_for(const Binning& binning) const {
    ct::StageDescriptor descriptor = *this;
    if (row_name != nullptr) {
        descriptor.name = row_name(binning);
    }
    return descriptor;
}

}  // namespace histogram
