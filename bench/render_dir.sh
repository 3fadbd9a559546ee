#!/bin/sh
# `kfjob render` of a 100 000-variant sweep to -o DIR against the same render
# to stdout (issue 13's last target, <= 2x), wall time of one run each:
#
#   bench/render_dir.sh [--quick] [KFJOB]   (KFJOB default $KFJOB_BUILD/kfjob)
#
# stdout to /dev/null and to a file; -o into an empty directory (every name
# new: created in place), the file system's floor for the same files
# (bench/fs_floor.c, built with $CC: a bare C loop creating them) and how far
# the empty-directory render is above it; then -o again into that directory
# (every name exists with the same content: read and left as it is, the
# list rewritten).  --quick: 1 000 variants.
# Called by bench/run.sh in its timed mode.  The files go under $TMPDIR.
set -eu
N=100000
[ "${1:-}" = --quick ] && { N=1000; shift; }
KF=${1:-${KFJOB_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}/kfjob}
[ -x "$KF" ] || { echo "render.dir skip: no kfjob binary at $KF"; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/kfjob-render-dir.XXXXXX")
trap 'rm -rf "$T"' EXIT
B=$((N / 100))
cat >"$T/sweep.lua" <<LUA
-- $N variants: 100 backoff limits x $B worker counts
local kfjob, template = require "kfjob", require "kfjob.template"
local function axis(n) local t = {} for i = 1, n do t[i] = i end return t end
local base = kfjob.PyTorchJob{ master = { image = "img:1" }, worker = { image = "img:1" } }
return template.variants(base,
  { ["worker.replicas"] = axis($B), ["run_policy.backoff_limit"] = axis(100) },
  { name = "j-\${worker.replicas}-\${run_policy.backoff_limit}" })
LUA
now() { date +%s.%N; }
run() {   # label, then the command; prints and records the seconds
  t0=$(now); "$@"; t1=$(now)
  s=$(awk "BEGIN { print $t1 - $t0 }")
  printf 'render.%-16s %8d variants %7.2f s\n' "$LABEL" "$N" "$s"
  eval "T_$KEY=$s"
}
# Dirty pages of one step are flushed before the next (sync of $TMPDIR's
# file system; nothing on tmpfs), so no step pays for the previous one's
# writeback.
settle() { sync -f "$T" 2>/dev/null || sync; }
LABEL=stdout-null KEY=null run sh -c '"$1" render "$2" >/dev/null' - "$KF" "$T/sweep.lua"
LABEL=stdout-file KEY=file run sh -c '"$1" render "$2" >"$3"' - "$KF" "$T/sweep.lua" "$T/out.jsonl"
settle
LABEL=dir-empty KEY=fresh run "$KF" render "$T/sweep.lua" -o "$T/d" --no-progress 2>/dev/null
n=$(find "$T/d" -name '*.json' | wc -l)
[ "$n" -eq "$N" ] || { echo "render.dir: $n files, expected $N" >&2; exit 1; }
# The file system's floor, right after: the same names and sizes created by
# a bare C loop (open O_CREAT|O_EXCL, write, close) in a fresh directory.
settle
CC=${CC:-cc}
fl=
if command -v "$CC" >/dev/null 2>&1 &&
   "$CC" -O2 -o "$T/fs_floor" "$(dirname "$0")/fs_floor.c" 2>/dev/null; then
  out=$("$T/fs_floor" "$T/d" "$T/floor")   # "<files> <seconds>"
  fl=${out#* }
  printf 'render.%-16s %8d files    %7.2f s\n' fs-floor "${out%% *}" "$fl"
else
  echo "render.fs-floor skip: no C compiler ($CC)"
fi
settle
LABEL=dir-again KEY=again run "$KF" render "$T/sweep.lua" -o "$T/d" --no-progress 2>/dev/null
# shellcheck disable=SC2154  # T_* are set by run through eval
{
  awk -v f="$T_fresh" -v a="$T_again" -v s="$T_file" -v fl="$fl" 'BEGIN {
    printf "target render -o DIR (empty) vs stdout to a file <= 2x: %.2fx %s\n", f / s, f / s <= 2 ? "met" : "MISSED"
    printf "target render -o DIR (previous render) vs stdout to a file <= 2x: %.2fx %s\n", a / s, a / s <= 2 ? "met" : "MISSED"
    if (fl != "") printf "render -o DIR (empty) vs the fs floor (bare create+write+close): %.2fx\n", f / fl }'
}
