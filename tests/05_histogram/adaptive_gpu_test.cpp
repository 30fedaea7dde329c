// GPU tests of stage 8's candidates (adaptive_counts.hpp): EVERY applicable candidate, not only
// the one a run chooses, against the CPU reference over sizes x distributions x binnings x launch
// shapes x misaligned starts, run twice on a poisoned output; one block of 8 threads over a
// large one-letter input (every count in one 4-bit field: the flushes must keep up); the
// tuning pass and that stage 8 then runs the choice handed to it; the derived choice a
// workspace keeps. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>
#include <vector>

#include "adaptive_counts.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"
#include "histogram.hpp"

namespace ct = cudatutorial;
namespace hg = histogram;
namespace ad = histogram::adaptive;
using cudatutorial::testing::sanitizing;

namespace {

struct Shape {
    int block;
    int grid;  // 0 = automatic
};

void expect_candidate_matches(int variant, const unsigned char* d_input, std::size_t n,
                              const hg::Binning& binning, const Shape& shape,
                              const hg::Histogram& expected,
                              ct::DeviceBuffer<unsigned int>& d_histogram) {
    SCOPED_TRACE("candidate " + ad::describe_variant(variant) + ", block " +
                 std::to_string(shape.block) + ", grid " + std::to_string(shape.grid));
    const hg::StageArgs args{d_input,    n,      d_histogram.data(), binning, shape.block,
                             shape.grid, nullptr};
    std::vector<unsigned int> result(static_cast<std::size_t>(binning.bins()));
    d_histogram.fill_bytes(0xff);
    for (int run = 0; run < 2; ++run) {  // the second without poison: it must not add up
        ad::launch_raw_byte_counts_variant(args, variant, nullptr);
        CT_CHECK(cudaDeviceSynchronize());
        d_histogram.copy_to_host(result.data(), result.size());
        const hg::Comparison c = hg::compare_histograms(expected, result, binning);
        ASSERT_TRUE(c.equal) << "run " << run << ": " << c.detail;
    }
}

std::vector<std::size_t> sizes() {
    if (sanitizing()) {
        return {0, 1, 17, 4099, (1u << 16) + 3};
    }
    return {0, 1, 15, 16, 17, 255, 1000, 4099, (1u << 20) + 3, (1u << 24) + 1};
}

std::vector<Shape> shapes(std::size_t n) {
    if (sanitizing()) {
        return {{256, 0}, {32, 1}, {8, 1}};
    }
    if (n <= 4099) {
        return {{256, 0}, {32, 1}, {8, 1}, {1024, 3}, {64, 0}, {128, 1000}, {1024, 0}};
    }
    return {{256, 0}, {64, 5}, {1024, 0}};
}

}  // namespace

TEST(HistogramAdaptiveGpu, EveryCandidateMatchesTheReference) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    ct::DeviceBuffer<unsigned int> d_histogram(256);
    const std::vector<hg::Binning> binnings = {hg::Binning::letters(1), hg::Binning::letters(4),
                                               hg::Binning::letters(5), hg::Binning::letters(26),
                                               hg::Binning::bytes()};
    for (const std::size_t n : sizes()) {
        for (const hg::Distribution distribution : hg::all_distributions()) {
            const auto host = hg::generate_input(distribution, n + 5, 4321 + n);
            const ct::DeviceBuffer<unsigned char> d_input(host);
            for (const std::size_t offset : {std::size_t{0}, std::size_t{5}}) {
                const std::vector<unsigned char> slice(
                    host.begin() + static_cast<long>(offset),
                    host.begin() + static_cast<long>(offset + n));
                for (const hg::Binning& binning : binnings) {
                    SCOPED_TRACE("n " + std::to_string(n) + ", offset " + std::to_string(offset) +
                                 ", " + hg::distribution_name(distribution) + ", " +
                                 binning.describe());
                    const hg::Histogram expected = hg::reference_histogram(slice, binning);
                    for (int v = 0; v < ad::kRawCountVariantCount; ++v) {
                        if (!ad::variant_applies(v, binning)) {
                            continue;
                        }
                        for (const Shape& shape : shapes(n)) {
                            expect_candidate_matches(v, d_input.data() + offset, n, binning, shape,
                                                     expected, d_histogram);
                        }
                    }
                }
            }
        }
    }
}

TEST(HistogramAdaptiveGpu, OneThreadCountsMillionsOfOneLetterInRegisters) {
    // 8 threads count 2^22 + 13 bytes of 'a': about 500,000 each, all into the same 4-bit field,
    // flushed every 8 bytes and every 15 vectors; any overflow between flushes loses counts.
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const std::size_t n = sanitizing() ? (1u << 16) + 13 : (1u << 22) + 13;
    const auto host = hg::generate_input(hg::Distribution::kOneLetter, n, 1);
    const ct::DeviceBuffer<unsigned char> d_input(host);
    ct::DeviceBuffer<unsigned int> d_histogram(256);
    for (const hg::Binning& binning : {hg::Binning::letters(4), hg::Binning::letters(26)}) {
        const hg::Histogram expected = hg::reference_histogram(host, binning);
        for (int v = 0; v < ad::kRawCountVariantCount; ++v) {
            if (ad::variant_applies(v, binning)) {
                expect_candidate_matches(v, d_input.data(), n, binning, Shape{8, 1}, expected,
                                         d_histogram);
            }
        }
    }
}

TEST(HistogramAdaptiveGpu, RegisterCountersRefuseTooManyBins) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const ct::DeviceBuffer<unsigned char> d_input(std::vector<unsigned char>(64, 'a'));
    ct::DeviceBuffer<unsigned int> d_histogram(256);
    for (int v = 0; v < ad::kRawCountVariantCount; ++v) {
        if (ad::kRawCountVariants[v].counters == ad::Counters::kRegisterNibbles) {
            const hg::StageArgs args{
                d_input.data(), 64, d_histogram.data(), hg::Binning::bytes(), 256, 0, nullptr};
            EXPECT_THROW(ad::launch_raw_byte_counts_variant(args, v, nullptr),
                         std::invalid_argument);
        }
    }
}

TEST(HistogramAdaptiveGpu, TheTuningPassChoosesAndStage8RunsItsChoice) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << "timing under compute-sanitizer means nothing (the candidates are checked "
                        "above)";
    }
    ct::select_device(0);
    const std::size_t n = (std::size_t{1} << 22) + 7;
    const auto host = hg::generate_input(hg::Distribution::kUniform, n, 8);
    const ct::DeviceBuffer<unsigned char> d_input(host);
    ct::DeviceBuffer<unsigned int> d_histogram(256);
    for (const hg::Binning& binning : {hg::Binning::letters(4), hg::Binning::bytes()}) {
        SCOPED_TRACE(binning.describe());
        hg::Workspace workspace;
        const hg::StageArgs args{d_input.data(), n, d_histogram.data(), binning, 512, 0,
                                 &workspace};
        const ad::TuningResult result = ad::tune_raw_byte_counts(args, 3);
        EXPECT_FALSE(result.derived.tuned);
        EXPECT_EQ(workspace.raw_count_variant, -1);  // the pass chooses; the caller hands it over
        int applicable = 0;
        for (int v = 0; v < ad::kRawCountVariantCount; ++v) {
            applicable += ad::variant_applies(v, binning) ? 1 : 0;
        }
        ASSERT_EQ(result.candidates.size(), static_cast<std::size_t>(applicable));
        EXPECT_TRUE(
            std::is_sorted(result.candidates.begin(), result.candidates.end(),
                           [](const auto& a, const auto& b) { return a.median_ms < b.median_ms; }));
        EXPECT_TRUE(result.choice.tuned);
        EXPECT_EQ(result.choice.variant, result.candidates.front().variant);
        workspace.raw_count_variant = result.choice.variant;
        workspace.raw_count_binning = binning;
        EXPECT_EQ(ad::raw_count_variant_for(args), result.choice.variant);

        const hg::Histogram expected = hg::reference_histogram(host, binning);
        d_histogram.fill_bytes(0xff);
        hg::launch_raw_byte_counts(args, nullptr);
        CT_CHECK(cudaDeviceSynchronize());
        std::vector<unsigned int> result_counts(static_cast<std::size_t>(binning.bins()));
        d_histogram.copy_to_host(result_counts.data(), result_counts.size());
        const hg::Comparison c = hg::compare_histograms(expected, result_counts, binning);
        EXPECT_TRUE(c.equal) << c.detail;
    }
}

TEST(HistogramAdaptiveGpu, AWorkspaceKeepsTheDerivedCandidateForItsBinning) {
    // Without a choice handed over, stage 8 derives one from the device's figures and keeps it in
    // the workspace; a launch with another binning derives again (its candidate may not apply).
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const ad::DeviceFigures device =
        cudatutorial::tuning::device_figures(cudatutorial::tuning::current_device());
    const hg::Binning letters = hg::Binning::letters(4);
    const hg::Binning bytes = hg::Binning::bytes();
    hg::Workspace workspace;
    hg::StageArgs args{nullptr, 0, nullptr, letters, 256, 0, &workspace};
    const int for_letters = ad::derive_raw_count_choice(device, letters).variant;
    EXPECT_EQ(ad::raw_count_variant_for(args), for_letters);
    EXPECT_EQ(workspace.raw_count_variant, for_letters);
    EXPECT_TRUE(workspace.raw_count_binning == letters);

    args.binning = bytes;
    const int for_bytes = ad::derive_raw_count_choice(device, bytes).variant;
    EXPECT_EQ(ad::raw_count_variant_for(args), for_bytes);
    EXPECT_TRUE(ad::variant_applies(workspace.raw_count_variant, bytes));
    EXPECT_TRUE(workspace.raw_count_binning == bytes);

    args.workspace = nullptr;  // nowhere to keep it: derived for this launch only
    EXPECT_EQ(ad::raw_count_variant_for(args), for_bytes);
}
