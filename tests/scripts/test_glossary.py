"""Links to the glossary land on their term (run by ctest as docs.scripts_unit_tests).

A lesson links a term as `[occupancy](../../docs/glossary.md#occupancy)`: the fragment is the slug
a code host makes of the heading `## Occupancy`, and docs/source_pages.py turns it into the id it
gives that heading in the Doxygen site. These tests check that every such fragment, in every page
a reader opens, names a heading of the glossary; that the chapter lessons' links to the glossary
carry a fragment (a link without one opens the top of a long page); and that the glossary stays in
alphabetical order, each term once.
"""
import importlib.util
import os
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "docs/glossary.md"
# The share of the chapter lessons' glossary links that must name their term.
MIN_ANCHORED_SHARE = 0.9

spec = importlib.util.spec_from_file_location("source_pages", ROOT / "docs/source_pages.py")
source_pages = importlib.util.module_from_spec(spec)
spec.loader.exec_module(source_pages)


def pages():
    """Every Markdown page a reader opens that may link the glossary."""
    found = [ROOT / "README.md"]
    found += sorted((ROOT / "chapters").glob("[0-9][0-9]_*/README.md"))
    found += sorted((ROOT / "chapters").glob("[0-9][0-9]_*/deep_dive.md"))
    found += sorted((ROOT / "docs").glob("*.md"))
    found += sorted((ROOT / "exercises").rglob("README.md"))
    return found


def glossary_links(page):
    """[(line number, link)] for every link of `page` to the glossary (its own in-page links
    included), outside code blocks."""
    links = []
    text = page.read_text(encoding="utf-8")
    for number, (line, fenced) in enumerate(source_pages.outside_fences(text), start=1):
        if fenced:
            continue
        for match in source_pages.LINK.finditer(line):
            link = match.group(3)
            if match.group(1) or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", link):
                continue  # an image, a web address
            path = link.split("#", 1)[0]
            target = page if not path else pathlib.Path(os.path.normpath(page.parent / path))
            if target == GLOSSARY and (path or page == GLOSSARY):
                links.append((number, link))
    return links


class SlugTest(unittest.TestCase):
    def test_slugs_as_a_code_host_makes_them(self):
        cases = {"algbw and busbw": "algbw-and-busbw", "Little's law": "littles-law",
                 "Occupancy": "occupancy", "compute-sanitizer": "compute-sanitizer",
                 "L1 and L2 cache": "l1-and-l2-cache", "Warm-up and median": "warm-up-and-median",
                 "CUDA context": "cuda-context", "SIMT": "simt"}
        for title, slug in cases.items():
            with self.subTest(title=title):
                self.assertEqual(source_pages.heading_slug(title), slug)


class GlossaryTest(unittest.TestCase):
    def setUp(self):
        self.titles = [line[3:].strip() for line, fenced in
                       source_pages.outside_fences(GLOSSARY.read_text(encoding="utf-8"))
                       if not fenced and line.startswith("## ")]
        self.slugs = source_pages.glossary_slugs()

    def test_terms_are_unique_and_in_alphabetical_order(self):
        self.assertEqual(len(set(self.slugs)), len(self.slugs), "a term appears twice")
        key = [re.sub(r"[^a-z0-9 ]", "", title.lower()) for title in self.titles]
        for before, after, title in zip(key, key[1:], self.titles[1:]):
            with self.subTest(term=title):
                self.assertLessEqual(before, after, f"'{title}' is out of alphabetical order")

    def test_every_fragment_names_a_term(self):
        slugs = set(self.slugs)
        for page in pages():
            name = page.relative_to(ROOT).as_posix()
            for number, link in glossary_links(page):
                fragment = link.split("#", 1)[1] if "#" in link else None
                if fragment is None:
                    continue
                with self.subTest(page=name, line=number):
                    self.assertIn(fragment, slugs,
                                  f"{name}:{number}: {link} names no term of docs/glossary.md "
                                  "(the fragment is the heading's slug: lowercase, spaces to "
                                  "hyphens, other punctuation dropped)")

    def test_chapter_lessons_link_their_terms(self):
        links = []
        for page in sorted((ROOT / "chapters").glob("[0-9][0-9]_*/README.md")):
            links += [(page.relative_to(ROOT).as_posix(), number, link)
                      for number, link in glossary_links(page)]
        self.assertTrue(links, "no chapter lesson links the glossary")
        bare = [f"{name}:{number}" for name, number, link in links if "#" not in link]
        share = 1 - len(bare) / len(links)
        self.assertGreaterEqual(
            share, MIN_ANCHORED_SHARE,
            f"{len(bare)} of {len(links)} glossary links of the chapter lessons name no term "
            f"({share:.0%} do; at least {MIN_ANCHORED_SHARE:.0%} should): {', '.join(bare)}")


if __name__ == "__main__":
    unittest.main()
