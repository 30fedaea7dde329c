// Generated inputs and the file reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "cudatutorial/check.hpp"
#include "histogram.hpp"

namespace hg = histogram;

namespace {

std::array<std::size_t, 256> byte_counts(const std::vector<unsigned char>& data) {
    std::array<std::size_t, 256> counts{};
    for (const unsigned char c : data) {
        ++counts[c];
    }
    return counts;
}

std::string temp_path(const std::string& name) {
    return ::testing::TempDir() + "histogram_" + name;
}

}  // namespace

TEST(HistogramInput, DistributionNamesRoundTrip) {
    for (const hg::Distribution d : hg::all_distributions()) {
        EXPECT_EQ(hg::parse_distribution(hg::distribution_name(d)), d);
    }
    EXPECT_EQ(hg::distribution_name(hg::Distribution::kOneLetter), "one-letter");
    EXPECT_THROW(hg::parse_distribution("zipfian"), std::invalid_argument);
}

TEST(HistogramInput, GeneratorsAreDeterministicAndPrefixStable) {
    for (const hg::Distribution d : hg::all_distributions()) {
        SCOPED_TRACE(hg::distribution_name(d));
        const auto small = hg::generate_input(d, 1000, 7);
        const auto large = hg::generate_input(d, 3 << 20, 7);  // several host threads
        EXPECT_EQ(small.size(), 1000u);
        EXPECT_EQ(large.size(), std::size_t{3} << 20);
        EXPECT_TRUE(std::equal(small.begin(), small.end(), large.begin()));
        EXPECT_EQ(hg::generate_input(d, 1000, 7), small);
        EXPECT_TRUE(hg::generate_input(d, 0, 7).empty());
        if (d != hg::Distribution::kOneLetter) {
            EXPECT_NE(hg::generate_input(d, 1 << 18, 8), hg::generate_input(d, 1 << 18, 7));
        }
    }
}

TEST(HistogramInput, UniformCoversEveryLetterEvenly) {
    const auto data = hg::generate_input(hg::Distribution::kUniform, 1 << 20, 1);
    const auto counts = byte_counts(data);
    for (int c = 0; c < 256; ++c) {
        if (c >= 'a' && c <= 'z') {
            EXPECT_NEAR(counts[c], (1 << 20) / 26.0, 1500) << static_cast<char>(c);
        } else {
            EXPECT_EQ(counts[c], 0u) << c;
        }
    }
}

TEST(HistogramInput, SkewedFollowsEnglishLetterFrequencies) {
    const auto data = hg::generate_input(hg::Distribution::kSkewed, 1 << 20, 1);
    const auto counts = byte_counts(data);
    EXPECT_EQ(
        std::count_if(data.begin(), data.end(), [](unsigned char c) { return c < 'a' || c > 'z'; }),
        0);
    const auto most = std::max_element(counts.begin() + 'a', counts.begin() + 'z' + 1);
    const auto least = std::min_element(counts.begin() + 'a', counts.begin() + 'z' + 1);
    EXPECT_EQ(most - counts.begin(), 'e');
    EXPECT_EQ(least - counts.begin(), 'z');
    EXPECT_NEAR(counts['e'] / double(1 << 20), 0.127, 0.005);
    EXPECT_NEAR(counts['t'] / double(1 << 20), 0.0906, 0.005);
    EXPECT_GT(counts['q'], 0u);
}

TEST(HistogramInput, RunsAreLongRunsOfOneLetter) {
    const std::size_t n = 8 << 20;
    const auto data = hg::generate_input(hg::Distribution::kRuns, n, 3);
    std::size_t runs = 1;
    std::size_t longest = 0;
    std::size_t current = 1;
    for (std::size_t i = 1; i < n; ++i) {
        if (data[i] != data[i - 1]) {
            ++runs;
            longest = std::max(longest, current);
            current = 1;
        } else {
            ++current;
        }
    }
    EXPECT_LE(longest, hg::kMaxRunLength * 2);   // two equal letters in a row may merge
    EXPECT_GT(runs, n / hg::kMaxRunLength / 2);  // mean run about kMaxRunLength / 2
    EXPECT_LT(runs, n / hg::kMaxRunLength * 4);
    EXPECT_TRUE(std::all_of(data.begin(), data.end(),
                            [](unsigned char c) { return c >= 'a' && c <= 'z'; }));
}

TEST(HistogramInput, OneLetterAndRandomBytes) {
    const auto one = hg::generate_input(hg::Distribution::kOneLetter, 4097, 1);
    EXPECT_TRUE(std::all_of(one.begin(), one.end(), [](unsigned char c) { return c == 'a'; }));
    const auto bytes = hg::generate_input(hg::Distribution::kRandomBytes, 1 << 20, 1);
    const auto counts = byte_counts(bytes);
    for (int c = 0; c < 256; ++c) {
        EXPECT_NEAR(counts[c], (1 << 20) / 256.0, 400) << c;
    }
}

TEST(HistogramInput, ReadsAFileInBinary) {
    std::vector<unsigned char> bytes;
    for (int round = 0; round < 3; ++round) {
        for (int c = 0; c < 256; ++c) {
            bytes.push_back(static_cast<unsigned char>(c));  // includes '\0', '\r', '\n', 0xff
        }
    }
    const std::string path = temp_path("binary.bin");
    {
        std::ofstream file(path, std::ios::binary);
        file.write(reinterpret_cast<const char*>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
    }
    EXPECT_EQ(hg::read_input_file(path), bytes);
    std::remove(path.c_str());
}

TEST(HistogramInput, AnEmptyFileIsAnEmptyInput) {
    const std::string path = temp_path("empty.txt");
    { std::ofstream file(path, std::ios::binary); }
    EXPECT_TRUE(hg::read_input_file(path).empty());
    std::remove(path.c_str());
}

TEST(HistogramInput, AMissingFileOrADirectoryIsAUsageError) {
    const std::string missing = temp_path("does_not_exist.txt");
    try {
        hg::read_input_file(missing);
        FAIL() << "no exception for a missing file";
    } catch (const cudatutorial::UsageError& error) {
        EXPECT_NE(std::string(error.what()).find(missing), std::string::npos) << error.what();
    }
    EXPECT_THROW(hg::read_input_file(HISTOGRAM_TEST_DIR), cudatutorial::UsageError);
    EXPECT_THROW(hg::read_input_file(""), cudatutorial::UsageError);
}
