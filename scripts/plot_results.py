#!/usr/bin/env python3
"""Bar charts of the chapters' result tables, and a side-by-side comparison of several GPUs.

    scripts/plot_results.py plot docs/results/<gpu>            one PNG + SVG per results JSON
    scripts/plot_results.py compare docs/results/<gpu-a> docs/results/<gpu-b> [...] --out DIR
        for every results file the folders share: a Markdown table (ms, % of each GPU's own
        peak, x baseline within each run, and each GPU against the first, marked within noise
        or not) and a grouped bar chart, written to DIR

Reads the JSON that every chapter writes with --json (ResultTable::write_json). Needs matplotlib
(Debian: python3-matplotlib). The files are reproducible: the same results and matplotlib give
the same bytes (no date in the SVG metadata, fixed SVG ids), so re-plotting unchanged results
leaves git with nothing to commit.
"""
import argparse
import json
import pathlib
import sys


def load_results(folder):
    """{stem: document} for every ResultTable JSON in `folder`."""
    results = {}
    for path in sorted(pathlib.Path(folder).glob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            print(f"skipping {path}: {error}", file=sys.stderr)
            continue
        if isinstance(doc, dict) and "rows" in doc and "run" in doc:
            results[path.stem] = doc
    return results


def timed_rows(doc):
    return [row for row in doc["rows"] if row.get("median_ms") is not None]


def baseline_row(doc):
    return next((row for row in doc["rows"] if row["id"] == doc.get("baseline")), None)


# Fixed so that re-plotting unchanged results writes identical files: the SVG ids (clip paths,
# glyphs) are hashes salted with this instead of a random salt, and no file records a date.
SVG_HASH_SALT = "cuda-step-by-step"
SAVE_METADATA = {"svg": {"Date": None}, "png": {}}


def save(fig, path, suffix):
    fig.savefig(path, dpi=110, metadata=SAVE_METADATA[suffix])


def wrap_parameters(params, width=110):
    """"k v, k v, ..." lines of at most `width` characters, never splitting one "k v" item (a
    long item, or one holding a '-' such as "expected sum (mod 2^32) -1946741488", stays whole)."""
    lines, line = [], ""
    for item in (f"{k} {v}" for k, v in params.items()):
        candidate = f"{line}, {item}" if line else item
        if line and len(candidate) > width:
            lines.append(line + ",")
            line = item
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


def readable_log_ticks(axis, plt):
    """Plain numbers on a log axis ("0.06", not 6x10^-2), labelling the 2x and 5x minor ticks
    too: enough to read a bar, not a crowd of digits."""
    axis.set_major_formatter(plt.FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(plt.FuncFormatter(
        lambda value, _: f"{value:g}" if f"{value:.0e}"[0] in "25" else ""))


def row_label(row):
    """A row as the tables show it: id and stage name ("3 sequential_addressing")."""
    return f"{row['id']} {row['name']}" if row.get("name") else str(row["id"])


def plot_one(stem, doc, out_dir, plt):
    rows = timed_rows(doc)
    if not rows:
        return []
    labels = [row_label(row) for row in rows]
    colors = ["#4c72b0" if row["passed"] else "#c44e52" for row in rows]
    base = baseline_row(doc)
    has_peak = any(row.get("percent_of_peak") is not None for row in rows)
    panels = 2 if has_peak else 1
    fig, axes = plt.subplots(1, panels, figsize=(6.5 * panels, 0.38 * len(rows) + 1.8),
                             squeeze=False)
    positions = range(len(rows))
    ax = axes[0][0]
    ax.barh(positions, [row["median_ms"] for row in rows], color=colors)
    ax.set_yticks(list(positions), labels)
    ax.invert_yaxis()
    ax.set_xscale("log")
    readable_log_ticks(ax.xaxis, plt)
    ax.tick_params(axis="x", which="minor", labelsize="x-small")
    ax.set_xlabel("median time, ms (log scale; lower is better)")
    if base and base.get("median_ms"):
        label = "CUB" if base["id"] == "cub" else base["name"]
        ax.axvline(base["median_ms"], color="#dd8452", linestyle="--", label=label)
        ax.legend(loc="lower right", fontsize="small")
    if has_peak:
        ax = axes[0][1]
        ax.barh(positions, [row.get("percent_of_peak") or 0 for row in rows], color=colors)
        ax.set_yticks(list(positions), [""] * len(rows))
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of theoretical DRAM bandwidth (higher is better)")
        if base and base.get("percent_of_peak"):
            ax.axvline(base["percent_of_peak"], color="#dd8452", linestyle="--")
    run = doc["run"]
    fig.suptitle(f"{doc['program']}: {run['gpu']}, CUDA {run['cuda_runtime']}\n" +
                 "\n".join(wrap_parameters(run.get("parameters", {}))), fontsize="medium")
    fig.tight_layout()
    written = []
    for suffix in ("png", "svg"):
        path = out_dir / f"{stem}.{suffix}"
        save(fig, path, suffix)
        written.append(path)
    plt.close(fig)
    return written


def versus(first, other):
    """How `other` compares with `first` (two rows of the same id on two GPUs or runs), as
    nvbench's compare says it: the ratio of medians, and whether the difference is beyond noise.
    Noise is read off the runs themselves: when the min-max ranges of the two overlap, the
    difference is within what either run varied by, and is reported as "same"."""
    if not first or not other or first.get("median_ms") is None or other.get("median_ms") is None:
        return "–"
    ratio = first["median_ms"] / other["median_ms"]
    overlap = (first.get("min_ms", first["median_ms"]) <= other.get("max_ms", other["median_ms"])
               and other.get("min_ms", other["median_ms"]) <= first.get("max_ms", first["median_ms"]))
    if overlap:
        return f"{ratio:.2f}× same (within noise)"
    return f"{ratio:.2f}× {'faster' if ratio > 1 else 'slower'}"


def clocks_line(doc):
    clocks = doc["run"].get("clocks")
    if not clocks:
        return f"- {doc['run']['gpu']}: clocks not recorded"
    sm = (f"{clocks['sm_mhz_min']}" if clocks["sm_mhz_min"] == clocks["sm_mhz_max"]
          else f"{clocks['sm_mhz_min']}-{clocks['sm_mhz_max']}")
    return (f"- {doc['run']['gpu']}: SM {sm} MHz, memory {clocks['memory_mhz_max']} MHz during "
            f"timing, throttling: {clocks['throttle']}")


def comparison_table(stem, docs):
    """Markdown: one row per kernel id; per GPU (or run) the median ms, % of its own peak and the
    ratio to the baseline measured in the same run; for every GPU after the first, how it
    compares with the first, marked within noise or not (see versus)."""
    gpus = [doc["run"]["gpu"] for doc in docs]
    ids = []
    names = {}
    for doc in docs:
        for row in doc["rows"]:
            if row["id"] not in ids:
                ids.append(row["id"])
                names[row["id"]] = row["name"]
    has_peak = any(row.get("percent_of_peak") is not None for doc in docs for row in doc["rows"])
    has_baseline = any(baseline_row(doc) for doc in docs)
    header = ["id", "kernel"]
    for index, gpu in enumerate(gpus):
        header += [f"{gpu} ms"]
        header += [f"{gpu} % peak"] if has_peak else []
        header += [f"{gpu} × baseline"] if has_baseline else []
        header += [f"{gpu} vs {gpus[0]}"] if index > 0 else []
    lines = [f"### {stem}", ""] + [clocks_line(doc) for doc in docs] + [
        "", "| " + " | ".join(header) + " |", "|" + "|".join(["--"] * len(header)) + "|"]
    for row_id in ids:
        cells = [row_id, f"`{names[row_id]}`"]
        rows = [next((r for r in doc["rows"] if r["id"] == row_id), None) for doc in docs]
        for index, row in enumerate(rows):
            ms = row.get("median_ms") if row else None
            pct = row.get("percent_of_peak") if row else None
            base = row.get("speedup_vs_baseline") if row else None
            cells.append(f"{ms:.4g}" if ms is not None else "–")
            if has_peak:
                cells.append(f"{pct:.1f}" if pct is not None else "–")
            if has_baseline:
                cells.append(f"{base:.2f}" if base is not None else "–")
            if index > 0:
                cells.append(versus(rows[0], row))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_comparison(stem, docs, out_dir, plt):
    """Grouped bars, one colour per GPU, one group per stage (labelled "id name"): median time,
    and % of each GPU's own peak when the table has a bandwidth column at all."""
    rows = timed_rows(docs[0])
    ids = [row["id"] for row in rows]
    labels = [row_label(row) for row in rows]
    has_peak = any((row.get("percent_of_peak") is not None) for doc in docs for row in doc["rows"]
                   if row["id"] in ids)
    panels = 2 if has_peak else 1
    width = 0.8 / len(docs)
    fig, axes = plt.subplots(1, panels, figsize=(6.5 * panels + 1.5,
                                                 0.45 * len(ids) * len(docs) / 1.5 + 2),
                             squeeze=False)
    axes = axes[0]
    for k, doc in enumerate(docs):
        by_id = {row["id"]: row for row in doc["rows"]}
        ys = [i + k * width for i in range(len(ids))]
        ms = [(by_id.get(i) or {}).get("median_ms") or 0 for i in ids]
        axes[0].barh(ys, ms, height=width, label=doc["run"]["gpu"])
        if has_peak:
            pct = [(by_id.get(i) or {}).get("percent_of_peak") or 0 for i in ids]
            axes[1].barh(ys, pct, height=width, label=doc["run"]["gpu"])
    for n, ax in enumerate(axes):
        ax.set_yticks([i + 0.4 - width / 2 for i in range(len(ids))],
                      labels if n == 0 else [""] * len(ids))
        ax.invert_yaxis()
    axes[0].set_xscale("log")
    readable_log_ticks(axes[0].xaxis, plt)
    axes[0].tick_params(axis="x", which="minor", labelsize="x-small")
    axes[0].set_xlabel("median time, ms (log scale; lower is better)")
    if has_peak:
        axes[1].set_xlabel("% of each GPU's own theoretical DRAM bandwidth (higher is better)")
        axes[1].set_xlim(0, 100)
    # One legend for the figure, between the title and the panels, where no bar can hide it.
    handles, names = axes[0].get_legend_handles_labels()
    fig.suptitle(f"{stem}: the same stages on {len(docs)} GPUs", y=0.995)
    fig.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, 0.965),
               ncol=min(len(docs), 3), fontsize="small", frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.94 - 0.02 * ((len(docs) - 1) // 3)))
    written = []
    for suffix in ("png", "svg"):
        path = out_dir / f"compare_{stem}.{suffix}"
        save(fig, path, suffix)
        written.append(path)
    plt.close(fig)
    return written


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.hashsalt"] = SVG_HASH_SALT
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        sys.exit("matplotlib is missing: install python3-matplotlib (make deps)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    plot = sub.add_parser("plot", help="bar charts for one results folder")
    plot.add_argument("folder")
    compare = sub.add_parser("compare", help="compare several results folders")
    compare.add_argument("folders", nargs="+")
    compare.add_argument("--out", required=True)
    args = parser.parse_args()

    if args.command == "plot":
        results = load_results(args.folder)
        if not results:
            sys.exit(f"no result JSON files in {args.folder}")
        plt = import_pyplot()
        for stem, doc in results.items():
            for path in plot_one(stem, doc, pathlib.Path(args.folder), plt):
                print(path)
        return 0

    if len(args.folders) < 2:
        sys.exit("compare needs at least two results folders")
    loaded = [load_results(folder) for folder in args.folders]
    shared = [stem for stem in loaded[0] if all(stem in other for other in loaded[1:])]
    if not shared:
        sys.exit("the folders share no result files")
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    plt = import_pyplot()
    markdown = ["# Comparison", "",
                "Median milliseconds (lower is better), % of each GPU's own theoretical DRAM "
                "bandwidth (higher is better) where the table has one, and × baseline: the "
                "baseline's median over the row's, both measured in the same run (> 1: faster "
                "than CUB or NCCL on that GPU). \"vs\" divides the first GPU's median by this "
                "one's (> 1: faster) and says whether the difference is beyond noise: when the "
                "two runs' min–max ranges overlap, it is within what either run varied by. Each "
                "section lists the clocks NVML saw during timing.", ""]
    for stem in shared:
        docs = [results[stem] for results in loaded]
        markdown.append(comparison_table(stem, docs))
        for path in plot_comparison(stem, docs, out_dir, plt):
            print(path)
    (out_dir / "comparison.md").write_text("\n".join(markdown), encoding="utf-8")
    print(out_dir / "comparison.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
