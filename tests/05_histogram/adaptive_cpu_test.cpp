// CPU tests of how stage 8 derives its candidate from a device's figures and the binning
// (stages/raw_count_choice.hpp): bytes per SM per clock, register counters only for at most 8 bins,
// loads per thread from Little's law. No GPU needed.
#include <gtest/gtest.h>

#include <string>

#include "stages/raw_count_choice.hpp"

namespace {

namespace ad = histogram::adaptive;
using histogram::Binning;

ad::DeviceFigures figures(int sms, double gbs, double sm_mhz, int threads_per_sm) {
    ad::DeviceFigures d;
    d.cc_major = 9;  // the H100's and the H200's table entry (cudatutorial/tuning.hpp)
    d.sm_count = sms;
    d.bandwidth_gbs = gbs;
    d.sm_clock_mhz = sm_mhz;
    d.max_threads_per_sm = threads_per_sm;
    return d;
}
ad::DeviceFigures h100() {
    return figures(132, 3352.3, 1980, 2048);
}
ad::DeviceFigures h200() {
    return figures(132, 4813.8, 1980, 2048);
}

const ad::RawCountVariant& variant_of(const ad::RawCountChoice& c) {
    return ad::kRawCountVariants[c.variant];
}

}  // namespace

TEST(HistogramAdaptive, BytesPerSmPerClockFromTheDeviceFigures) {
    // 3352.3e9 B/s / (132 x 1980e6 clocks/s) = 12.83; the H200 18.42, beyond the 14.8 that
    // shared atomics sustained.
    EXPECT_NEAR(ad::bytes_per_sm_clock(h100()), 12.83, 0.01);
    EXPECT_NEAR(ad::bytes_per_sm_clock(h200()), 18.42, 0.01);
    EXPECT_GT(ad::bytes_per_sm_clock(h200()),
              cudatutorial::tuning::tuning_for(9, 0).shared_atomic_bytes_per_sm_clock);
}

TEST(HistogramAdaptive, FewBinsCountInRegistersManyWithSharedAtomics) {
    for (const ad::DeviceFigures& d : {h100(), h200()}) {
        // letters width 4: 7 bins; width 26: 1 bin; width 4 is the chapter's default.
        for (const int width : {4, 5, 26}) {
            const auto c = ad::derive_raw_count_choice(d, Binning::letters(width));
            EXPECT_EQ(variant_of(c).counters, ad::Counters::kRegisterNibbles) << width;
            EXPECT_TRUE(variant_of(c).pipelined);
            EXPECT_FALSE(c.tuned);
            EXPECT_NE(c.why.find("bytes per SM per clock"), std::string::npos) << c.why;
        }
        // 9 bins (width 3), 26 bins (width 1) and 256 bins do not fit eight 4-bit counters.
        for (const Binning& b : {Binning::letters(3), Binning::letters(1), Binning::bytes()}) {
            const auto c = ad::derive_raw_count_choice(d, b);
            EXPECT_EQ(variant_of(c).counters, ad::Counters::kSharedAtomics) << b.describe();
            EXPECT_TRUE(variant_of(c).pipelined) << b.describe();
        }
    }
}

TEST(HistogramAdaptive, LoadsPerThreadFromLittlesLaw) {
    // 2048 threads x 2 loads x 16 B = 64 KiB < 8 x (345 ns x bandwidth / 132 SMs) on both: 4.
    EXPECT_EQ(variant_of(ad::derive_raw_count_choice(h100(), Binning::letters(4))).loads, 4);
    EXPECT_EQ(variant_of(ad::derive_raw_count_choice(h200(), Binning::letters(4))).loads, 4);
    // A slow memory (448 GB/s over 40 SMs: 3.8 KiB per SM) is covered by 2 loads.
    ad::DeviceFigures turing = figures(40, 448.0, 1590, 1024);
    turing.cc_major = 7;  // no table entry: the default
    turing.cc_minor = 5;
    EXPECT_EQ(variant_of(ad::derive_raw_count_choice(turing, Binning::letters(4))).loads, 2);
    EXPECT_EQ(variant_of(ad::derive_raw_count_choice(turing, Binning::bytes())).loads, 2);
}

TEST(HistogramAdaptive, RegisterCandidatesOnlyForEightBinsOrFewer) {
    for (int v = 0; v < ad::kRawCountVariantCount; ++v) {
        const bool registers = ad::kRawCountVariants[v].counters == ad::Counters::kRegisterNibbles;
        EXPECT_TRUE(ad::variant_applies(v, Binning::letters(4))) << v;
        EXPECT_TRUE(ad::variant_applies(v, Binning::letters(26))) << v;
        EXPECT_EQ(ad::variant_applies(v, Binning::letters(3)), !registers) << v;
        EXPECT_EQ(ad::variant_applies(v, Binning::bytes()), !registers) << v;
        EXPECT_FALSE(ad::describe_variant(v).empty());
    }
    EXPECT_FALSE(ad::variant_applies(-1, Binning::letters(4)));
    EXPECT_FALSE(ad::variant_applies(ad::kRawCountVariantCount, Binning::letters(4)));
    // Candidate 0 is the stage as it was: shared atomics, four loads, not pipelined.
    EXPECT_EQ(ad::kRawCountVariants[0].counters, ad::Counters::kSharedAtomics);
    EXPECT_EQ(ad::kRawCountVariants[0].loads, 4);
    EXPECT_FALSE(ad::kRawCountVariants[0].pipelined);
}

TEST(HistogramAdaptive, OnlyStage8SaysItUsesTheTuner) {
    // The executable runs the tuning pass when a selected stage says so (not by comparing ids or
    // launch functions).
    for (const histogram::Stage& stage : histogram::stages()) {
        EXPECT_EQ(stage.uses_tuner, stage.launch == histogram::launch_raw_byte_counts) << stage.id;
    }
    EXPECT_TRUE(histogram::find_stage("8")->uses_tuner);
}
