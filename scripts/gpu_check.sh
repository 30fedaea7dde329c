#!/bin/sh
# make run and make bench: is there a GPU the chapters can use? Asks one chapter once (its device
# query: execution_model --section query), so that a machine without a GPU shows the chapters'
# own one-line message once, instead of once per chapter or bench case.
#   scripts/gpu_check.sh [build-dir]     DEVICE=<n> asks about that GPU
# Exit 0: a GPU answered (or the chapter is not built, and each chapter will speak for itself);
# 3: no usable GPU or driver, the message on stderr.
build=${1:-build}
probe="$build/bin/execution_model"
[ -x "$probe" ] || exit 0
message=$("$probe" --section query --device "${DEVICE:-0}" 2>&1 >/dev/null)
[ $? -eq 3 ] || exit 0
printf '%s\n' "$message" >&2
exit 3
