// The chapter's CPU reference against hand-worked values (no GPU needed).
#include <gtest/gtest.h>

#include "divergence.hpp"

namespace dv = divergence;

TEST(DivergenceReference, BranchConditions) {
    using dv::Condition;
    EXPECT_TRUE(dv::takes_if_path(Condition::kEvenOdd, 0));
    EXPECT_FALSE(dv::takes_if_path(Condition::kEvenOdd, 1));
    EXPECT_TRUE(dv::takes_if_path(Condition::kEvenOdd, 30));
    EXPECT_TRUE(dv::takes_if_path(Condition::kWarpAligned, 31));   // warp 0
    EXPECT_FALSE(dv::takes_if_path(Condition::kWarpAligned, 32));  // warp 1
    EXPECT_FALSE(dv::takes_if_path(Condition::kWarpAligned, 63));
    EXPECT_TRUE(dv::takes_if_path(Condition::kWarpAligned, 64));  // warp 2
    for (std::uint64_t tid : {0u, 1u, 32u, 1000u}) {
        EXPECT_FALSE(dv::takes_if_path(Condition::kNever, tid));
    }
    EXPECT_EQ(dv::expected_value(Condition::kEvenOdd, 4), 100.0f);
    EXPECT_EQ(dv::expected_value(Condition::kEvenOdd, 5), 200.0f);
}

// An illustration, not a test of this chapter's code: how C++ parses the textbook's condition.
// `itid & 0x01 == 0` is `itid & (0x01 == 0)` because == binds tighter than &; (0x01 == 0) is
// false, i.e. 0, so the condition is itid & 0 = 0 for every itid. (Written with the parentheses
// the compiler puts in: the original spelling draws -Wparentheses.) What the GPU really computes
// with the textbook's kernel is checked by DivergenceGpu.TextbookBitmaskKernelTakesTheElsePath-
// Everywhere and by row 4t of the program's table.
static_assert((0x01 == 0) == false, "== is evaluated first ...");
static_assert((7 & (0x01 == 0)) == 0, "... so itid & 0x01 == 0 is itid & 0: never true");
static_assert(((7 & 0x01) == 0) == false && ((6 & 0x01) == 0) == true,
              "the intended (itid & 0x01) == 0 tests the parity of itid");

TEST(DivergenceReference, FixedBitmaskConditionIsTheWarpParity) {
    // Stage 4's fixed condition, ((tid >> 5) & 0x01) == 0, must pick the same threads as the
    // reference's kWarpAligned, (tid / 32) % 2 == 0, which the stage 4 results are checked with.
    for (int tid = 0; tid < 4096; ++tid) {
        const int itid = tid >> 5;
        EXPECT_EQ((itid & 0x01) == 0, dv::takes_if_path(dv::Condition::kWarpAligned, tid)) << tid;
    }
}

TEST(DivergenceReference, ShortBranchCheckFindsTheFirstMismatch) {
    std::vector<float> c(100);
    for (std::size_t i = 0; i < c.size(); ++i) {
        c[i] = dv::expected_value(dv::Condition::kWarpAligned, i);
    }
    EXPECT_TRUE(dv::verify_short_branch(c, dv::Condition::kWarpAligned).passed);
    const auto wrong = dv::verify_short_branch(c, dv::Condition::kEvenOdd);
    EXPECT_FALSE(wrong.passed);
    EXPECT_NE(wrong.detail.find("c[1]"), std::string::npos) << wrong.detail;  // 100, not 200
    // The textbook kernel's output, 200 everywhere, fails the check of what it was meant to do.
    EXPECT_FALSE(
        dv::verify_short_branch(std::vector<float>(100, 200.0f), dv::Condition::kWarpAligned)
            .passed);
    EXPECT_TRUE(
        dv::verify_short_branch(std::vector<float>(100, 200.0f), dv::Condition::kNever).passed);
}

TEST(DivergenceReference, LongPathsByHand) {
    // xorshift32 of 0x80000000 with (13, 17, 5): << 13 falls off the top, >> 17 gives 0x80004000,
    // << 5 adds 0x00080000: 0x80084000. With (5, 17, 13): 0x80004000, then << 13 adds 0x08000000.
    EXPECT_EQ(dv::xorshift_step(0x80000000u, 13, 17, 5), 0x80084000u);
    EXPECT_EQ(dv::xorshift_step(0x80000000u, 5, 17, 13), 0x88004000u);
    EXPECT_EQ(dv::xorshift_step(0u, 13, 17, 5), 0u);  // xorshift's fixed point
    EXPECT_EQ(dv::long_input(0), 0x9E3779B9u);
    EXPECT_EQ(dv::long_input(1), 2654435761u + 0x9E3779B9u);
    // Sums of 4 states, computed independently (Python, arbitrary-precision integers masked to
    // 32 bits): thread 0 after one step of each path, thread 12345 after three steps of path a.
    EXPECT_EQ(dv::long_path_a(0, 1), 800212971u);
    EXPECT_EQ(dv::long_path_b(0, 1), 1073095217u);
    EXPECT_EQ(dv::long_path_a(12345, 3), 2412149650u);
    EXPECT_NE(dv::long_path_a(7, 32), dv::long_path_b(7, 32));

    const auto reference = dv::long_reference(70, 3);
    ASSERT_EQ(reference.path_a.size(), 70u);
    std::vector<std::uint32_t> out(70);
    for (std::uint32_t i = 0; i < 70; ++i) {
        out[i] = (i / 32) % 2 == 0 ? dv::long_path_a(i, 3) : dv::long_path_b(i, 3);
    }
    EXPECT_TRUE(dv::verify_long_branch(out, reference, dv::Condition::kWarpAligned).passed);
    EXPECT_FALSE(dv::verify_long_branch(out, reference, dv::Condition::kEvenOdd).passed);
}

TEST(DivergenceReference, PathSummaryAndRecordCheck) {
    // Two warps of an even/odd branch over n = 40: warp 0 full, warp 1 has lanes 0..7.
    dv::PathRecord record;
    record.if_lanes = {0x55555555u, 0x55u};
    record.else_lanes = {0xAAAAAAAAu, 0xAAu};
    record.if_passes = {1, 1};
    record.else_passes = {1, 1};
    record.join_passes = {1, 2};  // warp 1 reached the join in two groups
    record.c.resize(40);
    for (std::size_t i = 0; i < 40; ++i) {
        record.c[i] = dv::expected_value(dv::Condition::kEvenOdd, i);
    }
    const auto summary = dv::summarize(record);
    EXPECT_EQ(summary.warps, 2);
    EXPECT_EQ(summary.warps_on_both_paths, 2);
    EXPECT_EQ(summary.passes, 4);
    EXPECT_DOUBLE_EQ(summary.lanes_per_pass, 40.0 / 4);
    EXPECT_EQ(summary.join_passes, 3);
    EXPECT_TRUE(dv::verify_record(record, dv::Condition::kEvenOdd, 40).passed);
    // No group at the join, or more groups than lanes, cannot happen.
    record.join_passes = {0, 1};
    EXPECT_FALSE(dv::verify_record(record, dv::Condition::kEvenOdd, 40).passed);
    record.join_passes = {1, 9};
    EXPECT_FALSE(dv::verify_record(record, dv::Condition::kEvenOdd, 40).passed);
    record.join_passes = {1, 1};
    EXPECT_FALSE(dv::verify_record(record, dv::Condition::kWarpAligned, 40).passed);
    record.if_lanes[1] = 0x155u;  // lane 8 does not exist (n = 40)
    EXPECT_FALSE(dv::verify_record(record, dv::Condition::kEvenOdd, 40).passed);
    EXPECT_EQ(dv::mask_text(0x55555555u), "0x55555555 (16)");
    EXPECT_EQ(dv::mask_text(0), "-");
}

TEST(DivergenceReference, KernelListFollowsTheTextbook) {
    const auto& kernels = dv::short_kernels();
    ASSERT_EQ(kernels.size(), 6u);
    EXPECT_EQ(kernels[0].name, "warmup");
    EXPECT_EQ(kernels[1].condition, dv::Condition::kEvenOdd);
    EXPECT_EQ(kernels[3].condition, dv::Condition::kEvenOdd);  // ipred: same split as stage 1
    EXPECT_EQ(kernels[5].role, cudatutorial::StageRole::kExpectedFailure);
    for (const auto& kernel : kernels) {
        EXPECT_NE(kernel.launch, nullptr);
        EXPECT_EQ(kernel.role == cudatutorial::StageRole::kExpectedFailure,
                  kernel.recorded == dv::Recorded::kTextbookBitmask);
    }
}
