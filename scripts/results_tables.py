#!/usr/bin/env python3
"""Regenerates the measured tables in the Markdown docs from committed result files.

Between the markers

    <!-- BEGIN RESULTS docs/results/<gpu>/<file>.json -->
    <!-- END RESULTS -->

the Markdown table that the chapter's program wrote into its --json output (member "markdown",
from the same table model as the terminal table) is pasted, and between

    <!-- BEGIN OUTPUT docs/results/<gpu>/<file>.txt -->
    <!-- END OUTPUT -->

a plain program output is inserted in a code block, and between

    <!-- BEGIN COMPARE <stem> docs/results/<gpu-a> docs/results/<gpu-b> -->
    <!-- END COMPARE -->

the same results file of several GPUs is shown side by side, as `make compare` does. Paths are
relative to the repository root.

    scripts/results_tables.py            rewrite every README in place
    scripts/results_tables.py --check    exit 1 if any README differs from its result files
"""
import argparse
import importlib.util
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("plot_results", ROOT / "scripts" / "plot_results.py")
plot_results = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plot_results)
BLOCK = re.compile(
    r"(<!-- BEGIN (RESULTS|OUTPUT|COMPARE) ([^>\n]+?) -->\n)(.*?)(<!-- END \2 -->)", re.DOTALL)


def render_results(doc, source):
    """The Markdown the program itself wrote (ResultTable::write_markdown, common/src/host/
    report.cpp): the table model is formatted in one place, so this script formats no number."""
    if "markdown" not in doc:
        raise KeyError(f"{source}: no \"markdown\" member; write it again with the program's "
                       "--json (files from before the Markdown writer lack it)")
    return doc["markdown"]


def render_output(text):
    return "```text\n" + text.rstrip("\n") + "\n```\n"


def render_compare(arguments, doc_path):
    """The same results file from several GPUs' folders, side by side, as `make compare` shows it
    (scripts/plot_results.py's comparison_table: one implementation for both)."""
    stem, *folders = arguments.split()
    docs = []
    for folder in folders:
        source = ROOT / folder / f"{stem}.json"
        if not source.is_file():
            raise FileNotFoundError(f"{doc_path.relative_to(ROOT)}: marker names {source.relative_to(ROOT)}, which does not exist")
        docs.append(json.loads(source.read_text(encoding="utf-8")))
    table = plot_results.comparison_table(stem, docs)
    return table.split("\n", 2)[2]  # without the "### stem" heading: the README has its own


def render_block(kind, rel_path, doc_path):
    if kind == "COMPARE":
        return render_compare(rel_path, doc_path)
    source = ROOT / rel_path
    if not source.is_file():
        raise FileNotFoundError(f"{doc_path.relative_to(ROOT)}: marker names {rel_path}, which does not exist")
    if kind == "RESULTS":
        return render_results(json.loads(source.read_text(encoding="utf-8")), rel_path)
    return render_output(source.read_text(encoding="utf-8"))


def documents():
    yield from sorted(ROOT.glob("*.md"))
    yield from sorted(ROOT.glob("chapters/*/*.md"))
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
