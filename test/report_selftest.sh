#!/bin/bash
# test/report_selftest.sh: the last lines of a red run of scripts/test.sh
# name each failed test.  Feeds scripts/test_report.sh the output of a busted
# run, a ctest run and a luacheck run with planted failures (as those tools
# print them), then checks the lines report_end prints: the failures as
# "FAILED: <stage>: <test>", then "N passed, N failed, N skipped" last.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 2
LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT
# shellcheck source=/dev/null
. scripts/test_report.sh
pass=0 failed=0
want() {   # name, condition
  if eval "$2"; then pass=$((pass + 1)); echo "ok: $1"
  else failed=$((failed + 1)); echo "FAILED: $1"; fi
}

stage "busted specs (Lua 5.4)" >/dev/null
cat >"$LOG/busted.out" <<'EOF'
◼✱●
1 success / 1 failure / 1 error / 0 pending : 0.003344 seconds

Failure → spec/plant_spec.lua @ 2
planted fails on purpose
spec/plant_spec.lua:2: Expected objects to be equal.
Passed in:
(number) 2

Error → spec/plant_spec.lua @ 3
planted errors on purpose
spec/plant_spec.lua:3: boom
EOF
count_busted "$LOG/busted.out"
printf '●●●\nSegmentation fault\n' >"$LOG/crash.out"
count_busted "$LOG/crash.out" >/dev/null

stage "C tests (ctest)" >/dev/null
cat >"$LOG/ctest.out" <<'EOF'
Test project /tmp/build
    Start 7: host_api
    Start 9: host_api_kinds
1/3 Test #9: host_api_kinds ...................   Passed    0.16 sec
    Start 1: json_codec
2/3 Test #1: json_codec .......................   Passed    0.02 sec
3/3 Test #7: host_api .........................***Failed    5.18 sec
/tmp/test/host/test_host.c:165: CHECK(kfjob_version_number() == 1) failed
ok - max_jobs
FAILED - version
ok - names
463 checks, 1 failed


67% tests passed, 1 tests failed out of 3

Total Test time (real) =   5.19 sec

The following tests FAILED:
	  7 - host_api (Failed)
Errors while running CTest
EOF
count_ctest "$LOG/ctest.out"

stage "luacheck" >/dev/null
lint() {
  printf 'Checking spec/a_spec.lua    \033[31m1 warning\033[0m\n\n'
  printf '    spec/a_spec.lua:1:7: unused variable \033[1mx\033[0m\n'
  return 1
}
check "luacheck lua/ spec/ examples/" lint >/dev/null
rc_bad=$?
check "a check that passes" true >/dev/null
rc_ok=$?

report_end >"$LOG/end.out"
last=$(tail -1 "$LOG/end.out")
want "the last line is the counts CI reads" '[ "$last" = "4 passed, 5 failed, 0 skipped" ]'
has() { grep -qxF -- "$1" "$LOG/end.out"; }
want "busted: a failure, by file, line and name" \
  'has "FAILED: busted specs (Lua 5.4): spec/plant_spec.lua @ 2: planted fails on purpose"'
want "busted: an error, by file, line and name" \
  'has "FAILED: busted specs (Lua 5.4): spec/plant_spec.lua @ 3: planted errors on purpose"'
want "busted: a run without a summary, by its last words" \
  'grep -q "^FAILED: busted specs (Lua 5.4): busted run with no summary (a crash?): .*Segmentation fault" "$LOG/end.out"'
want "ctest: the failed test by name" 'has "FAILED: C tests (ctest): ctest host_api (Failed)"'
want "ctest: the harness's failed case, then the check, under it" \
  'grep -A2 -xF "FAILED: C tests (ctest): ctest host_api (Failed)" "$LOG/end.out" | tail -2 |
   tr "\n" "|" | grep -qxF "    FAILED - version|    /tmp/test/host/test_host.c:165: CHECK(kfjob_version_number() == 1) failed|"'
want "ctest: a test that passed is not named" '! grep -q "host_api_kinds\|json_codec" "$LOG/end.out"'
want "a failed check by name, with where (colours stripped)" \
  'has "FAILED: luacheck: luacheck lua/ spec/ examples/" && has "    spec/a_spec.lua:1:7: unused variable x"'
want "check returns 1 on a failure, 0 on a pass" '[ "$rc_bad" = 1 ] && [ "$rc_ok" = 0 ]'
want "the names come right before the counts" \
  '[ "$(grep -n "^FAILED: " "$LOG/end.out" | tail -1 | cut -d: -f1)" -ge $(($(wc -l <"$LOG/end.out") - 3)) ]'
[ "$failed" -eq 0 ] || cat "$LOG/end.out"

# A flood of failures in one stage (more than the 40 lines shown) does not
# hide a later stage's failure: each failing stage is named.
TOP=$LOG
LOG=$TOP/flood; mkdir -p "$LOG"
# shellcheck source=/dev/null
. scripts/test_report.sh
stage "busted specs (Lua 5.4)" >/dev/null
{ echo "0 successes / 45 failures / 0 errors / 0 pending : 0.1 seconds"; echo
  for i in $(seq 1 45); do printf 'Failure → spec/flood_spec.lua @ %d\nflood %d\n\n' "$i" "$i"; done
} >"$LOG/busted.out"
count_busted "$LOG/busted.out"
stage "C tests (ctest)" >/dev/null
count_ctest "$TOP/ctest.out"
report_end >"$LOG/end.out"
want "a flood: the counts stay last" '[ "$(tail -1 "$LOG/end.out")" = "2 passed, 46 failed, 0 skipped" ]'
want "a flood: the first 40 lines are shown" \
  'grep -qxF "FAILED: busted specs (Lua 5.4): spec/flood_spec.lua @ 40: flood 40" "$LOG/end.out" &&
   ! grep -qF "@ 41: flood 41" "$LOG/end.out"'
want "a flood: a later stage's failure is still named" \
  'grep -qxF "FAILED: C tests (ctest): ctest host_api (Failed)" "$LOG/end.out"'
want "a flood: what is left out is counted" 'grep -qxF "  ... 7 more lines" "$LOG/end.out"'
[ "$failed" -eq 0 ] || cat "$LOG/end.out"
LOG=$TOP
echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
