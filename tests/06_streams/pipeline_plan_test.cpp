// Scenarios 7 and 8 on the CPU: chunk split, issue orders, ideal times, clock bracketing, copy
// busy intervals, the kernel's closed form, the PCIe arithmetic and the timeline rendering.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "copy_bandwidth.hpp"
#include "copy_link.hpp"
#include "scenarios/pipeline_overlap.hpp"
#include "scenarios/pipeline_plan.hpp"

namespace pl = streams::pipeline;
using pl::Interval;
using pl::Schedule;
using pl::Stage;

TEST(PipelinePlan, ChunksCoverTheVectorInOrderAndDifferByAtMostOne) {
    for (const std::size_t n :
         {std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{32}, std::size_t{33},
          std::size_t{1023}, std::size_t{1024}, std::size_t{1025}, std::size_t{65537},
          (std::size_t{1} << 22) + 3}) {
        for (const int k : {1, 2, 3, 7, 8, 16, 64}) {
            if (static_cast<std::size_t>(k) > n) {
                continue;
            }
            SCOPED_TRACE("n " + std::to_string(n) + ", K " + std::to_string(k));
            const auto chunks = pl::split_chunks(n, k);
            ASSERT_EQ(chunks.size(), static_cast<std::size_t>(k));
            std::size_t next = 0;
            std::size_t smallest = n;
            std::size_t largest = 0;
            for (const auto& c : chunks) {
                EXPECT_EQ(c.offset, next);
                EXPECT_GE(c.count, 1u);
                next = c.offset + c.count;
                smallest = std::min(smallest, c.count);
                largest = std::max(largest, c.count);
            }
            EXPECT_EQ(next, n);
            EXPECT_LE(largest - smallest, 1u);
        }
    }
    // 10 in 3: the first chunk takes the remainder.
    const auto ten = pl::split_chunks(10, 3);
    EXPECT_EQ(ten[0].count, 4u);
    EXPECT_EQ(ten[1].count, 3u);
    EXPECT_EQ(ten[2].offset, 7u);
}

TEST(PipelinePlan, ChunkCountsThatLeaveAChunkEmptyAreRejected) {
    EXPECT_THROW(pl::split_chunks(4, 5), std::invalid_argument);
    EXPECT_THROW(pl::split_chunks(0, 1), std::invalid_argument);
    EXPECT_THROW(pl::split_chunks(100, 0), std::invalid_argument);
    EXPECT_THROW(pl::split_chunks(100, -2), std::invalid_argument);
    EXPECT_NO_THROW(pl::split_chunks(5, 5));
}

TEST(PipelinePlan, IssueOrdersOfTheThreeSchedules) {
    const auto one = pl::issue_order(Schedule::kOneStream, 3);
    const auto depth = pl::issue_order(Schedule::kDepthFirst, 3);
    const auto breadth = pl::issue_order(Schedule::kBreadthFirst, 3);
    ASSERT_EQ(one.size(), 9u);
    ASSERT_EQ(depth.size(), 9u);
    ASSERT_EQ(breadth.size(), 9u);
    for (std::size_t i = 0; i < 9; ++i) {
        EXPECT_EQ(one[i].stream, 0);
        // Depth first: H0 K0 D0 H1 K1 D1 ...; each chunk in its own stream.
        EXPECT_EQ(depth[i].chunk, static_cast<int>(i / 3));
        EXPECT_EQ(static_cast<int>(depth[i].stage), static_cast<int>(i % 3));
        EXPECT_EQ(depth[i].stream, depth[i].chunk);
        EXPECT_EQ(one[i].chunk, depth[i].chunk);
        EXPECT_EQ(one[i].stage, depth[i].stage);
        // Breadth first: H0 H1 H2 K0 K1 K2 D0 D1 D2.
        EXPECT_EQ(breadth[i].chunk, static_cast<int>(i % 3));
        EXPECT_EQ(static_cast<int>(breadth[i].stage), static_cast<int>(i / 3));
        EXPECT_EQ(breadth[i].stream, breadth[i].chunk);
    }
    // Whatever the schedule, a chunk's stages come in stage order within its stream.
    for (const Schedule s : pl::all_schedules()) {
        const auto order = pl::issue_order(s, 5);
        for (int c = 0; c < 5; ++c) {
            int last = -1;
            for (const auto& op : order) {
                if (op.chunk == c) {
                    EXPECT_EQ(static_cast<int>(op.stage), last + 1) << pl::schedule_key(s);
                    last = static_cast<int>(op.stage);
                }
            }
            EXPECT_EQ(last, 2);
        }
    }
}

TEST(PipelinePlan, IdealTimeGoesFromTheSumToTheSlowestResource) {
    const pl::StageTimes t{2.0, 3.0, 1.0};  // in, kernel, out
    EXPECT_DOUBLE_EQ(t.sum_ms(), 6.0);
    EXPECT_DOUBLE_EQ(pl::steady_state_bound_ms(t, 2), 3.0);
    EXPECT_DOUBLE_EQ(pl::steady_state_bound_ms(t, 5), 3.0);
    EXPECT_DOUBLE_EQ(pl::steady_state_bound_ms(t, 1), 3.0);  // in + out = 3 = kernel
    EXPECT_DOUBLE_EQ(pl::steady_state_bound_ms({2.0, 1.0, 2.5}, 1), 4.5);
    EXPECT_DOUBLE_EQ(pl::steady_state_bound_ms({2.0, 1.0, 2.5}, 2), 2.5);
    EXPECT_DOUBLE_EQ(pl::steady_state_bound_ms(t, 0), 6.0);
    // Both copies at once slower than the kernel: the shared link is the bottleneck.
    pl::StageTimes shared = t;
    shared.both_copies_ms = 3.5;
    EXPECT_DOUBLE_EQ(pl::steady_state_bound_ms(shared, 2), 3.5);
    EXPECT_DOUBLE_EQ(pl::steady_state_bound_ms(shared, 1), 3.0);  // one engine: in + out anyway
    EXPECT_DOUBLE_EQ(shared.sum_ms(), 6.0);
    EXPECT_DOUBLE_EQ(pl::ideal_pipeline_ms(t, 1, 2), 6.0);
    EXPECT_DOUBLE_EQ(pl::ideal_pipeline_ms(t, 2, 2), (6.0 + 3.0) / 2);
    EXPECT_DOUBLE_EQ(pl::ideal_pipeline_ms(t, 4, 2), (6.0 + 3 * 3.0) / 4);
    EXPECT_NEAR(pl::ideal_pipeline_ms(t, 100000, 2), 3.0, 1e-4);
    // Equal stages, K chunks: (K + 2) slots of one chunk's stage time.
    EXPECT_DOUBLE_EQ(pl::ideal_pipeline_ms({1.0, 1.0, 1.0}, 8, 2), 10.0 / 8.0);
    EXPECT_DOUBLE_EQ(pl::ideal_pipeline_ms(t, 8, 0), 6.0);  // nothing overlaps: the sum
    for (int k = 1; k < 20; ++k) {
        EXPECT_LE(pl::ideal_pipeline_ms(t, k + 1, 2), pl::ideal_pipeline_ms(t, k, 2));
    }
    EXPECT_THROW(pl::ideal_pipeline_ms(t, 0, 2), std::invalid_argument);
}

TEST(PipelinePlan, EventTimesAreBracketedByTheKernelsTheySurround) {
    // Events run on a clock 1'000'000 ns behind %globaltimer (offset +1e6 ns); each event before
    // a kernel fires 2 us before it starts, each event after 1.5 us after it ends.
    const std::uint64_t origin = 1'700'000'000'000'000'000ull;
    const double true_offset = 1e6;
    std::vector<Interval> kernels;
    std::vector<double> before;
    std::vector<double> after;
    for (int c = 0; c < 4; ++c) {
        const std::uint64_t start = origin + 10'000 + 50'000 * c;
        const std::uint64_t end = start + 30'000;
        kernels.push_back({start, end});
        before.push_back((static_cast<double>(start - origin) - 2'000 - true_offset) / 1e6);
        after.push_back((static_cast<double>(end - origin) + 1'500 - true_offset) / 1e6);
    }
    const auto offset = pl::bracket_clock_offset(kernels, before, after, origin);
    ASSERT_TRUE(offset.known);
    EXPECT_TRUE(offset.consistent);
    EXPECT_NEAR(offset.lower_ns, true_offset - 1'500, 1e-3);
    EXPECT_NEAR(offset.upper_ns, true_offset + 2'000, 1e-3);
    EXPECT_LE(offset.lower_ns, true_offset);
    EXPECT_GE(offset.upper_ns, true_offset);
    EXPECT_NEAR(offset.uncertainty_ns(), 1'750, 1e-3);
    // The tightest kernel decides: one with a 100 ns gap narrows the upper bound.
    before[2] = (static_cast<double>(kernels[2].start_ns - origin) - 100 - true_offset) / 1e6;
    EXPECT_NEAR(pl::bracket_clock_offset(kernels, before, after, origin).upper_ns,
                true_offset + 100, 1e-3);
    // Events that contradict the kernels (an "after" event before the kernel ended): empty.
    after[1] = (static_cast<double>(kernels[1].end_ns - origin) - 5'000 - true_offset) / 1e6;
    after[0] = (static_cast<double>(kernels[0].end_ns - origin) + 9'000 - true_offset) / 1e6;
    const auto broken = pl::bracket_clock_offset(kernels, before, after, origin);
    EXPECT_FALSE(broken.consistent);
    EXPECT_EQ(broken.uncertainty_ns(), 0.0);
    EXPECT_FALSE(pl::bracket_clock_offset({}, {}, {}, origin).known);
    EXPECT_THROW(pl::bracket_clock_offset(kernels, before, {}, origin), std::invalid_argument);
}

TEST(PipelinePlan, CopiesOfOneDirectionTakeTurnsOnTheEngine) {
    // Three copies ready at once, completing at 10, 20, 30: they ran one after another.
    auto busy = pl::copy_busy_intervals({{0, 10}, {0, 20}, {0, 30}});
    ASSERT_EQ(busy.size(), 3u);
    EXPECT_EQ(busy[0].start_ns, 0u);
    EXPECT_EQ(busy[1].start_ns, 10u);
    EXPECT_EQ(busy[2].start_ns, 20u);
    EXPECT_EQ(busy[2].end_ns, 30u);
    // Given out of completion order, results stay in input order; a late-ready copy starts when
    // it was ready, not when the engine freed up.
    busy = pl::copy_busy_intervals({{25, 40}, {0, 10}, {5, 20}});
    EXPECT_EQ(busy[1].start_ns, 0u);
    EXPECT_EQ(busy[2].start_ns, 10u);
    EXPECT_EQ(busy[0].start_ns, 25u);
    EXPECT_EQ(busy[0].end_ns, 40u);
    // Negative times (before the axis) are clamped to 0.
    busy = pl::copy_busy_intervals({{-5, 3}});
    EXPECT_EQ(busy[0].start_ns, 0u);
    EXPECT_EQ(busy[0].end_ns, 3u);
}

TEST(PipelinePlan, BusyAndOverlapTimesOfIntervalSets) {
    const std::vector<Interval> copies = {{0, 10}, {5, 15}, {30, 40}};
    const std::vector<Interval> kernels = {{12, 35}};
    EXPECT_EQ(pl::busy_ns(copies), 25u);  // [0, 15) and [30, 40)
    EXPECT_EQ(pl::busy_ns(kernels), 23u);
    EXPECT_EQ(pl::overlap_ns(copies, kernels), 3u + 5u);  // [12, 15) and [30, 35)
    EXPECT_EQ(pl::overlap_ns(kernels, copies), 8u);
    EXPECT_EQ(pl::overlap_ns(copies, {{15, 30}}), 0u);  // touching only
    EXPECT_EQ(pl::busy_ns({}), 0u);
    EXPECT_EQ(pl::busy_ns({{7, 7}}), 0u);
}

TEST(PipelinePlan, ClosedFormEqualsTheKernelsLoop) {
    for (const std::uint32_t a : {pl::kMultiplier, 3u, 0xffffffffu, 2u, 1u}) {
        for (const std::uint32_t rounds :
             {0u, 1u, 2u, 3u, 31u, 32u, 33u, 255u, 256u, 1000u, 4097u}) {
            const auto steps = pl::compose_affine(a, rounds);
            for (const std::uint32_t b : {0u, 1u, 12345u, 0xdeadbeefu}) {
                for (const std::uint32_t x : {0u, 1u, 0x80000000u, 0xffffffffu, 0x12345678u}) {
                    ASSERT_EQ(steps.apply(x, b), pl::iterate_affine(x, a, b, rounds))
                        << "a " << a << " rounds " << rounds << " b " << b << " x " << x;
                }
            }
        }
    }
    // Different addends give different outputs: a stale pass cannot pass for a new one.
    const auto steps = pl::compose_affine(pl::kMultiplier, 1000);
    EXPECT_NE(steps.apply(5, 1), steps.apply(5, 2));
}

TEST(CopyLink, PcieRatesPerDirection) {
    EXPECT_NEAR(streams::pcie_link_gbs(5, 16), 63.015, 0.001);
    EXPECT_NEAR(streams::pcie_link_gbs(4, 16), 31.508, 0.001);
    EXPECT_NEAR(streams::pcie_link_gbs(3, 16), 15.754, 0.001);
    EXPECT_DOUBLE_EQ(streams::pcie_link_gbs(2, 16), 8.0);
    EXPECT_DOUBLE_EQ(streams::pcie_link_gbs(1, 1), 0.25);
    EXPECT_NEAR(streams::pcie_link_gbs(6, 16), 121.0, 0.001);
    EXPECT_DOUBLE_EQ(streams::pcie_link_gbs(5, 8), streams::pcie_link_gbs(5, 16) / 2);
    EXPECT_EQ(streams::pcie_lane_gbs(0), 0.0);
    EXPECT_EQ(streams::pcie_lane_gbs(7), 0.0);
}

TEST(CopyLink, DescriptionsSayWhatWasFound) {
    streams::HostLink link;
    link.problem = "NVML (libnvidia-ml.so.1) not found";
    EXPECT_NE(link.describe().find("not found"), std::string::npos);
    EXPECT_NE(link.describe().find("no % of link"), std::string::npos);
    link.kind = streams::HostLink::Kind::kPcie;
    link.current_generation = 1;
    link.current_width = 16;
    link.max_generation = 5;
    link.max_width = 16;
    link.theoretical_gbs = streams::pcie_link_gbs(5, 16);
    EXPECT_NE(link.describe().find("PCIe gen 1 x16 now (max gen 5 x16)"), std::string::npos);
    EXPECT_NE(link.describe().find("63.0 GB/s"), std::string::npos);
    link.kind = streams::HostLink::Kind::kC2c;
    link.c2c_links = 10;
    EXPECT_NE(link.describe().find("NVLink-C2C, 10 active links"), std::string::npos);
}

TEST(CopyBandwidthPlan, SizesGrowBy16UpToTheLargest) {
    const std::size_t mib = std::size_t{1} << 20;
    EXPECT_EQ(streams::copy_sizes(64 * mib),
              (std::vector<std::size_t>{4096, 65536, mib, 16 * mib, 64 * mib}));
    EXPECT_EQ(streams::copy_sizes(100 * 1024), (std::vector<std::size_t>{4096, 65536, 100 * 1024}));
    EXPECT_EQ(streams::copy_sizes(4096), (std::vector<std::size_t>{4096}));
    EXPECT_EQ(streams::copy_sizes(4), (std::vector<std::size_t>{4}));
    EXPECT_THROW(streams::copy_sizes(0), std::invalid_argument);
    EXPECT_THROW(streams::copy_sizes(6), std::invalid_argument);
}

TEST(PipelineReport, TimelineRowsShowEachStreamsStagesAndTheWaits) {
    pl::Timeline t;
    // Two streams, 100 ns axis on 10 columns: stream 0 copies in [0, 20), computes [20, 50),
    // copies out [50, 60); stream 1 waits for the engine [0, 20), copies in [20, 40), ...
    t.ops = {{0, Stage::kCopyIn, 0, {0, 20}, 0},   {0, Stage::kKernel, 0, {20, 50}, 0},
             {0, Stage::kCopyOut, 0, {50, 60}, 0}, {1, Stage::kCopyIn, 1, {20, 40}, 20},
             {1, Stage::kKernel, 1, {50, 80}, 0},  {1, Stage::kCopyOut, 1, {80, 100}, 0}};
    t.span_ns = 100;
    const std::string text = pl::render_pipeline_timeline(t, 100, 10, "");
    EXPECT_NE(text.find("s0      |HHKKKD    |"), std::string::npos) << text;
    EXPECT_NE(text.find("s1      |..HH KKKDD|"), std::string::npos) << text;
    EXPECT_EQ(pl::shown_chunk_count({1, 2, 4, 8, 16}), 8);
    EXPECT_EQ(pl::shown_chunk_count({1, 3, 5}), 5);
}

TEST(PipelineReport, AFailureAtAnySizeOrKFailsTheSummaryRow) {
    // Scenario 7: only the largest size becomes a row; a failed 4 KiB copy must still show.
    streams::CopyBandwidthResult copies;
    for (const std::size_t bytes : {std::size_t{4096}, std::size_t{65536}}) {
        for (const auto memory : {streams::HostMemory::kPinned, streams::HostMemory::kPageable}) {
            streams::CopyMeasurement m;
            m.memory = memory;
            m.direction = streams::CopyDirection::kHostToDevice;
            m.bytes = bytes;
            m.stats.median_ms = 1.0;
            m.passed = !(bytes == 4096 && memory == streams::HostMemory::kPinned);
            m.detail = m.passed ? "" : "word 3 is 0, expected 7";
            copies.measurements.push_back(m);
        }
    }
    auto rows = streams::copy_bandwidth_rows(copies);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_FALSE(rows[0].passed);  // pinned, 64 KiB itself fine
    EXPECT_NE(rows[0].detail.find("word 3"), std::string::npos) << rows[0].detail;
    EXPECT_TRUE(rows[1].passed);
    EXPECT_FALSE(copies.passed());
    // Without a known link rate there is no "% of link" column.
    for (const auto& cell : rows[1].extra) {
        EXPECT_NE(cell.first, "% of link");
    }

    // Scenario 8: rows are for the shown K; a failure at another K must still show.
    pl::PipelineResult pipeline;
    pipeline.stages_passed = true;
    for (const int k : {1, 8}) {
        for (const Schedule s : pl::all_schedules()) {
            pl::PipelineRun run;
            run.schedule = s;
            run.chunks = k;
            run.total_ms.median_ms = 2.0 / k;
            run.passed = !(k == 1 && s == Schedule::kBreadthFirst);
            run.detail = run.passed ? "" : "element 5 of 9 is 1, expected 2";
            pipeline.runs.push_back(run);
        }
    }
    auto pipeline_rows = pl::pipeline_rows(pipeline, 8);
    ASSERT_EQ(pipeline_rows.size(), 3u);
    EXPECT_TRUE(pipeline_rows[0].passed);
    EXPECT_TRUE(pipeline_rows[1].passed);
    EXPECT_FALSE(pipeline_rows[2].passed);
    EXPECT_NE(pipeline_rows[2].detail.find("K = 1"), std::string::npos) << pipeline_rows[2].detail;
    EXPECT_FALSE(pipeline.passed());
    pipeline.runs[2].passed = true;  // the K = 1 failure gone: the stage runs alone fail all
    pipeline.stages_passed = false;
    pipeline.stages_detail = "copy in: element 0 is wrong";
    pipeline_rows = pl::pipeline_rows(pipeline, 8);
    for (const auto& row : pipeline_rows) {
        EXPECT_FALSE(row.passed);
        EXPECT_NE(row.detail.find("stage runs"), std::string::npos);
    }
}
