// Chapter 4 on the GPU: every nested version against the CPU reference, with the outputs
// poisoned before every run and the device-side launch count checked against the formula; the
// default pending-launch pool overflowing (detected, not hidden); the nested hello world.
// Skipped without a GPU. Each TEST is its own process, so each sets the pending-launch pool it
// needs before its first kernel, as the CUDA guide asks.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"
#include "nested_reduction.hpp"
#include "process.hpp"
#include "reduction.hpp"

namespace nr = nested_reduction;
namespace ct = cudatutorial;

namespace {

using cudatutorial::testing::sanitizing;

// The input patterns: random over the whole int range (the sum wraps many times), all ones (the
// sum is n: a lost chunk shows as a plain number), and values next to INT_MAX/INT_MIN.
std::vector<int> make_input(const std::string& pattern, std::size_t n) {
    if (pattern == "ones") {
        return std::vector<int>(n, 1);
    }
    if (pattern == "extremes") {
        std::vector<int> values = ct::random_ints(n, 7, 0, 7);
        for (std::size_t i = 0; i < n; ++i) {
            values[i] = (i % 3 == 0) ? INT_MIN + values[i] : INT_MAX - values[i];
        }
        return values;
    }
    return ct::random_ints(n, ct::kDefaultSeed, INT_MIN, INT_MAX);
}

struct RunOutcome {
    int sum = 0;
    nr::LaunchCounters counters;
};

// One run from a poisoned state: the work buffer, the partials and the result are all 0xff
// bytes and the counters zero, so nothing left from an earlier run can make this one pass.
RunOutcome run_once(nr::NestedReducer& reducer, const ct::DeviceBuffer<int>& d_in,
                    ct::DeviceBuffer<int>& d_sum) {
    reducer.poison_workspace();
    d_sum.fill_bytes(0xff);
    reducer.reset_counters();
    reducer.run(d_in.data(), d_sum.data(), nullptr);
    CT_CHECK(cudaDeviceSynchronize());
    RunOutcome outcome;
    d_sum.copy_to_host(&outcome.sum, 1);
    outcome.counters = reducer.counters();
    return outcome;
}

void expect_correct(nr::NestedReducer& reducer, const std::vector<int>& host,
                    const ct::DeviceBuffer<int>& d_in, ct::DeviceBuffer<int>& d_sum) {
    const RunOutcome outcome = run_once(reducer, d_in, d_sum);
    EXPECT_EQ(outcome.sum, reduction::reference_sum(host.data(), host.size()));
    EXPECT_EQ(outcome.counters.failed, 0u)
        << nr::describe_failures(outcome.counters, nr::pending_launch_pool());
    EXPECT_EQ(outcome.counters.launched, reducer.expected_device_launches());
}

}  // namespace

TEST(NestedReductionGpu, EveryVersionMatchesTheReferenceAndTheLaunchFormula) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    // Every configuration below launches at most this many grids from the device per run, so
    // the default pool (2048 slots) always suffices; kept small so the test runs in seconds.
    const std::uint64_t max_per_block_launches = sanitizing() ? 64 : 2000;
    std::vector<std::size_t> sizes = {1, 2, 33, 1000, 4099, 20000, (1u << 16) + 5};
    if (sanitizing()) {
        sizes = {1, 33, 1000, 4099};
    }
    EXPECT_EQ(nr::pending_launch_pool(), nr::kDefaultPendingLaunches);
    for (const std::string pattern : {"random", "ones", "extremes"}) {
        for (const std::size_t n : sizes) {
            const std::vector<int> host = make_input(pattern, n);
            const ct::DeviceBuffer<int> d_in(host);
            ct::DeviceBuffer<int> d_sum(1);
            for (const int block : {32, 128, 1024}) {
                for (const auto& entry : nr::versions()) {
                    if (entry.one_child_per_block &&
                        nr::device_launches(entry.version, n, block) > max_per_block_launches) {
                        continue;
                    }
                    SCOPED_TRACE(entry.id + " n=" + std::to_string(n) +
                                 " block=" + std::to_string(block) + " data=" + pattern);
                    nr::NestedReducer reducer(entry.version, n, block);
                    expect_correct(reducer, host, d_in, d_sum);
                }
            }
        }
    }
}

TEST(NestedReductionGpu, PerLevelVersionAtLargeSizes) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const std::size_t n = sanitizing() ? (1u << 16) + 3 : (std::size_t{1} << 22) + 1;
    const std::vector<int> host = make_input("random", n);
    const ct::DeviceBuffer<int> d_in(host);
    ct::DeviceBuffer<int> d_sum(1);
    for (const int block : {64, 512, 1024}) {
        SCOPED_TRACE("block=" + std::to_string(block));
        nr::NestedReducer reducer(nr::Version::kPerLevelTail, n, block);
        expect_correct(reducer, host, d_in, d_sum);
    }
}

TEST(NestedReductionGpu, RepeatedRunsAccumulateTheLaunchCount) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const std::size_t n = 5000;
    const std::vector<int> host = make_input("random", n);
    const ct::DeviceBuffer<int> d_in(host);
    ct::DeviceBuffer<int> d_sum(1);
    for (const auto& entry : nr::versions()) {
        SCOPED_TRACE(entry.id);
        nr::NestedReducer reducer(entry.version, n, 64);
        reducer.poison_workspace();
        reducer.reset_counters();
        for (int run = 0; run < 3; ++run) {
            d_sum.fill_bytes(0xff);
            reducer.run(d_in.data(), d_sum.data(), nullptr);
            CT_CHECK(cudaDeviceSynchronize());
            int sum = 0;
            d_sum.copy_to_host(&sum, 1);
            EXPECT_EQ(sum, reduction::reference_sum(host));
        }
        const nr::LaunchCounters counters = reducer.counters();
        EXPECT_EQ(counters.failed, 0u);
        EXPECT_EQ(counters.launched, 3 * reducer.expected_device_launches());
    }
}

// The textbook's configuration (2^20 ints, 2048 blocks of 512: 16384 child grids) with the pool
// raised to cover every launch: no launch fails and the sum is exact.
TEST(NestedReductionGpu, RaisedPoolRunsTheTextbookConfiguration) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << "16384 device launches: too slow under compute-sanitizer";
    }
    ct::select_device(0);
    const std::size_t n = std::size_t{1} << 20;
    const int block = 512;
    nr::set_pending_launch_pool(nr::pending_launches_needed(nr::Version::kPerBlockSync, n, block));
    const std::vector<int> host = make_input("random", n);
    const ct::DeviceBuffer<int> d_in(host);
    ct::DeviceBuffer<int> d_sum(1);
    for (const auto& entry : nr::versions()) {
        SCOPED_TRACE(entry.id);
        nr::NestedReducer reducer(entry.version, n, block);
        expect_correct(reducer, host, d_in, d_sum);
    }
}

// The same configuration with the default pool of 2048 slots: version "sync" keeps thousands
// of child launches pending at once and many of them fail (measured on an H100: 2741 of
// 16384). The failures are seen on the device and reported; the poisoned partials make the sum
// wrong instead of silently right. A labelled failure demonstration: excluded from the
// sanitizer runs by its suite name.
TEST(NestedReductionBugDemo, DefaultPoolOverflowIsDetectedNotHidden) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const std::size_t n = std::size_t{1} << 20;
    const int block = 512;
    nr::set_pending_launch_pool(nr::kDefaultPendingLaunches);
    const std::vector<int> host = make_input("ones", n);
    const ct::DeviceBuffer<int> d_in(host);
    ct::DeviceBuffer<int> d_sum(1);
    nr::NestedReducer reducer(nr::Version::kPerBlockSync, n, block);
    const RunOutcome outcome = run_once(reducer, d_in, d_sum);
    const std::string report = nr::describe_failures(outcome.counters, nr::pending_launch_pool());
    std::cout << "launched " << outcome.counters.launched << " of "
              << reducer.expected_device_launches() << "; " << report << "\n";
    EXPECT_GT(outcome.counters.failed, 0u) << "the default pool did not overflow this time";
    if (outcome.counters.failed > 0) {
        const auto code = static_cast<cudaError_t>(outcome.counters.first_error);
        EXPECT_TRUE(code == cudaErrorLaunchPendingCountExceeded ||
                    code == cudaErrorLaunchOutOfResources)
            << cudaGetErrorName(code);
        EXPECT_LT(outcome.counters.launched, reducer.expected_device_launches());
        EXPECT_NE(outcome.sum, static_cast<int>(n)) << "a lost chunk must not look like success";
        EXPECT_FALSE(report.empty());
    }
}

// Why the outputs are poisoned before every run: with the pool large enough, one run writes
// every partial sum; then, with the default pool, the same reduction loses thousands of child
// launches - and still produces the right sum, because the partial sums the failed children
// should have written are still there from the run before. Only the launch counters (or a
// poisoned workspace) reveal it.
TEST(NestedReductionBugDemo, StalePartialsHideTheOverflowUnlessPoisoned) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const std::size_t n = std::size_t{1} << 20;
    const int block = 512;
    const std::vector<int> host = make_input("random", n);
    const int reference = reduction::reference_sum(host);
    const ct::DeviceBuffer<int> d_in(host);
    ct::DeviceBuffer<int> d_sum(1);
    nr::NestedReducer reducer(nr::Version::kPerBlockSync, n, block);

    nr::set_pending_launch_pool(nr::pending_launches_needed(reducer.version(), n, block));
    expect_correct(reducer, host, d_in, d_sum);  // every partial sum written, and right

    nr::set_pending_launch_pool(nr::kDefaultPendingLaunches);
    reducer.reset_counters();
    d_sum.fill_bytes(0xff);
    reducer.run(d_in.data(), d_sum.data(), nullptr);  // NOT poisoned: the trap
    CT_CHECK(cudaDeviceSynchronize());
    int stale_sum = 0;
    d_sum.copy_to_host(&stale_sum, 1);
    const nr::LaunchCounters stale = reducer.counters();
    std::cout << "without poisoning: " << stale.failed << " launches failed, sum "
              << (stale_sum == reference ? "matches" : "differs from") << " the reference\n";
    ASSERT_GT(stale.failed, 0u) << "the default pool did not overflow this time";
    EXPECT_EQ(stale_sum, reference) << "stale partial sums should have filled every gap";

    const RunOutcome poisoned = run_once(reducer, d_in, d_sum);  // poisoned: the truth
    EXPECT_GT(poisoned.counters.failed, 0u);
    EXPECT_NE(poisoned.sum, reference);
}

TEST(NestedHelloGpu, LinesPerDepthCountedOnTheDevice) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    std::vector<std::pair<int, int>> shapes = {{1, 8}, {2, 8}, {3, 16}, {1, 1}};
    if (sanitizing()) {
        shapes = {{2, 4}};  // keep the printed lines few under the sanitizer
    }
    for (const auto& [blocks, threads] : shapes) {
        for (const auto variant :
             {nr::HelloVariant::kOneBlockChildren, nr::HelloVariant::kSameGridChildren}) {
            SCOPED_TRACE(std::to_string(blocks) + " x " + std::to_string(threads));
            const nr::HelloResult result = nr::run_nested_hello(variant, blocks, threads);
            EXPECT_EQ(result.lines_per_depth, nr::expected_hello_lines(blocks, threads));
            EXPECT_EQ(result.launches.failed, 0u);
            EXPECT_EQ(result.launches.launched,
                      nr::expected_hello_launches(variant, blocks, threads));
        }
    }
}

// The printed output itself: the executable's device printf lines, counted per depth.
TEST(NestedHelloGpu, ExecutablePrintsTheExpectedLinesPerDepth) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP()
            << "runs the executable in a child process, which the sanitizer does not follow";
    }
    const int blocks = 2;
    const int threads = 8;
    const auto result = cudatutorial::testing::run_process(
        std::string(NESTED_REDUCTION_BIN) + " --hello --blocks " + std::to_string(blocks) +
        " --threads " + std::to_string(threads));
    ASSERT_EQ(result.exit_code, 0) << result.output;
    std::map<int, std::uint64_t> counted;
    std::istringstream lines(result.output);
    std::string line;
    const std::regex hello(R"(^\[depth (\d+)\] hello from block \d+, thread \d+$)");
    while (std::getline(lines, line)) {
        std::smatch match;
        if (std::regex_match(line, match, hello)) {
            ++counted[std::stoi(match[1])];
        }
    }
    const std::vector<std::uint64_t> expected = nr::expected_hello_lines(blocks, threads);
    ASSERT_EQ(counted.size(), expected.size()) << result.output;
    for (std::size_t depth = 0; depth < expected.size(); ++depth) {
        // Both variants run, each printing the expected lines at every depth.
        EXPECT_EQ(counted[static_cast<int>(depth)], 2 * expected[depth]) << "depth " << depth;
    }
}
