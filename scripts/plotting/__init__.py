"""The figures, the comparison and the class page of scripts/plot_results.py, one module per job:

    results.py    reading a results folder: rows, roles, the fastest stage, names and words
    runs.py       the runs a comparison reads (folders or packed archives), grouped by GPU kind,
                  and `pack`, which makes such an archive
    style.py      the look (sizes, colours, the pinned matplotlib), the Figure frame, the checks
                  every figure passes before it is written (text inside, no overlaps)
    rows.py       the stage figure: one mark per row (bars, or dots on a log axis), and the
                  nested reduction's launches
    sweeps.py     sweeps as lines: SM scaling, block shapes, histogram bins, the staircase
    streams.py    chapter 6's pipeline against K and its timelines
    allreduce.py  chapter 7's bus bandwidth and time against message size
    figures.py    which figures a results table gets
    verdicts.py   one row against the same row on another GPU, judged against the runs' noise;
                  the fastest rows of a case
    compare.py    the comparison's tables: per GPU kind against the first, the summary
    classpage.py  class.html: one file, figures inlined
"""
