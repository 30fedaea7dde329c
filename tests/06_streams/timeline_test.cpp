// Overlap arithmetic and text timelines over hand-made records.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "test_records.hpp"
#include "timeline.hpp"

using streams::KernelRecord;
using streams::Role;
using streams::StreamKind;
using streams::testing::kLegacyId;
using streams::testing::record;

namespace {

KernelRecord interval(std::uint64_t start, std::uint64_t end, Role role = Role::kWorker) {
    return record("x", 10, StreamKind::kBlocking, start, end, role);
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

}  // namespace

TEST(StreamsTimeline, OverlapNeedsACommonMomentNotJustATouch) {
    EXPECT_FALSE(streams::overlaps(interval(0, 10), interval(10, 20)));  // back to back
    EXPECT_FALSE(streams::overlaps(interval(10, 20), interval(0, 10)));
    EXPECT_FALSE(streams::overlaps(interval(0, 10), interval(11, 20)));
    EXPECT_TRUE(streams::overlaps(interval(0, 10), interval(9, 20)));
    EXPECT_TRUE(streams::overlaps(interval(0, 100), interval(40, 60)));  // nested
    EXPECT_TRUE(streams::overlaps(interval(5, 15), interval(5, 15)));    // identical
}

TEST(StreamsTimeline, RunningAtAndMaxConcurrent) {
    const std::vector<KernelRecord> chain = {interval(0, 10), interval(10, 20), interval(20, 30)};
    EXPECT_EQ(streams::max_concurrent(chain, false), 1);  // touching is not concurrent
    EXPECT_EQ(streams::running_at(chain, 10), 1);         // [start, end)
    EXPECT_EQ(streams::running_at(chain, 30), 0);

    const std::vector<KernelRecord> stack = {interval(0, 100), interval(10, 90), interval(20, 80),
                                             interval(85, 200), interval(50, 60, Role::kDummy)};
    EXPECT_EQ(streams::max_concurrent(stack, true), 3);   // 20..80: the first three
    EXPECT_EQ(streams::max_concurrent(stack, false), 4);  // with the dummy at 50..60
    EXPECT_EQ(streams::running_at(stack, 55), 4);
    EXPECT_EQ(streams::running_at(stack, 87), 3);
    EXPECT_EQ(streams::max_concurrent({}, true), 0);
}

TEST(StreamsTimeline, SummaryOfASerializedLegacyRun) {
    // Scenario 1 legacy as measured: three kernels of 200 µs, 5 µs apart.
    const std::vector<KernelRecord> kernels = {
        record("k1", 10, StreamKind::kBlocking, 1'000'000, 1'200'000),
        record("k2", kLegacyId, StreamKind::kLegacyDefault, 1'205'000, 1'405'000),
        record("k3", 10, StreamKind::kBlocking, 1'410'000, 1'610'000)};
    const auto s = streams::summarize_run(kernels);
    EXPECT_EQ(s.kernels, 3);
    EXPECT_EQ(s.workers, 3);
    EXPECT_EQ(s.worker_pairs, 3);
    EXPECT_EQ(s.overlapping_pairs, 0);
    EXPECT_EQ(s.allowed_pairs, 0);
    EXPECT_EQ(s.forbidden_overlaps, 0);
    EXPECT_EQ(s.max_concurrent, 1);
    EXPECT_EQ(s.first_start_ns, 1'000'000u);
    EXPECT_EQ(s.span_ns, 610'000u);
    EXPECT_EQ(s.sum_worker_ns, 600'000u);
    EXPECT_NEAR(s.concurrency(), 600.0 / 610.0, 1e-12);
}

TEST(StreamsTimeline, SummaryFlagsAnOverlapTheRulesForbid) {
    const std::vector<KernelRecord> kernels = {
        record("k1", 10, StreamKind::kBlocking, 0, 200),
        record("k2", kLegacyId, StreamKind::kLegacyDefault, 150, 350),  // must wait for k1
        record("k3", 10, StreamKind::kBlocking, 400, 600)};
    const auto s = streams::summarize_run(kernels);
    EXPECT_EQ(s.forbidden_overlaps, 1);
    EXPECT_EQ(s.first_forbidden, "k1 and k2");
    EXPECT_EQ(s.overlapping_pairs, 1);
    EXPECT_EQ(s.allowed_pairs, 0);
}

TEST(StreamsTimeline, SummaryOfEightConcurrentWorkersWithDummies) {
    // Scenario 3 per-thread: 8 workers overlapping, dummies in between (not counted as workers).
    std::vector<KernelRecord> kernels;
    for (int i = 0; i < 8; ++i) {
        const auto start = static_cast<std::uint64_t>(i) * 5'000;
        kernels.push_back(record("w" + std::to_string(i), 100 + i, StreamKind::kBlocking, start,
                                 start + 200'000));
        kernels.back().sm = static_cast<std::uint32_t>(2 * i);
        kernels.push_back(record("d" + std::to_string(i), 77, StreamKind::kBlocking, start + 2'000,
                                 start + 3'000, Role::kDummy));
    }
    const auto s = streams::summarize_run(kernels);
    EXPECT_EQ(s.kernels, 16);
    EXPECT_EQ(s.workers, 8);
    EXPECT_EQ(s.worker_pairs, 28);
    EXPECT_EQ(s.overlapping_pairs, 28);
    EXPECT_EQ(s.allowed_pairs, 28);
    EXPECT_EQ(s.forbidden_overlaps, 0);
    EXPECT_EQ(s.max_concurrent, 8);
    EXPECT_EQ(s.sms_used, 8);
    EXPECT_EQ(s.span_ns, 235'000u);
    EXPECT_EQ(s.sum_worker_ns, 1'600'000u);
    EXPECT_NEAR(s.concurrency(), 1600.0 / 235.0, 1e-9);
    EXPECT_EQ(streams::summarize_run({}).span_ns, 0u);
}

TEST(StreamsTimeline, FormatsMicrosecondsAndWidths) {
    EXPECT_EQ(streams::format_us(200'123), "200.1");
    EXPECT_EQ(streams::format_us(0), "0.0");
    EXPECT_EQ(streams::format_us(1'652'360), "1652.4");
    EXPECT_EQ(streams::display_width("µs"), 2u);
    EXPECT_EQ(streams::display_width("start µs"), 8u);
}

TEST(StreamsTimeline, BarsMarkTheColumnsAKernelRanIn) {
    streams::TimeAxis axis;
    axis.span_ns = 100;
    axis.width = 10;  // 10 ns per column
    EXPECT_EQ(streams::timeline_bar(interval(1000, 1050), 1000, axis), "#####     ");
    EXPECT_EQ(streams::timeline_bar(interval(1095, 1100), 1000, axis), "         #");
    EXPECT_EQ(streams::timeline_bar(interval(1015, 1035), 1000, axis), " ###      ");
    // A dummy within one timer tick (start == end) still shows in its column.
    EXPECT_EQ(streams::timeline_bar(interval(1030, 1030, Role::kDummy), 1000, axis), "   +      ");
    // Past the axis: the last column says so.
    EXPECT_EQ(streams::timeline_bar(interval(1080, 1150), 1000, axis), "        #>");
}

TEST(StreamsTimeline, BarsStayExactWithEpochSizedTimerValues) {
    // %globaltimer reads about 1.7e18 ns; in double, neighbouring values are 256 ns apart.
    const std::uint64_t origin = 1'763'800'000'123'456'789ull;
    streams::TimeAxis axis;
    axis.span_ns = 604'000;
    axis.width = 10;
    EXPECT_EQ(streams::timeline_bar(interval(origin + 543'600, origin + 604'000), origin, axis),
              "         #");  // ends exactly at the axis end: no '>'
    EXPECT_EQ(streams::timeline_bar(interval(origin, origin + 60'401), origin, axis), "##        ");
    EXPECT_EQ(streams::timeline_bar(interval(origin, origin + 60'400), origin, axis), "#         ");
}

TEST(StreamsTimeline, AxisLabelsSpanTheBar) {
    streams::TimeAxis axis;
    axis.span_ns = 1'000'000;
    axis.width = 40;
    const std::string labels = streams::axis_labels(axis);
    EXPECT_EQ(streams::display_width(labels), 40u);
    EXPECT_EQ(labels.front(), '0');
    EXPECT_NE(labels.find("500.0"), std::string::npos);
    EXPECT_EQ(labels.substr(labels.size() - std::string("1000.0 µs").size()), "1000.0 µs");
    axis.width = 8;  // too narrow for the labels: just the start
    EXPECT_EQ(streams::axis_labels(axis), "0       ");
}

TEST(StreamsTimeline, RenderedRowsLineUp) {
    const std::vector<KernelRecord> kernels = {
        record("k1", 10, StreamKind::kBlocking, 5'000, 205'000),
        record("k2", kLegacyId, StreamKind::kLegacyDefault, 210'000, 410'000),
        record("k3", 10, StreamKind::kBlocking, 415'000, 615'000)};
    streams::TimeAxis axis;
    axis.span_ns = 610'000;
    axis.width = 30;
    const auto lines = lines_of(streams::render_timeline(kernels, axis, "  "));
    ASSERT_EQ(lines.size(), 4u);
    const std::size_t width = streams::display_width(lines[1]);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        SCOPED_TRACE(lines[i]);
        // The header's axis labels stand over the bar, which has a '|' on each side.
        EXPECT_EQ(streams::display_width(lines[i]), i == 0 ? width - 1 : width);
        EXPECT_EQ(lines[i].rfind("  ", 0), 0u);
    }
    EXPECT_NE(lines[0].find("start µs"), std::string::npos);
    EXPECT_NE(lines[1].find("0.0"), std::string::npos);    // k1 starts the run
    EXPECT_NE(lines[3].find("610.0"), std::string::npos);  // k3 ends it
    EXPECT_EQ(lines[1].back(), '|');
    EXPECT_NE(lines[1].find("|##########"), std::string::npos);  // the first third
    EXPECT_NE(lines[3].find("##########|"), std::string::npos);  // the last third
}

TEST(StreamsTimeline, ConcurrencyProfileCountsAtSliceMiddles) {
    const std::vector<KernelRecord> kernels = {interval(1000, 1100), interval(1000, 1050),
                                               interval(1000, 1050)};
    const auto lines = lines_of(streams::render_concurrency_profile(kernels, 100, 2, 3, 6, ""));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_NE(lines[1].find("      3  ######"), std::string::npos) << lines[1];  // at 25 ns
    EXPECT_NE(lines[2].find("      1  ##"), std::string::npos) << lines[2];      // at 75 ns
}
