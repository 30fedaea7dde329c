#!/bin/sh
# After ctest (make test, test-cpu, test-gpu): one line on the skipped tests (why, how to run
# them) and one on the disabled ones (what they are, how to run them). ctest lists them bare,
# "(Skipped)" and "(Disabled)"; the reasons are in GoogleTest's output, which ctest keeps in
# Testing/Temporary/LastTest.log. Prints nothing when every test ran; never changes the result.
#
#   scripts/test_summary.sh BUILD_DIR CTEST_OUTPUT_FILE
build=$1
output=$2
log="$build/Testing/Temporary/LastTest.log"
[ -f "$output" ] || exit 0

skipped=$(grep -c '(Skipped)$' "$output")
if [ "$skipped" -gt 0 ]; then
  # GoogleTest prints "file:line: Skipped" and, on the next line, the reason GTEST_SKIP gave.
  reasons=$(grep -A1 ': Skipped$' "$log" 2>/dev/null | grep -v ': Skipped$' | grep -v '^--$' |
    sort | uniq -c | sort -rn | sed 's/^ *\([0-9]*\) \(.*\)$/\1 x "\2"/' | paste -sd ';' - |
    sed 's/;/; /g')
  line="note: $skipped test(s) skipped${reasons:+: $reasons}."
  if grep -q 'no CUDA device' "$log" 2>/dev/null; then
    line="$line No NVIDIA GPU or driver is visible here, so the GPU tests (label gpu) skip"
    line="$line themselves; on a machine with one, make test (or make test-gpu) runs them."
  fi
  if grep -q 'CT_LARGE_TESTS' "$log" 2>/dev/null || grep -q 'Large.*(Skipped)$' "$output"; then
    line="$line The 2^31-element reduction test also needs CT_LARGE_TESTS=1 (8 GiB of GPU memory):"
    line="$line CT_LARGE_TESTS=1 make test-gpu."
  fi
  echo "$line"
fi

disabled=$(grep '(Disabled)$' "$output" | sed 's/^[^-]*- //; s/ *(Disabled)$//')
if [ -n "$disabled" ]; then
  for name in $disabled; do
    # The GoogleTest binary that holds it, from ctest's own record of the test's command.
    binary=$(ctest --test-dir "$build" -N -V -R "^$name\$" 2>/dev/null |
      sed -n 's/^.*Test command: \([^ ]*\).*$/\1/p' | head -n 1)
    # ctest names it Suite.Test; GoogleTest knows it as Suite.DISABLED_Test.
    filter="${name%%.*}.DISABLED_${name#*.}"
    echo "note: $name is disabled: a measurement to run by hand, not a check (see the comment" \
      "above it in its test file); run it with ${binary:-its test binary}" \
      "--gtest_filter=$filter --gtest_also_run_disabled_tests"
  done
fi
exit 0
