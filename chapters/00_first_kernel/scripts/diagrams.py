#!/usr/bin/env python3
"""Chapter 0's two diagrams, drawn to scale from the same numbers the program uses:

  first_kernel_index_map   kernel<<<3, 4>>> over n = 10 elements: which thread owns which element,
                           and the two threads the guard stops
  first_kernel_stencil     one block's shared tile: its blockDim.x elements plus the halo of r on
                           each side, and the 2r + 1 tile slots one thread sums

    python3 chapters/00_first_kernel/scripts/diagrams.py [--out docs/images]

Writes SVG (for the site) and PNG (for slides), 1600 x 900 px, deterministic for one matplotlib
version (no dates, a fixed SVG hash salt).
"""
import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Rectangle  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
BLOCK_COLOURS = ["#4C72B0", "#DD8452", "#55A868"]
GUARDED = "#BBBBBB"
plt.rcParams.update({"font.size": 18, "svg.hashsalt": "first_kernel", "font.family": "DejaVu Sans"})


def save(fig, out, stem):
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / f"{stem}.svg", metadata={"Date": None})
    fig.savefig(out / f"{stem}.png", dpi=100, metadata={"Software": None})
    plt.close(fig)


def index_map(out, n=10, block=4):
    grid = (n + block - 1) // block
    fig, ax = plt.subplots(figsize=(16, 9))
    ax.set_xlim(-0.5, grid * block + 1.5)
    ax.set_ylim(0.0, 6.4)
    ax.axis("off")
    ax.set_title(f"kernel<<<{grid}, {block}>>> over n = {n} elements: "
                 "i = blockIdx.x * blockDim.x + threadIdx.x", fontsize=24, pad=16)
    # The threads, block by block (top row), and the array (bottom row).
    for b in range(grid):
        ax.add_patch(Rectangle((b * block - 0.48, 3.68), block - 0.04, 1.44, fill=False,
                               edgecolor=BLOCK_COLOURS[b], linewidth=3))
        ax.text(b * block + (block - 1) / 2, 5.3, f"block {b}\nblockIdx.x = {b}",
                ha="center", fontsize=19, color=BLOCK_COLOURS[b], weight="bold")
        for t in range(block):
            i = b * block + t
            x = b * block + t
            colour = BLOCK_COLOURS[b] if i < n else GUARDED
            ax.add_patch(Rectangle((x - 0.4, 3.8), 0.8, 1.2, color=colour, alpha=0.9))
            ax.text(x, 4.55, f"t{t}", ha="center", va="center", color="white", fontsize=18,
                    weight="bold")
            ax.text(x, 4.05, f"i={i}", ha="center", va="center", color="white", fontsize=15)
            if i < n:
                ax.add_patch(FancyArrowPatch((x, 3.75), (x, 1.95), arrowstyle="-|>",
                                             mutation_scale=18, color=colour, linewidth=2))
    for i in range(n):
        ax.add_patch(Rectangle((i - 0.4, 0.9), 0.8, 1.0, fill=False, edgecolor="black",
                               linewidth=2))
        ax.text(i, 1.4, f"c[{i}]", ha="center", va="center", fontsize=16)
    last = grid * block - 1
    ax.text((n + last) / 2, 2.55, "i >= n:\nthe guard\nif (i < n)\nstops them", ha="center",
            va="center", fontsize=17, color="#555555")
    ax.text(0, 0.3, f"{grid} blocks x {block} threads = {grid * block} threads for {n} elements: "
            "ceil(n / blockDim.x) blocks, the last one partial", fontsize=18, ha="left")
    save(fig, out, "first_kernel_index_map")


def stencil_tile(out, block=8, radius=3):
    tile = block + 2 * radius
    fig, ax = plt.subplots(figsize=(16, 9))
    ax.set_xlim(-1.0, tile + 0.5)
    ax.set_ylim(-0.8, 6.6)
    ax.axis("off")
    ax.set_title(f"One block's shared tile: blockDim.x = {block} elements + a halo of r = {radius} "
                 "on each side", fontsize=24, pad=16)
    for k in range(tile):
        halo = k < radius or k >= radius + block
        colour = "#DD8452" if halo else "#4C72B0"
        ax.add_patch(Rectangle((k - 0.45, 3.6), 0.9, 1.2, color=colour, alpha=0.9))
        ax.text(k, 4.2, f"{k}", ha="center", va="center", color="white", fontsize=18,
                weight="bold")
    ax.text(-0.9, 4.2, "tile[k]", ha="right", va="center", fontsize=18)
    ax.text(radius / 2 - 0.5, 5.2, "left halo", ha="center", fontsize=18, color="#DD8452")
    ax.text(radius + block + radius / 2 - 0.5, 5.2, "right halo", ha="center", fontsize=18,
            color="#DD8452")
    ax.text(radius + block / 2 - 0.5, 5.2, "the block's own elements", ha="center", fontsize=18,
            color="#4C72B0")
    # Thread t = 2 sums tile[t .. t + 2r].
    t = 2
    for k in range(t, t + 2 * radius + 1):
        ax.add_patch(FancyArrowPatch((t + radius, 1.6), (k, 3.5), arrowstyle="-|>",
                                     mutation_scale=14, color="#333333", linewidth=1.5))
    ax.add_patch(Rectangle((t + radius - 0.45, 0.6), 0.9, 1.0, fill=False, edgecolor="black",
                           linewidth=2))
    ax.text(t + radius, 1.1, f"out[{t}]", ha="center", va="center", fontsize=15)
    ax.text(t + radius + 1.0, 1.1, f"thread {t} sums tile[{t}] ... tile[{t + 2 * radius}]: "
            f"2r + 1 = {2 * radius + 1} shared reads", fontsize=17, va="center")
    ax.text(-0.9, -0.3, "1. every thread loads tile slots from global memory   "
            "2. __syncthreads()   3. every thread reads 2r + 1 slots", fontsize=18)
    save(fig, out, "first_kernel_stencil_tile")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"))
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    index_map(out)
    stencil_tile(out)
    print(f"wrote {out}/first_kernel_index_map.(svg|png), first_kernel_stencil_tile.(svg|png)")


if __name__ == "__main__":
    main()
