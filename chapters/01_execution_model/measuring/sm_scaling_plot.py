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
import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("plot_results", ROOT / "scripts" / "plot_results.py")
plot_results = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plot_results)

if __name__ == "__main__":
    sys.exit(plot_results.one_figure_main(__doc__.splitlines()[0], plot_results.is_scaling,
                                          plot_results.scaling_figure, "_sms",
                                          "no verified scaling rows to plot", 1))
