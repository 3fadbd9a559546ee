#!/bin/bash
# Run every test: install what is missing, build out of tree, then the busted
# specs, the C tests, and (when built) the sanitizer/valgrind/fuzz stages.
# Ends with one line "N passed, N failed, N skipped" (what CI counts).
#   KFJOB_QUICK=1  skip the slow stages (sanitizers, valgrind, fuzzing)
#   KFJOB_ONLY=20-asan  after the build, run only scripts/test.d/20-asan.sh
#                  (a stage under repair; CI never sets it)
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
./scripts/setup.sh || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }

PASSED=0
FAILED=0
SKIPPED=0
LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT

STAGE=""
stage() { STAGE=$*; echo; echo "=== $* ==="; }
# Counts one failure and keeps its name for the run's last lines, so a red
# run says what failed without its earlier output.
fail_named() { FAILED=$((FAILED + 1)); note_failed "$1"; }
note_failed() { echo "  [$STAGE] $1" >>"$LOG/failed"; }
# Adds the counts of one busted run (its summary line) to the totals.
count_busted() {
  local line s f e
  line=$(grep -E '[0-9]+ successes? / [0-9]+ failures? / [0-9]+ errors?' "$1" | tail -1)
  if [ -z "$line" ]; then
    # its last words (a crash's "Segmentation fault"), without the progress dots
    fail_named "busted run with no summary (a crash?): $(tail -c 400 "$1" | tr '\n' ' ' | sed 's/[●◌]//g' | tail -c 160)"
    echo "(no busted summary: counted as 1 failure)"; return
  fi
  s=$(echo "$line" | sed -E 's/^([0-9]+) success.*/\1/')
  f=$(echo "$line" | sed -E 's/.* ([0-9]+) failures?.*/\1/')
  e=$(echo "$line" | sed -E 's/.* ([0-9]+) errors?.*/\1/')
  p=$(echo "$line" | sed -nE 's/.* ([0-9]+) pending.*/\1/p')
  PASSED=$((PASSED + s)); FAILED=$((FAILED + f + e)); SKIPPED=$((SKIPPED + ${p:-0}))
  # "Failure → spec/x_spec.lua @ 12" then the test's name, for each one
  [ $((f + e)) -eq 0 ] || grep -aA1 -E '^(Failure|Error) →' "$1" | grep -av '^--$' |
    paste -d' ' - - | sed -E 's/^(Failure|Error) → //' | while IFS= read -r t; do note_failed "$t"; done
}
# Adds one pass/fail for a whole command.
check() {
  local name=$1; shift
  if "$@" >"$LOG/check.out" 2>&1; then PASSED=$((PASSED + 1)); echo "ok - $name"
  else fail_named "$name"; echo "FAILED - $name"; tail -30 "$LOG/check.out"; fi
}

stage "build"
JOBS=$(nproc 2>/dev/null || echo 2)
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKFJOB_WERROR=ON >/dev/null &&
       cmake --build build -j"$JOBS" >"$LOG/build.out" 2>&1; }; then
  cat "$LOG/build.out" | tail -40
  echo "0 passed, 1 failed"; exit 1
fi

ONLY=${KFJOB_ONLY:-}
if [ -z "$ONLY" ]; then
stage "busted specs (Lua 5.4)"
busted --lua=lua5.4 -o utfTerminal spec 2>&1 | tee "$LOG/busted.out" | tail -25
count_busted "$LOG/busted.out"

stage "luacheck"
check "luacheck lua/ spec/ examples/" luacheck -q lua spec examples

if [ -x build/kfjob_ctest_marker ] || [ -f build/CTestTestfile.cmake ]; then
  stage "C tests (ctest)"
  (cd build && ctest --output-on-failure -j"$JOBS") 2>&1 | tee "$LOG/ctest.out" | tail -15
  t=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$LOG/ctest.out" | tail -1)
  if [ -n "$t" ]; then
    tot=$(echo "$t" | sed -E 's/.*out of ([0-9]+).*/\1/')
    fl=$(echo "$t" | sed -E 's/.*tests passed, ([0-9]+) tests? failed.*/\1/')
    PASSED=$((PASSED + tot - fl)); FAILED=$((FAILED + fl))
    grep -E '^[[:space:]]+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess|Exception|Not Run)' "$LOG/ctest.out" |
      sed -E 's/^[[:space:]]+[0-9]+ - /ctest /' | while IFS= read -r t; do note_failed "$t"; done
  else
    fail_named "ctest printed no summary"
  fi
fi
fi  # KFJOB_ONLY

for extra in scripts/test.d/*.sh; do
  [ -f "$extra" ] || continue
  [ -z "$ONLY" ] || [ "$(basename "$extra" .sh)" = "$ONLY" ] || continue
  # shellcheck source=/dev/null
  . "$extra"
done

echo
if [ "$FAILED" -ne 0 ]; then
  echo "Failed ($FAILED):"
  if [ -s "$LOG/failed" ]; then head -40 "$LOG/failed"; else echo "  (no names recorded)"; fi
fi
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
