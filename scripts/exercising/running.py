"""Running a chapter's program on one case and judging what it reports.

run_program() runs the executable with --json and reads its rows by id; judge() turns the exit
code, the output and the rows into 'pass', 'fail', 'skip' (the case does not apply: bad usage)
or 'no-gpu' (not checked), with the reasons, using the grader's check_rows().
"""
import dataclasses
import json
import os
import pathlib
import subprocess
import tempfile
import time
from typing import Dict, List, Tuple

from .graders import NOT_CHECKED, Grader

NO_GPU_TEXT = "no NVIDIA GPU"
# How a program says that this machine cannot run its checks (exercise multi-gpu-4's harness
# without two GPUs with peer access), exit code 3: not checked, never a PASS or a FAIL.
NOT_CHECKED_TEXT = "not checked: "


@dataclasses.dataclass
class RunResult:
    code: int
    output: str
    rows: Dict[str, dict]
    seconds: float
    timed_out: bool = False


def run_program(command: List[str], timeout: float) -> RunResult:
    """Runs a chapter executable with --json, returning its rows by id."""
    with tempfile.TemporaryDirectory(prefix="exercise-") as tmp:
        json_path = os.path.join(tmp, "rows.json")
        start = time.monotonic()
        try:
            done = subprocess.run(command + ["--json", json_path], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, errors="replace",
                                  timeout=timeout)
        except subprocess.TimeoutExpired as expired:
            output = expired.output or ""
            if isinstance(output, bytes):
                output = output.decode(errors="replace")
            return RunResult(-1, output, {}, time.monotonic() - start, True)
        rows = {}
        # A program with several tables writes rows_<table>.json beside rows.json (chapter 0's
        # stencil, for one): the rows of every table count, by id.
        for path in sorted(pathlib.Path(tmp).glob("rows*.json")):
            try:
                rows.update({row["id"]: row for row in json.loads(path.read_text())["rows"]})
            except (ValueError, KeyError, TypeError):
                pass
        return RunResult(done.returncode, done.stdout, rows, time.monotonic() - start)


def judge(result: RunResult, grader: Grader) -> Tuple[str, List[str]]:
    """'pass', 'fail', 'skip' (the case does not apply: bad usage, exit 2) or 'no-gpu', with the
    reasons."""
    if result.timed_out:
        return "fail", ["timed out (an endless loop, or a deadlock at a barrier?)"]
    if result.code == 3 and NO_GPU_TEXT in result.output:
        return "no-gpu", ["no GPU"]
    if result.code == 3 and NOT_CHECKED_TEXT in result.output:
        said = [line for line in result.output.splitlines() if NOT_CHECKED_TEXT in line]
        return "no-gpu", [said[0].split(NOT_CHECKED_TEXT, 1)[1].strip()]
    if result.code == 2:
        return "skip", [last_lines(result.output, 2)]
    if result.code not in (0, 1) or not result.rows:
        return "fail", [f"the program exited with {result.code} "
                        f"({'a CUDA error' if result.code == 3 else 'crashed'}):",
                        last_lines(result.output, 8)]
    problems = grader.check_rows(result.rows)
    not_checked = [p for p in problems if p.startswith(NOT_CHECKED)]
    if not_checked:
        return "no-gpu", [not_checked[0][len(NOT_CHECKED):]]
    return ("fail", problems) if problems else ("pass", [])


def last_lines(text: str, count: int) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[-count:])
