#!/usr/bin/env python3
"""Reading Nsight Compute's output: the one parser behind every ncu summary of this repository
(scripts/ncu_table.py, scripts/ncu_summaries.py behind the chapters' <chapter>_ncu_summary.py, and chapter
1's ncu_sweep_table.py).

`ncu --csv` prints one row per kernel launch and metric, under a quoted header row
("ID","Process ID",...,"Metric Name","Metric Unit","Metric Value"). With `--page raw` a units row
(empty "ID") follows the header. The program's own output and ncu's ==PROF== lines come before it;
files that gather several runs repeat the header, and some head each run with a line
"### <arguments>" (a section). `ncu` without `--csv` prints a text report instead:
read_text_report() reads its per-kernel metric lines.

A chapter's script imports this file (and scripts/ncu_summaries.py, the same way) with:

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[N] / "scripts"))
    import ncu_csv
"""
import csv
import json
import math
import pathlib
import re
import subprocess

# Scale factors from the time units ncu prints to nanoseconds.
NS_PER = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
          "s": 1e9, "second": 1e9}


def _lines(source):
    """The lines of a path or of text already read (a str holding a newline)."""
    if isinstance(source, str) and "\n" in source:
        return source.splitlines(keepends=True)
    with open(source, encoding="utf-8", errors="replace") as handle:
        return handle.readlines()


def sections(source):
    """Yields (heading, rows) per "### <heading>" section of an `ncu --csv` file; rows before the
    first heading come as the section None (a file without headings is that one section). Each row
    is a dict keyed by the header's column names; header rows, units rows and every line that is
    not quoted CSV (program output, ==PROF== and ==WARNING== lines) are left out."""
    heading, quoted = None, []

    def parse():
        rows, header = [], None
        for fields in csv.reader(quoted):
            if "ID" in fields and "Metric Name" in fields:     # a header row (repeated or not)
                header = fields
            elif header is not None and fields and fields[0] != "":  # units rows have no ID
                rows.append(dict(zip(header, fields)))
        return rows

    for line in _lines(source):
        if line.startswith("###"):
            if heading is not None or quoted:
                yield heading, parse()
            heading, quoted = line[3:].strip(), []
        elif line.startswith('"'):
            quoted.append(line)
    if heading is not None or quoted:
        yield heading, parse()


def rows(source):
    """Every metric row of the file, all sections together."""
    return [row for _, section in sections(source) for row in section]


def units(source):
    """The units row of an `ncu --csv --page raw` file, {column: unit}; empty when there is none."""
    header = None
    for fields in csv.reader(l for l in _lines(source) if l.startswith('"')):
        if "ID" in fields and "Metric Name" in fields:
            header = fields
        elif header is not None:
            return dict(zip(header, fields)) if fields and fields[0] == "" else {}
    return {}


def short_kernel_name(name, templates=""):
    """The kernel's function name: no parameter list, no namespace, no return type; template
    arguments replaced by `templates` ("" drops them, "<…>" marks them)."""
    name = re.sub(r"\(.*$", "", name)
    if templates:
        name = re.sub(r"<.*>", templates, name)
        return name.split("::")[-1]
    return re.sub(r"<.*", "", name).split("::")[-1].split(" ")[-1]


def number(text, unit=""):
    """A metric value as a float ("1,234.5" reads 1234.5; NaN when it is not a number), times
    ns are scaled to nanoseconds when `unit` is a time unit."""
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return float("nan")
    return value * NS_PER.get(unit, 1.0)


def is_number(value):
    return not math.isnan(value)


def kernel_of(row):
    """The short kernel name of a metric row (the default key of one_launch_each)."""
    return short_kernel_name(row["Kernel Name"])


def one_launch_each(metric_rows, key=kernel_of, which="first"):
    """{key: {metric name: row}}, one launch per key (by default the kernel's short name): the
    key's first launch or its last ("last": the timed one, after warm-up launches). Rows whose
    key is None are left out. Keys keep the order in which they first appear."""
    chosen = {}
    for row in metric_rows:
        k = key(row)
        if k is not None and (which == "last" or k not in chosen):
            chosen[k] = row["ID"]
    table = {k: {} for k in chosen}
    for row in metric_rows:
        k = key(row)
        if k is not None and row["ID"] == chosen[k]:
            table[k].setdefault(row["Metric Name"], row)
    return table


def read_text_report(source):
    """ncu's text report (no --csv), as {kernel: {"grid": ..., "block": ..., metric: (unit,
    value)}}: one entry per kernel function, its last launch."""
    kernels, current = {}, None
    header = re.compile(r"^  (?:\S*::)?(\w+)\(.*\) \((.*)\)x\((.*)\), Context")
    metric = re.compile(r"^    (\S+)\s+(?:(\S+)\s+)?([\d.,]+)$")
    for line in _lines(source):
        line = line.rstrip("\n")
        match = header.match(line)
        if match:
            current = match.group(1)
            kernels[current] = {"grid": match.group(2), "block": match.group(3)}
            continue
        match = metric.match(line)
        if match and current:
            name, unit, value = match.groups()
            kernels[current][name] = (unit, value)
    return kernels


def aligned(table, left=1):
    """A text table as lines: columns padded to their widest cell, the first `left` columns
    left-aligned and the others right-aligned, a dashed line under the header row."""
    widths = [max(len(row[c]) for row in table) for c in range(len(table[0]))]
    lines = []
    for i, row in enumerate(table):
        lines.append("  ".join(cell.ljust(widths[c]) if c < left else cell.rjust(widths[c])
                               for c, cell in enumerate(row)))
        if i == 0:
            lines.append("-" * (sum(widths) + 2 * (len(widths) - 1)))
    return lines


class RegistryError(Exception):
    pass


def stage_registry(program, build_dir="build"):
    """The program's stages as `<build_dir>/bin/<program> --stage list --json` lists them (no GPU
    needed): a list of {"id", "name", "role", "idea", "group"} in the program's order. Raises
    RegistryError with a one-line reason when the binary is missing or answers otherwise."""
    binary = pathlib.Path(build_dir) / "bin" / program
    if not binary.is_file():
        raise RegistryError(f"{binary} not found: build it first (make build) or pass --build-dir")
    result = subprocess.run([str(binary), "--stage", "list", "--json"], capture_output=True,
                            text=True, check=False)
    if result.returncode != 0:
        raise RegistryError(f"{binary} --stage list --json failed (exit {result.returncode})")
    return registry_from_json(result.stdout)


def registry_from_json(text):
    """The stages of a `--stage list --json` document (see stage_registry)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise RegistryError(f"--stage list --json did not print JSON ({error})") from error
    return [dict(stage, group=group.get("title", "")) for group in document.get("groups", [])
            for stage in group.get("stages", [])]
