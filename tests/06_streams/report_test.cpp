// The report writers: summary rows, the text under a timeline, CSV and JSON files.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/report.hpp"
#include "measurement.hpp"
#include "process.hpp"
#include "run_info.hpp"
#include "streams_report.hpp"
#include "test_records.hpp"

using streams::Build;
using streams::KernelRecord;
using streams::StreamKind;
using streams::testing::kLegacyId;
using streams::testing::record;

namespace {

// Scenario 2 as it could be measured: k2 overlaps k1 and k3, which share s.
std::vector<KernelRecord> scenario2_kernels(Build build) {
    const auto default_kind =
        build == Build::kLegacy ? StreamKind::kLegacyDefault : StreamKind::kBlocking;
    const std::uint64_t default_id = build == Build::kLegacy ? kLegacyId : 77;
    return {record("k1", 10, StreamKind::kNonBlocking, 5'000'000, 5'200'000),
            record("k2", default_id, default_kind, 5'003'000, 5'203'000),
            record("k3", 10, StreamKind::kNonBlocking, 5'201'000, 5'410'000)};
}

streams::ScenarioMeasurement measurement_of(int scenario, Build build,
                                            std::vector<KernelRecord> kernels, double event_ms) {
    streams::ScenarioMeasurement m;
    m.scenario = scenario;
    m.build = build;
    m.shown.kernels = std::move(kernels);
    m.shown.legacy_event_ms = event_ms;
    m.shown.outputs_ok = true;
    m.shown_summary = streams::summarize_run(m.shown.kernels);
    m.runs = {m.shown_summary, m.shown_summary};
    const double wall_ms = static_cast<double>(m.shown_summary.span_ns) / 1e6;
    m.wall_ms = cudatutorial::summarize({wall_ms, wall_ms});
    m.min_overlapping_pairs = m.max_overlapping_pairs = m.shown_summary.overlapping_pairs;
    return m;
}

cudatutorial::RunInfo test_run_info() {
    return cudatutorial::testing::fake_run_info("streams", "test");
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST(StreamsReport, SummaryRowCarriesTheOverlapColumns) {
    auto m = measurement_of(2, Build::kLegacy, scenario2_kernels(Build::kLegacy), 0.203);
    auto row = streams::summary_row(m);
    EXPECT_EQ(row.id, "2L");
    EXPECT_EQ(row.name, "non_blocking_stream");
    EXPECT_TRUE(row.passed);
    EXPECT_FALSE(row.in_progression);
    EXPECT_NEAR(row.stats.median_ms, 0.410, 1e-12);
    const auto extra = [&](const std::string& column) {
        for (const auto& cell : row.extra) {
            if (cell.first == column) {
                return cell.second;
            }
        }
        return std::string("(missing)");
    };
    EXPECT_EQ(extra("build"), "legacy");
    EXPECT_EQ(extra("overlapping pairs"), "2/3");
    EXPECT_EQ(extra("rules allow"), "2");
    EXPECT_EQ(extra("max at once"), "2");

    m.forbidden_overlaps = 1;
    m.detail = "run 3: k1 and k3 overlapped although the stream rules order them";
    row = streams::summary_row(m);
    EXPECT_FALSE(row.passed);
    EXPECT_EQ(row.detail, m.detail);
    m.forbidden_overlaps = 0;
    m.outputs_ok = false;
    EXPECT_FALSE(streams::summary_row(m).passed);
}

TEST(StreamsReport, DescriptionPointsAtTheLegacyEventTrap) {
    const auto trap = measurement_of(2, Build::kLegacy, scenario2_kernels(Build::kLegacy), 0.203);
    const std::string text = streams::describe_measurement(trap);
    EXPECT_NE(text.find("2 of 3 worker pairs overlapped (the stream rules allow 2)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("wall time 410.0 µs"), std::string::npos) << text;
    EXPECT_NE(text.find("203.0 µs - shorter than the wall time"), std::string::npos) << text;

    const auto honest = measurement_of(2, Build::kLegacy, scenario2_kernels(Build::kLegacy), 0.412);
    EXPECT_EQ(streams::describe_measurement(honest).find("shorter"), std::string::npos);
}

TEST(StreamsReport, FilesRoundTrip) {
    std::vector<streams::ScenarioMeasurement> all = {
        measurement_of(2, Build::kLegacy, scenario2_kernels(Build::kLegacy), 0.203),
        measurement_of(2, Build::kPerThread, scenario2_kernels(Build::kPerThread), 0.412)};
    cudatutorial::ResultTable table(test_run_info());
    for (const auto& m : all) {
        table.add(streams::summary_row(m));
    }
    const std::string base = ::testing::TempDir() + "streams_report_test";
    // What the program does: the timelines attached to the table's JSON, --summary-csv as the
    // table's CSV (finish_table writes both), the timeline CSV beside them.
    table.attach("timelines", streams::timelines_json(all));
    table.write_files(base + "_summary.csv", base + ".json");
    streams::write_timeline_file(base + ".csv", table.info(), all);

    const std::string csv = read_file(base + ".csv");
    std::istringstream lines(csv);
    std::vector<std::string> rows;
    for (std::string line; std::getline(lines, line);) {
        rows.push_back(line);
    }
    ASSERT_EQ(rows.size(), 7u);  // header + 3 kernels per build
    EXPECT_EQ(rows[0].rfind("program,gpu,timestamp,scenario,scenario_key,build,kernel", 0), 0u);
    EXPECT_NE(rows[1].find(",legacy,k1,worker,stream 10,non-blocking,10,0,0,0.000,200.000,200.000"),
              std::string::npos)
        << rows[1];
    EXPECT_NE(rows[6].find(",per-thread,k3,"), std::string::npos) << rows[6];

    const auto check = cudatutorial::testing::run_process(
        std::string(STREAMS_PYTHON) + " " + STREAMS_CHECK_JSON_SCRIPT + " " + base + ".json");
    EXPECT_EQ(check.exit_code, 0) << check.output;
    EXPECT_NE(check.output.find("streams json ok"), std::string::npos) << check.output;

    EXPECT_NE(read_file(base + "_summary.csv").find("non_blocking_stream"), std::string::npos);
    EXPECT_THROW(streams::write_timeline_file("/nonexistent-dir/x.csv", table.info(), all),
                 cudatutorial::UsageError);
    std::remove((base + ".csv").c_str());
    std::remove((base + ".json").c_str());
    std::remove((base + "_summary.csv").c_str());
}
