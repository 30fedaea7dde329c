// The bin mapping: letters in groups of a width, bytes one per bin, and the multiply-shift that
// replaces the division on the GPU.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "bin_math.hpp"
#include "histogram.hpp"
#include "stage_rows.hpp"

namespace hg = histogram;

TEST(HistogramBinning, LettersInGroupsOfFourMakeSevenBins) {
    const hg::Binning binning = hg::Binning::letters(4);
    EXPECT_EQ(binning.bins(), 7);
    EXPECT_EQ(binning.bin_of('a'), 0);
    EXPECT_EQ(binning.bin_of('d'), 0);
    EXPECT_EQ(binning.bin_of('e'), 1);
    EXPECT_EQ(binning.bin_of('x'), 5);
    EXPECT_EQ(binning.bin_of('y'), 6);
    EXPECT_EQ(binning.bin_of('z'), 6);
    for (const int ignored :
         std::initializer_list<int>{0, ' ', 'A', 'Z', '`', '{', '|', '}', 0x7f, 0x80, 0xe1, 0xff}) {
        SCOPED_TRACE(ignored);
        EXPECT_EQ(binning.bin_of(static_cast<unsigned char>(ignored)), -1);
    }
    EXPECT_EQ(binning.label(0), "a-d");
    EXPECT_EQ(binning.label(6), "y-z");
    EXPECT_EQ(binning.describe(), "letters, width 4 (7 bins)");
}

TEST(HistogramBinning, EveryWidthCoversTheAlphabetOnce) {
    for (int width = 1; width <= 26; ++width) {
        SCOPED_TRACE(width);
        const hg::Binning binning = hg::Binning::letters(width);
        EXPECT_EQ(binning.bins(), (26 + width - 1) / width);
        std::set<int> used;
        for (int c = 'a'; c <= 'z'; ++c) {
            const int bin = binning.bin_of(static_cast<unsigned char>(c));
            EXPECT_EQ(bin, (c - 'a') / width);
            used.insert(bin);
        }
        EXPECT_EQ(static_cast<int>(used.size()), binning.bins());
    }
    EXPECT_EQ(hg::Binning::letters(1).label(4), "e");
    EXPECT_EQ(hg::Binning::letters(26).label(0), "a-z");
    EXPECT_EQ(hg::Binning::letters(5).label(5), "z");
    EXPECT_THROW(hg::Binning::letters(0), std::invalid_argument);
    EXPECT_THROW(hg::Binning::letters(27), std::invalid_argument);
}

TEST(HistogramBinning, BytesAreTheirOwnBins) {
    const hg::Binning binning = hg::Binning::bytes();
    EXPECT_EQ(binning.bins(), 256);
    for (int c = 0; c < 256; ++c) {
        EXPECT_EQ(binning.bin_of(static_cast<unsigned char>(c)), c);
    }
    EXPECT_EQ(binning.label(0x41), "0x41");
    EXPECT_EQ(binning.label(255), "0xff");
    EXPECT_EQ(binning.describe(), "bytes (256 bins)");
}

TEST(HistogramBinning, MultiplyShiftEqualsDivisionForEveryLetterAndWidth) {
    // The GPU kernels divide by the width with (p * ceil(2^16 / w)) >> 16 (bin_math.hpp).
    for (unsigned width = 1; width <= hg::kLetters; ++width) {
        const unsigned reciprocal = hg::letter_reciprocal(width);
        for (unsigned p = 0; p < hg::kLetters; ++p) {
            EXPECT_EQ(hg::letter_bin('a' + p, reciprocal), p / width)
                << "letter " << static_cast<char>('a' + p) << ", width " << width;
        }
    }
    for (unsigned c = 0; c < 256; ++c) {
        EXPECT_EQ(hg::is_letter(c), c >= 'a' && c <= 'z') << c;
    }
}

TEST(HistogramBinning, CubUsesHistogramEvenOnlyWhenAllBinsAreEqual) {
    EXPECT_TRUE(hg::cub_uses_histogram_even(hg::Binning::bytes()));
    for (const int width : {1, 2, 13, 26}) {
        EXPECT_TRUE(hg::cub_uses_histogram_even(hg::Binning::letters(width))) << width;
    }
    for (const int width : {3, 4, 5, 7, 25}) {  // the last bin is narrower: HistogramRange
        EXPECT_FALSE(hg::cub_uses_histogram_even(hg::Binning::letters(width))) << width;
    }
}

TEST(HistogramBinning, BinningsAreEqualWhenTheyMakeTheSameBins) {
    // Stage 8 keeps its candidate for one binning (Workspace): another width is another binning.
    EXPECT_TRUE(hg::Binning::letters(4) == hg::Binning::letters(4));
    EXPECT_FALSE(hg::Binning::letters(4) == hg::Binning::letters(5));
    EXPECT_FALSE(hg::Binning::letters(1) == hg::Binning::bytes());
    EXPECT_TRUE(hg::Binning::bytes() == hg::Binning::bytes());
}

TEST(HistogramStages, TheCubRowIsNamedAfterTheCallItMakes) {
    // HistogramRange where the last letter bin is narrower ("y-z" with width 4), else
    // HistogramEven; every other row keeps the stage's name.
    const hg::Stage& cub = *hg::find_stage("cub");
    EXPECT_EQ(hg::descriptor_for(cub, hg::Binning::letters(4)).name, "cub_histogram_range");
    EXPECT_EQ(hg::descriptor_for(cub, hg::Binning::letters(2)).name, "cub_histogram_even");
    EXPECT_EQ(hg::descriptor_for(cub, hg::Binning::bytes()).name, "cub_histogram_even");
    EXPECT_EQ(hg::descriptor_for(cub, hg::Binning::bytes()).id, "cub");
    for (const hg::Stage& stage : hg::stages()) {
        if (&stage != &cub) {
            EXPECT_EQ(hg::descriptor_for(stage, hg::Binning::letters(4)).name, stage.name);
        }
    }
}

TEST(HistogramStages, AShapeDescribesItsLaunch) {
    EXPECT_EQ((hg::LaunchShape{1056, 256}.describe()), "1056 x 256");
    EXPECT_EQ((hg::LaunchShape{0, 0, "CUB"}.describe()), "CUB's own");
}

TEST(HistogramStages, TheListIsConsistent) {
    // The rows of the stage files, every file with one (a new stage needs no edit here).
    cudatutorial::testing::expect_rows_from_stage_files(hg::stages(), "05_histogram");
    int baselines = 0;
    for (const hg::Stage& stage : hg::stages()) {
        SCOPED_TRACE(stage.id);
        EXPECT_NE(stage.launch, nullptr);
        baselines += (stage.role == cudatutorial::StageRole::kBaseline);
        EXPECT_EQ(hg::find_stage(stage.id), &stage);
        EXPECT_EQ(hg::find_stage(stage.name), &stage);
    }
    EXPECT_EQ(baselines, 1);  // the table's ratios compare with one baseline
    EXPECT_EQ(hg::stages().back().id, "cub");
    ASSERT_NE(hg::find_stage("race"), nullptr);
    EXPECT_TRUE(hg::find_stage("race")->role == cudatutorial::StageRole::kExpectedFailure);
    EXPECT_EQ(hg::find_stage("cub")->role, cudatutorial::StageRole::kBaseline);
    EXPECT_EQ(hg::find_stage("no-such-stage"), nullptr);
}
