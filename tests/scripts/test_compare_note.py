"""A comparison of several GPUs says which result files it leaves out because only some of the
GPUs' folders have them (a chapter not yet run on one of them), instead of dropping them silently
(run by ctest as docs.scripts_unit_tests)."""
import unittest

import plot_test_support  # noqa: F401  (puts scripts/ on the path)
from plotting import compare as compare_module  # noqa: E402


class NotComparedNoteTest(unittest.TestCase):
    def test_names_each_file_and_the_gpus_that_have_it(self):
        kinds = [("H100", []), ("H200", []), ("L4", [])]
        stems = [{"reduction", "scan"}, {"reduction"}, {"reduction", "scan", "streams"}]
        note = compare_module.not_compared_note(kinds, stems, ["reduction"])
        self.assertIn("scan (H100, L4 only)", note)
        self.assertIn("streams (L4 only)", note)
        self.assertNotIn("reduction", note)

    def test_says_nothing_when_every_file_is_shared(self):
        kinds = [("H100", []), ("H200", [])]
        self.assertEqual(compare_module.not_compared_note(
            kinds, [{"reduction"}, {"reduction"}], ["reduction"]), "")

    def test_the_committed_comparison_has_chapter_8_on_both_gpus(self):
        text = (plot_test_support.RESULTS / "compare" / "comparison.md").read_text(
            encoding="utf-8")
        self.assertIn("\n### scan\n", text)
        self.assertIn("\n### scan_exclusive\n", text)
        self.assertNotIn("scan (H100 only)", text)


if __name__ == "__main__":
    unittest.main()
