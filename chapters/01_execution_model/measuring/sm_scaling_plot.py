#!/usr/bin/env python3
"""Rate against the number of SMs, from the table of `execution_model --section scaling`: the
figure chapter 1's README shows for transparent scalability.

    chapters/01_execution_model/measuring/sm_scaling_plot.py docs/results/<gpu>/execution_model_scaling.json [--out DIR]

Writes execution_model_scaling_sms.png and .svg beside the JSON (or into DIR): one panel per
kernel, the matrix sum's GB/s (memory-bound, with the theoretical DRAM bandwidth) and the FMA
loop's GFLOP/s (compute-bound), each against the SMs of its partition, with ideal linear scaling
from the smallest partition dashed and every point's value written beside it. The drawing is
scripts/plot_results.py's (one style for every figure; `make plots` draws this one too).
Reproducible: the same JSON gives the same bytes. Needs matplotlib.
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
    if doc is None or not plot_results.is_scaling(doc):
        print(f"{args.json}: no verified scaling rows to plot")
        return 1
    plt = plot_results.import_pyplot()
    figure = plot_results.scaling_figure(plt, [doc], [plot_results.gpu_label(doc)])
    out = args.out or args.json.parent
    out.mkdir(parents=True, exist_ok=True)
    for path in figure.save(out / f"{args.json.stem}_sms"):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
