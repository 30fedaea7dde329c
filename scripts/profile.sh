#!/usr/bin/env bash
# make profile CHAPTER=<name>: runs Nsight Compute (ncu) on one chapter with the metrics that
# replace the textbook's nvprof ones, and prints them as a table (one row per kernel).
#   scripts/profile.sh <chapter> [build-dir] [extra chapter arguments...]
# Clocks are left as they are (--clock-control none) so the times agree with the chapter's own.
set -uo pipefail
chapter=${1:?usage: scripts/profile.sh <chapter> [build-dir] [args...]}
build=${2:-build}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
chapters=$(awk '/^[0-9]/ {print $2}' "$here/../chapters/chapters.txt" | tr '\n' ' ')
case " $chapters " in
  *" $chapter "*) ;;
  *) echo "unknown chapter '$chapter' (chapters/chapters.txt: ${chapters% })"; exit 2 ;;
esac

# Small problems and one repetition: ncu replays every kernel once per metric group.
case "$chapter" in
  first_kernel)     args="--section add,stencil --n 2^22 --reps 1 --warmup 0" ;;
  execution_model)  args="--section sweep --nx 2^12 --ny 2^12 --reps 1 --warmup 0" ;;
  divergence)       args="--section timing --reps 1 --warmup 0" ;;
  reduction)        args="--n 2^22 --reps 1 --warmup 0" ;;
  nested_reduction) args="--n 2^20 --reps 1 --warmup 0" ;;
  histogram)        args="--n 2^22 --reps 1 --warmup 0" ;;
  streams)
    echo "streams: ncu serializes every kernel it profiles, so the concurrency this chapter measures"
    echo "cannot be seen under it. The chapter's own %globaltimer timelines are its profile; with"
    echo "Nsight Systems: nsys profile -o streams ./$build/bin/streams"
    exit 0 ;;
  multi_gpu)
    echo "multi_gpu: what this chapter measures is copies between GPUs and their overlap, which"
    echo "Nsight Systems shows: nsys profile -o multi_gpu ./$build/bin/multi_gpu. Its sharded reduction"
    echo "and histogram run chapters 3 and 5's kernels: make profile CHAPTER=reduction (or histogram)."
    exit 0 ;;
  scan)             args="--n 2^22 --stage 1,2,3,4,5,6,7,cub --reps 1 --warmup 0" ;;  # not 6x: it waits out its time limit
  matmul)           args="--size 1024 --reps 1 --warmup 0" ;;
  *) echo "scripts/profile.sh has no arguments for chapter '$chapter' yet: add them above"; exit 2 ;;
esac
metrics=(
  smsp__sass_average_branch_targets_threads_uniform.pct          # branch_efficiency
  smsp__thread_inst_executed_per_inst_executed.ratio             # warp_execution_efficiency (/32)
  sm__warps_active.avg.pct_of_peak_sustained_active              # achieved_occupancy
  l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second        # gld_throughput
  smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct  # gld_efficiency
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum       # shared load bank conflicts
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum       # shared store bank conflicts
  dram__throughput.avg.pct_of_peak_sustained_elapsed             # dram_utilization
  gpu__time_duration.sum                                         # kernel time
)
# Chapter 1 also asks how well the resident warps hide latency: a scheduler (4 per SM) can issue
# only when one of its warps is eligible (not stalled).
if [ "$chapter" = execution_model ]; then
  metrics+=(
    smsp__warps_active.avg.per_cycle_active                      # resident warps per scheduler
    smsp__warps_eligible.avg.per_cycle_active                    # eligible warps per scheduler
    smsp__issue_active.avg.pct_of_peak_sustained_active          # cycles with an instruction issued
  )
fi
list=$(printf '%s,' "${metrics[@]}"); list=${list%,}
ncu_bin=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
[ -x "$ncu_bin" ] || { echo "ncu (Nsight Compute) not found"; exit 3; }
echo "ncu --metrics $list --clock-control none --csv $build/bin/$chapter $args $*"
# shellcheck disable=SC2086
"$ncu_bin" --metrics "$list" --clock-control none --csv "$build/bin/$chapter" $args "$@" \
  >"${PROFILE_CSV:-/tmp/profile_$chapter.csv}" 2>/tmp/profile_$chapter.log
status=$?
python3 "$here/ncu_table.py" "${PROFILE_CSV:-/tmp/profile_$chapter.csv}"
[ $status -eq 0 ] || { echo "ncu exited with $status; see /tmp/profile_$chapter.log"; tail -5 /tmp/profile_$chapter.log; }
exit $status
