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


class CompareTest(unittest.TestCase):
    @staticmethod
    def run_doc(gpu, median, low, high):
        row = {"id": "1", "name": "stage", "median_ms": median, "min_ms": low, "max_ms": high,
               "percent_of_peak": 50.0, "speedup_vs_baseline": None}
        return {"program": "p", "title": "t", "rows": [row], "baseline": None,
                "run": {"gpu": gpu, "clocks": {"sm_mhz_min": 1755, "sm_mhz_max": 1980,
                                               "memory_mhz_min": 2619, "memory_mhz_max": 2619,
                                               "throttle": "none"}}}

    def test_side_by_side_marks_noise_from_the_spread_of_both_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            for folder, doc in (("a", self.run_doc("GPU A", 1.0, 0.98, 1.02)),
                                ("b", self.run_doc("GPU B", 0.99, 0.97, 1.01)),
                                ("c", self.run_doc("GPU C", 0.5, 0.49, 0.51))):
                (root / folder).mkdir()
                (root / folder / "r.json").write_text(json.dumps(doc))
            saved_root = results_tables.ROOT
            results_tables.ROOT = root
            try:
                text = results_tables.regenerate(
                    "<!-- BEGIN COMPARE r a b c -->\n<!-- END COMPARE -->\n", root / "README.md")
            finally:
                results_tables.ROOT = saved_root
            self.assertIn("1.01× same (within noise)", text)
            self.assertIn("2.00× faster", text)
            self.assertIn("GPU A: SM 1755-1980 MHz, memory 2619 MHz", text)
            self.assertNotIn("### r", text)


if __name__ == "__main__":
    unittest.main()
