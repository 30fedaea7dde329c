"""The exercises and where things are.

exercises/exercises.txt, one exercise a line (id, chapter, stage, grader, file), read into Exercise
records; find_exercise() picks one by chapter and stage, course_order() sorts them by
chapters/chapters.txt. ROOT, the students' folder and the default build folder are here too, and
display(), which shows a path relative to the repository as the grader prints it.
"""
import dataclasses
import pathlib
import sys
from typing import Dict, List

from .exit_codes import EXIT_USAGE

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
REGISTRY = ROOT / "exercises" / "exercises.txt"
CHAPTER_LIST = ROOT / "chapters" / "chapters.txt"  # the course order
STUDENT_DIR = ROOT / "exercises" / "student"
DEFAULT_BUILD_DIR = ROOT / "build-exercise"


@dataclasses.dataclass
class Exercise:
    id: str
    chapter: str
    stage: str
    grader: str  # a key of GRADERS (graders.py)
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


def display(path: pathlib.Path) -> str:
    """The path relative to the repository root (as it is printed), else as given."""
    try:
        return str(pathlib.Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)
