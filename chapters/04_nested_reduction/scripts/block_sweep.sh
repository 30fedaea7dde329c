#!/usr/bin/env bash
# The per-level version at 2^24 for other block sizes than the default 512, next to the flat
# vectorized stage and CUB of the same process: the README's block sweep.
#   chapters/04_nested_reduction/scripts/block_sweep.sh OUTFILE [build-dir]
set -uo pipefail
out=${1:?output file}
build=${2:-build}
{
  echo "### nested_reduction --n 2^24 --version per_level --flat 10 --block B, $(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  for block in 32 128 1024; do
    echo "== 2^24 block $block"
    "$build/bin/nested_reduction" --n 2^24 --block "$block" --version per_level --flat 10 2>&1 |
      grep -E "^(per_level|ch3-10|cub) "
  done
} >"$out" 2>&1
