"""Sweeps as lines: rate against SMs (chapter 1), % of peak against the block shape (chapter 1),
bandwidth against the number of bins (chapter 5), and the reduction's stages as a staircase of %
of peak (chapter 3). At most five series in a panel; the rest go to another panel."""
import math
import re
import textwrap

from .results import (base_words, baseline_row, fastest_ids, figure_title, footer_lines,
                      number, role, row_base_id, row_group, row_key, row_noun, table_words)
from .style import (BASELINE_COLOUR, DPI, GPU_COLOURS, MAX_SERIES, MIN_TEXT_PX,
                    REFERENCE_COLOUR, SERIES_STYLES, STAGE_COLOUR, STAR_LEGEND, TICK_PT, VALUE_PT,
                    WRONG_COLOUR, WRONG_WORDS, Figure, balanced_chunks, finish_with_points,
                    log_ticks, star_style)


def scaling_series(doc):
    """{prefix: (name, unit, [(SMs, rate)])} over the verified rows of a scaling table."""
    found = {}
    for row in doc["rows"]:
        extra = row.get("extra", {})
        if "SMs" not in extra or row.get("median_ms") is None or not row.get("passed", True):
            continue
        prefix = row["id"].split("@")[0]
        if row.get("gbs") is not None:
            unit, rate = "GB/s", row["gbs"]
        else:
            unit = next((key for key in extra if key.endswith("/s") and number(extra[key])),
                        None)
            if unit is None:
                continue
            rate = number(extra[unit])
        entry = found.setdefault(prefix, (row["name"], unit, []))
        entry[2].append((int(number(extra["SMs"])), rate))
    for _, _, points in found.values():
        points.sort()
    return found


def is_scaling(doc):
    return len(scaling_series(doc)) > 0 and all(len(p) >= 3 for _, _, p in
                                                scaling_series(doc).values())


def scaling_figure(plt, docs, labels):
    """Rate against SMs, one panel per kernel, ideal linear scaling from the smallest partition
    dashed, the theoretical DRAM bandwidth dotted."""
    from matplotlib.lines import Line2D
    data = [scaling_series(doc) for doc in docs]
    prefixes = [p for p in data[0] if all(p in d for d in data)]
    figure = Figure(plt, figure_title(docs[0], "the same grid on more SMs"),
                    f"{' against '.join(labels)}: rate against SMs in the partition (green "
                    "contexts); dashed: ideal linear scaling from the smallest partition",
                    footer_lines(docs, labels), ncols=len(prefixes))
    for ax, prefix in zip(figure.axes, prefixes):
        name, unit, _ = data[0][prefix]
        kind = "memory-bound" if unit == "GB/s" else "compute-bound"
        points, top = [], 0
        for k, (doc, series) in enumerate(zip(docs, data)):
            colour = GPU_COLOURS[k % len(GPU_COLOURS)]
            _, _, found = series[prefix]
            sms, rates = [p[0] for p in found], [p[1] for p in found]
            line = ax.plot(sms, rates, "-o", color=colour, linewidth=2.4, markersize=7,
                           zorder=3)[0]
            ax.plot(sms, [rates[0] * s / sms[0] for s in sms], "--", color=colour,
                    linewidth=1.5, alpha=0.8, zorder=2)
            top = max(top, max(rates))
            peak = doc["run"].get("peak_gbs")
            if unit == "GB/s" and peak:
                ax.axhline(peak, color=colour, linestyle=":", linewidth=1.8)
                top = max(top, peak)
            # Every other partition says its value: 17 labels a line would cover the line.
            for index, (s, v) in enumerate(zip(sms, rates)):
                if index % 2 == 0 or index == len(sms) - 1:
                    points.append((s, v, f"{v:.0f}", colour, 0 if k % 2 == 0 else 1))
            figure.marks.append(("stage", line, None, "line"))
        largest = max(p[0] for p in data[0][prefix][2])
        ax.set_ylim(0, top * 1.22)
        ax.set_xlim(0, largest * 1.06)
        ax.set_xticks([t for t in range(0, largest, 32) if largest - t >= 16] + [largest])
        ax.set_xlabel("SMs in the partition")
        ax.set_ylabel(f"{unit} (higher is better)")
        ax.set_title(f"{name} ({kind})")
        ax.grid(True, alpha=0.3)
        ax._ct_points = points
    handles = [Line2D([0], [0], color=GPU_COLOURS[k], marker="o", linewidth=2.4)
               for k in range(len(docs))]
    handles.append(Line2D([0], [0], color=REFERENCE_COLOUR, linestyle="--"))
    names = list(labels) + ["ideal linear scaling"]
    peaks = [(label, doc["run"].get("peak_gbs")) for label, doc in zip(labels, docs)]
    if any(peak for _, peak in peaks):
        handles.append(Line2D([0], [0], color=REFERENCE_COLOUR, linestyle=":"))
        names.append("theoretical DRAM bandwidth (" + ", ".join(
            f"{label} {peak:.0f}" for label, peak in peaks if peak) + " GB/s)")
    figure.add_legend(handles, names)
    return finish_with_points(figure)


BLOCK_NAME = re.compile(r"block \((\d+),\s*(\d+)\)")


def is_block_sweep(doc):
    return sum(bool(BLOCK_NAME.search(row.get("name", ""))) for row in doc["rows"]) >= 4


def block_shape(row):
    match = BLOCK_NAME.search(row.get("name", ""))
    return (int(match.group(1)), int(match.group(2))) if match else None


def block_sweep_figure(plt, docs, labels):
    """% of peak against blockDim.x, one line per block size (threads per block): at the same
    size, wider rows read more contiguous bytes per warp. One panel per GPU."""
    from matplotlib.lines import Line2D
    doc = docs[0]
    use_peak = any(r.get("percent_of_peak") is not None for r in doc["rows"])
    shapes = [block_shape(r) for d in docs for r in d["rows"] if block_shape(r)]
    widths = sorted({x for x, _ in shapes})
    sizes = sorted({x * y for x, y in shapes})
    timed = {block_shape(r)[0] * block_shape(r)[1] for d in docs for r in d["rows"]
             if block_shape(r) and r.get("median_ms") is not None}
    values = [r.get("percent_of_peak") if use_peak else r.get("gbs")
              for d in docs for r in d["rows"] if block_shape(r)]
    values = [v for v in values if v is not None]
    low = max(0, math.floor((min(values) - 12) / 10) * 10) if use_peak else 0
    figure = Figure(plt, figure_title(doc, "bandwidth against block shape"),
                    f"{' against '.join(labels)}: {table_words(doc)}; one line per block "
                    "size, wider blocks to the right", footer_lines(docs, labels),
                    ncols=len(docs), sharey=True)
    palette = ["#8172b3", "#4c72b0", "#55a868", "#937860", "#c44e52", "#64b5cd"]
    for k, (ax, d) in enumerate(zip(figure.axes, docs)):
        points = []
        star, _ = fastest_ids(d)
        for s_index, size in enumerate(sizes):
            colour = palette[s_index % len(palette)]
            xs, ys = [], []
            for row in d["rows"]:
                shape = block_shape(row)
                if not shape or shape[0] * shape[1] != size:
                    continue
                x = widths.index(shape[0])
                value = row.get("percent_of_peak") if use_peak else row.get("gbs")
                if value is None or row.get("median_ms") is None:
                    mark = ax.plot([x], [low], marker="X", markersize=16, color=WRONG_COLOUR,
                                   linestyle="none", zorder=4, clip_on=False)[0]
                    why = row.get("extra", {}).get("limited by", "not timed")
                    words = f"({shape[0]},{shape[1]}): {why}"
                    label = ax.annotate(words, (x, low), xytext=(-12, 10),
                                        textcoords="offset points", ha="right",
                                        fontsize=VALUE_PT, color="#444444")
                    figure.marks.append((role(row, d), mark, label, "dots"))
                    continue
                xs.append(x)
                ys.append(value)
                points.append((x, value, f"{value:.1f}" if use_peak else f"{value:.0f}",
                               colour, 0))
                if row_key(row) in star:
                    figure.stars.append((row_key(row), ax.plot([x], [value],
                                                               **star_style(colour))[0]))
            if xs:
                xs, ys = zip(*sorted(zip(xs, ys)))
                line = ax.plot(xs, ys, "-o", color=colour, linewidth=2.4, markersize=8,
                               zorder=3)[0]
                figure.marks.append(("stage", line, None, "line"))
        ax._ct_points = points
        ax.set_xticks(range(len(widths)))
        ax.set_xticklabels([str(w) for w in widths])
        ax.set_xlim(-0.4, len(widths) - 0.6)
        ax.set_xlabel("blockDim.x (threads along a row)")
        if use_peak:
            ax.set_ylim(low, 100)
            ax.set_ylabel("% of theoretical DRAM bandwidth (higher is better)"
                          + (f"\naxis from {low}%" if low else ""))
        else:
            ax.set_ylabel("GB/s (higher is better)")
        if len(docs) > 1:
            ax.set_title(labels[k])
        ax.grid(True, alpha=0.3)
    handles = [Line2D([0], [0], color=palette[i % len(palette)], marker="o", linewidth=2.4)
               for i, size in enumerate(sizes) if size in timed]
    names = [f"{size} threads per block" for size in sizes if size in timed]
    handles.append(Line2D([0], [0], **star_style(palette[0])))
    names.append(STAR_LEGEND)
    if any(role(r, d) == "expected failure" for d in docs for r in d["rows"]):
        handles.append(Line2D([0], [0], marker="X", color=WRONG_COLOUR, linestyle="none",
                              markersize=12))
        names.append(f"{WRONG_WORDS}: not launchable")
    figure.add_legend(handles, names)
    return finish_with_points(figure)


def bin_series(doc):
    """{kernel key: (name, [(bins, GB/s)])} over a wide histogram table: rows grouped by bin
    count (group "4096", id "private"; older tables: the id '4096:private')."""
    found = {}
    for row in doc["rows"]:
        bins = row_group(row)
        if not bins or not bins.isdigit() or row.get("gbs") is None:
            continue
        found.setdefault(row_base_id(row), (row["name"], []))[1].append((int(bins), row["gbs"]))
    return {key: value for key, value in found.items() if len(value[1]) >= 2}


def is_bin_sweep(doc):
    return len(bin_series(doc)) >= 2


def skipped_points(doc):
    """{kernel key: (bins, why)} of the sweep points the program skipped (its notes)."""
    found = {}
    for note in doc.get("notes", []):
        match = re.match(r"skipped (\d+):(\w+): (.*)", note)
        if match:
            found[match.group(2)] = (int(match.group(1)), match.group(3))
    return found


def bin_sweep_figure(plt, docs, labels):
    """GB/s against the number of bins, one line per kernel, CUB dashed; a row of panels per
    group of at most four kernels (and CUB in each), a column per GPU. Both axes span decades:
    log scales, labelled at every step."""
    from matplotlib.lines import Line2D
    doc = docs[0]
    keys = [key for key in bin_series(doc) if key != "cub"]
    groups = balanced_chunks(keys, MAX_SERIES - 1)
    has_cub = "cub" in bin_series(doc)
    skipped = {key: why for d in docs for key, why in skipped_points(d).items()}
    short = {key: bin_series(doc)[key][0].replace("wide_", "") for key in keys}
    notes = [f"{short[key]} stops before {bins:,} bins: {why.split(': ', 1)[-1]}"
             for key, (bins, why) in skipped.items() if key in short]
    figure = Figure(plt, figure_title(doc, "bandwidth against the number of bins"),
                    f"{' against '.join(labels)}: {table_words(doc)}; higher is better",
                    footer_lines(docs, labels, extra=notes), nrows=len(groups), ncols=len(docs),
                    sharey=True, sharex=True)
    styles = {key: dict(color=SERIES_STYLES[i % len(SERIES_STYLES)][0], linestyle="-",
                        linewidth=2.2, marker=SERIES_STYLES[i % len(SERIES_STYLES)][1],
                        markersize=7)
              for i, key in enumerate(keys)}
    styles["cub"] = dict(color=BASELINE_COLOUR, linestyle="--", linewidth=2.6, marker="D",
                         markersize=7)
    all_values, all_bins = [], set()
    for g, group in enumerate(groups):
        for k, d in enumerate(docs):
            ax = figure.axes[g * len(docs) + k]
            series = bin_series(d)
            points = []
            for key in group + (["cub"] if has_cub else []):
                if key not in series:
                    continue
                data = sorted(series[key][1])
                line = ax.plot([b for b, _ in data], [v for _, v in data], zorder=3,
                               **styles[key])[0]
                figure.marks.append(("baseline" if key == "cub" else "stage", line, None, "line"))
                # Each line says its value at both ends: the trend is the line.
                for index, (b, v) in enumerate(data):
                    if index in (0, len(data) - 1):
                        points.append((b, v, f"{v:.0f}" if v >= 10 else f"{v:.1f}",
                                       styles[key]["color"], 0))
                    all_values.append(v)
                    all_bins.add(b)
            ax._ct_points = points
            peak = d["run"].get("peak_gbs")
            if peak:
                ax.axhline(peak, color=REFERENCE_COLOUR, linestyle=":", linewidth=1.8)
                ax.annotate(f"theoretical DRAM bandwidth {peak:.0f} GB/s", (0.01, peak),
                            xycoords=ax.get_yaxis_transform(), xytext=(0, 4),
                            textcoords="offset points", fontsize=VALUE_PT,
                            color=REFERENCE_COLOUR)
                all_values.append(peak)
            if g == 0 and len(docs) > 1:
                ax.set_title(labels[k])
            if g == len(groups) - 1:
                ax.set_xlabel("bins (log scale)")
            if k == 0:
                ax.set_ylabel("GB/s of input\n(log scale)")
            ax.grid(True, which="major", alpha=0.3)
    bins = sorted(all_bins)
    for ax in figure.axes:
        ax.set_xscale("log", base=2)
        ax.set_xticks(bins)
        ax.set_xticklabels([f"{b:,}" for b in bins])
        ax.set_xlim(bins[0] / 1.5, bins[-1] * 1.5)
        ax.set_yscale("log")
        ax.set_ylim(min(all_values) / 2, max(all_values) * 2.2)
        log_ticks(plt, ax, "y", min(all_values) / 2, max(all_values) * 2.2)
    handles = [Line2D([0], [0], **styles[key]) for key in keys + (["cub"] if has_cub else [])]
    reach = {key: max(b for b, _ in bin_series(doc)[key][1]) for key in keys}
    names = [short[key] + (f" (to {reach[key]:,} bins)" if key in skipped else "")
             for key in keys] + (["CUB (baseline)"] if has_cub else [])
    figure.add_legend(handles, names)
    return finish_with_points(figure)


def is_staircase(doc):
    return doc["program"] == "reduction" and sum(
        role(row, doc) == "stage" and row.get("percent_of_peak") is not None
        for row in doc["rows"]) >= 4


def staircase_figure(plt, docs, labels):
    """The progression's % of peak, stage by stage, as a staircase; the baseline a dashed line,
    the fastest correct stage starred in its own colour."""
    from matplotlib.lines import Line2D
    doc = docs[0]
    stages = [row for row in doc["rows"] if role(row, doc) == "stage"
              and row.get("percent_of_peak") is not None]
    ids = [row["id"] for row in stages]
    figure = Figure(plt, figure_title(doc, "share of peak bandwidth, stage by stage"),
                    f"{' against '.join(labels)}: each step is one idea; higher is better",
                    footer_lines(docs, labels))
    ax = figure.axes[0]
    points = []
    for k, d in enumerate(docs):
        colour = GPU_COLOURS[k % len(GPU_COLOURS)] if len(docs) > 1 else STAGE_COLOUR
        by_id = {row["id"]: row for row in d["rows"]}
        xs = [i for i, row_id in enumerate(ids) if row_id in by_id]
        ys = [by_id[ids[i]]["percent_of_peak"] for i in xs]
        line = ax.plot(xs, ys, drawstyle="steps-mid", color=colour, linewidth=2.8, zorder=3)[0]
        ax.plot(xs, ys, "o", color=colour, markersize=8, zorder=4)
        figure.marks.append(("stage", line, None, "line"))
        for x, y in zip(xs, ys):
            points.append((x, y, f"{y:.1f}%", colour, 0 if k % 2 == 0 else 1))
        star, _ = fastest_ids(d)
        for x in xs:
            if row_key(by_id[ids[x]]) in star:
                figure.stars.append((row_key(by_id[ids[x]]), ax.plot(
                    [x], [by_id[ids[x]]["percent_of_peak"]], **star_style(colour))[0]))
        base = baseline_row(d)
        if base and base.get("percent_of_peak") is not None:
            ax.axhline(base["percent_of_peak"], color=BASELINE_COLOUR if len(docs) == 1
                       else colour, linestyle="--", linewidth=1.8, zorder=2)
            # One GPU's baseline at the left end of its line, the next at the right end.
            right = k % 2 == 1
            ax.annotate(f"{(labels[k] + ' ') if len(docs) > 1 else ''}{base_words(d)} "
                        f"{base['percent_of_peak']:.1f}%",
                        (1.0 if right else 0.0, base["percent_of_peak"]),
                        xycoords=ax.get_yaxis_transform(), xytext=(-6 if right else 6,
                                                                   -18 - 18 * (k // 2)),
                        textcoords="offset points", fontsize=VALUE_PT,
                        ha="right" if right else "left",
                        color=BASELINE_COLOUR if len(docs) == 1 else colour)
    ax._ct_points = points
    ax.set_xticks(range(len(ids)))
    tick_pt = max(MIN_TEXT_PX * 72 / DPI + 1.5, TICK_PT - 2)
    ax.set_xticklabels([f"{row['id']}\n" + textwrap.fill(row["name"].replace("_", " "), 11)
                        for row in stages], fontsize=tick_pt)
    ax.set_xlabel(row_noun(doc))
    ax.set_xlim(-0.6, len(ids) - 0.4)
    highest = [row.get("percent_of_peak") or 0 for d in docs for row in d["rows"]]
    ax.set_ylim(0, max(108, 1.08 * max(highest)))
    ax.set_ylabel("% of theoretical DRAM bandwidth\n(higher is better)")
    ax.grid(True, axis="y", alpha=0.3)
    handles = [Line2D([0], [0], color=GPU_COLOURS[k] if len(docs) > 1 else STAGE_COLOUR,
                      linewidth=2.8, marker="o") for k in range(len(docs))]
    names = list(labels) if len(docs) > 1 else [f"{labels[0]}, {row_noun(doc)} by "
                                                f"{row_noun(doc)}"]
    if baseline_row(doc):
        handles.append(Line2D([0], [0], color=BASELINE_COLOUR if len(docs) == 1 else "black",
                              linestyle="--"))
        names.append(f"baseline ({base_words(doc)})")
    handles.append(Line2D([0], [0], **star_style(STAGE_COLOUR)))
    names.append(STAR_LEGEND)
    figure.add_legend(handles, names)
    return finish_with_points(figure)
