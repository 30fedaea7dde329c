#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/device_info.hpp"

namespace ct = cudatutorial;

TEST(Summarize, OddCountMedianIsTheMiddleValue) {
    const ct::Stats s = ct::summarize({5.0, 1.0, 3.0});
    EXPECT_DOUBLE_EQ(s.median_ms, 3.0);
    EXPECT_DOUBLE_EQ(s.min_ms, 1.0);
    EXPECT_DOUBLE_EQ(s.max_ms, 5.0);
    EXPECT_DOUBLE_EQ(s.mean_ms, 3.0);
    EXPECT_EQ(s.samples, 3);
}

TEST(Summarize, EvenCountMedianAveragesTheMiddlePair) {
    const ct::Stats s = ct::summarize({4.0, 1.0, 2.0, 100.0});
    EXPECT_DOUBLE_EQ(s.median_ms, 3.0);
    EXPECT_DOUBLE_EQ(s.mean_ms, 26.75);
}

TEST(Summarize, MedianIgnoresOneOutlier) {
    const ct::Stats s = ct::summarize({1.0, 1.0, 1.0, 1.0, 50.0});
    EXPECT_DOUBLE_EQ(s.median_ms, 1.0);
    EXPECT_DOUBLE_EQ(s.max_ms, 50.0);
}

TEST(Summarize, P99IsTheNearestRankOfTheSlowTail) {
    std::vector<double> samples;
    for (int i = 200; i >= 1; --i) {
        samples.push_back(i);  // any order
    }
    EXPECT_EQ(ct::summarize(samples).p99_ms, 198.0);  // rank ceil(0.99 * 200) = 198
    EXPECT_EQ(ct::summarize({4.0}).p99_ms, 4.0);
    EXPECT_EQ(ct::summarize({1.0, 2.0, 3.0}).p99_ms, 3.0);
}

TEST(Summarize, RejectsEmptyNegativeAndNaN) {
    EXPECT_THROW(ct::summarize({}), std::invalid_argument);
    EXPECT_THROW(ct::summarize({1.0, -0.5}), std::invalid_argument);
    EXPECT_THROW(ct::summarize({std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
    EXPECT_THROW(ct::summarize({std::numeric_limits<double>::infinity()}), std::invalid_argument);
}

TEST(Bandwidth, BytesOverMillisecondsInGigabytesPerSecond) {
    // 2^25 ints read in 0.054 ms: 134217728 B / 54e-6 s = 2485.5 GB/s (the CUB anchor).
    EXPECT_NEAR(ct::bandwidth_gbs(134217728.0, 0.054), 2485.5, 0.1);
    EXPECT_DOUBLE_EQ(ct::bandwidth_gbs(1e9, 1000.0), 1.0);
    EXPECT_DOUBLE_EQ(ct::bandwidth_gbs(1e9, 0.0), 0.0);
    EXPECT_DOUBLE_EQ(ct::percent_of(838.0, 3352.0), 25.0);
    EXPECT_DOUBLE_EQ(ct::percent_of(1.0, 0.0), 0.0);
}

TEST(TheoreticalBandwidth, MatchesTheH100AndV100Figures) {
    // H100 80GB HBM3: memory clock 2619 MHz, 5120-bit bus -> 3352 GB/s.
    EXPECT_NEAR(ct::theoretical_bandwidth_gbs(2619000, 5120), 3352.3, 0.1);
    // V100: 877 MHz, 4096-bit -> 898 GB/s.
    EXPECT_NEAR(ct::theoretical_bandwidth_gbs(877000, 4096), 898.0, 0.1);
    EXPECT_DOUBLE_EQ(ct::theoretical_bandwidth_gbs(0, 5120), 0.0);
    EXPECT_DOUBLE_EQ(ct::theoretical_bandwidth_gbs(2619000, 0), 0.0);
}

TEST(VersionString, DecodesRuntimeEncoding) {
    EXPECT_EQ(ct::cuda_version_string(13000), "13.0");
    EXPECT_EQ(ct::cuda_version_string(12040), "12.4");
    EXPECT_EQ(ct::cuda_version_string(11080), "11.8");
}

TEST(FormatBytes, PicksABinaryUnit) {
    EXPECT_EQ(ct::format_bytes(512), "512 B");
    EXPECT_EQ(ct::format_bytes(32.0 * 1024 * 1024), "32.0 MiB");
    EXPECT_EQ(ct::format_bytes(1.5 * 1024 * 1024 * 1024), "1.50 GiB");
}
