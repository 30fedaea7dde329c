// GPU tests of scenario 6: every launch mode gives the exact CPU result for chains of 1, 2, 33
// and 1000 kernels and for fork-joins; a graph replays correctly run after run (the buffer reset
// and a new salt in between); no kernel went to work before a predecessor ended; and the
// branches of a fork-join graph do run at the same time. Programmatic dependent launch needs
// compute capability 9.0: its tests skip on older GPUs. Under compute-sanitizer the timing
// assertion (branches overlapping) is left out: the tool may serialize kernels.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"
#include "launch_overhead.hpp"
#include "scenarios/graph_launch.hpp"

using streams::graph::LaunchMode;

namespace {

using cudatutorial::testing::sanitizing;

// The modes this device can run (PDL only on compute capability 9.0+).
std::vector<LaunchMode> supported_modes() {
    const auto device = cudatutorial::select_device(0);
    std::vector<LaunchMode> modes;
    for (const auto mode : streams::graph::launch_modes()) {
        if (streams::graph::unsupported_reason(mode, device.cc_major, device.cc_minor).empty()) {
            modes.push_back(mode);
        }
    }
    return modes;
}

// Runs `dag` once in `mode` and checks the buffer, the times and the edges.
void expect_exact(const streams::graph::Dag& dag, LaunchMode mode, std::uint32_t salt) {
    SCOPED_TRACE(dag.shape + " of " + std::to_string(dag.nodes.size()) + " kernels, " +
                 streams::graph::mode_name(mode));
    streams::graph::GraphRunner runner(dag, mode);
    const auto run = runner.run(salt);
    EXPECT_EQ(streams::check_graph_run(dag, salt, run), "");
    const auto summary = streams::graph::summarize_times(dag, run.times);
    EXPECT_EQ(summary.edges_out_of_order, 0) << summary.first_out_of_order;
}

}  // namespace

TEST(GraphGpu, ChainsAreExactInEveryMode) {
    CT_REQUIRE_GPU();
    for (const auto mode : supported_modes()) {
        for (const int length : {1, 2, 33, 1000}) {
            expect_exact(streams::graph::make_chain(length), mode, 100u + length);
        }
    }
}

TEST(GraphGpu, ForkJoinsAreExactInEveryMode) {
    CT_REQUIRE_GPU();
    for (const auto mode : supported_modes()) {
        for (const auto& [branches, depth] :
             std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {4, 250}, {3, 33}, {8, 2}}) {
            expect_exact(streams::graph::make_fork_join(branches, depth), mode, 5);
        }
    }
}

TEST(GraphGpu, GraphsReplayCorrectlyWithTheBufferResetBetweenRuns) {
    CT_REQUIRE_GPU();
    for (const auto mode : supported_modes()) {
        if (mode == LaunchMode::kStreams || mode == LaunchMode::kProgrammatic) {
            continue;  // no graph to replay
        }
        for (const auto& dag :
             {streams::graph::make_chain(33), streams::graph::make_fork_join(4, 5)}) {
            SCOPED_TRACE(dag.shape + ", " + streams::graph::mode_name(mode));
            streams::graph::GraphRunner runner(dag, mode);
            EXPECT_GT(runner.instantiate_us(), 0.0);
            const auto first = runner.run(21);
            const auto second = runner.run(22);
            const auto again = runner.run(21);
            EXPECT_EQ(streams::check_graph_run(dag, 21, first), "");
            EXPECT_EQ(streams::check_graph_run(dag, 22, second), "");
            EXPECT_NE(first.buffer, second.buffer);
            // Same input, same graph: the same result (nothing left over from the last replay).
            EXPECT_EQ(again.buffer, first.buffer);
            EXPECT_NE(again.times.front().start_ns, first.times.front().start_ns);
        }
    }
}

TEST(GraphGpu, StreamModesBuildNoGraph) {
    CT_REQUIRE_GPU();
    cudatutorial::select_device(0);
    streams::graph::GraphRunner runner(streams::graph::make_chain(2), LaunchMode::kStreams);
    EXPECT_EQ(runner.build_us(), 0.0);
    EXPECT_EQ(runner.instantiate_us(), 0.0);
}

TEST(GraphGpu, MeasurementChecksEveryRun) {
    CT_REQUIRE_GPU();
    const auto dag = streams::graph::make_fork_join(4, 8);
    for (const auto mode : supported_modes()) {
        SCOPED_TRACE(streams::graph::mode_name(mode));
        const auto m = streams::measure_launch(dag, mode, 1, 3, 9);
        EXPECT_TRUE(m.passed()) << m.detail;
        EXPECT_EQ(m.runs, 4);
        EXPECT_EQ(m.span_ms.samples, 3);
        EXPECT_GT(m.span_ms.median_ms, 0.0);
        EXPECT_EQ(m.shown_times.size(), dag.nodes.size());
        EXPECT_GT(m.enqueue_us, 0.0);
    }
}

TEST(GraphGpu, ForkJoinGraphBranchesRunTogether) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << "timing assertion: left out under compute-sanitizer";
    }
    cudatutorial::select_device(0);
    // 64 kernels per branch: one launch of the graph submits all four branches at once, so
    // some of their kernels must have been resident at the same time.
    const auto dag = streams::graph::make_fork_join(4, 64);
    for (const auto mode : {LaunchMode::kCapturedGraph, LaunchMode::kExplicitGraph}) {
        const auto m = streams::measure_launch(dag, mode, 1, 5, 3);
        EXPECT_TRUE(m.passed()) << m.detail;
        EXPECT_GE(m.shown.max_at_once, 2) << streams::graph::mode_name(mode);
        EXPECT_GT(m.shown.sum_over_span, 1.0) << streams::graph::mode_name(mode);
    }
}

TEST(GraphGpu, ProgrammaticLaunchNeedsComputeCapabilityNine) {
    CT_REQUIRE_GPU();
    const auto device = cudatutorial::select_device(0);
    const std::string why = streams::graph::unsupported_reason(LaunchMode::kProgrammatic,
                                                               device.cc_major, device.cc_minor);
    EXPECT_EQ(why.empty(), device.cc_major >= 9) << why;
    if (!why.empty()) {
        GTEST_SKIP() << why;
    }
    // A long chain with PDL, launched one by one and captured into a graph: exact, and no kernel
    // went to work before its predecessor ended, although the next one may already be resident.
    for (const auto mode : {LaunchMode::kProgrammatic, LaunchMode::kProgrammaticGraph}) {
        expect_exact(streams::graph::make_chain(1000), mode, 77);
        expect_exact(streams::graph::make_fork_join(4, 33), mode, 78);
    }
}
