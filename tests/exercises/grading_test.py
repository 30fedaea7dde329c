#!/usr/bin/env python3
"""GPU test of the exercise grader (ctest: exercises.grading_gpu, label gpu).

For every exercise of exercises/exercises.txt it grades, with scripts/exercise.py:
  - the skeleton as generated: must compile and FAIL;
  - each planted wrong solution of tests/exercises/planted/ for it: must FAIL (one marked
    may-pass: graded and reported, either verdict accepted);
  - the stage file itself (the skeleton with its regions restored): must PASS.
Each exercise gets its own build folder under --work-dir, and --jobs exercises run at once (the
verdicts do not depend on timing, so sharing the GPU is fine). Exits 77 (ctest: skipped) when no
GPU is present, before building anything; an exercise that needs more GPUs than this machine has
(multi-gpu-4: two) is left out, and the reason printed.
"""
import argparse
import concurrent.futures
import io
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import planted  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts"))  # the grader: scripts/exercising/
from exercising import exit_codes, gpus, graders, grading, registry, skeletons  # noqa: E402

SKIP = 77


def grade_args(build_dir, jobs, sanitize, timing_reps):
    """The options of `scripts/exercise.py grade`, as the test uses them: a fixed seed, no
    committed-stage row (no reference build), a short timed run."""
    return argparse.Namespace(
        file=None, build_dir=str(build_dir), reference_build="", cmake_arg=[], sanitize=sanitize,
        keep_going=False, seed=12345, large=False, no_timing=False, timing_reps=timing_reps,
        timeout=180.0, jobs=jobs)


def run_exercise(exercise, plants, work_dir, jobs, timing_reps):
    """Grades the skeleton, the plants and the stage file; returns (failures, log text)."""
    log = io.StringIO()
    build_dir = work_dir / exercise.id
    files = work_dir / exercise.id / "graded"
    files.mkdir(parents=True, exist_ok=True)
    name = pathlib.Path(exercise.file).name
    stage_text = exercise.path.read_text()
    trials = []
    skeleton = files / "skeleton" / name
    skeleton.parent.mkdir(exist_ok=True)
    skeleton.write_text(skeletons.make_skeleton(stage_text, exercise))
    trials.append(("skeleton", skeleton, exit_codes.EXIT_FAIL, False, False))
    for plant in plants:
        path = files / plant.name / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(plant.apply(stage_text))
        trials.append((f"planted {plant.name}", path, exit_codes.EXIT_FAIL, plant.sanitize,
                       plant.may_pass))
    trials.append(("stage file (solution)", exercise.path, exit_codes.EXIT_PASS, False, False))
    failures = []
    for label, path, expected, sanitize, may_pass in trials:
        start = time.monotonic()
        args = grade_args(build_dir, jobs, sanitize, timing_reps)
        code = grading.grade(exercise, path, args, out=log)
        seconds = time.monotonic() - start
        ok = code == expected or (may_pass and code == exit_codes.EXIT_PASS)
        verdict = {0: "PASS", 1: "FAIL", 3: "NO GPU", 4: "BUILD FAILED"}.get(code, str(code))
        wanted = "PASS" if expected == 0 else "FAIL, may pass" if may_pass else "FAIL"
        line = (f"{'ok  ' if ok else 'BAD '} {exercise.id:<17} {label:<32} graded {verdict:<12} "
                f"(expected {wanted}, {seconds:.0f} s)")
        print(line, file=log)
        if not ok:
            failures.append(line)
    return failures, log.getvalue()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--jobs", type=int, default=0, help="exercises graded at once")
    parser.add_argument("--only", default="", help="comma-separated exercise ids")
    parser.add_argument("--timing-reps", type=int, default=3)
    args = parser.parse_args()
    if not gpus.gpu_present():
        # Worded as GoogleTest words a skip, which scripts/test_summary.sh reads back.
        print("tests/exercises/grading_test.py: Skipped\nno CUDA device: the exercise grader's "
              "test needs a GPU")
        return SKIP
    exercises = []
    for e in registry.load_registry():
        if args.only and e.id not in args.only.split(","):
            continue
        missing = gpus.missing_gpus(graders.GRADERS[e.grader](e.stage))
        if missing:
            print(f"skip {e.id}: {missing} (its skeleton, plants and solution are not graded)")
            continue
        exercises.append(e)
    plants = planted.load_plants()
    work_dir = pathlib.Path(args.work_dir).resolve()
    work_dir.mkdir(parents=True, exist_ok=True)
    cpus = os.cpu_count() or 2
    parallel = args.jobs or max(1, min(len(exercises), cpus // 2))
    build_jobs = max(2, cpus // parallel)
    print(f"grading {len(exercises)} exercises, {parallel} at once, {build_jobs} build jobs each; "
          f"logs in {work_dir}")
    all_failures = []

    def report(exercise, failures, text):
        (work_dir / f"{exercise.id}.log").write_text(text)
        summary = [line for line in text.splitlines() if line.startswith(("ok  ", "BAD "))]
        print("\n".join(summary), flush=True)
        if failures:
            print(f"---- {exercise.id}: full log ----\n{text}", flush=True)
        all_failures.extend(failures)

    # The streams exercise measures whether kernels overlap, and multi-gpu-4's harness makes one
    # GPU late on purpose: graded alone, after the others.
    alone = [e for e in exercises if e.grader in ("streams", "multi_gpu")]
    shared = [e for e in exercises if e not in alone]
    with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
        futures = {pool.submit(run_exercise, e, [p for p in plants if p.exercise == e.id],
                               work_dir, build_jobs, args.timing_reps): e for e in shared}
        for future in concurrent.futures.as_completed(futures):
            report(futures[future], *future.result())
    for e in alone:
        report(e, *run_exercise(e, [p for p in plants if p.exercise == e.id], work_dir, cpus,
                                args.timing_reps))
    print(f"{len(all_failures)} unexpected verdict(s)" if all_failures else
          "every skeleton and planted wrong solution FAILED, every stage file PASSED")
    return 1 if all_failures else 0


if __name__ == "__main__":
    sys.exit(main())
