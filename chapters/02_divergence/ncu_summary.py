#!/usr/bin/env python3
"""Summarizes Nsight Compute's text output for this chapter: one row per kernel (its last
launch, the timed one), one column per metric. Used to make
docs/results/nvidia-h100-80gb-hbm3/divergence_ncu_summary.txt from divergence_ncu.txt:

    python3 chapters/02_divergence/ncu_summary.py divergence_ncu.txt
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import ncu_csv  # noqa: E402  (the repository's one ncu parser)

COLUMNS = [
    ("gpu__time_duration.sum", "time us"),
    ("smsp__inst_executed.sum", "warp instructions"),
    ("smsp__sass_average_branch_targets_threads_uniform.pct", "branch uniform %"),
    ("smsp__sass_branch_targets_threads_divergent.sum", "divergent branches"),
    ("smsp__thread_inst_executed_per_inst_executed.ratio", "threads per instruction"),
]


def main(path):
    kernels = {}
    for name, values in ncu_csv.read_text_report(path).items():
        row = kernels[name.removesuffix("_kernel")] = {"grid": values.pop("grid"),
                                                       "block": values.pop("block")}
        for key, (unit, value) in values.items():
            if key == "gpu__time_duration.sum":  # ncu picks ns, us or ms: report microseconds
                value = f"{ncu_csv.number(value, unit) / 1e3:.2f}"
            row[key] = value
    rows = [["kernel", *[label for _, label in COLUMNS]]]
    for name, values in kernels.items():
        rows.append([name, *[values.get(key, "-") for key, _ in COLUMNS]])
    print("\n".join(ncu_csv.aligned(rows, left=1)))
    print()
    print("one row per kernel: its last launch (the timed one); grid x block of every launch: " +
          ", ".join(sorted({f"({v['grid']})x({v['block']})" for v in kernels.values()})))
    print("metrics: " + ", ".join(f"{label} = {key}" for key, label in COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
