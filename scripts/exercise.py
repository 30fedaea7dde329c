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

The code is in scripts/exercising/ (exercising/__init__.py says which file holds what); this file
is the command line only. A new chapter's grader is a class in exercising/graders.py and its entry
in GRADERS there.
"""
import argparse
import os
import pathlib
import sys

if str(pathlib.Path(__file__).resolve().parent) not in sys.path:  # scripts/, for exercising/
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from exercising.building import compile_skeletons  # noqa: E402
from exercising.exit_codes import EXIT_FAIL, EXIT_PASS, EXIT_USAGE  # noqa: E402
from exercising.grading import grade  # noqa: E402
from exercising.registry import (DEFAULT_BUILD_DIR, ROOT, STUDENT_DIR, course_order,  # noqa: E402
                                 display, find_exercise, load_registry)
from exercising.skeletons import MarkerError, make_skeleton, parse_regions, start  # noqa: E402


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
