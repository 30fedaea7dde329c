#!/usr/bin/env python3
"""Time and rate against the number of SMs, from the table of `execution_model --section
scaling`: the figure chapter 1's README shows for transparent scalability.

    chapters/01_execution_model/sm_scaling_plot.py docs/results/<gpu>/execution_model_scaling.json

Writes execution_model_scaling_sms.png and .svg beside the JSON. Left: median time per
partition, with the time perfect scaling would give (the smallest partition's time x its SMs /
SMs). Right: the matrix sum's GB/s (left axis, with the theoretical DRAM bandwidth) and the FMA
loop's GFLOP/s (right axis), each with its perfect-scaling line. Reproducible: the same JSON
gives the same bytes (no date in the files, fixed SVG ids). Needs matplotlib.
"""
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "cuda-step-by-step"
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

KERNELS = {  # id prefix: (label, colour, rate column, rate unit)
    "sum": ("sum_matrix_2d (memory-bound)", "#4c72b0", "gbs", "GB/s"),
    "fma": ("fma_chains (compute-bound)", "#dd8452", "GFLOP/s", "GFLOP/s"),
}


def series(doc):
    """{prefix: [(sms, median ms, rate)]} over the timed, verified rows, sorted by SMs."""
    found = {}
    for row in doc["rows"]:
        prefix = row["id"].split("@")[0]
        if prefix not in KERNELS or row.get("median_ms") is None or not row["passed"]:
            continue
        extra = row.get("extra", {})
        column = KERNELS[prefix][2]
        rate = row.get("gbs") if column == "gbs" else float(extra.get(column, "nan"))
        found.setdefault(prefix, []).append((int(extra["SMs"]), row["median_ms"], rate))
    for points in found.values():
        points.sort()
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = pathlib.Path(sys.argv[1])
    doc = json.loads(path.read_text(encoding="utf-8"))
    data = series(doc)
    if not data:
        print(f"{path}: no verified scaling rows to plot")
        return 1
    fig, (ax_time, ax_rate) = plt.subplots(1, 2, figsize=(12, 4.8))
    ax_flops = ax_rate.twinx()
    # Every other partition and the whole GPU: 128 and 132 would print on top of each other.
    sizes = sorted({p[0] for points in data.values() for p in points})
    ticks = sorted(set(sizes[::2] + sizes[-1:]))
    for prefix, points in data.items():
        label, colour, _, unit = KERNELS[prefix]
        sms = [p[0] for p in points]
        base_sms, base_ms, base_rate = points[0]
        ax_time.plot(sms, [p[1] for p in points], marker="o", color=colour, label=label)
        ax_time.plot(sms, [base_ms * base_sms / s for s in sms], ":", color=colour,
                     label=f"{label.split()[0]}, perfect scaling")
        axis = ax_rate if prefix == "sum" else ax_flops
        axis.plot(sms, [p[2] for p in points], marker="o", color=colour, label=f"{label}, {unit}")
        axis.plot(sms, [base_rate * s / base_sms for s in sms], ":", color=colour)
        axis.set_ylabel(f"{label.split()[0]}: {unit} (higher is better)", color=colour)
        axis.set_ylim(bottom=0)
    peak = doc["run"].get("peak_gbs")
    if peak and "sum" in data:
        ax_rate.axhline(peak, color="gray", linestyle="--",
                        label=f"theoretical DRAM bandwidth ({peak:.0f} GB/s)")
        ax_rate.set_ylim(0, peak * 1.15)
    ax_time.set_yscale("log")
    ax_time.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax_time.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: f"{v:g}" if f"{v:.0e}"[0] in "25" else ""))
    ax_time.set_ylabel("median time, ms (log; lower is better)")
    for axis in (ax_time, ax_rate):
        axis.set_xticks(ticks)
        axis.set_xticklabels([str(t) for t in ticks], fontsize=7)
        axis.set_xlabel("SMs in the green context")
        axis.grid(True, which="major", alpha=0.3)
    ax_time.legend(fontsize=8)
    handles, labels = ax_rate.get_legend_handles_labels()
    more_handles, more_labels = ax_flops.get_legend_handles_labels()
    ax_rate.legend(handles + more_handles, labels + more_labels, fontsize=8, loc="lower right")
    run = doc["run"]
    fig.suptitle(f"the same grids on partitions of the SMs: {run['gpu']} ({run['sm_count']} SMs), "
                 f"CUDA {run['cuda_runtime']}, {run.get('timestamp', '')[:10]}; "
                 "dotted: perfect scaling from the smallest partition", fontsize="medium")
    fig.tight_layout()
    stem = path.with_name(path.stem + "_sms")
    fig.savefig(stem.with_suffix(".png"), dpi=110, metadata={})
    fig.savefig(stem.with_suffix(".svg"), metadata={"Date": None})
    print(f"wrote {stem}.png and .svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
