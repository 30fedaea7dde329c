// TableRun without a GPU: the rows it is given, its notes and attachments, the files finish()
// writes (with the file suffix), the exit code, and that a table is finished once. The stage
// hooks' order around the timed runs is in table_run_gpu_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudatutorial/errors.hpp"
#include "cudatutorial/table_run.hpp"
#include "run_info.hpp"

namespace ct = cudatutorial;

namespace {

ct::RunInfo test_info() {
    ct::RunInfo info = ct::testing::fake_run_info("table_run_test", "table run test");
    info.set("N", "1000");
    return info;
}

ct::ResultRow row(const std::string& id, double median_ms, bool passed = true) {
    ct::ResultRow r;
    r.id = id;
    r.name = "kernel_" + id;
    r.timed = true;
    r.stats = ct::summarize({median_ms, median_ms, median_ms});
    r.bytes = 1e9;
    r.passed = passed;
    return r;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool exists(const std::string& path) {
    return std::ifstream(path).good();
}

// A folder of its own under the build's temporary directory, for this test's files.
std::string temp_prefix(const std::string& test) {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/ct_table_run_test_" + test;
}

// finish() with standard output captured (the printed table is not what these tests read).
int finish_quietly(ct::TableRun& run, bool other_checks_passed = true) {
    ::testing::internal::CaptureStdout();
    int code = -1;
    try {
        code = run.finish(other_checks_passed);
    } catch (...) {
        ::testing::internal::GetCapturedStdout();
        throw;
    }
    ::testing::internal::GetCapturedStdout();
    return code;
}

}  // namespace

TEST(ApplyHooks, ExtrasRunBeforeTheGroupIsSet) {
    ct::StageHooks hooks;
    std::vector<std::string> seen;
    hooks.extras = [&](ct::ResultRow& r) {
        seen.push_back("extras saw group '" + r.group + "'");
        r.with("first pass ms", "0.123");
        r.group = "set by extras";
    };
    hooks.group = "64 MiB";
    ct::ResultRow r = row("1", 1.0);
    ct::apply_hooks(hooks, r);
    EXPECT_EQ(seen, std::vector<std::string>{"extras saw group ''"});
    EXPECT_EQ(r.extra_value("first pass ms"), "0.123");
    EXPECT_EQ(r.group, "64 MiB");  // the hooks' group is the last word
}

TEST(ApplyHooks, NoGroupLeavesTheRowsOwnAndNoExtrasIsFine) {
    ct::StageHooks hooks;
    ct::ResultRow r = row("1", 1.0);
    r.group = "kept";
    ct::apply_hooks(hooks, r);
    EXPECT_EQ(r.group, "kept");
    EXPECT_TRUE(r.extra.empty());
}

TEST(TableRun, HoldsRowsNotesAndTheBaselineForTheTable) {
    ct::CommonOptions options;
    ct::TableRun run(test_info(), options);
    run.set_baseline("cub", "CUB");
    run.add(row("1", 2.0));
    run.add(row("cub", 1.0));
    run.add_note("stage 9 skipped");
    run.info().set("extra line", "added later");
    EXPECT_EQ(run.table().rows().size(), 2u);
    EXPECT_EQ(run.table().rows()[1].id, "cub");
    EXPECT_EQ(run.table().baseline_id(), "cub");
    EXPECT_EQ(run.table().notes(), std::vector<std::string>{"stage 9 skipped"});
    ASSERT_EQ(run.info().parameters.size(), 2u);
    EXPECT_EQ(run.info().parameters[1].first, "extra line");
    EXPECT_FALSE(run.finished());
}

TEST(TableRun, FinishWritesTheFilesTheOptionsAskForWithTheSuffix) {
    const std::string prefix = temp_prefix("suffix");
    ct::CommonOptions options;
    options.csv_path = prefix + ".csv";
    options.json_path = prefix + ".json";
    options.markdown_path = prefix + ".md";
    for (const char* ending :
         {".csv", ".json", ".md", "_scaling.csv", "_scaling.json", "_scaling.md"}) {
        std::remove((prefix + ending).c_str());
    }
    ct::TableRun run(test_info(), options, "_scaling");
    EXPECT_EQ(run.options().json_path, prefix + "_scaling.json");
    run.set_group_column("size");
    ct::ResultRow grouped = row("1", 2.0);
    grouped.group = "64 MiB";
    run.add(grouped);
    run.add_note("a note for every format");
    run.attach("extra_document", "{\"answer\": 42}");
    EXPECT_EQ(finish_quietly(run), ct::to_int(ct::ExitCode::kSuccess));
    EXPECT_TRUE(run.finished());

    EXPECT_FALSE(exists(prefix + ".csv"));  // the suffix applies to every file
    const std::string csv = read_file(prefix + "_scaling.csv");
    EXPECT_NE(csv.find("a note for every format"), std::string::npos) << csv;
    EXPECT_NE(csv.find("kernel_1"), std::string::npos) << csv;
    const std::string json = read_file(prefix + "_scaling.json");
    EXPECT_NE(json.find("\"group_column\": \"size\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"extra_document\": {\"answer\": 42}"), std::string::npos) << json;
    // finish() records the clocks seen during timing (none here) in the header.
    EXPECT_NE(json.find("clocks during timing"), std::string::npos) << json;
    const std::string markdown = read_file(prefix + "_scaling.md");
    EXPECT_NE(markdown.find("| 64 MiB |"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("- a note for every format"), std::string::npos) << markdown;
}

TEST(TableRun, FinishReturnsVerificationFailedForAFailedRowOrAFailedOtherCheck) {
    const ct::CommonOptions options;
    ct::TableRun failed_row(test_info(), options);
    failed_row.add(row("1", 1.0, false));
    EXPECT_EQ(finish_quietly(failed_row), ct::to_int(ct::ExitCode::kVerificationFailed));

    ct::TableRun other_check(test_info(), options);
    other_check.add(row("1", 1.0));
    EXPECT_EQ(finish_quietly(other_check, false), ct::to_int(ct::ExitCode::kVerificationFailed));

    ct::TableRun expected_failure(test_info(), options);
    ct::ResultRow demo = row("5v", 1.0, false);
    demo.expected_failure = true;
    expected_failure.add(demo);
    EXPECT_EQ(finish_quietly(expected_failure), ct::to_int(ct::ExitCode::kSuccess));
}

TEST(TableRun, FinishPrintsTheTableOnce) {
    const std::string path = temp_prefix("twice") + ".csv";
    std::remove(path.c_str());
    ct::CommonOptions options;
    options.csv_path = path;
    ct::TableRun run(test_info(), options);
    run.add(row("1", 1.0));
    ::testing::internal::CaptureStdout();
    run.finish();
    const std::string printed = ::testing::internal::GetCapturedStdout();
    EXPECT_NE(printed.find("kernel_1"), std::string::npos) << printed;
    ASSERT_TRUE(exists(path));

    std::remove(path.c_str());
    EXPECT_THROW(finish_quietly(run), std::logic_error);
    EXPECT_FALSE(exists(path));  // the second call wrote nothing
}

TEST(TableRun, AFileThatCannotBeWrittenIsAUsageError) {
    ct::CommonOptions options;
    options.json_path = "/nonexistent-dir/x.json";
    ct::TableRun run(test_info(), options);
    run.add(row("1", 1.0));
    EXPECT_THROW(finish_quietly(run), ct::UsageError);
}

TEST(TableRun, ASkippedStageIsUntimedOutsideTheChainAndFailsNothing) {
    ct::TableRun run(test_info(), ct::CommonOptions{});
    run.add(row("1", 2.0));
    const ct::StageDescriptor refused{"2", "block_64x32", "2,048 threads in a block"};
    run.skip(refused, "launch rejected: more threads than a block may have",
             [](ct::ResultRow& r) { r.with("grid", "1 x 1"); });
    run.add(row("3", 1.0));

    const ct::ResultTable& table = run.table();
    ASSERT_EQ(table.rows().size(), 3u);
    const ct::ResultRow& skipped = table.rows()[1];
    EXPECT_EQ(skipped.id, "2");
    EXPECT_EQ(skipped.name, "block_64x32");
    EXPECT_EQ(skipped.idea, "2,048 threads in a block");
    EXPECT_FALSE(skipped.timed);
    EXPECT_FALSE(skipped.in_progression);
    EXPECT_EQ(skipped.detail, "launch rejected: more threads than a block may have");
    EXPECT_EQ(skipped.extra_value("grid"), "1 x 1");
    // x prev for row 3 compares with row 1: the skipped row is not in the chain.
    ASSERT_TRUE(table.speedup_vs_previous(2).has_value());
    EXPECT_DOUBLE_EQ(*table.speedup_vs_previous(2), 2.0);
    EXPECT_EQ(finish_quietly(run), ct::to_int(ct::ExitCode::kSuccess));
    // A section that collects its rows first makes the same row with skipped_row().
    const ct::ResultRow same =
        ct::skipped_row(refused, skipped.detail, [](ct::ResultRow& r) { r.with("grid", "1 x 1"); });
    EXPECT_EQ(same.id, skipped.id);
    EXPECT_EQ(same.idea, skipped.idea);
    EXPECT_FALSE(same.timed);
    EXPECT_FALSE(same.passed);
    EXPECT_TRUE(same.expected_failure);
    EXPECT_FALSE(same.in_progression);
    EXPECT_EQ(same.detail, skipped.detail);
    EXPECT_EQ(same.extra_value("grid"), "1 x 1");
}

TEST(MemoryTraffic, CountsBytesByElementType) {
    EXPECT_DOUBLE_EQ(ct::MemoryTraffic().bytes(), 0.0);
    EXPECT_DOUBLE_EQ(ct::MemoryTraffic().reads<int>(1000).writes<int>(1).bytes(), 4004.0);
    EXPECT_DOUBLE_EQ(ct::MemoryTraffic().reads<std::uint8_t>(3).writes<double>(2).bytes(), 19.0);
    // More than 2^32 elements: the count is 64-bit and the bytes a double.
    EXPECT_DOUBLE_EQ(ct::MemoryTraffic().reads<float>(std::uint64_t{1} << 33).bytes(),
                     4.0 * 8589934592.0);
    ct::StageHooks hooks;
    hooks.bytes = ct::MemoryTraffic().reads<float>(4).writes<float>(4);
    EXPECT_DOUBLE_EQ(hooks.bytes, 32.0);
}

TEST(TableRun, AStageThatCouldNotRunWhenItShouldHaveFailsTheRun) {
    ct::TableRun run(test_info(), ct::CommonOptions{});
    run.add(row("1", 1.0));
    run.could_not_run({"2", "block_16x16", ""}, "launch rejected, which was not predicted");
    const ct::ResultRow& refused = run.table().rows()[1];
    EXPECT_FALSE(refused.timed);
    EXPECT_FALSE(refused.passed);
    EXPECT_FALSE(refused.expected_failure);
    EXPECT_EQ(refused.detail, "launch rejected, which was not predicted");
    EXPECT_EQ(finish_quietly(run), ct::to_int(ct::ExitCode::kVerificationFailed));
}
