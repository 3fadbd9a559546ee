# shellcheck shell=bash
# scripts/test_report.sh - sourced by scripts/test.sh (and by
# test/report_selftest.sh): the counts of a run and the names of what
# failed.  Each failure is kept as "FAILED: <stage>: <test>" (plus a few
# indented lines saying where), and report_end prints them as the run's
# last lines, just above the closing "N passed, N failed, N skipped" line
# that CI counts, so a red run says what failed without its earlier output.
# Needs LOG (a scratch directory); sets PASSED FAILED SKIPPED STAGE.
PASSED=0
FAILED=0
SKIPPED=0
STAGE=""
: >"$LOG/failed"
: >"$LOG/failed_stages"
stage() { STAGE=$*; echo; echo "=== $* ==="; }
# Keeps a failure's name, and its stage (once) in failed_stages.
note_failed() {
  echo "FAILED: $STAGE: $1" >>"$LOG/failed"
  grep -qxF -- "$STAGE" "$LOG/failed_stages" || echo "$STAGE" >>"$LOG/failed_stages"
}
note_where() { echo "    $1" >>"$LOG/failed"; }
# Counts one failure and keeps its name.
fail_named() { FAILED=$((FAILED + 1)); note_failed "$1"; }
# The lines of a failed command's output that say where (file:line: ...,
# FAIL/FAILED/not ok lines of a harness, sanitizer and valgrind reports and
# the spec file valgrind saw them in), at most $2 of them.
where_lines() {
  sed 's/\x1b\[[0-9;]*m//g; s/^ *//' "$1" |
    grep -aE '^(FAIL|FAILED|not ok)\b|^[^ :]+:[0-9]+:|ERROR: [A-Za-z]+Sanitizer|runtime error:|^--- [^ ]+_spec\.lua \(exit|^==[0-9]+== +(Invalid|Conditional|Use of uninit|Mismatched|[0-9,]+ bytes in)' |
    head -"${2:-3}" | cut -c1-200
}
# Whether the crash stack on stdin (an ASan report, or gdb's `bt`) has a
# frame of kfjob's: LuaJIT 2.1 now and then faults inside its own VM, and
# the LuaJIT stages run such a crash once more only when it has none.
kfjob_frame() {
  grep -qE '^ *#[0-9]+ .*(kfjob\.so|/src/)'
}

# Adds the counts of one busted run (its summary line) to the totals, and
# the name of each failed test ("spec/x_spec.lua @ 12: describe it").
count_busted() {
  local line s f e p
  line=$(grep -aE '[0-9]+ success(es)? / [0-9]+ failures? / [0-9]+ errors?' "$1" | tail -1)
  if [ -z "$line" ]; then
    # its last words (a crash's "Segmentation fault"), without the progress dots
    fail_named "busted run with no summary (a crash?): $(tail -c 400 "$1" | tr '\n' ' ' | sed 's/[●◌◼✱]//g' | tail -c 160)"
    echo "(no busted summary: counted as 1 failure)"; return
  fi
  s=$(echo "$line" | sed -E 's/^([0-9]+) success.*/\1/')
  f=$(echo "$line" | sed -E 's/.* ([0-9]+) failures?.*/\1/')
  e=$(echo "$line" | sed -E 's/.* ([0-9]+) errors?.*/\1/')
  p=$(echo "$line" | sed -nE 's/.* ([0-9]+) pending.*/\1/p')
  PASSED=$((PASSED + s)); FAILED=$((FAILED + f + e)); SKIPPED=$((SKIPPED + ${p:-0}))
  # "Failure → spec/x_spec.lua @ 12" then the test's name, for each one
  [ $((f + e)) -eq 0 ] || grep -aA1 -E '^(Failure|Error) →' "$1" | grep -av '^--$' |
    paste -d'\t' - - | sed -E 's/^(Failure|Error) → //; s/\t/: /' |
    while IFS= read -r t; do note_failed "$t"; done
}
# Adds the counts of one ctest run (ctest --output-on-failure's output in
# $1) and the name of each failed test, with the lines of its output that
# say where (the C harnesses' "FAILED - case", file:line checks).
count_ctest() {
  local t tot fl name
  t=$(grep -aE 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$1" | tail -1)
  if [ -z "$t" ]; then fail_named "ctest printed no summary"; return; fi
  tot=$(echo "$t" | sed -E 's/.*out of ([0-9]+).*/\1/')
  fl=$(echo "$t" | sed -E 's/.*tests passed, ([0-9]+) tests? failed.*/\1/')
  PASSED=$((PASSED + tot - fl)); FAILED=$((FAILED + fl))
  # "  7 - host_api (Failed)" in the list at the end
  grep -aE '^[[:space:]]+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess|Exception|Not Run)' "$1" |
    sed -E 's/^[[:space:]]+[0-9]+ - //' | while IFS= read -r t; do
      note_failed "ctest $t"
      name=${t%% (*}
      # its output: from its "Test #N: name ...***Failed" line to the next test's
      awk -v n="$name" '/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / { on = ($4 == n) ; next }
                        /tests passed, [0-9]+ tests? failed/ { on = 0 } on' "$1" >"$LOG/ctest-one.out"
      # the harness's failed cases first (test_host: "FAILED - time_limit")
      { grep -a '^FAILED - ' "$LOG/ctest-one.out" | head -2
        where_lines "$LOG/ctest-one.out" 4 | grep -av '^FAILED - '; } | head -4 |
        while IFS= read -r w; do note_where "$w"; done
    done
}
# Adds one pass/fail for a whole command; a failure is named with the
# lines of its output that say where.
check() {
  local name=$1; shift
  if "$@" >"$LOG/check.out" 2>&1; then PASSED=$((PASSED + 1)); echo "ok - $name"
  else
    fail_named "$name"; echo "FAILED - $name"; tail -30 "$LOG/check.out"
    where_lines "$LOG/check.out" 3 | while IFS= read -r w; do note_where "$w"; done
    return 1
  fi
}
# The run's last lines: what failed (at most 40 lines, plus the first
# failure of each stage whose failures all fall past them, so a flood in one
# stage does not hide another), then the counts.
report_end() {
  local n total s extra=0
  echo
  if [ "$FAILED" -ne 0 ]; then
    n=$(grep -c '^FAILED: ' "$LOG/failed")
    echo "$FAILED failed ($n named):"
    if [ "$n" -eq 0 ]; then echo "FAILED: (no names recorded)"
    else
      head -40 "$LOG/failed" | tee "$LOG/failed_shown"
      total=$(wc -l <"$LOG/failed")
      if [ "$total" -gt 40 ]; then
        while IFS= read -r s; do
          grep -qF -- "FAILED: $s: " "$LOG/failed_shown" && continue
          grep -m1 -F -- "FAILED: $s: " "$LOG/failed"; extra=$((extra + 1))
        done <"$LOG/failed_stages"
        echo "  ... $((total - 40 - extra)) more lines"
      fi
    fi
  fi
  echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
}
