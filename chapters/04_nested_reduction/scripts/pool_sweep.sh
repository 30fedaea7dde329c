#!/usr/bin/env bash
# How many device launches fail, as a function of the pending-launch pool
# (cudaLimitDevRuntimePendingLaunchCount) and of the number of chains (G blocks, each growing a
# chain of log2(B) - 1 one-block launches): the measurement behind the README's section
# "Limits, measured". One line per run: version, n, G, pool, then the table row the executable
# printed (launches counted on the device, "+k failed").
#   chapters/04_nested_reduction/scripts/pool_sweep.sh OUTFILE [build-dir]
set -uo pipefail
out=${1:?output file}
build=${2:-build}
bin="$build/bin/nested_reduction"
row() {  # version n block pool
  local line
  line=$("$bin" --version "$1" --n "$2" --block "$3" --pending-launches "$4" --flat 10 \
    --reps 1 --warmup 0 2>&1 | grep -E "^$1 ")
  printf '%-7s n=%-8s B=%-4s G=%-5s pool=%-6s | %s\n' "$1" "$2" "$3" $(( $2 / $3 )) "$4" "$line"
}
{
  echo "### pending-launch pool sweep, $(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  echo "## version sync (fire-and-forget chains), block 512: G chains of 8 launches each"
  for g in 64 128 256 512 1024 2048; do
    for pool in 256 512 1024 2048 4096 8192 16384; do
      row sync $(( g * 512 )) 512 "$pool"
    done
  done
  echo "## version sync, block 128 (chains of 6) and block 64 (chains of 5), G = 2048"
  for b in 128 64; do
    for pool in 512 1024 2048 4096; do
      row sync $(( 2048 * b )) "$b" "$pool"
    done
  done
  echo "## repeatability: version sync, G = 2048, block 512, pool 2048, three more runs"
  for _ in 1 2 3; do row sync 1048576 512 2048; done
  echo "## version nosync (tail launches), block 512"
  for g in 512 2048; do
    for pool in 256 2048; do
      row nosync $(( g * 512 )) 512 "$pool"
    done
  done
  echo "## version per_level, G = 2048, pool 256 (8 launches in all)"
  row per_level 1048576 512 256
} >"$out" 2>&1
