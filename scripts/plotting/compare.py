"""The comparison of several runs: one column per GPU kind, each compared with the first kind and
judged against the noise the runs themselves showed; the summary (one row per case: the fastest
correct stage on each GPU); comparison.md; and `compare`, which writes it all with the figures and
class.html."""
import pathlib
import sys
import tempfile

from . import classpage
from .figures import plot_comparison
from .results import (base_words, baseline_row, case_name, chapter_order, fastest_row, fmt_ms,
                      gpu_labels, number, program_words, ratio_words, row_group, row_groups,
                      row_key, row_label, run_command, run_commit, same_work, tuning_choices)
from .runs import InputError, group_by_kind, merged_doc, open_run
from .style import SAVED_TITLES, check_pinned, import_pyplot
from .verdicts import CLOSE, NOISY, fastest_keys, spread, verdict, verdict_words  # noqa: F401


COMPARE_INTRO = (
    "Median milliseconds (lower is better), % of each GPU's own theoretical DRAM "
    "bandwidth (higher is better) where the table has one, and × baseline: the "
    "baseline's median over the row's, both measured in the same run (> 1: faster "
    "than CUB or NCCL on that GPU). \"vs\" divides the first GPU's median by this "
    "one's (> 1: faster) and says whether the difference is beyond noise: when the "
    "two runs' min–max ranges overlap, it is within what either run varied by. Each "
    "section lists the clocks NVML saw during timing.")


def versus(first, other):
    """How `other` compares with `first` (two rows of the same id on two GPUs or runs), as
    nvbench's compare says it: the ratio of medians, and whether the difference is beyond noise.
    Noise is read off the runs themselves: when the min-max ranges of the two overlap, the
    difference is within what either run varied by, and is reported as "same". (The chapters'
    side-by-side tables; the class page says it with verdict().)"""
    if not first or not other or first.get("median_ms") is None or other.get("median_ms") is None:
        return "–"
    ratio = first["median_ms"] / other["median_ms"]
    overlap = (first.get("min_ms", first["median_ms"]) <= other.get("max_ms", other["median_ms"])
               and other.get("min_ms", other["median_ms"]) <= first.get("max_ms", first["median_ms"]))
    if overlap:
        return f"{ratio:.2f}× same (within noise)"
    return f"{ratio:.2f}× {'faster' if ratio > 1 else 'slower'}"


def clocks_line(doc):
    clocks = doc["run"].get("clocks")
    if not clocks:
        return f"- {doc['run']['gpu']}: clocks not recorded"
    sm = (f"{clocks['sm_mhz_min']}" if clocks["sm_mhz_min"] == clocks["sm_mhz_max"]
          else f"{clocks['sm_mhz_min']}-{clocks['sm_mhz_max']}")
    return (f"- {doc['run']['gpu']}: SM {sm} MHz, memory {clocks['memory_mhz_max']} MHz during "
            f"timing, throttling: {clocks['throttle']}")


def comparison_cells(docs, gpus, judge=versus, mark=False, worded=False):
    """(header, [[cell]]) of the comparison of one results file on several GPUs; `mark` adds a
    star to the time of each GPU's fastest correct stage, `worded` writes × baseline as the
    figures and the class page do ('0.023× CUB'; the chapters' tables keep the bare ratio)."""
    ids, names = [], {}
    for doc in docs:
        for row in doc["rows"]:
            if row_label(row) not in ids:
                ids.append(row_label(row))
                names[row_label(row)] = row["name"]
    has_peak = any(row.get("percent_of_peak") is not None for doc in docs for row in doc["rows"])
    has_baseline = any(baseline_row(doc) for doc in docs)
    stars = [fastest_keys(doc) if mark else set() for doc in docs]
    header = ["id", "kernel"]
    for index, gpu in enumerate(gpus):
        header += [f"{gpu} ms"]
        header += [f"{gpu} % peak"] if has_peak else []
        header += [f"{gpu} × baseline"] if has_baseline else []
        header += [f"{gpu} vs {gpus[0]}"] if index > 0 else []
    body = []
    for row_id in ids:
        cells = [row_id, names[row_id]]
        rows = [next((r for r in doc["rows"] if row_label(r) == row_id), None) for doc in docs]
        for index, row in enumerate(rows):
            ms = row.get("median_ms") if row else None
            pct = row.get("percent_of_peak") if row else None
            base = row.get("speedup_vs_baseline") if row else None
            star = " ★" if row and row_key(row) in stars[index] else ""
            cells.append(f"{ms:.4g}{star}" if ms is not None else "–")
            if has_peak:
                cells.append(f"{pct:.1f}" if pct is not None else "–")
            if has_baseline:
                words = base_words(docs[index]) or "baseline"
                cells.append("–" if base is None else ratio_words(base, words) if worded
                             else f"{base:.2f}")
            if index > 0:
                cells.append(judge(rows[0], row))
        body.append(cells)
    return header, body


def comparison_table(stem, docs, judge=versus, mark=False, worded=False):
    """Markdown: one row per kernel id; per GPU (or run) the median ms, % of its own peak and the
    ratio to the baseline measured in the same run; for every GPU after the first, how it
    compares with the first, marked within noise or not (see versus)."""
    header, body = comparison_cells(docs, gpu_labels(docs), judge, mark, worded)
    lines = [f"### {stem}", ""] + [clocks_line(doc) for doc in docs] + [
        "", "| " + " | ".join(header) + " |", "|" + "|".join(["--"] * len(header)) + "|"]
    for cells in body:
        cells = [cells[0], f"`{cells[1]}`"] + cells[2:]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The summary: one row per case
# ---------------------------------------------------------------------------------------------


def baseline_words(row, doc):
    """'1.03× CUB' for a row of the baseline's work, else None."""
    base = base_words(doc)
    if base and row.get("speedup_vs_baseline") is not None and same_work(row, baseline_row(doc)):
        return ratio_words(row["speedup_vs_baseline"], base)
    if number(row.get("extra", {}).get("x CUB")) is not None:
        return ratio_words(number(row["extra"]["x CUB"]), "CUB")
    return None


def case_summary(stem, docs, labels):
    """{"stem", "case", "group", "cells": [per kind], "versus": [per other kind]} where a cell is
    {"row", "time", "baseline", "tied", "runs"}; for a table whose rows are not alternatives,
    "cells" is None and "versus" counts the rows each verdict got."""
    doc = docs[0]
    name = case_name(doc)
    ranked_groups = [group for group, rows in row_groups(doc) if fastest_row(doc, rows)[0]]
    summary = {"stem": stem, "case": name, "group": None, "cells": None, "versus": []}
    if not ranked_groups:
        for k in range(1, len(docs)):
            counts = {}
            for row in docs[0]["rows"]:
                other = next((r for r in docs[k]["rows"] if row_key(r) == row_key(row)), None)
                judged = verdict(row, other)
                if judged:
                    counts[judged[0]] = counts.get(judged[0], 0) + 1
            summary["versus"].append(counts)
        return summary
    group = ranked_groups[-1]
    summary["group"] = group if len(row_groups(doc)) > 1 else None
    cells, bests = [], []
    for doc_k in docs:
        rows = [r for r in doc_k["rows"] if row_group(r) == group]
        best, tied = fastest_row(doc_k, rows)
        bests.append(best)
        if best is None:
            cells.append(None)
            continue
        cells.append({"row": best, "time": fmt_ms(best["median_ms"]),
                      "baseline": baseline_words(best, doc_k), "tied": tied,
                      "runs": best.get("_run_medians")})
    summary["cells"] = cells
    summary["versus"] = [verdict(bests[0], best) for best in bests[1:]]
    return summary


def shared_rows_note(stem, docs_by_stem, labels):
    """Where rows of this file are also in another file of the same program (another run, as
    chapter 6's streams_pipeline repeats scenarios 7-8 of streams), which differ most between
    the two runs, said so that two numbers for one row on one page are explained."""
    notes = []
    docs = docs_by_stem[stem]
    for other_stem, others in docs_by_stem.items():
        if other_stem == stem or others[0]["program"] != docs[0]["program"]:
            continue
        keys = [row_key(r) for r in docs[0]["rows"]]
        shared = [key for key in keys if any(row_key(r) == key for r in others[0]["rows"])]
        if len(shared) < 2:
            continue
        worst = None
        for k, (doc, other) in enumerate(zip(docs, others)):
            for key in shared:
                here = next(r for r in doc["rows"] if row_key(r) == key)
                there = next((r for r in other["rows"] if row_key(r) == key), None)
                judged = verdict(there, here)
                if judged and judged[0] != "same":
                    gap = abs(judged[1] - 1)
                    if worst is None or gap > worst[0]:
                        worst = (gap, k, here, there)
        command = run_command(others[0])
        text = (f"Rows {shared[0][0]}–{shared[-1][0]} are also in {other_stem}, another run"
                + (f" (`{command}`)" if command else ""))
        if worst:
            _, k, here, there = worst
            text += (f"; the two runs differ most in {row_label(here)} {here['name']}: on "
                     f"{labels[k]} {fmt_ms(here['median_ms'])} here, "
                     f"{fmt_ms(there['median_ms'])} there")
        notes.append(text + ".")
    return notes


def run_rows(kinds, shared):
    """One entry per GPU kind for the page's top: runs, dates, commits, clocks, tuning (of the
    results files compared)."""
    entries = []
    for label, runs in kinds:
        docs = [doc for run in runs for stem, doc in run["results"].items() if stem in shared]
        dates = sorted({doc["run"].get("timestamp", "")[:10] for doc in docs} - {""})
        commits = sorted({run_commit(doc) or "unknown" for doc in docs})
        clocks = [doc["run"]["clocks"] for doc in docs if doc["run"].get("clocks")]
        if clocks:
            sm = sorted({c["sm_mhz_min"] for c in clocks} | {c["sm_mhz_max"] for c in clocks})
            memory = sorted({c["memory_mhz_max"] for c in clocks})
            throttle = sorted({str(c["throttle"]) for c in clocks})
            clock_words = (f"SM {sm[0]}" + (f"–{sm[-1]}" if len(sm) > 1 else "") + " MHz, memory "
                           + "/".join(str(m) for m in memory) + " MHz, throttling: "
                           + ", ".join(throttle))
        else:
            clock_words = "not recorded"
        tuning = {}
        for run in runs:
            for stem, doc in run["results"].items():
                for key, value in tuning_choices(doc) if stem in shared else ():
                    tuning.setdefault(f"{doc['program'].replace('_', ' ')} {key}: {value}",
                                      []).append(stem)
        entries.append({"label": label, "gpu": runs[0]["gpu"], "runs": [r["name"] for r in runs],
                        "dates": dates, "commits": commits, "clocks": clock_words,
                        "tuning": [f"{what} ({', '.join(sorted(set(stems)))})"
                                   for what, stems in tuning.items()]})
    return entries


def commit_warning(entries):
    commits = {commit for entry in entries for commit in entry["commits"]}
    if len(commits) <= 1:
        return None
    return ("These runs were not made from the same code: " + "; ".join(
        f"{entry['label']} at {', '.join(entry['commits'])}" for entry in entries) +
        ". A stage may have changed between commits: compare its rows with care.")


def markdown_summary(summaries, labels):
    lines = ["| case | " + " | ".join(labels) + "".join(f" | {label} vs {labels[0]}"
                                                       for label in labels[1:]) + " |",
             "|" + "|".join(["--"] * (1 + 2 * len(labels) - 1)) + "|"]
    for summary in summaries:
        case = summary["case"] + (f", {summary['group']}" if summary["group"] else "")
        if summary["cells"] is None:
            cells = ["no fastest: each row is its own scenario"] * len(labels)
            versus_cells = [", ".join(f"{n} {w}" for w, n in sorted(c.items())) or "–"
                            for c in summary["versus"]]
        else:
            cells = [f"★ {c['row']['id']} `{c['row']['name']}` {c['time']}"
                     + (f", {c['baseline']}" if c["baseline"] else "") if c else "–"
                     for c in summary["cells"]]
            versus_cells = [verdict_words(v) for v in summary["versus"]]
        lines.append(f"| {case} ({summary['stem']}) | " + " | ".join(cells + versus_cells) + " |")
    return "\n".join(lines)


def compare(inputs, out_dir, force=False):
    """The comparison of `inputs` (results folders or make pack archives) into `out_dir`."""
    check_pinned(out_dir, force)
    with tempfile.TemporaryDirectory() as scratch:
        try:
            runs = [open_run(path, scratch, index) for index, path in enumerate(inputs)]
        except InputError as error:
            print(error, file=sys.stderr)
            return 2
        kinds = group_by_kind(runs)
        for label, members in kinds:
            if len(members) > 1:
                for run in members:
                    run["label"] = f"{label} ({len(members)} runs)"
        kinds = [(members[0]["label"], members) for _, members in kinds]
        stems = [set().union(*(run["results"] for run in members)) for _, members in kinds]
        first = kinds[0][1][0]["results"]
        shared = [stem for stem in sorted(set.intersection(*stems),
                                          key=lambda s: chapter_order(s, next(
                                              r["results"][s] for r in kinds[0][1]
                                              if s in r["results"])))]
        if not shared:
            print("the runs share no result files", file=sys.stderr)
            return 2
        docs_by_stem = {stem: [merged_doc([r["results"][stem] for r in members
                                           if stem in r["results"]], label)
                               for label, members in kinds] for stem in shared}
        return write_comparison(pathlib.Path(out_dir), kinds, shared, docs_by_stem, first,
                                not_compared_note(kinds, stems, shared))


def not_compared_note(kinds, stems, shared):
    """One sentence naming the result files that only some of the GPUs have (a chapter one GPU's
    folder has not run yet), with the GPUs that have them; empty when every file is shared."""
    missing = sorted(set().union(*stems) - set(shared))
    if not missing:
        return ""
    parts = []
    for stem in missing:
        have = [label for (label, _), found in zip(kinds, stems) if stem in found]
        parts.append(f"{stem} ({', '.join(have)} only)")
    return ("Not compared, because not every GPU's folder has it yet: " + "; ".join(parts) +
            ". Run make bench on the other GPUs to add them.")


def write_comparison(out_dir, kinds, shared, docs_by_stem, first, not_compared=""):
    out_dir.mkdir(parents=True, exist_ok=True)
    plt = import_pyplot()
    labels = [label for label, _ in kinds]
    sections, summaries = [], []
    for stem in shared:
        docs = docs_by_stem[stem]
        images = []
        for path in plot_comparison(stem, docs, out_dir, plt):
            print(path)
            if path.suffix == ".svg":
                images.append((path, SAVED_TITLES.get(path.stem, stem)))
        summaries.append(case_summary(stem, docs, labels))
        sections.append({"stem": stem, "docs": docs, "images": images,
                         "program": program_words(docs[0])[0],
                         "notes": shared_rows_note(stem, docs_by_stem, labels)})
    entries = run_rows(kinds, shared)
    warning = commit_warning(entries)
    markdown = ["# Comparison", ""] + ([f"**{warning}**", ""] if warning else []) + [
        "## The fastest correct stage of each case", "", markdown_summary(summaries, labels), ""] + (
        [not_compared, ""] if not_compared else []) + [COMPARE_INTRO, ""]
    for stem in [s for s in first if s in shared]:
        markdown.append(comparison_table(stem, docs_by_stem[stem],
                                         judge=lambda a, b: verdict_words(verdict(a, b)),
                                         mark=True, worded=True))
    (out_dir / "comparison.md").write_text("\n".join(markdown), encoding="utf-8")
    print(out_dir / "comparison.md")
    page = classpage.page(labels, entries, warning, summaries, sections, not_compared)
    (out_dir / "class.html").write_text(page, encoding="utf-8")
    print(out_dir / "class.html")
    return 0
