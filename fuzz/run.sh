#!/bin/bash
# Build and run the libFuzzer targets of fuzz/ (issue 7).
#
#   fuzz/run.sh [-t SECONDS] [-j JOBS] [TARGET...]   fuzz each target for SECONDS
#   fuzz/run.sh --replay [TARGET...]                 run the regressions and seeds once
#   fuzz/run.sh --build                              only build
#   fuzz/run.sh --nightly [-t SECONDS] [TARGET...]   inputs up to 1 MiB
#   fuzz/run.sh --max-len BYTES ...                  inputs up to BYTES
#
# The short runs cap inputs at 4096 bytes (fast, many executions); the
# nightly-size mode (--nightly, or KFJOB_FUZZ_MAX_LEN) lets inputs grow to
# 1 MiB, large enough to reach every decoder's depth and size limit
# (100 nested messages, 64 JSON levels, 1 MiB strings).  A nightly job:
#   fuzz/run.sh --nightly -t 3600 -j 2
#
# Targets: decode from_json decode_task_template decode_task_spec spec qty yaml_read from_manifest (default: all).
# Long runs, e.g. an hour per target on 2 cores:
#   fuzz/run.sh -t 3600 -j 2
# The tests run the short form: fuzz/run.sh --replay, then 15 s per target.
#
# Builds with clang and -Werror into $KFJOB_FUZZ_BUILD (default build-fuzz;
# KFJOB_FUZZ_BUILD_JOBS compile jobs, default nproc).  The growing
# corpus goes to $KFJOB_FUZZ_OUT/corpus/<target> (default fuzz/out, ignored
# by git), seeded read-only from fuzz/corpus/<target>; crashes go to
# $KFJOB_FUZZ_OUT/crashes/<target>/.  A crash becomes a regression test by
# copying the file to fuzz/regressions/<target>/<what-it-is> (replayed by
# every test run); KFJOB_FUZZ_VERBOSE=1 fuzz/run.sh --replay shows what each
# input does.  After a long run, `fuzz/run.sh --merge` folds the new corpus
# into fuzz/corpus/ (minimized; review the diff before committing).
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${KFJOB_FUZZ_BUILD:-build-fuzz}
OUT=${KFJOB_FUZZ_OUT:-fuzz/out}
ALL="decode from_json decode_task_template decode_task_spec spec qty yaml_read from_manifest"
SECS=60
JOBS=1
MAXLEN=${KFJOB_FUZZ_MAX_LEN:-4096}
MODE=fuzz
TARGETS=""
while [ $# -gt 0 ]; do
  case $1 in
    -t) SECS=$2; shift ;;
    -j) JOBS=$2; shift ;;
    --replay) MODE=replay ;;
    --build) MODE=build ;;
    --merge) MODE=merge ;;
    --nightly) MAXLEN=1048576 ;;
    --max-len) MAXLEN=$2; shift ;;
    -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
    *) TARGETS="$TARGETS $1" ;;
  esac
  shift
done
TARGETS=${TARGETS:-$ALL}

build() {
  command -v clang >/dev/null || { echo "fuzz/run.sh: clang not found" >&2; return 1; }
  # (re)configure every time: new source files are globbed at configure time
  # -Werror: a new compiler warning fails the fuzz build as it fails CI's
  CC=clang cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKFJOB_FUZZ=ON -DKFJOB_WERROR=ON \
    -DKFJOB_TESTS=OFF -DKFJOB_HOST=OFF >/dev/null || return 1
  cmake --build "$BUILD" -j"${KFJOB_FUZZ_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}" --target kfjob_fuzzers \
    >"$BUILD/fuzz-build.log" 2>&1 || { tail -30 "$BUILD/fuzz-build.log"; return 1; }
}

dict_for() {
  case $1 in
    from_json|decode_task_template|decode_task_spec) echo "-dict=fuzz/dict/json.dict" ;;
    yaml_read|from_manifest) echo "-dict=fuzz/dict/yaml.dict" ;;
  esac
}

build || exit 1
[ "$MODE" = build ] && exit 0

rc=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for t in $TARGETS; do
  bin=$BUILD/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz/run.sh: no target $t" >&2; rc=1; continue; }
  case $MODE in
    replay)
      files=$(ls -d fuzz/regressions/"$t"/* fuzz/corpus/"$t"/* 2>/dev/null)
      n=$(echo "$files" | grep -c . || true)
      # shellcheck disable=SC2086
      if [ "$n" -gt 0 ] && ! "$bin" -runs=1 $files >"$TMP/replay.log" 2>&1; then
        echo "FAILED replay $t:"
        grep -E "Running: |property|runtime error|ERROR: " "$TMP/replay.log" |
          grep -B1 -E "property|runtime error|ERROR: " | head -20
        rc=1
      else
        echo "ok replay $t ($n inputs)"
      fi
      ;;
    merge)
      mkdir -p "$OUT/corpus/$t" "$OUT/merged/$t"
      # shellcheck disable=SC2046
      "$bin" -merge=1 "$OUT/merged/$t" fuzz/corpus/"$t" "$OUT/corpus/$t" $(dict_for "$t") >/dev/null 2>&1 &&
        echo "merged $t: $(ls "$OUT/merged/$t" | wc -l) files in $OUT/merged/$t (copy the new ones to fuzz/corpus/$t)"
      ;;
    fuzz)
      mkdir -p "$OUT/corpus/$t" "$OUT/crashes/$t"
      # -timeout (wall-clock seconds per input) only catches an input that
      # hangs: far above what the slowest input needs under ASan on a busy
      # machine (docs/RELIABILITY.md, "Time in tests"); replays use
      # libFuzzer's default, 1200 s
      # shellcheck disable=SC2046
      "$bin" "$OUT/corpus/$t" fuzz/corpus/"$t" $(dict_for "$t") \
        -max_total_time="$SECS" -max_len="$MAXLEN" -timeout=600 -rss_limit_mb=2048 \
        -artifact_prefix="$OUT/crashes/$t/" -print_final_stats=1 \
        $([ "$JOBS" -gt 1 ] && echo "-jobs=$JOBS -workers=$JOBS") \
        >"$OUT/$t.log" 2>&1
      status=$?
      stats=$(grep -E "^stat::number_of_executed_units|DONE" "$OUT/$t.log" | tail -1)
      if [ $status -ne 0 ] || ls "$OUT/crashes/$t"/* >/dev/null 2>&1; then
        echo "FAILED fuzz $t (${SECS}s): $(ls "$OUT/crashes/$t" 2>/dev/null | tr '\n' ' ')"
        grep -E "property|ERROR|SUMMARY|runtime error" "$OUT/$t.log" | head -10
        echo "  reproduce: $bin $OUT/crashes/$t/<file>; keep it: cp it to fuzz/regressions/$t/<name>"
        rc=1
      else
        echo "ok fuzz $t (${SECS}s, inputs up to $MAXLEN bytes) ${stats}"
      fi
      ;;
  esac
done
exit $rc
