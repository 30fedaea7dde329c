#!/usr/bin/env bash
# The measurements behind the deep dive's sections on atomics and the profiler table, in one run:
#  1. the SASS of the global-atomic stages (1, 2) and of the latency probe;
#  2. what L2 sees of stage 2's global atomics: Nsight Compute's L2 (lts__) and L1 (l1tex__)
#     counters for reductions/atomics, with the metric names taken from `ncu --query-metrics`
#     on this GPU (uniform letters, one letter, random bytes; 2^24 bytes, first launch);
#  3. --atomic-latency (global and shared-memory chains) with stages 1 and 2 at 2^28;
#  4. the ncu table of stages 3-8 and CUB (shared-atomic wavefronts, bank conflicts) at 2^28;
#  5. the block sweep of stages 5-8 and CUB.
#   chapters/05_histogram/scripts/profile_atomics.sh OUTDIR [build-dir]
set -uo pipefail
out=${1:?output directory}
build=${2:-build}
bin="$build/bin/histogram"
mkdir -p "$out"
stamp="$(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"

if [ -z "${SKIP_SASS:-}" ]; then
  obj="$build/chapters/05_histogram/CMakeFiles/histogram_kernels.dir/stages"
  {
    echo "### SASS (cuobjdump -sass, sm_90) of the global atomics, $stamp"
    for f in stage1_block_partitioned_global_atomics stage2_interleaved_global_atomics atomic_latency_probe; do
      echo "## $f.cu: atomic and shared-memory instructions, with the 3 lines before each"
      cuobjdump -sass -arch sm_90 "$obj/$f.cu.o" 2>&1 | grep -E "Function :|ATOM|RED|LDS|VOTE|POPC|FLO|MATCH|S2R|CS2R" | head -60
    done
  } >"$out/histogram_sass_global_atomics.txt" 2>&1
fi

if [ -z "${SKIP_L2:-}" ]; then
  ncu --query-metrics --chip gh100 >"$out/query.txt" 2>&1
  names=$(grep -oE '^(lts__t_(requests|sectors)(_srcunit_tex)?_op_(red|atom)|l1tex__t_(requests|sectors)_pipe_lsu_mem_global_op_(red|atom)|smsp__inst_executed_op_global_(red|atom)|lts__t_sectors_srcunit_tex_op_(red|atom)_lookup_(hit|miss))\b' "$out/query.txt" | sort -u)
  list="gpu__time_duration.sum,smsp__inst_executed.sum,lts__cycles_elapsed.avg,lts__cycles_elapsed.avg.per_second"
  for m in $names; do list+=",$m.sum"; done
  {
    echo "### stage 2's global atomics as L1 and L2 count them, $stamp"
    echo "### metrics found by ncu --query-metrics --chip gh100:"; echo "$names" | tr '\n' ' '; echo
    for args in "--n 2^24" "--n 2^24 --dist one-letter" "--n 2^24 --bins bytes --dist random-bytes"; do
      echo "## histogram --stage 2 $args (first launch)"
      # shellcheck disable=SC2086
      ncu --clock-control none -k regex:interleaved_kernel --launch-count 1 --metrics "$list" \
        "$bin" --stage 2 $args --reps 1 --warmup 0 --slow-reps 1 2>&1 |
        grep -E "interleaved_kernel|gpu__|smsp__|lts__|l1tex__|ERROR|error"
    done
  } >"$out/histogram_l2_atomics.txt" 2>&1
fi

if [ -z "${SKIP_LATENCY:-}" ]; then
  "$bin" --stage 1,2 --atomic-latency >"$out/histogram_atomics_uniform.txt" 2>&1
  "$bin" --stage 1,2 --atomic-latency --dist one-letter >"$out/histogram_atomics_one_letter.txt" 2>&1
fi

if [ -z "${SKIP_NCU:-}" ]; then
  metrics=dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
  {
    for args in "--stage 3,5,6,7,8,cub" "--bins bytes --dist random-bytes --stage 3,5,6,7,8,cub" \
      "--dist runs --stage 3,4" "--dist one-letter --stage 3,4,5,8"; do
      echo "### $args"
      # shellcheck disable=SC2086
      ncu --clock-control none --metrics "$metrics" --csv "$bin" $args --reps 1 --warmup 0 2>/dev/null |
        grep -E '^"'
    done
  } >"$out/histogram_ncu_raw.csv" 2>&1
fi

if [ -z "${SKIP_SWEEP:-}" ]; then
  {
    echo "### block sweep, stages 5-8 and CUB, 2^28 bytes, $stamp"
    for block in 128 256 512 1024; do
      for args in "" "--bins bytes --dist random-bytes"; do
        echo "### block $block $args"
        # shellcheck disable=SC2086
        "$bin" --stage 5,6,7,8,cub --block "$block" $args 2>&1 | grep -E "^[0-9]+ |^cub "
      done
    done
  } >"$out/histogram_block_sweep.txt" 2>&1
fi
