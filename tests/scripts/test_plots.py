"""Tests of the figures of scripts/plot_results.py (run by ctest as docs.plots_figures; its
siblings test_plots_*.py as docs.plots_classpage and docs.plots_reproducible): every figure of
the committed results drawn as a class will see it.

Each figure must be 1600 pixels wide and 900 tall (taller only where a long table of several GPUs
needs it); every text at least 14 pixels tall when the figure
is shown 1600 pixels wide, inside the canvas, and over no other text (tick labels included); at
most five series (colours) in a panel; no panel that draws bars may have a log axis, and every log
axis labels at least three ticks; every bar and dot says its value, "× baseline" written one way
("0.023× CUB"); wrong-on-purpose rows are hatched (bars) or crossed (dots) and say so; the
baseline is drawn in its own style; a star only on the fastest correct stage (never the baseline,
a warm-up or a wrong row) and never in the baseline's colour; every figure of a folder has its own
title; at most a quarter of a line plot's labelled points go without their label. The committed
figures must be the ones the plotter makes from the committed JSON (names here; the bytes in
test_plots_reproducible.py).

matplotlib comes from Debian's python3-matplotlib (/usr/bin/python3): when the Python running
the tests has no matplotlib, the tests run again under /usr/bin/python3, and are skipped only
where neither has it.
"""
import json
import pathlib
import re
import tempfile
import unittest

from plot_test_support import (ELSEWHERE, HERE, RESULTS, compare_folders, gpu_folders, pr,
                               rerun_under_system_python)

from plotting import results as results_module  # noqa: E402  (plot_results put scripts/ on the path)
from plotting import style  # noqa: E402


@unittest.skipUnless(ELSEWHERE, "matplotlib is importable here (or nowhere)")
class UnderSystemPythonTest(unittest.TestCase):
    def test_plots_under_system_python(self):
        rerun_under_system_python(self, "test_plots.py")


def data_colours(ax):
    """The colours that draw data in a panel (lines of two points or more, bars, dots), less
    the reference grey, the wrong-on-purpose grey, the failure red and white."""
    from matplotlib.colors import to_hex
    from matplotlib.patches import Rectangle
    skip = {style.REFERENCE_COLOUR, style.WRONG_COLOUR, style.FAIL_COLOUR, "#ffffff",
            "#d9d9d9", "#000000", "#b0b0b0"}
    colours = set()
    for line in ax.get_lines():
        if line.get_marker() == "*" or line.get_linestyle() in (":",):
            continue
        xs = line.get_xdata()
        if len(xs) >= 2 and len(set(map(float, xs))) == 1:
            continue  # a vertical reference line (axvline)
        colours.add(to_hex(line.get_color()))
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_visible():
            colours.add(to_hex(patch.get_facecolor()[:3]))
    return colours - skip


def check_figure(case, figure, name):
    """The rules every figure keeps (see the module docstring)."""
    from matplotlib.patches import Rectangle
    from matplotlib.text import Text
    fig = figure.fig
    width, height = fig.get_size_inches() * style.DPI
    case.assertEqual(round(width), 1600, name)
    case.assertGreaterEqual(round(height), 900, name)  # taller only where rows need it
    case.assertEqual(style.texts_outside(fig), [], f"{name}: text outside the canvas")
    case.assertEqual(style.overlapping_texts(fig), [], f"{name}: texts over each other")
    for text in fig.findobj(Text):
        if text.get_visible() and text.get_text().strip():
            shown = text.get_fontsize() * style.DPI / 72 * style.SHOWN_WIDTH / width
            case.assertGreaterEqual(shown, style.MIN_TEXT_PX - 1e-6,
                                    f"{name}: {text.get_text()[:40]!r} under 14 px at 1600 px")
            case.assertNotRegex(text.get_text(), r"slower than|\d×\S", f"{name}: × wording")
    for ax in fig.axes:
        case.assertLessEqual(len(data_colours(ax)), style.MAX_SERIES,
                             f"{name}: more than five series in a panel: {data_colours(ax)}")
        bars = [patch for patch in ax.patches if isinstance(patch, Rectangle)]
        if bars:
            case.assertEqual(ax.get_xscale(), "linear", f"{name}: bars on a log axis")
            case.assertEqual(ax.get_yscale(), "linear", f"{name}: bars on a log axis")
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "log" and any(label.get_visible() for label in
                                                 axis.get_ticklabels()):
                shown = [t for t in axis._update_ticks() if t.label1.get_visible()
                         and t.label1.get_text().strip()]
                case.assertGreaterEqual(len(shown), 3, f"{name}: a log axis with too few ticks")
    labels = [text.get_text() for text in fig.findobj(Text)]
    for role, artist, label, kind in figure.marks:
        if kind in ("bars", "dots"):
            case.assertIsNotNone(label, f"{name}: a {kind[:-1]} without its value")
            case.assertTrue(label.get_visible() and label.get_text().strip(), name)
        if artist is None:
            continue
        if role == "expected failure":
            if kind == "bars":
                case.assertEqual(artist.get_hatch(), style.WRONG_HATCH, name)
            elif kind == "dots":
                case.assertEqual(artist.get_marker(), "X", name)
            case.assertTrue(any(style.WRONG_WORDS in text for text in labels), name)
        if role == "baseline":
            if kind == "bars":
                distinct = (artist.get_facecolor() != Rectangle((0, 0), 1, 1,
                            color=style.STAGE_COLOUR).get_facecolor()
                            and artist.get_alpha() in (None, 1)) or artist.get_linestyle() \
                    in ("--", "dashed")
                case.assertTrue(distinct, f"{name}: baseline bar drawn like a stage")
            elif kind == "dots":
                case.assertEqual(artist.get_marker(), "D", name)
            elif kind == "line":
                case.assertIn(artist.get_linestyle(), ("--", ":"), name)
    for key, star in figure.stars:
        if hasattr(star, "get_marker"):
            from matplotlib.colors import to_hex
            case.assertNotEqual(to_hex(star.get_color()), style.BASELINE_COLOUR,
                                f"{name}: a star in the baseline's colour")
    points = sum(len(getattr(ax, "_ct_points", None) or []) for ax in figure.axes)
    if points:
        case.assertLessEqual(getattr(figure, "missed_labels", 0), points / 4,
                             f"{name}: too many points without their value")


def check_stars(case, figure, docs, name):
    """Every star is on a row that is the fastest correct stage of its table (or of its group in
    a sweep): not the baseline, not a warm-up, not wrong, and no ranked row faster."""
    for key, _ in figure.stars:
        for doc in docs:
            row = next((r for r in doc["rows"] if results_module.row_key(r) == key), None)
            if row is None or key not in results_module.fastest_ids(doc)[0]:
                continue
            case.assertNotEqual(results_module.role(row, doc), "baseline", name)
            case.assertFalse(results_module.is_warmup(row), f"{name}: a star on a warm-up row")
            case.assertTrue(row.get("passed", True), name)
            same = [r for r in results_module.ranked_rows(doc)
                    if results_module.row_group(r) == results_module.row_group(row)]
            case.assertEqual(min(r["median_ms"] for r in same), row["median_ms"], name)
        case.assertTrue(any(key in results_module.fastest_ids(doc)[0] for doc in docs),
                        f"{name}: a star on {key}, which is no table's fastest")


@unittest.skipUnless(HERE, "matplotlib is not importable by this Python")
class FiguresTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plt = pr.import_pyplot()

    def check_all(self, docs_by_name, compare=False):
        count, titles = 0, {}
        for name, docs in docs_by_name:
            labels = pr.gpu_labels(docs) if compare else [pr.gpu_label(docs[0])]
            for suffix, figure in pr.figures_for(docs, labels, self.plt, compare=compare):
                with self.subTest(figure=name + suffix):
                    check_figure(self, figure, name + suffix)
                    check_stars(self, figure, docs, name + suffix)
                    self.assertNotIn(figure.title, titles,
                                     f"{name + suffix} has the title of {titles.get(figure.title)}")
                titles[figure.title] = name + suffix
                self.plt.close(figure.fig)
                count += 1
        return count

    def test_every_committed_table(self):
        count = 0
        for folder in gpu_folders():
            results = pr.load_results(folder)
            count += self.check_all([(f"{folder.name}/{stem}", [doc])
                                     for stem, doc in results.items()])
        self.assertGreater(count, 0)

    def test_every_committed_comparison(self):
        loaded = [pr.load_results(folder) for folder in compare_folders()]
        shared = [stem for stem in loaded[0] if stem in loaded[1]]
        self.assertGreater(self.check_all([(f"compare_{stem}", [r[stem] for r in loaded])
                                           for stem in shared], compare=True), 0)

    def test_stars_where_the_reviewer_found_them_wrong(self):
        """Chapter 4: the flat kernel, not the nested per_level; chapter 2: never the warm-up;
        chapter 3's staircase: the star in the GPU's colour, not CUB's orange."""
        folder = compare_folders()[0]
        results = pr.load_results(folder)
        star, _ = results_module.fastest_ids(results["nested_reduction"])
        self.assertEqual(star, {("ch3-10", "flat vectorized_loads")})
        star, _ = results_module.fastest_ids(results["divergence"])
        self.assertNotIn("0", {key[0] for key in star})
        # Chapter 8: the copy is the ceiling, faster than every scan; the star goes to a stage.
        star, _ = results_module.fastest_ids(results["scan"])
        self.assertEqual({key[0] for key in star}, {"7"})
        figure = dict(pr.figures_for([results["reduction_2e28"]], ["H100"],
                                     self.plt))["_staircase"]
        self.assertEqual(len(figure.stars), 1)
        from matplotlib.colors import to_hex
        self.assertEqual(to_hex(figure.stars[0][1].get_color()), style.STAGE_COLOUR)
        self.plt.close(figure.fig)

    def test_one_wording_for_x_baseline(self):
        self.assertEqual(pr.ratio_words(0.023, "CUB"), "0.023× CUB")
        self.assertEqual(pr.ratio_words(1.0862, "CUB"), "1.09× CUB")
        self.assertEqual(pr.ratio_words(0.0000296, "CUB"), "0.000030× CUB")
        self.assertEqual(pr.ratio_words(482.2, "CUB"), "482× CUB")

    def test_committed_figures_are_the_plotters(self):
        """Each committed folder holds exactly the figures the plotter makes from its JSON."""
        for folder in gpu_folders():
            expected = set()
            for stem, doc in pr.load_results(folder).items():
                for suffix, _ in pr.figure_plan([doc]):
                    expected |= {f"{stem}{suffix}.png", f"{stem}{suffix}.svg"}
            present = {path.name for path in folder.iterdir() if path.suffix in (".png", ".svg")}
            with self.subTest(folder=folder.name):
                self.assertEqual(sorted(expected - present), [],
                                 "missing: make plots OUT=docs/results")
                self.assertEqual(sorted(present - expected), [], "figures no JSON makes")

    def test_committed_comparison_is_the_plotters(self):
        """docs/results/compare/ holds the figures `compare` makes from the two folders the
        README names, comparison.md and the class page."""
        committed = RESULTS / "compare"
        loaded = [pr.load_results(folder) for folder in compare_folders()]
        expected = {"class.html", "comparison.md"}
        for stem in [stem for stem in loaded[0] if stem in loaded[1]]:
            for suffix, _ in pr.figure_plan([r[stem] for r in loaded], compare=True):
                expected |= {f"compare_{stem}{suffix}.png", f"compare_{stem}{suffix}.svg"}
        present = {path.name for path in committed.iterdir()}
        self.assertEqual(sorted(expected ^ present), [],
                         "make compare GPUS=... OUT=docs/results/compare")

    def test_bars_in_ratio_of_the_times(self):
        """compare_reduction_2e28: the bars' lengths are in the ratio of the medians."""
        docs = [pr.load_results(folder).get("reduction_2e28") for folder in compare_folders()]
        figure = pr.stage_figure(self.plt, docs, pr.gpu_labels(docs))
        ax = figure.axes[0]
        self.assertEqual(ax.get_xscale(), "linear")
        widths = [patch.get_width() for patch in ax.patches]
        medians = [row["median_ms"] for doc in docs for row in doc["rows"]
                   if row.get("median_ms") is not None]
        self.assertEqual(len(widths), len(medians))
        for width, median in zip(sorted(widths), sorted(medians)):
            self.assertAlmostEqual(width, median, delta=median * 1e-6)
        self.plt.close(figure.fig)

    def new_program(self, folder):
        """A program the plotter has never seen (chapter 0's shape), written to `folder`."""
        rows = []
        for row_id, name, ms, role in [
                ("1", "one_thread", 40.0, None), ("2", "one_block", 1.5, None),
                ("3", "grid_stride", 0.21, None), ("race", "no_bounds_guard", 0.2, "xfail"),
                ("copy", "cudaMemcpy", 0.18, "baseline")]:
            rows.append({
                "id": row_id, "name": name, "idea": "", "median_ms": ms, "min_ms": ms * 0.99,
                "max_ms": ms * 1.01, "mean_ms": ms, "samples": 20, "bytes": 1 << 28,
                "gbs": (1 << 28) / ms / 1e6, "percent_of_peak": (1 << 28) / ms / 1e6 / 33.52,
                "speedup_vs_baseline": 0.18 / ms, "in_progression": role is None,
                "passed": role != "xfail", "expected_failure": role == "xfail",
                "role": {"xfail": "expected failure", "baseline": "baseline"}.get(role,
                                                                                  "progression"),
                "detail": "", "extra": {}})
        doc = {"program": "first_kernel", "title": "add two vectors, one idea per stage",
               "run": {"gpu": "NVIDIA H100 80GB HBM3", "sm_count": 132, "cuda_runtime": "13.0",
                       "timestamp": "2026-11-26T00:00:00+0000", "peak_gbs": 3352.32,
                       "parameters": {"n": "67108864 (2^26)", "block": "256"}},
               "baseline": "copy", "rows": rows, "notes": []}
        (folder / "first_kernel.json").write_text(json.dumps(doc), encoding="utf-8")
        return doc

    def test_new_program_without_code_changes(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = pathlib.Path(tmp)
            self.new_program(folder)
            doc = pr.load_results(folder)["first_kernel"]
            figures = pr.figures_for([doc], [pr.gpu_label(doc)], self.plt)
            self.assertEqual([suffix for suffix, _ in figures], [""])
            check_figure(self, figures[0][1], "first_kernel")
            self.assertIn("First kernel", figures[0][1].title)
            self.plt.close(figures[0][1].fig)

    def test_same_results_same_bytes(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = pathlib.Path(tmp)
            self.new_program(folder)
            doc = pr.load_results(folder)["first_kernel"]
            (folder / "a").mkdir()
            (folder / "b").mkdir()
            first = pr.plot_one("first_kernel", doc, folder / "a", self.plt)
            second = pr.plot_one("first_kernel", doc, folder / "b", self.plt)
            self.assertEqual([p.name for p in first], ["first_kernel.png", "first_kernel.svg"])
            for a, b in zip(first, second):
                self.assertEqual(a.read_bytes(), b.read_bytes(), a.name)
            svg = first[1].read_text(encoding="utf-8")
            self.assertNotIn("<dc:date>", svg)
            self.assertIsNone(re.search(r"/(tmp|home|work|usr)/", svg), "a path in the SVG")


if __name__ == "__main__":
    unittest.main()
