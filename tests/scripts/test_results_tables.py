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
    row = {"id": "1", "name": "interleaved", "median_ms": 0.325, "min_ms": 0.32, "max_ms": 0.4,
           "gbs": 413.0, "percent_of_peak": 12.3, "speedup_vs_previous": None,
           "speedup_vs_first": 1.0, "speedup_vs_baseline": 0.17, "passed": True,
           "expected_failure": False, "detail": "", "extra": {"first pass ms": "0.30"}}
    cub = dict(row, id="cub", name="cub_device_reduce", median_ms=0.054, passed=True,
               speedup_vs_baseline=1.0, extra={})
    race = dict(row, id="race", name="plain_increment", passed=False, expected_failure=True,
                detail="lost 12 counts", extra={})
    return {"program": "reduction", "title": "t", "baseline": "cub",
            "run": {"gpu": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm_count": 132,
                    "cuda_runtime": "13.0", "cuda_driver": "13.0",
                    "timestamp": "2026-11-22T10:00:00+0000", "peak_gbs": 3352.3,
                    "parameters": {"N": "33554432 (2^25)"}},
            "rows": [row, cub, race]}


class RenderTest(unittest.TestCase):
    def test_table_has_caption_columns_and_verdicts(self):
        text = results_tables.render_results(sample_doc())
        self.assertIn("NVIDIA H100 80GB HBM3 (compute capability 9.0, 132 SMs)", text)
        self.assertIn("2026-11-22", text)
        self.assertIn("N 33554432 (2^25)", text)
        self.assertIn("| first pass ms |", text)
        self.assertIn("× CUB", text)
        self.assertIn("| 1 | `interleaved` | 0.3250 | 0.3200–0.4000 | 413 | 12.3 | 0.30 | – | 1.00 | 0.17 | PASS |", text)
        self.assertIn("FAIL (expected)", text)
        self.assertIn("- [race] lost 12 counts", text)

    def test_caption_labels_the_driver_and_the_cuda_version_it_supports(self):
        doc = sample_doc()
        self.assertIn("CUDA runtime 13.0, driver supporting CUDA 13.0",
                      results_tables.render_results(doc))
        doc["run"]["driver_version"] = "580.95.05"
        self.assertIn("CUDA runtime 13.0, driver 580.95.05 (supports CUDA 13.0)",
                      results_tables.render_results(doc))

    def test_columns_no_row_can_fill_are_left_out(self):
        doc = sample_doc()
        for row in doc["rows"]:
            row.update(bytes=0, gbs=None, percent_of_peak=None, in_progression=False,
                       speedup_vs_previous=None, speedup_vs_first=None)
        header = results_tables.render_results(doc).splitlines()[2]
        for absent in ("GB/s", "% peak", "× prev", "× first"):
            self.assertNotIn(absent, header)
        self.assertIn("first pass ms", header)

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
