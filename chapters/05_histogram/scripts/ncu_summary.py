#!/usr/bin/env python3
"""Turns histogram_ncu_raw.csv (profile_atomics.sh: `ncu --csv` of several histogram runs, each
section headed by "### <arguments>") into the deep dive's profiler table: one row per kernel, the
first launch of each, CUB's sweep kernel included.

    chapters/05_histogram/scripts/ncu_summary.py histogram_ncu_raw.csv "header line" > histogram_ncu.txt
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
import ncu_csv  # noqa: E402  (the repository's one ncu parser)

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


CUB_KERNELS = {"DeviceHistogramSweepKernel": "cub_sweep", "DeviceHistogramInitKernel": None}


def short(row):
    """The table's name of a row's kernel: no "_kernel" suffix, CUB's by their role, CUB's init
    kernel left out (None)."""
    name = ncu_csv.short_kernel_name(row["Kernel Name"])
    return CUB_KERNELS.get(name, name.removesuffix("_kernel"))


def main():
    if len(sys.argv) > 2:
        print(sys.argv[2])
    for args, rows in ncu_csv.sections(sys.argv[1]):
        if args is None:  # rows before the first "### <arguments>" line: no run to name
            continue
        kernels = {name: {metric: ncu_csv.number(row["Metric Value"], row["Metric Unit"])
                          for metric, row in launch.items()}
                   for name, launch in ncu_csv.one_launch_each(rows, key=short).items()}
        width = max([len(k) for k in kernels] + [6])
        print(f"\nhistogram {args} --reps 1 --warmup 0")
        print(f"{'kernel':<{width}}  " + "  ".join(c[0] for c in COLUMNS))
        for name, metrics in kernels.items():
            cells = [(fmt(metrics[m]) if m in metrics else "-").rjust(len(title))
                     for title, m, fmt in COLUMNS]
            print(f"{name:<{width}}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
