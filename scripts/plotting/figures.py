"""Which figures a results table gets, and the files they go to. A program this script has never
seen gets the stage figure without any change here."""
import pathlib
import sys

from .allreduce import busbw_figure, is_busbw_sweep, latency_figure
from .results import gpu_label, gpu_labels, timed_rows
from .rows import is_launch_table, launches_figure, stage_figure
from .streams import pipeline_figure, pipeline_table, timeline_figure, timelines
from .sweeps import (bin_sweep_figure, block_sweep_figure, is_bin_sweep, is_block_sweep,
                     is_scaling, is_staircase, scaling_figure, staircase_figure)

# (test, figure function, file suffix, also for comparisons). A table that passes no test gets
# the stage figure as its main figure (suffix ""); one whose main figure is a sweep gets the
# sweep under its own name and no stage figure.
FIGURES = [
    (is_scaling, scaling_figure, "_sms", True),
    (is_block_sweep, block_sweep_figure, "", True),
    (is_bin_sweep, bin_sweep_figure, "", True),
    (is_busbw_sweep, busbw_figure, "_busbw", False),
    (is_busbw_sweep, latency_figure, "_latency", False),
    (is_staircase, staircase_figure, "_staircase", True),
    (is_launch_table, launches_figure, "_launches", False),
    (lambda doc: bool(pipeline_table(doc)), pipeline_figure, "_k", True),
    (lambda doc: bool(timelines(doc)), timeline_figure, "_timeline", False),
]
# Sweeps that replace the stage figure (a 34-row or 43-row bar chart says nothing).
REPLACES_STAGE_FIGURE = {scaling_figure, block_sweep_figure, bin_sweep_figure, busbw_figure,
                         latency_figure}


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


def save_all(figures, stem_path):
    """Writes each figure; one whose text would be cut is left out with a line on stderr (a
    class's results must not stop the others' figures)."""
    written = []
    for suffix, figure in figures:
        try:
            written += figure.save(f"{stem_path}{suffix}")
        except RuntimeError as error:
            figure.plt.close(figure.fig)
            print(f"figure left out: {error}", file=sys.stderr)
    return written


def plot_one(stem, doc, out_dir, plt):
    return save_all(figures_for([doc], [gpu_label(doc)], plt), pathlib.Path(out_dir) / stem)


def plot_comparison(stem, docs, out_dir, plt):
    return save_all(figures_for(docs, gpu_labels(docs), plt, compare=True),
                    pathlib.Path(out_dir) / f"compare_{stem}")
