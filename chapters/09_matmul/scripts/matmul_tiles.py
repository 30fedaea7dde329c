#!/usr/bin/env python3
"""Chapter 9's diagram: stage 7's three levels of tiles, each panel to its own scale (one square
per element of C), each the enlargement of the part outlined in the panel before it.

  left    the block's 128 x 128 tile of C, split into 8 warp tiles of 64 x 32 (two rows of four)
  middle  warp 0's 64 x 32 tile: its 32 lanes, a grid of 8 x 4, each lane owning two 4 x 4
          sub-tiles 32 rows apart and two 16 columns apart (lane 0's four outlined)
  right   lane 0's 64 outputs, 8 x 8 sums in registers: A's column step i gives 8 values, B's row
          8, and every pair is one multiply-add (the outer product)

The geometry comes from the same constants as the kernel (WarpTiling<128, 128, 8, false>), so the
picture cannot disagree with it.

    /usr/bin/python3 chapters/09_matmul/scripts/matmul_tiles.py [--out docs/images]

Writes matmul_tiles.svg (for the site) and matmul_tiles.png (for slides), 1600 x 900 px,
deterministic for one matplotlib version (no dates, a fixed SVG hash salt).
"""
import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
TILE_M, TILE_N = 128, 128          # block tile
LANES_M, LANES_N = 8, 4            # a warp's lanes
SUB = 4                            # a sub-tile is 4 x 4
WARP_M, WARP_N = 2 * SUB * LANES_M, 2 * SUB * LANES_N   # 64 x 32
WARP_COLOURS = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3",
                "#8C8C8C"]
plt.rcParams.update({"font.size": 17, "svg.hashsalt": "matmul_tiles",
                     "font.family": "DejaVu Sans"})


def frame(ax, width, height, title):
    ax.set_xlim(-0.5, width + 0.5)
    ax.set_ylim(height + 0.5, -0.5)  # row 0 at the top, as in the matrix
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=18, pad=12)


def block_panel(ax):
    frame(ax, TILE_N, TILE_M, f"block tile {TILE_M} × {TILE_N}:\n8 warps of {WARP_M} × {WARP_N}")
    for w in range(8):
        row, col = (w // (TILE_N // WARP_N)) * WARP_M, (w % (TILE_N // WARP_N)) * WARP_N
        ax.add_patch(Rectangle((col, row), WARP_N, WARP_M, facecolor=WARP_COLOURS[w], alpha=0.55,
                               edgecolor="black", linewidth=1.5))
        ax.text(col + WARP_N / 2, row + WARP_M / 2, f"warp {w}", ha="center", va="center",
                fontsize=15)
    ax.add_patch(Rectangle((0, 0), WARP_N, WARP_M, fill=False, edgecolor="black", linewidth=4))


def warp_panel(ax):
    frame(ax, WARP_N, WARP_M, f"warp 0's tile {WARP_M} × {WARP_N}:\n32 lanes, 4 × 4 sub-tiles")
    for lane in range(32):
        lm, ln = lane % LANES_M, lane // LANES_M
        for i in range(2):
            for j in range(2):
                row = i * SUB * LANES_M + SUB * lm
                col = j * SUB * LANES_N + SUB * ln
                mine = lane == 0
                ax.add_patch(Rectangle((col, row), SUB, SUB,
                                       facecolor=WARP_COLOURS[0] if mine else "#DDE4F0",
                                       edgecolor="#555555", linewidth=0.8))
                if i == 0 and j == 0:
                    ax.text(col + SUB / 2, row + SUB / 2, str(lane), ha="center", va="center",
                            fontsize=11, color="white" if mine else "#333333")
    ax.add_patch(Rectangle((0, 0), WARP_N, WARP_M, fill=False, edgecolor="black", linewidth=2))


def thread_panel(ax):
    frame(ax, 8, 8, "lane 0: 8 × 8 sums in registers\n(its four 4 × 4 sub-tiles together)")
    for r in range(8):
        for c in range(8):
            ax.add_patch(Rectangle((c, r), 1, 1, facecolor=WARP_COLOURS[0], alpha=0.85,
                                   edgecolor="white", linewidth=1.5))
    ax.plot([4, 4], [0, 8], color="black", linewidth=2.5)
    ax.plot([0, 8], [4, 4], color="black", linewidth=2.5)
    ax.text(4, 9.2, "a_reg[0..7] × b_reg[0..7]:\n64 multiply-adds per step", ha="center",
            va="top", fontsize=15)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 3, figsize=(16, 9), dpi=100,
                             gridspec_kw={"width_ratios": [1.35, 0.75, 0.9]})
    block_panel(axes[0])
    warp_panel(axes[1])
    thread_panel(axes[2])
    fig.suptitle("Stage 7's tiles: block → warp → thread (each panel enlarges the part outlined "
                 "before it)", fontsize=21, fontweight="bold")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(out / "matmul_tiles.svg", metadata={"Date": None})
    fig.savefig(out / "matmul_tiles.png", dpi=100, metadata={"Software": None})
    print(out / "matmul_tiles.svg")


if __name__ == "__main__":
    main()
