#!/usr/bin/env python3
"""Turns the `ncu --csv` output of supplementary_runs.sh (the first launch, i.e. the first pass,
of each stage) into the README's profiler table: one row per stage, in the program's order. The
stage ids and names come from the program itself (`<build>/bin/reduction --stage list --json`):
kernel reduce_<name> is the stage of that name (or of the one name it begins), and a kernel of
CUB's is the stage whose name begins "cub_".

    chapters/03_reduction/measuring/reduction_ncu_summary.py [--build-dir build] reduction_ncu_raw.csv [header line]

This file holds the chapter's columns and kernel names; scripts/ncu_summaries.py makes the table.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
import ncu_csv  # noqa: E402  (the repository's one ncu parser)
import ncu_summaries  # noqa: E402  (the chapters' one ncu summary)
from ncu_summaries import Column  # noqa: E402

# Only the columns that the file measured are shown. The stall columns are warps stalled per
# issued instruction (smsp__average_warps_issue_stalled_*_per_issue_active).
COLUMNS = [
    Column("kernel time µs", "gpu__time_duration.sum", ".2f", per=1000),
    Column("DRAM throughput %", "dram__throughput.avg.pct_of_peak_sustained_elapsed", ".2f"),
    Column("warp instructions", "smsp__inst_executed.sum", ",.0f"),
    Column("threads per instruction (of 32)",
           "smsp__thread_inst_executed_per_inst_executed.ratio", ".2f"),
    Column("of them predicated on", "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
           ".2f"),
    Column("shared-load wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           ",.0f"),
    Column("shared-load bank conflicts",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", ",.0f"),
    Column("achieved occupancy %", "sm__warps_active.avg.pct_of_peak_sustained_active", ".2f"),
    Column("stalled on a barrier",
           "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", ".2f"),
    Column("on a global load (long scoreboard)",
           "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", ".2f"),
    Column("on shared memory (short scoreboard)",
           "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", ".2f"),
]


def stage_of_kernel(stages):
    """A function from ncu's kernel name to the id of the stage whose kernel it is (None: not a
    stage's)."""
    names = {stage["name"]: stage["id"] for stage in stages}
    cub = [stage["id"] for stage in stages if stage["name"].startswith("cub_")]

    def stage_of(kernel_name):
        if "cub::" in kernel_name:
            return cub[0] if len(cub) == 1 else None
        kernel = ncu_csv.short_kernel_name(kernel_name)
        if not kernel.startswith("reduce_"):
            return None
        kernel = kernel.removeprefix("reduce_")
        if kernel in names:
            return names[kernel]
        begun = [name for name in names if name.startswith(kernel + "_")]
        return names[begun[0]] if len(begun) == 1 else None
    return stage_of


SUMMARY = ncu_summaries.StageTable(COLUMNS, program="reduction", stage_of_kernel=stage_of_kernel)


def main(argv=None):
    return ncu_summaries.main(SUMMARY, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
