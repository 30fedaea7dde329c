"""Tests of `compare` and `pack` (scripts/plot_results.py): a class of several GPUs, the page a
teacher opens first, and the archive a student hands in.

`compare` runs on four runs of three GPU kinds: the two committed GPUs, and twice a synthetic GPU
made from one of them (times halved, one run noisy, another commit), one of the two handed in as
a `make pack` archive. The page must be one file: copied alone into an empty folder it still
holds every figure (inline <svg>) and names no file, beside it or on the network. The summary
comes before any figure, with one column per GPU kind, the median and range of a kind's runs,
verdicts (faster, slower, same, ambiguous), and a warning that the runs were not of one commit.
"""
import html.parser
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

from plot_test_support import (ELSEWHERE, HERE, RESULTS, SCRIPT, compare_folders,
                               rerun_under_system_python, synthetic_gpu)

from plotting import compare as compare_module  # noqa: E402
from plotting import runs as runs_module  # noqa: E402

STEMS = ["reduction_2e28", "nested_reduction", "divergence", "streams", "streams_pipeline"]


@unittest.skipUnless(ELSEWHERE, "matplotlib is importable here (or nowhere)")
class UnderSystemPythonTest(unittest.TestCase):
    def test_classpage_under_system_python(self):
        rerun_under_system_python(self, "test_plots_classpage.py")


class PageChecker(html.parser.HTMLParser):
    """Checks that tags nest and close, and collects every attribute that names a resource."""
    VOID = {"meta", "img", "br", "hr", "link", "input", "source", "col", "area", "base", "wbr"}
    SVG_LEAVES = {"path", "use", "rect", "circle", "line", "polyline", "polygon", "stop", "image"}
    NAMES = {"src", "href", "xlink:href", "data", "srcset", "poster", "action", "background"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.links, self.svgs, self.tags = [], [], [], 0, []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.svgs += tag == "svg"
        for name, value in attrs:
            if name in self.NAMES and value:
                self.links.append(value)
            if name not in ("xmlns", "xmlns:xlink") and value and "://" in value:
                self.links.append(value)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()


def check_one_file(case, page, figures):
    """`page` copied alone into an empty folder: every figure inline, nothing named outside."""
    with tempfile.TemporaryDirectory() as empty:
        alone = pathlib.Path(empty) / "class.html"
        shutil.copy(page, alone)
        text = alone.read_text(encoding="utf-8")
        checker = PageChecker()
        checker.feed(text)
        checker.close()
        case.assertEqual(checker.errors, [])
        case.assertEqual(checker.stack, [], "unclosed tags")
        case.assertEqual(checker.svgs, figures, "every figure inline as <svg>")
        case.assertNotIn("img", checker.tags)
        for link in checker.links:
            case.assertTrue(link.startswith("#"), f"the page names {link[:80]}")
        case.assertEqual(list(pathlib.Path(empty).iterdir()), [alone])


def pack_archive(folder, into, name):
    return runs_module.pack(folder, name, into)


@unittest.skipUnless(HERE, "matplotlib is not importable by this Python")
class ClassOfManyGpusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        root = pathlib.Path(cls.tmp.name)
        h100, h200 = compare_folders()
        inputs = []
        for folder in (h100, h200):
            copy = root / folder.name
            copy.mkdir()
            for stem in STEMS:
                for suffix in (".json", ".txt"):
                    if (folder / f"{stem}{suffix}").exists():
                        shutil.copy(folder / f"{stem}{suffix}", copy)
            for name in ("summary.json", "summary.md"):
                if (folder / name).exists():
                    shutil.copy(folder / name, copy)
            inputs.append(str(copy))
        quiet = synthetic_gpu(h100, root / "imaginary-a", stems=STEMS, scale=0.5)
        noisy = synthetic_gpu(h100, root / "imaginary-b", stems=STEMS, scale=0.52, noise=0.3,
                              timestamp="2026-12-02T10:00:00+0000")
        cls.archive = pack_archive(noisy, root / "handed-in", "Ada Lovelace")
        inputs += [str(quiet), str(cls.archive)]
        cls.out = root / "compare"
        cls.compared = subprocess.run([sys.executable, str(SCRIPT), "compare", *inputs,
                                  "--out", str(cls.out)], capture_output=True, text=True)
        cls.page = cls.out / "class.html"

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_archive_is_named_for_the_student(self):
        self.assertRegex(self.archive.name, r"^imaginary-b_ada-lovelace_2026-12-02\.tar\.gz$")
        with tarfile.open(self.archive) as tar:
            names = tar.getnames()
        self.assertIn("imaginary-b_ada-lovelace_2026-12-02/pack.json", names)
        self.assertTrue(all(n.startswith("imaginary-b_ada-lovelace_2026-12-02/") for n in names))
        self.assertFalse([n for n in names if n.endswith((".png", ".svg"))])

    def test_compare_writes_one_self_contained_page(self):
        self.assertEqual(self.compared.returncode, 0, self.compared.stderr)
        figures = len(list(self.out.glob("compare_*.svg")))
        self.assertGreater(figures, 5)
        check_one_file(self, self.page, figures)

    def test_summary_first_one_column_per_kind(self):
        text = self.page.read_text(encoding="utf-8")
        summary = text.index('<table class="summary">')
        self.assertLess(summary, text.index("<svg"))
        head = text[summary:text.index("</table>", summary)]
        headers = re.findall(r"<th[^>]*>(.*?)</th>", head.split("</tr>")[0])
        self.assertEqual(headers, ["case", "H100", "H200", "Imaginary X9 (2 runs)",
                                   "H200 against H100", "Imaginary X9 (2 runs) against H100"])
        self.assertIn("runs: ", head, "a kind of several runs shows their range")
        self.assertRegex(head, r'class="faster">\d\.\d\d× faster')
        self.assertIn('class="warning"', text[:summary], "the commits differ: said at the top")
        for stem in STEMS:
            self.assertIn(f'href="#{stem}"', head)

    def test_run_details_folded_after_the_summary(self):
        text = self.page.read_text(encoding="utf-8")
        summary = text.index('<table class="summary">')
        self.assertNotIn('<table class="runs">', text[:summary], "the answer comes first")
        self.assertLess(text[:summary].count("<p"), 3, "one line, then the summary table")
        folded = text.index("<details>", summary)
        top = text[folded:text.index("</details>", folded)]
        # The H200's date and commit as its committed summary.json gives them (they change with
        # every new bench of that GPU).
        h200 = json.loads((RESULTS / "nvidia-h200" / "summary.json").read_text())
        for words in (h200["date"][:10], h200["git_commit"].split()[0], "0000000",
                      "memory 3201 MHz", "stages 10-12 run", "Ada Lovelace"):
            self.assertIn(words, top)

    def test_noise_decides_the_verdict(self):
        row = {"median_ms": 1.0, "min_ms": 0.99, "max_ms": 1.01}
        self.assertEqual(compare_module.verdict(row, dict(row))[0], "same")
        half = {"median_ms": 0.5, "min_ms": 0.49, "max_ms": 0.51}
        self.assertEqual(compare_module.verdict(row, half), ("faster", 2.0))
        self.assertEqual(compare_module.verdict(half, row)[0], "slower")
        noisy = {"median_ms": 0.8, "min_ms": 0.5, "max_ms": 1.2}
        self.assertEqual(compare_module.verdict(row, noisy)[0], "ambiguous")
        self.assertEqual(compare_module.verdict_words(("slower", 0.5)), "2.00× slower")

    def test_several_runs_give_median_and_range(self):
        docs = [json.loads((pathlib.Path(folder) / "reduction_2e28.json").read_text())
                for folder in compare_folders()]
        docs.append(dict(docs[0], rows=[dict(r, median_ms=r["median_ms"] * 3)
                                        for r in docs[0]["rows"]]))
        merged = runs_module.merged_doc(docs, "three")
        row = merged["rows"][0]
        self.assertEqual(row["_run_medians"], sorted(r["rows"][0]["median_ms"] for r in docs))
        self.assertEqual(row["median_ms"], row["_run_medians"][1])

    def test_shared_rows_of_two_runs_are_explained(self):
        """streams_pipeline repeats rows of streams from another run: the page says so, and
        which row differs most."""
        text = self.page.read_text(encoding="utf-8")
        section = text[text.index('<section id="streams_pipeline">'):]
        self.assertRegex(section[:section.index("<figure>")],
                         r"also in streams, another run.*differ most in 7\.1 H2D_pageable")


class InputsTest(unittest.TestCase):
    """The command line: no matplotlib needed to be told what is wrong."""

    def test_no_such_folder_is_one_line_and_exit_2(self):
        missing = RESULTS / "no-such-gpu"
        run = subprocess.run([sys.executable, str(SCRIPT), "compare", str(missing),
                              str(compare_folders()[0]), "--out", "/nonexistent/out"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stderr, f"no such folder: {missing}\n")
        self.assertEqual(run.stdout, "")

    def test_pack_without_a_gpu_says_which_folder(self):
        with tempfile.TemporaryDirectory() as tmp:
            run = subprocess.run([sys.executable, str(SCRIPT), "pack", str(pathlib.Path(tmp) /
                                                                          "nothing")],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 2)
            self.assertEqual(run.stderr.strip(), f"no such folder: {pathlib.Path(tmp) / 'nothing'}")

    def test_archives_open_as_folders(self):
        with tempfile.TemporaryDirectory() as tmp:
            archive = pack_archive(compare_folders()[1], tmp, "bob")
            run = runs_module.open_run(archive, tmp, 0)
            self.assertEqual(run["name"], "bob")
            self.assertEqual(run["label"], "H200")
            self.assertIn("reduction_2e28", run["results"])


@unittest.skipUnless(HERE, "matplotlib is not importable by this Python")
class CommittedPageTest(unittest.TestCase):
    def test_committed_page_is_one_file(self):
        committed = RESULTS / "compare"
        check_one_file(self, committed / "class.html", len(list(committed.glob("compare_*.svg"))))

    def test_page_renders_in_chromium(self):
        browser = shutil.which("chromium") or shutil.which("chromium-browser")
        if not browser:
            self.skipTest("chromium is not installed (Debian: apt-get install chromium)")
        with tempfile.TemporaryDirectory() as tmp:
            shot = pathlib.Path(tmp) / "page.png"
            run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                                  "--hide-scrollbars", "--window-size=1600,900",
                                  f"--screenshot={shot}",
                                  (RESULTS / "compare" / "class.html").as_uri()],
                                 capture_output=True, text=True, timeout=180)
            self.assertEqual(run.returncode, 0, run.stderr[-2000:])
            self.assertTrue(shot.is_file() and shot.stat().st_size > 10000, run.stderr[-2000:])

    def test_summary_table_starts_on_the_first_screen(self):
        """At the sizes a projector shows (1600 x 900, 1280 x 720), the summary table begins
        within the first screen: the page's layout is measured in headless Chromium (its
        --dump-dom after a script that writes the table's top into the document)."""
        browser = shutil.which("chromium") or shutil.which("chromium-browser")
        if not browser:
            self.skipTest("chromium is not installed (Debian: apt-get install chromium)")
        page = (RESULTS / "compare" / "class.html").read_text(encoding="utf-8")
        probe = ("<script>window.addEventListener('load', () => {"
                 "const top = document.querySelector('table.summary').getBoundingClientRect()"
                 ".top; document.title = 'summary-top=' + Math.round(top); });</script>")
        with tempfile.TemporaryDirectory() as tmp:
            probed = pathlib.Path(tmp) / "class.html"
            probed.write_text(page.replace("</body>", probe + "</body>"), encoding="utf-8")
            for width, height in ((1600, 900), (1280, 720)):
                run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                                      f"--window-size={width},{height}",
                                      "--virtual-time-budget=5000", "--dump-dom",
                                      probed.as_uri()],
                                     capture_output=True, text=True, timeout=180)
                found = re.search(r"<title>summary-top=(\d+)</title>", run.stdout)
                self.assertIsNotNone(found, run.stderr[-2000:])
                self.assertLess(int(found.group(1)), height * 0.5,
                                f"at {width} x {height} the summary starts at {found.group(1)} px")


if __name__ == "__main__":
    unittest.main()
