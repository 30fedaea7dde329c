"""Building: the chapter compiled with a student's file in place of the stage file, and every
skeleton compiled on the CPU.

build_with() configures a separate build folder (build-exercise/ by default) with the cache
variables CUDA_TUTORIAL_EXERCISE_STAGE and CUDA_TUTORIAL_EXERCISE_SOURCE
(exercises/exercises.cmake) and builds the grader's executable, for the visible GPUs'
architectures (exercise_architectures()). compile_skeletons() (`scripts/exercise.py
compile-skeletons`, the test exercises.skeletons_compile) compiles each skeleton with its stage
file's own command from compile_commands.json, for one architecture.
"""
import filecmp
import json
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from typing import List, Optional, Tuple

from .exit_codes import EXIT_FAIL, EXIT_PASS, EXIT_USAGE
from .gpus import gpu_architectures
from .registry import ROOT, Exercise, display, load_registry
from .skeletons import make_skeleton


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

def compiler_errors(output: str, limit: int = 40) -> str:
    lines = output.splitlines()
    interesting = [i for i, line in enumerate(lines) if re.search(r"\berror\b", line)]
    start = max(0, interesting[0] - 2) if interesting else max(0, len(lines) - limit)
    return "\n".join(lines[start:start + limit])


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
