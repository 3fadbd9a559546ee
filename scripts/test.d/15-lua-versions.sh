# shellcheck shell=bash
# 15-lua-versions.sh - sourced by scripts/test.sh.
#
# The Lua module on Lua 5.1, 5.2, 5.3 and LuaJIT 2.1 (5.4 is the main
# build): for each, a module built for that version (-DKFJOB_LUA=X in
# build-luaX/) and the whole busted suite run by that interpreter
# (busted --lua=X; Debian's lua-busted and its dependencies install their
# modules for every Lua version, and LuaJIT reads 5.1's).  The busted counts
# go into the totals; specs that only Lua 5.4 can run (the CLI) are pending
# with a message naming the version.
#
# Unless KFJOB_QUICK=1, also the allocation-failure harness (test/alloc)
# built against Lua 5.1 (every allocation point of every scenario) and
# LuaJIT (every scenario but template.variants, pure Lua, where LuaJIT 2.1
# itself crashes while unwinding some allocation failures; frees with a
# wrong old size, which LuaJIT's parser makes after a failure, are
# tolerated: KFJOB_ALLOCFAIL_LAX_OSIZE).
# valgrind runs on build-lua5.1/ in 30-valgrind.sh, ASan on 5.1 and LuaJIT
# in 20-asan.sh.  A LuaJIT run that dies without a summary is reported with
# its stack (from a core file, when the kernel writes one) and run once
# more, unless the stack has a frame of kfjob's.
lua_version_stage() {
  local v=$1 interp=$2 dir=build-lua$1 out="$LOG/busted-$1.out" targets=kfjob_module
  [ "$v" = luajit ] && dir=build-luajit
  case $v in 5.1|luajit) targets="kfjob_module kfjob_allocfail" ;; esac
  stage "Lua $v: build ($dir) and busted --lua=$interp"
  lv_build() {
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKFJOB_WERROR=ON -DKFJOB_LUA="$v" >/dev/null &&
      # shellcheck disable=SC2086
      cmake --build "$dir" -j"$JOBS" --target $targets
  }
  if ! check "Lua $v: build the module (-DKFJOB_LUA=$v)" lv_build; then return; fi
  lv_run() {
    rm -f "$ROOT"/core "$ROOT"/core.[0-9]*
    (ulimit -c unlimited 2>/dev/null
     exec busted --lua="$interp" --cpath="$ROOT/$dir/?.so" -o utfTerminal spec) >"$out" 2>&1
    lv_rc=$?
  }
  lv_run
  # LuaJIT 2.1 now and then faults inside its own VM (one run in a few
  # dozen; reruns of the same build pass).  A run that dies without a
  # summary is said, with the spec it was in and the crash's stack when
  # the kernel wrote a core; it runs once more unless that stack shows a
  # frame of kfjob's (then it stays a failure).
  if [ "$v" = luajit ] && [ "$lv_rc" -ge 128 ] && ! grep -qaE '[0-9]+ success(es)? / ' "$out"; then
    echo "(Lua luajit: the busted run died, signal $((lv_rc - 128)); last lines:)"
    tail -4 "$out" | cut -c1-200
    lv_core=$(ls -t "$ROOT"/core "$ROOT"/core.[0-9]* 2>/dev/null | head -1)
    lv_bt=""
    if [ -n "$lv_core" ] && command -v gdb >/dev/null; then
      lv_bt=$(gdb -batch -ex bt "$(command -v "$interp")" "$lv_core" 2>/dev/null | grep -E '^#[0-9]+' | awk '!seen[$0]++' | head -20)
      echo "$lv_bt"
    else
      echo "(no core file: the stack is not known)"
    fi
    rm -f "$lv_core"
    if ! printf '%s\n' "$lv_bt" | kfjob_frame; then
      echo "(no kfjob frame: run again)"
      lv_run
    fi
  fi
  grep -aE '[0-9]+ success(es)? / ' "$out" | tail -1
  count_busted "$out"
  [ "${KFJOB_QUICK:-0}" = 1 ] && return
  case $v in
    5.1)
      check "Lua 5.1: allocation-failure harness (every point)" \
        "$dir/kfjob_allocfail" test/alloc/scenarios.lua ;;
    luajit)
      lj_allocfail() {
        local n bad=0
        while IFS= read -r n; do
          [ "$n" = "template.variants" ] && continue
          KFJOB_ALLOCFAIL_LAX_OSIZE=1 "$dir/kfjob_allocfail" test/alloc/scenarios.lua \
            -only "$n" >"$LOG/lj_alloc.out" 2>&1 || { bad=1; tail -5 "$LOG/lj_alloc.out"; }
        done < <("$dir/kfjob_allocfail" test/alloc/scenarios.lua -list 2>/dev/null)
        return $bad
      }
      check "LuaJIT: allocation-failure harness (every point, all scenarios but template.variants)" \
        lj_allocfail ;;
  esac
}
lua_version_stage 5.1 lua5.1
lua_version_stage 5.2 lua5.2
lua_version_stage 5.3 lua5.3
lua_version_stage luajit luajit
