#!/usr/bin/env python3
"""Exercises that grade themselves: skeletons of real stages, built and checked on the GPU.

    scripts/exercise.py list                      the exercises (exercises/exercises.txt), in
                                                  course order (chapters/chapters.txt)
    scripts/exercise.py start CHAPTER STAGE       copy the skeleton to exercises/student/ (never
                                                  overwrites a file that is already there)
    scripts/exercise.py grade CHAPTER STAGE       build the chapter with the student's file in
                                                  place of the stage file (build-exercise/) and
                                                  run the stage's checks; --help for the options
    scripts/exercise.py skeleton CHAPTER STAGE    print the skeleton
    scripts/exercise.py check                     the markers of every exercise are well formed
    scripts/exercise.py compile-skeletons --build-dir DIR
                                                  compile every skeleton for one architecture,
                                                  with the stage file's own compile command

`make exercise CHAPTER=reduction STAGE=3` (start if needed, then grade) and `make exercise-list`
call this script. docs/exercises.md explains the markers, the checks and what a teacher can change.

A stage file marks what a student writes; the markers are comments, so the file stays the
solution and compiles unchanged:

    // EXERCISE BEGIN: <short hint>
    // EXERCISE HINT: <more hint>                    (optional, any number)
    ... the solution's lines ...
    // EXERCISE STUB: <code>                         (optional: what the skeleton gets instead,
                                                      so that it compiles; wrong on purpose)
    // EXERCISE END

The skeleton is the stage file with every region replaced by its hint and its stub lines.

Exit codes of `grade`: 0 PASS, 1 FAIL (a check failed; what was wrong is printed), 2 bad usage,
3 compiled but not checked (no GPU, or fewer GPUs than the exercise needs: multi-gpu-4 needs
two with peer access), 4 the student's file did not compile.
Python 3.8+, standard library only.
"""
import argparse
import ctypes
import dataclasses
import filecmp
import json
import os
import pathlib
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional, Tuple

ROOT = pathlib.Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "exercises" / "exercises.txt"
CHAPTER_LIST = ROOT / "chapters" / "chapters.txt"  # the course order
STUDENT_DIR = ROOT / "exercises" / "student"
DEFAULT_BUILD_DIR = ROOT / "build-exercise"

EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_NO_GPU, EXIT_BUILD = 0, 1, 2, 3, 4

# --- markers ---------------------------------------------------------------------------------

MARKER = re.compile(r"//\s*EXERCISE\b")
BEGIN = re.compile(r"^(?P<indent>[ \t]*)// EXERCISE BEGIN:(?P<hint>.*)$")
HINT = re.compile(r"^[ \t]*// EXERCISE HINT:(?P<hint>.*)$")
STUB = re.compile(r"^[ \t]*// EXERCISE STUB: (?P<code>.*)$")
END = re.compile(r"^[ \t]*// EXERCISE END[ \t]*$")


class MarkerError(ValueError):
    """A stage file's markers are not well formed."""


@dataclasses.dataclass
class Region:
    begin: int  # index of the BEGIN line
    end: int  # index of the END line
    indent: str
    hints: List[str]
    stubs: List[str]
    solution: List[str]  # the lines a student writes (markers left out)


def parse_regions(text: str, name: str = "<text>") -> List[Region]:
    """The marked regions of a stage file, in order. Raises MarkerError on nested or unbalanced
    markers, HINT/STUB outside a region, an empty hint, a region with no solution lines, or any
    other line that mentions EXERCISE in a marker-like comment."""
    regions: List[Region] = []
    current: Optional[Region] = None
    for number, line in enumerate(text.splitlines()):
        where = f"{name}:{number + 1}"
        begin, hint = BEGIN.match(line), HINT.match(line)
        stub, end = STUB.match(line), END.match(line)
        if begin:
            if current:
                raise MarkerError(f"{where}: EXERCISE BEGIN inside the region opened at line "
                                  f"{current.begin + 1} (regions do not nest)")
            if not begin.group("hint").strip():
                raise MarkerError(f"{where}: EXERCISE BEGIN needs a hint after the colon")
            current = Region(number, -1, begin.group("indent"), [begin.group("hint").strip()],
                             [], [])
        elif hint or stub:
            if not current:
                kind = "HINT" if hint else "STUB"
                raise MarkerError(f"{where}: EXERCISE {kind} outside a region")
            if hint:
                if not hint.group("hint").strip():
                    raise MarkerError(f"{where}: empty EXERCISE HINT")
                current.hints.append(hint.group("hint").strip())
            else:
                current.stubs.append(stub.group("code").rstrip())
        elif end:
            if not current:
                raise MarkerError(f"{where}: EXERCISE END without EXERCISE BEGIN")
            current.end = number
            if not any(s.strip() for s in current.solution):
                raise MarkerError(f"{where}: the region opened at line {current.begin + 1} has "
                                  "no solution lines")
            regions.append(current)
            current = None
        elif MARKER.search(line):
            raise MarkerError(f"{where}: not a marker this script knows: {line.strip()!r} "
                              "(EXERCISE BEGIN:, HINT:, STUB: or END)")
        elif current:
            current.solution.append(line)
    if current:
        raise MarkerError(f"{name}:{current.begin + 1}: EXERCISE BEGIN is never closed by "
                          "EXERCISE END")
    return regions


def region_replacement(region: Region) -> List[str]:
    """What the skeleton holds in place of a region: the hint, then the stub lines."""
    lines = [f"{region.indent}// EXERCISE: {region.hints[0]}"]
    lines += [f"{region.indent}//           {h}" for h in region.hints[1:]]
    lines += [f"{region.indent}{code}" for code in region.stubs]
    return lines


def skeleton_header(exercise: "Exercise") -> List[str]:
    return [
        f"// Exercise {exercise.id}: the skeleton of {exercise.file}.",
        f"// Fill in each EXERCISE gap, then grade it: make exercise CHAPTER={exercise.chapter} "
        f"STAGE={exercise.stage}",
    ]


def make_skeleton(text: str, exercise: "Exercise") -> str:
    """The stage file with each marked region replaced by its hint and stub lines."""
    lines = text.splitlines()
    regions = parse_regions(text, exercise.file)
    if not regions:
        raise MarkerError(f"{exercise.file}: no EXERCISE region (exercise {exercise.id})")
    out = skeleton_header(exercise)
    position = 0
    for region in regions:
        out += lines[position:region.begin]
        out += region_replacement(region)
        position = region.end + 1
    out += lines[position:]
    return "\n".join(out) + "\n"


# --- the registry ----------------------------------------------------------------------------

@dataclasses.dataclass
class Exercise:
    id: str
    chapter: str
    stage: str
    grader: str
    file: str  # relative to ROOT

    @property
    def path(self) -> pathlib.Path:
        return ROOT / self.file

    @property
    def student_path(self) -> pathlib.Path:
        return STUDENT_DIR / pathlib.Path(self.file).name


def load_registry(path: pathlib.Path = REGISTRY) -> List[Exercise]:
    exercises = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 5:
            raise ValueError(f"{path}:{number}: expected 'id chapter stage grader file', got "
                             f"{line!r}")
        exercises.append(Exercise(*fields))
    return exercises


def find_exercise(chapter: str, stage: str, exercises: List[Exercise]) -> Exercise:
    for exercise in exercises:
        if exercise.chapter == chapter and exercise.stage == stage:
            return exercise
    for exercise in exercises:  # also accepted: the exercise's id as CHAPTER, no STAGE
        if exercise.id == chapter and not stage:
            return exercise
    known = ", ".join(f"CHAPTER={e.chapter} STAGE={e.stage}" for e in exercises)
    # Bad usage (exit 2), not a FAIL (1): nothing was built or graded.
    print(f"no exercise for CHAPTER={chapter} STAGE={stage}; there are: {known}", file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


# --- graders: what is run, and what must hold ------------------------------------------------
# A teacher changes the checks here: the sizes, block sizes and data of each grader's cases,
# the size of the timed run, and the small case the sanitizer runs on.

SMALL_SIZES_NOTE = "1, 31, 33 (below and just above a warp), 1023-1025 (around a block), 2^20+3"


@dataclasses.dataclass
class Case:
    label: str
    args: List[str]


def random_size(rng: random.Random) -> int:
    return rng.randrange(1 << 16, 1 << 21) | 1  # odd: never a multiple of a block


class Grader:
    executable = ""  # the program the grader builds and runs (the chapter's, or the exercise's)
    compare_label = "CUB"
    gpus = 1  # GPUs the checks need; with fewer, grade() says so and exits 3 (not checked)
    sanitize_note = ""  # why sanitize_tools() is empty, when it is

    def __init__(self, stage: str):
        self.stage = stage

    # the rows of the JSON that belong to the student's stage
    def row_ids(self) -> List[str]:
        return [self.stage]

    def cases(self, seed: int, large: bool) -> List[Case]:
        raise NotImplementedError

    def timing_args(self, seed: int) -> List[str]:
        raise NotImplementedError

    def compare_ids(self) -> List[str]:
        return ["cub"]

    def sanitize_case(self, seed: int) -> Case:
        """A small odd-sized case (the reduction's and histogram's; others override)."""
        return Case("n=4099 block=256", ["--stage", self.stage, "--n", "4099", "--block", "256",
                                         "--seed", str(seed), "--warmup", "0", "--reps", "1"])

    def sanitize_tools(self) -> List[str]:
        return ["memcheck", "racecheck"]

    def check_rows(self, rows: Dict[str, dict]) -> List[str]:
        """Problems with the student's rows (empty: the case passed)."""
        problems = []
        for row_id in self.row_ids():
            row = rows.get(row_id)
            if row is None:
                problems.append(f"no row '{row_id}' in the results")
            elif not row.get("passed"):
                problems.append(f"row {row_id}: {row.get('detail') or 'FAIL'}")
        return problems


class ReductionGrader(Grader):
    executable = "reduction"
    blocks = [32, 64, 128, 256, 512, 1024]
    fixed = [  # (n, block, data)
        (1, 256, "random"), (31, 32, "random"), (33, 64, "extremes"), (1023, 128, "alternating"),
        (1024, 1024, "random"), (1025, 256, "extremes"), (4099, 512, "random"),
        ((1 << 20) + 3, 256, "random"), ((1 << 20) + 3, 1024, "alternating"),
        ((1 << 22) + 1, 64, "extremes"),
    ]

    def cases(self, seed, large):
        rng = random.Random(seed)
        chosen = list(self.fixed) + [(random_size(rng), rng.choice(self.blocks), "random")]
        if large:  # the stages accept up to 2^40 ints; 2^31 + 5 needs 8 GiB of GPU memory
            chosen.append(((1 << 31) + 5, 256, "random"))
        return [Case(f"n={n} block={b} data={d}",
                     ["--stage", self.stage, "--n", str(n), "--block", str(b), "--data", d,
                      "--seed", str(seed), "--warmup", "1", "--reps", "2"])
                for n, b, d in chosen]

    def timing_args(self, seed):
        return ["--stage", f"{self.stage},cub", "--n", "2^25", "--seed", str(seed)]



class HistogramGrader(Grader):
    executable = "histogram"
    blocks = [32, 64, 128, 256, 512, 1024]
    fixed = [  # (n, block, dist, extra options)
        (0, 256, "uniform", []), (1, 256, "uniform", []),
        (31, 32, "random-bytes", ["--bins", "bytes"]),
        (33, 64, "skewed", ["--bin-width", "1"]), (1023, 128, "runs", []),
        (1025, 1024, "one-letter", []), (4097, 128, "uniform", ["--bin-width", "26"]),
        ((1 << 20) + 3, 256, "uniform", ["--bins", "bytes"]),
        ((1 << 20) + 3, 512, "random-bytes", ["--bins", "bytes", "--grid", "1"]),
        ((1 << 22) + 1, 256, "skewed", []), ((1 << 22) + 1, 1024, "runs", ["--bins", "bytes"]),
    ]

    def cases(self, seed, large):
        rng = random.Random(seed)
        chosen = list(self.fixed) + [(random_size(rng), rng.choice(self.blocks), "uniform", [])]
        if large:
            chosen.append(((1 << 31) + 5, 256, "uniform", []))
        return [Case(" ".join([f"n={n} block={b} dist={d}"] + extra),
                     ["--stage", self.stage, "--n", str(n), "--block", str(b), "--dist", d,
                      "--seed", str(seed), "--warmup", "1", "--reps", "2", "--slow-reps", "1"]
                     + extra)
                for n, b, d, extra in chosen]

    def timing_args(self, seed):
        return ["--stage", f"{self.stage},cub", "--n", "2^26", "--seed", str(seed)]



class FirstKernelGrader(Grader):
    """Chapter 0: stage 1 (the vector add's index and guard) and stage 4 (the stencil's shared
    tile and barrier). Sizes never a multiple of the block, so a missing guard writes into the
    canary behind the arrays, where the program's check sees it; the stencil also at the largest
    radius, where the halo is wider than a warp."""
    executable = "first_kernel"
    blocks = [32, 64, 128, 256, 512, 1024]
    fixed = [(1, 32, 3), (31, 32, 1), (33, 64, 3), (1023, 128, 5), (1024, 1024, 3),
             (1025, 256, 64), (4099, 512, 2), ((1 << 20) + 3, 256, 3), ((1 << 20) + 3, 1024, 64)]

    def section(self) -> str:
        return "stencil" if self.stage in ("3", "4", "4x") else "add"

    @property
    def compare_label(self):
        return "Thrust" if self.section() == "add" else "stage 3"

    def cases(self, seed, large):
        rng = random.Random(seed)
        chosen = list(self.fixed) + [(random_size(rng), rng.choice(self.blocks), rng.randint(1, 8))]
        if large and self.section() == "add":
            chosen.append(((1 << 31) + 5, 256, 3))
        return [Case(f"n={n} block={b}" + (f" radius={r}" if self.section() == "stencil" else ""),
                     ["--section", self.section(), "--stage", self.stage, "--n", str(n),
                      "--block", str(b), "--radius", str(r), "--seed", str(seed),
                      "--warmup", "1", "--reps", "2"])
                for n, b, r in chosen]

    def timing_args(self, seed):
        compare = "thrust" if self.section() == "add" else "3"
        return ["--section", self.section(), "--stage", f"{self.stage},{compare}",
                "--seed", str(seed)]

    def compare_ids(self):
        return ["thrust"] if self.section() == "add" else ["3"]

    def sanitize_case(self, seed):
        return Case("n=4099 block=256", ["--section", self.section(), "--stage", self.stage,
                                         "--n", "4099", "--block", "256", "--seed", str(seed),
                                         "--warmup", "0", "--reps", "1"])

    def sanitize_tools(self):
        return ["memcheck", "racecheck"]


class DivergenceGrader(Grader):
    executable = "divergence"
    compare_label = "stage 1"
    fixed = [(1, 32), (31, 32), (33, 64), (1023, 128), (1024, 1024), (1025, 64), (4097, 512),
             ((1 << 20) + 3, 256)]

    def cases(self, seed, large):
        rng = random.Random(seed)
        chosen = list(self.fixed) + [(random_size(rng), rng.choice([32, 64, 128, 256]))]
        return [Case(f"n={n} block={b}", ["--section", "timing", "--n", str(n), "--block", str(b),
                                          "--work", "1", "--warmup", "1", "--reps", "2"])
                for n, b in chosen]

    def timing_args(self, seed):
        return ["--section", "timing"]

    def compare_ids(self):
        return ["1"]

    def sanitize_case(self, seed):
        return Case("n=4097 block=64", ["--section", "timing", "--n", "4097", "--block", "64",
                                        "--work", "1", "--warmup", "0", "--reps", "1"])


class NestedGrader(Grader):
    executable = "nested_reduction"
    fixed = [(1, 32), (31, 32), (33, 64), (1023, 512), (1024, 1024), (1025, 1024), (4099, 128),
             ((1 << 20) + 3, 512), ((1 << 20) + 3, 32)]

    def cases(self, seed, large):
        rng = random.Random(seed)
        chosen = list(self.fixed) + [(random_size(rng), rng.choice([64, 128, 256, 512, 1024]))]
        return [Case(f"n={n} block={b}",
                     ["--version", self.stage, "--flat", "3", "--n", str(n), "--block", str(b),
                      "--seed", str(seed), "--warmup", "1", "--reps", "2"])
                for n, b in chosen]

    def timing_args(self, seed):
        return ["--version", self.stage, "--flat", "3", "--seed", str(seed)]

    def sanitize_case(self, seed):
        return Case("n=4099 block=128", ["--version", self.stage, "--flat", "3", "--n", "4099",
                                         "--block", "128", "--seed", str(seed), "--warmup", "0",
                                         "--reps", "1"])

    def sanitize_tools(self):
        return ["memcheck"]  # the other tools do not support dynamic parallelism


def overlap_minimum(text: str) -> Optional[int]:
    """'2/3' -> 2, '1-2/3' -> 1 (the fewest overlapping pairs over the runs), else None."""
    match = re.match(r"^\s*(\d+)(?:-(\d+))?/(\d+)\s*$", text or "")
    return int(match.group(1)) if match else None


class StreamsGrader(Grader):
    executable = "streams"
    compare_label = "scenario 1"
    sizes = [1, 33, 4096, 65537]

    def row_ids(self):
        return [self.stage + "L", self.stage + "P"]

    def cases(self, seed, large):
        return [Case(f"n={n}", ["--scenario", f"1,{self.stage}", "--n", str(n), "--warmup", "1",
                                "--reps", "3"]) for n in self.sizes]

    def timing_args(self, seed):
        return ["--scenario", f"1,{self.stage}"]

    def compare_ids(self):
        return ["1L", "1P"]

    def sanitize_case(self, seed):
        return Case("n=33", ["--scenario", f"1,{self.stage}", "--n", "33", "--warmup", "0",
                             "--reps", "1"])

    def check_rows(self, rows):
        problems = super().check_rows(rows)
        for row_id in ("1L", "1P"):  # scenario 1 must still behave as scenario 1
            if row_id in rows and not rows[row_id].get("passed"):
                problems.append(f"row {row_id} (scenario 1): {rows[row_id].get('detail')}")
        first = rows.get("1L")
        if first is not None and first.get("extra", {}).get("rules allow") != "0":
            # The program checks a run against the rules of the streams it was given; a blocking
            # s made non-blocking changes the rules too, so the rule count itself is checked.
            problems.append("row 1L: the stream rules allow "
                            f"{first.get('extra', {}).get('rules allow')} overlapping pairs in "
                            "scenario 1's legacy build, not 0: its s must stay blocking "
                            "(cudaStreamDefault), so that the legacy default stream orders k1, "
                            "k2 and k3")
        legacy = rows.get(self.stage + "L")
        if legacy is not None:
            extra = legacy.get("extra", {})
            pairs = overlap_minimum(extra.get("overlapping pairs", ""))
            allowed = extra.get("rules allow")
            if allowed != "2":
                problems.append(f"row {self.stage}L: the stream rules allow {allowed} "
                                "overlapping pairs, not 2: k2 must be free to run beside k1 and "
                                "k3")
            if pairs is None or pairs < 1:
                problems.append(f"row {self.stage}L: overlapping pairs "
                                f"{extra.get('overlapping pairs')}: in the legacy build k2 did "
                                "not overlap k1 or k3 (does s still take part in the legacy "
                                "default stream's barrier?)")
        return problems


class MultiGpuGrader(Grader):
    """Exercise multi-gpu-4 (exercises/multi-gpu-4/README.md): the one-shot all-reduce's flag
    barrier, run by its own harness on two GPUs of one process. Every case runs many calls back
    to back with a new input each, one GPU late on two calls out of three, and call numbers that
    wrap around 2^32 during the run (--wrap-after: on a call where GPU 1 is late, or GPU 0); the
    messages go up to 4 MiB, pushed by as few as one block, so that stores are still on the link
    when a flag that does not wait for them lands."""
    executable = "one_shot_barrier_exercise"
    compare_label = "stage 4 as committed"
    gpus = 2
    sanitize_note = ("compute-sanitizer serializes kernels, and a kernel that spins on a flag "
                     "that a kernel on the other GPU raises then never returns")
    # (floats, blocks (0: as many as the message needs), threads, late us, calls, hold-back us).
    # Hold-back: every warp but warp 0 (whose threads signal) starts its stores late, so that a
    # signal that does not wait for the whole block (no __syncthreads() before it) is read
    # before those stores are even issued: a certain FAIL, where the other cases only make it
    # likely.
    fixed = [
        (1, 0, 32, 20, 48, 0), (1025, 0, 256, 20, 48, 0), ((1 << 18) + 1, 1, 1024, 20, 48, 0),
        ((1 << 18) + 1, 2, 512, 20, 48, 0), ((1 << 18) + 1, 0, 512, 20, 48, 0),
        ((1 << 18) + 1, 0, 512, 0, 64, 0), ((1 << 20) + 3, 4, 256, 50, 32, 0),
        (4099, 1, 256, 0, 32, 20), ((1 << 18) + 1, 2, 1024, 20, 32, 20),
    ]

    def cases(self, seed, large):
        rng = random.Random(seed)
        chosen = list(self.fixed) + [(random_size(rng), rng.choice([1, 2, 8, 0]),
                                      rng.choice([128, 256, 512, 1024]), 20, 48, 0)]
        # The wrap-around falls on a call where GPU 1 is late (7) or GPU 0 is (8): the on-time
        # GPU is the first to ask whether call 0 has come.
        return [Case(f"n={n} blocks={b or 'auto'} threads={t} late={late}us calls={calls}"
                     + (f" hold-back={hold}us" if hold else ""),
                     ["--n", str(n), "--blocks", str(b), "--threads", str(t), "--late-us",
                      str(late), "--calls", str(calls), "--wrap-after", str(7 + i % 2),
                      "--hold-back-us", str(hold),
                      "--seed", str(seed), "--warmup", "1", "--reps", "2"])
                for i, (n, b, t, late, calls, hold) in enumerate(chosen)]

    def timing_args(self, seed):
        return ["--seed", str(seed), "--calls", "8"]

    def compare_ids(self):
        return []

    def sanitize_tools(self):
        return []


GRADERS = {"first_kernel": FirstKernelGrader, "reduction": ReductionGrader, "histogram": HistogramGrader,
           "divergence": DivergenceGrader, "nested": NestedGrader, "streams": StreamsGrader,
           "multi_gpu": MultiGpuGrader}


# --- running -----------------------------------------------------------------------------------

NO_GPU_TEXT = "no NVIDIA GPU"
# How a program says that this machine cannot run its checks (exercise multi-gpu-4's harness
# without two GPUs with peer access), exit code 3: not checked, never a PASS or a FAIL.
NOT_CHECKED_TEXT = "not checked: "


def gpu_count() -> int:
    """How many devices the CUDA driver sees (0 when it does not load)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


def gpu_present() -> bool:
    """True when the CUDA driver loads and sees at least one device."""
    return gpu_count() > 0


def gpu_architectures() -> List[str]:
    """The visible GPUs' own architectures for CMake ("86-real": compute capability 8.6), in
    device order without repeats; empty when the driver does not load or sees no device."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return []
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return []
    found: List[str] = []
    for ordinal in range(count.value):
        device, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
        if (cuda.cuDeviceGet(ctypes.byref(device), ordinal) != 0
                or cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, device) != 0  # ..._MAJOR
                or cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, device) != 0):  # ..._MINOR
            return []
        architecture = f"{major.value}{minor.value}-real"
        if architecture not in found:
            found.append(architecture)
    return found


def missing_gpus(grader: "Grader", count: Optional[int] = None) -> str:
    """Why this machine cannot run `grader`'s checks ('' when it can): fewer GPUs than it needs."""
    count = gpu_count() if count is None else count
    if count >= grader.gpus:
        return ""
    if count == 0:
        return "no GPU"
    return f"needs {grader.gpus} GPUs, found {count}"


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
    return ("fail", problems) if problems else ("pass", [])


def last_lines(text: str, count: int) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[-count:])


def find_sanitizer() -> Optional[str]:
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for candidate in ("/usr/local/cuda/bin/compute-sanitizer",
                      "/usr/local/cuda/compute-sanitizer/compute-sanitizer"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


# --- building ----------------------------------------------------------------------------------

def cache_value(build_dir: pathlib.Path, name: str) -> Optional[str]:
    cache = build_dir / "CMakeCache.txt"
    if not cache.exists():
        return None
    for line in cache.read_text(errors="replace").splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    return None


def exercise_architectures(reference_build: str, cmake_args: List[str],
                           gpus: Optional[List[str]] = None) -> Optional[str]:
    """The GPU architectures the exercise's build compiles for: the visible GPUs' own (one, on a
    machine with one GPU); without a GPU, the main build's list (the checks cannot run, so
    compiling as `make` did is enough). None: a --cmake-arg names them, or there is neither a GPU
    nor a main build, and cmake/Architectures.cmake chooses as it does for the main build."""
    if any("CMAKE_CUDA_ARCHITECTURES" in arg for arg in cmake_args):
        return None
    gpus = gpu_architectures() if gpus is None else gpus
    if gpus:
        return ";".join(gpus)
    if reference_build:
        main = cache_value(pathlib.Path(reference_build).resolve(), "CMAKE_CUDA_ARCHITECTURES")
        if main and main != "native":  # native needs a GPU at configure time
            return main
    return None


def build_with(exercise: Exercise, source: pathlib.Path, build_dir: pathlib.Path,
               cmake_args: List[str], jobs: int, log, target: str = "",
               architectures: Optional[str] = None) -> Tuple[bool, str]:
    """Configures build_dir so that the chapter compiles `source` in place of the stage file and
    builds `target` (default: the chapter's executable) only, for `architectures` when given
    (exercise_architectures()). The file is copied into the build folder first (only when
    it changed), so that grading another file of the same exercise recompiles one file and does
    not reconfigure. Returns (built, compiler output with the copy's path shown as `source`)."""
    staging = build_dir / "exercise-source" / pathlib.Path(exercise.file).name
    staging.parent.mkdir(parents=True, exist_ok=True)
    if not staging.exists() or not filecmp.cmp(source, staging, shallow=False):
        shutil.copyfile(source, staging)
    wanted = {"CUDA_TUTORIAL_EXERCISE_STAGE": exercise.file,
              "CUDA_TUTORIAL_EXERCISE_SOURCE": str(staging),
              "CUDA_TUTORIAL_BUILD_TESTS": "OFF"}
    if architectures:
        wanted["CMAKE_CUDA_ARCHITECTURES"] = architectures
    output = ""
    if cmake_args or any(cache_value(build_dir, k) != v for k, v in wanted.items()):
        command = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release"]
        if shutil.which("ninja") and not (build_dir / "CMakeCache.txt").exists():
            command += ["-G", "Ninja"]
        command += [f"-D{k}={v}" for k, v in wanted.items()] + cmake_args
        print("configuring: " + " ".join(shlex.quote(c) for c in command), file=log, flush=True)
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace")
        output += done.stdout
        if done.returncode != 0:
            return False, output
    command = ["cmake", "--build", str(build_dir), "--target", target or exercise.chapter,
               "-j", str(jobs)]
    print("building:    " + " ".join(command), file=log, flush=True)
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace")
    output += done.stdout.replace(str(staging), display(source))
    return done.returncode == 0, output


def display(path: pathlib.Path) -> str:
    try:
        return str(pathlib.Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def compiler_errors(output: str, limit: int = 40) -> str:
    lines = output.splitlines()
    interesting = [i for i, line in enumerate(lines) if re.search(r"\berror\b", line)]
    start = max(0, interesting[0] - 2) if interesting else max(0, len(lines) - limit)
    return "\n".join(lines[start:start + limit])


# --- grading -----------------------------------------------------------------------------------

def format_ms(value) -> str:
    return "-" if value is None else f"{value:.4f}"


def format_number(value, digits=1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def summary_row(label: str, row: Optional[dict]) -> List[str]:
    if row is None:
        return [label, "-", "-", "-", "-", "no row"]
    extra = row.get("extra", {})
    note = row.get("detail", "") if not row.get("passed") else ""
    if "overlapping pairs" in extra:
        note = (note + " " if note else "") + f"overlapping pairs {extra['overlapping pairs']}"
    return [label, "PASS" if row.get("passed") else "FAIL", format_ms(row.get("median_ms")),
            format_number(row.get("gbs")), format_number(row.get("percent_of_peak")), note]


def print_table(rows: List[List[str]], out) -> None:
    header = ["row", "check", "median ms", "GB/s", "% peak", ""]
    table = [header] + rows
    widths = [max(len(r[i]) for r in table) for i in range(len(header) - 1)]
    for r in table:
        cells = [r[i].ljust(widths[i]) if i == 0 else r[i].rjust(widths[i])
                 for i in range(len(widths))]
        print("  " + "  ".join(cells) + ("  " + r[-1] if r[-1] else ""), file=out)


def grade(exercise: Exercise, source: pathlib.Path, args, out=sys.stdout) -> int:
    grader = GRADERS[exercise.grader](exercise.stage)
    build_dir = pathlib.Path(args.build_dir).resolve()
    print(f"== exercise {exercise.id}: {display(source)} in place of {exercise.file}", file=out)
    architectures = exercise_architectures(args.reference_build, args.cmake_arg or [])
    built, output = build_with(exercise, source, build_dir, args.cmake_arg or [], args.jobs, out,
                               grader.executable, architectures)
    if not built:
        print("BUILD FAILED: your file does not compile (or the build failed):", file=out)
        print(compiler_errors(output), file=out)
        print(f"RESULT: BUILD FAILED ({exercise.id})", file=out)
        return EXIT_BUILD
    executable = build_dir / "bin" / grader.executable
    missing = missing_gpus(grader)
    if missing:
        needed = "an NVIDIA GPU" if grader.gpus == 1 else f"{grader.gpus} NVIDIA GPUs"
        print(f"compiled: {display(executable)} has your stage. The checks need {needed} and "
              f"the driver, and this machine has {'none' if missing == 'no GPU' else 'fewer'}: "
              "run the same command on a machine with them.", file=out)
        print(f"RESULT: COMPILED, NOT CHECKED ({missing}) ({exercise.id})", file=out)
        return EXIT_NO_GPU

    seed = args.seed if args.seed is not None else random.randrange(1, 1 << 31)
    if seed == 20261122:
        seed += 1  # never the chapters' default seed: a hard-coded default answer must not pass
    cases = grader.cases(seed, args.large)
    print(f"checks: {len(cases)} cases, seed {seed} (--seed {seed} repeats them); each case "
          "checks the first run and the runs after the warm-up and timing, with the output "
          "poisoned before", file=out)
    failures, skipped, passed = [], [], 0
    for case in cases:
        command = [str(executable)] + case.args
        result = run_program(command, args.timeout)
        verdict, reasons = judge(result, grader)
        if verdict == "no-gpu":
            print(f"RESULT: COMPILED, NOT CHECKED ({reasons[0]}) ({exercise.id})", file=out)
            return EXIT_NO_GPU
        if verdict == "skip":
            skipped.append(case.label)
            print(f"  skip  {case.label}: {reasons[0]}", file=out)
            continue
        if verdict == "pass":
            passed += 1
            print(f"  ok    {case.label}  ({result.seconds:.1f} s)", file=out)
            continue
        failures.append(case.label)
        print(f"  FAIL  {case.label}", file=out)
        for reason in reasons:
            for line in reason.splitlines():
                print(f"        {line}", file=out)
        print(f"        rerun: {display(executable)} {' '.join(case.args)}", file=out)
        if not args.keep_going:
            print("        (stopped at the first failing case; --keep-going runs them all)",
                  file=out)
            break

    if not failures and args.sanitize:
        failures += sanitize(grader, executable, seed, args, out)

    if not failures and not args.no_timing:
        time_rows(grader, executable, seed, args, out, failures)

    if passed == 0 and not failures:
        failures.append("no case")
        print("  FAIL  no case applied to this stage (every one was refused as bad usage)",
              file=out)
    verdict = "FAIL" if failures else "PASS"
    print(f"RESULT: {verdict} ({exercise.id}: {passed} cases passed, {len(failures)} failed, "
          f"{len(skipped)} not applicable{', sanitizer run' if args.sanitize else ''})", file=out)
    return EXIT_FAIL if failures else EXIT_PASS


def sanitize(grader: Grader, executable: pathlib.Path, seed: int, args, out) -> List[str]:
    if not grader.sanitize_tools():
        print(f"  skip  compute-sanitizer: {grader.sanitize_note}", file=out)
        return []
    tool_path = find_sanitizer()
    if not tool_path:
        print("  FAIL  compute-sanitizer not found (it comes with the CUDA toolkit)", file=out)
        return ["sanitizer missing"]
    case = grader.sanitize_case(seed)
    failures = []
    for tool in grader.sanitize_tools():
        command = [tool_path, "--tool", tool, "--error-exitcode", "86", "--print-limit", "5",
                   str(executable)] + case.args
        result = run_program(command, args.timeout * 10)
        summary = [line for line in result.output.splitlines()
                   if re.search(r"(ERROR|RACECHECK) SUMMARY", line)]
        if result.code == 86 or result.timed_out:
            failures.append(f"{tool}")
            first = [line for line in result.output.splitlines() if line.startswith("=========")]
            print(f"  FAIL  {tool} ({case.label}): {summary[-1] if summary else 'errors'}",
                  file=out)
            for line in first[:12]:
                print(f"        {line}", file=out)
            if not args.keep_going:
                break
            continue
        verdict, reasons = judge(result, grader)
        if verdict != "pass":
            failures.append(tool)
            print(f"  FAIL  under {tool} ({case.label}): " + "; ".join(reasons), file=out)
        else:
            said = summary[-1].strip("= ") if summary else "clean"
            print(f"  ok    {tool} ({case.label}): {said}", file=out)
    return failures


def time_rows(grader, executable, seed, args, out, failures) -> None:
    """The timed run: the student's rows, the committed stage's (from the reference build) and
    the comparison rows (CUB), as one table."""
    timing = grader.timing_args(seed)
    if args.timing_reps:
        timing += ["--reps", str(args.timing_reps)]
    result = run_program([str(executable)] + timing, args.timeout * 4)
    verdict, reasons = judge(result, grader)
    rows = []
    for row_id in grader.row_ids():
        rows.append(summary_row(f"your stage {row_id}", result.rows.get(row_id)))
    if verdict != "pass":
        failures.append("timed run")
        print("  FAIL  the timed run: " + "; ".join(reasons), file=out)
    reference = pathlib.Path(args.reference_build).resolve() / "bin" / grader.executable \
        if args.reference_build else None
    if reference and reference.exists():
        solution = run_program([str(reference)] + timing, args.timeout * 4)
        for row_id in grader.row_ids():
            rows.append(summary_row(f"stage {row_id} as committed ({display(reference)})",
                                    solution.rows.get(row_id)))
    for row_id in grader.compare_ids():
        rows.append(summary_row(f"{grader.compare_label} ({row_id})" if grader.compare_label !=
                                "CUB" else "CUB", result.rows.get(row_id)))
    print(f"timed run: {display(executable)} {' '.join(timing)}", file=out)
    print_table(rows, out)
    if not (reference and reference.exists()):
        print(f"  (the committed stage's row comes from {args.reference_build or 'build'}/bin: "
              "run `make` once to have it)", file=out)


# --- skeleton compile check (CPU) --------------------------------------------------------------

def compile_skeletons(build_dir: pathlib.Path, only: List[str], out=sys.stdout) -> int:
    """Compiles every skeleton with its stage file's own command from compile_commands.json,
    for the first GPU architecture only."""
    database = build_dir / "compile_commands.json"
    if not database.exists():
        print(f"{database} not found: configure the build first", file=out)
        return EXIT_USAGE
    commands = json.loads(database.read_text())
    failures = 0
    with tempfile.TemporaryDirectory(prefix="skeletons-") as tmp:
        for exercise in load_registry():
            if only and exercise.id not in only:
                continue
            entry = next((c for c in commands
                          if pathlib.Path(c["file"]).resolve() == exercise.path.resolve()), None)
            if entry is None:
                print(f"FAIL  {exercise.id}: {exercise.file} is not in {database}", file=out)
                failures += 1
                continue
            skeleton = pathlib.Path(tmp) / pathlib.Path(exercise.file).name
            skeleton.write_text(make_skeleton(exercise.path.read_text(), exercise))
            command = single_architecture(shlex.split(entry["command"]) if "command" in entry
                                          else entry["arguments"])
            command = [str(skeleton) if c == entry["file"] or c == str(exercise.path) else c
                       for c in command]
            output_index = command.index("-o") + 1
            command[output_index] = str(pathlib.Path(tmp) / (exercise.id + ".o"))
            command.insert(1, "-I" + str(exercise.path.parent))
            start = time.monotonic()
            done = subprocess.run(command, cwd=entry["directory"], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, errors="replace")
            seconds = time.monotonic() - start
            if done.returncode != 0:
                failures += 1
                print(f"FAIL  {exercise.id}: the skeleton does not compile ({seconds:.1f} s)",
                      file=out)
                print(compiler_errors(done.stdout), file=out)
            else:
                warnings = len(re.findall(r"\bwarning\b", done.stdout))
                print(f"ok    {exercise.id}: the skeleton compiles ({seconds:.1f} s"
                      f"{f', {warnings} warnings' if warnings else ''})", file=out)
    return EXIT_FAIL if failures else EXIT_PASS


def single_architecture(command: List[str]) -> List[str]:
    """Keeps the first --generate-code / -gencode of an nvcc command (one architecture is enough
    to prove that a file compiles)."""
    result, kept, i = [], False, 0
    while i < len(command):
        item = command[i]
        if item.startswith(("--generate-code", "-gencode")):
            attached = "=" in item  # --generate-code=arch=... (else the value follows)
            if not kept:
                result += command[i:i + (1 if attached else 2)]
                kept = True
            i += 1 if attached else 2
            continue
        result.append(item)
        i += 1
    return result


# --- command line ------------------------------------------------------------------------------

def course_order(exercises: List[Exercise],
                 chapter_list: pathlib.Path = CHAPTER_LIST) -> List[Exercise]:
    """The exercises in course order: by their chapter's line in chapters/chapters.txt (the
    second column is the executable, the registry's chapter), then in the registry's order within
    a chapter. A chapter that the list does not name comes last, in the registry's order."""
    rank: Dict[str, int] = {}
    for line in chapter_list.read_text().splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 2:
            rank.setdefault(fields[1], len(rank))
    return sorted(exercises, key=lambda e: rank.get(e.chapter, len(rank)))  # sorted() is stable


def command_list(_args) -> int:
    exercises = course_order(load_registry())
    lines = [f"{'exercise':<18} {'grade with':<54} {'regions':>7}  file"]
    for e in exercises:
        regions = len(parse_regions(e.path.read_text(), e.file))
        started = "  (started)" if e.student_path.exists() else ""
        command = f"make exercise CHAPTER={e.chapter} STAGE={e.stage}"
        lines.append(f"{e.id:<18} {command:<54} {regions:>7}  {e.file}{started}")
    lines.append(f"\nIn course order. The first `make exercise` copies the skeleton to "
                 f"{display(STUDENT_DIR)}/ (never over a file that is there); docs/exercises.md "
                 "explains the checks.")
    try:
        print("\n".join(lines))
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left early (`make exercise-list | head -3`): not an error. Point stdout at
        # /dev/null so that the interpreter's own flush at exit does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return EXIT_PASS


def start(exercise: Exercise, student_dir: pathlib.Path = STUDENT_DIR,
          out=sys.stdout) -> pathlib.Path:
    target = student_dir / pathlib.Path(exercise.file).name
    if target.exists():
        print(f"{display(target)} exists: kept as it is (delete it to start over)", file=out)
        return target
    student_dir.mkdir(parents=True, exist_ok=True)
    target.write_text(make_skeleton(exercise.path.read_text(), exercise))
    print(f"copied the skeleton of {exercise.file} to {display(target)}: fill in its EXERCISE "
          f"gaps, then `make exercise CHAPTER={exercise.chapter} STAGE={exercise.stage}`",
          file=out)
    return target


def command_check(_args) -> int:
    problems = 0
    for e in load_registry():
        try:
            regions = parse_regions(e.path.read_text(), e.file)
            if not regions:
                raise MarkerError(f"{e.file}: no EXERCISE region")
            print(f"ok    {e.id}: {len(regions)} region(s)")
        except (MarkerError, OSError) as error:
            problems += 1
            print(f"FAIL  {e.id}: {error}")
    return EXIT_FAIL if problems else EXIT_PASS


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="See docs/exercises.md.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the exercises")
    sub.add_parser("check", help="check the markers of every exercise")
    for name in ("start", "skeleton"):
        p = sub.add_parser(name)
        p.add_argument("chapter")
        p.add_argument("stage", nargs="?", default="")
    g = sub.add_parser("grade", help="build with the student's file and run the checks")
    g.add_argument("chapter", help="the chapter's executable (reduction, histogram, ...)")
    g.add_argument("stage", nargs="?", default="", help="the chapter's stage id")
    g.add_argument("--file", help="grade this file (default: exercises/student/<stage file>, "
                   "started from the skeleton if missing)")
    g.add_argument("--build-dir", default=str(DEFAULT_BUILD_DIR))
    g.add_argument("--reference-build", default=str(ROOT / "build"),
                   help="the build whose bin/ gives the committed stage's row (default: build)")
    g.add_argument("--cmake-arg", action="append", help="passed to cmake when configuring")
    g.add_argument("--sanitize", action="store_true",
                   help="also run compute-sanitizer memcheck and racecheck on a small case")
    g.add_argument("--keep-going", action="store_true", help="run every case after a failure")
    g.add_argument("--seed", type=int, help="seed of the data and the random size")
    g.add_argument("--large", action="store_true",
                   help="add a case above 2^31 elements (8 GiB of GPU memory)")
    g.add_argument("--no-timing", action="store_true", help="leave out the timed run")
    g.add_argument("--timing-reps", type=int, help="repetitions of the timed run")
    g.add_argument("--timeout", type=float, default=120.0, help="seconds per case")
    g.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    c = sub.add_parser("compile-skeletons", help="compile every skeleton (one architecture)")
    c.add_argument("--build-dir", required=True)
    c.add_argument("--only", default="", help="comma-separated exercise ids")
    args = parser.parse_args(argv)

    if args.command == "list":
        return command_list(args)
    if args.command == "check":
        return command_check(args)
    if args.command == "compile-skeletons":
        return compile_skeletons(pathlib.Path(args.build_dir).resolve(),
                                 [x for x in args.only.split(",") if x])
    exercise = find_exercise(args.chapter, args.stage, load_registry())
    if args.command == "skeleton":
        sys.stdout.write(make_skeleton(exercise.path.read_text(), exercise))
        return EXIT_PASS
    if args.command == "start":
        start(exercise)
        return EXIT_PASS
    if args.file:
        source = pathlib.Path(args.file).resolve()
        if not source.is_file():
            print(f"no such file: {args.file}")
            return EXIT_USAGE
    else:
        source = start(exercise)
    return grade(exercise, source, args)


if __name__ == "__main__":
    sys.exit(main())
