"""One plotting environment: the committed figures under docs/results/ are drawn with the pinned
matplotlib (Debian bookworm's python3-matplotlib and python3-pil, /usr/bin/python3), and drawing
them again gives the same bytes.

- plot_results.py refuses, with one line and exit 2, to write into docs/results/ with other
  versions (make plots OUT=docs/results, make compare OUT=docs/results/compare), unless --force
  (or CT_PLOT_FORCE=1); anywhere else it writes; a folder drawn in place (make bench) is drawn,
  with one line saying to redraw before committing;
- with the pinned versions, every committed figure of every results folder, and the committed
  comparison (figures, comparison.md, class.html), redrawn into an empty folder, is byte for byte
  the committed file (skipped, saying why, under another matplotlib).
"""
import contextlib
import filecmp
import io
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from plot_test_support import (ELSEWHERE, HERE, RESULTS, SCRIPT, compare_folders, gpu_folders,
                               rerun_under_system_python)

from plotting import style  # noqa: E402


@unittest.skipUnless(ELSEWHERE, "matplotlib is importable here (or nowhere)")
class UnderSystemPythonTest(unittest.TestCase):
    def test_reproducible_under_system_python(self):
        rerun_under_system_python(self, "test_plots_reproducible.py")


@unittest.skipUnless(HERE, "matplotlib is not importable by this Python")
class PinTest(unittest.TestCase):
    OTHER = {"matplotlib": "3.11.2", "Pillow": "11.0.0"}

    def refused(self, out_dir, force=False, env=None, in_place=False):
        stderr = io.StringIO()
        with mock.patch.object(style, "plotting_versions", return_value=self.OTHER), \
                mock.patch.dict(os.environ, env or {}, clear=False), \
                contextlib.redirect_stderr(stderr):
            try:
                style.check_pinned(out_dir, force, in_place)
            except SystemExit as stop:
                return stop.code, stderr.getvalue()
        return None, stderr.getvalue()

    def test_refuses_docs_results_under_another_matplotlib(self):
        code, message = self.refused(RESULTS / "nvidia-h200", env={"CT_PLOT_FORCE": ""})
        self.assertEqual(code, 2)
        self.assertEqual(message.count("\n"), 1, "one line")
        self.assertIn("matplotlib 3.6.3", message)
        self.assertIn("matplotlib 3.11.2", message)

    def test_make_bench_draws_its_folder_and_says_to_redraw(self):
        code, message = self.refused(RESULTS / "nvidia-h200", env={"CT_PLOT_FORCE": ""},
                                     in_place=True)
        self.assertIsNone(code)
        self.assertEqual(message.count("\n"), 1, "one line")
        self.assertIn("make plots OUT=docs/results", message)

    def test_writes_elsewhere_or_when_forced(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(self.refused(tmp, env={"CT_PLOT_FORCE": ""}), (None, ""))
        self.assertEqual(self.refused(RESULTS / "compare", force=True), (None, ""))
        self.assertEqual(self.refused(RESULTS / "compare", env={"CT_PLOT_FORCE": "1"}),
                         (None, ""))

    def test_the_pin_is_what_debian_installs(self):
        self.assertEqual(style.PINNED["matplotlib"], "3.6.3")
        makefile = (RESULTS.parents[1] / "Makefile").read_text(encoding="utf-8")
        self.assertIn("python3-matplotlib", makefile)


def differing(committed, redrawn, names):
    """Names (of `names`) whose bytes differ between the two folders, or are missing."""
    bad = []
    for name in sorted(names):
        a, b = pathlib.Path(committed) / name, pathlib.Path(redrawn) / name
        if not b.is_file() or not filecmp.cmp(a, b, shallow=False):
            bad.append(name)
    return bad


@unittest.skipUnless(HERE, "matplotlib is not importable by this Python")
class SameBytesTest(unittest.TestCase):
    def setUp(self):
        if not style.pinned():
            self.skipTest(f"this Python draws with {style.plotting_versions()}, not the pinned "
                          f"{style.PINNED}: other bytes (use /usr/bin/python3 on Debian bookworm)")

    def test_every_committed_figure_redraws_byte_identical(self):
        with tempfile.TemporaryDirectory() as tmp:
            for folder in gpu_folders():
                out = pathlib.Path(tmp) / folder.name
                run = subprocess.run([sys.executable, str(SCRIPT), "plot", str(folder), "--out",
                                      str(out)], capture_output=True, text=True)
                self.assertEqual(run.returncode, 0, run.stderr)
                names = [p.name for p in folder.iterdir() if p.suffix in (".png", ".svg")]
                with self.subTest(folder=folder.name):
                    self.assertEqual(differing(folder, out, names), [],
                                     "make plots OUT=docs/results with /usr/bin/python3")

    def test_the_chapters_figure_scripts_redraw_their_committed_figures(self):
        # Chapter 1's and chapter 7's one-figure scripts draw through plot_results.py's names:
        # run each on a committed table and compare with the committed figure.
        scripts = [("chapters/01_execution_model/measuring/sm_scaling_plot.py",
                    "execution_model_scaling", "_sms"),
                   ("chapters/07_multi_gpu/measuring/plot_busbw.py", "multi_gpu_allreduce",
                    "_busbw")]
        root = SCRIPT.parents[1]
        for script, stem, suffix in scripts:
            folders = [f for f in gpu_folders() if (f / f"{stem}{suffix}.svg").exists()]
            self.assertNotEqual(folders, [], f"no committed {stem}{suffix}.svg")
            with tempfile.TemporaryDirectory() as tmp, self.subTest(script=script):
                run = subprocess.run([sys.executable, str(root / script),
                                      str(folders[0] / f"{stem}.json"), "--out", tmp],
                                     capture_output=True, text=True)
                self.assertEqual(run.returncode, 0, run.stderr)
                names = [f"{stem}{suffix}.svg", f"{stem}{suffix}.png"]
                self.assertEqual(differing(folders[0], tmp, names), [])

    def test_committed_comparison_redraws_byte_identical(self):
        committed = RESULTS / "compare"
        with tempfile.TemporaryDirectory() as tmp:
            run = subprocess.run([sys.executable, str(SCRIPT), "compare",
                                  *map(str, compare_folders()), "--out", tmp],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            names = [p.name for p in committed.iterdir()]
            self.assertEqual(differing(committed, tmp, names), [],
                             "make compare GPUS=... OUT=docs/results/compare")


if __name__ == "__main__":
    unittest.main()
