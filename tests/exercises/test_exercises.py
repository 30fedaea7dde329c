"""CPU tests of the exercises (ctest: exercises.skeletons_match_stages, label cpu).

The skeleton of every exercise must be exactly its stage file minus the marked regions: checked
here with difflib, independently of the generator in scripts/exercising/skeletons.py, so that
skeleton and solution cannot drift. Also: the registry, the markers, start never overwriting, the
planted wrong solutions still applying, and the grader's judging of results (no GPU needed).
"""
import difflib
import pathlib
import re
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import planted  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts"))  # the grader: scripts/exercising/
from exercising import building, gpus, graders, grading, registry, running, skeletons  # noqa: E402

EXERCISES = registry.load_registry()


class Registry(unittest.TestCase):
    def test_about_eight_exercises_over_the_course(self):
        self.assertGreaterEqual(len(EXERCISES), 8)
        self.assertGreaterEqual(len({e.chapter for e in EXERCISES}), 5)

    def test_ids_stages_and_student_files_are_unique(self):
        self.assertEqual(len({e.id for e in EXERCISES}), len(EXERCISES))
        self.assertEqual(len({(e.chapter, e.stage) for e in EXERCISES}), len(EXERCISES))
        self.assertEqual(len({e.student_path.name for e in EXERCISES}), len(EXERCISES))

    def test_files_exist_and_graders_are_known(self):
        for e in EXERCISES:
            with self.subTest(e.id):
                self.assertTrue(e.path.is_file(), e.file)
                self.assertIn(e.grader, graders.GRADERS)
                self.assertTrue(e.file.startswith(("chapters/", f"exercises/{e.id}/")), e.file)

    def test_chapters_are_executables(self):
        defined = "".join(p.read_text() for p in (ROOT / "chapters").glob("*/CMakeLists.txt"))
        for e in EXERCISES:
            self.assertRegex(defined, r"add_executable\(" + e.chapter + r"\b",
                             f"{e.id}: CHAPTER={e.chapter} is no chapter's executable")


class Markers(unittest.TestCase):
    def test_every_exercise_has_well_formed_regions(self):
        for e in EXERCISES:
            with self.subTest(e.id):
                regions = skeletons.parse_regions(e.path.read_text(), e.file)
                self.assertGreaterEqual(len(regions), 1)

    def test_no_markers_outside_registered_stage_files(self):
        registered = {e.path.resolve() for e in EXERCISES}
        own = [p for p in (ROOT / "exercises").glob("*/*") if p.parent.name != "student"]
        for path in list((ROOT / "chapters").rglob("*")) + own:
            if path.suffix in {".cu", ".cuh", ".cpp", ".hpp"} and path.resolve() not in registered:
                self.assertIsNone(skeletons.MARKER.search(path.read_text()),
                                  f"{path}: EXERCISE markers, but no line in exercises.txt")

    def test_rejects_malformed_markers(self):
        bad = {
            "unclosed": "a\n// EXERCISE BEGIN: h\nx\n",
            "nested": "// EXERCISE BEGIN: h\n// EXERCISE BEGIN: h\nx\n// EXERCISE END\n",
            "stray end": "x\n// EXERCISE END\n",
            "hint outside": "// EXERCISE HINT: h\n",
            "stub outside": "// EXERCISE STUB: int x;\n",
            "empty hint": "// EXERCISE BEGIN:\nx\n// EXERCISE END\n",
            "empty region": "// EXERCISE BEGIN: h\n// EXERCISE STUB: x;\n// EXERCISE END\n",
            "unknown": "// EXERCISE BEGINS here\n",
        }
        for name, text in bad.items():
            with self.subTest(name):
                with self.assertRaises(skeletons.MarkerError):
                    skeletons.parse_regions(text)

    def test_stage_files_keep_their_code(self):
        # Markers are comments: the stage file minus its marker lines is C++ that never mentions
        # the exercise, and each region holds code (not only comments).
        for e in EXERCISES:
            for region in skeletons.parse_regions(e.path.read_text(), e.file):
                code = [s for s in region.solution if s.strip() and not s.strip().startswith("//")]
                self.assertTrue(code, f"{e.id}: a region without code")


def replaced_blocks(stage_lines, skeleton_lines):
    """The (stage range, skeleton range) pairs where the two differ, by difflib."""
    matcher = difflib.SequenceMatcher(a=stage_lines, b=skeleton_lines, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


class SkeletonsMatchStages(unittest.TestCase):
    """Every skeleton is its stage file with each marked region (BEGIN..END) replaced by the
    hint and stub lines, nothing else changed, and putting the regions back gives the stage."""

    def test_skeleton_is_stage_minus_regions(self):
        for e in EXERCISES:
            with self.subTest(e.id):
                stage = e.path.read_text().splitlines()
                skeleton = skeletons.make_skeleton(e.path.read_text(), e).splitlines()
                header = skeletons.skeleton_header(e)
                self.assertEqual(skeleton[:len(header)], header)
                skeleton = skeleton[len(header):]
                # Independent of the generator: the regions found by the marker text alone.
                begins = [i for i, s in enumerate(stage) if "// EXERCISE BEGIN:" in s]
                ends = [i for i, s in enumerate(stage) if re.search(r"// EXERCISE END\s*$", s)]
                self.assertTrue(begins, "no region")
                self.assertEqual(len(begins), len(ends), "unbalanced markers")
                regions = list(zip(begins, ends))
                for (b, end), following in zip(regions, begins[1:] + [len(stage)]):
                    self.assertLess(b, end)
                    self.assertLess(end, following, "regions nest or overlap")
                inside = {i for b, end in regions for i in range(b, end + 1)}
                outside = [s for i, s in enumerate(stage) if i not in inside]

                def replacement(b, end):
                    body = stage[b:end + 1]
                    hints = [re.sub(r"^.*// EXERCISE (BEGIN|HINT):", "", s).strip()
                             for s in body if re.search(r"// EXERCISE (BEGIN|HINT):", s)]
                    stubs = [re.sub(r"^.*// EXERCISE STUB: ", "", s).rstrip()
                             for s in body if "// EXERCISE STUB:" in s]
                    return ["// EXERCISE: " + hints[0]] + ["//           " + h for h in hints[1:]] \
                        + stubs

                # Nothing but the regions changed: the lines outside them, in order, unchanged...
                matcher = difflib.SequenceMatcher(a=outside, b=skeleton, autojunk=False)
                self.assertEqual(sum(m.size for m in matcher.get_matching_blocks()), len(outside))
                # ... plus, for each region, exactly its hint and stub lines.
                expected = sum(len(replacement(b, end)) for b, end in regions)
                self.assertEqual(len(skeleton), len(outside) + expected)
                for i1, i2, j1, j2 in replaced_blocks(stage, skeleton):
                    owner = [(b, end) for b, end in regions if b <= i1 and i2 <= end + 1]
                    self.assertEqual(len(owner), 1,
                                     f"the skeleton differs at stage line {i1 + 1}, outside "
                                     "every region")
                    allowed = [s.strip() for s in replacement(*owner[0])]
                    for line in skeleton[j1:j2]:
                        self.assertIn(line.strip(), allowed)

    def test_restoring_the_regions_gives_the_stage_file(self):
        for e in EXERCISES:
            with self.subTest(e.id):
                text = e.path.read_text()
                stage = text.splitlines()
                skeleton = skeletons.make_skeleton(text, e).splitlines()
                skeleton = skeleton[len(skeletons.skeleton_header(e)):]
                back, s, stage_pos = [], 0, 0
                for region in skeletons.parse_regions(text, e.file):
                    before = region.begin - stage_pos
                    back += skeleton[s:s + before]
                    s += before + len(skeletons.region_replacement(region))
                    back += stage[region.begin:region.end + 1]
                    stage_pos = region.end + 1
                back += skeleton[s:]
                self.assertEqual(back, stage)

    def test_skeletons_differ_from_the_solution(self):
        for e in EXERCISES:
            text = e.path.read_text()
            solution_code = "\n".join(line for r in skeletons.parse_regions(text, e.file)
                                      for line in r.solution if line.strip())
            self.assertNotIn(solution_code, skeletons.make_skeleton(text, e), e.id)


class Start(unittest.TestCase):
    def test_start_copies_once_and_never_overwrites(self):
        e = EXERCISES[0]
        with tempfile.TemporaryDirectory() as tmp:
            student = pathlib.Path(tmp) / "student"
            with open(pathlib.Path(tmp) / "log", "w") as log:
                path = skeletons.start(e, student, out=log)
                self.assertEqual(path.read_text(), skeletons.make_skeleton(e.path.read_text(), e))
                path.write_text("my work\n")
                skeletons.start(e, student, out=log)
            self.assertEqual(path.read_text(), "my work\n")


class Plants(unittest.TestCase):
    def test_plants_apply_to_their_stage_files(self):
        plants = planted.load_plants()
        self.assertGreaterEqual(len(plants), 5)
        by_id = {e.id: e for e in EXERCISES}
        for plant in plants:
            with self.subTest(plant.name):
                self.assertIn(plant.exercise, by_id)
                self.assertTrue(plant.why)
                stage = by_id[plant.exercise].path.read_text()
                self.assertNotEqual(plant.apply(stage), stage)

    def test_the_kinds_the_issue_asks_for(self):
        names = {p.name for p in planted.load_plants()}
        for kind in ("tail_dropped", "missing_syncthreads", "hard_coded_answer",
                     "partial_rescaled", "race_plain_increment"):
            self.assertIn(kind, names)

    def test_the_barrier_plants_of_multi_gpu_4(self):
        plants = {p.name: p for p in planted.load_plants() if p.exercise == "multi-gpu-4"}
        self.assertEqual(set(plants), {"relaxed_flag", "signal_before_block_done",
                                       "device_scope_flag", "wrap_unsafe_compare",
                                       "no_barrier_after_wait"})
        # The scope plant may pass: today's hardware may honour a device-scope fence for the
        # stores to a peer GPU (exercises/multi-gpu-4/README.md). The early signal may not: the
        # hold-back cases start the other warps' stores after the flag has gone.
        self.assertEqual({n for n, p in plants.items() if p.may_pass}, {"device_scope_flag"})

    def test_multi_gpu_4_has_hold_back_cases(self):
        held = [c for c in graders.MultiGpuGrader.fixed if c[5] > 0]
        self.assertGreaterEqual(len(held), 2)
        # one block, so that the block that signals early is the only one the peer waits for
        self.assertTrue(any(c[1] == 1 for c in held))


def row(row_id, passed=True, detail="", **extra):
    return {"id": row_id, "passed": passed, "detail": detail, "median_ms": 1.0, "gbs": 2.0,
            "percent_of_peak": 3.0, "extra": extra}


class Judging(unittest.TestCase):
    def result(self, code, rows, output=""):
        return running.RunResult(code, output, {r["id"]: r for r in rows}, 0.1)

    def test_pass_fail_and_what_was_wrong(self):
        grader = graders.ReductionGrader("3")
        self.assertEqual(running.judge(self.result(0, [row("3")]), grader), ("pass", []))
        verdict, why = running.judge(self.result(1, [row("3", False, "sum 5, expected 6")]), grader)
        self.assertEqual(verdict, "fail")
        self.assertIn("sum 5, expected 6", why[0])
        self.assertEqual(running.judge(self.result(0, [row("4")]), grader)[0], "fail")

    def test_exit_codes(self):
        grader = graders.ReductionGrader("3")
        self.assertEqual(running.judge(self.result(2, [], "--block: no"), grader)[0], "skip")
        self.assertEqual(running.judge(self.result(3, [], "Error: no NVIDIA GPU or driver"),
                                       grader)[0], "no-gpu")
        verdict, why = running.judge(self.result(3, [], "CUDA error: an illegal memory access"),
                                     grader)
        self.assertEqual(verdict, "fail")
        self.assertIn("illegal memory access", why[1])
        timed_out = running.RunResult(-1, "", {}, 120.0, True)
        self.assertEqual(running.judge(timed_out, grader)[0], "fail")
        self.assertEqual(running.judge(self.result(-11, [], "Segmentation fault"), grader)[0],
                         "fail")

    def test_streams_needs_the_overlap(self):
        grader = graders.StreamsGrader("2")
        good = [row("1L", **{"overlapping pairs": "0/3", "rules allow": "0"}), row("1P"),
                row("2L", **{"overlapping pairs": "2/3", "rules allow": "2"}), row("2P")]
        self.assertEqual(running.judge(self.result(0, good), grader), ("pass", []))
        blocking = list(good)
        blocking[2] = row("2L", **{"overlapping pairs": "0/3", "rules allow": "2"})
        verdict, why = running.judge(self.result(0, blocking), grader)
        self.assertEqual(verdict, "fail")
        self.assertIn("did not overlap", why[0])
        ranged = list(good)
        ranged[2] = row("2L", **{"overlapping pairs": "1-2/3", "rules allow": "2"})
        self.assertEqual(running.judge(self.result(0, ranged), grader)[0], "pass")
        # Measured on the H100: the fix applied to scenario 1 as well (planted
        # always_non_blocking) passes the program's own checks; the grader must not.
        everywhere = list(good)
        everywhere[0] = row("1L", **{"overlapping pairs": "2/3", "rules allow": "2"})
        verdict, why = running.judge(self.result(0, everywhere), grader)
        self.assertEqual(verdict, "fail")
        self.assertIn("must stay blocking", " ".join(why))
        scenario1 = list(good)
        scenario1[0] = row("1L", False, "k1 and k2 overlapped although the stream rules order them")
        self.assertEqual(running.judge(self.result(1, scenario1), grader)[0], "fail")

    def test_overlap_minimum(self):
        self.assertEqual(graders.overlap_minimum("2/3"), 2)
        self.assertEqual(graders.overlap_minimum("0-2/28"), 0)
        self.assertIsNone(graders.overlap_minimum("-"))


FAKE_PROGRAM = """#!/usr/bin/env python3
import json, sys
args = sys.argv[1:]
rows = [{"id": "3", "name": "x", "passed": "--bad" not in args, "detail": "sum 1, expected 2",
         "median_ms": 0.165, "gbs": 813.6, "percent_of_peak": 24.3, "extra": {}},
        {"id": "cub", "name": "cub", "passed": True, "detail": "", "median_ms": 0.0507,
         "gbs": 2648.8, "percent_of_peak": 79.0, "extra": {}}]
json.dump({"rows": rows}, open(args[args.index("--json") + 1], "w"))
sys.exit(1 if "--bad" in args else 0)
"""


class Running(unittest.TestCase):
    """The grader's run -> JSON -> verdict -> table path, with a stand-in for a chapter program."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.program = pathlib.Path(self.tmp.name) / "reduction"
        # This Python on the #! line, not whatever python3 the PATH finds first.
        self.program.write_text("#!" + sys.executable + FAKE_PROGRAM[FAKE_PROGRAM.index("\n"):])
        self.program.chmod(0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def test_run_and_judge(self):
        grader = graders.ReductionGrader("3")
        good = running.run_program([str(self.program)], 30)
        self.assertEqual(running.judge(good, grader), ("pass", []))
        bad = running.run_program([str(self.program), "--bad"], 30)
        self.assertEqual(running.judge(bad, grader), ("fail", ["row 3: sum 1, expected 2"]))

    def test_timed_table(self):
        import argparse
        import io
        args = argparse.Namespace(timing_reps=2, timeout=30.0, reference_build="")
        out, failures = io.StringIO(), []
        grading.time_rows(graders.ReductionGrader("3"), self.program, 5, args, out, failures)
        text = out.getvalue()
        self.assertEqual(failures, [])
        self.assertRegex(text, r"your stage 3 +PASS +0\.1650 +813\.6 +24\.3")
        self.assertRegex(text, r"CUB +PASS +0\.0507 +2648\.8 +79\.0")


class MultiGpu(unittest.TestCase):
    """Exercise multi-gpu-4: two GPUs or not checked, and cases that make a wrong barrier show."""

    def test_fewer_gpus_than_needed_is_not_checked(self):
        grader = graders.MultiGpuGrader("4")
        self.assertEqual(gpus.missing_gpus(grader, 0), "no GPU")
        self.assertEqual(gpus.missing_gpus(grader, 1), "needs 2 GPUs, found 1")
        self.assertEqual(gpus.missing_gpus(grader, 2), "")
        self.assertEqual(gpus.missing_gpus(graders.ReductionGrader("3"), 1), "")
        said = ("not checked: exercise multi-gpu-4 needs two GPUs in one process; this machine "
                "has 1\n")
        verdict, why = running.judge(running.RunResult(3, said, {}, 0.1), grader)
        self.assertEqual(verdict, "no-gpu")
        self.assertIn("needs two GPUs", why[0])

    def test_cases_are_adversarial(self):
        cases = graders.MultiGpuGrader("4").cases(seed=7, large=False)

        def values(option):
            return [int(c.args[c.args.index(option) + 1]) for c in cases]
        self.assertTrue({1, 1025, (1 << 18) + 1} <= set(values("--n")))  # 4 B, 4100 B, 1 MiB + 4 B
        self.assertIn(1, values("--blocks"))  # one block pushes a whole MiB
        self.assertTrue(all(calls >= 32 for calls in values("--calls")))
        self.assertTrue(any(late > 0 for late in values("--late-us")))
        self.assertIn(0, values("--late-us"))
        self.assertTrue(any(hold > 0 for hold in values("--hold-back-us")))  # early signal
        for calls, wrap in zip(values("--calls"), values("--wrap-after")):
            self.assertLess(wrap, calls)  # every run crosses 2^32
        self.assertEqual(set(values("--wrap-after")), {7, 8})  # GPU 1 late at the wrap, GPU 0


class WrapAround(unittest.TestCase):
    """Plant wrap_unsafe_compare on the CPU: two ranks run the one-shot protocol (signal, wait,
    read, next call) with call numbers starting near 2^32. flag_reached (flag_protocol.hpp: the
    signed difference) keeps them in step across the wrap; `value >= seq` lets a rank through
    call 0 before its peer has signalled, or never lets it through call 2^32 - 1."""

    MASK = (1 << 32) - 1

    @staticmethod
    def flag_reached(value, seq):
        return ((value - seq) & WrapAround.MASK) < (1 << 31)

    @staticmethod
    def at_least(value, seq):
        return value >= seq

    def run_protocol(self, reached, first_counter, calls, schedule):
        """Two ranks, each: signal call seq to the peer, wait for the peer's signal, then read
        (checking that the peer signalled this call). `schedule` picks which rank steps next.
        Returns 'ok', 'early at seq S' (read before the peer signalled) or 'hang at seq S'."""
        flag = [first_counter, first_counter]  # flag[r]: what the peer last stored into rank r
        signalled = [first_counter, first_counter]  # the last call each rank really signalled
        seq = [(first_counter + 1) & self.MASK] * 2
        phase = ["signal", "signal"]
        done = [0, 0]
        for r in schedule:
            if done[r] == calls:
                continue
            peer = 1 - r
            if phase[r] == "signal":
                flag[peer] = seq[r]
                signalled[r] = seq[r]
                phase[r] = "wait"
            elif reached(flag[r], seq[r]):
                if signalled[peer] != seq[r] and not self.flag_reached(signalled[peer], seq[r]):
                    return f"early at seq {seq[r]}"
                seq[r] = (seq[r] + 1) & self.MASK
                phase[r] = "signal"
                done[r] += 1
            elif done[peer] == calls or (phase[peer] == "wait" and
                                         not reached(flag[peer], seq[peer])):
                return f"hang at seq {seq[r]}"
        return "ok" if done == [calls, calls] else "unfinished"

    def schedules(self, steps):
        yield [0, 1] * steps  # in step
        yield [0, 0, 1, 1] * steps
        for seed in range(20):  # either rank may be late at any step, as on the GPUs
            rng = __import__("random").Random(seed)
            yield [rng.randrange(2) for _ in range(4 * steps)]

    def test_flag_reached_keeps_both_ranks_in_step_across_the_wrap(self):
        for first in (self.MASK - 5, self.MASK - 1, self.MASK, 0, 10):
            for schedule in self.schedules(40):
                self.assertEqual(self.run_protocol(self.flag_reached, first, 8, schedule), "ok",
                                 f"counters from {first}")

    def test_value_at_least_seq_breaks_at_the_wrap(self):
        outcomes = {self.run_protocol(self.at_least, self.MASK - 5, 8, schedule)
                    for schedule in self.schedules(40)}
        # In step, it may get through; with a peer late at call 0, it reads before the signal.
        self.assertIn("early at seq 0", outcomes)
        # Far from the wrap, the same comparison is right: the bug waits 2^32 calls to show.
        for schedule in self.schedules(40):
            self.assertEqual(self.run_protocol(self.at_least, 10, 8, schedule), "ok")


class MatmulTensorCores(unittest.TestCase):
    """Exercise matmul-13: Hopper or not checked, and cases that turn the ring on stage 13's own
    kernel (16-byte rows), so that a wrong phase shows."""

    def test_another_gpu_is_not_checked(self):
        grader = graders.MatmulTensorCoreGrader("13")
        skipped = {"13": {"passed": False, "expected_failure": True,
                          "detail": "built for sm_90a (wgmma), which runs on compute capability "
                                    "9.0 only; this GPU has 8.9"}}
        verdict, why = running.judge(running.RunResult(0, "", skipped, 0.1), grader)
        self.assertEqual(verdict, "no-gpu")
        self.assertIn("compute capability 9.0", why[0])
        wrong = {"13": {"passed": False, "detail": "sparse: element 7 is 3, expected 4"}}
        verdict, why = running.judge(running.RunResult(1, "", wrong, 0.1), grader)
        self.assertEqual(verdict, "fail")
        self.assertIn("element 7", why[0])

    def test_cases_turn_the_ring_on_tma_rows(self):
        cases = graders.MatmulTensorCoreGrader("13").cases(seed=7, large=False)

        def value(case, option):
            return case.args[case.args.index(option) + 1]

        for case in cases:
            with self.subTest(case.label):
                self.assertEqual(value(case, "--precision"), "bf16")
                self.assertEqual(int(value(case, "--n")) % 8, 0)
                self.assertEqual(int(value(case, "--k")) % 8, 0)
                self.assertGreaterEqual(int(value(case, "--k")), 12 * 64)  # three turns of 4
        self.assertTrue({"sparse", "integers", "normal"} <= {value(c, "--data") for c in cases})
        self.assertIn(1, {int(value(c, "--m")) for c in cases})


class Cases(unittest.TestCase):
    """The grader cannot be fooled easily: odd sizes, below a block and far above, several
    block sizes and data patterns, never the chapters' default seed."""

    def test_sizes_blocks_and_data(self):
        for name in ("reduction", "histogram", "divergence", "nested", "scan"):
            with self.subTest(name):
                grader = graders.GRADERS[name]("3")
                cases = grader.cases(seed=7, large=False)
                sizes = {int(c.args[c.args.index("--n") + 1]) for c in cases}
                for n in (1, 31, 33, 1025, (1 << 20) + 3):
                    self.assertIn(n, sizes)
                self.assertTrue({1023, 1024} & sizes)
                blocks = {c.args[c.args.index("--block") + 1] for c in cases}
                self.assertGreaterEqual(len(blocks), 4)
                self.assertTrue(all("--reps" in c.args for c in cases))  # runs in a row

    def test_data_patterns_and_seed(self):
        cases = graders.ReductionGrader("3").cases(seed=7, large=True)
        self.assertGreaterEqual(len({c.args[c.args.index("--data") + 1] for c in cases}), 3)
        self.assertTrue(any(int(c.args[c.args.index("--n") + 1]) > (1 << 31) for c in cases))
        dists = {c.args[c.args.index("--dist") + 1]
                 for c in graders.HistogramGrader("3").cases(seed=7, large=False)}
        self.assertGreaterEqual(len(dists), 4)
        self.assertNotEqual(graders.random_size(__import__("random").Random(1)) % 2, 0)

    def test_single_architecture(self):
        command = ["nvcc", "--generate-code=arch=compute_75,code=[sm_75]",
                   "--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-gencode",
                   "arch=compute_80,code=sm_80", "-c", "x.cu"]
        self.assertEqual(building.single_architecture(command),
                         ["nvcc", "--generate-code=arch=compute_75,code=[sm_75]", "-c", "x.cu"])


if __name__ == "__main__":
    unittest.main()
