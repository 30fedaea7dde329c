"""One path prints a result table and writes its files: finish_table (common/src/cli/cli.cpp), so
that --markdown, the clocks seen during timing and the table's notes reach every chapter's table.
This test fails when chapter code prints or writes a table itself (run by ctest as
docs.scripts_unit_tests)."""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# A table printed to the terminal, or written as files, outside finish_table.
OWN_OUTPUT = re.compile(r"\.print\(\s*std::cout|\bwrite_files\(|\bwrite_json\(|\bwrite_csv\(")

# Every chapter ends through finish_table now; a chapter being converted may be listed here.
NOT_YET_CONVERTED = ()


def offenders(root):
    """["path:line: text"] for every chapter source line that prints or writes a table itself."""
    found = []
    for path in sorted((root / "chapters").rglob("*")):
        if path.suffix not in (".cpp", ".cu") or not path.is_file():
            continue
        relative = path.relative_to(root).as_posix()
        if relative.startswith(NOT_YET_CONVERTED):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OWN_OUTPUT.search(line.split("//")[0]):
                found.append(f"{relative}:{number}: {line.strip()}")
    return found


class TableOutputTest(unittest.TestCase):
    def test_chapters_end_through_finish_table(self):
        found = offenders(ROOT)
        self.assertEqual(
            found, [], "print or write the table with ct::finish_table (cli.hpp) instead:\n"
            + "\n".join(found))

    def test_the_pattern_finds_each_kind_of_call(self):
        for line in ("table.print(std::cout);", "table.write_files(a, b);",
                     "t.write_json(out);", "t.write_csv(file);"):
            self.assertTrue(OWN_OUTPUT.search(line), line)
        for line in ("streams::write_timeline_csv(file, info, all);", "ct::finish_table(t, o);",
                     "print_scenario(std::cout, builds, width);"):
            self.assertFalse(OWN_OUTPUT.search(line), line)


if __name__ == "__main__":
    unittest.main()
