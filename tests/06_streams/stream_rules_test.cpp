// The stream-rule model: which kernels must run one after the other.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "stream_rules.hpp"
#include "streams.hpp"
#include "test_records.hpp"

using streams::KernelRecord;
using streams::StreamKind;
using streams::StreamOrder;
using streams::testing::kLegacyId;
using streams::testing::record;

namespace {

constexpr auto kLegacy = StreamKind::kLegacyDefault;
constexpr auto kBlocking = StreamKind::kBlocking;
constexpr auto kNonBlocking = StreamKind::kNonBlocking;

}  // namespace

TEST(StreamRules, LegacyDefaultStreamBetweenABlockingStreamOrdersEverything) {
    // Scenario 1, legacy build: s, legacy, s.
    const std::vector<KernelRecord> kernels = {
        record("k1", 10, kBlocking), record("k2", kLegacyId, kLegacy), record("k3", 10, kBlocking)};
    const StreamOrder order(kernels);
    EXPECT_TRUE(order.must_precede(0, 1));
    EXPECT_TRUE(order.must_precede(1, 2));
    EXPECT_TRUE(order.must_precede(0, 2));
    EXPECT_FALSE(order.must_precede(1, 0));  // only forwards in issue order
    EXPECT_TRUE(order.ordered(2, 0));        // either direction
}

TEST(StreamRules, NonBlockingStreamIgnoresTheLegacyStream) {
    // Scenario 2: s non-blocking, legacy, s.
    const std::vector<KernelRecord> kernels = {record("k1", 10, kNonBlocking),
                                               record("k2", kLegacyId, kLegacy),
                                               record("k3", 10, kNonBlocking)};
    const StreamOrder order(kernels);
    EXPECT_FALSE(order.ordered(0, 1));
    EXPECT_FALSE(order.ordered(1, 2));
    EXPECT_TRUE(order.must_precede(0, 2));  // the same stream
}

TEST(StreamRules, PerThreadDefaultStreamIsAnOrdinaryStream) {
    // Scenario 1, per-thread build: s, this thread's default stream, s.
    const std::vector<KernelRecord> kernels = {
        record("k1", 10, kBlocking), record("k2", 77, kBlocking), record("k3", 10, kBlocking)};
    const StreamOrder order(kernels);
    EXPECT_FALSE(order.ordered(0, 1));
    EXPECT_FALSE(order.ordered(1, 2));
    EXPECT_TRUE(order.must_precede(0, 2));
}

TEST(StreamRules, DummiesOnTheLegacyStreamChainAllWorkersTransitively) {
    // Scenario 3, legacy build: w0 d0 w1 d1 ... in 8 blocking streams and the legacy stream.
    std::vector<KernelRecord> legacy;
    std::vector<KernelRecord> per_thread;
    for (int i = 0; i < 8; ++i) {
        const auto stream = static_cast<std::uint64_t>(100 + i);
        legacy.push_back(record("w" + std::to_string(i), stream, kBlocking));
        legacy.push_back(record("d" + std::to_string(i), kLegacyId, kLegacy));
        per_thread.push_back(record("w" + std::to_string(i), stream, kBlocking));
        per_thread.push_back(record("d" + std::to_string(i), 77, kBlocking));
    }
    const StreamOrder legacy_order(legacy);
    const StreamOrder per_thread_order(per_thread);
    for (std::size_t a = 0; a < 16; a += 2) {
        for (std::size_t b = a + 2; b < 16; b += 2) {
            SCOPED_TRACE(legacy[a].name + " " + legacy[b].name);
            EXPECT_TRUE(legacy_order.must_precede(a, b));
            EXPECT_FALSE(per_thread_order.ordered(a, b));
        }
    }
    EXPECT_TRUE(per_thread_order.must_precede(1, 15));  // the dummies share one stream
    EXPECT_FALSE(per_thread_order.ordered(0, 1));       // a worker and the dummy after it
}

TEST(StreamRules, TheLegacyStreamWaitsForEarlierWorkAndLaterWorkWaitsForIt) {
    const std::vector<KernelRecord> first = {
        record("L", kLegacyId, kLegacy), record("a", 10, kBlocking), record("b", 11, kBlocking)};
    const StreamOrder after(first);
    EXPECT_TRUE(after.must_precede(0, 1));
    EXPECT_TRUE(after.must_precede(0, 2));
    EXPECT_FALSE(after.ordered(1, 2));

    const std::vector<KernelRecord> last = {record("a", 10, kBlocking), record("b", 11, kBlocking),
                                            record("L", kLegacyId, kLegacy)};
    const StreamOrder before(last);
    EXPECT_TRUE(before.must_precede(0, 2));
    EXPECT_TRUE(before.must_precede(1, 2));
    EXPECT_FALSE(before.ordered(0, 1));

    const std::vector<KernelRecord> non_blocking = {record("a", 10, kNonBlocking),
                                                    record("L", kLegacyId, kLegacy),
                                                    record("b", 11, kNonBlocking)};
    const StreamOrder none(non_blocking);
    EXPECT_FALSE(none.ordered(0, 1));
    EXPECT_FALSE(none.ordered(1, 2));
    EXPECT_FALSE(none.ordered(0, 2));
}

TEST(StreamRules, OneSharedStreamOrdersAllThreadsLaunches) {
    // Scenario 4: legacy (all threads on the one legacy stream) against per-thread streams.
    std::vector<KernelRecord> legacy;
    std::vector<KernelRecord> per_thread;
    for (int t = 1; t <= 8; ++t) {
        legacy.push_back(record("t" + std::to_string(t), kLegacyId, kLegacy));
        per_thread.push_back(record("t" + std::to_string(t), 200 + t, kBlocking));
    }
    const StreamOrder legacy_order(legacy);
    const StreamOrder per_thread_order(per_thread);
    for (std::size_t a = 0; a < 8; ++a) {
        for (std::size_t b = a + 1; b < 8; ++b) {
            EXPECT_TRUE(legacy_order.ordered(a, b));
            EXPECT_FALSE(per_thread_order.ordered(a, b));
        }
    }
}

TEST(StreamRules, WorksBeyondOneWordOfBits) {
    std::vector<KernelRecord> one_stream;
    std::vector<KernelRecord> many_streams;
    for (int i = 0; i < 130; ++i) {
        one_stream.push_back(record("g" + std::to_string(i), 5, kBlocking));
        many_streams.push_back(record("g" + std::to_string(i), 1000 + i, kBlocking));
    }
    const StreamOrder chained(one_stream);
    const StreamOrder free(many_streams);
    EXPECT_EQ(chained.size(), 130u);
    EXPECT_TRUE(chained.must_precede(0, 129));
    EXPECT_TRUE(chained.must_precede(63, 64));
    EXPECT_TRUE(chained.must_precede(64, 128));
    EXPECT_FALSE(free.ordered(0, 129));
    EXPECT_FALSE(free.ordered(63, 64));
    EXPECT_FALSE(chained.must_precede(0, 130));  // out of range: false, not a crash
}

TEST(StreamsScenarios, DeviceBytesCountOutputsAndBothTimeRecordsPerKernel) {
    // Per kernel slot: n outputs of 4 bytes, the kernel's KernelTimes and the scratch one of the
    // launch that primes its stream (24 bytes each).
    streams::ScenarioConfig config;
    config.n = 4096;
    config.streams = 8;
    config.probe_kernels = 256;
    EXPECT_EQ(streams::device_bytes(1, config), 3u * (4096u * 4u + 48u));
    EXPECT_EQ(streams::device_bytes(3, config), 16u * (4096u * 4u + 48u));
    EXPECT_EQ(streams::device_bytes(4, config), 8u * (4096u * 4u + 48u));
    EXPECT_EQ(streams::device_bytes(5, config), 256u * (4096u * 4u + 48u));
}

// The scenario list is data: ids 1..kScenarioCount in order, each row with what its run needs;
// the stream-rule scenarios run in both builds, the others measure their own way, once.
TEST(ScenarioList, RowsSayHowEachScenarioRuns) {
    const auto& list = streams::scenario_list();
    ASSERT_EQ(list.size(), static_cast<std::size_t>(streams::kScenarioCount));
    const streams::ScenarioConfig config;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const streams::ScenarioInfo& s = list[i];
        SCOPED_TRACE(s.id);
        EXPECT_EQ(s.id, std::to_string(i + 1));
        EXPECT_EQ(&streams::scenario_info(static_cast<int>(i + 1)), &s);
        EXPECT_FALSE(s.name.empty());
        EXPECT_FALSE(s.idea.empty());
        EXPECT_STRNE(s.legacy_rule, "");
        EXPECT_STRNE(s.per_thread_rule, "");
        ASSERT_NE(s.kernels, nullptr);
        EXPECT_GE(s.kernels(config), 0);
        EXPECT_EQ(s.launch == nullptr, s.per_thread == nullptr);  // both builds or neither
        EXPECT_EQ(s.launch != nullptr, s.launches != nullptr);    // a rule scenario says its launch
        EXPECT_EQ(s.launch != nullptr, s.device_bytes == nullptr);
        EXPECT_GT(streams::device_bytes(static_cast<int>(i + 1), config), 0u);
    }
    EXPECT_THROW(streams::scenario_info(0), std::out_of_range);
    EXPECT_THROW(streams::scenario_info(streams::kScenarioCount + 1), std::out_of_range);
    EXPECT_EQ(streams::kernel_count(3, config), 2 * config.streams);
    EXPECT_EQ(streams::device_bytes(1, config), streams::rule_scenario_bytes(3, config));
    // What print_scenario shows under the title: N for scenarios 3 and 4, K for 5.
    EXPECT_NE(streams::scenario_info(3).launches(config).find("N = 8 streams"), std::string::npos);
    EXPECT_NE(streams::scenario_info(5).launches(config).find("K = 256 kernels"),
              std::string::npos);
    EXPECT_TRUE(streams::scenario_info(5).concurrency_profile);
}
