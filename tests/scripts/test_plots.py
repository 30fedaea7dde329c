"""Tests of scripts/plot_results.py (run by ctest as docs.scripts_unit_tests): every figure of
the committed results drawn as a class will see it, and the class page that `make compare`
writes.

Each figure must be 16:9 at 1600 x 900 pixels or more, with no text under 14 pixels and every
text inside the canvas (its tight bounding box within the figure); no panel that draws bars may
have a log axis; every bar and dot says its value; wrong-on-purpose rows are hatched (bars) or
crossed (dots) and say so; the baseline is drawn in its own style; at most a quarter of a line
plot's points go without a label (where labels would overlap). The committed figures must be the
ones the plotter makes from the committed JSON (names; the bytes depend on the matplotlib
version). The class page must be well-formed HTML that names only images beside it and nothing on
the network; where chromium is installed it must render the page.

matplotlib comes from Debian's python3-matplotlib (/usr/bin/python3): when the Python running
the tests has no matplotlib, the tests run again under /usr/bin/python3, and are skipped only
where neither has it.
"""
import html.parser
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
SYSTEM_PYTHON = "/usr/bin/python3"
CHILD = "CT_PLOT_TESTS_CHILD"


def load_plotter():
    spec = importlib.util.spec_from_file_location("plot_results",
                                                  ROOT / "scripts" / "plot_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def has_matplotlib(python=None):
    if python is None:
        return importlib.util.find_spec("matplotlib") is not None
    return subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode == 0


HERE = has_matplotlib()
ELSEWHERE = (not HERE and not os.environ.get(CHILD) and os.path.exists(SYSTEM_PYTHON)
             and os.path.realpath(SYSTEM_PYTHON) != os.path.realpath(sys.executable)
             and has_matplotlib(SYSTEM_PYTHON))
pr = load_plotter()


def gpu_folders():
    """The committed results folders that hold result JSON (not compare/, history/)."""
    return [folder for folder in sorted(RESULTS.iterdir())
            if folder.is_dir() and folder.name not in ("compare", "history")
            and pr.load_results(folder)]


@unittest.skipUnless(ELSEWHERE, "matplotlib is importable here (or nowhere)")
class UnderSystemPythonTest(unittest.TestCase):
    def test_plots_under_system_python(self):
        run = subprocess.run([SYSTEM_PYTHON, "-m", "unittest", "discover", "-s",
                              str(ROOT / "tests" / "scripts"), "-p", "test_plots.py"],
                             capture_output=True, text=True, env={**os.environ, CHILD: "1"})
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)


def check_figure(case, figure, name):
    """The rules every figure keeps (see the module docstring)."""
    from matplotlib.patches import Rectangle
    fig = figure.fig
    width, height = fig.get_size_inches() * pr.DPI
    case.assertGreaterEqual(width, 1600, name)
    case.assertGreaterEqual(height, 900, name)
    case.assertAlmostEqual(width / height, 16 / 9, places=2, msg=name)
    case.assertEqual(pr.texts_outside(fig), [], f"{name}: text outside the canvas")
    from matplotlib.text import Text
    for text in fig.findobj(Text):
        if text.get_visible() and text.get_text().strip():
            case.assertGreaterEqual(text.get_fontsize() * pr.DPI / 72, 14 - 1e-6,
                                    f"{name}: {text.get_text()[:40]!r} under 14 px")
    for ax in fig.axes:
        bars = [patch for patch in ax.patches if isinstance(patch, Rectangle)]
        if bars:
            case.assertEqual(ax.get_xscale(), "linear", f"{name}: bars on a log axis")
            case.assertEqual(ax.get_yscale(), "linear", f"{name}: bars on a log axis")
    labels = [text.get_text() for text in fig.findobj(Text)]
    for role, artist, label, kind in figure.marks:
        if kind in ("bars", "dots"):
            case.assertIsNotNone(label, f"{name}: a {kind[:-1]} without its value")
            case.assertTrue(label.get_visible() and label.get_text().strip(), name)
        if artist is None:
            continue
        if role == "expected failure":
            if kind == "bars":
                case.assertEqual(artist.get_hatch(), pr.WRONG_HATCH, name)
            elif kind == "dots":
                case.assertEqual(artist.get_marker(), "X", name)
            case.assertTrue(any(pr.WRONG_WORDS in text for text in labels), name)
        if role == "baseline":
            if kind == "bars":
                distinct = (artist.get_facecolor() != Rectangle((0, 0), 1, 1,
                            color=pr.STAGE_COLOUR).get_facecolor()
                            and artist.get_alpha() in (None, 1)) or artist.get_linestyle() \
                    in ("--", "dashed")
                case.assertTrue(distinct, f"{name}: baseline bar drawn like a stage")
            elif kind == "dots":
                case.assertEqual(artist.get_marker(), "D", name)
            elif kind == "line":
                case.assertIn(artist.get_linestyle(), ("--", ":"), name)
    points = sum(len(getattr(ax, "_ct_points", None) or []) for ax in figure.axes)
    if points:
        case.assertLessEqual(getattr(figure, "missed_labels", 0), points / 4,
                             f"{name}: too many points without their value")


@unittest.skipUnless(HERE, "matplotlib is not importable by this Python")
class FiguresTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plt = pr.import_pyplot()

    def check_all(self, docs_by_name, compare=False):
        count = 0
        for name, docs in docs_by_name:
            labels = pr.gpu_labels(docs) if compare else [pr.gpu_label(docs[0])]
            for suffix, figure in pr.figures_for(docs, labels, self.plt, compare=compare):
                with self.subTest(figure=name + suffix):
                    check_figure(self, figure, name + suffix)
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
        folders = [folder for folder in gpu_folders() if "-x" not in folder.name]
        if len(folders) < 2:
            self.skipTest("fewer than two single-GPU results folders")
        loaded = [pr.load_results(folder) for folder in folders[:2]]
        shared = [stem for stem in loaded[0] if stem in loaded[1]]
        self.assertGreater(self.check_all([(f"compare_{stem}", [r[stem] for r in loaded])
                                           for stem in shared], compare=True), 0)

    def test_committed_figures_are_the_plotters(self):
        """Each committed folder holds exactly the figures the plotter makes from its JSON."""
        for folder in gpu_folders():
            expected = set()
            for stem, doc in pr.load_results(folder).items():
                for suffix, _ in pr.figure_plan([doc]):
                    expected |= {f"{stem}{suffix}.png", f"{stem}{suffix}.svg"}
            present = {path.name for path in folder.iterdir() if path.suffix in (".png", ".svg")}
            with self.subTest(folder=folder.name):
                self.assertEqual(sorted(expected - present), [], "missing: make plots OUT=docs/results")
                self.assertEqual(sorted(present - expected), [], "figures no JSON makes")

    def test_committed_comparison_is_the_plotters(self):
        """docs/results/compare/ holds the figures `compare` makes from the two single-GPU
        folders, and the class page."""
        committed = RESULTS / "compare"
        folders = [folder for folder in gpu_folders() if "-x" not in folder.name]
        if not committed.is_dir() or len(folders) < 2:
            self.skipTest("no committed comparison")
        loaded = [pr.load_results(folder) for folder in folders[:2]]
        expected = {"class.html"}
        for stem in [stem for stem in loaded[0] if stem in loaded[1]]:
            for suffix, _ in pr.figure_plan([r[stem] for r in loaded], compare=True):
                expected |= {f"compare_{stem}{suffix}.png", f"compare_{stem}{suffix}.svg"}
        present = {path.name for path in committed.iterdir()
                   if path.suffix in (".png", ".svg", ".html")}
        self.assertEqual(sorted(expected ^ present), [],
                         "make compare GPUS=... OUT=docs/results/compare")

    def test_bars_in_ratio_of_the_times(self):
        """compare_reduction_2e28: the bars' lengths are in the ratio of the medians."""
        folders = [folder for folder in gpu_folders() if "-x" not in folder.name]
        docs = [pr.load_results(folder).get("reduction_2e28") for folder in folders[:2]]
        if len(docs) < 2 or not all(docs):
            self.skipTest("no reduction_2e28 on two GPUs")
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
        for index, (row_id, name, ms, role) in enumerate([
                ("1", "one_thread", 40.0, None), ("2", "one_block", 1.5, None),
                ("3", "grid_stride", 0.21, None), ("race", "no_bounds_guard", 0.2, "xfail"),
                ("copy", "cudaMemcpy", 0.18, "baseline")]):
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
            self.assertNotIn(b"<dc:date>", first[1].read_bytes())


class PageChecker(html.parser.HTMLParser):
    """Checks that tags nest and close, and collects what the page links to."""
    VOID = {"meta", "img", "br", "hr", "link", "input", "source", "col", "area", "base", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.sources, self.links = [], [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.sources.append(attrs.get("src", ""))
        for name in ("href", "src"):
            if attrs.get(name):
                self.links.append(attrs[name])
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()


@unittest.skipUnless(HERE, "matplotlib is not importable by this Python")
class ClassPageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        """`compare` over two small folders made of committed results (a few tables each)."""
        cls.tmp = tempfile.TemporaryDirectory()
        root = pathlib.Path(cls.tmp.name)
        folders = [folder for folder in gpu_folders() if "-x" not in folder.name][:2]
        if len(folders) < 2:
            raise unittest.SkipTest("fewer than two single-GPU results folders")
        cls.inputs = []
        for folder in folders:
            copy = root / folder.name
            copy.mkdir()
            for name in ("reduction_2e28.json", "histogram_uniform.json", "summary.json",
                         "streams_pipeline.json", "streams_pipeline.txt"):
                if (folder / name).exists():
                    shutil.copy(folder / name, copy / name)
            cls.inputs.append(str(copy))
        cls.out = root / "compare"
        cls.compare_run = subprocess.run([sys.executable, str(ROOT / "scripts" / "plot_results.py"),
                                  "compare", *cls.inputs, "--out", str(cls.out)],
                                 capture_output=True, text=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_compare_writes_the_page(self):
        self.assertEqual(self.compare_run.returncode, 0, self.compare_run.stderr)
        page = self.out / "class.html"
        self.assertTrue(page.is_file())
        checker = PageChecker()
        checker.feed(page.read_text(encoding="utf-8"))
        checker.close()
        self.assertEqual(checker.errors, [])
        self.assertEqual(checker.stack, [], "unclosed tags")
        self.assertGreater(len(checker.sources), 0)
        for source in checker.sources:
            self.assertTrue((self.out / source).is_file(), f"{source} is not beside the page")
        for link in checker.links:
            self.assertNotRegex(link, r"^(https?:)?//", "the page must need no network")
            if not link.startswith("#"):
                self.assertTrue((self.out / link).is_file(), link)
        self.assertNotIn("http://", page.read_text(encoding="utf-8").replace(
            "http://www.w3.org/2000/svg", ""))

    def test_page_renders_in_chromium(self):
        browser = shutil.which("chromium") or shutil.which("chromium-browser")
        if not browser:
            self.skipTest("chromium is not installed (Debian: apt-get install chromium)")
        shot = self.out / "page.png"
        run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                              "--hide-scrollbars", "--window-size=1600,1200",
                              f"--screenshot={shot}", (self.out / "class.html").as_uri()],
                             capture_output=True, text=True, timeout=180)
        self.assertEqual(run.returncode, 0, run.stderr[-2000:])
        self.assertTrue(shot.is_file() and shot.stat().st_size > 10000, run.stderr[-2000:])


if __name__ == "__main__":
    unittest.main()
