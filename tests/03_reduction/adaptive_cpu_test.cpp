// CPU tests of how stages 10-12 derive their candidate from a device's figures
// (measuring/adaptive_vectorized.hpp): Little's law, the bytes the candidates keep in flight, the
// L2 hint only from sm_80, and the candidate list itself. No GPU needed.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "measuring/adaptive_vectorized.hpp"

namespace {

using reduction::adaptive::DeviceFigures;
using reduction::detail::kVectorizedVariantCount;
using reduction::detail::kVectorizedVariants;
using reduction::detail::Layout;
using reduction::detail::LoadPolicy;

DeviceFigures figures(int cc_major, int cc_minor, int sms, double gbs, int threads_per_sm) {
    DeviceFigures d;
    d.cc_major = cc_major;
    d.cc_minor = cc_minor;
    d.sm_count = sms;
    d.bandwidth_gbs = gbs;
    d.max_threads_per_sm = threads_per_sm;
    return d;
}
DeviceFigures h100() {
    return figures(9, 0, 132, 3352.3, 2048);  // H100 SXM: 2619 MHz x 5120 bits x 2 / 8
}
DeviceFigures h200() {
    return figures(9, 0, 132, 4813.8, 2048);  // H200: 3761 MHz x 6144 bits x 2 / 8
}

const reduction::detail::VectorizedVariant& variant_of(
    const reduction::adaptive::VectorizedChoice& c) {
    return kVectorizedVariants[c.variant];
}

}  // namespace

TEST(ReductionAdaptive, LittlesLawFromTheDeviceFigures) {
    // 345 ns x 3352.3 bytes/ns / 132 SMs = 8761 bytes; the H200 needs 4813.8 / 3352.3 as much.
    EXPECT_NEAR(reduction::adaptive::bytes_in_flight_needed_per_sm(h100()), 8761.6, 1.0);
    EXPECT_NEAR(reduction::adaptive::bytes_in_flight_needed_per_sm(h200()), 12581.2, 1.0);
}

TEST(ReductionAdaptive, FullOccupancyNeedsFourLoadsOnBothGpus) {
    // 2048 resident threads x 2 loads x 16 B = 64 KiB, less than 8 x 8.6 KiB on the H100; 4
    // loads (128 KiB) cover 8 x 12.3 KiB on the H200 too.
    for (const DeviceFigures& d : {h100(), h200()}) {
        const auto c = reduction::adaptive::derive_vectorized_choice(d, 256, 8);
        EXPECT_EQ(variant_of(c).loads, 4);
        EXPECT_EQ(variant_of(c).policy, LoadPolicy::kPrefetchL2);
        EXPECT_EQ(variant_of(c).layout, Layout::kBlockTiles);
        EXPECT_EQ(c.occupancy_divisor, 1);
        EXPECT_FALSE(c.tuned);
        EXPECT_NE(c.why.find("derived"), std::string::npos) << c.why;
    }
}

TEST(ReductionAdaptive, FewerResidentThreadsNeedMoreLoadsEach) {
    // One resident block of 256 threads: even 8 loads (32 KiB) fall short of 8 x 8.6 KiB on the
    // H100 and of 8 x 12.3 KiB on the H200: the most there is.
    EXPECT_EQ(variant_of(reduction::adaptive::derive_vectorized_choice(h100(), 256, 1)).loads, 8);
    EXPECT_EQ(variant_of(reduction::adaptive::derive_vectorized_choice(h200(), 256, 1)).loads, 8);
    // 1536 threads (3 blocks of 512): 4 loads = 96 KiB cover the H100's 68.4 KiB but not the
    // H200's 98.3 KiB: there the same threads need 8 loads each. The bandwidth decides.
    EXPECT_EQ(variant_of(reduction::adaptive::derive_vectorized_choice(h100(), 512, 3)).loads, 4);
    EXPECT_EQ(variant_of(reduction::adaptive::derive_vectorized_choice(h200(), 512, 3)).loads, 8);
}

TEST(ReductionAdaptive, NoL2HintBeforeSm80) {
    const DeviceFigures turing = figures(7, 5, 40, 448.0, 1024);
    const auto c = reduction::adaptive::derive_vectorized_choice(turing, 256, 4);
    EXPECT_EQ(variant_of(c).policy, LoadPolicy::kPlain);
    EXPECT_NE(c.why.find("sm_80"), std::string::npos) << c.why;
}

TEST(ReductionAdaptive, CandidatesAreDistinctAndSupported) {
    std::set<std::tuple<int, int, int>> seen;
    for (int v = 0; v < kVectorizedVariantCount; ++v) {
        const auto& c = kVectorizedVariants[v];
        EXPECT_TRUE(c.loads == 2 || c.loads == 4 || c.loads == 8) << v;
        EXPECT_TRUE(
            seen.insert({c.loads, static_cast<int>(c.policy), static_cast<int>(c.layout)}).second)
            << "candidate " << v << " repeats another";
        EXPECT_FALSE(reduction::detail::describe_variant(v).empty());
    }
    // The old fixed choice (4 loads, L2::256B, block tiles) is still a candidate.
    EXPECT_EQ(kVectorizedVariants[1].loads, 4);
    EXPECT_EQ(kVectorizedVariants[1].policy, LoadPolicy::kPrefetchL2);
    EXPECT_EQ(kVectorizedVariants[1].layout, Layout::kBlockTiles);
}

TEST(ReductionAdaptive, OneShotCandidatesAreStage12sAndNeverDerived) {
    int one_shot = 0;
    for (int v = 0; v < kVectorizedVariantCount; ++v) {
        const bool expected = kVectorizedVariants[v].layout == Layout::kOneShot;
        EXPECT_EQ(reduction::detail::is_one_shot(v), expected) << v;
        EXPECT_EQ(reduction::detail::describe_variant(v).find("one-shot") != std::string::npos,
                  expected)
            << reduction::detail::describe_variant(v);
        one_shot += expected;
    }
    EXPECT_GE(one_shot, 2);  // 4 and 8 int4 per thread at least
    EXPECT_FALSE(reduction::detail::is_one_shot(-1));
    EXPECT_FALSE(reduction::detail::is_one_shot(kVectorizedVariantCount));
    // The derivation picks among the persistent block tiles only: a one-shot grid has no
    // occupancy to reason about, only the tuning pass can say whether it is faster.
    for (const DeviceFigures& d : {h100(), h200(), figures(7, 5, 40, 448.0, 1024)}) {
        for (const int resident : {1, 3, 8}) {
            const auto c = reduction::adaptive::derive_vectorized_choice(d, 256, resident);
            EXPECT_FALSE(reduction::detail::is_one_shot(c.variant));
        }
    }
}

TEST(ReductionAdaptive, TuningSizeIsTheInputUpTo2To27) {
    EXPECT_EQ(reduction::adaptive::tuning_size(1), 1u);
    EXPECT_EQ(reduction::adaptive::tuning_size(std::size_t{1} << 25), std::size_t{1} << 25);
    EXPECT_EQ(reduction::adaptive::tuning_size(std::size_t{1} << 30), std::size_t{1} << 27);
}
