"""Graders: for each chapter, what the grader runs on a student's stage and what must hold.

A grader is one class: the executable it builds and runs, the cases (each one command line of
that executable: sizes, block sizes, data), the timed run, the small case that compute-sanitizer
runs, and check_rows(), what the JSON rows of a run must say for a case to pass. The base class,
Grader, has the defaults (the reduction's options, one row per stage id, CUB to compare with).

A teacher changes the checks here: the sizes, block sizes and data of each grader's cases (the
`fixed` list at the top of each class), the size of the timed run, and the sanitizer's case.

Adding a grader for a new chapter is one class and one line, both in this file:

1. `class <Chapter>Grader(Grader)`, after the others (they are in course order): set
   `executable`, define `cases()` and `timing_args()`, and override what else differs from the
   defaults (`row_ids()`, `compare_ids()`, `compare_label`, `sanitize_case()`,
   `sanitize_tools()`, `gpus`, `check_rows()`);
2. its entry in GRADERS, at the end of this file, under the name that the grader column of
   exercises/exercises.txt gives it.

Nothing else changes: grading.py takes every grader through the same steps (build, cases,
sanitizer, timed run). The exercise itself is a line of exercises/exercises.txt and markers in its
stage file (docs/exercises.md); the CPU tests (tests/exercises/test_exercises.py) check that the
registry names only graders of GRADERS, and Cases.test_sizes_blocks_and_data, which lists the
graders whose cases take --n and --block, checks that they cover the small sizes.
"""
import dataclasses
import random
import re
from typing import Dict, List, Optional


# A problem check_rows() returns that starts with this means the case could not be checked on
# this machine (a stage this GPU cannot run): the grading says COMPILED, NOT CHECKED.
NOT_CHECKED = "not checked: "

SMALL_SIZES_NOTE = "1, 31, 33 (below and just above a warp), 1023-1025 (around a block), 2^20+3"


@dataclasses.dataclass
class Case:
    label: str
    args: List[str]


def random_size(rng: random.Random) -> int:
    return rng.randrange(1 << 16, 1 << 21) | 1  # odd: never a multiple of a block


class Grader:
    """The checks of one exercise's stage (`stage`: the stage column of exercises/exercises.txt).
    A chapter's grader sets `executable` and defines cases() and timing_args(); the rest has
    defaults."""
    executable = ""  # the program the grader builds and runs (the chapter's, or the exercise's)
    compare_label = "CUB"  # what the timed table calls the rows of compare_ids()
    gpus = 1  # GPUs the checks need; with fewer, grade() says so and exits 3 (not checked)
    sanitize_note = ""  # why sanitize_tools() is empty, when it is

    def __init__(self, stage: str):
        self.stage = stage

    def row_ids(self) -> List[str]:
        """The rows of the program's JSON that belong to the student's stage."""
        return [self.stage]

    def cases(self, seed: int, large: bool) -> List[Case]:
        """The checked runs, each a Case: a label and the executable's arguments (the grader adds
        --json). `seed` seeds the data and any random size; `large` adds a case above 2^31
        elements where the chapter has one."""
        raise NotImplementedError

    def timing_args(self, seed: int) -> List[str]:
        """The arguments of the timed run, which also runs the rows of compare_ids()."""
        raise NotImplementedError

    def compare_ids(self) -> List[str]:
        """The rows that the timed table shows beside the student's (empty: none)."""
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


class ScanGrader(Grader):
    """Chapter 8: a block scan inside the chapter's frame (stage 2's down-sweep). Every case scans
    the whole input, so a wrong element anywhere (a tile's first or last, the tail of a partial
    tile, a carry between tiles) fails it; inclusive and exclusive alternate, because a down-sweep
    that forgets to clear the root or shifts by one is right for neither, and 0xFFFFFFFF
    everywhere (max) makes every prefix wrap around 2^32."""
    executable = "scan"
    blocks = [32, 64, 128, 256, 512, 1024]
    fixed = [  # (n, block, data, kind)
        (1, 256, "random", "exclusive"), (31, 32, "random", "inclusive"),
        (33, 64, "max", "exclusive"), (1023, 128, "alternating", "inclusive"),
        (1024, 1024, "random", "exclusive"), (1025, 256, "max", "inclusive"),
        (4097, 512, "random", "exclusive"), ((1 << 16) - 1, 32, "ones", "inclusive"),
        ((1 << 20) + 3, 256, "random", "inclusive"), ((1 << 20) + 3, 1024, "max", "exclusive"),
        ((1 << 22) + 1, 64, "random", "exclusive"),
    ]

    def cases(self, seed, large):
        rng = random.Random(seed)
        chosen = list(self.fixed) + [(random_size(rng), rng.choice(self.blocks), "random",
                                      rng.choice(["inclusive", "exclusive"]))]
        if large:  # 2^31 + 5 ints: 8 GiB in and 8 GiB out
            chosen.append(((1 << 31) + 5, 256, "random", "exclusive"))
        return [Case(f"n={n} block={b} data={d} kind={k}",
                     ["--stage", self.stage, "--n", str(n), "--block", str(b), "--data", d,
                      "--kind", k, "--seed", str(seed), "--warmup", "1", "--reps", "2"])
                for n, b, d, k in chosen]

    def timing_args(self, seed):
        return ["--stage", f"{self.stage},cub", "--n", "2^25", "--seed", str(seed)]

    def sanitize_case(self, seed):
        # Several tiles and a partial last one, so that the carries between tiles run too.
        return Case("n=4099 block=256 exclusive",
                    ["--stage", self.stage, "--n", "4099", "--block", "256", "--kind",
                     "exclusive", "--seed", str(seed), "--warmup", "0", "--reps", "1"])

    def sanitize_tools(self):
        return ["memcheck", "racecheck", "synccheck"]


class MatmulGrader(Grader):
    """Chapter 9: the shared-memory tile loop (stage 3) and the outer products of 2D register
    blocking (stage 5). Every case multiplies small integers, so
    every element must match the FP64 reference bit for bit (the program checks the whole of C),
    and the shapes break the tiles every way (32 x 32 for stage 3, 128 x 128 x 8 for stage 5):
    1 x 1 x 1, m, n or k just below or above a multiple of 32, k not a multiple of 32 or 8 (the
    last tile's guards), long and thin shapes, and one random shape; one case on normal data (the
    FP32 tolerance)."""
    executable = "matmul"
    compare_label = "cuBLAS"
    fixed = [  # (m, n, k, data)
        (1, 1, 1, "integers"), (7, 7, 7, "integers"), (31, 33, 32, "integers"),
        (33, 31, 65, "integers"), (32, 32, 31, "integers"), (127, 129, 127, "integers"),
        (1025, 1023, 1024, "integers"), (4095, 33, 4093, "integers"), (64, 64, 1, "integers"),
        (1, 4097, 33, "integers"), (4097, 1, 95, "integers"), (513, 257, 1000, "normal"),
    ]

    def cases(self, seed, large):
        rng = random.Random(seed)
        chosen = list(self.fixed) + [(rng.randrange(33, 2048) | 1, rng.randrange(33, 2048) | 1,
                                      rng.randrange(33, 2048) | 1, "integers")]
        return [Case(f"m={m} n={n} k={k} data={d}",
                     ["--stage", self.stage, "--m", str(m), "--n", str(n), "--k", str(k),
                      "--data", d, "--seed", str(seed), "--warmup", "1", "--reps", "2"])
                for m, n, k, d in chosen]

    def timing_args(self, seed):
        return ["--stage", f"{self.stage},cublas", "--size", "2048", "--seed", str(seed)]

    def compare_ids(self):
        return ["cublas"]

    def sanitize_case(self, seed):
        # Three tiles each way, the last ones partial.
        return Case("m=65 n=67 k=70", ["--stage", self.stage, "--m", "65", "--n", "67", "--k",
                                       "70", "--data", "integers", "--seed", str(seed),
                                       "--warmup", "0", "--reps", "1"])

    def sanitize_tools(self):
        return ["memcheck", "racecheck", "synccheck"]


class MatmulTensorCoreGrader(Grader):
    """Chapter 9's tensor-core half: stage 13's ring of mbarriers (the phase each side waits for,
    and the release of a buffer). Hopper only: the stage is built for sm_90a, and on any other
    GPU its row is skipped and the grading says not checked. Every shape has k and n multiples
    of 8 (rows of 16 bytes: otherwise the stage runs stage 11's kernel, not yours) and k of at
    least 12 k-tiles of 64, so that the ring of 4 buffers turns three times or more; the data are
    sparse (-1, 0, +1: every sum within +-256, exact in BF16, so one product lost or read twice
    shows) or integers, one case normal. A wait that never ends gives up after 4 s and the
    product comes out wrong; each case runs in a process of its own."""
    executable = "matmul"
    compare_label = "cuBLAS"
    fixed = [  # (m, n, k, data)
        (128, 256, 768, "sparse"), (1, 8, 776, "sparse"), (129, 264, 1032, "sparse"),
        (65, 72, 8192, "sparse"), (300, 520, 4096, "integers"), (1000, 2056, 2048, "sparse"),
        (4096, 4096, 4096, "sparse"), (513, 264, 1000, "normal"),
    ]

    def cases(self, seed, large):
        rng = random.Random(seed)
        chosen = list(self.fixed) + [(rng.randrange(33, 2048) | 1, 8 * rng.randrange(5, 300),
                                      8 * rng.randrange(97, 512), "sparse")]
        return [Case(f"m={m} n={n} k={k} data={d}",
                     ["--precision", "bf16", "--stage", self.stage, "--m", str(m), "--n", str(n),
                      "--k", str(k), "--data", d, "--seed", str(seed), "--warmup", "1",
                      "--reps", "2", "--power", "0"])
                for m, n, k, d in chosen]

    def timing_args(self, seed):
        return ["--precision", "bf16", "--stage", f"{self.stage},cublas_bf16", "--size", "4096",
                "--seed", str(seed), "--power", "0"]

    def compare_ids(self):
        return ["cublas_bf16"]

    def sanitize_case(self, seed):
        # 9 k-tiles of 64: the ring turns twice, its phase bits flip.
        return Case("m=65 n=72 k=520", ["--precision", "bf16", "--stage", self.stage, "--m", "65",
                                        "--n", "72", "--k", "520", "--data", "sparse", "--seed",
                                        str(seed), "--warmup", "0", "--reps", "1", "--power",
                                        "0"])

    def sanitize_tools(self):
        return ["memcheck", "racecheck", "synccheck"]

    def check_rows(self, rows):
        row = rows.get(self.stage)
        if row is not None and row.get("expected_failure") and "sm_90a" in (row.get("detail") or ""):
            return [NOT_CHECKED + "stage " + self.stage + " runs on compute capability 9.0 only "
                    "(Hopper): " + row.get("detail")]
        return super().check_rows(rows)


GRADERS = {  # the grader column of exercises/exercises.txt -> its class
    "first_kernel": FirstKernelGrader,
    "divergence": DivergenceGrader,
    "reduction": ReductionGrader,
    "nested": NestedGrader,
    "histogram": HistogramGrader,
    "streams": StreamsGrader,
    "multi_gpu": MultiGpuGrader,
    "scan": ScanGrader,
    "matmul": MatmulGrader,
    "matmul_tensor_cores": MatmulTensorCoreGrader,
}
