"""Chapter 5's wide section as the scripts read it (scripts/plotting/): its table groups the rows
by bin count (each row's "group", the "bins" column) with CUB as the baseline of each group; older
result files wrote the bin count into the id ('4096:private') and "x CUB" as a column of their
own. Both forms must give the same bin sweep, the same row keys and labels, the same fastest row
and words beside it, and must compare with each other row for row. The older form is kept as
data/histogram_wide_bins_in_ids.json (the H100's file before the change); the committed H100 file
is the program's own output in the new form, and grouped() must make that form.
"""
import copy
import json
import pathlib
import unittest

from plot_test_support import RESULTS

from plotting import compare as compare_module  # noqa: E402
from plotting import results as results_module  # noqa: E402
from plotting import sweeps as sweeps_module  # noqa: E402

STEM = "histogram_wide"


def older_form():
    """An H100 wide table as the program wrote it before the table model's groups: bin counts in
    the ids."""
    path = pathlib.Path(__file__).resolve().parent / "data" / "histogram_wide_bins_in_ids.json"
    return json.loads(path.read_text(encoding="utf-8"))


def committed():
    """The H100's committed wide table, as the program writes it now."""
    path = RESULTS / "nvidia-h100-80gb-hbm3" / f"{STEM}.json"
    return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))


def grouped(doc):
    """The same table as the program writes it now: the bin count as each row's group, CUB the
    baseline (speedup_vs_baseline in place of the "x CUB" column), no "bins" column."""
    new = copy.deepcopy(doc)
    new["baseline"] = "cub"
    new["group_column"] = "bins"
    for row in new["rows"]:
        bins, _, kernel = row["id"].partition(":")
        row["id"], row["group"] = kernel, bins
        extra = row["extra"]
        ratio = extra.pop("x CUB")
        extra.pop("bins")
        row["speedup_vs_baseline"] = None if ratio == "-" else float(ratio)
        row["in_progression"] = False
    return new


class BinGroupsTest(unittest.TestCase):
    def setUp(self):
        self.old = older_form()
        self.new = grouped(self.old)

    def test_the_kept_table_is_the_older_form(self):
        self.assertTrue(all(":" in row["id"] for row in self.old["rows"]))
        self.assertTrue(all(":" not in row["id"] for row in self.new["rows"]))

    def test_grouped_makes_the_form_the_program_writes(self):
        written = committed()
        for key in ("baseline", "group_column"):
            self.assertEqual(written[key], self.new[key], key)
        self.assertEqual([(r["group"], r["id"]) for r in written["rows"]],
                         [(r["group"], r["id"]) for r in self.new["rows"]])
        for row in written["rows"]:
            self.assertNotIn("x CUB", row.get("extra", {}))
            self.assertNotIn("bins", row.get("extra", {}))

    def test_same_sweep_keys_and_labels(self):
        self.assertEqual(sweeps_module.bin_series(self.new), sweeps_module.bin_series(self.old))
        self.assertTrue(sweeps_module.is_bin_sweep(self.new))
        self.assertEqual([results_module.row_key(r) for r in self.new["rows"]],
                         [results_module.row_key(r) for r in self.old["rows"]])
        self.assertEqual([results_module.row_label(r) for r in self.new["rows"]],
                         [r["id"] for r in self.old["rows"]])
        self.assertEqual(sweeps_module.skipped_points(self.new),
                         sweeps_module.skipped_points(self.old))

    def test_same_fastest_rows_and_words(self):
        self.assertEqual(results_module.fastest_ids(self.new),
                         results_module.fastest_ids(self.old))
        self.assertEqual(results_module.role(self.new["rows"][-1], self.new), "baseline")
        old = compare_module.case_summary(STEM, [self.old], ["H100"])
        new = compare_module.case_summary(STEM, [self.new], ["H100"])
        self.assertEqual(new["group"], old["group"])
        self.assertEqual(results_module.row_key(new["cells"][0]["row"]),
                         results_module.row_key(old["cells"][0]["row"]))
        self.assertEqual(new["cells"][0]["baseline"], old["cells"][0]["baseline"])
        self.assertIn("CUB", new["cells"][0]["baseline"])

    def test_the_two_forms_compare_row_for_row(self):
        header, body = compare_module.comparison_cells([self.old, self.new], ["old", "new"])
        self.assertEqual([cells[0] for cells in body], [r["id"] for r in self.old["rows"]])
        verdicts = [cells[header.index("new vs old")] for cells in body]
        self.assertNotIn("–", verdicts)
        self.assertEqual(set(verdicts), {"1.00× same (within noise)"})


if __name__ == "__main__":
    unittest.main()
