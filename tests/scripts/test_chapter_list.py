"""chapters/chapters.txt is the one list of chapters: CMake, the Makefile and scripts/ read it.
These tests check the files that still name chapters one by one (the bench cases, the profile
arguments, the top README's table) and the CI preset against it (run by ctest as
docs.scripts_unit_tests)."""
import json
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def chapters():
    """[(folder, executable)] in course order, as cmake/Chapters.cmake reads them."""
    rows = []
    for line in (ROOT / "chapters/chapters.txt").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = re.fullmatch(r"([0-9][0-9]_[A-Za-z0-9_]+)[ \t]+([A-Za-z0-9_]+)[ \t]*", line)
        assert match, f"chapters/chapters.txt: bad line {line!r}"
        rows.append(match.groups())
    return rows


class ChapterListTest(unittest.TestCase):
    def test_folders_in_course_order(self):
        rows = chapters()
        self.assertEqual([int(folder[:2]) for folder, _ in rows], list(range(len(rows))))
        for folder, _ in rows:
            self.assertTrue((ROOT / "chapters" / folder / "CMakeLists.txt").is_file(), folder)
            self.assertTrue((ROOT / "chapters" / folder / "README.md").is_file(), folder)
        on_disk = sorted(p.name for p in (ROOT / "chapters").glob("[0-9][0-9]_*") if p.is_dir())
        self.assertEqual(on_disk, [folder for folder, _ in rows])

    def test_every_bench_case_runs_a_chapter_and_every_chapter_has_one(self):
        executables = {exe for _, exe in chapters()}
        used = set()
        for name in ("bench_cases.txt", "bench_cases_multi_gpu.txt"):
            for line in (ROOT / "scripts" / name).read_text().splitlines():
                if line.strip() and not line.startswith("#"):
                    exe = line.split()[1]
                    self.assertIn(exe, executables, f"scripts/{name}: {line}")
                    used.add(exe)
        self.assertEqual(used, executables)

    def test_profile_script_knows_every_chapter(self):
        script = (ROOT / "scripts/profile.sh").read_text()
        for _, exe in chapters():
            self.assertRegex(script, rf"(?m)^  {exe}\)", f"scripts/profile.sh has no case {exe})")

    def test_readme_table_lists_the_chapters_in_order(self):
        readme = (ROOT / "README.md").read_text()
        rows = re.findall(r"(?m)^\| (\d+) \| \[chapters/([^\]]+)\]\([^)]*\) \| `([^`]+)` \|", readme)
        self.assertEqual([(folder, exe) for _, folder, exe in rows], chapters())
        self.assertEqual([int(n) for n, _, _ in rows], list(range(len(rows))))


class PresetsTest(unittest.TestCase):
    def test_the_architecture_list_is_kept_once(self):
        # cmake/Architectures.cmake holds the fallback list; the ci preset builds it by turning
        # the detection off, without repeating the list.
        presets = json.loads((ROOT / "CMakePresets.json").read_text())
        for preset in presets["configurePresets"]:
            self.assertNotIn("CMAKE_CUDA_ARCHITECTURES", preset.get("cacheVariables", {}),
                             preset["name"])
        ci = next(p for p in presets["configurePresets"] if p["name"] == "ci")
        self.assertEqual(ci["cacheVariables"]["CUDA_TUTORIAL_DETECT_ARCHITECTURES"], "OFF")
        cmake = (ROOT / "cmake/Architectures.cmake").read_text()
        self.assertRegex(cmake, r'set\(CUDA_TUTORIAL_FALLBACK_ARCHITECTURES "[^"]+"')
        self.assertIn("option(CUDA_TUTORIAL_DETECT_ARCHITECTURES", cmake)


if __name__ == "__main__":
    unittest.main()
