"""class.html: the page a teacher opens first and projects. At the top, one line on whether the
GPUs ran the same code and the summary: one row per case, the fastest correct stage on each GPU,
its time, × the baseline, and how each GPU compares with the first. Then how to read it and the
runs (dates, commits, clocks, tuning choices), folded. Then each case: its figures and its table,
one column per GPU kind.
One file: the figures are inlined as SVG, nothing is loaded from beside the page or the network."""
import html
import re

from .results import (base_words, baseline_row, case_name, fmt_ms, fmt_rate, ratio_words,
                      role, row_key, row_label, run_command, same_work, table_words,
                      tuning_choices)
from .style import WRONG_WORDS
from .verdicts import fastest_keys, verdict, verdict_words

CSS = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; font-size: 20px;
       line-height: 1.4; margin: 0 auto; max-width: 1700px; padding: 0.6em 1.2em; color: #222; }
h1 { font-size: 1.8em; margin: 0.2em 0; } h2 { font-size: 1.5em; margin-top: 2em;
border-bottom: 3px solid #4c72b0; } h3 { font-size: 1.25em; margin-top: 2em;
border-bottom: 1px solid #ccc; }
p.lead { margin: 0.3em 0 0.6em; font-size: 0.9em; color: #333; }
details { margin: 0.6em 0; } summary { cursor: pointer; font-size: 0.9em; color: #333; }
.warning { background: #fff3cd; border-left: 6px solid #c98a00; padding: 0.4em 0.8em;
margin: 0.5em 0; font-weight: bold; }
nav > ol { columns: 2; font-size: 0.85em; } nav ol ol { font-size: 0.9em; }
figure { margin: 1em 0; } figure svg { display: block; width: 100%; height: auto;
border: 1px solid #ddd; } figure svg * { stroke-linejoin: round; stroke-linecap: butt; }
figcaption { font-size: 0.8em; color: #555; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.85em; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: right; vertical-align: top; }
th { background: #f0f0f0; } td.name, th.name { text-align: left; }
td small { color: #555; } .star { color: #000; font-weight: bold; }
tr.baseline td { background: #fdf0e6; } tr.wrong td { background: repeating-linear-gradient(
135deg, #fff, #fff 6px, #eee 6px, #eee 12px); } tr.fastest td.name { font-weight: bold; }
.faster { color: #1b7837; font-weight: bold; } .slower { color: #b2182b; font-weight: bold; }
.same { color: #555; } .ambiguous { color: #8a6d00; font-style: italic; }
table.summary { font-size: 0.9em; } table.runs { font-size: 0.8em; } p.note { font-size: 0.8em;
color: #444; }
"""

LEAD = ("Which stage is fastest on which GPU, and by how much. ★ marks the fastest correct "
        "stage of a case on each GPU (never the baseline, a warm-up or a row that is wrong on "
        "purpose); × CUB (or × NCCL, × 1 GPU) is the baseline's time over the stage's in the "
        "same run (above 1: faster than the baseline). Each GPU after the first is compared "
        "with the first: faster or slower by the ratio of the times where the two runs' "
        "min–max ranges do not meet, same where they meet, ambiguous where they meet but a run "
        "varied by more than 10% of its median. Where a GPU kind has several runs, each time is "
        "their median and the range of their medians is given.")


def esc(text):
    return html.escape(str(text))


def verdict_cell(judged):
    word = judged[0] if judged else "none"
    return f'<span class="{word}">{esc(verdict_words(judged))}</span>'


def inline_svg(path, index, title):
    """The SVG file as an element of the page: no XML prologue or metadata, ids made unique to
    this figure (every figure defines the same glyph ids), sized by the page."""
    text = path.read_text(encoding="utf-8")
    text = text[text.index("<svg"):]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    prefix = f"f{index}-"
    text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = re.sub(r'(xlink:href|href)="#([^"]+)"', lambda m: f'{m.group(1)}="#{prefix}'
                  f'{m.group(2)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", text)
    text = re.sub(r'<svg ([^>]*?)width="[^"]*" height="[^"]*"',
                  lambda m: f'<svg {m.group(1)}role="img" aria-label="{esc(title)}"', text,
                  count=1)
    # matplotlib's one style rule (round joins, butt caps) would apply to the whole page: the
    # page's CSS gives it to the figures alone.
    text = re.sub(r"<style[^>]*>.*?</style>", "", text, count=1, flags=re.S)
    return re.sub(r"\n\s*", "\n", text.strip())


def runs_table(entries):
    out = ['<table class="runs">', "<tr><th class=name>GPU</th><th class=name>runs</th>"
           "<th class=name>run dates</th><th class=name>commit</th>"
           "<th class=name>clocks during timing</th><th class=name>tuning choices</th></tr>"]
    for entry in entries:
        runs = entry["runs"]
        out.append("<tr>" + "".join(f"<td class=name>{cell}</td>" for cell in [
            f"<b>{esc(entry['label'])}</b><br><small>{esc(entry['gpu'])}</small>",
            esc(runs[0]) if len(runs) == 1 else f"{len(runs)}: {esc(', '.join(runs))}",
            esc(", ".join(entry["dates"])), esc(", ".join(entry["commits"])),
            esc(entry["clocks"]),
            "<br>".join(esc(t) for t in entry["tuning"]) or "none"]) + "</tr>")
    out.append("</table>")
    return out


def summary_cell(cell):
    if cell is None:
        return "<td>–</td>"
    row = cell["row"]
    words = f'<span class="star">★</span> {esc(row_label(row))} {esc(row["name"])}<br>' \
            f"<b>{esc(cell['time'])}</b>"
    if cell["baseline"]:
        words += f" · {esc(cell['baseline'])}"
    runs = cell["runs"]
    if runs and len(runs) > 1:
        words += f"<br><small>runs: {esc(fmt_ms(runs[0]))} to {esc(fmt_ms(runs[-1]))}</small>"
    if cell["tied"]:
        words += (f"<br><small>the same within noise: "
                  f"{esc(', '.join(str(r['id']) for r in cell['tied']))}</small>")
    return f"<td class=name>{words}</td>"


def summary_table(labels, summaries):
    out = ['<table class="summary">', "<tr><th class=name>case</th>" + "".join(
        f"<th class=name>{esc(label)}</th>" for label in labels) + "".join(
        f"<th>{esc(label)} against {esc(labels[0])}</th>" for label in labels[1:]) + "</tr>"]
    for summary in summaries:
        case = esc(summary["case"]) + (f", at {esc(summary['group'])}" + (
            " bins" if summary["group"].isdigit() else "") if summary["group"] else "")
        link = f'<a href="#{esc(summary["stem"])}">{case}</a><br><small>{esc(summary["stem"])}' \
               "</small>"
        if summary["cells"] is None:
            cells = (f'<td class=name colspan="{len(labels)}"><small>no fastest: each row is its '
                     "own scenario</small></td>")
            cells += "".join("<td>" + ", ".join(
                f'<span class="{w}">{n} {w}</span>' for w, n in sorted(counts.items()))
                + "</td>" for counts in summary["versus"])
        else:
            cells = "".join(summary_cell(cell) for cell in summary["cells"])
            cells += "".join(f"<td>{verdict_cell(v)}</td>" for v in summary["versus"])
        out.append(f"<tr><td class=name>{link}</td>{cells}</tr>")
    out.append("</table>")
    return out


def kind_cell(row, doc, first, starred, has_peak, index):
    if row is None:
        return "<td>–</td>"
    parts = []
    if row.get("median_ms") is not None:
        time = esc(fmt_ms(row["median_ms"]))
        parts.append(f'<span class="star">★</span> <b>{time}</b>' if starred else time)
        runs = row.get("_run_medians")
        if runs and len(runs) > 1:
            parts.append(f"<small>runs {esc(fmt_ms(runs[0]))}–{esc(fmt_ms(runs[-1]))}</small>")
    else:
        parts.append("not timed")
    if has_peak and row.get("percent_of_peak") is not None:
        parts.append(esc(fmt_rate(row["percent_of_peak"], "%")) + " of peak")
    base = base_words(doc)
    if base and role(row, doc) == "baseline":
        parts.append("baseline")
    elif base and row.get("speedup_vs_baseline") is not None and same_work(
            row, baseline_row(doc)):
        parts.append(esc(ratio_words(row["speedup_vs_baseline"], base)))
    if not row.get("passed", True):
        parts.append("FAIL" + (" (expected)" if role(row, doc) == "expected failure" else ""))
    if index > 0:
        parts.append(verdict_cell(verdict(first, row)))
    return "<td>" + "<br>".join(parts) + "</td>"


def case_table(docs, labels):
    keys = []
    for doc in docs:
        for row in doc["rows"]:
            if row_key(row) not in keys:
                keys.append(row_key(row))
    has_peak = any(r.get("percent_of_peak") is not None for d in docs for r in d["rows"])
    stars = [fastest_keys(doc) for doc in docs]
    out = ["<table>", "<tr><th class=name>id</th><th class=name>kernel</th>" + "".join(
        f"<th>{esc(label)}</th>" for label in labels) + "</tr>"]
    for key in keys:
        rows = [next((r for r in doc["rows"] if row_key(r) == key), None) for doc in docs]
        some = next(r for r in rows if r is not None)
        r = role(some, docs[0])
        css = {"baseline": "baseline", "expected failure": "wrong"}.get(r, "")
        starred = [key in stars[k] for k in range(len(docs))]
        if any(starred):
            css = (css + " fastest").strip()
        name = esc(some.get("name", ""))
        if r == "baseline":
            name += " (baseline)"
        elif r == "expected failure":
            name += f" ({WRONG_WORDS})"
        cells = "".join(kind_cell(row, doc, rows[0], starred[k], has_peak, k)
                        for k, (row, doc) in enumerate(zip(rows, docs)))
        attribute = f' class="{css}"' if css else ""
        out.append(f"<tr{attribute}><td class=name>{esc(key[0])}</td>"
                   f"<td class=name>{name}</td>{cells}</tr>")
    out.append("</table>")
    return out


def section(entry, labels, figure_index):
    docs = entry["docs"]
    stem = entry["stem"]
    out = [f'<section id="{esc(stem)}">',
           f"<h3>{esc(case_name(docs[0]))} <small>({esc(stem)})</small></h3>",
           f'<p class="note">{esc(table_words(docs[0]))}</p>']
    command = run_command(docs[0])
    if command:
        out.append(f'<p class="note">Run as <code>{esc(command)}</code>.</p>')
    for note in entry["notes"]:
        out.append('<p class="note">' + re.sub(r"`([^`]+)`", r"<code>\1</code>", esc(note))
                   + "</p>")
    for path, title in entry["images"]:
        figure_index[0] += 1
        out.append(f"<figure>{inline_svg(path, figure_index[0], title)}"
                   f"<figcaption>{esc(title)}</figcaption></figure>")
    for label, doc in zip(labels, docs):
        clocks = doc["run"].get("parameters", {}).get("clocks during timing", "not recorded")
        tuning = "; ".join(f"{key}: {value}" for key, value in tuning_choices(doc))
        out.append(f'<p class="note">{esc(label)}: clocks during timing {esc(clocks)}'
                   + (f"; {esc(tuning)}" if tuning else "") + "</p>")
    out += case_table(docs, labels)
    out.append("</section>")
    return out


def page(labels, entries, warning, summaries, sections, not_compared=""):
    """The whole page as one string (`not_compared`: the sentence naming the result files only
    some GPUs have, shown under the summary)."""
    names = " and ".join([", ".join(labels[:-1]), labels[-1]] if len(labels) > 1 else labels)
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>The same programs on {esc(names)}</title>", f"<style>{CSS}</style>",
           "</head>", "<body>", f"<h1>The same programs on {esc(names)}</h1>"]
    # The answer first, as a projector shows it: one line on the code, the summary table, then
    # how to read it and the runs' details, folded.
    if warning:
        out.append('<p class="warning">Not every run was made from the same code: compare a '
                   'stage\'s rows with care (the commits are under "The runs").</p>')
    else:
        commits = sorted({c for entry in entries for c in entry["commits"]})
        out.append(f'<p class="lead">Every run was made from the same code'
                   f'{" (" + esc(commits[0]) + ")" if commits else ""}.</p>')
    out += summary_table(labels, summaries)
    if not_compared:
        out.append(f"<p>{esc(not_compared)}</p>")
    out.append(f'<p class="lead">{esc(LEAD)}</p>')
    out.append("<details><summary>The runs: dates, commits, clocks during timing, tuning "
               "choices</summary>")
    if warning:
        out.append(f'<p class="note">{esc(warning)}</p>')
    out += runs_table(entries)
    out.append("</details>")
    out.append('<nav><h2 id="contents">Cases</h2><ol>')
    groups = []
    for entry in sections:
        if not groups or groups[-1][0] != entry["program"]:
            groups.append((entry["program"], []))
        groups[-1][1].append(entry)
    for program, members in groups:
        out.append(f"<li>{esc(program)}<ol>")
        for entry in members:
            out.append(f'<li><a href="#{esc(entry["stem"])}">'
                       f"{esc(case_name(entry['docs'][0]).split(', ', 1)[-1].lstrip(': '))}"
                       f" ({esc(entry['stem'])})</a></li>")
        out.append("</ol></li>")
    out.append("</ol></nav>")
    figure_index = [0]
    for program, members in groups:
        out.append(f"<h2>{esc(program)}</h2>")
        for entry in members:
            out += section(entry, labels, figure_index)
    out += ["</body>", "</html>", ""]
    return "\n".join(out)
