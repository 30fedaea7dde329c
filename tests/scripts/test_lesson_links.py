"""Every kernel a chapter teaches is linked from its lesson: each file under a chapter's stages/ and
scenarios/ folders, and each allreduce/stage* file, is the target of a relative link in the
chapter's README.md, of the form that docs/source_pages.py turns into a source page of the site
(so the site has a page for every stage). Only the headers listed in EXEMPT, which hold no kernel
and no stage, need no link (run by ctest as docs.scripts_unit_tests;
`python3 tests/scripts/test_lesson_links.py` runs it alone)."""
import importlib.util
import pathlib
import re
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The files of a chapter (relative to chapters/<folder>/) that its README must link.
STAGE_PATTERNS = ["stages/**/*", "scenarios/**/*", "allreduce/stage*"]

# Files under those patterns that need no link, each with the reason. Only headers that hold no
# kernel and no stage belong here (test_exempt_files_hold_no_kernel checks the first half).
EXEMPT = {
    # Host-side declarations of the stage files' entry points, shared by the Reducer and the tests.
    "chapters/03_reduction/stages/reduction_launchers.hpp",
    # The declarations every scenario file shares; the timed kernel itself is in scenario_kit.cu,
    # which the lesson links where it shows the kernel.
    "chapters/06_streams/scenarios/scenario_kit.cuh",
    # The host-side class that stages 4-9 wrap; their kernels are in their stage files (stage4_one_shot.cu, ...).
    "chapters/07_multi_gpu/allreduce/stage_peer.hpp",
    # Chapter 9's host-side declarations of the stage files' entry points and of the cuBLAS rows,
    # and the helpers the stage files share (ceil_div, the grid, whether rows allow float4).
    "chapters/09_matmul/stages/matmul_launchers.hpp",
    "chapters/09_matmul/stages/cublas_baseline.hpp",
    "chapters/09_matmul/stages/matmul_device.cuh",
}


def load_source_pages():
    spec = importlib.util.spec_from_file_location("source_pages",
                                                  ROOT / "docs" / "source_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


source_pages = load_source_pages()


def chapter_folders(root=ROOT):
    """The chapter folders of chapters/chapters.txt, in course order."""
    rows = (root / "chapters/chapters.txt").read_text(encoding="utf-8").splitlines()
    return [row.split()[0] for row in rows if row.strip() and not row.lstrip().startswith("#")]


def stage_files(chapter: pathlib.Path, root=ROOT):
    """The files of `chapter` that its README must link, as paths relative to `root`."""
    found = set()
    for pattern in STAGE_PATTERNS:
        for path in chapter.glob(pattern):
            if path.is_file() and not source_pages.SKIPPED_PARTS.intersection(path.parts):
                found.add(path.relative_to(root).as_posix())
    return sorted(found)


def unlinked_stage_files(chapter: pathlib.Path, root=ROOT, exempt=frozenset()):
    """The stage files of `chapter` that its README.md does not link (as the site sees links)."""
    linked = set(source_pages.linked_targets(chapter / "README.md"))
    return [f for f in stage_files(chapter, root) if f not in linked and f not in exempt]


class HelpersTest(unittest.TestCase):
    def test_a_missing_link_is_found(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            chapter = root / "chapters/03_x"
            for name in ("stages/stage1_a.cu", "stages/stage2_b.cu", "scenarios/s1.cu",
                         "allreduce/stage1_c.cpp", "allreduce/ring.cpp", "stages/stage3_code.cu"):
                (chapter / name).parent.mkdir(parents=True, exist_ok=True)
                (chapter / name).write_text("__global__ void k() {}\n")
            (chapter / "README.md").write_text(
                "# Chapter\n\nStage 1 ([`stage1_a.cu`](stages/stage1_a.cu)) and\n"
                "[scenario\n1](./scenarios/s1.cu#L1).\n\n"
                "```text\n[stage 3](stages/stage3_code.cu)\n```\n\n"
                "![stage 2](stages/stage2_b.cu)\n")
            saved = source_pages.ROOT
            source_pages.ROOT = root
            try:
                missing = unlinked_stage_files(chapter, root)
            finally:
                source_pages.ROOT = saved
            # Not ring.cpp (not a stage*), not a link inside a code block or an image.
            self.assertEqual(missing, ["chapters/03_x/allreduce/stage1_c.cpp",
                                       "chapters/03_x/stages/stage2_b.cu",
                                       "chapters/03_x/stages/stage3_code.cu"])


class StageLinksTest(unittest.TestCase):
    def test_every_stage_file_is_linked_from_its_readme(self):
        for folder in chapter_folders():
            chapter = ROOT / "chapters" / folder
            with self.subTest(chapter=folder):
                self.assertTrue((chapter / "README.md").is_file(), f"{folder} has no README.md")
                missing = unlinked_stage_files(chapter, exempt=EXEMPT)
                if missing:
                    self.fail(f"chapters/{folder}/README.md does not link "
                              f"{', '.join(missing)}: link each where the lesson teaches it, "
                              "e.g. [`stage3_x.cu`](stages/stage3_x.cu)")

    def test_exempt_files_hold_no_kernel(self):
        for name in sorted(EXEMPT):
            with self.subTest(file=name):
                path = ROOT / name
                self.assertTrue(path.is_file(), f"{name} is exempt but does not exist")
                self.assertFalse(re.search(r"__global__", path.read_text(encoding="utf-8")),
                                 f"{name} holds a kernel: link it instead of exempting it")


if __name__ == "__main__":
    unittest.main()
