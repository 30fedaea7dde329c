"""The READMEs are lessons: the top README and every chapter README carry no commit hash and no
issue number (provenance lives in docs/results/), each chapter's lesson stays under 6,000 words
(the tables that scripts/results_tables.py pastes and the code listings do not count), a chapter's
companion page (chapters/<folder>/deep_dive.md) is linked from its README, the top README
links the glossary and the teacher's guide, and every count of the graded exercises written in the
top README, docs/exercises.md and docs/teachers.md, and every exercise those pages list, agrees
with exercises/exercises.txt (run by ctest as docs.scripts_unit_tests)."""
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


# A count of the graded exercises in words or digits: "Eleven stages come as exercises",
# "Eleven stages of the course come as exercises", "11 exercises", "eleven graded exercises".
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                "seventeen", "eighteen", "nineteen", "twenty"]
EXERCISE_COUNT = re.compile(
    r"\b(" + "|".join(NUMBER_WORDS) + r"|\d+)\s+(?:graded\s+|self-grading\s+)?"
    r"(?:exercises\b|stages\s+(?:of\s+the\s+course\s+)?(?:come|are)\s+(?:graded\s+)?"
    r"(?:as\s+)?exercises\b)", re.IGNORECASE)
# The pages that count or list the graded exercises.
EXERCISE_PAGES = ["README.md", "docs/exercises.md", "docs/teachers.md"]


def exercise_ids():
    """The ids of exercises/exercises.txt, in its order (one row per exercise)."""
    rows = (ROOT / "exercises/exercises.txt").read_text(encoding="utf-8").splitlines()
    return [row.split()[0] for row in rows if row.strip() and not row.lstrip().startswith("#")]


def exercise_counts(text: str):
    """Every count of exercises that `text` writes, as numbers."""
    counts = []
    for match in EXERCISE_COUNT.finditer(prose(text)):
        word = match.group(1).lower()
        counts.append(int(word) if word.isdigit() else NUMBER_WORDS.index(word))
    return counts


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

    def test_what_counts_as_a_count_of_exercises(self):
        self.assertEqual(exercise_counts("Ten stages come as exercises that grade themselves. "
                                         "Eleven stages of the course come\nas exercises: ... "
                                         "all 12 exercises; three graded exercises"),
                         [10, 11, 12, 3])
        self.assertEqual(exercise_counts("reduction in nine stages and beyond; the exercises of "
                                         "chapter 3; exercise 5 tests it; 20 runs"), [])

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


class ExerciseCountTest(unittest.TestCase):
    def test_counts_of_exercises_agree_with_the_list(self):
        listed = len(exercise_ids())
        for page in EXERCISE_PAGES:
            with self.subTest(page=page):
                for count in exercise_counts((ROOT / page).read_text(encoding="utf-8")):
                    self.assertEqual(count, listed,
                                     f"{page} counts {count} exercises; exercises/exercises.txt "
                                     f"lists {listed}")

    def test_exercise_tables_list_every_exercise(self):
        # The table of docs/exercises.md (first column) and the teacher's guide's chapter table
        # (last column) name each exercise of the list, and no other.
        # The cell that names the exercises of a row: `id` of docs/exercises.md's rows, the
        # graded-exercises cell of the teacher's guide's rows (| 3 | ... | `reduction-3`, ... |).
        cells = {"docs/exercises.md": r"^\|\s*(`[a-z0-9_-]+`)\s*\|",
                 "docs/teachers.md": r"^\|\s*\d+\s*\|.*\|([^|]*)\|\s*$"}
        for page, cell in cells.items():
            with self.subTest(page=page):
                text = (ROOT / page).read_text(encoding="utf-8")
                named = [name for match in re.finditer(cell, text, re.MULTILINE)
                         for name in re.findall(r"`([a-z0-9_-]+)`", match.group(1))]
                self.assertEqual(sorted(named), sorted(exercise_ids()),
                                 f"{page}: the exercises its table names are not those of "
                                 "exercises/exercises.txt")


if __name__ == "__main__":
    unittest.main()
