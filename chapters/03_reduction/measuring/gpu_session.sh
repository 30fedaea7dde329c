#!/usr/bin/env bash
# How the chapter's GPU results were produced (one session on the lent H100):
#  1. build the reduction targets;
#  2. (no separate sweep any more: stages 10-12 tune themselves in every run, see
#     measuring/adaptive_vectorized.hpp, and the run's header says what they chose);
#  3. tests, the executable at 2^25 and 2^28 (JSON/CSV) and at other block sizes;
#  4. racecheck on the historical and the correct stage 5, Nsight Compute metrics of stages 1-3
#     and 7-10, SASS instruction counts, and the sanitizer on the GPU tests.
#   chapters/03_reduction/measuring/gpu_session.sh OUTDIR [build-dir]
set -uo pipefail
out=${1:?output directory}
build=${2:-build}
here=chapters/03_reduction
mkdir -p "$out"
if ! cmake --preset default -B "$build" >"$out/configure.txt" 2>&1; then
  tail -20 "$out/configure.txt"; exit 3
fi
rm -f "$out/configure.txt"
targets="reduction reduction_cpu_test reduction_gpu_test reduction_adaptive_cpu_test reduction_adaptive_gpu_test"
# shellcheck disable=SC2086
cmake --build "$build" -j"$(nproc)" --target $targets 2>&1 | tail -3 || exit 3
bin="$build/bin/reduction"
gpu_test="$build/tests/reduction_gpu_test"

ctest --test-dir "$build" -R 'Reduction' --output-on-failure >"$out/test.log" 2>&1
tail -4 "$out/test.log"
"$gpu_test" --gtest_filter='ReductionGpu.*:ReductionBugDemo.*' 2>&1 |
  grep -E "checked|matched|OK|FAIL" | tee -a "$out/test.log"

{
  echo "### 2^25, block 256 (the table)"
  "$bin" --n 2^25 --block 256 --reps 100 --csv "$out/reduction.csv" --json "$out/reduction.json"
  echo "### 2^28, block 256"
  "$bin" --n 2^28 --block 256 --reps 50 --csv "$out/reduction_2e28.csv" \
    --json "$out/reduction_2e28.json"
  for block in ${BLOCKS:-64 128 512 1024}; do
    echo "### 2^25, block $block"
    "$bin" --n 2^25 --block "$block" --reps 50
  done
  echo "### 2^28, block 1024"
  "$bin" --n 2^28 --block 1024 --reps 50 --stage 9,10,11,12,cub
} >>"$out/run.log" 2>&1
grep -E "^###|^(10|11|12|cub) " "$out/run.log" | head -40

{
  echo "### racecheck: the historical volatile stage 5 (5v), then the __syncwarp form (5)"
  for stage in 5v 5; do
    echo "## stage $stage: compute-sanitizer --tool racecheck reduction --stage $stage --n 4096"
    compute-sanitizer --tool racecheck --print-limit 3 "$bin" --stage "$stage" --n 4096 \
      --block 256 --reps 1 --warmup 0 2>&1 | grep -E "=====|PASS|FAIL"
  done
} >"$out/racecheck.log" 2>&1
grep -E "SUMMARY" "$out/racecheck.log"

if [ -z "${SKIP_NCU:-}" ]; then
  metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  {
    echo "### ncu --clock-control none, first launch (the first pass) of each stage, n = 2^25"
    for stage in 1 2 3 4 5 6 7 8 9 10 11; do
      echo "## stage $stage"
      ncu --clock-control none --launch-count 1 --metrics "$metrics" \
        "$bin" --stage "$stage" --n 2^25 --reps 1 --warmup 0 2>&1 |
        grep -E "reduce_|gpu__|dram__|smsp__|sm__|l1tex__"
    done
  } >>"$out/racecheck.log" 2>&1
  echo "ncu: $(grep -c 'gpu__time' "$out/racecheck.log") kernels"
fi

{
  echo "### SASS instruction counts per object file (all block-size instantiations)"
  obj="$build/chapters/03_reduction/CMakeFiles/reduction_kernels.dir/stages"
  for f in stage05_unrolled_last_warp stage06_complete_unroll stage07_grid_stride_occupancy stage08_cooperative_groups_tile stage09_warp_shuffle stage11_single_pass_last_block; do
    echo "## $f: $(cuobjdump -sass "$obj/$f.cu.o" 2>/dev/null | grep -oE '\b(WARPSYNC[.A-Z]*|BAR\.[.A-Z_]+|SHFL\.[A-Z]+|REDUX[.A-Z]*|LDG\.[0-9A-Z.]+|BRA|ATOMG[.A-Z0-9]*|RED\.[.A-Z0-9]+)' | sort | uniq -c | tr -s ' \n' ' ')"
  done
} >>"$out/racecheck.log" 2>&1

if [ -z "${SKIP_SANITIZE:-}" ]; then
  FILTER='Reduction*' timeout "${SANITIZE_TIMEOUT:-200}" scripts/sanitize.sh "$build" >>"$out/test.log" 2>&1
  tail -3 "$out/test.log"
fi
