#!/usr/bin/env python3
"""Summarizes Nsight Compute's text output for this chapter: one row per kernel (its last
launch, the timed one), one column per metric. Used to make
docs/results/nvidia-h100-80gb-hbm3/divergence_ncu_summary.txt from divergence_ncu.txt:

    python3 chapters/02_divergence/measuring/divergence_ncu_summary.py divergence_ncu.txt

This file holds the chapter's columns; scripts/ncu_summaries.py makes the table.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
import ncu_summaries  # noqa: E402  (the chapters' one ncu summary)
from ncu_summaries import Column  # noqa: E402

SUMMARY = ncu_summaries.TextReportTable(columns=[
    Column("time us", "gpu__time_duration.sum", ".2f", per=1e3),  # ncu picks ns, us or ms
    # The others as ncu printed them.
    Column("warp instructions", "smsp__inst_executed.sum"),
    Column("branch uniform %", "smsp__sass_average_branch_targets_threads_uniform.pct"),
    Column("divergent branches", "smsp__sass_branch_targets_threads_divergent.sum"),
    Column("threads per instruction", "smsp__thread_inst_executed_per_inst_executed.ratio"),
])


def main(argv=None):
    return ncu_summaries.main(SUMMARY, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
