"""The look of every figure and the frame that lays it out: sizes, colours, the pinned matplotlib,
the Figure (title band, panels, footer band), and the checks a figure passes before it is written:
every text inside the canvas, no two texts over each other."""
import io
import math
import os
import pathlib
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "results"

# The committed figures are drawn with Debian bookworm's python3-matplotlib and python3-pil
# (what `make deps` and .ci/run install, /usr/bin/python3): another version draws other bytes.
PINNED = {"matplotlib": "3.6.3", "Pillow": "9.4.0"}

# Fixed so that re-plotting unchanged results writes identical files: the SVG ids (clip paths,
# glyphs) are hashes salted with this instead of a random salt, and no file records a date or
# the software that wrote it.
SVG_HASH_SALT = "cuda-step-by-step"
SAVE_METADATA = {"svg": {"Date": None}, "png": {"Software": None}}

DPI = 100                    # PNG pixels per inch: 16 x 9 inches -> 1600 x 900
FIG_SIZE = (16.0, 9.0)
SHOWN_WIDTH = 1600           # the width a figure is read at (a projector, the class page)
MIN_TEXT_PX = 14             # no text smaller than this at SHOWN_WIDTH
TITLE_PT, SUBTITLE_PT, LABEL_PT, TICK_PT, VALUE_PT, FOOTER_PT = 21, 14, 15, 14, 13, 11
WIDE_RANGE = 25              # max/min above this: the time panel is a dot plot on a log axis
MAX_SERIES = 5               # series (colours) per panel
DOT_SPLIT = 0.55             # a dot panel: its data left of this share of the width, values right

STAGE_COLOUR = "#4c72b0"
BASELINE_COLOUR = "#dd8452"
FAIL_COLOUR = "#c44e52"
WRONG_COLOUR = "#9a9a9a"
REFERENCE_COLOUR = "#555555"
GPU_COLOURS = ["#4c72b0", "#55a868", "#8172b3", "#937860", "#64b5cd", "#da8bc3"]
GPU_MARKERS = ["o", "s", "^", "v", "P", "h"]
# Distinct for up to five series in one panel, none of them the baseline's orange.
SERIES_COLOURS = ["#4c72b0", "#55a868", "#8172b3", "#937860", "#c44e52"]
# For figures whose panels share one legend of up to ten series (each panel shows five at most):
# distinct colours and markers, none of them the baseline's orange or its diamond.
SERIES_STYLES = [("#4c72b0", "o"), ("#55a868", "s"), ("#8172b3", "^"), ("#222222", "v"),
                 ("#c44e52", "P"), ("#64b5cd", "h"), ("#937860", "X"), ("#da8bc3", "p"),
                 ("#8c8c8c", "<"), ("#1b7837", ">")]
WRONG_HATCH = "///"
WRONG_WORDS = "wrong on purpose"
STAR_WORDS = "★ fastest"
STAR_LEGEND = "★ the fastest correct stage (never the baseline)"


def star_style(colour):
    """The star on the fastest correct stage: the stage's own colour, a black edge (never the
    baseline's colour)."""
    return dict(marker="*", markersize=26, color=colour, markeredgecolor="black",
                markeredgewidth=1.2, linestyle="none", zorder=6)


def plotting_versions():
    import matplotlib
    try:
        import PIL
        pillow = PIL.__version__
    except ImportError:
        pillow = None
    return {"matplotlib": matplotlib.__version__, "Pillow": pillow}


def pinned():
    """Whether this Python draws the committed figures' bytes."""
    try:
        return plotting_versions() == PINNED
    except ImportError:
        return False


def inside_committed(path):
    path = pathlib.Path(path).resolve()
    return path == COMMITTED or COMMITTED in path.parents


def check_pinned(out_dir, force=False, in_place=False):
    """Refuses (one line, exit 2) to write into docs/results/ with other versions than the
    pinned ones, unless forced (--force, or CT_PLOT_FORCE=1). A results folder drawn in place
    (`plot FOLDER` without --out: what make bench does with the folder it has just written) is
    drawn, with one line saying that its figures must be redrawn before they are committed."""
    if force or os.environ.get("CT_PLOT_FORCE") == "1" or not inside_committed(out_dir):
        return
    versions = plotting_versions()
    if versions == PINNED:
        return
    have = ", ".join(f"{k} {v}" for k, v in versions.items())
    want = " and ".join(f"{k} {v}" for k, v in PINNED.items())
    if in_place:
        print(f"figures of {out_dir} drawn with {have}, not the pinned {want}: before committing "
              "them, redraw with /usr/bin/python3 (make plots OUT=docs/results)", file=sys.stderr)
        return
    print(f"not writing into {out_dir}: the committed figures are drawn with {want} "
          f"(Debian bookworm's python3-matplotlib, /usr/bin/python3) and this Python has "
          f"{have}; use that Python (make plots picks it), write elsewhere, or --force",
          file=sys.stderr)
    sys.exit(2)


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams.update({
            "svg.hashsalt": SVG_HASH_SALT,
            "font.size": LABEL_PT,
            "axes.titlesize": LABEL_PT + 1,
            "axes.labelsize": LABEL_PT,
            "xtick.labelsize": TICK_PT,
            "ytick.labelsize": TICK_PT,
            "legend.fontsize": TICK_PT,
            "legend.title_fontsize": TICK_PT,
            "hatch.linewidth": 1.2,
            "axes.spines.top": False,
            "axes.spines.right": False,
        })
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        sys.exit("matplotlib is missing: install python3-matplotlib (make deps)")


SAVED_TITLES = {}  # file stem -> the figure's title, for the class page's captions


class Figure:
    """A 16:9 figure (or taller) with a title band (title, a subtitle, an optional legend row) and a footer
    band (run details), the panels between them. finish() lays it out, wraps the title and
    footer until every text lies inside the canvas, and says if one does not."""

    def __init__(self, plt, title, subtitle="", footer=(), height=FIG_SIZE[1], **subplots):
        """`height` in inches: taller than 9 only where the rows need it (the width, and so the
        size of the type when the figure is shown 1600 pixels wide, stays)."""
        self.plt = plt
        self.fig, axes = plt.subplots(figsize=(FIG_SIZE[0], height), dpi=DPI, squeeze=False,
                                      **subplots)
        self.axes = [ax for row in axes for ax in row]
        self.title, self.subtitle, self.footer = title, subtitle, list(footer)
        self.legend = None
        self.marks = []  # (role, artist, label text artist or None, kind): what the tests check
        self.stars = []  # (row key, star artist or the label that says it)
        self.fig._ct_figure = self

    def add_legend(self, handles, labels):
        self.legend = (handles, labels)

    def _wrap(self, text, points, width_in):
        chars = max(20, int(width_in * 72 / (points * 0.56)))
        return "\n".join(textwrap.wrap(text, chars, break_long_words=True)) if text else ""

    def finish(self):
        fig = self.fig
        width_in, height_in = fig.get_size_inches()
        margin = 0.25
        for attempt in range(4):
            shrink = 1 - 0.08 * attempt
            for artist in list(fig.texts) + list(fig.legends):
                artist.remove()
            title = self._wrap(self.title, TITLE_PT, (width_in - 2 * margin) * shrink)
            subtitle = self._wrap(self.subtitle, SUBTITLE_PT, (width_in - 2 * margin) * shrink)
            footer = "\n".join(self._wrap(line, FOOTER_PT, (width_in - 2 * margin) * shrink)
                               for line in self.footer)
            top = height_in - 0.15
            fig.text(0.5, top / height_in, title, ha="center", va="top", fontsize=TITLE_PT,
                     fontweight="bold")
            top -= (title.count("\n") + 1) * TITLE_PT * 1.3 / 72
            if subtitle:
                top -= 0.05
                fig.text(0.5, top / height_in, subtitle, ha="center", va="top",
                         fontsize=SUBTITLE_PT, color="#333333")
                top -= (subtitle.count("\n") + 1) * SUBTITLE_PT * 1.3 / 72
            if self.legend:
                top = self._place_legend(top, margin)
            bottom = 0.12
            if footer:
                fig.text(margin / width_in, bottom / height_in, footer, ha="left", va="bottom",
                         fontsize=FOOTER_PT, color="#444444", linespacing=1.3)
                bottom += (footer.count("\n") + 1) * FOOTER_PT * 1.3 / 72 + 0.15
            fig.tight_layout(rect=(0.005, bottom / height_in, 0.995, (top - 0.1) / height_in),
                             w_pad=2.5, h_pad=1.5)
            fit_value_labels(self)
            fit_dot_columns(self)
            fit_log_ticks(self)
            thin_tick_labels(self)
            if not texts_outside(fig):
                return self
        return self

    def _place_legend(self, top, margin):
        fig = self.fig
        height_in = fig.get_size_inches()[1]
        handles, labels = self.legend
        top -= 0.08
        columns = min(len(labels), 5)
        while True:
            legend = fig.legend(handles, labels, loc="upper center", ncol=columns,
                                bbox_to_anchor=(0.5, top / height_in), frameon=False,
                                fontsize=TICK_PT, handlelength=2.2, columnspacing=1.6)
            box = legend.get_window_extent(fig.canvas.get_renderer())
            if box.width <= fig.bbox.width - 2 * margin * DPI or columns == 1:
                break
            legend.remove()
            columns -= 1
        rows = math.ceil(len(labels) / columns)
        return top - rows * TICK_PT * 1.75 / 72 - 0.05

    def save(self, path_stem):
        """PNG and SVG; refuses to write a figure with text outside its canvas."""
        outside = texts_outside(self.fig)
        if outside:
            raise RuntimeError(f"{path_stem}: text outside the figure: {outside[:3]}")
        written = []
        SAVED_TITLES[pathlib.Path(path_stem).name] = self.title
        for suffix in ("png", "svg"):
            path = pathlib.Path(f"{path_stem}.{suffix}")
            if suffix == "png":
                save_png(self.fig, path)
            else:
                save_svg(self.fig, path)
            written.append(path)
        self.plt.close(self.fig)
        return written


def save_svg(fig, path):
    """The SVG with matplotlib's hashed ids (salted hashes of unrounded geometry, which a
    last-bit difference in a float changes) numbered in order instead: the same picture writes
    the same ids on any machine (sameness.py says what else is promised)."""
    from .sameness import number_ids
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", dpi=DPI, metadata=SAVE_METADATA["svg"])
    path.write_text(number_ids(buffer.getvalue()), encoding="utf-8")


def save_png(fig, path):
    """The PNG with its colours reduced to a palette (a third of the bytes, the same look):
    the committed figures stay small. Pillow comes with matplotlib; without it, a plain PNG."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, metadata=SAVE_METADATA["png"])
    try:
        from PIL import Image
    except ImportError:
        path.write_bytes(buffer.getvalue())
        return
    image = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE) \
        .save(path, format="PNG", optimize=True)


# ---------------------------------------------------------------------------------------------
# Checks: inside the canvas, no overlaps
# ---------------------------------------------------------------------------------------------


def visible_texts(fig):
    """The texts that are drawn, except tick labels (the tight bounding box covers those:
    matplotlib keeps tick objects outside the view that it does not draw)."""
    texts = list(fig.texts)
    for legend in fig.legends:
        texts += list(legend.get_texts())
    for ax in fig.axes:
        texts += list(ax.texts) + [ax.title, ax._left_title, ax._right_title, ax.xaxis.label,
                                   ax.yaxis.label]
        if ax.get_legend():
            texts += list(ax.get_legend().get_texts())
    return [text for text in texts if text.get_visible() and text.get_text().strip()]


def drawn_tick_labels(ax):
    labels = []
    for axis in (ax.xaxis, ax.yaxis):
        for tick in axis._update_ticks():
            for label in (tick.label1, tick.label2):
                if label.get_visible() and label.get_text().strip():
                    labels.append(label)
    return labels


def drawn_texts(fig):
    """Every text drawn, tick labels included."""
    texts = visible_texts(fig)
    for ax in fig.axes:
        texts += drawn_tick_labels(ax)
    return texts


def texts_outside(fig, tolerance=1.0):
    """The texts (as strings) whose box is not inside the canvas."""
    renderer = fig.canvas.get_renderer()
    fig.canvas.draw()
    width, height = fig.bbox.width, fig.bbox.height
    outside = []
    for text in visible_texts(fig):
        box = text.get_window_extent(renderer)
        if (box.x0 < -tolerance or box.y0 < -tolerance or box.x1 > width + tolerance
                or box.y1 > height + tolerance):
            outside.append(text.get_text()[:60])
    tight = fig.get_tightbbox(renderer)
    if tight.x0 < -tolerance / DPI or tight.y0 < -tolerance / DPI or \
            tight.x1 > fig.get_figwidth() + tolerance / DPI or \
            tight.y1 > fig.get_figheight() + tolerance / DPI:
        outside.append("(tight bounding box larger than the figure)")
    return outside


def boxes_overlap(a, b, slack=1.0):
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > slack and
            min(a.y1, b.y1) - max(a.y0, b.y0) > slack)


def overlapping_texts(fig):
    """[(text, text)] of every two drawn texts whose boxes overlap (by more than a pixel)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = drawn_texts(fig)
    boxes = [(text.get_text(), text.get_window_extent(renderer)) for text in texts]
    pairs = []
    for i, (a_text, a_box) in enumerate(boxes):
        for b_text, b_box in boxes[i + 1:]:
            if boxes_overlap(a_box, b_box):
                pairs.append((a_text[:50], b_text[:50]))
    return pairs


# ---------------------------------------------------------------------------------------------
# Placing value labels
# ---------------------------------------------------------------------------------------------


def fit_value_labels(figure):
    """Widens each panel's value axis (its upper end only) until the labels written at the
    bars' ends, or in the dots' value column, fit inside the panel: one computation per panel,
    with the data keeping at least 30% of the panel's width."""
    fig = figure.fig
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in figure.axes:
        labels = [label for label in getattr(ax, "_ct_value_labels", [])
                  if getattr(label, "xycoords", None) == "data"]
        if not labels:
            continue
        log = ax.get_xscale() == "log"
        scale = (lambda v: math.log10(v)) if log else (lambda v: v)
        low, high = ax.get_xlim()
        width = ax.get_window_extent(renderer).width
        need = scale(high)
        for label in labels:
            anchor = label.xy[0]
            if anchor is None or (log and anchor <= 0):
                continue
            room = width - label.get_window_extent(renderer).width - 14
            room = max(room, 0.3 * width)
            need = max(need, scale(low) + (scale(anchor) - scale(low)) * width / room)
        ax.set_xlim(low, 10 ** need if log else need)


def fit_dot_columns(figure, gap=12):
    """Each dot panel: the values' column as wide as its widest line of values, the dots in the
    rest (between 30% and 85% of the panel)."""
    fig = figure.fig
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in figure.axes:
        if not hasattr(ax, "_ct_dot_range"):
            continue
        low, high, log = ax._ct_dot_range
        labels = [label for label in getattr(ax, "_ct_value_labels", [])
                  if getattr(label, "xycoords", None) != "data"]
        width = ax.get_window_extent(renderer).width
        widest = max((label.get_window_extent(renderer).width for label in labels), default=0)
        split = min(0.85, max(0.3, 1 - (widest + gap + 8) / width))
        if log:
            lo, hi = math.log10(low), math.log10(high)
            ax.set_xlim(low, 10 ** (lo + (hi - lo) / split))
        else:
            ax.set_xlim(low, low + (high - low) / split)
        for label in labels:
            label.xy = (split, label.xy[1])


def merge_close_points(ax, points, fig, pixels=18, close=0.03):
    """Points at the same x whose marks lie within `pixels` of each other and whose values are
    within `close` of each other (lines that meet, as chapter 6's three schedules at K = 1) get
    one label ('0.91' where they read the same, else '0.91–0.93', in grey where the colours
    differ)."""
    transform = ax.transData
    by_x = {}
    for point in points:
        by_x.setdefault(point[0], []).append(point)
    merged = []
    for x, group in by_x.items():
        group.sort(key=lambda p: transform.transform((p[0], p[1]))[1])
        cluster = [group[0]]
        for point in group[1:] + [None]:
            if point is not None and (transform.transform((x, point[1]))[1]
                                      - transform.transform((x, cluster[-1][1]))[1]) < pixels \
                    and abs(point[1] - cluster[0][1]) <= close * abs(cluster[0][1]):
                cluster.append(point)
                continue
            texts = [p[2] for p in cluster]
            colours = {p[3] for p in cluster}
            text = texts[0] if len(set(texts)) == 1 else f"{texts[0]}–{texts[-1]}"
            colour = cluster[0][3] if len(colours) == 1 else "#333333"
            middle = cluster[len(cluster) // 2]
            merged.append((x, middle[1], text, colour, cluster[0][4]))
            cluster = [point]
    return merged


def place_point_labels(ax, points, fig, offsets=((-5, 5), (5, -21), (0, 9), (0, -21),
                                                  (8, -7), (-8, -7), (0, 24), (0, -36),
                                                  (12, 10), (-12, 10))):
    """Writes each (x, y, text, colour, preferred offset index) next to its point, at the
    first offset where it overlaps no text drawn or placed before and stays inside the panel.
    Returns the number that found no place (0: every point says its value)."""
    renderer = fig.canvas.get_renderer()
    fig.canvas.draw()
    placed = [text.get_window_extent(renderer) for text in drawn_texts(fig)]
    missed = 0
    axes_box = ax.get_window_extent(renderer)
    for x, y, text, colour, first in merge_close_points(ax, points, fig):
        order = list(offsets[first:]) + list(offsets[:first])
        for dx, dy in order:
            ha = "center" if dx == 0 else ("left" if dx > 0 else "right")
            label = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points",
                                ha=ha, va="bottom", fontsize=VALUE_PT, color=colour)
            box = label.get_window_extent(renderer)
            inside = (box.x0 >= axes_box.x0 and box.x1 <= axes_box.x1 + 30
                      and box.y0 >= axes_box.y0 and box.y1 <= axes_box.y1 + 2)
            if inside and not any(boxes_overlap(box, other, 0) for other in placed):
                placed.append(box)
                break
            label.remove()
        else:
            missed += 1
    return missed


def finish_with_points(figure):
    figure.finish()
    figure.fig.canvas.draw()
    missed = 0
    for ax in figure.axes:
        points = getattr(ax, "_ct_points", None)
        if points:
            missed += place_point_labels(ax, points, figure.fig)
    figure.missed_labels = missed
    return figure


def balanced_chunks(items, most):
    """`items` in consecutive chunks of at most `most`, as even as possible."""
    items = list(items)
    count = max(1, math.ceil(len(items) / most))
    size, extra = divmod(len(items), count)
    chunks, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        chunks.append(items[start:end])
        start = end
    return chunks


# The ticks a log axis may have, densest first: 1, 2 and 5 of every decade, then 1 and 3, then
# each decade, then every other decade.
LOG_SUBS = (((1.0, 2.0, 5.0), 1), ((1.0, 3.0), 1), ((1.0,), 1), ((1.0,), 2))


def log_ticks(plt, ax, axis, low, high, subs=LOG_SUBS[0]):
    """A log axis that can be read: ticks at 1, 2 and 5 of every decade between low and high,
    each labelled with its value (fit_log_ticks thins them where the labels would touch).
    Registers the axis for fit_log_ticks."""
    marks, step = subs
    ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(low)) - 1,
                                          math.ceil(math.log10(high)) + 1)
             for m in marks if low <= m * 10.0 ** e <= high and e % step == 0]
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(plt.FixedLocator(ticks))
    target.set_minor_locator(plt.NullLocator())
    target.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1
                                                 else f"{v:.4g}"))
    ax._ct_log_axes = [entry for entry in getattr(ax, "_ct_log_axes", []) if entry[1] != axis]
    ax._ct_log_axes.append((plt, axis, low, high))


def crowded_ticks(fig, axes, axis, gap):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        target = ax.xaxis if axis == "x" else ax.yaxis
        boxes = sorted((tick.label1.get_window_extent(renderer)
                        for tick in target._update_ticks() if tick.label1.get_visible()),
                       key=lambda b: b.x0 if axis == "x" else b.y0)
        if any((b.x0 - a.x1 if axis == "x" else (b.y0 - a.y1) * 2) < gap
               for a, b in zip(boxes, boxes[1:])):
            return True
    return False


def fit_log_ticks(figure, gap=8):
    """For every registered log axis, the densest ticks (LOG_SUBS) whose labels keep `gap`
    pixels apart; axes that share their ticks (sharex, sharey) are fitted together."""
    shared = {}
    for ax in figure.axes:
        for plt, axis, low, high in getattr(ax, "_ct_log_axes", []):
            ticker = (ax.xaxis if axis == "x" else ax.yaxis).major
            shared.setdefault((id(ticker), axis), []).append((ax, plt, low, high))
    for (_, axis), members in shared.items():
        for subs in LOG_SUBS:
            for ax, plt, low, high in members:
                log_ticks(plt, ax, axis, low, high, subs)
            if not crowded_ticks(figure.fig, [m[0] for m in members], axis, gap):
                break


def thin_tick_labels(figure, gap=10):
    """On axes marked _ct_thin_x (ticks at every point of a sweep), hides the tick labels that
    would touch the one before: every point keeps its tick, the labels stay apart."""
    fig = figure.fig
    for ax in figure.axes:
        if not getattr(ax, "_ct_thin_x", False):
            continue
        for label in ax.get_xticklabels():
            label.set_visible(True)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        labels = [tick.label1 for tick in ax.xaxis._update_ticks()
                  if tick.label1.get_text().strip()]
        boxes = [label.get_window_extent(renderer) for label in labels]
        kept = []
        for index, box in enumerate(boxes):
            if kept and box.x0 - boxes[kept[-1]].x1 < gap:
                if index != len(boxes) - 1:
                    continue
                while kept and box.x0 - boxes[kept[-1]].x1 < gap:  # the last one stays
                    kept.pop()
            kept.append(index)
        for index, label in enumerate(labels):
            label.set_visible(index in kept)
