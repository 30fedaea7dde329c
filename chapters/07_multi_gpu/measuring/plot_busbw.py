#!/usr/bin/env python3
"""Bus bandwidth against message size, one line per all-reduce stage, NCCL dashed as the
baseline, the measured link dotted: the figure chapter 7's README shows.

    chapters/07_multi_gpu/measuring/plot_busbw.py docs/results/<gpu>-x<G>/multi_gpu_allreduce.json [--out DIR]

Writes multi_gpu_allreduce_busbw.png and .svg beside the JSON (or into DIR): bus bandwidth
(linear) and time (log), both against message size per GPU on a log axis, every point's value
written beside it. The drawing is scripts/plot_results.py's (one style for every figure;
`make plots` draws this one too). Reproducible: the same JSON gives the same bytes. Needs
matplotlib.
"""
import argparse
import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("plot_results", ROOT / "scripts" / "plot_results.py")
plot_results = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plot_results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, help="folder to write to (default: the JSON's)")
    args = parser.parse_args()
    doc = plot_results.load_results(args.json.parent).get(args.json.stem)
    if doc is None or not plot_results.is_busbw_sweep(doc):
        print(f"{args.json}: no bus bandwidth to plot (one GPU?)")
        return 0
    plt = plot_results.import_pyplot()
    figure = plot_results.busbw_figure(plt, [doc], [plot_results.gpu_label(doc)])
    out = args.out or args.json.parent
    out.mkdir(parents=True, exist_ok=True)
    for path in figure.save(out / f"{args.json.stem}_busbw"):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
