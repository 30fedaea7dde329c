#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/table_writers.hpp"
#include "process.hpp"
#include "run_info.hpp"

namespace ct = cudatutorial;

namespace {

ct::ResultRow timed_row(const std::string& id, double median_ms, double bytes, bool passed = true) {
    ct::ResultRow row;
    row.id = id;
    row.name = "kernel_" + id;
    row.timed = true;
    row.stats = ct::summarize({median_ms * 0.9, median_ms, median_ms * 1.2});
    row.bytes = bytes;
    row.passed = passed;
    return row;
}

ct::RunInfo sample_info() {
    ct::RunInfo info = ct::testing::fake_run_info("reduction", "test table");
    info.peak_bandwidth_gbs = 1000.0;
    info.set("N", "1000");
    info.set("block", "256");
    return info;
}

ct::ResultTable sample_table() {
    ct::ResultTable table(sample_info());
    table.set_baseline("cub", "CUB");
    table.add(timed_row("1", 4.0, 1e9));  // 250 GB/s
    table.add(timed_row("2", 2.0, 1e9));  // 500 GB/s
    ct::ResultRow failing = timed_row("3", 1.0, 1e9, false);
    failing.detail = "element 7: got 3, expected 4";
    table.add(failing);
    ct::ResultRow cub = timed_row("cub", 1.25, 1e9);
    cub.in_progression = false;
    cub.with("note", "baseline, with, commas");
    table.add(cub);
    return table;
}

// A real JSON parser (Python's), not ours, reads the table's JSON back and checks its values
// (check_json.py).
void expect_python_reads_back(const ct::ResultTable& table, const std::string& file_name) {
    const std::string path = ::testing::TempDir() + file_name;
    table.write_files("", path);
    const auto result = cudatutorial::testing::run_process(std::string(CT_PYTHON) + " " +
                                                           CT_CHECK_JSON_SCRIPT + " " + path);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("json round trip ok"), std::string::npos) << result.output;
}

}  // namespace

TEST(ResultTable, DerivedColumns) {
    const ct::ResultTable table = sample_table();
    EXPECT_NEAR(*table.bandwidth_gbs(0), 250.0, 1e-9);
    EXPECT_NEAR(*table.percent_of_peak(1), 50.0, 1e-9);
    EXPECT_FALSE(table.speedup_vs_previous(0).has_value());
    EXPECT_NEAR(*table.speedup_vs_previous(1), 2.0, 1e-12);
    EXPECT_NEAR(*table.speedup_vs_previous(2), 2.0, 1e-12);
    EXPECT_NEAR(*table.speedup_vs_first(0), 1.0, 1e-12);
    EXPECT_NEAR(*table.speedup_vs_first(2), 4.0, 1e-12);
    // The baseline row is outside the progression: no "x prev" for it.
    EXPECT_FALSE(table.speedup_vs_previous(3).has_value());
    EXPECT_NEAR(*table.speedup_vs_baseline(0), 1.25 / 4.0, 1e-12);
    EXPECT_NEAR(*table.speedup_vs_baseline(3), 1.0, 1e-12);
    EXPECT_FALSE(table.all_passed());
}

TEST(ResultTable, UntimedRowsHaveNoDerivedNumbersAndAreSkippedByPrevious) {
    ct::ResultTable table(sample_info());
    table.add(timed_row("1", 4.0, 1e9));
    ct::ResultRow untimed;
    untimed.id = "2";
    untimed.name = "too_large_block";
    untimed.detail = "invalid configuration argument";
    table.add(untimed);
    table.add(timed_row("3", 2.0, 1e9));
    EXPECT_FALSE(table.bandwidth_gbs(1).has_value());
    EXPECT_FALSE(table.speedup_vs_previous(1).has_value());
    EXPECT_NEAR(*table.speedup_vs_previous(2), 2.0, 1e-12);
    std::ostringstream text;
    table.print(text);
    EXPECT_NE(text.str().find("invalid configuration argument"), std::string::npos);
}

TEST(ResultTable, ExpectedFailuresDoNotFailTheRun) {
    ct::ResultTable table(sample_info());
    table.add(timed_row("1", 1.0, 1e9));
    ct::ResultRow race = timed_row("race", 1.0, 1e9, false);
    race.expected_failure = true;
    race.in_progression = false;
    table.add(race);
    EXPECT_TRUE(table.all_passed());
    std::ostringstream text;
    table.print(text);
    EXPECT_NE(text.str().find("FAIL (expected)"), std::string::npos);
}

TEST(ResultTable, PrintShowsHeaderRowsDetailsAndVerdict) {
    std::ostringstream text;
    sample_table().print(text);
    const std::string out = text.str();
    for (const char* expected : {"Test GPU", "compute capability 9.0", "CUDA runtime 13.0",
                                 "N 1000", "block 256", "x CUB", "kernel_1", "PASS", "FAIL",
                                 "[3] element 7: got 3, expected 4", "4.000", "250", "FAILED"}) {
        EXPECT_NE(out.find(expected), std::string::npos) << "missing '" << expected << "' in\n"
                                                         << out;
    }
}

TEST(RunInfo, VersionsNameTheDriverAndTheCudaVersionItSupports) {
    ct::RunInfo info = sample_info();
    EXPECT_EQ(info.versions(), "CUDA runtime 13.0, driver supporting CUDA 13.0");
    info.driver_version = "580.95.05";
    EXPECT_EQ(info.versions(), "CUDA runtime 13.0, driver 580.95.05 (supports CUDA 13.0)");
    std::ostringstream text;
    ct::ResultTable table(info);
    table.add(timed_row("1", 1.0, 1e9));
    table.print(text);
    EXPECT_NE(text.str().find("driver 580.95.05 (supports CUDA 13.0)"), std::string::npos)
        << text.str();
}

// A table whose rows move no bytes and are no optimization steps (chapter 6's scenarios) prints
// no GB/s, % peak, x prev and x first columns: they could only hold "-".
TEST(ResultTable, PrintLeavesOutColumnsNoRowCanFill) {
    ct::ResultTable table(sample_info());
    for (const char* id : {"1L", "1P"}) {
        ct::ResultRow row = timed_row(id, 0.5, 0.0);
        row.in_progression = false;
        row.with("overlapping pairs", "0/3");
        table.add(row);
    }
    EXPECT_FALSE(table.has_bandwidth());
    EXPECT_FALSE(table.has_progression());
    std::ostringstream text;
    table.print(text);
    const std::string out = text.str();
    const auto header_start = out.find("\nid ");
    ASSERT_NE(header_start, std::string::npos) << out;
    const std::string header = out.substr(header_start, out.find('\n', header_start + 1));
    for (const char* absent : {"GB/s", "% peak", "x prev", "x first"}) {
        EXPECT_EQ(header.find(absent), std::string::npos) << "'" << absent << "' in\n" << out;
    }
    EXPECT_NE(header.find("overlapping pairs"), std::string::npos) << out;
    EXPECT_TRUE(sample_table().has_bandwidth());
    EXPECT_TRUE(sample_table().has_progression());
}

TEST(ResultTable, CsvHasOneHeaderAndOneLinePerRowWithQuotedCells) {
    std::ostringstream csv;
    sample_table().write_csv(csv);
    std::istringstream lines(csv.str());
    std::string header;
    std::getline(lines, header);
    EXPECT_EQ(header.rfind("program,gpu,compute_capability,", 0), 0u) << header;
    EXPECT_NE(header.find(",N,block,id,name,median_ms,"), std::string::npos) << header;
    EXPECT_NE(header.find(",note,passed,expected_failure,detail"), std::string::npos) << header;
    int rows = 0;
    std::string line;
    while (std::getline(lines, line)) {
        ++rows;
        EXPECT_EQ(line.rfind("reduction,\"Test GPU \"\"X\"\"\",9.0,132,", 0), 0u) << line;
    }
    EXPECT_EQ(rows, 4);
    EXPECT_NE(csv.str().find("\"baseline, with, commas\""), std::string::npos);
}

TEST(ResultTable, WriteFilesRejectsAnUnwritablePath) {
    EXPECT_THROW(sample_table().write_files("/nonexistent-dir/x.csv", ""), ct::UsageError);
    EXPECT_THROW(sample_table().write_files("", "/nonexistent-dir/x.json"), ct::UsageError);
}

TEST(Formatting, MillisecondsAndEscaping) {
    EXPECT_EQ(ct::format_ms(0.05432), "0.0543");
    EXPECT_EQ(ct::format_ms(2.5312), "2.531");
    EXPECT_EQ(ct::format_ms(48.5), "48.50");
    EXPECT_EQ(ct::format_ms(172.0), "172.0");
    EXPECT_EQ(ct::json_string("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
    EXPECT_EQ(ct::csv_cell("plain"), "plain");
    EXPECT_EQ(ct::csv_cell("a,b"), "\"a,b\"");
}

TEST(ResultTable, JsonParsesBackWithPythonsJsonModule) {
    expect_python_reads_back(sample_table(), "report_test_table.json");
}

namespace {

// Every kind of cell the writers typeset: a timed row, an untimed one, a failure, a labelled
// expected failure, a name with a "|", an extra column with a gap, the baseline, and a note.
ct::ResultTable every_kind_of_cell() {
    ct::ResultTable table = sample_table();
    ct::ResultRow untimed;
    untimed.id = "4";
    untimed.name = "not_run|here";
    untimed.detail = "skipped: needs sm_90";
    table.add(untimed);
    ct::ResultRow demo = timed_row("5v", 3.0, 1e9, false);
    demo.expected_failure = true;
    demo.in_progression = false;
    table.add(demo);
    table.add_note("stage 9 skipped: --block 32 is below its minimum");
    return table;
}

}  // namespace

TEST(ResultTable, MarkdownIsTheReadmeTable) {
    // The expected text is what scripts/results_tables.py rendered from this table's JSON before
    // the Markdown writer moved into C++ (the READMEs regenerate byte-identical), plus the note.
    const std::string expected =
        "*Test GPU \"X\" (compute capability 9.0, 132 SMs), CUDA runtime 13.0, driver supporting "
        "CUDA 13.0, 2026-11-22; N 1000, block 256; theoretical DRAM bandwidth 1000 GB/s*\n"
        "\n"
        "| id | kernel | median ms | min–max ms | GB/s | % peak | note | × prev | × first | × CUB "
        "| result |\n"
        "|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|:--|\n"
        "| 1 | `kernel_1` | 4.000 | 3.600–4.800 | 250 | 25.0 | – | – | 1.00 | 0.31 | PASS |\n"
        "| 2 | `kernel_2` | 2.000 | 1.800–2.400 | 500 | 50.0 | – | 2.00 | 2.00 | 0.62 | PASS |\n"
        "| 3 | `kernel_3` | 1.000 | 0.9000–1.200 | 1000 | 100.0 | – | 2.00 | 4.00 | 1.25 | "
        "**FAIL** |\n"
        "| cub | `kernel_cub` | 1.250 | 1.125–1.500 | 800 | 80.0 | baseline, with, commas | – | "
        "3.20 | 1.00 | PASS |\n"
        "| 4 | `not_run\\|here` | – | – | – | – | – | – | – | – | **FAIL** |\n"
        "| 5v | `kernel_5v` | 3.000 | 2.700–3.600 | 333 | 33.3 | – | – | 1.33 | 0.42 | FAIL "
        "(expected) |\n"
        "\n"
        "- [3] element 7: got 3, expected 4\n"
        "- [4] skipped: needs sm_90\n"
        "- stage 9 skipped: --block 32 is below its minimum\n";
    EXPECT_EQ(every_kind_of_cell().markdown(), expected);
}

TEST(ResultTable, NotesReachEveryFormat) {
    const ct::ResultTable table = every_kind_of_cell();
    std::ostringstream printed;
    table.print(printed);
    EXPECT_NE(printed.str().find("  stage 9 skipped: --block 32 is below its minimum\n"),
              std::string::npos);
    std::ostringstream csv;
    table.write_csv(csv);
    EXPECT_NE(csv.str().find(",table_notes\n"), std::string::npos);
    EXPECT_NE(csv.str().find(",stage 9 skipped: --block 32 is below its minimum\n"),
              std::string::npos);
    std::ostringstream json;
    table.write_json(json);
    EXPECT_NE(json.str().find("\"notes\": [\"stage 9 skipped: --block 32 is below its minimum\"]"),
              std::string::npos);
    EXPECT_NE(json.str().find("\"markdown\": \"*Test GPU \\\"X\\\""), std::string::npos);
}

TEST(ResultTable, TerminalAndMarkdownShowTheSameColumns) {
    const ct::TableLayout layout = every_kind_of_cell().layout();
    ASSERT_EQ(layout.headers.size(), layout.markdown_headers.size());
    for (const auto& row : layout.rows) {
        EXPECT_EQ(row.size(), layout.headers.size());
    }
    EXPECT_EQ(layout.headers[3], "min-max ms");
    EXPECT_EQ(layout.markdown_headers[3], "min–max ms");
}

TEST(ResultTable, NoBaselineColumnWithoutTheBaselineRow) {
    ct::ResultTable table(sample_info());
    table.set_baseline("cub", "CUB");
    table.add(timed_row("1", 1.0, 1e9));
    const ct::TableLayout layout = table.layout();
    EXPECT_EQ(std::count(layout.headers.begin(), layout.headers.end(), "x CUB"), 0);
}

namespace {

// Two groups (message sizes), each with a progression of two steps, a labelled bug
// demonstration and the baseline; a third group has no baseline row.
ct::ResultRow grouped_row(const std::string& group, const std::string& id, double median_ms) {
    ct::ResultRow row = timed_row(id, median_ms, 1e9);
    row.group = group;
    return row;
}

ct::ResultTable grouped_table() {
    ct::ResultTable table(sample_info());
    table.set_baseline("nccl", "NCCL");
    table.set_group_column("size");
    for (const auto& [group, scale] : {std::pair<std::string, double>{"1 MiB", 1.0},
                                       std::pair<std::string, double>{"64 MiB", 10.0}}) {
        table.add(grouped_row(group, "1", 4.0 * scale));
        ct::ResultRow wrong = grouped_row(group, "1v", 0.5 * scale);
        wrong.passed = false;
        wrong.expected_failure = true;
        wrong.in_progression = false;
        table.add(wrong);
        table.add(grouped_row(group, "2", 2.0 * scale));
        ct::ResultRow nccl = grouped_row(group, "nccl", 1.0 * scale);
        nccl.in_progression = false;
        table.add(nccl);
    }
    table.add(grouped_row("1 GiB", "1", 100.0));
    return table;
}

}  // namespace

TEST(ResultTable, GroupsChainTheirOwnRowsAndCompareWithTheirOwnBaseline) {
    const ct::ResultTable table = grouped_table();
    // Rows 0-3: 1 MiB (1, 1v, 2, nccl); rows 4-7: 64 MiB; row 8: 1 GiB.
    EXPECT_FALSE(table.speedup_vs_previous(0).has_value());
    EXPECT_FALSE(table.speedup_vs_previous(1).has_value());  // the bug demonstration: no chain
    EXPECT_NEAR(*table.speedup_vs_previous(2), 2.0, 1e-12);  // 1 -> 2, over the demonstration
    // x prev starts again at the group boundary: 64 MiB's row 1 follows 1 MiB's rows.
    EXPECT_FALSE(table.speedup_vs_previous(4).has_value());
    EXPECT_NEAR(*table.speedup_vs_first(4), 1.0, 1e-12);
    EXPECT_NEAR(*table.speedup_vs_previous(6), 2.0, 1e-12);
    EXPECT_NEAR(*table.speedup_vs_first(6), 2.0, 1e-12);
    // Each group against its own NCCL row.
    EXPECT_NEAR(*table.speedup_vs_baseline(0), 0.25, 1e-12);
    EXPECT_NEAR(*table.speedup_vs_baseline(6), 0.5, 1e-12);
    EXPECT_NEAR(*table.speedup_vs_baseline(7), 1.0, 1e-12);
    // A group without a baseline row has no x NCCL.
    EXPECT_FALSE(table.speedup_vs_baseline(8).has_value());
    EXPECT_NEAR(*table.speedup_vs_first(8), 1.0, 1e-12);
    EXPECT_TRUE(table.all_passed());
}

TEST(ResultTable, GroupColumnFollowsTheIdInEveryFormat) {
    const ct::ResultTable table = grouped_table();
    const ct::TableLayout layout = table.layout();
    ASSERT_GE(layout.headers.size(), 3u);
    EXPECT_EQ(layout.headers[1], "size");
    EXPECT_EQ(layout.markdown_headers[1], "size");
    EXPECT_EQ(layout.left_aligned_columns, 3u);
    const std::string markdown = table.markdown();
    EXPECT_NE(markdown.find("| id | size | kernel | median ms |"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("|:--|:--|:--|--:|"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("| 2 | 64 MiB | `kernel_2` | 20.00 |"), std::string::npos) << markdown;
    // The 1 GiB group has no NCCL row: its x NCCL is missing.
    EXPECT_NE(markdown.find("| 1 | 1 GiB | `kernel_1` | 100.0 | 90.00–120.0 | 10 | 1.0 | – | 1.00 "
                            "| – | PASS |"),
              std::string::npos)
        << markdown;

    std::ostringstream printed;
    table.print(printed);
    EXPECT_NE(printed.str().find("\nid    size    kernel "), std::string::npos) << printed.str();

    std::ostringstream csv;
    table.write_csv(csv);
    EXPECT_NE(csv.str().find(",id,group,name,"), std::string::npos) << csv.str();
    EXPECT_NE(csv.str().find(",nccl,64 MiB,kernel_nccl,"), std::string::npos) << csv.str();

    std::ostringstream json;
    table.write_json(json);
    EXPECT_NE(json.str().find("\"baseline\": \"nccl\",\n  \"group_column\": \"size\","),
              std::string::npos)
        << json.str();
    EXPECT_NE(json.str().find("{\"id\": \"1v\", \"group\": \"64 MiB\", \"name\""),
              std::string::npos)
        << json.str();
}

TEST(ResultTable, TablesWithoutGroupsWriteNoGroupFields) {
    const ct::ResultTable table = sample_table();
    EXPECT_EQ(table.group_column(), "");
    std::ostringstream csv;
    table.write_csv(csv);
    std::ostringstream json;
    table.write_json(json);
    EXPECT_EQ(csv.str().find("group"), std::string::npos);
    EXPECT_EQ(json.str().find("group"), std::string::npos);
    EXPECT_EQ(table.layout().left_aligned_columns, 2u);
}

TEST(ResultTable, GroupedJsonParsesBackWithPythonsJsonModule) {
    expect_python_reads_back(grouped_table(), "report_test_grouped.json");
}

TEST(ResultRow, NumericExtraValuesAreShownRoundedAndWrittenInFull) {
    ct::ResultTable table(sample_info());
    ct::ResultRow row = timed_row("1", 1.0, 1e9);
    row.with("launches", "3").with("us per launch", 2.345678901, 2).with("ratio", NAN, 1);
    table.add(row);
    EXPECT_EQ(*row.extra_number("us per launch"), 2.345678901);
    EXPECT_FALSE(row.extra_number("launches").has_value());
    EXPECT_NE(table.markdown().find("| 3 | 2.35 | – |"), std::string::npos) << table.markdown();
    std::ostringstream csv;
    table.write_csv(csv);
    EXPECT_NE(csv.str().find(",3,2.345678901,,"), std::string::npos) << csv.str();
    std::ostringstream json;
    table.write_json(json);
    EXPECT_NE(json.str().find("\"extra\": {\"launches\": \"3\", \"us per launch\": 2.345678901, "
                              "\"ratio\": null}"),
              std::string::npos)
        << json.str();
    // Text replaces a number: the column is text again.
    row.with("us per launch", "n/a");
    EXPECT_FALSE(row.extra_number("us per launch").has_value());
}

TEST(ResultTable, AttachedDocumentsFollowTheStandardMembers) {
    ct::ResultTable table = sample_table();
    std::ostringstream plain;
    table.write_json(plain);
    table.attach("timelines", "[1, 2]");
    table.attach("extra_doc", "{\"a\": true}");
    table.attach("timelines", "[3]");  // again: replaced in place
    std::ostringstream json;
    table.write_json(json);
    std::string expected = plain.str();
    expected.insert(expected.size() - 3,
                    ",\n  \"timelines\": [3],\n  \"extra_doc\": {\"a\": true}");
    EXPECT_EQ(json.str(), expected);
    for (const char* key : {"", "rows", "markdown", "run", "group_column"}) {
        EXPECT_THROW(table.attach(key, "1"), std::invalid_argument) << key;
    }
    EXPECT_THROW(table.attach("timelines", ""), std::invalid_argument);
    EXPECT_THROW(table.attach("timelines", " \n"), std::invalid_argument);
}

namespace {

// A format the library does not have: one row id per line.
class IdListWriter final : public ct::TableWriter {
  public:
    void write(const ct::ResultTable& table, std::ostream& out) const override {
        for (const auto& row : table.rows()) {
            out << row.id << "\n";
        }
    }
};

std::string written_by(const ct::TableWriter& writer, const ct::ResultTable& table) {
    std::ostringstream out;
    writer.write(table, out);
    return out.str();
}

}  // namespace

TEST(TableWriters, EachFormatIsOneWriterAndANewOneNeedsNoOtherChange) {
    const ct::ResultTable table = every_kind_of_cell();
    std::ostringstream printed, csv, json;
    table.print(printed);
    table.write_csv(csv);
    table.write_json(json);
    EXPECT_EQ(written_by(ct::TextWriter(), table), printed.str());
    EXPECT_EQ(written_by(ct::MarkdownWriter(), table), table.markdown());
    EXPECT_EQ(written_by(ct::CsvWriter(), table), csv.str());
    EXPECT_EQ(written_by(ct::JsonWriter(), table), json.str());

    const std::string path = ::testing::TempDir() + "report_test_ids.txt";
    ct::write_table_file(table, IdListWriter(), path);
    std::ifstream file(path);
    std::ostringstream ids;
    ids << file.rdbuf();
    EXPECT_EQ(ids.str(), "1\n2\n3\ncub\n4\n5v\n");
    EXPECT_THROW(ct::write_table_file(table, IdListWriter(), "/nonexistent-dir/x.txt"),
                 ct::UsageError);
    ct::write_table_file(table, IdListWriter(), "");  // no path: nothing written, no error
}
