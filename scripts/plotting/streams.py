"""Chapter 6's pictures drawn from the text the program prints beside its JSON: the copy/compute
pipeline's time against K, and one pass of it as a timeline, stream by stream."""
import re

from .results import figure_title, footer_lines, run_command, text_beside
from .style import LABEL_PT, REFERENCE_COLOUR, Figure, finish_with_points


def pipeline_table(doc):
    """The K sweep the streams program prints (scenario 8): [{column: value}] or []."""
    lines = text_beside(doc).splitlines()
    for index, line in enumerate(lines):
        if re.match(r"^\s*K\s+one_stream ms", line):
            header = re.split(r"\s{2,}", line.strip())
            rows = []
            for row_line in lines[index + 2:]:
                if not row_line.strip():
                    break
                cells = row_line.split()
                if len(cells) != len(header):
                    break
                rows.append({name: float(cell) for name, cell in zip(header, cells)})
            return rows
    return []


def source_words(doc, what):
    command = run_command(doc)
    return (f"Read from the {what} that the program prints beside its JSON ({doc.get('_stem')}"
            f".txt)" + (f", run as `{command}`." if command else "."))


# column: (name, colour, line style, marker, line width, marker size). Depth first is drawn
# wide and pale under breadth first: where the two agree, both stay visible.
PIPELINE_STYLES = {
    "one_stream ms": ("one stream", "#8c8c8c", "-", "o", 2.4, 8),
    "depth_first ms": ("a stream per chunk, depth first", "#4c72b0", "-", "o", 7.0, 13),
    "breadth_first ms": ("a stream per chunk, breadth first", "#55a868", "-", "s", 2.2, 7),
    "ideal ms": ("ideal: (sum + (K-1) x slowest) / K", REFERENCE_COLOUR, "--", "", 1.8, 0),
    "sum ms": ("sum of the stages, one after another", REFERENCE_COLOUR, ":", "", 1.8, 0),
}


def pipeline_figure(plt, docs, labels):
    """Pipeline time against K (chunks): one stream, a stream per chunk depth first and breadth
    first, the ideal dashed, the sum of the stages dotted; one panel per GPU."""
    from matplotlib.lines import Line2D
    tables = [pipeline_table(doc) for doc in docs]
    if not all(tables):
        return None
    doc = docs[0]
    figure = Figure(plt, figure_title(doc, "copy and compute in K chunks, time against K"),
                    f"{' against '.join(labels)}: each chunk copied in, processed, copied out; "
                    "one stream against a stream per chunk",
                    footer_lines(docs, labels, extra=[source_words(doc, "K table")]),
                    ncols=len(docs), sharey=True)
    top = 0
    for k, (ax, table) in enumerate(zip(figure.axes, tables)):
        ks = [int(row["K"]) for row in table]
        xs = list(range(len(ks)))
        points = []
        for column, (name, colour, style, marker, width, size) in PIPELINE_STYLES.items():
            ys = [row[column] for row in table]
            top = max(top, max(ys))
            line = ax.plot(xs, ys, linestyle=style, marker=marker or None, color=colour,
                           linewidth=width, markersize=size, zorder=3,
                           alpha=0.45 if width > 5 else 1)[0]
            figure.marks.append(("baseline" if not marker else "stage", line, None, "line"))
            if marker:
                for x, y in zip(xs, ys):
                    points.append((x, y, f"{y:.3g}", colour, {"o": 0, "s": 1}.get(marker, 0)))
        ax._ct_points = points
        ax.set_xticks(xs)
        ax.set_xticklabels([str(v) for v in ks])
        ax.set_xlabel("K, chunks (each step doubles K)")
        ax.set_ylabel("median time, ms\n(lower is better)")
        ax.grid(True, alpha=0.3)
        if len(docs) > 1:
            ax.set_title(labels[k])
    for ax in figure.axes:
        ax.set_ylim(0, top * 1.2)
    handles = [Line2D([0], [0], color=c, linestyle=s, marker=m or None, linewidth=min(w, 5),
                      alpha=0.45 if w > 5 else 1, markersize=min(z, 10))
               for _, c, s, m, w, z in PIPELINE_STYLES.values()]
    figure.add_legend(handles, [style[0] for style in PIPELINE_STYLES.values()])
    return finish_with_points(figure)


TIMELINE_HEAD = re.compile(r"^(\w+), K = (\d+) \(one instrumented pass")


def timelines(doc):
    """[(name, K, axis end µs, [(stream, text)], span line)] from the program's text timelines."""
    lines = text_beside(doc).splitlines()
    found = []
    index = 0
    while index < len(lines):
        match = TIMELINE_HEAD.match(lines[index])
        if not match:
            index += 1
            continue
        axis = re.findall(r"[\d.]+", lines[index + 1])
        end = float(axis[-1]) if axis else None
        rows, span = [], ""
        index += 2
        while index < len(lines) and re.match(r"^\s+s\d+\s+\|", lines[index]):
            stream, bar = re.match(r"^\s+(s\d+)\s+\|(.*)\|\s*$", lines[index]).groups()
            rows.append((stream, bar))
            index += 1
        if index < len(lines) and "->" in lines[index]:
            span = lines[index].strip().lstrip("->").strip()
        if end and rows:
            found.append((match.group(1), int(match.group(2)), end, rows, span))
    return found


def timeline_figure(plt, docs, labels):
    """The pipeline's three schedules at one K as timelines, drawn from the text timeline the
    program prints (one character per 1/width of the axis)."""
    from matplotlib.patches import Patch
    doc = docs[0]
    found = timelines(doc)
    if not found:
        return None
    width = len(found[0][3][0][1])
    figure = Figure(plt, figure_title(doc, f"one pass of the pipeline at K = {found[0][1]}, "
                                           "stream by stream"),
                    f"{labels[0]}: copy in (H), kernel (K), copy out (D) of each chunk;"
                    " a stream per chunk overlaps the copies with the kernels",
                    footer_lines(docs, labels, extra=[
                        source_words(doc, "text timelines")[:-1] + f"; one character = "
                        f"{found[0][2] / width:.1f} µs; kernels from %globaltimer, copies from "
                        "events in their stream."]),
                    nrows=len(found), sharex=True,
                    gridspec_kw={"height_ratios": [len(f[3]) + 1.2 for f in found]})
    colours = {"H": "#4c72b0", "K": "#55a868", "D": "#8172b3", ".": "#d9d9d9"}
    for ax, (name, k, end, rows, span) in zip(figure.axes, found):
        step = end / len(rows[0][1])
        for r, (stream, bar) in enumerate(rows):
            start = 0
            while start < len(bar):
                char = bar[start]
                stop = start
                while stop < len(bar) and bar[stop] == char:
                    stop += 1
                if char in colours:
                    patch = ax.barh([r], [(stop - start) * step], left=start * step, height=0.8,
                                    color=colours[char], edgecolor="white", linewidth=0.6)
                    if char == "K":
                        figure.marks.append(("stage", patch[0], None, "timeline"))
                start = stop
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([stream for stream, _ in rows])
        ax.set_ylim(len(rows) - 0.5, -0.5 - 0.9)
        ax.set_title(f"{name.replace('_', ' ')}: {span.split(';')[0]}", loc="left",
                     fontsize=LABEL_PT)
        ax.grid(True, axis="x", alpha=0.3)
        ax.set_xlim(0, end)
    figure.axes[-1].set_xlabel("µs from the first kernel's start")
    handles = [Patch(color=colours[c]) for c in "HKD."]
    figure.add_legend(handles, ["copy in (H)", "kernel (K)", "copy out (D)",
                                "copy waiting for its engine"])
    return figure.finish()
