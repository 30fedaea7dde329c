// Scenario 9 on the CPU: the reference arithmetic of the task (what k tasks add, the receipt of
// every task) against a brute-force simulation, the checks catching a skipped, repeated or stale
// task, the percentile, and the rows: grouped by the task and compared with their own baseline
// (9a), so that no other scenario's row is compared with it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/report.hpp"
#include "round_trip.hpp"
#include "streams.hpp"

namespace sp = streams::persistent;

TEST(RoundTrip, AddedByTasksIsTheTriangleNumberModTwoToThe32) {
    EXPECT_EQ(sp::added_by_tasks(0), 0u);
    EXPECT_EQ(sp::added_by_tasks(1), 1u);
    EXPECT_EQ(sp::added_by_tasks(2), 3u);
    EXPECT_EQ(sp::added_by_tasks(100), 5050u);
    // Past 2^32: the sum wraps, as the kernel's 32-bit additions do.
    std::uint32_t sum = 0;
    for (std::uint64_t k = 1; k <= 200000; ++k) {
        sum += static_cast<std::uint32_t>(k);
        if (k % 9973 == 0 || k == 92682 || k == 92683 || k == 200000) {
            EXPECT_EQ(sp::added_by_tasks(k), sum) << k;
        }
    }
    // The largest task number a 32-bit receipt holds.
    const std::uint64_t big = (std::uint64_t{1} << 32) - 1;
    EXPECT_EQ(sp::added_by_tasks(big), static_cast<std::uint32_t>((big / 2 + 1) * big));
}

TEST(RoundTrip, InitialValuesDifferBySaltAndAreNotAllZero) {
    const auto a = sp::initial_values(4096, 1);
    const auto b = sp::initial_values(4096, 2);
    ASSERT_EQ(a.size(), 4096u);
    EXPECT_NE(a, b);
    EXPECT_NE(a[0], a[1]);
    EXPECT_EQ(sp::initial_values(4096, 1), a);
    EXPECT_EQ(sp::initial_values(1, 3).size(), 1u);
}

TEST(RoundTrip, ReceiptsMatchASimulationOfTheTasks) {
    for (const std::uint32_t n : {1u, 31u, 256u, 257u, 4096u, 4097u}) {
        const auto initial = sp::initial_values(n, 5);
        std::vector<std::uint32_t> values = initial;
        for (std::uint32_t task = 1; task <= 50; ++task) {
            std::uint32_t sum = 0;
            for (auto& v : values) {
                v += task;
                sum += v;
            }
            const sp::Receipt want = sp::expected_receipt(initial, task);
            EXPECT_EQ(want.task, task);
            EXPECT_EQ(want.checksum, sum) << "n " << n << ", task " << task;
            EXPECT_EQ(sp::check_receipt(initial, task, {task, sum}), "");
        }
        EXPECT_EQ(sp::check_values(initial, 50, values), "");
    }
}

TEST(RoundTrip, ChecksCatchAStaleASkippedAndAWrongTask) {
    const auto initial = sp::initial_values(4096, 9);
    const sp::Receipt third = sp::expected_receipt(initial, 3);
    // The previous task's receipt, read too early: caught by the task number.
    EXPECT_NE(sp::check_receipt(initial, 4, third).find("task 3's"), std::string::npos);
    // The right number with the buffer of another task (a receipt written before the buffer).
    sp::Receipt mixed = sp::expected_receipt(initial, 4);
    mixed.checksum = third.checksum;
    EXPECT_NE(sp::check_receipt(initial, 4, mixed).find("checksum"), std::string::npos);
    // The buffer: one task skipped, one value wrong, the wrong size.
    std::vector<std::uint32_t> values = initial;
    for (auto& v : values) {
        v += sp::added_by_tasks(10);
    }
    EXPECT_EQ(sp::check_values(initial, 10, values), "");
    EXPECT_NE(sp::check_values(initial, 11, values), "");
    values[4095] += 1;
    EXPECT_NE(sp::check_values(initial, 10, values).find("value 4095"), std::string::npos);
    values.pop_back();
    EXPECT_NE(sp::check_values(initial, 10, values).find("4095 values"), std::string::npos);
}

TEST(RoundTrip, PercentileByNearestRank) {  // the p99 of every round trip, from stats.hpp
    EXPECT_EQ(cudatutorial::percentile({}, 0.99), 0.0);
    std::vector<double> samples;
    for (int i = 100; i >= 1; --i) {
        samples.push_back(i);
    }
    EXPECT_EQ(cudatutorial::percentile(samples, 0.99), 99.0);
    EXPECT_EQ(cudatutorial::percentile(samples, 0.5), 50.0);
    EXPECT_EQ(cudatutorial::percentile(samples, 1.0), 100.0);
    EXPECT_EQ(cudatutorial::percentile(samples, 0.0), 1.0);
    EXPECT_EQ(cudatutorial::percentile({7.0}, 0.99), 7.0);
}

TEST(RoundTrip, WarmupIsATenthAndAtLeastTwenty) {
    EXPECT_EQ(sp::warmup_tasks_for(1), 20);
    EXPECT_EQ(sp::warmup_tasks_for(200), 20);
    EXPECT_EQ(sp::warmup_tasks_for(10000), 1000);
}

TEST(RoundTrip, ScenarioNineIsListedButNotRunByDefault) {
    const auto& info = streams::scenario_info(streams::kPersistentScenario);
    EXPECT_EQ(std::string(info.name), "persistent_kernel");
    EXPECT_EQ(streams::kScenarioCount, streams::kPersistentScenario);
    EXPECT_FALSE(info.by_default);  // run only when named: its kernel stays resident
    streams::ScenarioConfig config;
    config.persistent_tasks = 100;
    EXPECT_EQ(streams::kernel_count(streams::kPersistentScenario, config), 2 * (100 + 20) + 1);
    EXPECT_EQ(streams::device_bytes(streams::kPersistentScenario, config), 4096u * 4u);
    EXPECT_THROW(
        streams::run_scenario(streams::Build::kLegacy, streams::kPersistentScenario, config),
        std::invalid_argument);
    EXPECT_STREQ(sp::kernel_state_name(sp::KernelState::kIdleLimit), "idle limit");
    EXPECT_STREQ(sp::way_key(sp::Way::kPersistent), "persistent_kernel");
    EXPECT_EQ(sp::all_ways().front(), sp::Way::kLaunch);
}

TEST(RoundTrip, RowsCompareWithTheirOwnBaselineOnly) {
    const auto made = [](sp::Way way, double median_ms) {
        sp::RoundTrip m;
        m.way = way;
        m.stats.median_ms = median_ms;
        m.stats.min_ms = median_ms / 2;
        m.stats.max_ms = median_ms * 3;
        m.stats.samples = 1000;
        m.p99_us = median_ms * 2000;
        m.passed = true;
        return m;
    };
    cudatutorial::RunInfo info;
    info.program = "streams";
    cudatutorial::ResultTable table(info);
    cudatutorial::ResultRow other;  // a row of another scenario, in no group
    other.id = "6a";
    other.name = "chain, streams";
    other.timed = true;
    other.stats.median_ms = 3.0;
    other.stats.samples = 10;
    other.passed = true;
    other.in_progression = false;
    table.add(other);
    const std::string group = sp::round_trip_group(4096);
    EXPECT_EQ(group, "4096 ints");
    table.add(sp::round_trip_row(made(sp::Way::kLaunch, 0.010), group));
    table.add(sp::round_trip_row(made(sp::Way::kGraph, 0.011), group));
    table.add(sp::round_trip_row(made(sp::Way::kPersistent, 0.004), group));
    table.set_group_column("task");
    table.set_baseline("9a", "launch+sync");
    EXPECT_FALSE(table.speedup_vs_baseline(0).has_value());  // scenario 6's row: no baseline
    EXPECT_DOUBLE_EQ(*table.speedup_vs_baseline(1), 1.0);
    EXPECT_NEAR(*table.speedup_vs_baseline(3), 2.5, 1e-12);
    const auto& row = table.rows()[3];
    EXPECT_EQ(row.name, "persistent_kernel");
    EXPECT_NEAR(*row.extra_number("µs/task"), 4.0, 1e-12);
    EXPECT_NEAR(*row.extra_number("p99 µs"), 8.0, 1e-12);
    EXPECT_EQ(*row.extra_number("tasks"), 1000.0);
    EXPECT_TRUE(table.all_passed());
}

TEST(RoundTrip, AFailedWayIsAFailedRowWithItsReason) {
    sp::RoundTrip m;
    m.way = sp::Way::kPersistent;
    m.passed = false;
    m.detail = "the persistent kernel ended (idle limit) before task 7 completed";
    const auto row = sp::round_trip_row(m, "4096 ints");
    EXPECT_FALSE(row.passed);
    EXPECT_FALSE(row.timed);
    EXPECT_EQ(row.detail, m.detail);
}
