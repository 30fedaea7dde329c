"""Skeletons: a stage file's EXERCISE markers, and the file a student starts from.

parse_regions() reads the markers (their syntax: scripts/exercise.py's docstring and
docs/exercises.md) into Regions and rejects any that are not well formed; make_skeleton() replaces
each region by its hint and stub lines; start() copies the skeleton to exercises/student/, never
over a file that is already there.
"""
import dataclasses
import pathlib
import re
import sys
from typing import List, Optional

from .registry import STUDENT_DIR, Exercise, display

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


def skeleton_header(exercise: Exercise) -> List[str]:
    return [
        f"// Exercise {exercise.id}: the skeleton of {exercise.file}.",
        f"// Fill in each EXERCISE gap, then grade it: make exercise CHAPTER={exercise.chapter} "
        f"STAGE={exercise.stage}",
    ]


def make_skeleton(text: str, exercise: Exercise) -> str:
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
