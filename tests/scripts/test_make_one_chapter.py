"""`make run-<chapter>` and `make build-<chapter>` build that chapter's executable and what it
links, nothing else: what make would run (`make -n`) builds only `--target <executable>`, for
every chapter of chapters/chapters.txt; `make run` and `make build` still build everything (run
by ctest as docs.scripts_unit_tests)."""
import pathlib
import re
import shutil
import subprocess
import tempfile
import unittest

from test_chapter_list import chapters

ROOT = pathlib.Path(__file__).resolve().parents[2]


def planned_builds(target, build_dir):
    """The `cmake --build` commands `make -n <target>` would run, each as its list of words."""
    run = subprocess.run(["make", "-n", "-C", str(ROOT), target, f"BUILD_DIR={build_dir}"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise AssertionError(run.stdout + run.stderr)
    return [line.split() for line in run.stdout.splitlines()
            if re.match(r"\s*cmake --build\b", line)]


@unittest.skipUnless(shutil.which("make") and shutil.which("cmake"), "make and cmake are needed")
class OneChapterTest(unittest.TestCase):
    def setUp(self):
        self.build = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.build)

    def test_run_and_build_of_a_chapter_name_only_its_target(self):
        for _, executable in chapters():
            for target in (f"run-{executable}", f"build-{executable}"):
                with self.subTest(target=target):
                    builds = planned_builds(target, self.build)
                    self.assertEqual(len(builds), 1, builds)
                    words = builds[0]
                    self.assertIn("--target", words)
                    self.assertEqual(words[words.index("--target") + 1], executable)

    def test_run_and_build_still_build_everything(self):
        for target in ("run", "build"):
            with self.subTest(target=target):
                builds = planned_builds(target, self.build)
                self.assertEqual(len(builds), 1, builds)
                self.assertNotIn("--target", builds[0])


if __name__ == "__main__":
    unittest.main()
