#!/bin/bash
# Run every test: install what is missing, build out of tree, then the busted
# specs, the C tests, and (when built) the sanitizer/valgrind/fuzz stages.
# Ends with one line "N passed, N failed, N skipped" (what CI counts), and
# on a red run a "FAILED: <stage>: <test>" line for each failure right above
# it (scripts/test_report.sh).
#   KFJOB_QUICK=1  skip the slow stages (sanitizers, valgrind, fuzzing)
#   KFJOB_ONLY=20-asan  after the build, run only scripts/test.d/20-asan.sh
#                  (a stage under repair; CI never sets it)
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
./scripts/setup.sh || { echo "FAILED: setup: scripts/setup.sh"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT
# stage, check, count_busted, count_ctest, fail_named, report_end
. scripts/test_report.sh

stage "build"
JOBS=$(nproc 2>/dev/null || echo 2)
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKFJOB_WERROR=ON >/dev/null &&
       cmake --build build -j"$JOBS" >"$LOG/build.out" 2>&1; }; then
  tail -40 "$LOG/build.out"
  fail_named "cmake --build build (-Werror)"
  where_lines "$LOG/build.out" 5 | while IFS= read -r w; do note_where "$w"; done
  report_end; exit 1
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
  count_ctest "$LOG/ctest.out"
fi
fi  # KFJOB_ONLY

for extra in scripts/test.d/*.sh; do
  [ -f "$extra" ] || continue
  [ -z "$ONLY" ] || [ "$(basename "$extra" .sh)" = "$ONLY" ] || continue
  # shellcheck source=/dev/null
  . "$extra"
done

report_end
[ "$FAILED" -eq 0 ]
