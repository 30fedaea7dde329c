#!/usr/bin/env bash
# The chapter's supplementary measurements, in one run after the timing-harness fix (the
# earlier ones are in gpu_session.sh's output): the block-size sweep at 2^25, Nsight Compute's
# counters for the first pass of stages 1-11 (instructions, bank conflicts, DRAM throughput),
# the L2::256B hint against the plain load in alternating rounds, and the SASS that the README
# quotes (stage 2's shared loads, stage 10's 16-byte loads).
#   chapters/03_reduction/measuring/supplementary_runs.sh OUTDIR [build-dir]
set -uo pipefail
out=${1:?output directory}
build=${2:-build}
bin="$build/bin/reduction"
mkdir -p "$out"
stamp="$(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"

if [ -z "${SKIP_SWEEP:-}" ]; then
  {
    echo "### block sweep: reduction --n 2^25 --block B --reps 50, $stamp"
    for block in 64 128 256 512 1024; do
      echo "## block $block"
      "$bin" --n 2^25 --block "$block" --reps 50 2>&1 | grep -E "^([0-9]+|cub|note|skipped) |skip"
    done
  } >"$out/reduction_block_sweep.txt" 2>&1
fi

if [ -z "${SKIP_NCU:-}" ]; then
  metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__thread_inst_executed_pred_on_per_inst_executed.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  stages=1,2,3,4,5,6,7,8,9,10,11
  # The first launch of each kernel function is its first pass (the later passes reuse it).
  ncu --clock-control none --kernel-id ::regex:reduce_:1 --metrics "$metrics" --csv \
    "$bin" --stage "$stages" --n 2^25 --block 256 --reps 1 --warmup 0 >"$out/reduction_ncu_raw.csv" 2>"$out/ncu.log"
  if [ "$(grep -c 'gpu__time_duration' "$out/reduction_ncu_raw.csv")" -lt 11 ]; then
    echo "kernel-id selection gave too few kernels; one ncu run per stage" >>"$out/ncu.log"
    : >"$out/reduction_ncu_raw.csv"
    for stage in ${stages//,/ }; do
      ncu --clock-control none -k regex:reduce_ --launch-count 1 --metrics "$metrics" --csv \
        "$bin" --stage "$stage" --n 2^25 --block 256 --reps 1 --warmup 0 2>>"$out/ncu.log" |
        grep -E '^"' >>"$out/reduction_ncu_raw.csv"
    done
  fi
fi

if [ -z "${SKIP_STALLS:-}" ]; then
  # What the warps of stages 3-7 wait for: a barrier, or a global load (long scoreboard).
  stalls=gpu__time_duration.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
  ncu --clock-control none --kernel-id ::regex:reduce_:1 --metrics "$stalls" --csv \
    "$bin" --stage 3,4,5,6,7,10 --n 2^25 --block 256 --reps 1 --warmup 0 >"$out/reduction_ncu_stalls_raw.csv" 2>>"$out/ncu.log"
fi

# The L2::256B hint against plain loads is now one of stage 10-12's candidates: the tuning pass
# times both on every run and the table's header lists them ("stages 10-12 candidates").

obj="$build/chapters/03_reduction/CMakeFiles/reduction_kernels.dir/stages"
{
  echo "### SASS (cuobjdump -sass -arch sm_90), $stamp"
  echo "## stage02_interleaved_strided_index.cu: the tree loop's shared-memory accesses"
  cuobjdump -sass -arch sm_90 "$obj/stage02_interleaved_strided_index.cu.o" |
    grep -E "Function :|LDS|STS|BAR|BRA|SHF|IMAD.SHL|LEA" | head -30
  echo "## stage10_vectorized_loads.cu: the distinct 16-byte load instructions (all variants)"
  cuobjdump -sass -arch sm_90 "$obj/stage10_vectorized_loads.cu.o" | grep -oE "LDG[.A-Z0-9_]*" |
    sort | uniq -c
  echo "## which kernels use which load form (first 16-byte load of each function)"
  cuobjdump -sass -arch sm_90 "$obj/stage10_vectorized_loads.cu.o" |
    awk '/Function :/ {f=$3; seen=0} /LDG.*128/ && !seen {print f; print "    " $0; seen=1}' | head -40
} >"$out/reduction_sass_loads.txt" 2>&1
