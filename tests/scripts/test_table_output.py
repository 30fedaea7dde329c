"""One path runs a chapter's table and one path prints it and writes its files: TableRun
(common/include/cudatutorial/table_run.hpp), whose finish() is the only caller of finish_table
(common/src/cli/cli.cpp), so that --markdown, the clocks seen during timing and the table's notes
reach every chapter's table. This test fails when chapter code prints or writes a table itself,
makes its own ResultTable, calls finish_table, or times and makes a row outside the stage protocol
(measure(), measure_round_trip(), make_row(): every timed row comes from time_stage(), through
TableRun::run or directly; run by ctest as docs.scripts_unit_tests)."""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# A string literal on one line (what a program prints is not a call).
STRING_LITERAL = re.compile(r'"(?:\\.|[^"\\])*"')

# A table printed to the terminal, or written as files, outside finish_table.
OWN_OUTPUT = re.compile(r"\.print\(\s*std::cout|\bwrite_files\(|\bwrite_json\(|\bwrite_csv\(")

# A table of the chapter's own, around TableRun: a ResultTable made (a variable, a temporary, a
# value in a template such as std::optional<ResultTable>), finish_table called, or a stage timed
# with run_stage instead of TableRun::run. A reference or a pointer to a table (a printout that
# reads the finished table) is not a table of its own.
OWN_TABLE = re.compile(
    r"\bResultTable\s+\w+\s*[({;=]|\bResultTable\s*[({]|<\s*(?:\w+::)*ResultTable\s*>"
    r"|\bfinish_table\s*\(|\brun_stage\s*\(")

# A timing or a row made outside the stage protocol (benchmark.hpp's time_stage, which TableRun::run
# calls): the poison, the two verifications, the NVTX range and the row's flags would each be the
# chapter's own. A member called measure (x.measure(), p->measure()) is something else.
OWN_TIMING = re.compile(
    r"(?<![\w.>])(?:(?:ct|cudatutorial)::)?"
    r"(?:measure|measure_round_trip|measure_after_setup|make_row)\s*\(")

# A timed row built by hand: a ResultRow's `timed` set to anything but false (a row that could
# not run says so through TableRun::could_not_run or skip). Every timed row comes from
# time_stage(), or, for a stage measured where time_stage() cannot reach (another process),
# from reported_row() (benchmark.hpp).
OWN_TIMED_ROW = re.compile(r"\.timed\s*=(?!=)(?!\s*false\b)")

# A failure row built by hand: a row marked as an expected failure (a partition the driver will
# not make, a launch this GPU refuses) goes through TableRun::skip or skipped_row (table_run.hpp),
# a row that should have run and could not through TableRun::could_not_run.
OWN_FAILURE_ROW = re.compile(r"\.expected_failure\s*=(?!=)")

# Files allowed to build timed rows by hand, each with its reason: chapter 0's lesson on timing
# methods times one kernel five ways, each with its own clock (that is what it teaches). An entry
# that no longer builds one must leave (test_the_timed_row_exceptions_are_still_needed).
OWN_TIMED_ROW_ALLOWED = {
    "chapters/00_first_kernel/main.cpp": "the lesson on timing methods: five clocks, one kernel",
}

# Chapters allowed to make their tables and call finish_table themselves: none. A chapter added
# here while it is being converted must leave again (test_the_exceptions_are_still_needed).
NOT_YET_ON_TABLE_RUN = ()


def chapter_sources(root):
    """(relative path, path) of every chapter and exercise-harness source file."""
    for folder in ("chapters", "exercises"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in (".cpp", ".cu", ".hpp", ".cuh") and path.is_file():
                yield path.relative_to(root).as_posix(), path


def matching_lines(root, pattern, skipped=()):
    """["path:line: text"] for every chapter source line (comments aside) matching `pattern`."""
    found = []
    for relative, path in chapter_sources(root):
        if skipped and relative.startswith(skipped):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = STRING_LITERAL.sub('""', line).split("//")[0]
            if pattern.search(code):
                found.append(f"{relative}:{number}: {line.strip()}")
    return found


def offenders(root):
    """Lines that print or write a table outside finish_table."""
    return matching_lines(root, OWN_OUTPUT)


def own_tables(root):
    """Lines that make a ResultTable or call finish_table instead of going through TableRun."""
    return matching_lines(root, OWN_TABLE, NOT_YET_ON_TABLE_RUN)


class TableOutputTest(unittest.TestCase):
    def test_chapters_end_through_finish_table(self):
        found = offenders(ROOT)
        self.assertEqual(
            found, [], "print or write the table with ct::TableRun::finish (table_run.hpp) "
            "instead:\n" + "\n".join(found))

    def test_chapters_run_their_tables_through_table_run(self):
        found = own_tables(ROOT)
        self.assertEqual(
            found, [], "make the table with ct::TableRun and end it with finish() "
            "(table_run.hpp) instead:\n" + "\n".join(found))

    def test_chapters_time_their_rows_through_the_stage_protocol(self):
        found = matching_lines(ROOT, OWN_TIMING)
        self.assertEqual(
            found, [], "time the row with ct::TableRun::run, or ct::time_stage with StageHooks "
            "(benchmark.hpp), instead:\n" + "\n".join(found))

    def test_chapters_build_no_timed_row_by_hand(self):
        found = [line for line in matching_lines(ROOT, OWN_TIMED_ROW)
                 if line.split(":")[0] not in OWN_TIMED_ROW_ALLOWED]
        self.assertEqual(
            found, [], "make the row with ct::time_stage or TableRun::run, or, for a stage "
            "measured in another process, ct::reported_row (benchmark.hpp):\n" + "\n".join(found))

    def test_chapters_build_no_failure_row_by_hand(self):
        found = matching_lines(ROOT, OWN_FAILURE_ROW)
        self.assertEqual(
            found, [], "make the row with TableRun::skip, ct::skipped_row or "
            "TableRun::could_not_run (table_run.hpp):\n" + "\n".join(found))

    def test_the_failure_row_pattern_finds_each_assignment(self):
        for line in ("row.expected_failure = true;", "r.expected_failure=refused;"):
            self.assertTrue(OWN_FAILURE_ROW.search(line), line)
        for line in ("if (row.expected_failure == x) {", "if (!first.expected_failure) {"):
            self.assertFalse(OWN_FAILURE_ROW.search(line), line)

    def test_the_timed_row_exceptions_are_still_needed(self):
        found = {line.split(":")[0] for line in matching_lines(ROOT, OWN_TIMED_ROW)}
        for path in OWN_TIMED_ROW_ALLOWED:
            self.assertIn(path, found, path + " builds no timed row by hand now: remove it from "
                          "OWN_TIMED_ROW_ALLOWED")

    def test_the_timed_row_pattern_finds_each_assignment(self):
        for line in ("row.timed = true;", "r.row.timed = m.samples > 0;", "row.timed=ok;"):
            self.assertTrue(OWN_TIMED_ROW.search(line), line)
        for line in ("row.timed = false;", "if (row.timed == x) {", "if (!row.timed) {",
                     "const bool timed = m.stats.samples > 0;"):
            self.assertFalse(OWN_TIMED_ROW.search(line), line)

    def test_the_timing_pattern_finds_each_call(self):
        for line in ("const ct::Measurement m = ct::measure(launch, verify, config);",
                     "ct::ResultRow row = ct::make_row(id, name, m, bytes);",
                     "auto m = measure_round_trip(call, verify, c);",
                     "cudatutorial::measure_after_setup(setup, launch, verify, config);"):
            self.assertTrue(OWN_TIMING.search(line), line)
        for line in ("ct::time_stage(stage, hooks, config);", "table.run(stage, hooks);",
                     "measure_copy(from, to, path, bytes, config);", "probe.measure(x);",
                     "runner->measure(x);", "em::measure_copy_bandwidth(info, bytes, config);"):
            self.assertFalse(OWN_TIMING.search(line), line)

    def test_the_exceptions_are_still_needed(self):
        # An exception that no longer makes its own table is a chapter converted: drop it.
        for prefix in NOT_YET_ON_TABLE_RUN:
            found = [line for line in matching_lines(ROOT, OWN_TABLE) if line.startswith(prefix)]
            self.assertNotEqual(found, [], prefix + " goes through TableRun now: remove it from "
                                "NOT_YET_ON_TABLE_RUN")

    def test_the_pattern_finds_each_kind_of_call(self):
        for line in ("table.print(std::cout);", "table.write_files(a, b);",
                     "t.write_json(out);", "t.write_csv(file);"):
            self.assertTrue(OWN_OUTPUT.search(line), line)
        for line in ("streams::write_timeline_csv(file, info, all);", "ct::finish_table(t, o);",
                     "print_scenario(std::cout, builds, width);"):
            self.assertFalse(OWN_OUTPUT.search(line), line)

    def test_the_table_pattern_finds_each_way_to_make_a_table(self):
        for line in ("ct::ResultTable table(info);", "cudatutorial::ResultTable t{info};",
                     "ResultTable noted = table;", "return ct::ResultTable(info);",
                     "std::optional<ct::ResultTable> scaling_table(",
                     "ct::finish_table(table, o.common);", "return finish_table (t, o);",
                     "ct::ResultRow row = ct::run_stage(stage, poison, launch, verify, b, c);"):
            self.assertTrue(OWN_TABLE.search(line), line)
        for line in ("ct::TableRun table(info, o.common);", "return table.finish();",
                     "void print(const ct::ResultTable& table);",
                     "const cudatutorial::ResultTable* shown = nullptr;",
                     "row.with(\"x CUB\", ratio);", "table.run(*stage, hooks);"):
            self.assertFalse(OWN_TABLE.search(line), line)


if __name__ == "__main__":
    unittest.main()
