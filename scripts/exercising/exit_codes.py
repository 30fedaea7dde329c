"""The exit codes of `scripts/exercise.py`. `make exercise` reports them; README.md and
docs/exercises.md list them for students."""

EXIT_PASS = 0  # every check passed
EXIT_FAIL = 1  # a check failed (what was wrong is printed)
EXIT_USAGE = 2  # bad usage: nothing was built or graded
EXIT_NO_GPU = 3  # compiled but not checked: no GPU, or fewer GPUs than the exercise needs
EXIT_BUILD = 4  # the student's file did not compile
