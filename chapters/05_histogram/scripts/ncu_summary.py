#!/usr/bin/env python3
"""Turns histogram_ncu_raw.csv (profile_atomics.sh: `ncu --csv` of several histogram runs, each
section headed by "### <arguments>") into the deep dive's profiler table: one row per kernel, the
first launch of each, CUB's sweep kernel included.

    chapters/05_histogram/scripts/ncu_summary.py histogram_ncu_raw.csv "header line" > histogram_ncu.txt
"""
import csv
import io
import re
import sys

COLUMNS = [
    ("time us", "gpu__time_duration.sum", lambda v: f"{v / 1000:.1f}"),
    ("DRAM %", "dram__throughput.avg.pct_of_peak_sustained_elapsed", lambda v: f"{v:.1f}"),
    ("warp instr (M)", "smsp__inst_executed.sum", lambda v: f"{v / 1e6:.1f}"),
    ("shared atomic wavefronts (M)", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", lambda v: f"{v / 1e6:.1f}"),
    ("of them bank conflicts (M)", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", lambda v: f"{v / 1e6:.1f}"),
    ("all shared bank conflicts (M)", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", lambda v: f"{v / 1e6:.1f}"),
    ("ALU pipe %", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", lambda v: f"{v:.1f}"),
    ("LSU pipe %", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", lambda v: f"{v:.1f}"),
    ("occupancy %", "sm__warps_active.avg.pct_of_peak_sustained_active", lambda v: f"{v:.1f}"),
]


def number(text, unit):
    text = text.replace(",", "")
    try:
        value = float(text)
    except ValueError:
        return float("nan")
    return value * {"ms": 1e6, "us": 1e3, "usecond": 1e3, "msecond": 1e6}.get(unit, 1)


def short(name):
    name = re.sub(r"\(.*$", "", name)
    name = re.sub(r"<.*", "", name).split("::")[-1]
    return {"DeviceHistogramSweepKernel": "cub_sweep", "DeviceHistogramInitKernel": "cub_init"}.get(
        name, name.removesuffix("_kernel"))


def sections(path):
    current, lines = None, []
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("###"):
            if current is not None:
                yield current, lines
            current, lines = line[3:].strip(), []
        elif line.startswith('"'):
            lines.append(line)
    if current is not None:
        yield current, lines


def main():
    if len(sys.argv) > 2:
        print(sys.argv[2])
    for args, lines in sections(sys.argv[1]):
        kernels = {}
        first_id = {}
        for row in csv.DictReader(io.StringIO("".join(lines))):
            name = short(row["Kernel Name"])
            if name == "cub_init":
                continue
            first_id.setdefault(name, row["ID"])
            if row["ID"] != first_id[name]:
                continue
            kernels.setdefault(name, {})[row["Metric Name"]] = number(row["Metric Value"],
                                                                     row["Metric Unit"])
        width = max([len(k) for k in kernels] + [6])
        print(f"\nhistogram {args} --reps 1 --warmup 0")
        print(f"{'kernel':<{width}}  " + "  ".join(c[0] for c in COLUMNS))
        for name, metrics in kernels.items():
            cells = [(fmt(metrics[m]) if m in metrics else "-").rjust(len(title))
                     for title, m, fmt in COLUMNS]
            print(f"{name:<{width}}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
