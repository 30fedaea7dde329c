#!/usr/bin/env python3
"""Bus bandwidth against message size, one line per all-reduce stage, the measured link as a
dotted line: the figure chapter 7's README shows.

    chapters/07_multi_gpu/plot_busbw.py docs/results/<gpu>-x<G>/multi_gpu_allreduce.json

Writes multi_gpu_allreduce_busbw.png and .svg beside the JSON. Reproducible: the same JSON gives
the same bytes (no date in the files, fixed SVG ids). Needs matplotlib.
"""
import json
import pathlib
import re
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "cuda-step-by-step"
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402


def size_bytes(text):
    number, unit = text.split()
    return float(number) * {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[unit]


def main():
    path = pathlib.Path(sys.argv[1])
    doc = json.loads(path.read_text(encoding="utf-8"))
    series = {}
    for row in doc["rows"]:
        extra = row.get("extra", {})
        busbw = extra.get("busbw GB/s", "-")
        if row.get("median_ms") is None or busbw in ("-", "–"):
            continue
        stage = row["id"].split("@")[0]
        label = f"{stage}: {row['name']}"
        series.setdefault(label, []).append(
            (size_bytes(extra["size"]), float(busbw), 1000.0 * row["median_ms"]))
    if not series:
        print(f"{path}: no bus bandwidth to plot (one GPU?)")
        return 0
    link = None
    params = doc["run"].get("parameters", {})
    match = re.match(r"([\d.]+) GB/s", params.get("link (GPU 0 -> 1, measured)", ""))
    if match:
        link = float(match.group(1))
    fig, (ax, ax_time) = plt.subplots(1, 2, figsize=(12, 4.8))
    ticks = sorted({p[0] for points in series.values() for p in points})
    labels = [f"{int(t / 2**30)} GiB" if t >= 2**30 else f"{int(t / 2**20)} MiB"
              if t >= 2**20 else f"{int(t / 2**10)} KiB" for t in ticks]
    for label, points in series.items():
        points.sort()
        style = "--" if label.startswith("nccl") else "-"
        sizes = [p[0] for p in points]
        ax.plot(sizes, [p[1] for p in points], style, marker="o", label=label)
        ax_time.plot(sizes, [p[2] for p in points], style, marker="o", label=label)
    if link:
        ax.axhline(link, color="gray", linestyle=":", label=f"link, one way, measured ({link:.0f} GB/s)")
    for axis in (ax, ax_time):
        axis.set_xscale("log", base=2)
        axis.set_xticks(ticks)
        axis.set_xticklabels(labels, fontsize=8)
        axis.set_xlabel("message size per GPU")
        axis.grid(True, which="major", alpha=0.3)
    ax.set_ylabel("bus bandwidth, GB/s (higher is better)")
    ax_time.set_yscale("log")
    ax_time.set_ylabel("median time, microseconds (log; lower is better)")
    ax_time.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    run = doc["run"]
    fig.suptitle(f"all-reduce on {params.get('GPUs', '?')} x {run['gpu']}, "
                 f"NCCL {params.get('NCCL', '?')}, {run.get('timestamp', '')[:10]}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    stem = path.with_name(path.stem + "_busbw")
    fig.savefig(stem.with_suffix(".png"), dpi=110, metadata={})
    fig.savefig(stem.with_suffix(".svg"), metadata={"Date": None})
    print(f"wrote {stem}.png and .svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
