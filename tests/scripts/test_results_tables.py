"""Unit tests of scripts/results_tables.py (run by ctest as docs.scripts_unit_tests)."""
import importlib.util
import json
import pathlib
import tempfile
import unittest

SCRIPTS = pathlib.Path(__file__).resolve().parents[2] / "scripts"
spec = importlib.util.spec_from_file_location("results_tables", SCRIPTS / "results_tables.py")
results_tables = importlib.util.module_from_spec(spec)
spec.loader.exec_module(results_tables)


def sample_doc():
    # The table itself is formatted by the program (ResultTable::write_markdown, tested in
    # tests/common/report_test.cpp); the script only pastes it.
    return {"program": "reduction", "title": "t", "rows": [], "notes": [],
            "markdown": "*caption*\n\n| id | kernel |\n|:--|:--|\n| 1 | `interleaved` |\n"}


class RenderTest(unittest.TestCase):
    def test_results_are_the_programs_own_markdown(self):
        self.assertEqual(results_tables.render_results(sample_doc(), "r.json"),
                         sample_doc()["markdown"])

    def test_a_file_without_markdown_is_an_error_naming_it(self):
        doc = sample_doc()
        del doc["markdown"]
        with self.assertRaises(KeyError) as raised:
            results_tables.render_results(doc, "docs/results/x/r.json")
        self.assertIn("docs/results/x/r.json", str(raised.exception))

    def test_output_blocks_are_code_blocks(self):
        self.assertEqual(results_tables.render_output("a\nb\n"), "```text\na\nb\n```\n")


class CheckTest(unittest.TestCase):
    def test_regenerate_fills_markers_and_detects_staleness(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "r.json").write_text(json.dumps(sample_doc()))
            (root / "out.txt").write_text("hello\n")
            saved_root = results_tables.ROOT
            results_tables.ROOT = root
            try:
                doc = root / "README.md"
                text = ("x\n<!-- BEGIN RESULTS r.json -->\nstale\n<!-- END RESULTS -->\n"
                        "<!-- BEGIN OUTPUT out.txt -->\n<!-- END OUTPUT -->\n")
                new = results_tables.regenerate(text, doc)
                self.assertNotIn("stale", new)
                self.assertIn("`interleaved`", new)
                self.assertIn("```text\nhello\n```", new)
                self.assertEqual(results_tables.regenerate(new, doc), new)  # idempotent
                with self.assertRaises(FileNotFoundError):
                    results_tables.regenerate(
                        "<!-- BEGIN RESULTS missing.json -->\n<!-- END RESULTS -->", doc)
            finally:
                results_tables.ROOT = saved_root


if __name__ == "__main__":
    unittest.main()
