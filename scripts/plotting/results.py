"""Reading results: the rows of a table, their roles, the fastest stage, and the words (GPU names,
titles, run details) that figures and pages print."""
import json
import math
import pathlib
import re
import sys
from datetime import datetime


def load_results(folder):
    """{stem: document} for every ResultTable JSON in `folder`."""
    results = {}
    for path in sorted(pathlib.Path(folder).glob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            print(f"skipping {path}: {error}", file=sys.stderr)
            continue
        if isinstance(doc, dict) and "rows" in doc and "run" in doc:
            doc.setdefault("_folder", str(folder))
            doc.setdefault("_stem", path.stem)
            results[path.stem] = doc
    qualify(results)
    return results


def short_title(title, most=60):
    """A table's title up to its first ':' or ' (', and no longer than `most` (whole words)."""
    text = re.split(r":| \(", title)[0].strip()
    while len(text) > most and " " in text:
        text = text.rsplit(" ", 1)[0].rstrip(",;")
    return text


def qualify(results):
    """Tables of one program that size and input do not tell apart (chapter 7's reductions at
    2^28 and 2^30, its all-reduce run four ways) get what does: their own title, then N, then
    whether calls were batched, then the file's name; doc["_qualifier"] joins the title."""
    groups = {}
    for stem, doc in results.items():
        groups.setdefault((doc["program"], case_words(doc)), []).append(doc)
    for members in groups.values():
        if len(members) < 2:
            continue
        steps = [lambda d: short_title(d.get("title", "")),
                 lambda d: power_of_two(d["run"].get("parameters", {}), ("N", "n")) or "",
                 lambda d: "calls batched" if d["run"].get("parameters", {}).get(
                     "calls per sample") else "",
                 lambda d: d["_stem"]]
        parts = {id(doc): [] for doc in members}
        for step in steps:
            if len({tuple(parts[id(doc)]) for doc in members}) == len(members):
                break
            if len({step(doc) for doc in members}) > 1:
                for doc in members:
                    if step(doc):
                        parts[id(doc)].append(step(doc))
        for doc in members:
            doc["_qualifier"] = ", ".join(parts[id(doc)])


def timed_rows(doc):
    return [row for row in doc["rows"] if row.get("median_ms") is not None]


def baseline_row(doc):
    return next((row for row in doc["rows"] if row["id"] == doc.get("baseline")), None)


def row_key(row):
    """A row's key within its table: its label (row_label), and its name too (two rows may share
    an id, as chapter 7's copies between the same two GPUs do)."""
    return (row_label(row), row.get("name", ""))


def role(row, doc):
    """'stage' (a step of the progression), 'baseline', 'expected failure' or 'other': the
    row's "role" where the JSON has one, else read off the older flags."""
    given = str(row.get("role") or "").replace("_", " ").strip().lower()
    if given in ("expected failure", "baseline"):
        return given
    if given in ("progression", "stage"):
        return "stage"
    if row.get("expected_failure"):
        return "expected failure"
    if doc.get("baseline") is not None and row["id"] == doc.get("baseline"):
        return "baseline"
    return "stage" if row.get("in_progression", True) else "other"


# ---------------------------------------------------------------------------------------------
# The fastest correct stage
# ---------------------------------------------------------------------------------------------

# Baselines that are another implementation of the same work (a library, one GPU against
# several), so that the rows beside them are alternatives to rank; a baseline such as chapter 0's
# "t5" (one timing method among five) is not.
LIBRARY_BASELINES = {"cub", "nccl", "thrust", "1gpu", "cublas"}
# Rows that are a ceiling or a reference, not an alternative: chapter 8's copy of the same bytes
# does no scan, and chapter 9's TF32 row computes in another precision, so neither ever gets the
# star (the fastest correct stage does), however fast it is.
CEILINGS = {"copy", "tf32"}


def is_warmup(row):
    """A warm-up row (chapter 2's kernel 0): it runs so that the timed rows find a warm GPU."""
    return bool(re.search(r"warm[\s_-]?up", str(row.get("name", "")) + " " + str(row["id"]),
                          re.I))


def row_group(row):
    """The sweep point a row belongs to: its "group" (chapter 7's message size), or the number
    before ':' of an id such as '4096:private' (chapter 5's bins); None in a plain table."""
    if row.get("group"):
        return str(row["group"])
    head, sep, _ = str(row["id"]).partition(":")
    return head if sep and head.isdigit() else None


def row_base_id(row):
    """'cub' for '4096:cub', else the id."""
    return str(row["id"]).partition(":")[2] if row_group(row) and ":" in str(row["id"]) \
        else str(row["id"])


def row_label(row):
    """A row's id with its bin count, '4096:private', in a table grouped by bin counts (chapter
    5's wide section: its group is a number, in the "group" field, or before ':' in the id of an
    older table, so both give the same label); else the id, as the table has it."""
    group = row_group(row)
    return f"{group}:{row_base_id(row)}" if group and group.isdigit() else str(row["id"])


def row_groups(doc):
    """[(group, rows)] in table order: one (None, rows) for a plain table."""
    groups = {}
    for row in doc["rows"]:
        groups.setdefault(row_group(row), []).append(row)
    return list(groups.items())


def ranked_rows(doc, rows=None):
    """The rows among which "fastest" means something: correct (passed, not wrong on purpose),
    timed, not a warm-up, not the baseline, not a ceiling (CEILINGS), and doing the same work as the stages (chapter 2's
    long kernels do not). Where the table has stages, the other rows of their work join them
    (chapter 4's flat kernels); without stages, the rows beside a library baseline (chapter 7's
    one GPU against several, chapter 5's kernels beside CUB at each bin count). Else nothing:
    the rows are scenarios, not alternatives (chapter 6)."""
    rows = doc["rows"] if rows is None else rows
    stages = [row for row in rows if role(row, doc) == "stage"]
    base = baseline_row(doc)
    library = [row for row in rows if row_base_id(row).lower() in LIBRARY_BASELINES]
    if stages:
        work = {row.get("bytes") for row in stages}
        pool = [row for row in rows if role(row, doc) in ("stage", "other")
                and row.get("bytes") in work and row_base_id(row).lower() not in LIBRARY_BASELINES]
    elif base is not None and str(base["id"]).lower() in LIBRARY_BASELINES:
        pool = [row for row in rows if role(row, doc) == "other" and same_work(row, base)]
    elif library:
        pool = [row for row in rows if role(row, doc) == "other" and row not in library]
    else:
        pool = []
    return [row for row in pool if row.get("median_ms") is not None and row.get("passed", True)
            and not is_warmup(row) and row_base_id(row).lower() not in CEILINGS]


def fastest_row(doc, rows=None):
    """(the fastest correct stage, the other rows whose min-max range reaches its median range:
    the same within noise), or (None, []) where nothing ranks."""
    pool = ranked_rows(doc, rows)
    if len(pool) < 2:
        return None, []
    best = min(pool, key=lambda row: row["median_ms"])
    tied = [row for row in pool if row is not best
            and row.get("min_ms", row["median_ms"]) <= best.get("max_ms", best["median_ms"])]
    return best, tied


def fastest_ids(doc, rows=None):
    """The key of the one row that gets the star ({} where nothing ranks), and how many others
    are the same within noise. In a sweep (rows in groups) each group has its own fastest."""
    rows = doc["rows"] if rows is None else rows
    groups = {}
    for row in rows:
        groups.setdefault(row_group(row), []).append(row)
    star, tied = set(), 0
    for members in groups.values():
        best, others = fastest_row(doc, members)
        if best is not None:
            star.add(row_key(best))
            tied = max(tied, len(others))
    return star, tied


def same_work(row, base):
    """Whether a row does the baseline's work (the same bytes), so that x baseline means
    something: chapter 2's short kernels are not the long baseline's work."""
    return bool(base) and (row.get("bytes") or 0) == (base.get("bytes") or 0)


def base_words(doc):
    base = baseline_row(doc)
    if not base:
        return None
    return {"cub": "CUB", "nccl": "NCCL", "1gpu": "1 GPU", "thrust": "Thrust"}.get(
        base["id"], str(base["id"]))


# ---------------------------------------------------------------------------------------------
# Numbers in words: one way to write each
# ---------------------------------------------------------------------------------------------


def fmt_ms(value):
    return f"{value:.3g} ms" if value >= 0.001 else f"{value * 1000:.3g} µs"


def fmt_rate(value, unit):
    if unit == "%":
        return f"{value:.1f}%"
    return f"{value:.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}"


def fmt_ratio(ratio):
    """'1.09', '0.49', '0.023', '0.00072', '120': two decimals from 0.1 up, two significant
    digits below, never an exponent."""
    if ratio >= 100:
        return f"{ratio:,.0f}"
    if ratio >= 0.1:
        return f"{ratio:.2f}"
    decimals = 1 - math.floor(math.log10(ratio)) if ratio > 0 else 2
    return f"{ratio:.{decimals}f}"


def ratio_words(ratio, base):
    """'0.023× CUB': the baseline's time over the row's (> 1: faster than the baseline); the
    one wording of every figure, table and page."""
    return f"{fmt_ratio(ratio)}× {base}"


def number(text):
    """The first number in a table cell ('4009 (+2009 failed)' -> 4009.0), or None."""
    match = re.search(r"-?\d+(?:\.\d+)?", str(text))
    return float(match.group()) if match else None


def size_bytes(text):
    number_text, unit = text.split()
    return float(number_text) * {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[unit]


def size_name(value):
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= scale:
            return f"{value / scale:g} {unit}"
    return f"{value:g} B"


def power_of_two(params, keys):
    """'2^28' from the first of `keys` whose value says '(2^k)'."""
    for key in keys:
        match = re.search(r"\((2\^\d+(?: [+-] \d+)?)\)", str(params.get(key, "")))
        if match:
            return match.group(1)
    return None


# ---------------------------------------------------------------------------------------------
# GPU names
# ---------------------------------------------------------------------------------------------


def short_gpu(name):
    """'NVIDIA H100 80GB HBM3' -> 'H100', 'NVIDIA GeForce RTX 4090' -> 'RTX 4090'."""
    tokens = re.split(r"[\s\-]+", name.replace("NVIDIA", " "))
    drop = re.compile(r"^(\d+GB|HBM\d*e?|PCIe|SXM\d*|NVL\d*|GeForce|Tesla|Graphics)$", re.I)
    kept = [token for token in tokens if token and not drop.match(token)]
    return " ".join(kept) or name


def gpu_count(doc):
    params = doc["run"].get("parameters", {})
    count = params.get("GPUs") or params.get("ranks")
    try:
        return int(count) if count else 1
    except ValueError:
        return 1


def gpu_label(doc):
    """Short GPU name, with the count where the run used several: '2 x H200'."""
    name = short_gpu(doc["run"]["gpu"])
    count = gpu_count(doc)
    return f"{count} x {name}" if count > 1 else name


def gpu_labels(docs):
    """One legend label per document: a merged document (several runs of one GPU kind) has its
    own; the folder name is added where two would read the same."""
    labels = [doc.get("_label") or gpu_label(doc) for doc in docs]
    for index, label in enumerate(labels):
        if labels.count(label) > 1:
            labels[index] = f"{label} ({pathlib.Path(docs[index].get('_folder', '?')).name})"
    return labels


# ---------------------------------------------------------------------------------------------
# Words: titles, run details
# ---------------------------------------------------------------------------------------------

# Chapter order, and each program's name in words with what its N counts. A program that is not
# here gets its own name, capitalised, and "elements".
PROGRAMS = {
    "first_kernel": ("First kernel", "elements", "stage"),
    "execution_model": ("Execution model", "elements", "stage"),
    "divergence": ("Branch divergence", "elements", "kernel"),
    "reduction": ("Reduction", "ints", "stage"),
    "nested_reduction": ("Nested reduction", "ints", "kernel"),
    "histogram": ("Histogram", "bytes", "stage"),
    "streams": ("Streams", None, "scenario"),
    "multi_gpu": ("Multi-GPU", None, "variant"),
    "scan": ("Scan", "values", "stage"),
    "matmul": ("Matrix multiply", None, "stage"),
}


def program_words(doc):
    return PROGRAMS.get(doc["program"],
                        (doc["program"].replace("_", " ").capitalize(), "elements", "stage"))


def text_beside(doc):
    """The program's plain output saved beside its JSON (<stem>.txt), or ''."""
    folder, stem = doc.get("_folder"), doc.get("_stem")
    if not folder or not stem:
        return ""
    path = pathlib.Path(folder) / f"{stem}.txt"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def scenarios(doc):
    """[(number, name)] of the '== scenario N: name ==' sections the program printed, where the
    table's rows are scenarios (chapter 6), else []."""
    found = re.findall(r"^== scenario (\d+): (\w+) ==", text_beside(doc), re.M)
    return list(dict.fromkeys(found))


def scenario_words(doc):
    """'scenario 6, launch overhead' or 'scenarios 7-8, copy bandwidth and copy compute
    pipeline'; 'scenarios 1-8' where the run had them all."""
    found = scenarios(doc)
    if not found:
        return ""
    numbers = [int(n) for n, _ in found]
    if len(numbers) == 1:
        span = str(numbers[0])
    elif numbers == list(range(numbers[0], numbers[-1] + 1)):
        span = f"{numbers[0]}–{numbers[-1]}"
    else:
        span = ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"
    if len(found) > 3:
        return f"scenarios {span}, all in one run"
    names = " and ".join(name.replace("_", " ") for _, name in found)
    return f"scenario{'s' if len(found) > 1 else ''} {span}, {names}"


def size_words(doc):
    """', 2^28 ints, uniform input' or ''."""
    params = doc["run"].get("parameters", {})
    _, unit, _ = program_words(doc)
    if unit is None:
        return ""
    parts = []
    power = power_of_two(params, ("N", "n", "values", "bytes"))
    if power and unit:
        parts.append(f"{power} {'values' if 'values' in params else unit}")
    elif power:
        parts.append(f"N = {power}")
    source = str(params.get("input", "")).split(",")[0].strip()
    if source and parts and source.endswith(("values", "bytes")):
        parts[-1] = f"{power} {source}"
    elif source:
        parts.append(f"{source} input")
    bins = re.search(r"\((\d+) bins\)", str(params.get("bins", "")))
    if bins:
        parts.append(f"{bins.group(1)} bins")
    return "".join(f", {part}" for part in parts)


def case_words(doc):
    """What distinguishes this results file from the program's others: its size and input, or
    the scenarios it ran."""
    words = size_words(doc)
    scenario = scenario_words(doc)
    qualifier = doc.get("_qualifier")
    return words + (f", {scenario}" if scenario else "") + (f", {qualifier}" if qualifier else "")


def case_name(doc):
    """The results file in words: 'Reduction, 2^28 ints'; where size and input say nothing (two
    tables of one program alike in both), the table's own title."""
    words = case_words(doc)
    return program_words(doc)[0] + (words or f": {doc.get('title', doc.get('_stem', ''))}")


def figure_title(doc, what):
    name, _, _ = program_words(doc)
    return f"{name}{case_words(doc)}: {what}"


def table_words(doc):
    """The table's caption as the program wrote it, unless the rows are some of the program's
    scenarios (the caption then speaks of others): then what the run ran."""
    found = scenarios(doc)
    if not found:
        return doc.get("title", "")
    words = "; ".join(f"scenario {n}: {name.replace('_', ' ')}" for n, name in found)
    if any(re.match(r"^\d+[LP]$", str(row["id"])) for row in doc["rows"]):
        words += " (L: legacy default stream, P: per-thread default stream)"
    return words


def row_noun(doc):
    return program_words(doc)[2]


SUMMARY_CACHE = {}


def folder_summary(folder):
    """The folder's summary.json (written by make bench), or None."""
    if folder not in SUMMARY_CACHE:
        try:
            SUMMARY_CACHE[folder] = json.loads(
                (pathlib.Path(folder) / "summary.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError, TypeError):
            SUMMARY_CACHE[folder] = None
    return SUMMARY_CACHE[folder]


def run_command(doc):
    """The command line that made this results file, from the folder's summary.md
    ('| stem | `streams --scenario 7,8` | 0 | 1.6 |'), or None."""
    folder, stem = doc.get("_folder"), doc.get("_stem")
    if not folder or not stem:
        return None
    path = pathlib.Path(folder) / "summary.md"
    if not path.is_file():
        return None
    match = re.search(rf"^\| {re.escape(stem)} \| `([^`]*)` \|", path.read_text(encoding="utf-8"),
                      re.M)
    return match.group(1).strip() if match else None


def run_commit(doc):
    """The commit that made the run: run.git_commit where the JSON has it, else the folder's
    summary.json: its "reruns" entry for this result (a case run again on its own, later), or
    its commit when the run started within that bench run's first 3 hours."""
    commit = doc["run"].get("git_commit")
    if commit:
        return str(commit).split()[0]
    folder = doc.get("_folder")
    summary = folder_summary(folder) if folder else None
    if summary and doc.get("_stem") in summary.get("reruns", {}):
        return str(summary["reruns"][doc["_stem"]]).split()[0]
    if not summary or not summary.get("git_commit") or not summary.get("date"):
        return None
    start, stamp = summary["date"][:19], doc["run"].get("timestamp", "")[:19]
    if not stamp or stamp < start:
        return None
    try:
        delta = datetime.fromisoformat(stamp) - datetime.fromisoformat(start)
    except ValueError:
        return None
    return str(summary["git_commit"]).split()[0] if delta.total_seconds() < 3 * 3600 else None


TUNING_KEY = re.compile(r"^stages? [\w\-, ]+ runs?$")


def tuning_choices(doc):
    """[(key, value)] of the choices a tuning pass made on the GPU ('stages 10-12 run')."""
    return [(key, value) for key, value in doc["run"].get("parameters", {}).items()
            if TUNING_KEY.match(key)]


def run_details(doc, prefix=""):
    """One line of run details for the footer: GPU, toolkit, date, commit, clocks, tuning; a
    merged document (several runs of one GPU kind) says how many and over which dates."""
    run = doc["run"]
    params = run.get("parameters", {})
    parts = [f"{run['gpu']}" + (f" ({run['sm_count']} SMs)" if run.get("sm_count") else ""),
             f"CUDA {run.get('cuda_runtime', '?')}"
             + (f", driver {run['driver_version']}" if run.get("driver_version") else "")]
    runs = doc.get("_runs")
    if runs and len(runs) > 1:
        dates = sorted({r["run"].get("timestamp", "")[:10] for r in runs} - {""})
        commits = sorted({run_commit(r) or "?" for r in runs})
        parts.append(f"median of {len(runs)} runs, {dates[0]} to {dates[-1]}" if dates
                     else f"median of {len(runs)} runs")
        parts.append("commit" + ("s " if len(commits) > 1 else " ") + ", ".join(commits))
    else:
        if run.get("timestamp"):
            parts.append(f"run {run['timestamp'][:10]}")
        commit = run_commit(doc)
        if commit:
            parts.append(f"commit {commit}")
    for key, value in params.items():
        if key == "clocks during timing":
            parts.append(f"clocks during timing: {value}")
        elif TUNING_KEY.match(key):
            parts.append(f"{key}: {value}")
    if params.get("timing"):
        parts.append(f"timing: {params['timing']}")
    elif params.get("reps"):
        parts.append(f"repetitions: {params['reps']}")
    if params.get("calls per sample"):  # --batch: each sample is several calls back to back
        parts.append(f"calls per sample: {params['calls per sample']}")
    return prefix + "; ".join(parts)


def footer_lines(docs, labels=None, extra=()):
    if len(docs) == 1:
        lines = [run_details(docs[0])]
    else:
        lines = [run_details(doc, f"{label}: ") for doc, label in zip(docs, labels)]
    return list(extra) + lines


def chapter_order(stem, doc):
    programs = list(PROGRAMS)
    program = doc["program"]
    return (programs.index(program) if program in programs else len(programs), stem)
