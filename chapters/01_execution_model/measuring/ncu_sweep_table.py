#!/usr/bin/env python3
"""Turns the CSV of `ncu --csv --section Occupancy --metrics ...` over the matrix-sum sweep
(see ./execution_model --profile-help) into one row per block shape (its last launch, the timed
one). Used to make docs/results/nvidia-h100-80gb-hbm3/execution_model_ncu.txt:

    python3 chapters/01_execution_model/measuring/ncu_sweep_table.py execution_model_ncu.csv
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
import ncu_csv  # noqa: E402  (the repository's one ncu parser)

COLUMNS = [
    ("gpu__time_duration.sum", "time us", lambda v: f"{float(v) / 1000:.1f}"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM % of peak", None),
    ("Theoretical Occupancy", "theoretical occ. %", None),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occ. %", None),
    ("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "gld efficiency %", None),
    ("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second", "gld GB/s",
     lambda v: f"{float(v) / 1e9:.0f}"),
    ("Block Limit Warps", "block limit warps", None),
    ("Block Limit SM", "block limit SM", None),
    ("Block Limit Registers", "block limit regs", None),
    # Latency hiding, per scheduler (4 per SM): resident warps, warps ready to issue, and the
    # share of cycles in which an instruction was issued. Shown when the CSV has them.
    ("smsp__warps_active.avg.per_cycle_active", "warps/scheduler", None),
    ("smsp__warps_eligible.avg.per_cycle_active", "eligible/scheduler", None),
    ("smsp__issue_active.avg.pct_of_peak_sustained_active", "issue active %", None),
]


def main(path):
    # one row per block shape: its last launch (the timed one)
    last = ncu_csv.one_launch_each(ncu_csv.rows(path), key=lambda row: row["Block Size"],
                                   which="last")
    if not last:
        print("no ncu rows found")
        return 1
    columns = [c for c in COLUMNS if any(c[0] in launch for launch in last.values())]
    rows = [["block", "grid", *[label for _, label, _ in columns]]]
    for block, launch in last.items():
        shape = "(" + ",".join(block.strip("()").split(", ")[:2]) + ")"
        grid = next(iter(launch.values()))["Grid Size"].strip("()").split(", ")
        cells = [shape, f"{grid[0]} x {grid[1]}"]
        for key, _, fmt in columns:
            value = launch[key]["Metric Value"].replace(",", "") if key in launch else "-"
            cells.append(fmt(value) if fmt and value != "-" else value)
        rows.append(cells)
    print("\n".join(ncu_csv.aligned(rows, left=2)))
    print()
    print("one row per block shape: its last launch (the timed one); ncu --clock-control none")
    print("metrics: " + ", ".join(f"{label} = {key}" for key, label, _ in columns))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
