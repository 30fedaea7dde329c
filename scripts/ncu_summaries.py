"""The chapters' Nsight Compute summary tables: one implementation, with each chapter's choices
given as data.

A chapter's <chapter>_ncu_summary.py names its columns (Column: which metric, its title, how its value is
shown) and picks one of three tables, which also says which kernel becomes which row:

    TextReportTable  ncu's text report (no --csv): one row per kernel, its last launch (the timed
                     one), as aligned text with a legend. chapters/02_divergence/measuring/divergence_ncu_summary.py
    StageTable       `ncu --csv`: one row per stage of the chapter's program, the first launch of
                     each, as a Markdown table of the columns measured; the stages are the
                     program's own (`<build>/bin/<program> --stage list --json`).
                     chapters/03_reduction/measuring/reduction_ncu_summary.py
    SectionTables    `ncu --csv` of several runs, each headed "### <arguments>": one text table per
                     run, one row per kernel, the first launch of each.
                     chapters/05_histogram/scripts/histogram_ncu_summary.py

Each then runs main(), so that every chapter's summary takes the same command line:

    <the chapter's <chapter>_ncu_summary.py> [--build-dir build] INPUT [HEADER]

INPUT is ncu's output, HEADER a line printed first, --build-dir (StageTable only) the build whose
bin/<program> lists the stages. Reading ncu's output is scripts/ncu_csv.py's job;
scripts/ncu_table.py is the table of every metric that `make profile` prints. A new chapter's
summary: copy the chapter file closest to it, then change its columns and row names.

A chapter file imports this one with:

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[N] / "scripts"))
    import ncu_summaries
"""
import argparse
import dataclasses
import math
import pathlib
import re
import sys
from typing import Callable, Dict, List, Optional, Tuple

import ncu_csv

# The metrics of one launch: {metric name: (unit, value as ncu printed it)}.
Metrics = Dict[str, Tuple[Optional[str], str]]
# From ncu's name of a kernel to its row in the table; None leaves the kernel out.
RowOf = Callable[[str], Optional[str]]


def measured_precision(fmt: str, text: str, value: float) -> str:
    """`fmt` with no more decimals than ncu measured: ncu prints a time in the unit it picks,
    with about three or four significant digits ("1.07" ms), and shown in another unit that
    value must not gain digits ("1070.00" µs would claim six). A fixed-point spec (".2f",
    ",.1f") keeps at most as many decimals as the digits ncu printed leave; anything else is
    returned as it is."""
    match = re.fullmatch(r"(,?)\.(\d+)f", fmt)
    digits = re.sub(r"[^0-9]", "", text.split("e")[0].split("E")[0]).lstrip("0")
    if match is None or not digits or not math.isfinite(value) or value == 0:
        return fmt
    whole = math.floor(math.log10(abs(value))) + 1  # digits before the point
    decimals = min(int(match.group(2)), max(0, len(digits) - whole))
    return f"{match.group(1)}.{decimals}f"


@dataclasses.dataclass(frozen=True)
class Column:
    """One metric as one column: its title, and how its value is shown."""
    title: str
    metric: str
    fmt: Optional[str] = None  # a format spec (".2f", ",.0f"); None: the value as ncu printed it
    per: float = 1  # shown divided by this (times are in ns: 1000 shows µs; 1e6: millions)

    def cell(self, metrics: Metrics) -> Optional[str]:
        """The value in one launch's metrics, formatted; None when the launch has no such metric."""
        if self.metric not in metrics:
            return None
        unit, text = metrics[self.metric]
        if self.fmt is None:
            return text
        value = ncu_csv.number(text, unit) / self.per
        return format(value, measured_precision(self.fmt, text, value))

    def measured(self, metrics: Metrics) -> bool:
        """Whether the launch has a number for this column (ncu prints n/a for some)."""
        if self.metric not in metrics:
            return False
        unit, text = metrics[self.metric]
        return ncu_csv.is_number(ncu_csv.number(text, unit))


def kernel_row(name: str) -> str:
    """The default row of a kernel: its function name without a "_kernel" suffix."""
    return ncu_csv.short_kernel_name(name).removesuffix("_kernel")


def csv_launches(metric_rows: List[dict], row_of: RowOf) -> Dict[str, Metrics]:
    """{row: metrics} from `ncu --csv` rows: the first launch of each row's kernels
    (ncu_csv.one_launch_each), in the order in which the rows first appear."""
    chosen = ncu_csv.one_launch_each(metric_rows, key=lambda row: row_of(row["Kernel Name"]))
    return {name: {metric: (row["Metric Unit"], row["Metric Value"])
                   for metric, row in launch.items()}
            for name, launch in chosen.items()}


def cells(columns: List[Column], metrics: Metrics, missing: str) -> List[str]:
    """One launch's cells, `missing` where it lacks a column's metric."""
    return [missing if cell is None else cell for cell in (c.cell(metrics) for c in columns)]


@dataclasses.dataclass
class TextReportTable:
    """ncu's text report: one row per kernel (its last launch, the timed one), aligned text, then
    every launch's grid x block and the metric names of the columns."""
    columns: List[Column]
    row_of: RowOf = kernel_row
    reads = "ncu's text report (its output without --csv)"  # the input, for --help

    def lines(self, source, header: Optional[str] = None, build_dir=None) -> List[str]:
        kernels, shapes = {}, {}
        for kernel, values in ncu_csv.read_text_report(source).items():
            name = self.row_of(kernel)
            if name is None:
                continue
            shapes[name] = f"({values.pop('grid')})x({values.pop('block')})"
            kernels[name] = values
        table = [["kernel", *[c.title for c in self.columns]]]
        table += [[name, *cells(self.columns, metrics, "-")] for name, metrics in kernels.items()]
        return ([header] if header is not None else []) + ncu_csv.aligned(table, left=1) + [
            "",
            "one row per kernel: its last launch (the timed one); grid x block of every launch: "
            + ", ".join(sorted(set(shapes.values()))),
            "metrics: " + ", ".join(f"{c.title} = {c.metric}" for c in self.columns)]


@dataclasses.dataclass
class StageTable:
    """`ncu --csv`: one row per stage of `program`, its first launch, in the program's order, as a
    Markdown table; only the columns that some stage measured."""
    columns: List[Column]
    program: str  # the chapter's executable, whose --stage list --json gives the stages
    # From the program's stages ({"id", "name", ...} each) to the function that gives a kernel's
    # stage id; a kernel of no stage gets None.
    stage_of_kernel: Callable[[List[dict]], RowOf]
    reads = "ncu --csv output"  # the input, for --help

    def table(self, metric_rows: List[dict], stages: List[dict],
              header: Optional[str] = None) -> List[str]:
        """The summary's lines: the header line if any, then the Markdown table."""
        order = [stage["id"] for stage in stages]
        launches = csv_launches(metric_rows, self.stage_of_kernel(stages))
        columns = [c for c in self.columns if any(c.measured(m) for m in launches.values())]
        lines = [header] if header is not None else []
        lines.append("| stage | " + " | ".join(c.title for c in columns) + " |")
        lines.append("|--:|" + "--:|" * len(columns))
        for stage in sorted(launches, key=order.index):
            row = cells(columns, launches[stage], "–")
            lines.append(f"| {stage} | " + " | ".join(row) + " |")
        return lines

    def lines(self, source, header: Optional[str] = None, build_dir="build") -> List[str]:
        stages = ncu_csv.stage_registry(self.program, build_dir)  # may raise RegistryError
        return self.table(ncu_csv.rows(source), stages, header)


@dataclasses.dataclass
class SectionTables:
    """`ncu --csv` of several runs, each headed by "### <arguments>": per run, its title and a
    text table, one row per kernel (its first launch). Rows before the first heading are left
    out (no run to name)."""
    columns: List[Column]
    title: str  # the line above each run's table; {} is replaced by the run's arguments
    row_of: RowOf = kernel_row
    reads = 'ncu --csv output, one "### <arguments>" section per run'  # the input, for --help

    def lines(self, source, header: Optional[str] = None, build_dir=None) -> List[str]:
        lines = [header] if header is not None else []
        for arguments, metric_rows in ncu_csv.sections(source):
            if arguments is None:
                continue
            kernels = csv_launches(metric_rows, self.row_of)
            width = max([len(k) for k in kernels] + [6])
            lines += ["", self.title.format(arguments),
                      f"{'kernel':<{width}}  " + "  ".join(c.title for c in self.columns)]
            for name, metrics in kernels.items():
                row = [cell.rjust(len(c.title))
                       for c, cell in zip(self.columns, cells(self.columns, metrics, "-"))]
                lines.append(f"{name:<{width}}  " + "  ".join(row))
        return lines


def main(summary, argv=None, doc: str = "") -> int:
    """The command line of a chapter's <chapter>_ncu_summary.py (`doc`: its docstring, for --help)."""
    parser = argparse.ArgumentParser(description=(doc or __doc__).split("\n\n")[0])
    if isinstance(summary, StageTable):
        parser.add_argument("--build-dir", default="build",
                            help=f"the build folder whose bin/{summary.program} lists the stages "
                                 "(default build)")
    parser.add_argument("input", help=summary.reads)
    parser.add_argument("header", nargs="?", help="a line printed above the table")
    args = parser.parse_args(argv)
    try:
        lines = summary.lines(args.input, args.header, getattr(args, "build_dir", None))
    except ncu_csv.RegistryError as error:
        print(f"{pathlib.Path(sys.argv[0]).name}: {error}", file=sys.stderr)
        return 2
    if lines:
        print("\n".join(lines))
    return 0
