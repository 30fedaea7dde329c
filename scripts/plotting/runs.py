"""The runs a comparison reads, and the archive a student hands in.

A run is one `make bench` folder (docs/results/<gpu>/), or the archive `make pack` made of one.
A comparison groups the runs by GPU kind ("H100", "2 x H200"): one column per kind, and where a
kind has several runs, each row's median over them and their range, so that a noisy machine
shows as such.
"""
import copy
import datetime
import json
import pathlib
import re
import socket
import statistics
import subprocess
import tarfile

from .results import gpu_label, load_results, row_key

PACKED_SUFFIXES = (".json", ".csv", ".txt", ".md", ".log")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar")


class InputError(Exception):
    """A path that is no results folder nor archive: the message is the one line to print."""


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")


def is_archive(path):
    return str(path).endswith(ARCHIVE_SUFFIXES)


def unpack(archive, into):
    """Extracts a packed run (regular files only, no path outside `into`) and returns the folder
    that holds its JSON."""
    into = pathlib.Path(into)
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            name = pathlib.PurePosixPath(member.name)
            if member.isdir():
                continue
            if not member.isfile() or name.is_absolute() or ".." in name.parts:
                raise InputError(f"{archive}: {member.name} is not a plain file inside the archive")
            target = into.joinpath(*name.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(member).read())
    folders = sorted({path.parent for path in into.rglob("*.json")})
    if not folders:
        raise InputError(f"{archive}: no result JSON inside")
    return folders[0]


def open_run(path, scratch, index):
    """{"path", "folder", "results", "name", "label", "gpu"} for a folder or packed archive."""
    path = pathlib.Path(path)
    if not path.exists():
        raise InputError(f"no such folder: {path}")
    if path.is_dir():
        folder = path
    elif is_archive(path):
        folder = unpack(path, pathlib.Path(scratch) / f"run{index}")
    else:
        raise InputError(f"not a results folder or a make pack archive: {path}")
    results = load_results(folder)
    if not results:
        raise InputError(f"no result JSON in {path}")
    packed = folder / "pack.json"
    name = None
    if packed.is_file():
        try:
            name = json.loads(packed.read_text(encoding="utf-8")).get("name")
        except json.JSONDecodeError:
            name = None
    labels = [gpu_label(doc) for doc in results.values()]
    label = max(set(labels), key=labels.count)
    gpu = next(doc["run"]["gpu"] for doc in results.values() if gpu_label(doc) == label)
    return {"path": str(path), "folder": folder, "results": results, "label": label, "gpu": gpu,
            "name": name or (path.name[:-7] if str(path).endswith(".tar.gz") else path.name)}


def group_by_kind(runs):
    """[(label, [run])] in the order each kind first appears."""
    kinds = {}
    for run in runs:
        kinds.setdefault(run["label"], []).append(run)
    return list(kinds.items())


def median(values):
    return statistics.median(values) if values else None


def merged_doc(docs, label):
    """One document for a GPU kind: the document itself where the kind has one run; else each
    row's median over the runs (time, % of peak, GB/s, x baseline), its range over them (min_ms:
    the lowest sample of any run, max_ms: the highest; _run_medians: each run's median), and
    the run whose times are the median of the runs for what is not a row (footers, the text
    beside the JSON)."""
    if len(docs) == 1:
        doc = dict(docs[0])
        doc["_label"], doc["_runs"] = label, [docs[0]]
        return doc
    totals = sorted(docs, key=lambda d: sum(r.get("median_ms") or 0 for r in d["rows"]))
    merged = copy.deepcopy(totals[len(totals) // 2])
    merged["_label"], merged["_runs"] = label, list(docs)
    for row in merged["rows"]:
        same = [r for d in docs for r in d["rows"] if row_key(r) == row_key(row)]
        timed = [r for r in same if r.get("median_ms") is not None]
        if timed:
            row["median_ms"] = median([r["median_ms"] for r in timed])
            row["min_ms"] = min(r.get("min_ms", r["median_ms"]) for r in timed)
            row["max_ms"] = max(r.get("max_ms", r["median_ms"]) for r in timed)
            row["_run_medians"] = sorted(r["median_ms"] for r in timed)
        for key in ("percent_of_peak", "gbs", "speedup_vs_baseline"):
            values = [r[key] for r in same if r.get(key) is not None]
            if values:
                row[key] = median(values)
        row["passed"] = all(r.get("passed", True) for r in same)
    return merged


# ---------------------------------------------------------------------------------------------
# make pack
# ---------------------------------------------------------------------------------------------


def this_gpu_folder(results_root="docs/results", device=0):
    """docs/results/<slug of this machine's GPU>, as make bench names it, or InputError."""
    try:
        names = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                               capture_output=True, text=True, timeout=30).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        names = []
    if len(names) <= device or not names[device].strip():
        raise InputError("no GPU found here to name the folder: say which, "
                         "make pack RESULTS_DIR=docs/results/<gpu>")
    return pathlib.Path(results_root) / slug(names[device].strip())


def run_date(folder, results):
    """The bench run's date (summary.json), else the latest run timestamp, else today."""
    try:
        summary = json.loads((pathlib.Path(folder) / "summary.json").read_text(encoding="utf-8"))
        if summary.get("date"):
            return summary["date"][:10]
    except (OSError, json.JSONDecodeError):
        pass
    stamps = sorted(doc["run"].get("timestamp", "")[:10] for doc in results.values())
    return stamps[-1] if stamps and stamps[-1] else datetime.date.today().isoformat()


def pack(folder, name=None, out_dir=".", today=None):
    """<gpu-slug>_<name>_<date>.tar.gz of a results folder's data (JSON, CSV, the printed output,
    the summary; the figures are redrawn by make compare), with pack.json naming the student.
    Returns the archive's path."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise InputError(f"no such folder: {folder}")
    results = load_results(folder)
    if not results:
        raise InputError(f"no result JSON in {folder} (make bench writes them)")
    who = slug(name or socket.gethostname()) or "student"
    date = today or run_date(folder, results)
    stem = f"{slug(folder.name)}_{who}_{date}"
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    archive = out_dir / f"{stem}.tar.gz"
    manifest = json.dumps({"name": name or who, "host": socket.gethostname(), "date": date,
                           "folder": folder.name}, indent=2).encode()
    with tarfile.open(archive, "w:gz") as tar:
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.name.endswith(PACKED_SUFFIXES) and path.name != "pack.json":
                tar.add(path, arcname=f"{stem}/{path.name}")
        info = tarfile.TarInfo(f"{stem}/pack.json")
        info.size = len(manifest)
        import io
        tar.addfile(info, io.BytesIO(manifest))
    return archive
