#!/usr/bin/env python3
"""Turns the `ncu --csv` output of supplementary_runs.sh (the first launch, i.e. the first pass,
of each stage) into the README's profiler table: one row per stage, in the program's order. The
stage ids and names come from the program itself (`<build>/bin/reduction --stage list --json`):
kernel reduce_<name> is the stage of that name (or of the one name it begins), and a kernel of
CUB's is the stage whose name begins "cub_".

    chapters/03_reduction/scripts/ncu_summary.py [--build-dir build] reduction_ncu_raw.csv [header line]
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
import ncu_csv  # noqa: E402  (the repository's one ncu parser)

COLUMNS = [
    ("kernel time µs", "gpu__time_duration.sum", lambda v: f"{v / 1000:.2f}"),
    ("DRAM throughput %", "dram__throughput.avg.pct_of_peak_sustained_elapsed", lambda v: f"{v:.2f}"),
    ("warp instructions", "smsp__inst_executed.sum", lambda v: f"{v:,.0f}"),
    ("threads per instruction (of 32)", "smsp__thread_inst_executed_per_inst_executed.ratio", lambda v: f"{v:.2f}"),
    ("of them predicated on", "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", lambda v: f"{v:.2f}"),
    ("shared-load wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", lambda v: f"{v:,.0f}"),
    ("shared-load bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", lambda v: f"{v:,.0f}"),
    ("achieved occupancy %", "sm__warps_active.avg.pct_of_peak_sustained_active", lambda v: f"{v:.2f}"),
    ("stalled on a barrier", "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", lambda v: f"{v:.2f}"),
    ("on a global load (long scoreboard)", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", lambda v: f"{v:.2f}"),
    ("on shared memory (short scoreboard)", "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", lambda v: f"{v:.2f}"),
]


def stage_of_kernel(stages):
    """A function from an ncu row to the id of the stage whose kernel it is (None: not a stage's)."""
    names = {stage["name"]: stage["id"] for stage in stages}
    cub = [stage["id"] for stage in stages if stage["name"].startswith("cub_")]

    def stage_of(row):
        if "cub::" in row["Kernel Name"]:
            return cub[0] if len(cub) == 1 else None
        kernel = ncu_csv.short_kernel_name(row["Kernel Name"])
        if not kernel.startswith("reduce_"):
            return None
        kernel = kernel.removeprefix("reduce_")
        if kernel in names:
            return names[kernel]
        begun = [name for name in names if name.startswith(kernel + "_")]
        return names[begun[0]] if len(begun) == 1 else None
    return stage_of


def table(rows, stages, header=None):
    """The summary's lines: the header line if any, then the Markdown table."""
    order = [stage["id"] for stage in stages]
    launches = ncu_csv.one_launch_each(rows, key=stage_of_kernel(stages))
    values = {stage: {metric: ncu_csv.number(row["Metric Value"], row["Metric Unit"])
                      for metric, row in launch.items()}
              for stage, launch in launches.items()}
    lines = [header] if header is not None else []
    # Only the columns this file measured; the stall columns are warps stalled per issued
    # instruction (smsp__average_warps_issue_stalled_*_per_issue_active).
    columns = [c for c in COLUMNS
               if any(ncu_csv.is_number(metrics.get(c[1], float("nan")))
                      for metrics in values.values())]
    lines.append("| stage | " + " | ".join(c[0] for c in columns) + " |")
    lines.append("|--:|" + "--:|" * len(columns))
    for stage in sorted(values, key=order.index):
        cells = [fmt(values[stage][metric]) if metric in values[stage] else "–"
                 for _, metric, fmt in columns]
        lines.append(f"| {stage} | " + " | ".join(cells) + " |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default="build",
                        help="the build folder whose bin/reduction lists the stages (default build)")
    parser.add_argument("csv", help="ncu --csv output, e.g. reduction_ncu_raw.csv")
    parser.add_argument("header", nargs="?", help="a line printed above the table")
    args = parser.parse_args(argv)
    try:
        stages = ncu_csv.stage_registry("reduction", args.build_dir)
    except ncu_csv.RegistryError as error:
        print(f"ncu_summary.py: {error}", file=sys.stderr)
        return 2
    print("\n".join(table(ncu_csv.rows(args.csv), stages, args.header)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
