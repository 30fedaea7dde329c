#!/usr/bin/env python3
"""Turns the `ncu --csv` output of supplementary_runs.sh (the first pass of stages 1-11, one
launch each) into the README's profiler table.

    chapters/03_reduction/scripts/ncu_summary.py reduction_ncu_raw.csv [header line]
"""
import csv
import io
import re
import sys

STAGE_OF_KERNEL = {
    "reduce_interleaved_divergent": "1", "reduce_interleaved_strided_index": "2",
    "reduce_sequential_addressing": "3", "reduce_first_add_during_load": "4",
    "reduce_unrolled_last_warp": "5", "reduce_complete_unroll": "6", "reduce_grid_stride": "7",
    "reduce_cooperative_groups_tile": "8", "reduce_warp_shuffle": "9",
    "reduce_vectorized_loads": "10", "reduce_single_pass_last_block": "11",
}
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


def number(text):
    text = text.replace(",", "")
    return float(text) if re.fullmatch(r"-?[0-9.]+(e[-+]?[0-9]+)?", text) else float("nan")


def main():
    lines = [l for l in open(sys.argv[1], encoding="utf-8", errors="replace") if l.startswith('"')]
    table = {}
    for row in csv.DictReader(io.StringIO("".join(lines))):
        name = re.sub(r"\(.*$", "", row["Kernel Name"]).split("::")[-1]
        name = re.sub(r"<.*", "", name)
        stage = STAGE_OF_KERNEL.get(name)
        if stage is None:
            continue
        unit = row["Metric Unit"]
        value = number(row["Metric Value"])
        if unit == "ms":
            value *= 1e6
        elif unit == "us":
            value *= 1e3
        table.setdefault(stage, {}).setdefault(row["Metric Name"], value)
    if len(sys.argv) > 2:
        print(sys.argv[2])
    # Only the columns this file measured; the stall columns are warps stalled per issued
    # instruction (smsp__average_warps_issue_stalled_*_per_issue_active).
    columns = [c for c in COLUMNS
               if any(c[1] in metrics and metrics[c[1]] == metrics[c[1]] for metrics in table.values())]
    print("| stage | " + " | ".join(c[0] for c in columns) + " |")
    print("|--:|" + "--:|" * len(columns))
    for stage in sorted(table, key=int):
        cells = [fmt(table[stage][metric]) if metric in table[stage] else "–"
                 for _, metric, fmt in columns]
        print(f"| {stage} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
