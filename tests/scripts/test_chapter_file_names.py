"""A chapter-local file name names one file: no name repeats across chapters, so that a search, an
error message or a link finds the file it means (run by ctest as docs.scripts_unit_tests). The
files every chapter has by its shape (its CMakeLists.txt, main.cpp, lesson and deep dive) are the
exception."""
import collections
import pathlib
import subprocess
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EVERY_CHAPTER_HAS = {"CMakeLists.txt", "main.cpp", "README.md", "deep_dive.md"}


def chapter_files(root):
    """(chapter folder, file name) of every file under chapters/<chapter>/, as git tracks them
    (or, outside a checkout, as they are on disk)."""
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "chapters"],
                                capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        listed = []
    paths = [pathlib.PurePosixPath(p) for p in listed] or [
        p.relative_to(root) for p in (root / "chapters").rglob("*") if p.is_file()]
    return [(p.parts[1], p.name) for p in paths if len(p.parts) > 2]


def repeated_names(root):
    """{name: [chapters]} for every name that stands in more than one chapter."""
    chapters = collections.defaultdict(set)
    for chapter, name in chapter_files(root):
        if name not in EVERY_CHAPTER_HAS and not name.endswith(".pyc"):
            chapters[name].add(chapter)
    return {name: sorted(c) for name, c in chapters.items() if len(c) > 1}


class ChapterFileNamesTest(unittest.TestCase):
    def test_no_name_repeats_across_chapters(self):
        repeated = repeated_names(ROOT)
        self.assertEqual(repeated, {}, "give each a name that says its chapter, e.g. "
                         "reduction_ncu_summary.py: " + str(repeated))


if __name__ == "__main__":
    unittest.main()
