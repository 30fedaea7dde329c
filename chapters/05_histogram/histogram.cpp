// Host side of Chapter 5: binnings, generated and file inputs, the CPU reference, the
// comparison. The stage list is the rows at the end of stages/stage[0-9]*.cu, collected by the
// build (cmake/StageList.cmake): a new stage is one new file.
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

const std::vector<Stage>& stages() {
    return rows::stage_list();
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

ct::StageDescriptor descriptor_for(const Stage& stage, const Binning& binning) {
    ct::StageDescriptor descriptor = stage;
    if (stage.row_name != nullptr) {
        descriptor.name = stage.row_name(binning);
    }
    return descriptor;
}

}  // namespace histogram
