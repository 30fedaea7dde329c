#!/usr/bin/env bash
# How the chapter's GPU results were produced (one session on the lent H100): build the
# reduction targets, run the tests, the executable at 2^25 and 2^28, the block-size and
# stage-10 tuning sweeps, racecheck on the historical stage 5, and the sanitizer on the tests.
#   chapters/03_reduction/scripts/gpu_session.sh OUTDIR [build-dir]
set -uo pipefail
out=${1:?output directory}
build=${2:-build}
mkdir -p "$out"
jobs=$(nproc)
if ! cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out/configure.txt" 2>&1; then
  # Several chapters are written at the same time: if another chapter's folder does not
  # configure right now, build this chapter from a copy of the tree without the others.
  echo "whole-tree configure failed ($(grep -m1 'CMake Error' "$out/configure.txt")); filtered copy"
  src=$(mktemp -d)
  tar --exclude='./build*' --exclude='./.git' --exclude='./chapters/0[!13]*' \
    --exclude='./tests/0[!13]*' -cf - . | (cd "$src" && tar xf -)
  build=$src/build
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out/configure.txt" 2>&1 ||
    { tail -20 "$out/configure.txt"; exit 3; }
fi
rm -f "$out/configure.txt"
cmake --build "$build" -j"$jobs" --target reduction reduction_cpu_test reduction_gpu_test 2>&1 |
  tail -5 || exit 3
bin="$build/bin/reduction"
gpu_test="$build/tests/reduction_gpu_test"

ctest --test-dir "$build" -R 'Reduction' --output-on-failure 2>&1 | tee "$out/test.log" | tail -12
"$gpu_test" --gtest_filter='ReductionBugDemo.*' 2>&1 | grep -E "matched|OK|FAIL" | tee -a "$out/test.log"

{
  echo "### 2^25, block 256 (the table)"
  "$bin" --n 2^25 --block 256 --reps 100 --csv "$out/reduction.csv" --json "$out/reduction.json"
  echo "### 2^28, block 256"
  "$bin" --n 2^28 --block 256 --reps 50 --json "$out/reduction_2p28.json"
  for block in ${BLOCKS:-128 512 1024}; do
    echo "### 2^25, block $block"
    "$bin" --n 2^25 --block "$block" --reps 50
  done
} 2>&1 | tee "$out/run.log" | grep -E "^###|^ *(1|4|9|10|11|12|cub) " 

if [ -z "${SKIP_SWEEP:-}" ]; then
  "$gpu_test" --gtest_filter='ReductionTuning.*' --gtest_also_run_disabled_tests 2>&1 >"$out/sweep.log"
  echo "sweep: $(grep -c '' "$out/sweep.log") lines"
fi

{
  echo "### racecheck, historical volatile stage 5 (5v) and the __syncwarp form (5), n = 4096"
  for stage in 5v 5 8 9 11; do
    echo "## stage $stage"
    compute-sanitizer --tool racecheck --print-limit 4 "$bin" --stage "$stage" --n 4096 \
      --block 256 --reps 1 --warmup 0 2>&1 | grep -vE "^\s*$" | tail -n 30
  done
  echo "### SASS: warp barriers and shuffles per kernel (256-thread instantiations)"
  obj="$build/chapters/03_reduction/CMakeFiles/reduction_kernels.dir/stages"
  for f in stage05_unrolled_last_warp stage07_grid_stride_occupancy stage08_cooperative_groups_tile stage09_warp_shuffle stage10_vectorized_loads; do
    echo "## $f: $(cuobjdump -sass "$obj/$f.cu.o" 2>/dev/null | grep -oE '\b(WARPSYNC|BAR\.SYNC[.A-Z_]*|BAR\.[A-Z]+|SHFL\.[A-Z]+|REDUX[.A-Z]*|NANOSLEEP|LDG\.E\.[0-9A-Z.]+)' | sort | uniq -c | tr '\n' ' ')"
  done
} 2>&1 | tee "$out/racecheck.log" | tail -40

if [ -z "${SKIP_SANITIZE:-}" ]; then
  FILTER='Reduction*' timeout "${SANITIZE_TIMEOUT:-240}" scripts/sanitize.sh "$build" 2>&1 |
    tee "$out/sanitize.log" | tail -8
fi
