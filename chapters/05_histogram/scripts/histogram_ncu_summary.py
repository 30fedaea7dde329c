#!/usr/bin/env python3
"""Turns histogram_ncu_raw.csv (profile_atomics.sh: `ncu --csv` of several histogram runs, each
section headed by "### <arguments>") into the deep dive's profiler table: one row per kernel, the
first launch of each, CUB's sweep kernel included.

    chapters/05_histogram/scripts/histogram_ncu_summary.py histogram_ncu_raw.csv "header line" > histogram_ncu.txt

This file holds the chapter's columns and kernel names; scripts/ncu_summaries.py makes the tables.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
import ncu_csv  # noqa: E402  (the repository's one ncu parser)
import ncu_summaries  # noqa: E402  (the chapters' one ncu summary)
from ncu_summaries import Column  # noqa: E402

COLUMNS = [
    Column("time us", "gpu__time_duration.sum", ".1f", per=1000),
    Column("DRAM %", "dram__throughput.avg.pct_of_peak_sustained_elapsed", ".1f"),
    Column("warp instr (M)", "smsp__inst_executed.sum", ".1f", per=1e6),
    Column("shared atomic wavefronts (M)",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", ".1f", per=1e6),
    Column("of them bank conflicts (M)",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", ".1f", per=1e6),
    Column("all shared bank conflicts (M)", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
           ".1f", per=1e6),
    Column("ALU pipe %", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", ".1f"),
    Column("LSU pipe %", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", ".1f"),
    Column("occupancy %", "sm__warps_active.avg.pct_of_peak_sustained_active", ".1f"),
]

CUB_KERNELS = {"DeviceHistogramSweepKernel": "cub_sweep", "DeviceHistogramInitKernel": None}


def short(kernel_name):
    """The table's name of a kernel: no "_kernel" suffix, CUB's by their role, CUB's init kernel
    left out (None)."""
    name = ncu_csv.short_kernel_name(kernel_name)
    return CUB_KERNELS.get(name, name.removesuffix("_kernel"))


SUMMARY = ncu_summaries.SectionTables(COLUMNS, title="histogram {} --reps 1 --warmup 0",
                                      row_of=short)


def main(argv=None):
    return ncu_summaries.main(SUMMARY, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
