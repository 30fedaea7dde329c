#!/usr/bin/env python3
"""Chapter 9's diagram of the Hopper stages' shared memory: the 128-byte swizzle and the ring.

  left   eight 128-byte rows of a tile as TMA stores them and wgmma reads them (stages 12-14):
         16-byte chunk c of row r lies at chunk c XOR r, so the eight rows of one chunk (what one
         8 x 8 matrix read takes) fall in eight different 16-byte columns of the banks
  right  stage 13's ring of 4 buffers over twelve k-tiles: which buffer k-tile t uses and the
         parity of the full barrier's phase its consumers wait for; the parity the producer waits
         for on the empty barrier before a refill (t >= 4) is left as "?": exercise matmul-13

The numbers come from the same rules as the kernels (kStages = 4, the swizzle's XOR on address
bits 4-6), so the picture cannot disagree with them.

    /usr/bin/python3 chapters/09_matmul/scripts/matmul_ring.py [--out docs/images]

Writes matmul_ring.svg (for the site) and matmul_ring.png (for slides), 1600 x 900 px,
deterministic for one matplotlib version (no dates, a fixed SVG hash salt).
"""
import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
ROWS, CHUNKS = 8, 8   # the swizzle's period: 8 rows of 128 bytes, 8 chunks of 16 bytes
STAGES = 4            # stage 13's ring
K_TILES = 12
COLOURS = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3",
           "#8C8C8C"]
plt.rcParams.update({"font.size": 17, "svg.hashsalt": "matmul_ring",
                     "font.family": "DejaVu Sans"})


def swizzle_panel(ax):
    ax.set_xlim(-1.6, CHUNKS + 0.2)
    ax.set_ylim(ROWS + 2.2, -1.4)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title("128-byte swizzle: chunk c of row r\nis stored at chunk c XOR r", fontsize=19,
                 pad=10)
    for r in range(ROWS):
        ax.text(-0.3, r + 0.5, f"row {r}", ha="right", va="center", fontsize=15)
        for p in range(CHUNKS):
            c = p ^ r  # the logical chunk stored at physical chunk p of row r
            ax.add_patch(Rectangle((p, r), 1, 1, facecolor=COLOURS[c], alpha=0.35 if c else 0.95,
                                   edgecolor="white", linewidth=2))
            ax.text(p + 0.5, r + 0.5, str(c), ha="center", va="center", fontsize=15,
                    color="white" if c == 0 else "#222222", fontweight="bold" if c == 0 else None)
    for p in range(CHUNKS):
        ax.text(p + 0.5, -0.35, f"{16 * p}", ha="center", va="bottom", fontsize=11)
    ax.text(CHUNKS / 2, -0.95, "byte offset in the 128-byte row", ha="center", va="bottom",
            fontsize=13)
    ax.text(CHUNKS / 2, ROWS + 0.5, "chunk 0 of rows 0-7 (dark): eight different\n16-byte "
            "columns, so eight rows read at once\nmeet no bank twice", ha="center", va="top",
            fontsize=14)


def ring_panel(ax):
    ax.set_xlim(-4.2, K_TILES + 0.2)
    ax.set_ylim(5.4, -0.4)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"Stage 13's ring of {STAGES} buffers: which phase each side waits for",
                 fontsize=19, pad=10)
    labels = ["k-tile t", "buffer t mod 4", "consumers wait\nfull, parity", "producer waits\n"
              "empty, parity"]
    for row, label in enumerate(labels):
        ax.text(-0.25, row + 0.5, label, ha="right", va="center", fontsize=14)
    for t in range(K_TILES):
        buffer, use = t % STAGES, t // STAGES
        # The producer's row is left to exercise matmul-13 (its answer is in the stage file).
        values = [str(t), str(buffer), str(use % 2), "?" if t >= STAGES else "-"]
        for row, value in enumerate(values):
            shaded = row > 0
            ax.add_patch(Rectangle((t, row), 1, 1, facecolor=COLOURS[buffer] if shaded else
                                   "white", alpha=0.45 if shaded else 1.0, edgecolor="#555555",
                                   linewidth=1))
            ax.text(t + 0.5, row + 0.5, value, ha="center", va="center", fontsize=15)
    ax.text(K_TILES / 2, 4.35, "use j = t div 4 of a buffer waits for full's phase j (parity j mod 2);"
            "\nwhich phase of empty a refill waits for is exercise matmul-13",
            ha="center", va="top", fontsize=14)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 2, figsize=(16, 9), dpi=100,
                             gridspec_kw={"width_ratios": [0.75, 1.45]})
    swizzle_panel(axes[0])
    ring_panel(axes[1])
    fig.suptitle("The Hopper stages' shared memory: the swizzled tile and the mbarrier ring",
                 fontsize=21, fontweight="bold")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(out / "matmul_ring.svg", metadata={"Date": None})
    fig.savefig(out / "matmul_ring.png", dpi=100, metadata={"Software": None})
    print(out / "matmul_ring.svg")


if __name__ == "__main__":
    main()
