// CPU tests of the scaling section: which partitions to measure (from the driver's minimum,
// alignment and SM count), counting distinct SMs, the scaling efficiency, the FMA loop's closed
// form against the FMAs themselves, and the Little's-law notes on made-up rows.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cudatutorial/device_info.hpp"
#include "green_context.hpp"
#include "sm_scaling.hpp"

namespace em = execution_model;

TEST(SmScalingPartitions, HopperFigures) {
    // An H100 SXM: 132 SMs, minimum 8, alignment 8. 132 is no multiple of 8: it comes last.
    std::vector<int> expected;
    for (int s = 8; s <= 128; s += 8) {
        expected.push_back(s);
    }
    expected.push_back(132);
    EXPECT_EQ(em::partition_sizes(132, 8, 8), expected);
}

TEST(SmScalingPartitions, TotalThatIsAMultipleIsNotRepeated) {
    EXPECT_EQ(em::partition_sizes(32, 8, 8), (std::vector<int>{8, 16, 24, 32}));
    EXPECT_EQ(em::partition_sizes(8, 8, 8), (std::vector<int>{8}));
    EXPECT_EQ(em::partition_sizes(9, 8, 8), (std::vector<int>{8, 9}));
}

TEST(SmScalingPartitions, MinimumIsRoundedUpToTheAlignment) {
    // Ampere-like: minimum 4, alignment 2; a minimum of 3 with alignment 2 starts at 4.
    EXPECT_EQ(em::partition_sizes(10, 4, 2), (std::vector<int>{4, 6, 8, 10}));
    EXPECT_EQ(em::partition_sizes(11, 3, 2), (std::vector<int>{4, 6, 8, 10, 11}));
    EXPECT_EQ(em::partition_sizes(33, 9, 8), (std::vector<int>{16, 24, 32, 33}));
}

TEST(SmScalingPartitions, DevicesSmallerThanTheMinimumOnlyHaveTheWhole) {
    EXPECT_EQ(em::partition_sizes(4, 8, 8), (std::vector<int>{4}));
    EXPECT_EQ(em::partition_sizes(1, 1, 1), (std::vector<int>{1}));
    EXPECT_EQ(em::partition_sizes(15, 9, 8), (std::vector<int>{15}));  // 9 rounds up to 16 > 15
}

TEST(SmScalingPartitions, AlignmentZeroMeansOne) {
    EXPECT_EQ(em::partition_sizes(5, 2, 0), (std::vector<int>{2, 3, 4, 5}));
    EXPECT_EQ(em::partition_sizes(5, 2, 1), (std::vector<int>{2, 3, 4, 5}));
}

TEST(SmScalingPartitions, BadFiguresAreRefused) {
    EXPECT_THROW(em::partition_sizes(0, 8, 8), std::invalid_argument);
    EXPECT_THROW(em::partition_sizes(132, 0, 8), std::invalid_argument);
    EXPECT_THROW(em::partition_sizes(132, 8, -1), std::invalid_argument);
    EXPECT_THROW(em::partition_sizes(-5, 8, 8), std::invalid_argument);
}

TEST(SmScalingPartitions, PropertiesOverManyDevices) {
    for (int total = 1; total <= 300; ++total) {
        for (int minimum = 1; minimum <= 20; ++minimum) {
            for (int alignment = 0; alignment <= 16; ++alignment) {
                SCOPED_TRACE(std::to_string(total) + " SMs, min " + std::to_string(minimum) +
                             ", alignment " + std::to_string(alignment));
                const auto sizes = em::partition_sizes(total, minimum, alignment);
                const int step = alignment < 1 ? 1 : alignment;
                ASSERT_FALSE(sizes.empty());
                ASSERT_EQ(sizes.back(), total);  // the whole GPU, always last
                for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
                    ASSERT_GE(sizes[i], minimum);
                    ASSERT_EQ(sizes[i] % step, 0);
                    ASSERT_LT(sizes[i], sizes[i + 1]);
                    if (i > 0) {
                        ASSERT_EQ(sizes[i] - sizes[i - 1], step);
                    }
                }
                // Nothing left out: the first size is the smallest aligned one >= the minimum.
                const int first = (minimum + step - 1) / step * step;
                ASSERT_EQ(sizes.front(), first < total ? first : total);
                ASSERT_EQ(
                    sizes.size(),
                    first < total ? static_cast<std::size_t>((total - 1 - first) / step + 2) : 1u);
            }
        }
    }
}

TEST(SmScalingCensus, DistinctSms) {
    EXPECT_EQ(em::distinct_sms({}), 0);
    EXPECT_EQ(em::distinct_sms({7}), 1);
    EXPECT_EQ(em::distinct_sms({3, 3, 3, 3}), 1);
    EXPECT_EQ(em::distinct_sms({0, 1, 2, 1, 0, 131}), 4);
    std::vector<unsigned int> many;
    for (unsigned int i = 0; i < 100000; ++i) {
        many.push_back(i % 131);
    }
    EXPECT_EQ(em::distinct_sms(many), 131);
}

TEST(SmScalingEfficiency, PerfectHalfAndUndefined) {
    EXPECT_DOUBLE_EQ(em::scaling_efficiency(8, 3.2, 16, 1.6), 1.0);
    EXPECT_DOUBLE_EQ(em::scaling_efficiency(8, 1.0, 16, 1.0), 0.5);  // no faster on 2x the SMs
    EXPECT_DOUBLE_EQ(em::scaling_efficiency(8, 2.0, 8, 2.0), 1.0);
    EXPECT_NEAR(em::scaling_efficiency(8, 3.19, 128, 0.23), (3.19 / 0.23) / 16.0, 1e-12);
    EXPECT_EQ(em::scaling_efficiency(8, 0.0, 16, 1.0), 0.0);
    EXPECT_EQ(em::scaling_efficiency(8, 1.0, 16, 0.0), 0.0);
    EXPECT_EQ(em::scaling_efficiency(0, 1.0, 16, 1.0), 0.0);
}

TEST(SmScalingEfficiency, FirstPartitionReaching) {
    const std::vector<em::ScalingPoint> points = {{64, 2700}, {8, 400},   {132, 2750},
                                                  {16, 800},  {56, 2500}, {48, 2200}};
    EXPECT_EQ(em::first_partition_reaching(points, 0.9), 56);  // 2500 >= 2475
    EXPECT_EQ(em::first_partition_reaching(points, 1.0), 132);
    EXPECT_EQ(em::first_partition_reaching(points, 0.0), 8);
    EXPECT_EQ(em::first_partition_reaching({}, 0.9), 0);
    // A dip after the saturation point does not move it.
    EXPECT_EQ(em::first_partition_reaching({{8, 100}, {16, 200}, {24, 180}, {32, 199}}, 0.95), 16);
}

TEST(SmScalingFma, ClosedFormIsWhatTheFmasCompute) {
    for (const std::uint64_t thread : {0ull, 1ull, 31ull, 1023ull, 1024ull, 1025ull, 4097ull,
                                       (1ull << 20) + 5, (1ull << 32) + 1023}) {
        for (const int steps : {0, 1, 16, 1023, 1024, 1025}) {
            SCOPED_TRACE("thread " + std::to_string(thread) + ", steps " + std::to_string(steps));
            EXPECT_EQ(em::fma_chains_expected(thread, steps),
                      em::fma_chains_by_steps(thread, steps));
        }
    }
    // Hand-computed: thread 0, chain k ends at k + 1024; 0 + 1 + ... + 7 + 8 x 1024 = 8220.
    EXPECT_EQ(em::fma_chains_expected(0, 1024), 8220.0f);
    // Thread 1024 starts where thread 0 does (t mod 1024): a thread writing its neighbour's value
    // is still caught, 1023 apart from the next.
    EXPECT_EQ(em::fma_chains_expected(1024, 1024), em::fma_chains_expected(0, 1024));
    EXPECT_NE(em::fma_chains_expected(1, 1024), em::fma_chains_expected(0, 1024));
    EXPECT_EQ(em::fma_chains_flops(1, 1, 1), 2.0 * 8 * 16);
    EXPECT_EQ(em::fma_chains_flops(1056, 256, 64), 2.0 * 1056 * 256 * 8 * 16 * 64);
}

TEST(SmScalingNotes, LittlesLawFromTheRows) {
    em::ScalingResult result;
    result.matrix_warps_per_sm = 64;
    // 50 GB/s per SM on 8 SMs, 2/3 of it loads (8 B loaded and 4 B stored per thread);
    // 64 warps x 32 threads x 8 B = 16 KiB of loads in flight per SM.
    result.matrix_sum = {{8, 400}, {16, 800}, {64, 2800}, {132, 2850}};
    result.fma = {{8, 1000}, {132, 16000}};
    const auto notes = em::sm_scaling_notes(result);
    ASSERT_EQ(notes.size(), 6u);
    EXPECT_NE(notes[0].find("at most 16.0 KiB per SM"), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find("loads are 8 of every 12 bytes"), std::string::npos) << notes[0];
    EXPECT_NE(notes[1].find("= 50.0 GB/s per SM, 33.3 GB/s of loads"), std::string::npos)
        << notes[1];
    EXPECT_NE(notes[1].find("= 492 ns"), std::string::npos) << notes[1];  // 16384 / 33.33
    // 2850 / 132 = 21.6 GB/s per SM, 14.39 of it loads; 16384 / 14.39 = 1138 ns.
    EXPECT_NE(notes[2].find("on 132 SMs: 2850 GB/s = 21.6 GB/s per SM, 14.4 GB/s of loads, at "
                            "most 1138 ns"),
              std::string::npos)
        << notes[2];
    // Counting the stores as if they were loads would say 328 and 759 ns.
    EXPECT_EQ(notes[1].find("328 ns"), std::string::npos) << notes[1];
    // A kernel that stores nothing: every byte of the rate is a load.
    const auto loads_only = em::sm_scaling_notes(result, 8, 0);
    ASSERT_GE(loads_only.size(), 3u);
    EXPECT_NE(loads_only[1].find("= 328 ns"), std::string::npos) << loads_only[1];
    EXPECT_NE(notes[3].find("would take 57 SMs"), std::string::npos) << notes[3];  // 2850 / 50
    EXPECT_NE(notes[3].find("90% of it took 64 SMs"), std::string::npos) << notes[3];
    // (2850 - 2800) / 68 = 0.7 GB/s per added SM, 1% of 50: saturated.
    EXPECT_NE(notes[4].find("The last 68 SMs added 0.7 GB/s each, 1% of the 8-SM rate"),
              std::string::npos)
        << notes[4];
    EXPECT_NE(notes[4].find("DRAM, not the SMs, sets the time"), std::string::npos) << notes[4];
    EXPECT_NE(notes[5].find("16.00x as fast"), std::string::npos) << notes[5];
    EXPECT_NE(notes[5].find("97% efficiency"), std::string::npos) << notes[5];  // 16 / 16.5
}

TEST(SmScalingNotes, ARateStillRisingIsNotCalledSaturated) {
    em::ScalingResult result;
    result.matrix_warps_per_sm = 64;
    // The H200's last step (2026-11-23): 3318 -> 3382 GB/s from 128 to 132 SMs, 16 GB/s per
    // added SM against 34.4 per SM on 8.
    result.matrix_sum = {{8, 275}, {128, 3318}, {132, 3382}};
    const auto notes = em::sm_scaling_notes(result);
    ASSERT_GE(notes.size(), 5u);
    EXPECT_NE(notes[4].find("The last 4 SMs added 16.0 GB/s each, 47% of"), std::string::npos)
        << notes[4];
    EXPECT_NE(notes[4].find("DRAM is not saturated yet"), std::string::npos) << notes[4];
}

TEST(SmScalingNotes, NothingToSayWithOnePoint) {
    em::ScalingResult result;
    result.matrix_warps_per_sm = 64;
    EXPECT_TRUE(em::sm_scaling_notes(result).empty());
    result.matrix_sum = {{8, 400}};
    EXPECT_TRUE(em::sm_scaling_notes(result).empty());
}

TEST(SmScalingGreenContext, WithoutAGpuSupportSaysWhyNot) {
    // The path every unsupported setup takes: a reason, no exception, and a partition that
    // cannot be made says so. (With a GPU present the GPU tests cover the other path; this CPU
    // test then stays off the device.)
    if (cudatutorial::cuda_device_count() > 0) {
        GTEST_SKIP() << "a GPU is present: SmScalingGpu.* test green contexts there";
    }
    const em::GreenContextSupport support = em::green_context_support(0);
    EXPECT_FALSE(support.supported);
    EXPECT_FALSE(support.why_not.empty());
    EXPECT_THROW(em::SmPartition(0, 8), em::GreenContextError);
}
