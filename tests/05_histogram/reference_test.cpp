// The CPU reference and the comparison that reports lost counts.
#include <gtest/gtest.h>

#include <cstring>

#include "histogram.hpp"

namespace hg = histogram;

namespace {

std::vector<unsigned char> text(const char* s) {
    return std::vector<unsigned char>(s, s + std::strlen(s));
}

}  // namespace

TEST(HistogramReference, TheSeedsSentence) {
    // "programming massively parallel processors", letters in groups of 4: a-d 5 (four a, one
    // c), e-h 5, i-l 6, m-p 10, q-t 10, u-x 1, y-z 1; the spaces are not counted.
    const auto sentence = text("programming massively parallel processors");
    const hg::Histogram expected = {5, 5, 6, 10, 10, 1, 1};
    EXPECT_EQ(hg::sequential_histogram(sentence.data(), sentence.size(), hg::Binning::letters(4)),
              expected);
    EXPECT_EQ(hg::reference_histogram(sentence, hg::Binning::letters(4)), expected);
    const hg::Histogram bytes = hg::reference_histogram(sentence, hg::Binning::bytes());
    EXPECT_EQ(bytes[' '], 3u);
    EXPECT_EQ(bytes['s'], 5u);
    EXPECT_EQ(hg::total_count(bytes), sentence.size());
}

TEST(HistogramReference, ParallelEqualsSequential) {
    for (const hg::Distribution d : hg::all_distributions()) {
        const auto data = hg::generate_input(d, (3 << 20) + 5, 11);
        for (const hg::Binning& binning :
             {hg::Binning::letters(1), hg::Binning::letters(4), hg::Binning::bytes()}) {
            SCOPED_TRACE(hg::distribution_name(d) + ", " + binning.describe());
            EXPECT_EQ(hg::reference_histogram(data, binning),
                      hg::sequential_histogram(data.data(), data.size(), binning));
        }
    }
}

TEST(HistogramReference, EmptyInputGivesZeros) {
    EXPECT_EQ(hg::reference_histogram({}, hg::Binning::letters(4)), hg::Histogram(7, 0u));
    EXPECT_EQ(hg::reference_histogram({}, hg::Binning::bytes()), hg::Histogram(256, 0u));
}

TEST(HistogramCompare, ReportsMismatchesAndLostCounts) {
    const hg::Binning binning = hg::Binning::letters(4);
    const hg::Histogram reference = {5, 5, 6, 10, 10, 1, 1};
    const hg::Comparison same = hg::compare_histograms(reference, reference, binning);
    EXPECT_TRUE(same.equal);
    EXPECT_EQ(same.counts_lost, 0);
    EXPECT_TRUE(same.detail.empty());

    const hg::Comparison lost = hg::compare_histograms(reference, {5, 3, 6, 9, 10, 1, 1}, binning);
    EXPECT_FALSE(lost.equal);
    EXPECT_EQ(lost.mismatched_bins, 2u);
    EXPECT_EQ(lost.counts_lost, 3);
    EXPECT_NE(lost.detail.find("'e-h' 3 instead of 5"), std::string::npos) << lost.detail;
    EXPECT_NE(lost.detail.find("3 of 38 counts lost"), std::string::npos) << lost.detail;

    const hg::Comparison doubled =
        hg::compare_histograms(reference, {10, 10, 12, 20, 20, 2, 2}, binning);
    EXPECT_EQ(doubled.counts_lost, -38);  // an output that was never cleared
    EXPECT_NE(doubled.detail.find("38 counts too many"), std::string::npos) << doubled.detail;

    const hg::Comparison poisoned =
        hg::compare_histograms(reference, {0xffffffffu, 5, 6, 10, 10, 1, 1}, binning);
    EXPECT_FALSE(poisoned.equal);

    EXPECT_FALSE(hg::compare_histograms(reference, {5, 5}, binning).equal);
}
