#!/usr/bin/env bash
# make bench: runs every chapter with the class options in scripts/bench_cases.txt and writes
# JSON, CSV and the printed output of each run into docs/results/<gpu-slug>/, plus summary.md and
# summary.json (GPU, driver, CUDA, date, git commit, each run's exit code), then the plots.
#   scripts/bench.sh [build-dir] [results-root]        DEVICE=<n> to pick a GPU
set -uo pipefail
build=${1:-build}
root=${2:-docs/results}
device=${DEVICE:-0}
here=$(cd "$(dirname "$0")" && pwd)
# CT_BENCH_CASES and CT_BENCH_SUFFIX are set by the multi-GPU pass at the end of this script.
cases="${CT_BENCH_CASES:-$here/bench_cases.txt}"
# Every case runs a chapter of chapters/chapters.txt (its second column, the executable).
chapters=" $(awk '/^[0-9]/ {print $2}' "$here/../chapters/chapters.txt" | tr '\n' ' ')"
unknown=$(awk '!/^#/ && NF {print $2}' "$cases" | while read -r exe; do
  case "$chapters" in *" $exe "*) ;; *) echo "$exe" ;; esac; done | sort -u | tr '\n' ' ')
if [ -n "$unknown" ]; then
  echo "bench: $cases runs executables that chapters/chapters.txt does not list: ${unknown% }"; exit 2
fi

# No usable GPU: the chapters' own message once, exit 3 (not once per case).
DEVICE=$device sh "$here/gpu_check.sh" "$build" || exit $?

# Runs go to a scratch folder first; the GPU's name in their JSON then names the results folder.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# The commit of *this* project: git asked from the project's root, and only if that root is the
# top of its own checkout. A copy of the tree placed inside some other checkout (as on a lent GPU
# machine) would otherwise report that other repository's commit, or an empty one. CT_COMMIT
# overrides (say, the commit the copy was made from); otherwise "unknown".
project=$(cd "$here/.." && pwd -P)
dirty=""
if [ -n "${CT_COMMIT:-}" ]; then
  commit="$CT_COMMIT (from CT_COMMIT)"
elif top=$(git -C "$project" rev-parse --show-toplevel 2>/dev/null) &&
     [ "$(cd "$top" && pwd -P)" = "$project" ] &&
     head=$(git -C "$project" rev-parse --short HEAD 2>/dev/null) && [ -n "$head" ]; then
  commit=$head
  dirty=$([ -n "$(git -C "$project" status --porcelain 2>/dev/null)" ] &&
          echo " + uncommitted changes" || echo "")
else
  commit="unknown"
fi
date=$(date -Iseconds)

summary_rows=""
failures=0
while read -r name exe args; do
  case "$name" in ""|\#*) continue ;; esac
  if [ ! -x "$build/bin/$exe" ]; then
    echo "  $name: $exe not built, skipped"; summary_rows+="| $name | \`$exe $args\` | not built |"$'\n'
    continue
  fi
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$build/bin/$exe" --device "$device" $args --json "$scratch/$name.json" \
    --csv "$scratch/$name.csv" >"$scratch/$name.txt" 2>&1
  status=$?
  seconds=$(python3 -c "import time,sys; print(f'{time.time()-float(sys.argv[1]):.1f}')" "$start")
  echo "  $name: exit $status (${seconds} s)"
  [ $status -eq 0 ] || failures=$((failures + 1))
  summary_rows+="| $name | \`$exe $args\` | $status | $seconds |"$'\n'
done <"$cases"

read -r gpu slug driver runtime release < <(python3 - "$scratch" <<'PY'
import json, pathlib, re, sys
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    try:
        run = json.loads(path.read_text())["run"]
        gpu = run["gpu"]
    except (ValueError, KeyError, TypeError):
        continue
    slug = re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-")
    print(gpu.replace(" ", "_"), slug, run.get("cuda_driver", "?"), run.get("cuda_runtime", "?"),
          run.get("driver_version") or "unknown")
    break
PY
)
if [ -z "${slug:-}" ]; then
  echo "bench: no run produced results (is there a CUDA device?)"; exit 3
fi
out="$root/$slug${CT_BENCH_SUFFIX:-}"
mkdir -p "$out"
cp "$scratch"/* "$out"/
echo "bench: ${gpu//_/ } -> $out (commit $commit$dirty)"

cat >"$out/summary.md" <<MD
# Bench run on ${gpu//_/ }${CT_BENCH_SUFFIX:+ (${CT_BENCH_SUFFIX#-})}

| item | value |
| --- | --- |
| GPU | ${gpu//_/ } |
| CUDA runtime | $runtime |
| NVIDIA driver | $release |
| CUDA version the driver supports | $driver |
| date | $date |
| git commit | $commit$dirty |

| result | command | exit code | seconds |
| --- | --- | --- | --- |
$summary_rows
MD
python3 - "$out/summary.json" <<PY
import json, sys
json.dump({"gpu": "${gpu//_/ }", "cuda_runtime": "$runtime", "cuda_driver": "$driver",
           "driver_version": "$release",
           "date": "$date", "git_commit": "$commit$dirty", "failed_runs": $failures},
          open(sys.argv[1], "w"), indent=2)
PY
if python3 -c "import matplotlib" 2>/dev/null; then
  python3 "$here/plot_results.py" plot "$out" >/dev/null && echo "bench: plots written"
elif [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  /usr/bin/python3 "$here/plot_results.py" plot "$out" >/dev/null && echo "bench: plots written"
else
  echo "bench: matplotlib not found, no plots (make deps)"
fi
echo "bench: $failures run(s) failed; results in $out"
# A machine with several GPUs also runs chapter 7's cases, into <gpu-slug>-x<G>/.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ -z "${CT_BENCH_CASES:-}" ] && [ "${gpus:-0}" -ge 2 ]; then
  echo "bench: $gpus GPUs: chapter 7's multi-GPU cases"
  CT_BENCH_CASES="$here/bench_cases_multi_gpu.txt" CT_BENCH_SUFFIX="-x$gpus" "$0" "$build" "$root" ||
    failures=$((failures + 1))
fi
exit $((failures > 0))
