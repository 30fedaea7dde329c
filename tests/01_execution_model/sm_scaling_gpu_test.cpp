// GPU tests of the scaling section: green contexts hold what the driver says, and both kernels
// give verified results on the smallest and on the full partition without leaving it. Skipped
// without a GPU, and where the driver or the device cannot make green contexts.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"
#include "green_context.hpp"
#include "sm_scaling.hpp"

namespace em = execution_model;
namespace ct = cudatutorial;
using cudatutorial::testing::sanitizing;

namespace {

// Skips the test (with the driver's reason) where green contexts are unavailable.
#define REQUIRE_GREEN_CONTEXTS(support)                                        \
    do {                                                                       \
        CT_REQUIRE_GPU();                                                      \
        ct::select_device(0);                                                  \
        support = em::green_context_support(0);                                \
        if (!support.supported) {                                              \
            GTEST_SKIP() << "green contexts unavailable: " << support.why_not; \
        }                                                                      \
    } while (0)

std::string extra(const ct::ResultRow& row, const std::string& column) {
    for (const auto& [name, value] : row.extra) {
        if (name == column) {
            return value;
        }
    }
    return {};
}

}  // namespace

TEST(SmScalingGpu, DeviceResourceIsConsistent) {
    em::GreenContextSupport support;
    REQUIRE_GREEN_CONTEXTS(support);
    const ct::DeviceInfo info = ct::select_device(0);
    EXPECT_EQ(support.sm.sm_count, info.sm_count);
    EXPECT_GE(support.sm.min_partition, 1);
    EXPECT_LE(support.sm.min_partition, support.sm.sm_count);
    EXPECT_GE(support.sm.alignment, 1);
    std::cout << "[ info     ] " << info.name << ": " << support.sm.sm_count << " SMs, minimum "
              << support.sm.min_partition << ", alignment " << support.sm.alignment << "\n";
}

TEST(SmScalingGpu, PartitionsHoldWhatTheDriverPromises) {
    em::GreenContextSupport support;
    REQUIRE_GREEN_CONTEXTS(support);
    const int total = support.sm.sm_count;
    const int step = std::max(1, support.sm.alignment);
    {
        em::SmPartition smallest(0, support.sm.min_partition);
        EXPECT_GE(smallest.sm_count(), support.sm.min_partition);
        EXPECT_LT(smallest.sm_count(), total);
        EXPECT_EQ(smallest.sm_count() % step, 0);
        EXPECT_NE(smallest.stream(), nullptr);
    }
    {
        // A request of one SM is rounded up to the minimum, not refused.
        em::SmPartition one(0, 1);
        EXPECT_GE(one.sm_count(), support.sm.min_partition);
    }
    em::SmPartition whole(0, total);
    EXPECT_EQ(whole.sm_count(), total);
}

TEST(SmScalingGpu, BothKernelsVerifiedAndConfinedOnSmallestAndFullPartition) {
    em::GreenContextSupport support;
    REQUIRE_GREEN_CONTEXTS(support);
    const ct::DeviceInfo info = ct::select_device(0);
    em::ScalingConfig config;
    // Sizes that are multiples of nothing: the last blocks of each row and column are partial.
    config.nx = sanitizing() ? 517 : 4099;
    config.ny = sanitizing() ? 33 : 1025;
    config.fma_trips = sanitizing() ? 1 : 8;
    config.fma_waves = sanitizing() ? 1 : 2;
    const int smallest =
        em::partition_sizes(support.sm.sm_count, support.sm.min_partition, support.sm.alignment)
            .front();
    config.partitions = {smallest, support.sm.sm_count};
    ct::BenchmarkConfig timing;
    timing.warmup = 1;
    timing.repetitions = sanitizing() ? 1 : 3;
    const em::ScalingResult result = em::run_sm_scaling(config, info, timing);
    ASSERT_TRUE(result.skipped.empty()) << result.skipped;
    const int expected_rows = smallest < support.sm.sm_count ? 4 : 2;
    ASSERT_EQ(static_cast<int>(result.rows.size()), expected_rows);
    int fma_seen_small = 0;
    int fma_seen_full = 0;
    for (const ct::ResultRow& row : result.rows) {
        SCOPED_TRACE(row.id);
        EXPECT_TRUE(row.timed);
        EXPECT_TRUE(row.passed) << row.detail;
        const int sms = std::stoi(extra(row, "SMs"));
        const int seen = std::stoi(extra(row, "SMs seen"));
        EXPECT_GE(seen, 1);
        EXPECT_LE(seen, sms) << "blocks ran outside the partition";
        if (row.id.rfind("fma@", 0) == 0) {
            (sms == support.sm.sm_count ? fma_seen_full : fma_seen_small) = seen;
        }
        std::cout << "[ info     ] " << row.id << ": " << sms << " SMs, " << seen
                  << " seen, median " << row.stats.median_ms << " ms\n";
    }
    if (expected_rows == 4) {
        // Confinement changed something: the whole GPU used more SMs than the smallest partition.
        EXPECT_GT(fma_seen_full, smallest);
    }
    EXPECT_EQ(result.matrix_sum.size(), static_cast<std::size_t>(expected_rows / 2));
    EXPECT_EQ(result.fma.size(), static_cast<std::size_t>(expected_rows / 2));
}

TEST(SmScalingGpu, CensusCountsEveryBlock) {
    em::GreenContextSupport support;
    REQUIRE_GREEN_CONTEXTS(support);
    em::SmPartition partition(0, support.sm.min_partition);
    const em::BlockShape block{40, 2, 1};  // not a whole number of warps
    const em::BlockShape grid{37, 3, 1};
    ct::DeviceBuffer<unsigned int> records(static_cast<std::size_t>(grid.x) * grid.y + 1);
    records.fill_bytes(0xff);
    CT_CHECK(cudaDeviceSynchronize());
    em::launch_sm_census(records.data(), grid, block, partition.stream());
    CT_CHECK(cudaStreamSynchronize(partition.stream()));
    const auto host = records.to_host();
    for (std::size_t i = 0; i + 1 < host.size(); ++i) {
        ASSERT_NE(host[i], 0xffffffffu) << "block " << i << " recorded nothing";
    }
    EXPECT_EQ(host.back(), 0xffffffffu) << "the census wrote past its grid";
    std::vector<unsigned int> ids(host.begin(), host.end() - 1);
    EXPECT_LE(em::distinct_sms(ids), partition.sm_count());
}
