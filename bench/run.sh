#!/bin/sh
# shellcheck disable=SC2086  # $QUICK $EXTRA $GEN_SRCS ... are word lists on purpose
# kfjob benchmarks: one command, builds what it needs, prints every figure
# and the targets table.  See bench/README.md.
#
#   bench/run.sh               timed run (~1 min): ns/op, ratios, PASS/MISS, then
#                              bench/render_dir.sh (kfjob render -o DIR vs stdout)
#   bench/run.sh --quick       smoke run: tiny iteration counts, meaningless figures
#   bench/run.sh --callgrind   instruction counts per op (valgrind), same tables;
#                              without --only, a short timed pass adds the time
#                              targets (flytekit's path, the 1M named sweep)
#   options: --rounds R (default 7)  --ms T (ms per benchmark round, default 20)
#            --no-build (use the existing build; bench/smoke.sh passes it)
#            --only W1,W2 (benchmarks whose name contains a word, plus their baselines)
#   env: KFJOB_BUILD (build dir, default ./build), CC, PYTHON (default /usr/bin/python3)
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${KFJOB_BUILD:-$ROOT/build}
PY=${PYTHON:-/usr/bin/python3}
CC=${CC:-cc}
LUA=${LUA:-lua5.4}
MODE=timed
QUICK=
EXTRA=
NOBUILD=
ONLY=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=--quick ;;
    --callgrind) MODE=callgrind ;;
    --no-build) NOBUILD=1 ;;
    --rounds|--ms) EXTRA="$EXTRA $1 $2"; shift ;;
    --only) ONLY=$2; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# ---- build: the module (CMake) and the floor module (plain cc) ----------
if [ -z "$NOBUILD" ] || [ ! -f "$BUILD/kfjob.so" ]; then
  mkdir -p "$BUILD"; LOG=$BUILD/bench-cmake.log
  # (re)configure: the sources are globbed at configure time
  cmake -S "$ROOT" -B "$BUILD" >"$LOG" 2>&1 ||
    { cat "$LOG" >&2; exit 1; }
  cmake --build "$BUILD" -j2 --target kfjob_module kfjob_cli >"$LOG" 2>&1 ||
    { cat "$LOG" >&2; exit 1; }
  rm -f "$LOG"
fi
BB=$BUILD/bench
mkdir -p "$BB"
GEN_SRCS=$(find "$BUILD/gen" -name '*.pb-c.c' | sort)
LUA_CFLAGS=$(pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)
PBC_FLAGS=$(pkg-config --cflags --libs libprotobuf-c 2>/dev/null || echo -lprotobuf-c)
if [ ! -f "$BB/kfbench.so" ] || [ -n "$(find "$ROOT/bench/floor.c" $GEN_SRCS -newer "$BB/kfbench.so")" ]; then
  # -O2 as the module's default RelWithDebInfo build
  $CC -O2 -g -fPIC -shared -fvisibility=hidden -Wall -Wno-deprecated-declarations \
      $LUA_CFLAGS -I"$BUILD/gen" "$ROOT/bench/floor.c" $GEN_SRCS $PBC_FLAGS -o "$BB/kfbench.so"
  $CC -O2 -fPIC -shared -DKFBENCH_NO_LUA "$ROOT/bench/floor.c" -o "$BB/cgctl.so"
fi
export KFJOB_BUILD="$BUILD" KFBENCH_DIR="$BB"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/kfjob-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

py_selected() {   # with --only, python runs only when a py.* benchmark is asked for
  [ -z "$ONLY" ] && return 0
  pys="py.build_serialize py.build_dict py.flytekit_template"
  echo "$ONLY" | tr ',' '\n' | while read -r w; do
    case "$pys" in *"$w"*) echo y ;; esac
  done | grep -q y
}
have_py() {
  command -v protoc >/dev/null 2>&1 && [ -x "$PY" ] &&
    "$PY" -c 'import google.protobuf' >/dev/null 2>&1
}

# ---- header --------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
echo "kfjob benchmark ($MODE${QUICK:+, quick}) $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: ${cpu:-unknown cpu}, $(nproc) cpu(s), $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "kfjob: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" status --porcelain 2>/dev/null | grep -q . && echo ' (dirty tree)'), $($LUA -v 2>&1 | cut -d' ' -f1-2), $($CC --version | head -1), protobuf-c $(pkg-config --modversion libprotobuf-c 2>/dev/null || echo '?')"

if [ "$MODE" = timed ]; then
  # Python runs beside the Lua process, one round after each of kfjob's rounds
  SERVE=
  if ! py_selected; then
    echo "skip not selected by --only" > "$TMP/py.txt"
  elif have_py; then
    : > "$TMP/py.txt"
    SERVE="$PY $ROOT/bench/pyref.py --proto $ROOT/proto $QUICK $EXTRA"
  else
    echo "skip python3-protobuf or protoc not found ($PY)" > "$TMP/py.txt"
  fi
  "$LUA" "$ROOT/bench/bench.lua" --py "$TMP/py.txt" ${SERVE:+--py-serve "$SERVE"} \
      $QUICK $EXTRA ${ONLY:+--only "$ONLY"}
  # the CLI's render to -o DIR vs stdout (its own script: files, not ops)
  case ",$ONLY," in ,,|*render*) sh "$ROOT/bench/render_dir.sh" $QUICK "$BUILD/kfjob" ;; esac
  exit 0
fi

# ---- callgrind -----------------------------------------------------------
command -v valgrind >/dev/null 2>&1 || { echo "run.sh: valgrind not found" >&2; exit 2; }
CG=$(mktemp -d "${TMPDIR:-/tmp}/kfjob-callgrind.XXXXXX")
VG="valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=$CG/cg.%p"
$VG "$LUA" "$ROOT/bench/bench.lua" --cg-run "$CG" $QUICK ${ONLY:+--only "$ONLY"} 2>"$CG/valgrind-lua.log" ||
  { tail -20 "$CG/valgrind-lua.log" >&2; exit 1; }
if py_selected && have_py; then
  N=300; [ -n "$QUICK" ] && N=3
  $VG "$PY" "$ROOT/bench/pyref.py" --proto "$ROOT/proto" --cg "$BB/cgctl.so" $N \
      >>"$CG/counts" 2>"$CG/valgrind-py.log" ||
    { tail -20 "$CG/valgrind-py.log" >&2; exit 1; }
fi
# the time targets (flytekit's path, the 1M named sweep's rate and memory):
# a short timed pass outside valgrind, read by the report
if [ -z "$QUICK" ] && [ -z "$ONLY" ]; then
  SERVE=
  if have_py; then
    SERVE="$PY $ROOT/bench/pyref.py --proto $ROOT/proto"
  fi
  "$LUA" "$ROOT/bench/bench.lua" ${SERVE:+--py-serve "$SERVE"} --rounds 5 \
      --only W.kfjob.table_construct_task_template,py.flytekit_template,W.sweep.named.1M \
      --save "$CG/timed" >"$CG/timed.log" 2>&1 ||
    { tail -20 "$CG/timed.log" >&2; exit 1; }
fi
"$LUA" "$ROOT/bench/bench.lua" --cg-report "$CG"
echo "(callgrind dumps kept in $CG: callgrind_annotate $CG/cg.<pid>.<n>)"
