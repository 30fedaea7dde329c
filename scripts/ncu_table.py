#!/usr/bin/env python3
"""Turns `ncu --csv` output (one line per kernel launch and metric) into a table: one row per
kernel name (the first launch of each), one column per metric, with the textbook's nvprof names."""
import csv
import io
import re
import sys

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


def short_kernel_name(name):
    name = re.sub(r"\(.*$", "", name)          # drop the parameter list
    name = re.sub(r"<.*>", "<…>", name)         # and template arguments
    return name.split("::")[-1]


def main():
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        print("no ncu results found (did the program launch any kernel?)")
        return 1
    rows = list(csv.DictReader(io.StringIO(text[start:])))
    table, metrics, first_id = {}, [], {}
    for row in rows:
        kernel = short_kernel_name(row["Kernel Name"])
        first_id.setdefault(kernel, row["ID"])
        if row["ID"] != first_id[kernel]:
            continue
        metric = row["Metric Name"]
        if metric not in metrics:
            metrics.append(metric)
        unit = row.get("Metric Unit", "")
        table.setdefault(kernel, {})[metric] = f"{row['Metric Value']} {unit}".strip()
    header = ["kernel"] + [NVPROF_NAMES.get(m, m) for m in metrics]
    lines = [header] + [[k] + [v.get(m, "-") for m in metrics] for k, v in table.items()]
    widths = [max(len(line[c]) for line in lines) for c in range(len(header))]
    for i, line in enumerate(lines):
        print("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(line)))
        if i == 0:
            print("-" * (sum(widths) + 2 * (len(widths) - 1)))
    print("\nmetric names: " + ", ".join(f"{NVPROF_NAMES.get(m, m)} = {m}" for m in metrics))
    return 0


if __name__ == "__main__":
    sys.exit(main())
