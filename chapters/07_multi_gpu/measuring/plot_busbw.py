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
import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("plot_results", ROOT / "scripts" / "plot_results.py")
plot_results = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plot_results)

if __name__ == "__main__":
    sys.exit(plot_results.one_figure_main(__doc__.splitlines()[0], plot_results.is_busbw_sweep,
                                          plot_results.busbw_figure, "_busbw",
                                          "no bus bandwidth to plot (one GPU?)", 0))
