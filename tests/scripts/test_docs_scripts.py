"""Unit tests of docs/source_pages.py and docs/check_links.py (run by ctest as
docs.scripts_unit_tests; the real site is checked by docs.site_links_resolve, the glossary links of
the real pages by test_glossary.py)."""
import importlib.util
import pathlib
import tempfile
import unittest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def load(name):
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


source_pages = load("source_pages")
check_links = load("check_links")


class SourcePagesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.tmp.name)
        (root / "chapters/03_x/stages").mkdir(parents=True)
        (root / "chapters/03_x/stages/stage1.cu").write_text("__global__ void k() {}\n")
        (root / "chapters/03_x/main.cpp").write_text("int main() { return 0; }\n")
        (root / "chapters/03_x/other.md").write_text("# Other\n")
        self.readme = root / "chapters/03_x/README.md"
        self.readme.write_text(
            "# Chapter\n\n[stage 1](stages/stage1.cu), [`main.cpp`](main.cpp#L1), [all](stages/),\n"
            "[other](other.md), [web](https://example.com/a.cu), ![plot](plot.png)\n\n"
            "```text\n[not a link](main.cpp)\n```\n")
        self.saved_root = source_pages.ROOT
        source_pages.ROOT = root

    def tearDown(self):
        source_pages.ROOT = self.saved_root
        self.tmp.cleanup()

    def test_filter_points_source_links_to_their_pages_and_leaves_the_rest(self):
        text = source_pages.filter_document(self.readme)
        self.assertIn("[stage 1](src_chapters_03_x_stages_stage1_cu.html)", text)
        self.assertIn("[`main.cpp`](src_chapters_03_x_main_cpp.html)", text)
        self.assertIn("[all](src_chapters_03_x_stages.html)", text)
        self.assertIn("[other](other.md)", text)
        self.assertIn("[web](https://example.com/a.cu)", text)
        self.assertIn("![plot](plot.png)", text)
        self.assertIn("[not a link](main.cpp)", text)  # code blocks are never rewritten
        self.assertEqual(len(text.splitlines()), len(self.readme.read_text().splitlines()))

    def test_pages_show_every_linked_file_and_folder(self):
        out = pathlib.Path(self.tmp.name) / "out"
        files, folders = source_pages.write_pages(out, [self.readme])
        self.assertEqual((files, folders), (2, 1))
        page = (out / "pages/src_chapters_03_x_stages_stage1_cu.md").read_text()
        self.assertIn("{#src_chapters_03_x_stages_stage1_cu}", page)
        self.assertIn("\\include{lineno} chapters__03_x__stages__stage1.cu", page)
        self.assertTrue((out / "files/chapters__03_x__stages__stage1.cu").is_file())
        self.assertIn("src_chapters_03_x_stages_stage1_cu.html",
                      (out / "pages/src_chapters_03_x_stages.md").read_text())
        self.assertIn("\\subpage src_chapters_03_x_main_cpp", (out / "pages/src_index.md").read_text())


    def test_glossary_headings_get_ids_and_links_to_terms_land_on_them(self):
        root = source_pages.ROOT
        (root / "docs").mkdir()
        glossary = root / "docs/glossary.md"
        glossary.write_text("# Glossary\n\n## algbw and busbw\n\nSee [Little](#littles-law).\n\n"
                            "## Little's law\n\nText.\n\n```text\n## not a term\n```\n")
        self.readme.write_text("[law](../../docs/glossary.md#littles-law), "
                               "[bw](../../docs/glossary.md#algbw-and-busbw), "
                               "[page](../../docs/glossary.md), [src](main.cpp#L1), a **[Little's\n"
                               "law](../../docs/glossary.md#littles-law)** that wraps\n")
        self.assertEqual(source_pages.glossary_slugs(), ["algbw-and-busbw", "littles-law"])
        text = source_pages.filter_document(glossary)
        self.assertIn("## algbw and busbw {#glossary-algbw-and-busbw}\n", text)
        self.assertIn("## Little's law {#glossary-littles-law}\n", text)
        self.assertIn("[Little](md_docs_glossary.html#glossary-littles-law)", text)
        self.assertIn("## not a term\n", text)  # code blocks are never rewritten
        text = source_pages.filter_document(self.readme)
        self.assertIn("[law](md_docs_glossary.html#glossary-littles-law)", text)
        self.assertIn("[bw](md_docs_glossary.html#glossary-algbw-and-busbw)", text)
        self.assertIn("[page](../../docs/glossary.md)", text)  # the whole page: left to Doxygen
        self.assertIn("[src](src_chapters_03_x_main_cpp.html)", text)
        self.assertIn("**[Little's\nlaw](md_docs_glossary.html#glossary-littles-law)**", text)


class CheckLinksTest(unittest.TestCase):
    def test_reports_missing_files_and_anchors_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            site = pathlib.Path(tmp)
            (site / "img.png").write_bytes(b"")
            (site / "notes.txt").write_text("")
            (site / "index.html").write_text(
                '<a id="top"></a><a href="page.html#x">ok</a><a href="missing.cu">bad</a>'
                '<img src="img.png"><a href="#top">anchor</a><a href="#gone">no anchor</a>'
                '<a href="page.html#glossary-occupancy">no term</a><a href="notes.txt#L2">txt</a>'
                '<a href="https://example.com/x#y">web</a><a href="#">top</a>'
                '<a href="mailto:a@b.c">mail</a><script src="gone.js"></script>')
            (site / "page.html").write_text('<h2><a name="x"></a>X</h2><a href="index.html">back</a>')
            broken = check_links.broken_links(site)
            self.assertEqual([(str(p), link) for p, link in broken],
                             [("index.html", "missing.cu"), ("index.html", "#gone"),
                              ("index.html", "page.html#glossary-occupancy"),
                              ("index.html", "gone.js")])


if __name__ == "__main__":
    unittest.main()
