// Scenario 6 on the CPU: the shapes, the stream plan (events, programmatic launches), the
// order-dependent node arithmetic and its reference, the time summary and the run check.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "launch_overhead.hpp"
#include "scenarios/graph_dag.hpp"

using streams::graph::Dag;
using streams::graph::kRegionWidth;
using streams::graph::NodeKind;
using streams::graph::NodeTime;

namespace {

// Applies the nodes of `dag` in `order` (indices) to the run's initial buffer.
std::vector<std::uint32_t> apply_in_order(const Dag& dag, std::uint32_t salt,
                                          const std::vector<int>& order) {
    auto buffer = streams::graph::initial_buffer(dag, salt);
    for (const int i : order) {
        streams::graph::apply_node(dag, i, buffer);
    }
    return buffer;
}

std::vector<int> identity(std::size_t n) {
    std::vector<int> order(n);
    for (std::size_t i = 0; i < n; ++i) {
        order[i] = static_cast<int>(i);
    }
    return order;
}

// Node i of a chain: starts at 1000 * i + offset_start, works from 1000 * i + 100 on, ends
// at 1000 * i + 600: gaps of 500 ns (1000 * (i + 1) + 100 - (1000 * i + 600)).
std::vector<NodeTime> chain_times(std::size_t n) {
    std::vector<NodeTime> times(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t base = 1'700'000'000'000'000'000ull + 1000 * i;
        times[i] = {base, base + 100, base + 600, static_cast<std::uint32_t>(i)};
    }
    return times;
}

}  // namespace

TEST(GraphDag, ChainsOfEdgeLengths) {
    for (const int length : {1, 2, 31, 32, 33, 1000, 1023, 1024, 1025}) {
        SCOPED_TRACE(length);
        const Dag dag = streams::graph::make_chain(length);
        EXPECT_EQ(streams::graph::validate(dag), "");
        ASSERT_EQ(static_cast<int>(dag.nodes.size()), length);
        EXPECT_EQ(dag.edge_count(), static_cast<std::size_t>(length - 1));
        EXPECT_EQ(dag.regions, 1u);
        EXPECT_EQ(dag.streams, 1);
        EXPECT_TRUE(dag.nodes.front().preds.empty());
        for (int i = 1; i < length; ++i) {
            ASSERT_EQ(dag.nodes[static_cast<std::size_t>(i)].preds, std::vector<int>{i - 1});
        }
        EXPECT_EQ(dag.nodes.back().name, "c" + std::to_string(length));
    }
    EXPECT_THROW(streams::graph::make_chain(0), std::invalid_argument);
    EXPECT_THROW(streams::graph::make_chain(-3), std::invalid_argument);
}

TEST(GraphDag, ForkJoinHasRootBranchesAndJoin) {
    const Dag dag = streams::graph::make_fork_join(3, 2);
    EXPECT_EQ(streams::graph::validate(dag), "");
    ASSERT_EQ(dag.nodes.size(), 8u);
    EXPECT_EQ(dag.regions, 3u);
    EXPECT_EQ(dag.streams, 3);
    std::vector<std::string> names;
    for (const auto& node : dag.nodes) {
        names.push_back(node.name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"root", "b1.1", "b1.2", "b2.1", "b2.2", "b3.1",
                                               "b3.2", "join"}));
    EXPECT_EQ(dag.nodes[0].kind, NodeKind::kFork);
    EXPECT_TRUE(dag.nodes[0].preds.empty());
    EXPECT_EQ(dag.nodes[3].preds, std::vector<int>{0});  // b2.1 after the root
    EXPECT_EQ(dag.nodes[4].preds, std::vector<int>{3});
    EXPECT_EQ(dag.nodes[4].region, 1u);
    EXPECT_EQ(dag.nodes[4].stream, 1);
    EXPECT_EQ(dag.nodes[7].kind, NodeKind::kJoin);
    EXPECT_EQ(dag.nodes[7].preds, (std::vector<int>{2, 4, 6}));
    EXPECT_EQ(dag.edge_count(), 3u + 3u + 3u);  // root->first, first->second, last->join
    EXPECT_EQ(streams::graph::make_fork_join(1, 1).nodes.size(), 3u);
    EXPECT_THROW(streams::graph::make_fork_join(0, 4), std::invalid_argument);
    EXPECT_THROW(streams::graph::make_fork_join(4, 0), std::invalid_argument);
}

TEST(GraphDag, ValidateNamesTheProblem) {
    Dag dag = streams::graph::make_chain(3);
    dag.nodes[1].preds = {2};  // a predecessor issued later: not a topological order
    EXPECT_NE(streams::graph::validate(dag).find("c2"), std::string::npos);
    dag = streams::graph::make_chain(3);
    dag.nodes[2].preds = {-1};
    EXPECT_FALSE(streams::graph::validate(dag).empty());
    dag = streams::graph::make_fork_join(2, 1);
    dag.nodes[1].stream = 2;
    EXPECT_NE(streams::graph::validate(dag).find("stream"), std::string::npos);
    dag = streams::graph::make_fork_join(2, 1);
    dag.nodes[2].region = 2;
    EXPECT_NE(streams::graph::validate(dag).find("region"), std::string::npos);
    EXPECT_THROW(streams::graph::plan_streams(dag), std::invalid_argument);
}

TEST(GraphDag, ChainPlanNeedsNoEventsAndIsProgrammaticAfterTheFirst) {
    const Dag dag = streams::graph::make_chain(33);
    const auto plan = streams::graph::plan_streams(dag);
    ASSERT_EQ(plan.size(), 33u);
    EXPECT_FALSE(plan[0].programmatic);  // nothing before it to overlap
    for (std::size_t i = 0; i < plan.size(); ++i) {
        EXPECT_TRUE(plan[i].wait_for.empty()) << i;
        EXPECT_FALSE(plan[i].record_event) << i;
        if (i > 0) {
            EXPECT_TRUE(plan[i].programmatic) << i;
        }
    }
}

TEST(GraphDag, ForkJoinPlanUsesEventsExactlyAcrossStreams) {
    const Dag dag = streams::graph::make_fork_join(3, 2);
    const auto plan = streams::graph::plan_streams(dag);
    // root (stream 0) is waited for by b2.1 and b3.1 on streams 1 and 2.
    EXPECT_TRUE(plan[0].record_event);
    EXPECT_TRUE(plan[1].wait_for.empty());  // b1.1 shares stream 0 with the root
    EXPECT_TRUE(plan[1].programmatic);
    EXPECT_EQ(plan[3].wait_for, std::vector<int>{0});
    EXPECT_FALSE(plan[3].programmatic);  // its predecessor is on another stream
    EXPECT_TRUE(plan[4].programmatic);   // b2.2 right after b2.1 on stream 1
    EXPECT_EQ(plan[5].wait_for, std::vector<int>{0});
    // The join (stream 0) follows b1.2 by stream order and waits for b2.2 and b3.2 by events.
    EXPECT_EQ(plan[7].wait_for, (std::vector<int>{4, 6}));
    EXPECT_FALSE(plan[7].programmatic);
    EXPECT_FALSE(plan[2].record_event);
    EXPECT_TRUE(plan[4].record_event);
    EXPECT_TRUE(plan[6].record_event);
    int events = 0;
    for (const auto& step : plan) {
        events += step.record_event ? 1 : 0;
    }
    EXPECT_EQ(events, 3);
}

TEST(GraphDag, OneBranchForkJoinIsOneStreamWithoutEvents) {
    const Dag dag = streams::graph::make_fork_join(1, 4);
    const auto plan = streams::graph::plan_streams(dag);
    for (std::size_t i = 0; i < plan.size(); ++i) {
        EXPECT_TRUE(plan[i].wait_for.empty()) << i;
        EXPECT_FALSE(plan[i].record_event) << i;
        EXPECT_EQ(plan[i].programmatic, i > 0) << i;
    }
}

TEST(GraphDag, StepIsOrderDependentAndExact) {
    // By hand: 3x + (node * 0x9E3779B9 + i * 0x85EBCA6B + 1), mod 2^32.
    EXPECT_EQ(streams::graph::graph_step(0, 0, 0), 1u);
    EXPECT_EQ(streams::graph::graph_step(5, 0, 0), 16u);
    EXPECT_EQ(streams::graph::graph_step(0xFFFFFFFFu, 0, 0), 0xFFFFFFFEu);  // 3 * (2^32 - 1) + 1
    EXPECT_EQ(streams::graph::graph_step(0, 1, 0), 0x9E3779BAu);
    EXPECT_EQ(streams::graph::graph_step(0, 0, 1), 0x85EBCA6Cu);
    for (std::uint32_t x : {0u, 1u, 0x12345678u, 0xFFFFFFFFu}) {
        const auto ab = streams::graph::graph_step(streams::graph::graph_step(x, 1, 3), 2, 3);
        const auto ba = streams::graph::graph_step(streams::graph::graph_step(x, 2, 3), 1, 3);
        EXPECT_NE(ab, ba) << x;
    }
}

TEST(GraphDag, ReferenceCatchesSwappedMissingAndRepeatedKernels) {
    for (const int length : {2, 33, 1000}) {
        SCOPED_TRACE(length);
        const Dag dag = streams::graph::make_chain(length);
        const auto want = streams::graph::reference_buffer(dag, 7);
        auto order = identity(dag.nodes.size());
        EXPECT_EQ(apply_in_order(dag, 7, order), want);
        std::swap(order[0], order[1]);
        EXPECT_NE(apply_in_order(dag, 7, order), want);
        order = identity(dag.nodes.size());
        order.pop_back();
        EXPECT_NE(apply_in_order(dag, 7, order), want);
        order = identity(dag.nodes.size());
        order.push_back(order.back());
        EXPECT_NE(apply_in_order(dag, 7, order), want);
        EXPECT_NE(streams::graph::reference_buffer(dag, 8), want);  // the salt matters
    }
}

TEST(GraphDag, ForkJoinReferenceByHand) {
    const Dag dag = streams::graph::make_fork_join(2, 1);  // root, b1.1, b2.1, join
    const auto init = streams::graph::initial_buffer(dag, 3);
    const auto want = streams::graph::reference_buffer(dag, 3);
    using streams::graph::graph_step;
    for (std::uint32_t i = 0; i < kRegionWidth; ++i) {
        const std::uint32_t r0 = graph_step(graph_step(init[i], 0, i), 1, i);
        const std::uint32_t r1 = graph_step(graph_step(init[kRegionWidth + i], 0, i), 2, i);
        EXPECT_EQ(want[i], graph_step(r0 + r1, 3, i)) << i;
        EXPECT_EQ(want[kRegionWidth + i], r1) << i;
    }
    // Branches are independent of each other: any interleaving of them gives the same buffer;
    // the join before a branch does not.
    EXPECT_EQ(apply_in_order(dag, 3, {0, 2, 1, 3}), want);
    EXPECT_NE(apply_in_order(dag, 3, {0, 1, 3, 2}), want);
    EXPECT_NE(apply_in_order(dag, 3, {1, 0, 2, 3}), want);  // a branch before the root
}

TEST(GraphDag, InitialBufferIsNeverAllZeroAndDependsOnTheSalt) {
    const Dag dag = streams::graph::make_fork_join(4, 1);
    const auto a = streams::graph::initial_buffer(dag, 1);
    ASSERT_EQ(a.size(), 4u * kRegionWidth);
    EXPECT_TRUE(std::any_of(a.begin(), a.end(), [](std::uint32_t v) { return v != 0; }));
    EXPECT_NE(a, streams::graph::initial_buffer(dag, 2));
    // Regions differ from each other, so a kernel updating the wrong region shows.
    EXPECT_FALSE(std::equal(a.begin(), a.begin() + kRegionWidth, a.begin() + kRegionWidth));
}

TEST(GraphDagTimes, ChainSpanGapsAndOwnTime) {
    const Dag dag = streams::graph::make_chain(4);
    const auto summary = streams::graph::summarize_times(dag, chain_times(4));
    EXPECT_EQ(summary.span_ns, 3000u + 600u);
    EXPECT_DOUBLE_EQ(summary.mean_kernel_ns, 500.0);
    EXPECT_DOUBLE_EQ(summary.mean_gap_ns, 500.0);
    EXPECT_EQ(summary.edges_out_of_order, 0);
    EXPECT_EQ(summary.max_at_once, 1);
    EXPECT_DOUBLE_EQ(summary.sum_over_span, 4.0 * 600.0 / 3600.0);
}

TEST(GraphDagTimes, OneKernelHasNoGaps) {
    const Dag dag = streams::graph::make_chain(1);
    const auto summary = streams::graph::summarize_times(dag, chain_times(1));
    EXPECT_EQ(summary.span_ns, 600u);
    EXPECT_DOUBLE_EQ(summary.mean_gap_ns, 0.0);
    EXPECT_EQ(summary.max_at_once, 1);
}

TEST(GraphDagTimes, AKernelReadyBeforeItsPredecessorEndedIsCaught) {
    const Dag dag = streams::graph::make_chain(3);
    auto times = chain_times(3);
    times[2].start_ns = times[1].start_ns + 50;  // started early (allowed with PDL) ...
    times[2].ready_ns = times[1].end_ns - 1;     // ... but went to work 1 ns too soon
    const auto summary = streams::graph::summarize_times(dag, times);
    EXPECT_EQ(summary.edges_out_of_order, 1);
    EXPECT_EQ(summary.first_out_of_order, "c3 went ahead before c2 ended");
    EXPECT_EQ(summary.max_at_once, 2);  // c2 and c3 were resident together
    EXPECT_DOUBLE_EQ(summary.mean_gap_ns, (500.0 - 1.0) / 2.0);
    // Ready exactly when the predecessor ended is in order (the timer's tick is coarse).
    times[2].ready_ns = times[1].end_ns;
    EXPECT_EQ(streams::graph::summarize_times(dag, times).edges_out_of_order, 0);
}

TEST(GraphDagTimes, ForkJoinBranchesRunningTogether) {
    const Dag dag = streams::graph::make_fork_join(3, 1);  // root, b1.1, b2.1, b3.1, join
    const std::uint64_t t = 5'000'000;
    std::vector<NodeTime> times = {{t, t, t + 100, 0},
                                   {t + 200, t + 200, t + 700, 1},
                                   {t + 210, t + 210, t + 710, 2},
                                   {t + 220, t + 220, t + 720, 3},
                                   {t + 800, t + 800, t + 900, 4}};
    const auto summary = streams::graph::summarize_times(dag, times);
    EXPECT_EQ(summary.max_at_once, 3);
    EXPECT_EQ(summary.span_ns, 900u);
    EXPECT_EQ(summary.edges_out_of_order, 0);
    // Edges: root->3 branches (100, 110, 120), 3 branches->join (100, 90, 80).
    EXPECT_DOUBLE_EQ(summary.mean_gap_ns, 600.0 / 6.0);
    EXPECT_THROW(streams::graph::summarize_times(dag, chain_times(4)), std::invalid_argument);
}

TEST(LaunchOverhead, ShapesFollowTheOptions) {
    streams::ScenarioConfig config;
    config.graph_kernels = 1000;
    config.graph_branches = 4;
    EXPECT_EQ(streams::launch_overhead_depth(config), 250);
    const auto shapes = streams::launch_overhead_shapes(config);
    ASSERT_EQ(shapes.size(), 2u);
    EXPECT_EQ(shapes[0].nodes.size(), 1000u);
    EXPECT_EQ(shapes[1].nodes.size(), 1002u);
    EXPECT_EQ(streams::launch_overhead_demo_shape(config).nodes.size(), 18u);
    EXPECT_EQ(streams::launch_overhead_kernel_count(config), 1000 + 1002 + 18);
    EXPECT_EQ(streams::kernel_count(streams::kLaunchOverheadScenario, config), 2020);
    EXPECT_EQ(streams::device_bytes(streams::kLaunchOverheadScenario, config),
              2020u * sizeof(NodeTime) + 4u * kRegionWidth * 4u);
    config.graph_kernels = 3;  // fewer kernels than branches: one kernel per branch
    config.graph_branches = 5;
    EXPECT_EQ(streams::launch_overhead_depth(config), 1);
    EXPECT_EQ(streams::launch_overhead_shapes(config)[1].nodes.size(), 7u);
    EXPECT_EQ(streams::scenario_info(streams::kLaunchOverheadScenario).name,
              std::string("launch_overhead"));
}

TEST(LaunchOverhead, RunCheckFindsWrongElementsAndMissingKernels) {
    const Dag dag = streams::graph::make_fork_join(2, 3);
    streams::graph::GraphRun run;
    run.buffer = streams::graph::reference_buffer(dag, 11);
    run.times = std::vector<NodeTime>(dag.nodes.size(), NodeTime{10, 20, 30, 0});
    EXPECT_EQ(streams::check_graph_run(dag, 11, run), "");
    EXPECT_NE(streams::check_graph_run(dag, 12, run), "");  // another run's salt
    auto wrong = run;
    wrong.buffer[kRegionWidth + 31] ^= 1u;  // last element of region 1
    EXPECT_EQ(streams::check_graph_run(dag, 11, wrong).rfind("region 1 element 31 is ", 0), 0u)
        << streams::check_graph_run(dag, 11, wrong);
    auto missing = run;
    missing.times[3] = NodeTime{~0ull, ~0ull, ~0ull, ~0u};  // poisoned: never written
    EXPECT_NE(streams::check_graph_run(dag, 11, missing).find("b1.3"), std::string::npos);
    auto short_run = run;
    short_run.times.pop_back();
    EXPECT_NE(streams::check_graph_run(dag, 11, short_run), "");
}

TEST(LaunchOverhead, MedianAndRowColumns) {
    EXPECT_DOUBLE_EQ(streams::median_of({}), 0.0);
    EXPECT_DOUBLE_EQ(streams::median_of({3.0, 1.0, 2.0}), 2.0);
    EXPECT_DOUBLE_EQ(streams::median_of({4.0, 1.0, 3.0, 2.0}), 2.5);
    streams::LaunchMeasurement m;
    m.shape = "chain";
    m.mode = streams::graph::LaunchMode::kCapturedGraph;
    m.kernels = 1000;
    m.span_ms.median_ms = 2.5;
    m.span_ms.samples = 10;
    m.enqueue_us = 12.0;
    m.kernel_us = 1.25;
    m.gap_us = 1.0;
    m.build_us = 300.4;
    m.instantiate_us = 1200.6;
    EXPECT_DOUBLE_EQ(m.cpu_us_per_kernel(), 0.012);
    EXPECT_DOUBLE_EQ(m.gpu_us_per_kernel(), 2.5);
    const auto row = streams::launch_row("6b", m);
    EXPECT_EQ(row.name, "chain, captured graph");
    EXPECT_TRUE(row.passed);
    EXPECT_FALSE(row.in_progression);
    const auto cell = [&row](const std::string& column) {
        for (const auto& [key, value] : row.extra) {
            if (key == column) {
                return value;
            }
        }
        return std::string("(missing)");
    };
    EXPECT_EQ(cell("CPU µs/kernel"), "0.012");
    EXPECT_EQ(cell("GPU µs/kernel"), "2.50");
    EXPECT_EQ(cell("setup µs"), "300+1201");
    m.out_of_order = 1;
    EXPECT_FALSE(streams::launch_row("6b", m).passed);
    m = streams::LaunchMeasurement{};
    m.kernels = 1;
    EXPECT_EQ(streams::launch_row("6a", m).extra.back().second, "–");  // no graph, no setup
}

TEST(LaunchOverhead, TimelineRecordsNameStreamsOrBranches) {
    const Dag dag = streams::graph::make_fork_join(2, 1);
    const std::vector<NodeTime> times(dag.nodes.size(), NodeTime{1, 2, 3, 4});
    auto records = streams::graph_kernel_records(dag, times, streams::graph::LaunchMode::kStreams);
    ASSERT_EQ(records.size(), 4u);
    EXPECT_EQ(records[2].name, "b2.1");
    EXPECT_EQ(records[2].stream, "s2 non-blocking");
    EXPECT_EQ(records[2].end_ns, 3u);
    records = streams::graph_kernel_records(dag, times, streams::graph::LaunchMode::kExplicitGraph);
    EXPECT_EQ(records[0].stream, "graph");
    EXPECT_EQ(records[2].stream, "graph, branch 2");
    EXPECT_THROW(streams::graph_kernel_records(dag, {}, streams::graph::LaunchMode::kStreams),
                 std::invalid_argument);
}
