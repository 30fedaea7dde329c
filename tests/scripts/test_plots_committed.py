"""Every committed figure, checked and drawn again (run by ctest as docs.plots_committed): each
results folder's tables drawn as a class will see them, every figure passing test_plots.py's
checks (size, text sizes, nothing outside the canvas or over another text, the stars, the
baseline's style), and, with the pinned matplotlib (test_plots_reproducible.py), written as the
plotter writes it and compared with the committed file: the same picture (scripts/plotting/
sameness.py: the same texts, every mark within a hundredth of a point, PNGs within an RMS
tolerance). So the committed figures are what the committed JSON draws, and each is drawn once
for both promises. A test of its own, the longest of the figures' tests, so that ctest can run
it beside the others."""
import pathlib
import tempfile
import unittest

from plot_test_support import ELSEWHERE, HERE, gpu_folders, pr, rerun_under_system_python
from test_plots import check_figures

from plotting import sameness, style  # noqa: E402  (plot_results put scripts/ on the path)


@unittest.skipUnless(ELSEWHERE, "matplotlib is importable here (or nowhere)")
class UnderSystemPythonTest(unittest.TestCase):
    def test_committed_figures_under_system_python(self):
        rerun_under_system_python(self, "test_plots_committed.py")


@unittest.skipUnless(HERE, "matplotlib is not importable by this Python")
class CommittedFiguresTest(unittest.TestCase):
    def test_every_committed_table(self):
        plt = pr.import_pyplot()
        pinned = style.pinned()
        count = 0
        with tempfile.TemporaryDirectory() as tmp:
            for folder in gpu_folders():
                out = pathlib.Path(tmp) / folder.name
                out.mkdir()
                results = pr.load_results(folder)
                count += check_figures(self, plt, [(f"{folder.name}/{stem}", [doc])
                                                   for stem, doc in results.items()],
                                       save_to=out if pinned else None)
                if pinned:
                    names = [p.name for p in folder.iterdir() if p.suffix in (".png", ".svg")]
                    with self.subTest(redrawn=folder.name):
                        self.assertEqual(sameness.differing(folder, out, names), {},
                                         "make plots OUT=docs/results with /usr/bin/python3")
        self.assertGreater(count, 0)


if __name__ == "__main__":
    unittest.main()
