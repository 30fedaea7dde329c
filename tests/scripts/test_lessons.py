"""The READMEs are lessons: the top README and every chapter README carry no commit hash and no
issue number (provenance lives in docs/results/), each chapter's lesson stays under 6,000 words
(the tables that scripts/results_tables.py pastes and the code listings do not count), a chapter's
companion page (chapters/<folder>/deep_dive.md) is linked from its README, and the top README
links the glossary and the teacher's guide (run by ctest as docs.scripts_unit_tests)."""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]

MAX_LESSON_WORDS = 6000

# A block that scripts/results_tables.py regenerates from a result file (not written by hand).
GENERATED_BLOCK = re.compile(
    r"<!-- BEGIN (RESULTS|OUTPUT|COMPARE)\b[^>\n]*-->.*?<!-- END \1 -->", re.DOTALL)
FENCE = re.compile(r"^[ \t]*(```|~~~)")
# A commit hash: a word of 7 to 40 lowercase hex digits with at least one letter and one digit.
# The look-arounds keep it a whole word, so 0x-prefixed masks (0xffff0000), identifiers
# (reduction_2e28) and sizes (2^28) are not hashes.
HEX_WORD = re.compile(r"(?<![0-9A-Za-z_])[0-9a-f]{7,40}(?![0-9A-Za-z_])")
# An issue reference: "issue #12", "issues #12", "issue 12". Not the verb: "an SM issues 3.7x
# fewer instructions", "can issue 4 instructions per cycle", "issues 524,288 of them".
ISSUE = re.compile(
    r"\bissues?\s*#\s*\d+"
    r"|\bissue\s+\d+\b(?![.,]\d)(?!\s*(?:[x×]|instructions?|warps?|loads?|stores?|requests?"
    r"|operations?|ops|FMAs?|per|of|at once)\b)",
    re.IGNORECASE)


def lesson_readmes():
    """The top README and every chapter README, as (path relative to ROOT, text)."""
    paths = [ROOT / "README.md"] + sorted((ROOT / "chapters").glob("[0-9][0-9]_*/README.md"))
    return [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in paths]


def prose(text: str) -> str:
    """The text a reader reads as the lesson: without the generated RESULTS/OUTPUT/COMPARE
    blocks and without fenced code blocks (each left out block becomes one empty line, so that
    the line numbers of what stays are not those of the file)."""
    text = GENERATED_BLOCK.sub("\n", text)
    kept, fenced = [], None
    for line in text.splitlines():
        match = FENCE.match(line)
        if fenced is None and match:
            fenced = match.group(1)
            continue
        if fenced is not None:
            if line.strip().startswith(fenced):
                fenced = None
            continue
        kept.append(line)
    return "\n".join(kept)


def commit_hashes(text: str):
    return [w for w in HEX_WORD.findall(prose(text))
            if re.search(r"[a-f]", w) and re.search(r"[0-9]", w)]


def issue_references(text: str):
    return ISSUE.findall(prose(text))


def lesson_words(text: str) -> int:
    return len(prose(text).split())


class HelpersTest(unittest.TestCase):
    def test_what_counts_as_a_commit_hash(self):
        self.assertEqual(commit_hashes("made at b5aa16c, mask 0xffff00ff, reduction_2e28"),
                         ["b5aa16c"])
        self.assertEqual(commit_hashes("deadbeef 12345678 1e9 2^30 abc1234def5678"),
                         ["abc1234def5678"])
        self.assertEqual(commit_hashes("```\nSASS 45a154d0\n```\n"), [])
        self.assertEqual(commit_hashes("<!-- BEGIN RESULTS x.json -->\nrun at 86ae0e1\n"
                                       "<!-- END RESULTS -->\n"), [])
        self.assertEqual(commit_hashes("`86ae0e1`"), ["86ae0e1"])

    def test_what_counts_as_an_issue_reference(self):
        self.assertEqual(len(issue_references("as issue #12 and Issue 16 said; issues #3")), 3)
        self.assertEqual(issue_references("issues with the barrier; #12 threads; stage 10 issues "
                                          "3.7x fewer; it issues 524,288 of them; can issue 4 "
                                          "instructions per cycle"), [])

    def test_words_outside_generated_blocks_and_code(self):
        text = ("one two\n<!-- BEGIN OUTPUT a.txt -->\nthree four\n<!-- END OUTPUT -->\n"
                "```sh\nfive six\n```\nseven `eight`\n")
        self.assertEqual(lesson_words(text), 4)


class LessonTest(unittest.TestCase):
    def test_no_commit_hash(self):
        for name, text in lesson_readmes():
            with self.subTest(readme=name):
                found = commit_hashes(text)
                if found:
                    self.fail(f"{name}: commit hashes in the lesson ({len(found)}): "
                              f"{', '.join(sorted(set(found)))}; provenance belongs in "
                              "docs/results/ (history/<folder>.md, <gpu>/integration.md)")

    def test_no_issue_number(self):
        for name, text in lesson_readmes():
            with self.subTest(readme=name):
                found = issue_references(text)
                if found:
                    self.fail(f"{name}: issue references: {', '.join(found)}")

    def test_lesson_under_the_word_limit(self):
        for name, text in lesson_readmes():
            with self.subTest(readme=name):
                words = lesson_words(text)
                if words >= MAX_LESSON_WORDS:
                    self.fail(f"{name}: {words} words outside the generated tables and code "
                              f"blocks; a lesson stays under {MAX_LESSON_WORDS} (the depth "
                              "moves to the chapter's deep_dive.md)")

    def test_companion_page_linked_from_its_readme(self):
        for page in sorted((ROOT / "chapters").glob("[0-9][0-9]_*/deep_dive.md")):
            readme = page.with_name("README.md")
            with self.subTest(chapter=page.parent.name):
                self.assertTrue(readme.is_file(), f"{page.parent.name} has no README.md")
                linked = re.search(r"\]\((\./)?deep_dive\.md(#[^)\s]*)?\)",
                                   prose(readme.read_text(encoding="utf-8")))
                self.assertTrue(linked, f"{page.parent.name}/README.md does not link deep_dive.md")

    def test_top_readme_links_glossary_and_teachers_guide(self):
        readme = prose((ROOT / "README.md").read_text(encoding="utf-8"))
        for page in ("docs/glossary.md", "docs/teachers.md"):
            with self.subTest(page=page):
                linked = re.search(r"\]\((\./)?" + re.escape(page) + r"(#[^)\s]*)?\)", readme)
                self.assertTrue(linked, f"README.md does not link {page}")


if __name__ == "__main__":
    unittest.main()
