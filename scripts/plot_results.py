#!/usr/bin/env python3
"""Figures of the chapters' result tables, a comparison of several GPUs with a class page, and the
archive a student hands in.

    scripts/plot_results.py plot docs/results/<gpu> [--out DIR] [--only REGEX] [--force]
        the figures of every results JSON in the folder, PNG (slides) and SVG (the site), written
        to DIR (default: the folder itself)
    scripts/plot_results.py compare RUN RUN [RUN ...] --out DIR [--force]
        RUN: a results folder (docs/results/<gpu>) or an archive of one (make pack). One column
        per GPU kind; several runs of one kind give each row's median and range. Writes a figure
        per shared results file, comparison.md and class.html: one file to open and project,
        with the summary first (the fastest correct stage of each case on each GPU, x baseline,
        and each GPU against the first, judged against the runs' own noise)
    scripts/plot_results.py pack [FOLDER] [--name NAME] [--out DIR]
        <gpu-slug>_<name>_<date>.tar.gz of a make bench folder (default: this machine's GPU's
        folder under docs/results), to hand in

The committed figures under docs/results/ are drawn with one matplotlib (style.PINNED, Debian
bookworm's python3-matplotlib at /usr/bin/python3): with another, writing there with --out (make
plots OUT=docs/results, make compare OUT=docs/results/compare) is refused unless --force (or
CT_PLOT_FORCE=1) says so; a folder drawn in place (make bench) is drawn, with a line saying that
its figures must be redrawn before they are committed. The same results and versions give the
same bytes.

Where the code is (scripts/plotting/): results.py reads tables and words them, runs.py reads and
packs runs, style.py is the look and the checks, rows.py / sweeps.py / streams.py / allreduce.py
draw, figures.py says which figures a table gets, compare.py and classpage.py compare.

What the figures promise (tests/scripts/test_plots*.py check it):
- true to scale: bars stand on linear axes, so a bar's length is its value, and every bar says
  its value (and "× baseline", written one way: "0.023× CUB"). Where the times of one panel
  span more than WIDE_RANGE, the panel is a dot plot on a log axis, labelled as such, with
  ticks at 1, 2 and 5 of each decade where they fit; a long table is split into panels;
- roles visible: the baseline in its own colour with a dashed reference line, a labelled wrong
  answer hatched and labelled "wrong on purpose", a star on the fastest correct stage only
  (never the baseline, a warm-up or a wrong row; never in the baseline's colour);
- sweeps as lines, at most five series to a panel;
- readable when projected: 1600 x 900 pixels, no text under 14 pixels, no two texts over each
  other, titles in words and different for every figure, run details in a footer, nothing cut.
"""
import argparse
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

# The names other scripts and the tests use (results_tables.py: comparison_table; the chapters'
# one-figure scripts: the busbw and SM-scaling figures).
from plotting.allreduce import busbw_figure, is_busbw_sweep  # noqa: E402,F401
from plotting.compare import (comparison_cells, comparison_table, compare, verdict,  # noqa: E402,F401
                              verdict_words, versus)
from plotting.figures import figure_plan, figures_for, plot_comparison, plot_one  # noqa: E402,F401
from plotting.results import (fastest_ids, gpu_label, gpu_labels, load_results,  # noqa: E402,F401
                              ratio_words)
from plotting.rows import stage_figure  # noqa: E402,F401
from plotting.sweeps import is_scaling, scaling_figure  # noqa: E402,F401
from plotting.runs import InputError, pack, this_gpu_folder  # noqa: E402
from plotting.style import (DPI, PINNED, STAGE_COLOUR, BASELINE_COLOUR, WRONG_HATCH,  # noqa: E402,F401
                            WRONG_WORDS, check_pinned, import_pyplot, overlapping_texts, pinned,
                            texts_outside)


def one_figure_main(description, accepts, make_figure, suffix, nothing, nothing_exit):
    """The command line of a chapter's one-figure script (chapter 1's sm_scaling_plot.py, chapter
    7's plot_busbw.py): `script.py TABLE.json [--out DIR]` draws make_figure(plt, [doc], [label])
    into DIR (default: the JSON's folder) as <stem><suffix>.png/.svg when accepts(doc), else
    prints "<json>: <nothing>" and returns nothing_exit."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("json", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, help="folder to write to (default: the JSON's)")
    args = parser.parse_args()
    doc = load_results(args.json.parent).get(args.json.stem)
    if doc is None or not accepts(doc):
        print(f"{args.json}: {nothing}")
        return nothing_exit
    figure = make_figure(import_pyplot(), [doc], [gpu_label(doc)])
    out = args.out or args.json.parent
    out.mkdir(parents=True, exist_ok=True)
    for path in figure.save(out / f"{args.json.stem}{suffix}"):
        print(f"wrote {path}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    plot = sub.add_parser("plot", help="the figures of one results folder")
    plot.add_argument("folder")
    plot.add_argument("--out", help="where to write (default: the folder itself)")
    plot.add_argument("--only", help="only the tables whose file stem matches this regex")
    plot.add_argument("--force", action="store_true",
                      help="write into docs/results with another matplotlib than the pinned one")
    comp = sub.add_parser("compare", help="compare results folders or make pack archives")
    comp.add_argument("runs", nargs="+")
    comp.add_argument("--out", required=True)
    comp.add_argument("--force", action="store_true")
    packing = sub.add_parser("pack", help="one archive of a make bench folder, to hand in")
    packing.add_argument("folder", nargs="?", help="default: this GPU's folder in docs/results")
    packing.add_argument("--name", help="the student's name (default: the host name)")
    packing.add_argument("--out", default=".", help="where the archive goes")
    packing.add_argument("--root", default="docs/results",
                         help="where make bench wrote the GPU's folder (without FOLDER)")
    args = parser.parse_args()

    if args.command == "pack":
        try:
            folder = args.folder or this_gpu_folder(args.root)
            print(f"hand in {pack(folder, args.name, args.out)}")
        except InputError as error:
            print(error, file=sys.stderr)
            return 2
        return 0
    if args.command == "compare":
        return compare(args.runs, args.out, args.force)
    if not pathlib.Path(args.folder).is_dir():
        print(f"no such folder: {args.folder}", file=sys.stderr)
        return 2
    results = load_results(args.folder)
    if not results:
        print(f"no result JSON files in {args.folder}", file=sys.stderr)
        return 2
    out_dir = pathlib.Path(args.out or args.folder)
    check_pinned(out_dir, args.force, in_place=args.out is None)
    out_dir.mkdir(parents=True, exist_ok=True)
    plt = import_pyplot()
    for stem, doc in results.items():
        if args.only and not re.search(args.only, stem):
            continue
        for path in plot_one(stem, doc, out_dir, plt):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
