"""The exercise grader behind scripts/exercise.py (the command line) and `make exercise`.

Where to look, in the order that grading goes through them:

    registry.py    exercises/exercises.txt as Exercise records; course order; paths (ROOT, ...)
    skeletons.py   the EXERCISE markers of a stage file, the skeleton made from them, and start():
                   the student's copy in exercises/student/
    graders.py     one Grader class per chapter: its cases, timed run, sanitizer case and checks;
                   GRADERS maps the grader column of exercises.txt to the class
    building.py    the chapter built with the student's file in place of the stage file; every
                   skeleton compiled on the CPU (compile-skeletons)
    gpus.py        the GPUs the driver sees, their architectures, compute-sanitizer's path
    running.py     one run of the chapter's program (--json) and its verdict
    grading.py     grade(): build, cases, sanitizer, timed table, and the exit code
    exit_codes.py  0 PASS, 1 FAIL, 2 bad usage, 3 compiled but not checked, 4 build failed

A grader for a new chapter is one class in graders.py and its entry in GRADERS (graders.py's
docstring says what the class defines). docs/exercises.md explains the exercises to students and
teachers. Python 3.8+, standard library only.
"""
