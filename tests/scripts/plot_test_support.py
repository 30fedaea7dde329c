"""What the figure tests share (tests/scripts/test_plots*.py): the plotter, the committed results,
the rerun under Debian's Python (where matplotlib lives), and a fixture generator that makes a
results folder of a GPU nobody has from a committed one."""
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
SCRIPT = ROOT / "scripts" / "plot_results.py"
SYSTEM_PYTHON = "/usr/bin/python3"
CHILD = "CT_PLOT_TESTS_CHILD"


def load_plotter():
    spec = importlib.util.spec_from_file_location("plot_results", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def has_matplotlib(python=None):
    if python is None:
        return importlib.util.find_spec("matplotlib") is not None
    return subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode == 0


HERE = has_matplotlib()
ELSEWHERE = (not HERE and not os.environ.get(CHILD) and os.path.exists(SYSTEM_PYTHON)
             and os.path.realpath(SYSTEM_PYTHON) != os.path.realpath(sys.executable)
             and has_matplotlib(SYSTEM_PYTHON))
pr = load_plotter()


def gpu_folders():
    """The committed results folders that hold result JSON (not compare/, history/)."""
    return [folder for folder in sorted(RESULTS.iterdir())
            if folder.is_dir() and folder.name not in ("compare", "history")
            and pr.load_results(folder)]


def compare_folders():
    """The two folders the committed comparison is made of (the README's make compare)."""
    return [RESULTS / "nvidia-h100-80gb-hbm3", RESULTS / "nvidia-h200"]


def rerun_under_system_python(case, pattern):
    """The test file again under /usr/bin/python3, where the Python running ctest lacks
    matplotlib."""
    run = subprocess.run([SYSTEM_PYTHON, "-m", "unittest", "discover", "-s",
                          str(ROOT / "tests" / "scripts"), "-p", pattern],
                         capture_output=True, text=True, env={**os.environ, CHILD: "1"})
    case.assertEqual(run.returncode, 0, run.stdout + run.stderr)


def synthetic_gpu(source, target, gpu="NVIDIA Imaginary X9", scale=0.5, noise=0.0,
                  commit="0000000", stems=None, timestamp="2026-12-01T10:00:00+0000"):
    """A results folder of a GPU nobody has, made from a committed one: every time multiplied
    by `scale` (bandwidths and the theoretical peak divided by it, so that % of peak stays),
    each min-max range widened by `noise` of its median (a noisy machine), the GPU renamed, the
    run stamped with `commit` and `timestamp`. The text beside each JSON is copied as it is (the
    K table and the timelines are the source's)."""
    source, target = pathlib.Path(source), pathlib.Path(target)
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("*.json")):
        if stems is not None and path.stem not in stems and path.name != "summary.json":
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        if path.name == "summary.json":
            doc.update(gpu=gpu, git_commit=f"{commit} (synthetic)", date=timestamp)
        elif isinstance(doc, dict) and "rows" in doc:
            doc["run"].update(gpu=gpu, git_commit=commit, timestamp=timestamp)
            if doc["run"].get("peak_gbs"):
                doc["run"]["peak_gbs"] /= scale
            for row in doc["rows"]:
                if row.get("median_ms") is None:
                    continue
                for key in ("median_ms", "min_ms", "max_ms", "mean_ms"):
                    if row.get(key) is not None:
                        row[key] *= scale
                row["min_ms"] = row.get("min_ms", row["median_ms"]) - noise * row["median_ms"]
                row["max_ms"] = row.get("max_ms", row["median_ms"]) + noise * row["median_ms"]
                if row.get("gbs") is not None:
                    row["gbs"] /= scale
        (target / path.name).write_text(json.dumps(doc), encoding="utf-8")
        text = path.with_suffix(".txt")
        if text.is_file() and path.name != "summary.json":
            shutil.copy(text, target / text.name)
    return target


def skip_without_matplotlib():
    return unittest.skipUnless(HERE, "matplotlib is not importable by this Python")
