"""Unit tests of scripts/ncu_csv.py (the one reader of Nsight Compute's output) and of the ncu
summaries built on it (scripts/ncu_summaries.py and each chapter's <chapter>_ncu_summary.py): the parser
on small samples, the committed summaries remade byte for byte from the committed raw files, and
chapter 3's stage list read from the program (run by ctest as docs.scripts_unit_tests)."""
import contextlib
import importlib.util
import io
import json
import math
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs/results"
H100 = RESULTS / "nvidia-h100-80gb-hbm3"
BUILD = ROOT / "build"


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ncu_csv = load("ncu_csv", "scripts/ncu_csv.py")
reduction_summary = load("reduction_ncu_summary", "chapters/03_reduction/measuring/reduction_ncu_summary.py")
sys.path.insert(0, str(ROOT / "scripts"))
import ncu_summaries  # noqa: E402  (the module that the chapter's file imported)

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
          '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
          '"Metric Value"\n')


def row(launch, kernel, metric, unit, value, block="(256, 1, 1)"):
    return (f'"{launch}","42","prog","host","{kernel}","1","7","{block}","(1056, 1, 1)","0",'
            f'"9.0","Command line profiler metrics","{metric}","{unit}","{value}"\n')


SAMPLE = (
    "== the program's own output, before ncu's table ==\n"
    "==PROF== Connected to process 42\n"
    "### --stage 1,2\n"
    + HEADER
    + '"","","","","","","","","","","","","","","ns"\n'           # --page raw: the units row
    + row(0, "void ns::a_kernel<int, 4>(const int *, int *, unsigned long)",
          "gpu__time_duration.sum", "us", "1,234.5")
    + row(0, "void ns::a_kernel<int, 4>(const int *, int *, unsigned long)",
          "smsp__inst_executed.sum", "inst", "7")
    + row(1, "b_kernel(int)", "gpu__time_duration.sum", "ns", "n/a")
    + row(2, "void ns::a_kernel<int, 4>(const int *, int *, unsigned long)",
          "gpu__time_duration.sum", "ms", "2")
    + "### --stage 3\n"
    + HEADER
    + row(0, "c_kernel(float)", "gpu__time_duration.sum", "usecond", "5", block="(32, 32, 1)"))


class ParserTest(unittest.TestCase):
    def test_sections_split_on_headings_and_skip_everything_but_metric_rows(self):
        sections = list(ncu_csv.sections(SAMPLE))
        self.assertEqual([heading for heading, _ in sections], ["--stage 1,2", "--stage 3"])
        self.assertEqual(len(sections[0][1]), 4)          # the units row is not a metric row
        self.assertEqual(len(sections[1][1]), 1)
        first = sections[0][1][0]
        self.assertEqual(first["Kernel Name"],
                         "void ns::a_kernel<int, 4>(const int *, int *, unsigned long)")
        self.assertEqual(first["Metric Value"], "1,234.5")  # a quoted comma stays in its cell
        self.assertEqual(sections[1][1][0]["Block Size"], "(32, 32, 1)")

    def test_rows_before_any_heading_and_repeated_headers(self):
        text = "noise\n" + HEADER + row(0, "k(int)", "m", "", "1") + HEADER + row(0, "k(int)", "m",
                                                                                  "", "2")
        sections = list(ncu_csv.sections(text))
        self.assertEqual([heading for heading, _ in sections], [None])
        self.assertEqual([r["Metric Value"] for r in ncu_csv.rows(text)], ["1", "2"])
        self.assertEqual(ncu_csv.rows("nothing profiled\n"), [])

    def test_units_row(self):
        self.assertEqual(ncu_csv.units(SAMPLE)["Metric Value"], "ns")
        self.assertEqual(ncu_csv.units(HEADER + row(0, "k(int)", "m", "", "1")), {})

    def test_numbers_and_time_units(self):
        self.assertEqual(ncu_csv.number("1,234.5"), 1234.5)
        self.assertEqual(ncu_csv.number("2", "ms"), 2e6)
        self.assertEqual(ncu_csv.number("5", "usecond"), 5e3)
        self.assertEqual(ncu_csv.number("7", "inst"), 7.0)
        self.assertTrue(math.isnan(ncu_csv.number("n/a")))
        self.assertFalse(ncu_csv.is_number(ncu_csv.number("n/a")))

    def test_kernel_names(self):
        name = "void ns::a_kernel<int, 4>(const int *, int *, unsigned long)"
        self.assertEqual(ncu_csv.short_kernel_name(name), "a_kernel")
        self.assertEqual(ncu_csv.short_kernel_name(name, templates="<…>"), "a_kernel<…>")
        self.assertEqual(ncu_csv.short_kernel_name("b_kernel(int)"), "b_kernel")
        cub = ("void cub::CUB_300000_SM_900::detail::DeviceReduceKernel<cub::X::Policy1000, "
               "const unsigned int *>(T2, T4 *)")
        self.assertEqual(ncu_csv.short_kernel_name(cub), "DeviceReduceKernel")

    def test_one_launch_each(self):
        rows = ncu_csv.rows(SAMPLE)
        first = ncu_csv.one_launch_each(rows)
        self.assertEqual(list(first), ["a_kernel", "b_kernel", "c_kernel"])
        self.assertEqual(first["a_kernel"]["gpu__time_duration.sum"]["Metric Value"], "1,234.5")
        self.assertIn("smsp__inst_executed.sum", first["a_kernel"])
        last = ncu_csv.one_launch_each(rows, which="last")
        self.assertEqual(list(last), ["a_kernel", "b_kernel", "c_kernel"])
        self.assertEqual(last["a_kernel"]["gpu__time_duration.sum"]["Metric Value"], "2")
        self.assertNotIn("smsp__inst_executed.sum", last["a_kernel"])
        by_block = ncu_csv.one_launch_each(rows, key=lambda r: r["Block Size"])
        self.assertEqual(list(by_block), ["(256, 1, 1)", "(32, 32, 1)"])

    def test_text_report(self):
        text = ("  ns::a_kernel(int *) (1056, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0\n"
                "    Section: Command line profiler metrics\n"
                "    gpu__time_duration.sum        us        12.50\n"
                "    smsp__inst_executed.sum                 1,024\n"
                "  ns::a_kernel(int *) (2112, 1, 1)x(128, 1, 1), Context 1, Stream 7, Device 0\n"
                "    gpu__time_duration.sum        us        11.00\n")
        report = ncu_csv.read_text_report(text)
        self.assertEqual(report, {"a_kernel": {"grid": "2112, 1, 1", "block": "128, 1, 1",
                                               "gpu__time_duration.sum": ("us", "11.00")}})

    def test_aligned(self):
        self.assertEqual(ncu_csv.aligned([["k", "t"], ["abc", "1"]], left=1),
                         ["k    t", "------", "abc  1"])


class ColumnTest(unittest.TestCase):
    """scripts/ncu_summaries.py's Column: a metric's value as a cell."""

    def test_cells(self):
        metrics = {"gpu__time_duration.sum": ("us", "1,234.5"), "x.sum": ("", "n/a")}
        time = ncu_summaries.Column("time us", "gpu__time_duration.sum", ".2f", per=1000)
        # Read as ns, shown in µs, with no more digits than ncu printed: "1,234.5" has five.
        self.assertEqual(time.cell(metrics), "1234.5")
        # ncu's "1.07" ms is three digits: 1070 µs, never "1070.00" (six).
        self.assertEqual(time.cell({"gpu__time_duration.sum": ("ms", "1.07")}), "1070")
        self.assertEqual(time.cell({"gpu__time_duration.sum": ("us", "159.78")}), "159.78")
        self.assertEqual(time.cell({"gpu__time_duration.sum": ("ns", "960")}), "0.96")  # never more than the format asks
        self.assertEqual(ncu_summaries.Column("t", "gpu__time_duration.sum").cell(metrics),
                         "1,234.5")  # no format: as ncu printed it
        self.assertEqual(ncu_summaries.Column("m", "x.sum", ".1f", per=1e6).cell(metrics), "nan")
        self.assertIsNone(ncu_summaries.Column("y", "y.sum", ".1f").cell(metrics))
        self.assertTrue(time.measured(metrics))
        self.assertFalse(ncu_summaries.Column("m", "x.sum").measured(metrics))
        self.assertFalse(ncu_summaries.Column("y", "y.sum").measured(metrics))


def run_script(path, *args):
    result = subprocess.run([sys.executable, str(ROOT / path), *map(str, args)],
                            capture_output=True, text=True, check=True, cwd=ROOT)
    return result.stdout


class CommittedOutputsTest(unittest.TestCase):
    """Each committed summary, remade from its committed raw file by its script."""

    def test_execution_model_sweep_tables(self):
        for gpu in ["nvidia-h100-80gb-hbm3", "nvidia-h200"]:
            with self.subTest(gpu=gpu):
                made = run_script("chapters/01_execution_model/measuring/ncu_sweep_table.py",
                                  RESULTS / gpu / "execution_model_ncu.csv")
                self.assertEqual(made, (RESULTS / gpu / "execution_model_ncu.txt").read_text())

    def test_divergence_summary(self):
        made = run_script("chapters/02_divergence/measuring/divergence_ncu_summary.py", H100 / "divergence_ncu.txt")
        self.assertEqual(made, (H100 / "divergence_ncu_summary.txt").read_text())

    def test_histogram_summary(self):
        committed = (H100 / "histogram_ncu.txt").read_text()
        header = "\n".join(committed.split("\n")[:3])
        made = run_script("chapters/05_histogram/scripts/histogram_ncu_summary.py",
                          H100 / "histogram_ncu_raw.csv", header)
        self.assertEqual(made, committed)

    def test_reduction_summary(self):
        committed = (H100 / "reduction_ncu.txt").read_text()
        lines = committed.split("\n")
        stalls_header = next(line for line in lines if line.startswith("Warps stalled"))
        stages = ncu_csv.registry_from_json(REDUCTION_LIST)
        table = reduction_summary.SUMMARY.table
        made = "\n".join(
            [lines[0]]
            + table(ncu_csv.rows(H100 / "reduction_ncu_raw.csv"), stages)
            + [""]
            + table(ncu_csv.rows(H100 / "reduction_ncu_stalls_raw.csv"), stages,
                    stalls_header)) + "\n"
        self.assertEqual(made, committed)

    def test_ncu_table_reads_every_committed_raw_csv(self):
        for path in sorted(RESULTS.glob("*/*.csv")):
            if '"ID"' not in path.read_text(errors="replace"):
                continue
            with self.subTest(path=path.name):
                made = run_script("scripts/ncu_table.py", path)
                self.assertIn("metric names: ", made)


# What `reduction --stage list --json` prints (its stages, as the program lists them).
REDUCTION_LIST = json.dumps({"program": "reduction", "groups": [{"title": "", "stages": [
    {"id": id_, "name": name, "role": role, "idea": ""} for id_, name, role in [
        ("1", "interleaved_divergent", "progression"),
        ("2", "interleaved_strided_index", "progression"),
        ("3", "sequential_addressing", "progression"),
        ("4", "first_add_during_load", "progression"),
        ("5", "unrolled_last_warp", "progression"),
        ("5v", "volatile_last_warp_HISTORICAL", "expected failure"),
        ("6", "complete_unroll", "progression"),
        ("7", "grid_stride_occupancy", "progression"),
        ("8", "cooperative_groups_tile", "progression"),
        ("9", "warp_shuffle", "progression"),
        ("10", "vectorized_loads", "progression"),
        ("11", "single_pass_last_block", "progression"),
        ("12", "single_pass_atomic", "progression"),
        ("cub", "cub_device_reduce_sum", "baseline")]]}]})

KERNELS = {  # a kernel name as ncu prints it -> its stage
    "unnamed>::reduce_interleaved_divergent(const int *, int *, unsigned long)": "1",
    "unnamed>::reduce_volatile_last_warp(const int *, int *, unsigned long)": "5v",
    "void unnamed>::reduce_grid_stride<256>(const int *, int *, unsigned long)": "7",
    "void unnamed>::reduce_vectorized_loads<256, 4, 2, 1>(const int *, int *, unsigned long)":
        "10",
    "void unnamed>::reduce_single_pass_atomic<256, 4, 2, 1>(const int *, int *, unsigned long)":
        "12",
    "void cub::CUB_300000_SM_900::detail::reduce::DeviceReduceKernel<cub::CUB_300000_SM_900::"
    "detail::reduce::policy_hub<unsigned int, unsigned long>::Policy1000, const unsigned int *>"
    "(T2, T4 *, T3)": "cub",
    "void unnamed>::other_kernel(int *)": None,
}


class RegistryTest(unittest.TestCase):
    def check_stages(self, stages):
        ids = [stage["id"] for stage in stages]
        self.assertEqual(ids[:3], ["1", "2", "3"])
        self.assertIn("12", ids)
        self.assertIn("cub", ids)
        stage_of = reduction_summary.stage_of_kernel(stages)
        for kernel, stage in KERNELS.items():
            with self.subTest(kernel=kernel):
                self.assertEqual(stage_of(kernel), stage)

    def test_json_sample(self):
        stages = ncu_csv.registry_from_json(REDUCTION_LIST)
        self.assertEqual(stages[5], {"id": "5v", "name": "volatile_last_warp_HISTORICAL",
                                     "role": "expected failure", "idea": "", "group": ""})
        self.check_stages(stages)

    def test_real_binary(self):
        if not (BUILD / "bin/reduction").is_file():
            self.skipTest(f"{BUILD}/bin/reduction is not built")
        self.check_stages(ncu_csv.stage_registry("reduction", BUILD))

    def test_stage_12_and_cub_get_rows_in_the_programs_order(self):
        text = HEADER + "".join(
            row(i, kernel, "gpu__time_duration.sum", "us", f"{10 + i}")
            for i, kernel in enumerate(reversed(list(KERNELS))))
        lines = reduction_summary.SUMMARY.table(ncu_csv.rows(text),
                                                ncu_csv.registry_from_json(REDUCTION_LIST),
                                                "header")
        self.assertEqual(lines, ["header", "| stage | kernel time µs |", "|--:|--:|",
                                 "| 1 | 16 |", "| 5v | 15 |", "| 7 | 14 |",
                                 "| 10 | 13 |", "| 12 | 12 |", "| cub | 11 |"])

    def test_missing_binary_says_so_in_one_line_and_exits_2(self):
        with tempfile.TemporaryDirectory() as empty:
            with self.assertRaises(ncu_csv.RegistryError):
                ncu_csv.stage_registry("reduction", empty)
            stderr = io.StringIO()
            with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
                code = reduction_summary.main(["--build-dir", empty, "x.csv"])
            self.assertEqual(code, 2)
            self.assertEqual(len(stderr.getvalue().strip().splitlines()), 1)
            self.assertIn("bin/reduction not found", stderr.getvalue())

    def test_not_json(self):
        with self.assertRaises(ncu_csv.RegistryError):
            ncu_csv.registry_from_json("id name\n1 x\n")


if __name__ == "__main__":
    unittest.main()
