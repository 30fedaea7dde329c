"""One plotting environment: the committed figures under docs/results/ are drawn with the pinned
matplotlib (Debian bookworm's python3-matplotlib and python3-pil, /usr/bin/python3), and drawing
them again, on any x86-64 machine, gives the same picture.

What is promised is the same picture, not the same bytes (scripts/plotting/sameness.py): the
same texts, every mark within a hundredth of a point of where it was, PNGs within an RMS tolerance
(matplotlib's own test suite judges its figures so). A last-bit difference in a float, which
another CPU's math library makes, can change a PNG's anti-aliasing along a line, or a hashed SVG id
(the writer now numbers them in order, but older committed SVGs still hold hashes), and must not
fail the gate; a changed number must.

- plot_results.py refuses, with one line and exit 2, to write into docs/results/ with other
  versions (make plots OUT=docs/results, make compare OUT=docs/results/compare), unless --force
  (or CT_PLOT_FORCE=1); anywhere else it writes; a folder drawn in place (make bench) is drawn,
  with one line saying to redraw before committing;
- with the pinned versions, every committed figure of every results folder, and the committed
  comparison (figures, comparison.md, class.html), redrawn into an empty folder, is the same
  picture as the committed file (skipped, saying why, under another matplotlib);
- every plotted value moved by a relative 1e-12 still draws the same pictures; one data point
  changed by a third does not.
"""
import contextlib
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from plot_test_support import (ELSEWHERE, HERE, RESULTS, SCRIPT, compare_folders, gpu_folders,
                               rerun_under_system_python)

from plotting import sameness, style  # noqa: E402


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
    """{name: why} for each of `names` that is not the same picture in the two folders (or is
    missing from `redrawn`)."""
    return sameness.differing(committed, redrawn, names)


def scaled(value, factor):
    """A JSON document with every float in it times `factor`."""
    if isinstance(value, float):
        return value * factor
    if isinstance(value, list):
        return [scaled(item, factor) for item in value]
    if isinstance(value, dict):
        return {key: scaled(item, factor) for key, item in value.items()}
    return value


def figures(folder):
    return [p.name for p in pathlib.Path(folder).iterdir() if p.suffix in (".png", ".svg")]


def draw(case, folder, out):
    run = subprocess.run([sys.executable, str(SCRIPT), "plot", str(folder), "--out", str(out)],
                         capture_output=True, text=True)
    case.assertEqual(run.returncode, 0, run.stderr)


@unittest.skipUnless(HERE, "matplotlib is not importable by this Python")
class SamePictureTest(unittest.TestCase):
    def setUp(self):
        if not style.pinned():
            self.skipTest(f"this Python draws with {style.plotting_versions()}, not the pinned "
                          f"{style.PINNED}: other bytes (use /usr/bin/python3 on Debian bookworm)")

    def test_every_committed_figure_redraws_the_same_picture(self):
        with tempfile.TemporaryDirectory() as tmp:
            for folder in gpu_folders():
                out = pathlib.Path(tmp) / folder.name
                draw(self, folder, out)
                with self.subTest(folder=folder.name):
                    self.assertEqual(differing(folder, out, figures(folder)), {},
                                     "make plots OUT=docs/results with /usr/bin/python3")

    def perturbed_copy(self, tmp, factor, stem=None):
        """The multi-GPU folder (whose figures once redrew with other bytes on another CPU) with
        the floats of its JSON (or of `stem`'s only) times `factor`."""
        source = RESULTS / "nvidia-h200-x2"
        target = pathlib.Path(tmp) / "perturbed"
        target.mkdir()
        for path in source.iterdir():
            if path.suffix == ".json" and (stem is None or path.stem == stem):
                doc = json.loads(path.read_text(encoding="utf-8"))
                (target / path.name).write_text(json.dumps(scaled(doc, factor)),
                                                encoding="utf-8")
            elif path.suffix in (".json", ".txt", ".csv"):
                shutil.copy(path, target / path.name)
        return source, target

    def test_last_bit_differences_draw_the_same_picture(self):
        # What another machine's math library does to a float: its last bits. 1e-12 is a few
        # thousand ulps, far more than a library's error, far less than any measured digit.
        with tempfile.TemporaryDirectory() as tmp:
            source, perturbed = self.perturbed_copy(tmp, 1 + 1e-12)
            out = pathlib.Path(tmp) / "out"
            draw(self, perturbed, out)
            self.assertEqual(differing(source, out, figures(source)), {})

    def test_one_changed_data_point_is_another_picture(self):
        # One row's median a third longer: a longer bar, another printed value. The comparison
        # must see it in the SVG and in the PNG, or it would pass anything.
        stem = "multi_gpu_ranks_batched"
        with tempfile.TemporaryDirectory() as tmp:
            source = RESULTS / "nvidia-h200-x2"
            doc = json.loads((source / f"{stem}.json").read_text(encoding="utf-8"))
            row = next(r for r in doc["rows"] if r["id"] == "nccl" and r["group"] == "4.00 MiB")
            for key in ("median_ms", "min_ms", "max_ms", "mean_ms"):
                row[key] *= 4 / 3
            row["gbs"] *= 3 / 4
            row["extra"] = {key: value * 3 / 4 for key, value in row["extra"].items()}
            _, changed = self.perturbed_copy(tmp, 1.0, stem="none")
            (changed / f"{stem}.json").write_text(json.dumps(doc), encoding="utf-8")
            out = pathlib.Path(tmp) / "out"
            draw(self, changed, out)
            names = [n for n in figures(source) if n.startswith(stem + "_")]
            self.assertEqual(len(names), 4, names)
            found = differing(source, out, names)
            self.assertEqual(sorted(found), sorted(names), found)

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
                self.assertEqual(differing(folders[0], tmp, names), {})

    def test_committed_comparison_redraws_the_same_pictures(self):
        committed = RESULTS / "compare"
        with tempfile.TemporaryDirectory() as tmp:
            run = subprocess.run([sys.executable, str(SCRIPT), "compare",
                                  *map(str, compare_folders()), "--out", tmp],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            names = [p.name for p in committed.iterdir()]
            self.assertEqual(differing(committed, tmp, names), {},
                             "make compare GPUS=... OUT=docs/results/compare")


if __name__ == "__main__":
    unittest.main()
