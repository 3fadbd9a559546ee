#!/bin/sh
# Smoke test for the benchmark (part of the test command, not a timing test):
# runs bench/run.sh --quick (tiny iteration counts) and fails only if the
# benchmark itself breaks -- a build error, a Lua/Python error, or a check
# (wire bytes vs the protobuf-c floor and python3-protobuf) that mismatches.
# PASS/MISS lines are printed but never fail it.  KFJOB_BUILD as for run.sh.
out=$(mktemp "${TMPDIR:-/tmp}/kfjob-bench-smoke.XXXXXX") || exit 1
if "$(dirname "$0")/run.sh" --quick --no-build >"$out" 2>&1 && grep -q 'target(s) missed' "$out"; then
  echo "bench smoke: ok ($(grep -c '^[A-Za-z]*\.[a-z]' "$out") benchmark lines, $(grep -c '^check .* ok ' "$out") checks)"
  rm -f "$out"
  exit 0
fi
cat "$out"
echo "bench smoke: FAILED"
rm -f "$out"
exit 1
