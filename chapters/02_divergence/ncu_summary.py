#!/usr/bin/env python3
"""Summarizes Nsight Compute's text output for this chapter: one row per kernel (its last
launch, the timed one), one column per metric. Used to make
docs/results/nvidia-h100-80gb-hbm3/divergence_ncu_summary.txt from divergence_ncu.txt:

    python3 chapters/02_divergence/ncu_summary.py divergence_ncu.txt
"""
import re
import sys

COLUMNS = [
    ("gpu__time_duration.sum", "time us"),
    ("smsp__inst_executed.sum", "warp instructions"),
    ("smsp__sass_average_branch_targets_threads_uniform.pct", "branch uniform %"),
    ("smsp__sass_branch_targets_threads_divergent.sum", "divergent branches"),
    ("smsp__thread_inst_executed_per_inst_executed.ratio", "threads per instruction"),
]


def main(path):
    kernels = {}
    current = None
    header = re.compile(r"^  (?:\S*::)?(\w+)\(.*\) \((.*)\)x\((.*)\), Context")
    metric = re.compile(r"^    (\S+)\s+(?:(\S+)\s+)?([\d.,]+)$")
    to_us = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        match = header.match(line)
        if match:
            current = match.group(1).removesuffix("_kernel")
            kernels[current] = {"grid": match.group(2), "block": match.group(3)}
            continue
        match = metric.match(line)
        if match and current:
            name, unit, value = match.groups()
            if name == "gpu__time_duration.sum":  # ncu picks ns, us or ms: report microseconds
                value = f"{float(value.replace(',', '')) * to_us[unit]:.2f}"
            kernels[current][name] = value
    rows = [["kernel", *[label for _, label in COLUMNS]]]
    for name, values in kernels.items():
        rows.append([name, *[values.get(key, "-") for key, _ in COLUMNS]])
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    for i, row in enumerate(rows):
        print("  ".join(cell.ljust(widths[c]) if c == 0 else cell.rjust(widths[c])
                        for c, cell in enumerate(row)))
        if i == 0:
            print("-" * (sum(widths) + 2 * (len(widths) - 1)))
    print()
    print("one row per kernel: its last launch (the timed one); grid x block of every launch: " +
          ", ".join(sorted({f"({v['grid']})x({v['block']})" for v in kernels.values()})))
    print("metrics: " + ", ".join(f"{label} = {key}" for key, label in COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
