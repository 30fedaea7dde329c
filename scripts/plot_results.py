#!/usr/bin/env python3
"""Figures of the chapters' result tables, a side-by-side comparison of several GPUs, and a class
page that shows both.

    scripts/plot_results.py plot docs/results/<gpu> [--out DIR]
        the figures of every results JSON in the folder, PNG (slides) and SVG (the site), written
        to DIR (default: the folder itself)
    scripts/plot_results.py compare docs/results/<gpu-a> docs/results/<gpu-b> [...] --out DIR
        for every results file the folders share: a Markdown table (ms, % of each GPU's own
        peak, x baseline within each run, and each GPU against the first, marked within noise
        or not), the figures, and class.html: one self-contained page with the tables and the
        figures, to open and project

Reads the JSON that every chapter writes with --json (ResultTable::write_json); a program this
script has never seen gets the stage figure below without any change here. Needs matplotlib
(Debian: python3-matplotlib).

What the figures promise (see also tests/scripts/test_plots.py, which checks it):
- true to scale: bars stand on linear axes, so a bar's length is its value, and every bar says
  its value (and "x baseline"). Where the times of one table span more than WIDE_RANGE, the
  time panel is a dot plot on a log axis, labelled as such, each dot with its value. Log axes
  otherwise only on line plots of quantities that span decades (message size, bins);
- roles visible: the baseline (CUB, NCCL, ...) in its own colour with a dashed reference line,
  a labelled wrong answer (a row whose FAIL is expected) hatched and labelled "wrong on
  purpose", the fastest stage of the progression marked;
- sweeps as lines: SM scaling (rate against SMs, ideal linear scaling dashed), the block-shape
  sweep, the histogram's bin sweep, the streams pipeline against K, the all-reduce's bus
  bandwidth against message size, the reduction's stages as a staircase of % of peak;
- readable when projected: 16:9, 1600 x 900 pixels or more, no text under 14 pixels, titles in
  words, short GPU names ("H100", "2 x H200"), run details in a small footer, and nothing cut
  (every text is checked to lie inside the canvas before a file is written);
- reproducible: the same results and matplotlib give the same bytes (no date in the files,
  fixed SVG ids), so re-plotting unchanged results leaves git with nothing to commit.
"""
import argparse
import html
import json
import math
import pathlib
import re
import sys
import textwrap

# ---------------------------------------------------------------------------------------------
# Reading results
# ---------------------------------------------------------------------------------------------


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
            doc.setdefault("_folder", str(folder))
            doc.setdefault("_stem", path.stem)
            results[path.stem] = doc
    return results


def timed_rows(doc):
    return [row for row in doc["rows"] if row.get("median_ms") is not None]


def baseline_row(doc):
    return next((row for row in doc["rows"] if row["id"] == doc.get("baseline")), None)


def row_key(row):
    """A row's key within its table: its id, and its name too (two rows may share an id, as
    chapter 7's copies between the same two GPUs do)."""
    return (str(row["id"]), row.get("name", ""))


def role(row, doc):
    """'stage' (a step of the progression), 'baseline', 'expected failure' or 'other': the
    row's "role" where the JSON has one, else read off the older flags."""
    given = str(row.get("role") or "").replace("_", " ").strip().lower()
    if given in ("expected failure", "baseline"):
        return given
    if given in ("progression", "stage"):
        return "stage"
    if row.get("expected_failure"):
        return "expected failure"
    if doc.get("baseline") is not None and row["id"] == doc.get("baseline"):
        return "baseline"
    return "stage" if row.get("in_progression", True) else "other"


def fastest_ids(doc, rows=None):
    """The ids of the fastest stage of the progression, and of those whose min-max range
    overlaps it (tied within noise)."""
    stages = [row for row in (rows or doc["rows"]) if role(row, doc) == "stage"
              and row.get("passed", True) and row.get("median_ms") is not None]
    if len(stages) < 2:
        return set(), False
    best = min(stages, key=lambda row: row["median_ms"])
    tied = {row["id"] for row in stages
            if row.get("min_ms", row["median_ms"]) <= best.get("max_ms", best["median_ms"])}
    return tied, len(tied) > 1


def short_gpu(name):
    """'NVIDIA H100 80GB HBM3' -> 'H100', 'NVIDIA GeForce RTX 4090' -> 'RTX 4090'."""
    tokens = re.split(r"[\s\-]+", name.replace("NVIDIA", " "))
    drop = re.compile(r"^(\d+GB|HBM\d*e?|PCIe|SXM\d*|NVL\d*|GeForce|Tesla|Graphics)$", re.I)
    kept = [token for token in tokens if token and not drop.match(token)]
    return " ".join(kept) or name


def gpu_label(doc):
    """Short GPU name, with the count where the run used several: '2 x H200'."""
    params = doc["run"].get("parameters", {})
    count = params.get("GPUs") or params.get("ranks")
    name = short_gpu(doc["run"]["gpu"])
    try:
        if count and int(count) > 1:
            return f"{int(count)} x {name}"
    except ValueError:
        pass
    return name


def gpu_labels(docs):
    """One legend label per document; the folder name is added where two would read the same."""
    labels = [gpu_label(doc) for doc in docs]
    for index, label in enumerate(labels):
        if labels.count(label) > 1:
            labels[index] = f"{label} ({pathlib.Path(docs[index].get('_folder', '?')).name})"
    return labels


def number(text):
    """The first number in a table cell ('4009 (+2009 failed)' -> 4009.0), or None."""
    match = re.search(r"-?\d+(?:\.\d+)?", str(text))
    return float(match.group()) if match else None


def size_bytes(text):
    number_text, unit = text.split()
    return float(number_text) * {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[unit]


def size_name(value):
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= scale:
            return f"{value / scale:g} {unit}"
    return f"{value:g} B"


def power_of_two(params, keys):
    """'2^28' from the first of `keys` whose value says '(2^k)'."""
    for key in keys:
        match = re.search(r"\((2\^\d+(?: [+-] \d+)?)\)", str(params.get(key, "")))
        if match:
            return match.group(1)
    return None


# ---------------------------------------------------------------------------------------------
# Words: titles and footers
# ---------------------------------------------------------------------------------------------

# Chapter order, and each program's name in words with what its N counts. A program that is not
# here gets its own name, capitalised, and "elements".
PROGRAMS = {
    "first_kernel": ("First kernel", "elements", "stage"),
    "execution_model": ("Execution model", "elements", "stage"),
    "divergence": ("Branch divergence", "elements", "kernel"),
    "reduction": ("Reduction", "ints", "stage"),
    "nested_reduction": ("Nested reduction", "ints", "kernel"),
    "histogram": ("Histogram", "bytes", "stage"),
    "streams": ("Streams", None, "scenario"),
    "multi_gpu": ("Multi-GPU", None, "variant"),
}


def program_words(doc):
    return PROGRAMS.get(doc["program"],
                        (doc["program"].replace("_", " ").capitalize(), "elements", "stage"))


def size_words(doc):
    """', 2^28 ints, uniform input' or ''."""
    params = doc["run"].get("parameters", {})
    _, unit, _ = program_words(doc)
    if unit is None:
        return ""
    parts = []
    power = power_of_two(params, ("N", "n", "values", "bytes"))
    if power and unit:
        parts.append(f"{power} {'values' if 'values' in params else unit}")
    elif power:
        parts.append(f"N = {power}")
    source = str(params.get("input", "")).split(",")[0].strip()
    if source and parts and source.endswith(("values", "bytes")):
        parts[-1] = f"{power} {source}"
    elif source:
        parts.append(f"{source} input")
    return "".join(f", {part}" for part in parts)


def figure_title(doc, what):
    name, _, _ = program_words(doc)
    return f"{name}{size_words(doc)}: {what}"


def row_noun(doc):
    return program_words(doc)[2]


COMMIT_CACHE = {}


def run_commit(doc):
    """The commit that made the run: run.git_commit where the JSON has it, else the folder's
    summary.json: its "reruns" entry for this result (a case run again on its own, later), or
    its commit when the run started within that bench run's first 3 hours."""
    commit = doc["run"].get("git_commit")
    if commit:
        return str(commit).split()[0]
    folder = doc.get("_folder")
    if not folder:
        return None
    if folder not in COMMIT_CACHE:
        summary = pathlib.Path(folder) / "summary.json"
        try:
            COMMIT_CACHE[folder] = json.loads(summary.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            COMMIT_CACHE[folder] = None
    summary = COMMIT_CACHE[folder]
    if summary and doc.get("_stem") in summary.get("reruns", {}):
        return str(summary["reruns"][doc["_stem"]]).split()[0]
    if not summary or not summary.get("git_commit") or not summary.get("date"):
        return None
    start, stamp = summary["date"][:19], doc["run"].get("timestamp", "")[:19]
    if not stamp or stamp < start:
        return None
    from datetime import datetime
    try:
        delta = datetime.fromisoformat(stamp) - datetime.fromisoformat(start)
    except ValueError:
        return None
    return str(summary["git_commit"]).split()[0] if delta.total_seconds() < 3 * 3600 else None


TUNING_KEY = re.compile(r"^stages? [\w\-, ]+ runs?$")


def run_details(doc, prefix=""):
    """One line of run details for the footer: GPU, toolkit, date, commit, clocks, tuning."""
    run = doc["run"]
    params = run.get("parameters", {})
    parts = [f"{run['gpu']}" + (f" ({run['sm_count']} SMs)" if run.get("sm_count") else ""),
             f"CUDA {run.get('cuda_runtime', '?')}"
             + (f", driver {run['driver_version']}" if run.get("driver_version") else "")]
    if run.get("timestamp"):
        parts.append(f"run {run['timestamp'][:10]}")
    commit = run_commit(doc)
    if commit:
        parts.append(f"commit {commit}")
    for key, value in params.items():
        if key == "clocks during timing":
            parts.append(f"clocks during timing: {value}")
        elif TUNING_KEY.match(key):
            parts.append(f"{key}: {value}")
    if params.get("timing"):
        parts.append(f"timing: {params['timing']}")
    elif params.get("reps"):
        parts.append(f"repetitions: {params['reps']}")
    if params.get("calls per sample"):  # --batch: each sample is several calls back to back
        parts.append(f"calls per sample: {params['calls per sample']}")
    return prefix + "; ".join(parts)


def footer_lines(docs, labels=None, extra=()):
    if len(docs) == 1:
        lines = [run_details(docs[0])]
    else:
        lines = [run_details(doc, f"{label}: ") for doc, label in zip(docs, labels)]
    return list(extra) + lines


# ---------------------------------------------------------------------------------------------
# Style, layout, saving
# ---------------------------------------------------------------------------------------------

# Fixed so that re-plotting unchanged results writes identical files: the SVG ids (clip paths,
# glyphs) are hashes salted with this instead of a random salt, and no file records a date.
SVG_HASH_SALT = "cuda-step-by-step"
SAVE_METADATA = {"svg": {"Date": None}, "png": {}}

DPI = 100                    # PNG pixels per inch: 16 x 9 inches -> 1600 x 900
FIG_SIZE = (16.0, 9.0)
BIG_FIG_SIZE = (22.4, 12.6)  # for long tables: more rows at the same type size
MIN_FONT_PT = 14 * 72 / DPI  # 14 pixels in the PNG
TITLE_PT, SUBTITLE_PT, LABEL_PT, TICK_PT, VALUE_PT, FOOTER_PT = 21, 14, 15, 14, 13, 11
WIDE_RANGE = 25              # max/min above this: the time panel is a dot plot on a log axis

STAGE_COLOUR = "#4c72b0"
BASELINE_COLOUR = "#dd8452"
FAIL_COLOUR = "#c44e52"
WRONG_COLOUR = "#9a9a9a"
REFERENCE_COLOUR = "#555555"
GPU_COLOURS = ["#4c72b0", "#55a868", "#8172b3", "#937860", "#64b5cd", "#da8bc3"]
WRONG_HATCH = "///"
WRONG_WORDS = "wrong on purpose"


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
    """A 16:9 figure with a title band (title, a subtitle, an optional legend row) and a footer
    band (run details), the panels between them. finish() lays it out, wraps the title and
    footer until every text lies inside the canvas, and says if one does not."""

    def __init__(self, plt, title, subtitle="", footer=(), big=False, **subplots):
        self.plt = plt
        self.fig, axes = plt.subplots(figsize=BIG_FIG_SIZE if big else FIG_SIZE, dpi=DPI,
                                      squeeze=False, **subplots)
        self.axes = [ax for row in axes for ax in row]
        self.title, self.subtitle, self.footer = title, subtitle, list(footer)
        self.legend = None
        self.marks = []  # (role, artist, label text artist or None): what the tests check
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
                top -= rows * TICK_PT * 1.75 / 72 + 0.05
            bottom = 0.12
            if footer:
                fig.text(margin / width_in, bottom / height_in, footer, ha="left", va="bottom",
                         fontsize=FOOTER_PT, color="#444444", linespacing=1.3)
                bottom += (footer.count("\n") + 1) * FOOTER_PT * 1.3 / 72 + 0.15
            fig.tight_layout(rect=(0.005, bottom / height_in, 0.995, (top - 0.1) / height_in),
                             w_pad=2.5, h_pad=1.5)
            fit_value_labels(self)
            if not texts_outside(fig):
                return self
        return self

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
                self.fig.savefig(path, dpi=DPI, metadata=SAVE_METADATA[suffix])
            written.append(path)
        self.plt.close(self.fig)
        return written


def save_png(fig, path):
    """The PNG with its colours reduced to a palette (a third of the bytes, the same look):
    the committed figures stay small. Pillow comes with matplotlib; without it, a plain PNG."""
    import io
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


def place_point_labels(ax, points, fig, offsets=((-5, 5), (5, -21), (0, 9), (0, -21),
                                                  (8, -7), (-8, -7), (0, 24), (0, -36),
                                                  (12, 10), (-12, 10))):
    """Writes each (x, y, text, colour, preferred offset index) next to its point, at the
    first offset where it overlaps no label placed before and stays inside the panel. Returns
    the number that found no place (0: every point says its value)."""
    renderer = fig.canvas.get_renderer()
    placed, missed = [], 0
    axes_box = ax.get_window_extent(renderer)
    for x, y, text, colour, first in points:
        order = list(offsets[first:]) + list(offsets[:first])
        for dx, dy in order:
            ha = "center" if dx == 0 else ("left" if dx > 0 else "right")
            ha = "center" if abs(dx) < 6 and dy > 0 and dx == 0 else ha
            label = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points",
                                ha=ha, va="bottom", fontsize=VALUE_PT, color=colour)
            box = label.get_window_extent(renderer)
            inside = (box.x0 >= axes_box.x0 and box.x1 <= axes_box.x1 + 30
                      and box.y0 >= axes_box.y0 and box.y1 <= axes_box.y1 + 2)
            if inside and not any(box.overlaps(other) for other in placed):
                placed.append(box)
                break
            label.remove()
        else:
            missed += 1
    return missed


# ---------------------------------------------------------------------------------------------
# Row panels: bars (linear) or dots (log), one series per GPU
# ---------------------------------------------------------------------------------------------


def fmt_ms(value):
    return f"{value:.3g} ms" if value >= 0.001 else f"{value * 1000:.3g} µs"


def fmt_rate(value, unit):
    if unit == "%":
        return f"{value:.1f}%"
    return f"{value:.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}"


def ratio_words(ratio, base):
    """'1.09× CUB' (the baseline's time over the row's), or '520× slower than CUB' where the
    ratio is so small that its digits would say nothing."""
    if ratio >= 0.1:
        return f"{ratio:.2f}× {base}"
    if ratio >= 0.01:
        return f"{ratio:.2g}× {base}"
    slower = 1 / ratio
    return f"{slower:,.0f}× slower than {base}" if slower >= 1000 else \
        f"{slower:.3g}× slower than {base}"


def same_work(row, base):
    """Whether a row does the baseline's work (the same bytes), so that x baseline means
    something: chapter 2's short kernels are not the long baseline's work."""
    return bool(base) and (row.get("bytes") or 0) == (base.get("bytes") or 0)


def base_words(doc):
    base = baseline_row(doc)
    if not base:
        return None
    return {"cub": "CUB", "nccl": "NCCL", "1gpu": "1 GPU"}.get(base["id"], str(base["id"]))


def row_tick(row, doc):
    text = f"{row['id']} {row['name']}" if row.get("name") and row["name"] != row["id"] \
        else str(row["id"])
    if len(text) > 34:
        text = text[:33] + "…"
    r = role(row, doc)
    if r == "baseline":
        text += " (baseline)"
    return text


def draw_rows(figure, ax, docs, labels, ids, value, text, unit_words, log=False, dots=False,
              mark_fastest=True, percent=False, missing="not timed", short=False):
    """One horizontal mark per row and series (GPU). value(row) -> number or None, text(row,
    doc) -> the label. Bars when not `dots` (linear axis, from 0), else dots (log when `log`).
    The baseline's value is a dashed reference line, wrong-on-purpose rows hatched, the fastest
    stage marked."""
    plt = figure.plt
    series = len(docs)
    height = 0.8 / series
    values = [value(r) for d in docs for r in d["rows"] if row_key(r) in ids and value(r)]
    column = (max(values) * (2.6 if log else 1.06)) if values else 1
    ax._ct_value_labels = []
    ax._ct_kind = "dots" if dots else "bars"
    for k, doc in enumerate(docs):
        by_id = {row_key(row): row for row in doc["rows"]}
        fastest, tied = fastest_ids(doc) if mark_fastest else (set(), False)
        colour = GPU_COLOURS[k % len(GPU_COLOURS)] if series > 1 else STAGE_COLOUR
        for i, row_id in enumerate(ids):
            row = by_id.get(row_id)
            y = i + (k - (series - 1) / 2) * height
            if row is None:
                continue
            r = role(row, doc)
            v = value(row)
            words = text(row, doc) if v is not None else missing
            if r == "expected failure" and not short:
                words += f" · {WRONG_WORDS}"
            elif not row.get("passed", True) and r != "expected failure":
                words += " · FAIL"
            if row["id"] in fastest and v is not None:
                words += " · ★ tied fastest" if tied else " · ★ fastest"
            if series > 1 and not short:
                words = f"{labels[k]}: {words}"
            face = colour
            if series == 1 and r == "baseline":
                face = BASELINE_COLOUR
            if r == "stage" and not row.get("passed", True):
                face = FAIL_COLOUR
            artist = None
            if v is None:
                pass
            elif dots:
                marker = {"baseline": "D", "expected failure": "X"}.get(r, "o")
                artist = ax.plot([v], [y], marker=marker, markersize=11 if series == 1 else 9,
                                 color=WRONG_COLOUR if r == "expected failure" else face,
                                 markeredgecolor="black" if r == "baseline" else face,
                                 linestyle="none", zorder=3)[0]
            else:
                kwargs = dict(height=height * 0.92, color=face, edgecolor=face, linewidth=1.2)
                if r == "expected failure":
                    kwargs.update(color="white", edgecolor=WRONG_COLOUR if series == 1 else face,
                                  hatch=WRONG_HATCH)
                if r == "baseline" and series > 1:
                    kwargs.update(alpha=0.55, linestyle="--", edgecolor="black")
                artist = ax.barh([y], [v], **kwargs)[0]
            x = v if v is not None else None
            if x is None:
                label = ax.annotate(words, (0.01, y), xycoords=ax.get_yaxis_transform(),
                                    va="center", ha="left", fontsize=VALUE_PT, color="#444444")
            else:
                # A bar's label sits at its end; a dot's in a column right of the largest
                # value (the axis below that column carries no ticks).
                label = ax.annotate(words, (column, y) if dots else (x, y),
                                    xytext=(0 if dots else 6, 0),
                                    textcoords="offset points", va="center", ha="left",
                                    fontsize=VALUE_PT,
                                    fontweight="bold" if row["id"] in fastest else "normal")
            ax._ct_value_labels.append(label)
            figure.marks.append((r, artist, label, ax._ct_kind))
        base = baseline_row(doc)
        if base and value(base) is not None and row_key(base) in ids:
            ax.axvline(value(base), color=BASELINE_COLOUR if series == 1 else colour,
                       linestyle="--", linewidth=1.6, zorder=1)
    ax.set_yticks(range(len(ids)))
    ax.set_yticklabels([row_tick(next(r for d in docs for r in d["rows"] if row_key(r) == i),
                                 docs[0]) for i in ids])
    ax.set_ylim(len(ids) - 0.5, -0.5)
    if log:
        ax.set_xscale("log")
        low, high = min(values), max(values)
        ax.set_xlim(low / 1.6, column * 3)
        decades = range(math.floor(math.log10(low / 1.6)), math.ceil(math.log10(high)) + 1)
        ticks = [10.0 ** e for e in decades if low / 1.6 <= 10.0 ** e <= high * 1.3]
        if len(ticks) > 4:
            ticks = ticks[len(ticks) % 2::2]
        ax.xaxis.set_major_locator(plt.FixedLocator(ticks))
        ax.xaxis.set_minor_locator(plt.NullLocator())
        ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.spines["bottom"].set_bounds(low / 1.6, high * 1.3)
        ax.grid(True, axis="x", which="major", alpha=0.35)
        ax.grid(True, axis="y", alpha=0.15)
    elif dots:
        ax.set_xlim(0, column * 1.5)
        ax.xaxis.set_major_locator(plt.MaxNLocator(5))
        ax.spines["bottom"].set_bounds(0, max(values) * 1.02)
        ax.grid(True, axis="x", alpha=0.35)
        ax.grid(True, axis="y", alpha=0.15)
    else:
        ax.set_xlim(0, max(values) * 1.15 if values else 1)
        ax.grid(True, axis="x", alpha=0.35)
        if percent and max(values) <= 100:
            ax.set_xticks([0, 20, 40, 60, 80, 100])
    ax.set_axisbelow(True)
    if log:
        unit_words = unit_words.replace("\n", " (log scale)\n", 1) if "\n" in unit_words \
            else unit_words + " (log scale)"
    ax.set_xlabel(unit_words)


def roles_present(docs, ids):
    return {role(row, doc) for doc in docs for row in doc["rows"] if row_key(row) in ids}


def role_legend(figure, docs, labels, ids, dots):
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    handles, names = [], []
    present = roles_present(docs, ids)
    if len(docs) > 1:
        for k, label in enumerate(labels):
            handles.append(Patch(color=GPU_COLOURS[k % len(GPU_COLOURS)]))
            names.append(label)
    else:
        handles.append(Line2D([0], [0], marker="o", color=STAGE_COLOUR, linestyle="none",
                              markersize=11) if dots else Patch(color=STAGE_COLOUR))
        names.append(row_noun(docs[0]))
    if "baseline" in present:
        base = docs[0]
        handles.append(Line2D([0], [0], color=BASELINE_COLOUR if len(docs) == 1 else "black",
                              linestyle="--", linewidth=1.6))
        names.append(f"baseline ({base_words(base)}): dashed line")
    if "expected failure" in present:
        handles.append(Patch(facecolor="white", edgecolor=WRONG_COLOUR, hatch=WRONG_HATCH)
                       if not dots else Line2D([0], [0], marker="X", color=WRONG_COLOUR,
                                               linestyle="none", markersize=10))
        names.append(WRONG_WORDS + " (FAIL expected)")
    figure.add_legend(handles, names)


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
    times = [row["median_ms"] for row in rows if row.get("median_ms")]
    if not times:
        return None
    wide = max(times) / min(times) > WIDE_RANGE
    crowded = len(ids) * len(docs) > 34
    dots = wide or crowded
    has_peak = any(row.get("percent_of_peak") is not None for row in rows)
    has_gbs = any(row.get("gbs") is not None for row in rows)
    panels = 2 if (has_peak or has_gbs) else 1
    big = len(ids) * (len(docs) if not dots else 1) > 16
    noun = row_noun(doc)
    title = figure_title(doc, f"time per {noun}" + (" and share of peak bandwidth" if has_peak
                                                     else " and bandwidth" if has_gbs else ""))
    if len(docs) > 1:
        subtitle = f"{' against '.join(labels)}: {doc.get('title', '')}"
    else:
        subtitle = f"{labels[0]}: {doc.get('title', '')}"
    ratios = [1.6, 1][:panels] if dots else [1.15, 1][:panels]
    figure = Figure(plt, title, subtitle, footer_lines(docs, labels), big=big,
                    ncols=panels, sharey=True, gridspec_kw={"width_ratios": ratios})
    base = base_words(doc)

    def time_text(row, d):
        words = fmt_ms(row["median_ms"])
        ratio = row.get("speedup_vs_baseline")
        if base and role(row, d) == "baseline":
            words += " · baseline"
        elif base and ratio is not None and same_work(row, baseline_row(d)):
            words += " · " + ratio_words(ratio, base)
        return words

    draw_rows(figure, figure.axes[0], docs, labels, ids, lambda row: row.get("median_ms"),
              time_text, "median time, ms\n(lower is better)", log=wide, dots=dots)
    if panels == 2:
        if has_peak:
            rate, unit = (lambda row: row.get("percent_of_peak")), "%"
            words = ("% of each GPU's own\ntheoretical DRAM bandwidth\n(higher is better)"
                     if len(docs) > 1 else "% of theoretical DRAM bandwidth\n(higher is better)")
        else:
            rate, unit = (lambda row: row.get("gbs")), "GB/s"
            words = "GB/s\n(higher is better)"
        draw_rows(figure, figure.axes[1], docs, labels, ids, rate,
                  lambda row, d: fmt_rate(rate(row), unit), words, dots=crowded,
                  mark_fastest=False, percent=unit == "%", missing="– (no bytes counted)",
                  short=True)
        figure.axes[1].tick_params(axis="y", left=False)
    role_legend(figure, docs, labels, ids, dots)
    return figure.finish()


# ---------------------------------------------------------------------------------------------
# Sweeps as lines
# ---------------------------------------------------------------------------------------------


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
    data = [scaling_series(doc) for doc in docs]
    prefixes = [p for p in data[0] if all(p in d for d in data)]
    figure = Figure(plt, "Execution model: the same grid on more SMs (transparent scalability)",
                    f"{' against '.join(labels)}: rate against SMs in the partition (green "
                    "contexts); dashed: ideal linear scaling from the smallest partition",
                    footer_lines(docs, labels), ncols=len(prefixes))
    from matplotlib.lines import Line2D
    for ax, prefix in zip(figure.axes, prefixes):
        name, unit, _ = data[0][prefix]
        kind = "memory-bound" if unit == "GB/s" else "compute-bound"
        labels_to_place = []
        top = 0
        for k, (doc, series) in enumerate(zip(docs, data)):
            colour = GPU_COLOURS[k % len(GPU_COLOURS)]
            _, _, points = series[prefix]
            sms = [p[0] for p in points]
            rates = [p[1] for p in points]
            line = ax.plot(sms, rates, "-o", color=colour, linewidth=2.4, markersize=7,
                           label=labels[k], zorder=3)[0]
            ideal = [rates[0] * s / sms[0] for s in sms]
            ax.plot(sms, ideal, "--", color=colour, linewidth=1.5, alpha=0.8, zorder=2)
            top = max(top, max(rates))
            peak = doc["run"].get("peak_gbs")
            if unit == "GB/s" and peak:
                ax.axhline(peak, color=colour, linestyle=":", linewidth=1.8)
                ax.annotate(f"{labels[k]} theoretical DRAM bandwidth {peak:.0f} GB/s",
                            (0.01, peak), xycoords=ax.get_yaxis_transform(), xytext=(0, 4),
                            textcoords="offset points", fontsize=VALUE_PT, color=colour)
                top = max(top, peak)
            for s, v in zip(sms, rates):
                labels_to_place.append((s, v, f"{v:.0f}", colour, 0 if k % 2 == 0 else 1))
            figure.marks.append(("stage", line, None, "line"))
        ax.set_ylim(0, top * 1.22)
        ax.set_xlim(0, max(p[0] for p in data[0][prefix][2]) * 1.06)
        largest = max(p[0] for p in data[0][prefix][2])
        ticks = [t for t in range(0, largest, 16) if largest - t >= 12] + [largest]
        ax.set_xticks(ticks)
        ax.set_xlabel("SMs in the partition")
        ax.set_ylabel(f"{unit} (higher is better)")
        ax.set_title(f"{name} ({kind})", fontsize=LABEL_PT + 1)
        ax.grid(True, alpha=0.3)
        ax._ct_points = labels_to_place
    handles = [Line2D([0], [0], color=GPU_COLOURS[k], marker="o", linewidth=2.4)
               for k in range(len(docs))]
    handles.append(Line2D([0], [0], color=REFERENCE_COLOUR, linestyle="--"))
    names = list(labels) + ["ideal linear scaling"]
    if any(doc["run"].get("peak_gbs") for doc in docs):
        handles.append(Line2D([0], [0], color=REFERENCE_COLOUR, linestyle=":"))
        names.append("theoretical DRAM bandwidth")
    figure.add_legend(handles, names)
    return finish_with_points(figure)


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


BLOCK_NAME = re.compile(r"block \((\d+),\s*(\d+)\)")


def is_block_sweep(doc):
    return sum(bool(BLOCK_NAME.search(row.get("name", ""))) for row in doc["rows"]) >= 4


def block_sweep_figure(plt, docs, labels):
    """% of peak against blockDim.x, one line per block size (threads per block): at the same
    size, wider rows read more contiguous bytes per warp. One panel per GPU."""
    from matplotlib.lines import Line2D
    doc = docs[0]
    use_peak = any(r.get("percent_of_peak") is not None for r in doc["rows"])

    def shape(row):
        match = BLOCK_NAME.search(row.get("name", ""))
        return (int(match.group(1)), int(match.group(2))) if match else None

    shapes = [shape(r) for d in docs for r in d["rows"] if shape(r)]
    widths = sorted({x for x, _ in shapes})
    sizes = sorted({x * y for x, y in shapes})
    timed = {shape(r)[0] * shape(r)[1] for d in docs for r in d["rows"]
             if shape(r) and r.get("median_ms") is not None}
    values = [r.get("percent_of_peak") if use_peak else r.get("gbs")
              for d in docs for r in d["rows"] if shape(r)]
    values = [v for v in values if v is not None]
    low = max(0, math.floor((min(values) - 12) / 10) * 10) if use_peak else 0
    figure = Figure(plt, figure_title(doc, "bandwidth against block shape"),
                    f"{' against '.join(labels)}: {doc.get('title', '')}; one line per block "
                    "size, wider blocks to the right", footer_lines(docs, labels),
                    ncols=len(docs), sharey=True)
    palette = ["#8172b3", "#4c72b0", "#55a868", "#937860", "#64b5cd", "#da8bc3"]
    for k, (ax, d) in enumerate(zip(figure.axes, docs)):
        points = []
        fastest, _ = fastest_ids(d)
        for s_index, size in enumerate(sizes):
            colour = palette[s_index % len(palette)]
            xs, ys = [], []
            for row in d["rows"]:
                if not shape(row) or shape(row)[0] * shape(row)[1] != size:
                    continue
                bx, by = shape(row)
                x = widths.index(bx)
                value = row.get("percent_of_peak") if use_peak else row.get("gbs")
                if value is None or row.get("median_ms") is None:
                    mark = ax.plot([x], [low], marker="X", markersize=16, color=WRONG_COLOUR,
                                   linestyle="none", zorder=4, clip_on=False)[0]
                    why = row.get("extra", {}).get("limited by", "not timed")
                    words = f"({bx},{by}), {size} threads: {why}"
                    if role(row, d) == "expected failure":
                        words += f", {WRONG_WORDS}"
                    label = ax.annotate(words, (x, low), xytext=(-12, 10),
                                        textcoords="offset points", ha="right",
                                        fontsize=VALUE_PT, color="#444444")
                    figure.marks.append((role(row, d), mark, label, "dots"))
                    continue
                xs.append(x)
                ys.append(value)
                points.append((x, value, f"{value:.1f}" if use_peak else f"{value:.0f}",
                               colour, 0))
                if row["id"] in fastest:
                    ax.plot([x], [value], marker="*", markersize=24, color="#f0c419",
                            markeredgecolor="black", zorder=5, linestyle="none")
            if xs:
                xs, ys = zip(*sorted(zip(xs, ys)))
                line = ax.plot(xs, ys, "-o", color=colour, linewidth=2.4, markersize=8,
                               zorder=3)[0]
                figure.marks.append(("stage", line, None, "line"))
        ax._ct_points = points
        ax.set_xticks(range(len(widths)))
        ax.set_xticklabels([str(w) for w in widths])
        ax.set_xlim(-0.4, len(widths) - 0.6)
        ax.set_xlabel("blockDim.x (threads along a row of the matrix)")
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
    handles.append(Line2D([0], [0], marker="*", color="#f0c419", markeredgecolor="black",
                          linestyle="none", markersize=16))
    names.append("fastest (several: the same within noise)")
    if any(role(r, d) == "expected failure" for d in docs for r in d["rows"]):
        handles.append(Line2D([0], [0], marker="X", color=WRONG_COLOUR, linestyle="none",
                              markersize=12))
        names.append(f"{WRONG_WORDS}: not launchable")
    figure.add_legend(handles, names)
    return finish_with_points(figure)


def bin_series(doc):
    """{kernel key: (name, [(bins, GB/s)])} over a wide histogram table ('4096:private')."""
    found = {}
    for row in doc["rows"]:
        if ":" not in str(row["id"]) or row.get("gbs") is None:
            continue
        bins, key = str(row["id"]).split(":", 1)
        if not bins.isdigit():
            continue
        found.setdefault(key, (row["name"], []))[1].append((int(bins), row["gbs"]))
    return {key: value for key, value in found.items() if len(value[1]) >= 2}


def is_bin_sweep(doc):
    return len(bin_series(doc)) >= 2


def bin_sweep_figure(plt, docs, labels):
    """GB/s against the number of bins, one line per kernel, CUB dashed; one panel per GPU.
    Both axes span decades: log scales, labelled."""
    from matplotlib.lines import Line2D
    doc = docs[0]
    figure = Figure(plt, figure_title(doc, "bandwidth against the number of bins"),
                    f"{' against '.join(labels)}: {doc.get('title', '')}",
                    footer_lines(docs, labels), ncols=len(docs), sharey=True, big=True)
    keys = list(bin_series(doc))
    palette = ["#937860", "#4c72b0", "#8172b3", "#1b7837", "#5aae61", "#a6dba0", "#762a83",
               "#c2a5cf", "#64b5cd", "#da8bc3"]
    styles = {}
    colour_index = 0
    for key in keys:
        if key == "cub":
            styles[key] = dict(color=BASELINE_COLOUR, linestyle="--", linewidth=2.6, marker="D")
        else:
            styles[key] = dict(color=palette[colour_index % len(palette)], linestyle="-",
                               linewidth=2.2, marker="o")
            colour_index += 1
    all_values = []
    for k, (ax, d) in enumerate(zip(figure.axes, docs)):
        series = bin_series(d)
        points = []
        for key in keys:
            if key not in series:
                continue
            name, data = series[key]
            data.sort()
            line = ax.plot([b for b, _ in data], [g for _, g in data], markersize=7,
                           zorder=3, **styles[key])[0]
            figure.marks.append(("baseline" if key == "cub" else "stage", line, None, "line"))
            for b, g in data:
                points.append((b, g, f"{g:.0f}" if g >= 10 else f"{g:.1f}",
                               styles[key]["color"], 0))
                all_values.append(g)
        ax._ct_points = points
        ax.set_xscale("log", base=2)
        bins = sorted({b for _, data in series.values() for b, _ in data})
        ax.set_xticks(bins)
        ax.set_xticklabels([f"{b:,}" for b in bins])
        ax.set_xlim(bins[0] / 1.5, bins[-1] * 1.5)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("bins (log scale)")
        ax.set_ylabel("GB/s of input (log scale; higher is better)")
        peak = d["run"].get("peak_gbs")
        if peak:
            ax.axhline(peak, color=REFERENCE_COLOUR, linestyle=":", linewidth=1.8)
            ax.annotate(f"theoretical DRAM bandwidth {peak:.0f} GB/s", (0.01, peak),
                        xycoords=ax.get_yaxis_transform(), xytext=(0, 4),
                        textcoords="offset points", fontsize=VALUE_PT, color=REFERENCE_COLOUR)
            all_values.append(peak)
        if len(docs) > 1:
            ax.set_title(labels[k])
        ax.grid(True, which="major", alpha=0.3)
    for ax in figure.axes:
        ax.set_ylim(min(all_values) / 2, max(all_values) * 2.2)
    handles = [Line2D([0], [0], **styles[key]) for key in keys]
    names = [bin_series(doc)[key][0] + (" (baseline)" if key == "cub" else "") for key in keys]
    figure.add_legend(handles, names)
    return finish_with_points(figure)


def staircase_figure(plt, docs, labels):
    """The progression's % of peak, stage by stage, as a staircase; the baseline a dashed line,
    the fastest stage starred."""
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
        fastest, tied = fastest_ids(d)
        for x in xs:
            if ids[x] in fastest:
                ax.plot([x], [by_id[ids[x]]["percent_of_peak"]], marker="*", markersize=24,
                        color="#f0c419", markeredgecolor="black", zorder=5)
        base = baseline_row(d)
        if base and base.get("percent_of_peak") is not None:
            ax.axhline(base["percent_of_peak"], color=BASELINE_COLOUR if len(docs) == 1
                       else colour, linestyle="--", linewidth=1.8, zorder=2)
            ax.annotate(f"{(labels[k] + ' ') if len(docs) > 1 else ''}{base_words(d)} "
                        f"{base['percent_of_peak']:.1f}%", (0.0, base["percent_of_peak"]),
                        xycoords=ax.get_yaxis_transform(), xytext=(6, -18 - 16 * k),
                        textcoords="offset points", fontsize=VALUE_PT,
                        color=BASELINE_COLOUR if len(docs) == 1 else colour)
    ax._ct_points = points
    ax.set_xticks(range(len(ids)))
    ax.set_xticklabels([f"{row['id']}\n" + textwrap.fill(row["name"].replace("_", " "), 12)
                        for row in stages], fontsize=max(MIN_FONT_PT + 0.5, TICK_PT - 2))
    ax.set_xlabel(row_noun(doc))
    ax.set_xlim(-0.6, len(ids) - 0.4)
    ax.set_ylim(0, 108)
    ax.set_ylabel("% of theoretical DRAM bandwidth (higher is better)")
    ax.grid(True, axis="y", alpha=0.3)
    handles = [Line2D([0], [0], color=GPU_COLOURS[k] if len(docs) > 1 else STAGE_COLOUR,
                      linewidth=2.8, marker="o") for k in range(len(docs))]
    names = list(labels) if len(docs) > 1 else [f"{labels[0]}, {row_noun(doc)} by "
                                                f"{row_noun(doc)}"]
    if baseline_row(doc):
        handles.append(Line2D([0], [0], color=BASELINE_COLOUR if len(docs) == 1 else "black",
                              linestyle="--"))
        names.append(f"baseline ({base_words(doc)})")
    handles.append(Line2D([0], [0], marker="*", color="#f0c419", markeredgecolor="black",
                          linestyle="none", markersize=16))
    names.append("fastest (several: the same within noise)")
    figure.add_legend(handles, names)
    return finish_with_points(figure)


def is_staircase(doc):
    return doc["program"] == "reduction" and sum(
        role(row, doc) == "stage" and row.get("percent_of_peak") is not None
        for row in doc["rows"]) >= 4


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
                    f"{labels[0]}: {doc.get('title', '')}", footer_lines(docs, labels),
                    ncols=2, sharey=True,
                    gridspec_kw={"width_ratios": [1, 1.9] if wide else [1, 1]})
    draw_rows(figure, figure.axes[0], docs, labels, ids,
              lambda row: number(row.get("extra", {}).get("device launches", "")),
              lambda row, d: str(row.get("extra", {}).get("device launches")),
              "kernels launched from the GPU\n(device-side launches)", mark_fastest=False,
              missing="–", short=True)
    ax = figure.axes[0]
    ax.xaxis.set_major_locator(figure.plt.MaxNLocator(4, integer=True))
    ax.xaxis.set_major_formatter(figure.plt.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    base = base_words(doc)

    def time_text(row, d):
        if role(row, d) == "baseline":
            return fmt_ms(row["median_ms"]) + " · baseline"
        ratio = row.get("speedup_vs_baseline")
        return fmt_ms(row["median_ms"]) + (" · " + ratio_words(ratio, base)
                                           if base and ratio is not None else "")

    draw_rows(figure, figure.axes[1], docs, labels, ids, lambda row: row.get("median_ms"),
              time_text, "median time, ms\n(lower is better)", log=wide, dots=wide)
    figure.axes[1].tick_params(axis="y", left=False)
    role_legend(figure, docs, labels, ids, wide)
    return figure.finish()


def text_beside(doc):
    """The program's plain output saved beside its JSON (<stem>.txt), or ''."""
    folder, stem = doc.get("_folder"), doc.get("_stem")
    if not folder or not stem:
        return ""
    path = pathlib.Path(folder) / f"{stem}.txt"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


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


def pipeline_figure(plt, docs, labels):
    """Pipeline time against K (chunks): one stream, a stream per chunk depth first and breadth
    first, the ideal dashed, the sum of the stages dotted; one panel per GPU."""
    from matplotlib.lines import Line2D
    tables = [pipeline_table(doc) for doc in docs]
    if not all(tables):
        return None
    doc = docs[0]
    figure = Figure(plt, "Streams: copy and compute in K chunks, time against K",
                    f"{' against '.join(labels)}: each chunk copied in, processed, copied out; "
                    "one stream against a stream per chunk", footer_lines(docs, labels, extra=[
                        "Read from the K table that the program prints beside its JSON "
                        f"({doc.get('_stem')}.txt)."]),
                    ncols=len(docs), sharey=True)
    styles = {"one_stream ms": ("one stream", "#8c8c8c", "-", "o"),
              "depth_first ms": ("a stream per chunk, depth first", "#4c72b0", "-", "o"),
              "breadth_first ms": ("a stream per chunk, breadth first", "#55a868", "-", "s"),
              "ideal ms": ("ideal: (sum + (K-1) x slowest) / K", REFERENCE_COLOUR, "--", ""),
              "sum ms": ("sum of the stages, one after another", REFERENCE_COLOUR, ":", "")}
    top = 0
    for k, (ax, table) in enumerate(zip(figure.axes, tables)):
        ks = [int(row["K"]) for row in table]
        xs = list(range(len(ks)))
        points = []
        for column, (name, colour, style, marker) in styles.items():
            ys = [row[column] for row in table]
            top = max(top, max(ys))
            line = ax.plot(xs, ys, linestyle=style, marker=marker or None, color=colour,
                           linewidth=2.4 if marker else 1.8, markersize=8, zorder=3)[0]
            figure.marks.append(("baseline" if not marker else "stage", line, None, "line"))
            if marker:
                for x, y in zip(xs, ys):
                    points.append((x, y, f"{y:.3g}", colour,
                                   {"o": 0, "s": 1}.get(marker, 0)))
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
    handles = [Line2D([0], [0], color=c, linestyle=s, marker=m or None, linewidth=2.2)
               for _, c, s, m in styles.values()]
    figure.add_legend(handles, [name for name, _, _, _ in styles.values()])
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
    figure = Figure(plt, f"Streams: one pass of the pipeline at K = {found[0][1]}, stream by "
                    "stream", f"{labels[0]}: copy in (H), kernel (K), copy out (D) of each chunk;"
                    " a stream per chunk overlaps the copies with the kernels",
                    footer_lines(docs, labels, extra=[
                        f"Drawn from the text timelines the program prints ({doc.get('_stem')}"
                        f".txt): one character = {found[0][2] / width:.1f} µs; kernels from "
                        "%globaltimer, copies from events in their stream."]),
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


def busbw_series(doc):
    """{label: [(bytes, busbw GB/s, median µs)]} over an all-reduce table."""
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


def busbw_figure(plt, docs, labels):
    """Bus bandwidth against message size (both a line per stage and NCCL, NCCL dashed as the
    baseline, the measured link dotted), and the time, both against size on a log axis."""
    from matplotlib.lines import Line2D
    doc = docs[0]
    series = busbw_series(doc)
    params = doc["run"].get("parameters", {})
    match = re.match(r"([\d.]+) GB/s", params.get("link (GPU 0 -> 1, measured)", ""))
    link = float(match.group(1)) if match else None
    batch = params.get("calls per sample", "")
    figure = Figure(plt, f"All-reduce on {labels[0]}: bus bandwidth against message size",
                    f"{doc.get('title', '')}; NCCL {params.get('NCCL', '?')}"
                    + (f"; {batch.split(',')[0]} calls per sample" if batch else ""),
                    footer_lines(docs, labels), ncols=2, big=True)
    ax, ax_time = figure.axes
    # Eight stages and more: as many distinct colours, none of them the baseline's orange.
    palette = ["#8172b3", "#4c72b0", "#55a868", "#937860", "#64b5cd", "#da8bc3", "#8c8c8c",
               "#c44e52", "#ccb974", "#2f4f4f"]
    handles, names = [], []
    busbw_points, time_points = [], []
    sizes = sorted({p[0] for points in series.values() for p in points})
    for index, ((stage, name), points) in enumerate(series.items()):
        baseline = stage.lower() == "nccl"
        colour = BASELINE_COLOUR if baseline else palette[index % len(palette)]
        style = dict(color=colour, linestyle="--" if baseline else "-",
                     linewidth=2.8 if baseline else 2.2, marker="D" if baseline else "o",
                     markersize=7)
        xs = [p[0] for p in points]
        line = ax.plot(xs, [p[1] for p in points], **style)[0]
        ax_time.plot(xs, [p[2] for p in points], **style)
        figure.marks.append(("baseline" if baseline else "stage", line, None, "line"))
        handles.append(Line2D([0], [0], **style))
        names.append(f"{stage}: {name}" + (" (baseline)" if baseline else ""))
        for x, b, t in points:
            busbw_points.append((x, b, f"{b:.0f}" if b >= 10 else f"{b:.1f}", colour, 0))
            time_points.append((x, t, f"{t:.0f}", colour, 0))
    if link:
        ax.axhline(link, color=REFERENCE_COLOUR, linestyle=":", linewidth=1.8)
        handles.append(Line2D([0], [0], color=REFERENCE_COLOUR, linestyle=":"))
        names.append(f"the link, one way, measured ({link:.0f} GB/s)")
    for axis in (ax, ax_time):
        axis.set_xscale("log", base=2)
        axis.set_xticks(sizes)
        # Sizes closer than a factor of 4 would print their labels over each other: slant them.
        crowded = any(b < 4 * a for a, b in zip(sizes, sizes[1:]))
        axis.set_xticklabels([size_name(s).replace(".0 ", " ") for s in sizes],
                             rotation=35 if crowded else 0, ha="right" if crowded else "center")
        axis.set_xlabel("message size per GPU (log scale)")
        axis.grid(True, which="major", alpha=0.3)
    ax.set_ylim(0, max(p[1] for points in series.values() for p in points) * 1.2)
    ax.set_ylabel("bus bandwidth, GB/s (higher is better)")
    ax.set_title("bus bandwidth")
    ax_time.set_yscale("log")
    ax_time.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax_time.set_ylabel("median time, µs (log scale; lower is better)")
    ax_time.set_title("time")
    ax._ct_points = busbw_points
    ax_time._ct_points = time_points
    figure.add_legend(handles, names)
    return finish_with_points(figure)


# ---------------------------------------------------------------------------------------------
# Which figures a table gets
# ---------------------------------------------------------------------------------------------

# (test, figure function, file suffix, also for comparisons). A table that passes no test gets
# the stage figure as its main figure (suffix ""); one whose main figure is a sweep gets the
# sweep under its own name and no stage figure.
FIGURES = [
    (is_scaling, scaling_figure, "_sms", True),
    (is_block_sweep, block_sweep_figure, "", True),
    (is_bin_sweep, bin_sweep_figure, "", True),
    (is_busbw_sweep, busbw_figure, "_busbw", False),
    (is_staircase, staircase_figure, "_staircase", True),
    (is_launch_table, launches_figure, "_launches", False),
    (lambda doc: bool(pipeline_table(doc)), pipeline_figure, "_k", True),
    (lambda doc: bool(timelines(doc)), timeline_figure, "_timeline", False),
]
# Sweeps that replace the stage figure (a 34-row or 43-row bar chart says nothing).
REPLACES_STAGE_FIGURE = {scaling_figure, block_sweep_figure, bin_sweep_figure, busbw_figure}


def figure_plan(docs, compare=False):
    """[(suffix, figure function)] for one table (one document per GPU), without drawing."""
    plan = []
    replaced = False
    for test, function, suffix, for_compare in FIGURES:
        if compare and not for_compare:
            continue
        if all(test(doc) for doc in docs):
            if function in REPLACES_STAGE_FIGURE:
                replaced = True
                if compare:
                    suffix = ""  # compare_<stem> is the sweep
            plan.append((suffix, function))
    if not replaced and any(timed_rows(doc) for doc in docs):
        plan.insert(0, ("", stage_figure))
    return plan


def figures_for(docs, labels, plt, compare=False):
    """[(suffix, Figure)] for one table (one document per GPU)."""
    made = []
    for suffix, function in figure_plan(docs, compare):
        figure = function(plt, docs, labels)
        if figure is not None:
            made.append((suffix, figure))
    return made


def plot_one(stem, doc, out_dir, plt):
    written = []
    for suffix, figure in figures_for([doc], [gpu_label(doc)], plt):
        written += figure.save(pathlib.Path(out_dir) / f"{stem}{suffix}")
    return written


def plot_comparison(stem, docs, out_dir, plt):
    written = []
    for suffix, figure in figures_for(docs, gpu_labels(docs), plt, compare=True):
        written += figure.save(pathlib.Path(out_dir) / f"compare_{stem}{suffix}")
    return written


# ---------------------------------------------------------------------------------------------
# Tables: Markdown (comparison.md, the READMEs' COMPARE blocks) and the class page
# ---------------------------------------------------------------------------------------------


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


def comparison_cells(docs, gpus):
    """(header, [[cell]]) of the comparison of one results file on several GPUs."""
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
    body = []
    for row_id in ids:
        cells = [row_id, names[row_id]]
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
        body.append(cells)
    return header, body


def comparison_table(stem, docs):
    """Markdown: one row per kernel id; per GPU (or run) the median ms, % of its own peak and the
    ratio to the baseline measured in the same run; for every GPU after the first, how it
    compares with the first, marked within noise or not (see versus)."""
    header, body = comparison_cells(docs, gpu_labels(docs))
    lines = [f"### {stem}", ""] + [clocks_line(doc) for doc in docs] + [
        "", "| " + " | ".join(header) + " |", "|" + "|".join(["--"] * len(header)) + "|"]
    for cells in body:
        cells = [cells[0], f"`{cells[1]}`"] + cells[2:]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


COMPARE_INTRO = (
    "Median milliseconds (lower is better), % of each GPU's own theoretical DRAM "
    "bandwidth (higher is better) where the table has one, and × baseline: the "
    "baseline's median over the row's, both measured in the same run (> 1: faster "
    "than CUB or NCCL on that GPU). \"vs\" divides the first GPU's median by this "
    "one's (> 1: faster) and says whether the difference is beyond noise: when the "
    "two runs' min–max ranges overlap, it is within what either run varied by. Each "
    "section lists the clocks NVML saw during timing.")

CLASS_CSS = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; font-size: 20px;
       line-height: 1.45; margin: 0 auto; max-width: 1700px; padding: 1em 2em; color: #222; }
h1 { font-size: 2em; margin-bottom: 0.2em; } h2 { font-size: 1.7em; margin-top: 2.5em;
border-bottom: 3px solid #4c72b0; } h3 { font-size: 1.3em; margin-top: 2em;
border-bottom: 1px solid #ccc; }
nav > ol { columns: 2; } nav ol ol { font-size: 0.85em; } figure { margin: 1em 0; } figure img { width: 100%; height: auto;
border: 1px solid #ddd; } figcaption { font-size: 0.8em; color: #555; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.8em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: right; }
th { background: #f0f0f0; } td:nth-child(2), td:first-child { text-align: left; }
tr.baseline td { background: #fdf0e6; } tr.wrong td { background: repeating-linear-gradient(
135deg, #fff, #fff 6px, #eee 6px, #eee 12px); } p.clocks { font-size: 0.75em; color: #555; }
"""


def class_page(sections, labels):
    """The class page: for every shared results file, its figures and its table."""
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>The same programs on {html.escape(' and '.join(labels))}</title>",
           f"<style>{CLASS_CSS}</style>", "</head>", "<body>",
           f"<h1>The same programs on {html.escape(' and '.join(labels))}</h1>",
           f"<p>{html.escape(COMPARE_INTRO)}</p>", "<nav><ol>"]
    groups = []  # [(program in words, [section])], chapter by chapter
    for section in sections:
        if not groups or groups[-1][0] != section["program"]:
            groups.append((section["program"], []))
        groups[-1][1].append(section)
    for program, members in groups:
        out.append(f"<li>{html.escape(program)}<ol>")
        for section in members:
            out.append(f'<li><a href="#{section["stem"]}">{html.escape(section["title"])}</a>'
                       "</li>")
        out.append("</ol></li>")
    out.append("</ol></nav>")
    for section in sections:
        if section is next(members[0] for program, members in groups
                           if program == section["program"]):
            out.append(f"<h2>{html.escape(section['program'])}</h2>")
        out.append(f'<section id="{section["stem"]}">')
        out.append(f"<h3>{html.escape(section['title'])}</h3>")
        for image, alt in section["images"]:
            out.append(f'<figure><img src="{html.escape(image)}" alt="{html.escape(alt)}">'
                       f"<figcaption>{html.escape(alt)}</figcaption></figure>")
        for line in section["clocks"]:
            out.append(f'<p class="clocks">{html.escape(line)}</p>')
        header, body, classes = section["table"]
        out.append("<table>")
        out.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>")
        for cells, css in zip(body, classes):
            attribute = f' class="{css}"' if css else ""
            out.append(f"<tr{attribute}>" + "".join(f"<td>{html.escape(str(c))}</td>"
                                                    for c in cells) + "</tr>")
        out.append("</table>")
        out.append("</section>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


def chapter_order(stem, doc):
    programs = list(PROGRAMS)
    program = doc["program"]
    return (programs.index(program) if program in programs else len(programs), stem)


def compare(folders, out_dir):
    loaded = [load_results(folder) for folder in folders]
    shared = [stem for stem in loaded[0] if all(stem in other for other in loaded[1:])]
    if not shared:
        sys.exit("the folders share no result files")
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    plt = import_pyplot()
    sections = []
    labels = None
    for stem in sorted(shared, key=lambda s: chapter_order(s, loaded[0][s])):
        docs = [results[stem] for results in loaded]
        labels = gpu_labels(docs)
        images = []
        for path in plot_comparison(stem, docs, out_dir, plt):
            print(path)
            if path.suffix == ".svg":
                images.append((path.name, figure_alt(stem, path.name, docs)))
        header, body = comparison_cells(docs, labels)
        classes = []
        for cells in body:
            row = next((r for r in docs[0]["rows"] if r["id"] == cells[0]), None)
            r = role(row, docs[0]) if row else ""
            classes.append({"baseline": "baseline", "expected failure": "wrong"}.get(r, ""))
            if r == "expected failure":
                cells[1] += f" ({WRONG_WORDS})"
        sections.append({"stem": stem, "program": program_words(docs[0])[0],
                         "title": (size_words(docs[0]).lstrip(", ") + ": "
                                   if size_words(docs[0]) else "") + stem_words(stem, docs[0]),
                         "images": images, "clocks": [line[2:] for line in
                                                      (clocks_line(d) for d in docs)],
                         "table": (header, body, classes)})
    # comparison.md keeps the order of the files (the READMEs' COMPARE blocks read the same
    # function); the class page goes chapter by chapter.
    markdown_sorted = ["# Comparison", "", COMPARE_INTRO, ""] + [
        comparison_table(stem, [results[stem] for results in loaded]) for stem in shared]
    (out_dir / "comparison.md").write_text("\n".join(markdown_sorted), encoding="utf-8")
    print(out_dir / "comparison.md")
    page = class_page(sections, gpu_labels([loaded[i][shared[0]] for i in range(len(loaded))]))
    (out_dir / "class.html").write_text(page, encoding="utf-8")
    print(out_dir / "class.html")
    return 0


def stem_words(stem, doc):
    """What a results file holds, in words, for the class page's headings."""
    words = doc.get("title") or stem.replace("_", " ")
    return f"{words} ({stem})"


def figure_alt(stem, name, docs):
    title = SAVED_TITLES.get(name.rsplit(".", 1)[0], stem)
    return f"{title} ({' against '.join(gpu_labels(docs))})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    plot = sub.add_parser("plot", help="the figures of one results folder")
    plot.add_argument("folder")
    plot.add_argument("--out", help="where to write (default: the folder itself)")
    plot.add_argument("--only", help="only the tables whose file stem matches this regex")
    comp = sub.add_parser("compare", help="compare several results folders")
    comp.add_argument("folders", nargs="+")
    comp.add_argument("--out", required=True)
    args = parser.parse_args()

    if args.command == "plot":
        results = load_results(args.folder)
        if not results:
            sys.exit(f"no result JSON files in {args.folder}")
        out_dir = pathlib.Path(args.out or args.folder)
        out_dir.mkdir(parents=True, exist_ok=True)
        plt = import_pyplot()
        for stem, doc in results.items():
            if args.only and not re.search(args.only, stem):
                continue
            for path in plot_one(stem, doc, out_dir, plt):
                print(path)
        return 0

    if len(args.folders) < 2:
        sys.exit("compare needs at least two results folders")
    return compare(args.folders, args.out)


if __name__ == "__main__":
    sys.exit(main())
