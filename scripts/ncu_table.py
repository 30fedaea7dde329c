#!/usr/bin/env python3
"""Turns `ncu --csv` output (one line per kernel launch and metric) into a table: one row per
kernel name (the first launch of each), one column per metric, with the textbook's nvprof names."""
import sys

import ncu_csv

NVPROF_NAMES = {
    "smsp__sass_average_branch_targets_threads_uniform.pct": "branch_eff %",
    "smsp__thread_inst_executed_per_inst_executed.ratio": "warp_exec_eff (of 32)",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occ %",
    "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second": "gld_throughput",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct": "gld_eff %",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shm ld conflicts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shm st conflicts",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram %",
    "gpu__time_duration.sum": "time",
}


def main():
    table = ncu_csv.one_launch_each(
        ncu_csv.rows(sys.argv[1]),
        key=lambda row: ncu_csv.short_kernel_name(row["Kernel Name"], templates="<…>"))
    if not table:
        print("no ncu results found (did the program launch any kernel?)")
        return 1
    metrics = list(dict.fromkeys(m for launch in table.values() for m in launch))
    header = ["kernel"] + [NVPROF_NAMES.get(m, m) for m in metrics]
    lines = [header] + [[k] + [value(launch[m]) if m in launch else "-" for m in metrics]
                        for k, launch in table.items()]
    print("\n".join(ncu_csv.aligned(lines, left=len(header))))
    print("\nmetric names: " + ", ".join(f"{NVPROF_NAMES.get(m, m)} = {m}" for m in metrics))
    return 0


def value(row):
    return f"{row['Metric Value']} {row.get('Metric Unit', '')}".strip()


if __name__ == "__main__":
    sys.exit(main())
