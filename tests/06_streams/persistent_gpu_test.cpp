// GPU tests of scenario 9, the persistent kernel. Every test ends in seconds whatever happens:
// the kernel gives up after its idle limit, the host after Limits::host_wait_ms.
//  - ordering: after each completion, the receipt and the buffer are exactly that task's;
//  - a clean stop: the kernel returns, its stream drains, the device synchronizes at once;
//  - a host that stops ringing: the kernel ends by itself within its idle limit, with the error
//    state, and the GPU stays usable;
//  - a host that goes away (std::_Exit in a child process): the exit does not hang and the GPU
//    is usable afterwards;
//  - the guard stops the kernel when an exception leaves its scope;
//  - the baselines (a launch and a graph launch per task) are exact too.
// Under compute-sanitizer (CT_SANITIZE) the launch may be held until the kernel ends, which the
// interactive protocol cannot survive (the kernel would wait for a doorbell that the held host
// cannot ring): the tests that ring the doorbell are skipped there, and the kernel is checked
// with its tasks posted before the launch (QueuedTasks...), which every tool can run.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"
#include "process.hpp"
#include "round_trip.hpp"
#include "scenarios/persistent_kernel.hpp"

namespace sp = streams::persistent;
using cudatutorial::testing::sanitizing;

namespace {

#define SKIP_UNDER_SANITIZER()                                                                 \
    do {                                                                                       \
        if (sanitizing()) {                                                                    \
            GTEST_SKIP() << "rings the doorbell while the kernel runs: compute-sanitizer may " \
                            "hold the launch until the kernel ends";                           \
        }                                                                                      \
    } while (0)

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// How long cudaDeviceSynchronize takes now: instant when nothing runs, the rest of a resident
// kernel's life otherwise.
double device_synchronize_seconds() {
    const auto start = std::chrono::steady_clock::now();
    CT_CHECK(cudaDeviceSynchronize());
    return seconds_since(start);
}

// A kernel launched and waited for, after whatever the test did: the GPU still works.
void expect_gpu_usable() {
    const auto initial = sp::initial_values(1000, 3);
    sp::LaunchedTasks launched(initial, sp::LaunchWay::kKernel);
    EXPECT_EQ(sp::check_receipt(initial, 1, launched.run_task()), "");
    EXPECT_EQ(sp::check_values(initial, 1, launched.values()), "");
}

}  // namespace

TEST(PersistentGpu, EveryResultIsVisibleWhenItsCompletionIs) {
    CT_REQUIRE_GPU();
    SKIP_UNDER_SANITIZER();
    cudatutorial::select_device(0);
    for (const std::uint32_t n : {1u, 255u, 4096u, 4099u, 65536u}) {
        SCOPED_TRACE("n " + std::to_string(n));
        const auto initial = sp::initial_values(n, n);
        sp::PersistentKernel kernel(initial, sp::Limits{});
        const int tasks = n == 4096 ? 20000 : 500;
        for (int t = 1; t <= tasks; ++t) {
            // run_task returns once the completion reads t: the receipt, written before it,
            // must be task t's, never the previous one's.
            const sp::Receipt receipt = kernel.run_task();
            ASSERT_EQ(sp::check_receipt(initial, t, receipt), "") << "task " << t;
            ASSERT_EQ(kernel.tasks_done(), static_cast<std::uint64_t>(t));
            if (t <= 100 || t % 1000 == 0) {
                // The buffer itself, read while the kernel waits for the next task.
                ASSERT_EQ(sp::check_values(initial, t, kernel.values()), "") << "task " << t;
            }
        }
        EXPECT_EQ(kernel.stop(), sp::KernelState::kStopped);
        EXPECT_EQ(sp::check_values(initial, tasks, kernel.values()), "");
    }
}

TEST(PersistentGpu, ACleanStopEndsTheKernelAndDrainsItsStream) {
    CT_REQUIRE_GPU();
    SKIP_UNDER_SANITIZER();
    cudatutorial::select_device(0);
    const auto initial = sp::initial_values(4096, 21);
    sp::Limits limits;
    limits.idle_limit_ms = 20000;  // far longer than the test: only the stop can end the kernel
    sp::PersistentKernel kernel(initial, limits);
    EXPECT_EQ(kernel.state(), sp::KernelState::kRunning);
    for (int t = 1; t <= 10; ++t) {
        ASSERT_EQ(sp::check_receipt(initial, t, kernel.run_task()), "");
    }
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(kernel.stop(), sp::KernelState::kStopped);
    EXPECT_LT(seconds_since(start), 1.0);
    EXPECT_EQ(kernel.state(), sp::KernelState::kStopped);  // the error state is clear
    EXPECT_LT(device_synchronize_seconds(), 1.0);          // nothing of it still runs
    EXPECT_EQ(kernel.stop(), sp::KernelState::kStopped);   // a second stop changes nothing
    EXPECT_THROW(kernel.run_task(), std::runtime_error);   // an ended kernel runs no task
    EXPECT_EQ(sp::check_values(initial, 10, kernel.values()), "");
}

TEST(PersistentGpu, AStopWithoutAnyTaskLeavesTheBufferAsItWas) {
    CT_REQUIRE_GPU();
    SKIP_UNDER_SANITIZER();
    cudatutorial::select_device(0);
    const auto initial = sp::initial_values(4096, 22);
    sp::PersistentKernel kernel(initial, sp::Limits{});
    EXPECT_EQ(kernel.stop(), sp::KernelState::kStopped);
    EXPECT_EQ(kernel.tasks_done(), 0u);
    EXPECT_EQ(kernel.values(), initial);
}

TEST(PersistentGpu, AHostThatStopsRingingLeavesAKernelThatEndsByItself) {
    CT_REQUIRE_GPU();
    SKIP_UNDER_SANITIZER();
    cudatutorial::select_device(0);
    const auto initial = sp::initial_values(4096, 23);
    sp::Limits limits;
    limits.idle_limit_ms = 200;
    sp::PersistentKernel kernel(initial, limits);
    for (int t = 1; t <= 5; ++t) {
        ASSERT_EQ(sp::check_receipt(initial, t, kernel.run_task()), "");
    }
    // No more doorbells. The kernel must give up on its own, after its idle limit.
    const auto start = std::chrono::steady_clock::now();
    while (kernel.state() == sp::KernelState::kRunning && seconds_since(start) < 10.0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const double waited = seconds_since(start);
    EXPECT_EQ(kernel.state(), sp::KernelState::kIdleLimit);
    EXPECT_GT(waited, 0.15);  // not before its limit (the poll loop started a little earlier)
    EXPECT_LT(waited, 2.0);
    // It has returned: the device synchronizes at once, and the stop reports the error state.
    EXPECT_LT(device_synchronize_seconds(), 1.0);
    EXPECT_EQ(kernel.stop(), sp::KernelState::kIdleLimit);
    EXPECT_THROW(kernel.run_task(), std::runtime_error);
    EXPECT_EQ(sp::check_values(initial, 5, kernel.values()), "");
    expect_gpu_usable();
}

TEST(PersistentGpu, TheGuardStopsTheKernelWhenAnExceptionLeavesItsScope) {
    CT_REQUIRE_GPU();
    SKIP_UNDER_SANITIZER();
    cudatutorial::select_device(0);
    const auto initial = sp::initial_values(4096, 24);
    sp::Limits limits;
    limits.idle_limit_ms = 20000;  // without the guard, the kernel would outlive the test
    try {
        sp::PersistentKernel kernel(initial, limits);
        ASSERT_EQ(sp::check_receipt(initial, 1, kernel.run_task()), "");
        throw std::runtime_error("something else failed");
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "something else failed");
    }
    EXPECT_LT(device_synchronize_seconds(), 1.0);
    expect_gpu_usable();
}

TEST(PersistentGpu, AHostThatGoesAwayDoesNotHangAndLeavesTheGpuUsable) {
    CT_REQUIRE_GPU();
    SKIP_UNDER_SANITIZER();
    cudatutorial::select_device(0);
    // The child exits with its kernel spinning; `timeout` ends it if its exit ever hangs.
    const auto start = std::chrono::steady_clock::now();
    const auto result = cudatutorial::testing::run_process(std::string("timeout 60 ") +
                                                           STREAMS_PERSISTENT_CHILD + " 5");
    const double took = seconds_since(start);
    EXPECT_EQ(result.exit_code, 0) << result.output;  // 124: timeout had to end it
    EXPECT_NE(result.output.find("ran 5 tasks"), std::string::npos) << result.output;
    EXPECT_LT(took, 30.0) << result.output;
    expect_gpu_usable();
    // And a persistent kernel of this process still runs its tasks.
    const auto initial = sp::initial_values(4096, 25);
    sp::PersistentKernel kernel(initial, sp::Limits{});
    EXPECT_EQ(sp::check_receipt(initial, 1, kernel.run_task()), "");
    EXPECT_EQ(kernel.stop(), sp::KernelState::kStopped);
}

TEST(PersistentGpu, QueuedTasksRunInOrderThenStop) {
    CT_REQUIRE_GPU();
    cudatutorial::select_device(0);
    // Posted before the launch: the kernel never waits for the host, so this runs under every
    // compute-sanitizer tool, even one that holds the launch until the kernel ends.
    // The kernel ends by itself here; a tool may slow it down a hundredfold: wait longer for it.
    sp::Limits limits;
    limits.host_wait_ms = sanitizing() ? 120000 : 3000;
    for (const std::uint32_t n : {1u, 4097u}) {
        const auto initial = sp::initial_values(n, 26);
        const std::uint64_t tasks = sanitizing() ? 3 : 1000;
        sp::PersistentKernel kernel(initial, limits, tasks);
        EXPECT_EQ(kernel.stop(), sp::KernelState::kStopped);
        EXPECT_EQ(kernel.tasks_done(), tasks);
        EXPECT_EQ(sp::check_values(initial, tasks, kernel.values()), "") << "n " << n;
    }
}

TEST(PersistentGpu, LaunchedTasksAreExactAsKernelsAndAsAGraph) {
    CT_REQUIRE_GPU();
    cudatutorial::select_device(0);
    for (const sp::LaunchWay way : {sp::LaunchWay::kKernel, sp::LaunchWay::kGraph}) {
        for (const std::uint32_t n : {1u, 4099u}) {
            const auto initial = sp::initial_values(n, 27);
            sp::LaunchedTasks launched(initial, way);
            const int tasks = sanitizing() ? 3 : 300;
            for (int t = 1; t <= tasks; ++t) {
                ASSERT_EQ(sp::check_receipt(initial, t, launched.run_task()), "");
            }
            EXPECT_EQ(sp::check_values(initial, tasks, launched.values()), "");
        }
    }
}

TEST(PersistentGpu, EveryWayPassesItsMeasurementAndThePersistentKernelIsFaster) {
    CT_REQUIRE_GPU();
    SKIP_UNDER_SANITIZER();
    cudatutorial::select_device(0);
    sp::RoundTripConfig config;
    config.tasks = 2000;
    config.warmup_tasks = 200;
    std::vector<double> medians;
    for (const sp::Way way : sp::all_ways()) {
        const sp::RoundTrip m = sp::time_round_trips(way, config);
        EXPECT_TRUE(m.passed) << sp::way_name(way) << ": " << m.detail;
        EXPECT_EQ(m.stats.samples, 2000);
        EXPECT_EQ(m.tasks_checked, 2200);
        EXPECT_GE(m.p99_us, m.stats.median_ms * 1000.0);
        medians.push_back(m.stats.median_ms);
    }
    // No launch per task: the persistent kernel's round trip beats launch + synchronize.
    ASSERT_EQ(sp::all_ways().back(), sp::Way::kPersistent);
    EXPECT_LT(medians.back(), medians.front());
}
