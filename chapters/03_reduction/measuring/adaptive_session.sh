#!/usr/bin/env bash
# How the adaptive stages' figures were produced (reduction stages 10-12, histogram stage 8; one
# session on a lent GPU): build, the GPU tests of every candidate, memcheck and racecheck on
# them with small sizes, then the runs behind the README's "adaptive" sections, each printing
# in its header what the stages chose and why.
#   chapters/03_reduction/measuring/adaptive_session.sh OUTDIR [build-dir]    (SKIP_SANITIZE=1 to skip)
set -uo pipefail
out=${1:?output directory}
build=${2:-build}
mkdir -p "$out"
cmake --preset default -B "$build" >"$out/configure.txt" 2>&1 || { tail -20 "$out/configure.txt"; exit 3; }
targets="reduction histogram reduction_adaptive_gpu_test histogram_adaptive_gpu_test"
targets+=" reduction_gpu_test histogram_gpu_test"
# shellcheck disable=SC2086
cmake --build "$build" -j"$(nproc)" --target $targets 2>&1 | grep -E "error|warning|FAILED" | head -20
tests="$build/tests"
{
  "$tests/reduction_adaptive_gpu_test"
  "$tests/histogram_adaptive_gpu_test"
  "$tests/reduction_gpu_test" --gtest_filter='ReductionGpu.*'
  "$tests/histogram_gpu_test" --gtest_filter='HistogramGpu.EveryStage*:HistogramGpu.Unaligned*'
} >"$out/tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|checked" "$out/tests.log"

r="$build/bin/reduction"
h="$build/bin/histogram"
{
  echo "### reduction 2^25"
  "$r" --n 2^25 --reps 100 --stage 9,10,11,12,cub --json "$out/reduction_2e25.json"
  echo "### reduction 2^28"
  "$r" --n 2^28 --reps 50 --stage 9,10,11,12,cub --json "$out/reduction_2e28.json"
  echo "### reduction 2^30"
  "$r" --n 2^30 --reps 20 --stage 10,11,12,cub --json "$out/reduction_2e30.json"
  echo "### histogram letters uniform"
  "$h" --dist uniform --stage 7,8,cub --json "$out/histogram_uniform.json"
  echo "### histogram letters one-letter"
  "$h" --dist one-letter --stage 8,cub
  echo "### histogram bytes random-bytes"
  "$h" --bins bytes --dist random-bytes --stage 7,8,cub --json "$out/histogram_bytes.json"
} >"$out/runs.log" 2>&1
grep -E "^###|^(9|10|11|12|7|8|cub) |stages? 1?0?-?1?2? ?(8 )?(run|why)|stage 8 (runs|why)" "$out/runs.log"

if [ -z "${SKIP_SANITIZE:-}" ]; then
  for tool in memcheck racecheck; do
    for exe in reduction_adaptive_gpu_test histogram_adaptive_gpu_test; do
      CT_SANITIZE=$tool timeout "${SANITIZE_TIMEOUT:-100}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$tests/$exe" --gtest_filter='*EveryCandidate*:*OneThread*' >"$out/$exe.$tool.log" 2>&1
      echo "$exe $tool: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$exe.$tool.log" | tail -1)"
    done
  done
fi
