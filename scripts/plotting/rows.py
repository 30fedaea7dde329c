"""The figure every table gets: one mark per row and GPU, bars on a linear axis (a bar's length is
its value), or dots on a log axis where the times span more than WIDE_RANGE; every mark says its
value, the baseline a dashed line, wrong-on-purpose rows hatched or crossed, the fastest correct
stage starred. A long table is split into panels at its natural breaks (chapter 6's scenarios).
Also the nested reduction's launches beside its times."""
import re
import textwrap

from .results import (baseline_row, base_words, fastest_ids, fmt_ms, fmt_rate, fmt_ratio,
                      figure_title, footer_lines, number, ratio_words, role, row_key, row_noun,
                      same_work, table_words)
from .style import (DOT_SPLIT, BASELINE_COLOUR, FAIL_COLOUR, GPU_COLOURS, GPU_MARKERS, STAGE_COLOUR,
                    STAR_LEGEND, STAR_WORDS, VALUE_PT, WIDE_RANGE, WRONG_COLOUR, WRONG_HATCH,
                    WRONG_WORDS, Figure, log_ticks, star_style)

BAR_CAPACITY = 26   # bars in one panel (rows x GPUs): each keeps a line of type for its value
DOT_CAPACITY = 16   # rows in one dot panel (one line of values per row)
MOST_PANELS = 3


def row_tick(row, doc):
    """'3 sequential_addressing'; a long one on two lines (id, then the name), nothing cut."""
    text = f"{row['id']} {row['name']}" if row.get("name") and row["name"] != row["id"] \
        else str(row["id"])
    if len(text) > 32 and row.get("name"):
        name = "\n".join(textwrap.wrap(row["name"], 34, break_long_words=True)[:2])
        text = f"{row['id']}\n{name}"
    if role(row, doc) == "baseline":
        text += " (baseline)"
    return text


def id_family(key):
    """The leading number of an id ('6' of '6h', '7' of '7.3'): where a long table breaks."""
    match = re.match(r"\d+", key[0])
    return match.group() if match else key[0]


def split_rows(ids, most):
    """Consecutive chunks of at most `most` ids, broken between id families where one fits."""
    families = []
    for key in ids:
        if families and id_family(families[-1][-1]) == id_family(key):
            families[-1].append(key)
        else:
            families.append([key])
    chunks = [[]]
    for family in families:
        while len(family) > most:
            if chunks[-1]:
                chunks.append([])
            chunks[-1], family = family[:most], family[most:]
            chunks.append([])
        if len(chunks[-1]) + len(family) > most:
            chunks.append([])
        chunks[-1] += family
    return [chunk for chunk in chunks if chunk]


def plan_panels(docs, ids):
    """[(ids, dots, log)] for the time panels of a table."""
    series = len(docs)
    if len(ids) * series <= BAR_CAPACITY or len(ids) <= DOT_CAPACITY:
        chunks = [ids]
    else:
        chunks = split_rows(ids, max(4, BAR_CAPACITY // series))
        if len(chunks) > MOST_PANELS:
            chunks = split_rows(ids, DOT_CAPACITY)
    plan = []
    for chunk in chunks:
        times = [row["median_ms"] for d in docs for row in d["rows"]
                 if row_key(row) in chunk and row.get("median_ms")]
        wide = bool(times) and max(times) / min(times) > WIDE_RANGE
        dots = wide or len(chunk) * series > BAR_CAPACITY
        plan.append((chunk, dots, wide))
    return plan


def mark_words(row, doc, v, text, short):
    words = text(row, doc) if v is not None else None
    r = role(row, doc)
    extra = ""
    if r == "expected failure" and not short:
        extra = f" · {WRONG_WORDS}"
    elif not row.get("passed", True) and r != "expected failure":
        extra = " · FAIL"
    return words, extra


def draw_rows(figure, ax, docs, labels, ids, value, text, unit_words, log=False, dots=False,
              mark_fastest=True, percent=False, missing="not timed", short=False, combined=None):
    """One horizontal mark per row and series (GPU). value(row) -> number or None, text(row,
    doc) -> the label. Bars when not `dots` (linear axis, from 0), else dots (log when `log`).
    Bars say their value at their end; dots of several GPUs share one line of values per row
    (combined(rows, docs) -> text), in a column right of the data, as bars of several GPUs do
    where a line per bar would not fit."""
    plt = figure.plt
    series = len(docs)
    height = 0.8 / series
    values = [value(r) for d in docs for r in d["rows"] if row_key(r) in ids and value(r)]
    ax._ct_value_labels = []
    ax._ct_kind = "dots" if dots else "bars"
    found = [fastest_ids(doc) if mark_fastest else (set(), 0) for doc in docs]
    stars = [keys for keys, _ in found]
    star_words = [STAR_WORDS + (f" (+{tied} within noise)" if tied else "")
                  for _, tied in found]
    # Several GPUs: one line of values per row where a line per bar would not fit.
    one_label = combined is not None and series > 1 and (dots or len(ids) * series > 16)
    for i, key in enumerate(ids):
        rows = [next((r for r in doc["rows"] if row_key(r) == key), None) for doc in docs]
        starred = [k for k, row in enumerate(rows) if row is not None and key in stars[k]
                   and value(row) is not None]
        artists = []
        for k, (doc, row) in enumerate(zip(docs, rows)):
            if row is None:
                continue
            y = i + (k - (series - 1) / 2) * height
            r, v = role(row, doc), value(row)
            colour = GPU_COLOURS[k % len(GPU_COLOURS)] if series > 1 else STAGE_COLOUR
            face = BASELINE_COLOUR if series == 1 and r == "baseline" else colour
            if r == "stage" and not row.get("passed", True):
                face = FAIL_COLOUR
            artist = None
            if v is not None and dots:
                marker = {"baseline": "D", "expected failure": "X"}.get(
                    r, GPU_MARKERS[k % len(GPU_MARKERS)] if series > 1 else "o")
                artist = ax.plot([v], [y], marker=marker, markersize=11 if series == 1 else 9,
                                 color=WRONG_COLOUR if r == "expected failure" else face,
                                 markeredgecolor="black" if r == "baseline" else face,
                                 linestyle="none", zorder=3)[0]
                if k in starred:
                    figure.stars.append((key, ax.plot([v], [y], **star_style(face))[0]))
            elif v is not None:
                kwargs = dict(height=height * 0.92, color=face, edgecolor=face, linewidth=1.2)
                if r == "expected failure":
                    kwargs.update(color="white", edgecolor=WRONG_COLOUR if series == 1 else face,
                                  hatch=WRONG_HATCH)
                if r == "baseline" and series > 1:
                    kwargs.update(alpha=0.55, linestyle="--", edgecolor="black")
                artist = ax.barh([y], [v], **kwargs)[0]
            artists.append((r, artist, k, y, v, row, doc))
        if one_label:
            words = combined(rows, docs)
            if any(a[0] == "expected failure" for a in artists) and not short:
                words += f" · {WRONG_WORDS}"
            if starred:  # which GPU: the stars beside the dots, in the GPUs' colours
                words += f" · {STAR_WORDS}"
            ends = [a[4] for a in artists if a[4] is not None]
            label = ax.annotate(words, (DOT_SPLIT, i) if dots else (max(ends or [0]), i),
                                xycoords=ax.get_yaxis_transform() if dots else "data",
                                xytext=(8 if dots else 6, 0), textcoords="offset points",
                                va="center", ha="left", fontsize=VALUE_PT,
                                fontweight="bold" if starred else "normal")
            ax._ct_value_labels.append(label)
            for r, artist, *_ in artists:
                figure.marks.append((r, artist, label, ax._ct_kind))
            if starred and not dots:
                figure.stars.append((key, label))
            continue
        for r, artist, k, y, v, row, doc in artists:
            words, extra = mark_words(row, doc, v, text, short)
            words = (words or missing) + extra
            if k in starred:
                words += f" · {star_words[k]}"
            if v is None:
                label = ax.annotate(words, (0.01, y), xycoords=ax.get_yaxis_transform(),
                                    va="center", ha="left", fontsize=VALUE_PT, color="#444444")
            else:
                label = ax.annotate(words, (DOT_SPLIT, y) if dots else (v, y),
                                    xycoords=ax.get_yaxis_transform() if dots else "data",
                                    xytext=(8 if dots else 6, 0), textcoords="offset points",
                                    va="center", ha="left", fontsize=VALUE_PT,
                                    fontweight="bold" if k in starred else "normal")
                if k in starred and not dots:
                    figure.stars.append((key, label))
            ax._ct_value_labels.append(label)
            figure.marks.append((r, artist, label, ax._ct_kind))
    for k, doc in enumerate(docs):
        base = baseline_row(doc)
        if base and value(base) is not None and row_key(base) in ids:
            ax.axvline(value(base), color=BASELINE_COLOUR if series == 1
                       else GPU_COLOURS[k % len(GPU_COLOURS)], linestyle="--", linewidth=1.6,
                       zorder=1)
    ax.set_yticks(range(len(ids)))
    ax.set_yticklabels([row_tick(next(r for d in docs for r in d["rows"] if row_key(r) == i),
                                 docs[0]) for i in ids])
    ax.set_ylim(len(ids) - 0.5, -0.5)
    frame_axis(ax, plt, values, log, dots, percent)
    if log:
        unit_words = unit_words.replace("\n", " (log scale)\n", 1) if "\n" in unit_words \
            else unit_words + " (log scale)"
    ax.set_xlabel(unit_words)


def frame_axis(ax, plt, values, log, dots, percent):
    """The value axis: bars from 0 with room for their labels; dots on the left part of the
    panel (log where `log`), their values in a column on the right (fit_dot_columns sizes both
    once the panel's width is known)."""
    if log:
        ax.set_xscale("log")
        low, high = min(values) / 1.6, max(values) * 1.3
        log_ticks(plt, ax, "x", low, high)
    if dots:
        low, high = (low, high) if log else (0, max(values) * 1.05)
        ax._ct_dot_range = (low, high, log)
        ax.set_xlim(low, high)
        if not log:
            ax.xaxis.set_major_locator(plt.MaxNLocator(4))
        ax.spines["bottom"].set_bounds(low, high)
        ax.grid(True, axis="x", which="major", alpha=0.35)
        ax.grid(True, axis="y", alpha=0.15)
    else:
        ax.set_xlim(0, max(values) * 1.15 if values else 1)
        ax.xaxis.set_major_locator(plt.MaxNLocator(4))
        ax.grid(True, axis="x", alpha=0.35)
        if percent and values and max(values) <= 100:
            ax.set_xticks([0, 50, 100])
    ax.set_axisbelow(True)
    ax._ct_thin_x = not log  # labels that would touch are left out (log axes thin themselves)


def roles_present(docs, ids):
    return {role(row, doc) for doc in docs for row in doc["rows"] if row_key(row) in ids}


def role_legend(figure, docs, labels, ids, dots):
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles, names = [], []
    present = roles_present(docs, ids)
    if len(docs) > 1:
        for k, label in enumerate(labels):
            handles.append(Line2D([0], [0], marker=GPU_MARKERS[k % len(GPU_MARKERS)],
                                  color=GPU_COLOURS[k % len(GPU_COLOURS)], linestyle="none",
                                  markersize=11) if dots else
                           Patch(color=GPU_COLOURS[k % len(GPU_COLOURS)]))
            names.append(label)
    else:
        handles.append(Line2D([0], [0], marker="o", color=STAGE_COLOUR, linestyle="none",
                              markersize=11) if dots else Patch(color=STAGE_COLOUR))
        names.append(row_noun(docs[0]))
    if "baseline" in present:
        handles.append(Line2D([0], [0], color=BASELINE_COLOUR if len(docs) == 1 else "black",
                              linestyle="--", linewidth=1.6))
        names.append(f"baseline ({base_words(docs[0])}): dashed line")
    if "expected failure" in present:
        handles.append(Patch(facecolor="white", edgecolor=WRONG_COLOUR, hatch=WRONG_HATCH)
                       if not dots else Line2D([0], [0], marker="X", color=WRONG_COLOUR,
                                               linestyle="none", markersize=10))
        names.append(WRONG_WORDS + " (FAIL expected)")
    if figure.stars and dots:
        handles.append(Line2D([0], [0], **star_style(GPU_COLOURS[0] if len(docs) > 1
                                                      else STAGE_COLOUR)))
        names.append(STAR_LEGEND)
    figure.add_legend(handles, names)


def time_text(row, doc):
    """'0.135 ms · 0.057× CUB' (× baseline only for rows of the baseline's work)."""
    base = base_words(doc)
    words = fmt_ms(row["median_ms"])
    ratio = row.get("speedup_vs_baseline")
    if base and role(row, doc) == "baseline":
        words += " · baseline"
    elif base and ratio is not None and same_work(row, baseline_row(doc)):
        words += " · " + ratio_words(ratio, base)
    return words


def combined_times(rows, docs):
    """One line for a row on several GPUs: '0.144 · 0.118 ms · 0.049× · 0.061× CUB' (the
    ratios only for two GPUs); '–' for a GPU without the row."""
    times = [fmt_ms(row["median_ms"]).split() if row and row.get("median_ms") else ["–", ""]
             for row in rows]
    unit = next((t[1] for t in times if t[1]), "ms")
    scale = 1000 if unit == "µs" else 1
    words = " · ".join(f"{row['median_ms'] * scale:.3g}" if row and row.get("median_ms")
                       else "–" for row in rows) + f" {unit}"
    base = base_words(docs[0])
    if base and len(docs) <= 2:
        if any(row and role(row, doc) == "baseline" for row, doc in zip(rows, docs)):
            return words + " · baseline"
        ratios = [row.get("speedup_vs_baseline") if row and same_work(row, baseline_row(doc))
                  else None for row, doc in zip(rows, docs)]
        if all(r is not None for r in ratios):
            words += " · " + " · ".join(f"{fmt_ratio(r)}×" for r in ratios) + f" {base}"
    return words


def values_words(labels):
    """The heading of a column of values of several GPUs: their order."""
    return "values: " + " · ".join(labels) if len(labels) == 2 else \
        "values in the legend's order"


def stage_figure(plt, docs, labels):
    """The figure any table gets: time per row, and % of peak (or GB/s) where the table has
    it; one series per GPU."""
    doc = docs[0]
    ids = []
    for d in docs:
        for row in d["rows"]:
            if row_key(row) not in ids:
                ids.append(row_key(row))
    rows = [row for d in docs for row in d["rows"] if row_key(row) in ids]
    if not any(row.get("median_ms") for row in rows):
        return None
    panels = plan_panels(docs, ids)
    has_peak = any(row.get("percent_of_peak") is not None for row in rows)
    has_gbs = any(row.get("gbs") is not None for row in rows)
    rate_panel = (has_peak or has_gbs) and len(panels) == 1 and len(docs) <= 2
    noun = row_noun(doc)
    title = figure_title(doc, f"time per {noun}" + (
        " and share of peak bandwidth" if rate_panel and has_peak
        else " and bandwidth" if rate_panel and has_gbs else ""))
    subtitle = f"{' against '.join(labels)}: {table_words(doc)}"
    dots_any = any(dots for _, dots, _ in panels)
    # Three GPUs and more write a wide line of values per row: their panels go two to a row.
    grid = (2, 2) if len(panels) > 2 and len(docs) > 2 else (1, len(panels))
    layout = dict(nrows=grid[0], ncols=grid[1])
    if rate_panel:
        layout = dict(ncols=2, sharey=True,
                      gridspec_kw={"width_ratios": [2.0 if panels[0][1] else 1.3, 1]})
    elif grid[0] == 1:
        layout["gridspec_kw"] = {"width_ratios": [len(chunk) for chunk, _, _ in panels]}
    figure = Figure(plt, title, subtitle, footer_lines(docs, labels),
                    height=13.0 if grid[0] == 2 else 9.0, **layout)
    for ax in figure.axes[len(panels) + rate_panel:]:
        figure.fig.delaxes(ax)
    figure.axes = figure.axes[:len(panels) + rate_panel]
    for ax, (chunk, dots, wide) in zip(figure.axes, panels):
        draw_rows(figure, ax, docs, labels, chunk, lambda row: row.get("median_ms"), time_text,
                  "median time, ms\n(lower is better)", log=wide, dots=dots,
                  combined=combined_times)
        if len(docs) > 1 and (dots or len(chunk) * len(docs) > 16):
            ax.set_title(values_words(labels), loc="right", fontsize=VALUE_PT + 1)
    if rate_panel:
        if has_peak:
            rate, unit = (lambda row: row.get("percent_of_peak")), "%"
            words = ("% of each GPU's own\ntheoretical DRAM bandwidth\n(higher is better)"
                     if len(docs) > 1 else "% of theoretical DRAM bandwidth\n(higher is better)")
        else:
            rate, unit = (lambda row: row.get("gbs")), "GB/s"
            words = "GB/s\n(higher is better)"
        crowded = len(ids) * len(docs) > BAR_CAPACITY
        draw_rows(figure, figure.axes[1], docs, labels, ids, rate,
                  lambda row, d: fmt_rate(rate(row), unit), words, dots=crowded,
                  mark_fastest=False, percent=unit == "%", missing="– (no bytes counted)",
                  short=True, combined=lambda rs, ds: " · ".join(
                      fmt_rate(rate(r), unit) if r and rate(r) is not None else "–" for r in rs))
        figure.axes[1].tick_params(axis="y", left=False)
        if len(docs) > 1 and (crowded or len(ids) * len(docs) > 16):
            figure.axes[1].set_title(values_words(labels), loc="right", fontsize=VALUE_PT + 1)
    role_legend(figure, docs, labels, ids, dots_any)
    return figure.finish()


def is_launch_table(doc):
    return any("device launches" in row.get("extra", {}) for row in doc["rows"]) and \
        sum(role(row, doc) == "stage" for row in doc["rows"]) >= 2


def launches_figure(plt, docs, labels):
    """Device-side launches per kernel (bars, linear: 16384 against 8 is the lesson) beside
    the time (dots, log when the times span decades)."""
    doc = docs[0]
    ids = [row_key(row) for row in doc["rows"]]
    times = [row["median_ms"] for row in doc["rows"] if row.get("median_ms")]
    wide = max(times) / min(times) > WIDE_RANGE
    figure = Figure(plt, figure_title(doc, "kernel launches and time per kernel"),
                    f"{labels[0]}: {table_words(doc)}", footer_lines(docs, labels),
                    ncols=2, sharey=True,
                    gridspec_kw={"width_ratios": [1, 1.6] if wide else [1, 1]})
    draw_rows(figure, figure.axes[0], docs, labels, ids,
              lambda row: number(row.get("extra", {}).get("device launches", "")),
              lambda row, d: f"{number(row['extra']['device launches']):,.0f}",
              "kernels launched from the GPU\n(device-side launches)", mark_fastest=False,
              missing="–", short=True)
    ax = figure.axes[0]
    ax.xaxis.set_major_locator(plt.MaxNLocator(3, integer=True))
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    draw_rows(figure, figure.axes[1], docs, labels, ids, lambda row: row.get("median_ms"),
              time_text, "median time, ms\n(lower is better)", log=wide, dots=wide)
    figure.axes[1].tick_params(axis="y", left=False)
    role_legend(figure, docs, labels, ids, wide)
    return figure.finish()
