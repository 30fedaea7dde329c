"""The planted wrong solutions of tests/exercises/planted/*.txt, applied to their stage files.

Each file names an exercise and holds one or more replacements, applied to the stage file (the
solution) to make a wrong solution that the grader must FAIL:

    # what is wrong, and why a weak grader would pass it
    exercise: reduction-4
    sanitize: no            (yes: graded with SANITIZE=1, for bugs only a sanitizer sees surely)
    may-pass: no            (optional; yes: a real bug that the hardware may hide, such as a
                             memory-ordering scope that today's GPUs honour anyway: graded and
                             its verdict reported, but a PASS is not counted against the grader)
    @@ replace
    <lines of the stage file, exactly once in it>
    @@ with
    <what they become>
    @@ end

A plant is kept as a change to the stage file, not as a copy, so that it cannot drift from the
stage: a replacement that no longer applies exactly once fails the CPU test.
"""
import dataclasses
import pathlib
from typing import List, Tuple

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PLANTED_DIR = HERE / "planted"


@dataclasses.dataclass
class Plant:
    name: str
    why: str
    exercise: str
    sanitize: bool
    replacements: List[Tuple[str, str]]
    may_pass: bool = False

    def apply(self, text: str) -> str:
        for old, new in self.replacements:
            count = text.count(old)
            if count != 1:
                raise ValueError(f"plant {self.name}: the text to replace occurs {count} times "
                                 f"in the stage file (must be once):\n{old}")
            text = text.replace(old, new)
        return text


def parse_plant(path: pathlib.Path) -> Plant:
    why, fields, replacements = [], {}, []
    mode, old, new = None, [], []
    for line in path.read_text().splitlines():
        if line == "@@ replace":
            mode, old, new = "old", [], []
        elif line == "@@ with" and mode == "old":
            mode = "new"
        elif line == "@@ end" and mode == "new":
            replacements.append(("\n".join(old) + "\n", "\n".join(new) + "\n"))
            mode = None
        elif mode == "old":
            old.append(line)
        elif mode == "new":
            new.append(line)
        elif line.startswith("#"):
            why.append(line.lstrip("# "))
        elif ":" in line:
            key, value = line.split(":", 1)
            fields[key.strip()] = value.strip()
        elif line.strip():
            raise ValueError(f"{path}: unexpected line {line!r}")
    if mode is not None:
        raise ValueError(f"{path}: a replacement is not closed by '@@ end'")
    if "exercise" not in fields or not replacements:
        raise ValueError(f"{path}: needs 'exercise:' and at least one replacement")
    for key in ("sanitize", "may-pass"):
        if fields.get(key, "no") not in ("yes", "no"):
            raise ValueError(f"{path}: '{key}:' must be yes or no")
    return Plant(path.stem, " ".join(why), fields["exercise"], fields.get("sanitize") == "yes",
                 replacements, fields.get("may-pass") == "yes")


def load_plants() -> List[Plant]:
    return [parse_plant(p) for p in sorted(PLANTED_DIR.glob("*.txt"))]
