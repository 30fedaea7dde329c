"""Chapter 7's all-reduce against message size: bus bandwidth (one figure) and time (another),
a line per stage and NCCL dashed as the baseline, at most four stages and NCCL in a panel."""
import re

from .results import footer_lines, number, size_bytes, size_name, table_words
from .style import (BASELINE_COLOUR, MAX_SERIES, REFERENCE_COLOUR, SERIES_STYLES, Figure,
                    balanced_chunks, finish_with_points, log_ticks)

def busbw_series(doc):
    """{(stage, name): [(bytes, busbw GB/s, median µs)]} over an all-reduce table."""
    series = {}
    for row in doc["rows"]:
        extra = row.get("extra", {})
        busbw = extra.get("busbw GB/s", "-")
        # The size is the row's group (older tables: a "size" column, the id "3@1.0 KiB").
        size_text = extra.get("size", row.get("group"))
        if row.get("median_ms") is None or number(busbw) is None or size_text is None:
            continue
        try:
            size = size_bytes(size_text)
        except (KeyError, ValueError, TypeError):
            continue
        stage = str(row["id"]).split("@")[0]
        series.setdefault((stage, row["name"]), []).append(
            (size, float(busbw), 1000.0 * row["median_ms"]))
    for points in series.values():
        points.sort()
    return series


def is_busbw_sweep(doc):
    series = busbw_series(doc)
    return len(series) >= 2 and sum(len(points) >= 3 for points in series.values()) >= 2


def link_rate(doc):
    params = doc["run"].get("parameters", {})
    match = re.match(r"([\d.]+) GB/s", params.get("link (GPU 0 -> 1, measured)", ""))
    return float(match.group(1)) if match else None


def sweep_figure(plt, docs, labels, what):
    """Bus bandwidth ('busbw') or time ('time') against message size per GPU."""
    from matplotlib.lines import Line2D
    doc = docs[0]
    series = busbw_series(doc)
    params = doc["run"].get("parameters", {})
    batch = params.get("calls per sample", "")
    stages = [key for key in series if key[0].lower() != "nccl"]
    nccl = [key for key in series if key[0].lower() == "nccl"]
    groups = balanced_chunks(stages, MAX_SERIES - len(nccl[:1]))
    qualifier = doc.get("_qualifier")
    title = (f"All-reduce on {labels[0]}" + (f", {qualifier}" if qualifier else "") + ": " +
             ("bus bandwidth against message size" if what == "busbw"
              else "time per all-reduce against message size"))
    figure = Figure(plt, title, f"{table_words(doc)}; NCCL {params.get('NCCL', '?')}"
                    + (f"; {batch.split(',')[0]} calls per sample" if batch else ""),
                    footer_lines(docs, labels), ncols=len(groups), sharey=True)
    sizes = sorted({p[0] for points in series.values() for p in points})
    link = link_rate(doc)
    legend = {}
    index = {key: i for i, key in enumerate(stages)}
    top = max(p[1] for points in series.values() for p in points)
    for ax, group in zip(figure.axes, groups):
        points = []
        for key in group + nccl[:1]:
            baseline = key in nccl
            colour, marker = ((BASELINE_COLOUR, "D") if baseline else
                              SERIES_STYLES[index[key] % len(SERIES_STYLES)])
            style = dict(color=colour, linestyle="--" if baseline else "-",
                         linewidth=2.8 if baseline else 2.2, marker=marker, markersize=7)
            xs = [p[0] for p in series[key]]
            ys = [p[1] if what == "busbw" else p[2] for p in series[key]]
            line = ax.plot(xs, ys, **style)[0]
            figure.marks.append(("baseline" if baseline else "stage", line, None, "line"))
            # Near zero a bus bandwidth says nothing (the time figure does): no label there.
            for x, y in zip(xs, ys):
                if what == "time" or y >= 0.05 * top:
                    points.append((x, y, f"{y:.0f}" if y >= 10 else f"{y:.1f}", colour, 0))
            if key not in legend:
                legend[key] = (Line2D([0], [0], **style),
                               f"{key[0]}: {key[1]}" + (" (baseline)" if baseline else ""))
        ax._ct_points = points
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        ax.set_xticklabels([size_name(s).replace(".0 ", " ") for s in sizes])
        ax.set_xlim(sizes[0] / 2.5, sizes[-1] * 2.5)
        ax._ct_thin_x = True
        ax.set_xlabel("message size per GPU (log scale)")
        ax.grid(True, which="major", alpha=0.3)
        if what == "busbw" and link:
            ax.axhline(link, color=REFERENCE_COLOUR, linestyle=":", linewidth=1.8)
    handles = [legend[key][0] for key in stages + nccl[:1]]
    names = [legend[key][1] for key in stages + nccl[:1]]
    values = [p[1] if what == "busbw" else p[2] for points in series.values() for p in points]
    ax = figure.axes[0]
    if what == "busbw":
        ax.set_ylim(0, max(values + [link or 0]) * 1.15)
        ax.set_ylabel("bus bandwidth, GB/s\n(higher is better)")
        if link:
            handles.append(Line2D([0], [0], color=REFERENCE_COLOUR, linestyle=":"))
            names.append(f"the link, one way, measured ({link:.0f} GB/s)")
    else:
        for panel in figure.axes:
            panel.set_yscale("log")
            panel.set_ylim(min(values) / 1.5, max(values) * 1.8)
            log_ticks(plt, panel, "y", min(values) / 1.5, max(values) * 1.8)
        ax.set_ylabel("median time, µs\n(log scale; lower is better)")
    figure.add_legend(handles, names)
    return finish_with_points(figure)


def busbw_figure(plt, docs, labels):
    return sweep_figure(plt, docs, labels, "busbw")


def latency_figure(plt, docs, labels):
    return sweep_figure(plt, docs, labels, "time")
