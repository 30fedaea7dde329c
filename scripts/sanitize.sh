#!/usr/bin/env bash
# Runs every chapter's GPU tests under compute-sanitizer's four tools (memcheck, racecheck,
# synccheck, initcheck). Needs a GPU. Excluded by name: "*BugDemo*" suites exercise labelled bug
# demonstrations (they race or read uninitialized memory on purpose) and "*ErrorPath*" suites make
# CUDA calls fail on purpose (an invalid launch, an allocation too large), which the sanitizer
# counts as errors.
#   scripts/sanitize.sh [build-dir]      FILTER=<gtest filter> to narrow, TOOLS="memcheck" to pick
set -uo pipefail
build=${1:-build}
tools=${TOOLS:-memcheck racecheck synccheck initcheck}
filter=${FILTER:-*}
# CT_SANITIZE=<tool> tells the GPU tests which tool runs them: they use small problem sizes then
# (racecheck slows kernels a lot), and a test can leave out what one tool cannot handle.
if ! command -v compute-sanitizer >/dev/null 2>&1; then
  for candidate in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [ -x "$candidate" ] && PATH=$(dirname "$candidate"):$PATH && break
  done
fi
command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer not found"; exit 3; }

failures=0
printf '%-32s %-10s %s\n' "test executable" "tool" "result"
for exe in "$build"/tests/*_gpu_test; do
  [ -x "$exe" ] || continue
  for tool in $tools; do
    # Only memcheck supports CUDA Dynamic Parallelism; the other tools refuse to start
    # ("CUDA Dynamic Parallelism is not supported by the selected tool").
    if [[ "$(basename "$exe")" == nested_reduction_gpu_test && "$tool" != memcheck ]]; then
      printf '%-32s %-10s %s\n' "$(basename "$exe")" "$tool" "not run: the tool does not support dynamic parallelism"
      continue
    fi
    # Chapter 7: NCCL provokes CUDA API errors while it initializes and handles them itself
    # (peer access already enabled, kernel-image probes): not reported. Its *Ranks* tests start
    # processes of their own; their kernels are chapter 3's, sanitized with chapter 3's tests.
    extra=() exclude=""
    if [[ "$(basename "$exe")" == multi_gpu_gpu_test ]]; then
      extra=(--report-api-errors no) exclude=":*Ranks*"
    fi
    # A FILTER that selects none of this executable's tests: nothing to sanitize (and the tool
    # would report the empty run as a target that ended before any CUDA call).
    if ! "$exe" --gtest_list_tests --gtest_filter="${filter}:-*BugDemo*:*ErrorPath*${exclude}" \
         2>/dev/null | grep -q '^  '; then
      printf '%-32s %-10s %s\n' "$(basename "$exe")" "$tool" "no test matches the filter"
      continue
    fi
    log=$(mktemp)
    CT_SANITIZE=$tool compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 \
      "${extra[@]}" "$exe" --gtest_filter="${filter}:-*BugDemo*:*ErrorPath*${exclude}" \
      --gtest_brief=1 >"$log" 2>&1
    status=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1)
    if [ $status -eq 0 ]; then
      printf '%-32s %-10s %s\n' "$(basename "$exe")" "$tool" "clean ${summary}"
    else
      printf '%-32s %-10s %s\n' "$(basename "$exe")" "$tool" "FAILED (exit $status) ${summary}"
      tail -n 40 "$log"
      failures=$((failures + 1))
    fi
    rm -f "$log"
  done
done
echo "excluded by name: *BugDemo* (labelled bug demonstrations that race on purpose),"
echo "  *ErrorPath* (tests whose CUDA calls fail on purpose)"
echo "nested_reduction_gpu_test: memcheck only (racecheck, synccheck, initcheck do not support dynamic parallelism)"
echo "multi_gpu_gpu_test: NCCL's own handled API errors not reported; *Ranks* (separate processes) excluded"
[ $failures -eq 0 ] && echo "sanitize: all clean" || echo "sanitize: $failures run(s) reported errors"
exit $((failures > 0))
