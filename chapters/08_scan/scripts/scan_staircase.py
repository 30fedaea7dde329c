#!/usr/bin/env python3
"""Chapter 8's diagram, the staircase: the two block scans of the lesson on the same 8 numbers,
one row per step, drawn to the same scale, so that the height of each staircase is its number of
steps and the coloured cells of a row are the adds of that step.

  left   Hillis-Steele (stage 1): log2(n) steps; in the step of offset d, every element i >= d
         adds the element d to its left (from the previous row: a double buffer), n - d adds
  right  Blelloch (stages 2 and 3): the up-sweep builds a tree of partial sums in place (n - 1
         adds), the root is cleared, the down-sweep hands each prefix down the same tree (n - 1
         adds): twice the steps, fewer adds; the result is the exclusive scan

Every value in the picture is computed here by running the two algorithms on the input, so the
picture cannot disagree with them; the script checks both results against a sequential scan.

    /usr/bin/python3 chapters/08_scan/scripts/scan_staircase.py [--out docs/images]

Writes scan_staircase.svg (for the site) and scan_staircase.png (for slides), 1600 x 900 px,
deterministic for one matplotlib version (no dates, a fixed SVG hash salt).
"""
import argparse
import itertools
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Rectangle  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
INPUT = [3, 1, 7, 0, 4, 1, 6, 3]
ADDED = "#4C72B0"      # a cell written by an add in this step
MOVED = "#DD8452"      # a cell written by a copy (down-sweep's left child, the cleared root)
KEPT = "#E8E8E8"       # a cell this step leaves alone
plt.rcParams.update({"font.size": 18, "svg.hashsalt": "scan_staircase",
                     "font.family": "DejaVu Sans"})


def hillis_steele(values):
    """[(label, row, {written index: (kind, [source indices])}, adds)] for each row."""
    rows = [("input", list(values), {}, 0)]
    d = 1
    while d < len(values):
        prev = rows[-1][1]
        row = [prev[i] + prev[i - d] if i >= d else prev[i] for i in range(len(prev))]
        writes = {i: ("add", [i - d, i]) for i in range(d, len(prev))}
        rows.append((f"d = {d}", row, writes, len(writes)))
        d *= 2
    return rows


def blelloch(values):
    """The same rows for the up-sweep, the cleared root and the down-sweep (in place)."""
    n = len(values)
    a = list(values)
    rows = [("input", list(a), {}, 0)]
    d = 1
    while d < n:  # up-sweep: a[right] += a[left], right = k + 2d - 1, left = k + d - 1
        writes = {}
        for k in range(0, n, 2 * d):
            left, right = k + d - 1, k + 2 * d - 1
            a[right] += a[left]
            writes[right] = ("add", [left, right])
        rows.append((f"up, d = {d}", list(a), writes, len(writes)))
        d *= 2
    a[n - 1] = 0
    rows.append(("clear root", list(a), {n - 1: ("move", [])}, 0))
    d = n // 2
    while d >= 1:  # down-sweep: t = a[left]; a[left] = a[right]; a[right] += t
        writes = {}
        for k in range(0, n, 2 * d):
            left, right = k + d - 1, k + 2 * d - 1
            t = a[left]
            a[left] = a[right]
            a[right] += t
            writes[left] = ("move", [right])
            writes[right] = ("add", [left, right])
        rows.append((f"down, d = {d}", list(a), writes, sum(1 for w in writes.values()
                                                             if w[0] == "add")))
        d //= 2
    return rows


def draw_staircase(ax, x0, rows, title, row_height, top):
    """One staircase: cells of width 1 from x0, rows downwards from `top`, `row_height` apart."""
    n = len(rows[0][1])
    ax.text(x0 + n / 2 - 0.5, top + 0.95, title, ha="center", va="bottom", fontsize=21,
            weight="bold")
    for r, (label, row, writes, adds) in enumerate(rows):
        y = top - r * row_height
        ax.text(x0 - 0.75, y, label, ha="right", va="center", fontsize=16)
        for i, value in enumerate(row):
            kind = writes.get(i, (None,))[0]
            colour = ADDED if kind == "add" else MOVED if kind == "move" else KEPT
            ax.add_patch(Rectangle((x0 + i - 0.42, y - 0.36), 0.84, 0.72, color=colour))
            ax.text(x0 + i, y, str(value), ha="center", va="center", fontsize=17,
                    color="white" if kind else "black", weight="bold" if kind else "normal")
        if r > 0:
            ax.text(x0 + n - 0.2, y, f"{adds} add{'s' if adds != 1 else ''}", ha="left",
                    va="center", fontsize=15, color="#333333")
            for i, (kind, sources) in writes.items():
                for s in sources:
                    if s == i and kind == "add":
                        continue  # a cell adding into itself: drawn by the colour alone
                    ax.add_patch(FancyArrowPatch(
                        (x0 + s, y + row_height - 0.38), (x0 + i, y + 0.38), arrowstyle="-|>",
                        mutation_scale=14, linewidth=1.8,
                        color=ADDED if kind == "add" else MOVED, shrinkA=0, shrinkB=0))
    total = sum(r[3] for r in rows)
    steps = len([r for r in rows if r[3] > 0])
    bottom = top - (len(rows) - 1) * row_height
    return total, steps, bottom


def staircase(out):
    hs = hillis_steele(INPUT)
    bl = blelloch(INPUT)
    inclusive = list(itertools.accumulate(INPUT))
    exclusive = [0] + inclusive[:-1]
    assert hs[-1][1] == inclusive, hs[-1][1]
    assert bl[-1][1] == exclusive, bl[-1][1]

    row_height = 1.0
    top = len(bl) * row_height
    fig, ax = plt.subplots(figsize=(16, 9))
    ax.set_xlim(-3.2, 23.8)
    ax.set_ylim(-1.9, top + 1.6)
    ax.axis("off")
    ax.set_title(f"The same {len(INPUT)} numbers, one row per step: "
                 "height = steps, coloured cells = adds", fontsize=24, pad=10)
    hs_total, hs_steps, hs_bottom = draw_staircase(
        ax, 0.0, hs, "Hillis-Steele (stage 1)", row_height, top)
    bl_total, bl_steps, bl_bottom = draw_staircase(
        ax, 13.6, bl, "Blelloch (stages 2, 3)", row_height, top)
    n = len(INPUT)
    ax.text(3.5, hs_bottom - 0.9, f"inclusive scan: {hs_steps} steps, {hs_total} adds\n"
            f"(n log2 n - (n - 1) = {n * hs_steps} - {n - 1})", ha="center", va="top",
            fontsize=17)
    ax.text(17.1, bl_bottom - 0.7, f"exclusive scan: {bl_steps} steps with adds, {bl_total} adds "
            f"= 2(n - 1)", ha="center", va="top", fontsize=17)
    # The key, under the left staircase, where the right one is still going.
    key_y = hs_bottom - 3.2
    for k, (colour, text) in enumerate([(ADDED, "written by an add"),
                                        (MOVED, "written by a copy (or cleared)"),
                                        (KEPT, "unchanged in this step")]):
        y = key_y - k * 0.8
        ax.add_patch(Rectangle((-0.42, y - 0.3), 0.84, 0.6, color=colour))
        ax.text(0.7, y, text, va="center", fontsize=16)
    ax.text(-0.42, key_y - 3.0, "sequential: n - 1 = "
            f"{n - 1} adds in {n - 1} steps", va="center", fontsize=16, color="#333333")
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / "scan_staircase.svg", metadata={"Date": None})
    fig.savefig(out / "scan_staircase.png", dpi=100, metadata={"Software": None})
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"))
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    staircase(out)
    print(f"wrote {out}/scan_staircase.(svg|png)")


if __name__ == "__main__":
    main()
