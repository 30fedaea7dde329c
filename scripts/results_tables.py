#!/usr/bin/env python3
"""Regenerates the measured tables in the Markdown docs from committed result files.

Between the markers

    <!-- BEGIN RESULTS docs/results/<gpu>/<file>.json -->
    <!-- END RESULTS -->

the table written by a chapter's --json output is rendered as a Markdown table, and between

    <!-- BEGIN OUTPUT docs/results/<gpu>/<file>.txt -->
    <!-- END OUTPUT -->

a plain program output is inserted in a code block. Paths are relative to the repository root.

    scripts/results_tables.py            rewrite every README in place
    scripts/results_tables.py --check    exit 1 if any README differs from its result files
"""
import argparse
import json
import math
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BLOCK = re.compile(
    r"(<!-- BEGIN (RESULTS|OUTPUT) (\S+) -->\n)(.*?)(<!-- END \2 -->)", re.DOTALL)


def format_ms(ms):
    if ms < 1:
        return f"{ms:.4f}"
    if ms < 10:
        return f"{ms:.3f}"
    if ms < 100:
        return f"{ms:.2f}"
    return f"{ms:.1f}"


def fixed(value, decimals):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{value:.{decimals}f}"


def versions(run):
    """As RunInfo::versions(): the runtime, the driver's own version when the run recorded it
    (older result files did not), and the CUDA version the driver supports."""
    text = f"CUDA runtime {run['cuda_runtime']}, driver "
    if run.get("driver_version"):
        return text + f"{run['driver_version']} (supports CUDA {run['cuda_driver']})"
    return text + f"supporting CUDA {run['cuda_driver']}"


def caption(doc):
    run = doc["run"]
    date = run.get("timestamp", "")[:10]
    parts = [f"{run['gpu']} (compute capability {run['compute_capability']}, "
             f"{run['sm_count']} SMs), {versions(run)}, {date}"]
    params = ", ".join(f"{k} {v}" for k, v in run.get("parameters", {}).items())
    if params:
        parts.append(params)
    if run.get("peak_gbs"):
        parts.append(f"theoretical DRAM bandwidth {run['peak_gbs']:.0f} GB/s")
    return "; ".join(parts)


def render_results(doc):
    rows = doc["rows"]
    extras = []
    for row in rows:
        for key in row.get("extra", {}):
            if key not in extras:
                extras.append(key)
    baseline = doc.get("baseline")
    baseline_label = None
    if baseline:
        for row in rows:
            if row["id"] == baseline:
                baseline_label = row["name"] if row["id"] != "cub" else "CUB"
    # As ResultTable::print: no bandwidth columns when no row moves bytes, no speed-up columns
    # when no row is a step of the progression (chapter 6's scenarios are neither).
    bandwidth = any((row.get("bytes") or 0) > 0 or row.get("gbs") is not None for row in rows)
    progression = any(row.get("in_progression", True) for row in rows)
    peak = bandwidth and bool(doc["run"].get("peak_gbs"))  # no "% peak" without a DRAM peak
    header = ["id", "kernel", "median ms", "min–max ms"]
    if bandwidth:
        header += ["GB/s"] + (["% peak"] if peak else [])
    header += extras
    if progression:
        header += ["× prev", "× first"]
    if baseline_label:
        header.append(f"× {baseline_label}")
    header.append("result")
    lines = [f"*{caption(doc)}*", "",
             "| " + " | ".join(header) + " |",
             "|" + "|".join(":--" if i < 2 else "--:" for i in range(len(header) - 1)) + "|:--|"]
    for row in rows:
        timed = row["median_ms"] is not None
        cells = [row["id"], f"`{row['name']}`",
                 format_ms(row["median_ms"]) if timed else "–",
                 f"{format_ms(row['min_ms'])}–{format_ms(row['max_ms'])}" if timed else "–"]
        if bandwidth:
            cells += [fixed(row["gbs"], 0)] + ([fixed(row["percent_of_peak"], 1)] if peak else [])
        cells += [row.get("extra", {}).get(key, "–") or "–" for key in extras]
        if progression:
            cells += [fixed(row["speedup_vs_previous"], 2), fixed(row["speedup_vs_first"], 2)]
        if baseline_label:
            cells.append(fixed(row["speedup_vs_baseline"], 2))
        if row["passed"]:
            cells.append("PASS")
        else:
            cells.append("FAIL (expected)" if row.get("expected_failure") else "**FAIL**")
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    notes = [f"- [{r['id']}] {r['detail']}" for r in rows if r.get("detail")]
    if notes:
        lines += [""] + notes
    return "\n".join(lines) + "\n"


def render_output(text):
    return "```text\n" + text.rstrip("\n") + "\n```\n"


def render_block(kind, rel_path, doc_path):
    source = ROOT / rel_path
    if not source.is_file():
        raise FileNotFoundError(f"{doc_path.relative_to(ROOT)}: marker names {rel_path}, which does not exist")
    if kind == "RESULTS":
        return render_results(json.loads(source.read_text(encoding="utf-8")))
    return render_output(source.read_text(encoding="utf-8"))


def documents():
    yield from sorted(ROOT.glob("*.md"))
    yield from sorted(ROOT.glob("chapters/*/README.md"))
    yield from sorted(ROOT.glob("docs/**/*.md"))


def regenerate(text, doc_path):
    def replace(match):
        begin, kind, rel_path, _, end = match.groups()
        return begin + render_block(kind, rel_path, doc_path) + end
    return BLOCK.sub(replace, text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if a document is out of date")
    args = parser.parse_args()
    stale, errors, blocks = [], [], 0
    for path in documents():
        text = path.read_text(encoding="utf-8")
        blocks += len(BLOCK.findall(text))
        try:
            new_text = regenerate(text, path)
        except (FileNotFoundError, KeyError, json.JSONDecodeError) as error:
            errors.append(str(error))
            continue
        if new_text != text:
            stale.append(str(path.relative_to(ROOT)))
            if not args.check:
                path.write_text(new_text, encoding="utf-8")
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    if args.check:
        if stale:
            print("out of date (run scripts/results_tables.py or make docs-tables):", *stale, sep="\n  ")
        else:
            print(f"{blocks} generated block(s) match their result files")
        return 1 if stale or errors else 0
    print(f"{blocks} generated block(s); rewrote {len(stale)} file(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
