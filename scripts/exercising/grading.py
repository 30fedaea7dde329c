"""Grading: one exercise from the student's file to its verdict.

grade() builds the chapter with the file (building.py), stops with exit 3 where this machine
lacks the GPUs, runs the grader's cases (running.py) and prints each verdict, then, when they
pass, the sanitizer's case (sanitize(), with --sanitize) and the timed run (time_rows(): the
student's rows beside the committed stage's and CUB's, as one table). Its return value is the
exit code of `scripts/exercise.py grade` (exit_codes.py).
"""
import pathlib
import random
import re
import sys
from typing import List, Optional

from .building import build_with, compiler_errors, exercise_architectures
from .exit_codes import EXIT_BUILD, EXIT_FAIL, EXIT_NO_GPU, EXIT_PASS
from .gpus import find_sanitizer, missing_gpus
from .graders import GRADERS, Grader
from .registry import Exercise, display
from .running import judge, run_program


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
