# shellcheck shell=bash
# The rockspec installs offline for every supported Lua and the module then
# loads from any directory.  Installs into temporary trees, not the system.
# LuaJIT: LuaRocks' Lua 5.1 with LuaJIT's headers (LUA_INCDIR; CMake sees
# luajit.h there and builds for LuaJIT).
# One build.luarocks/ for all of them, 5.4 first, as in a checkout where a
# user installs the command and then the module for OpenResty: LuaRocks keeps
# that directory, and a version cached there once broke every later one.
stage "luarocks make (rockspec/kfjob-scm-1.rockspec): Lua 5.1, 5.2, 5.3, 5.4, LuaJIT"
rocks_check() {
  local v=$1 interp=$2 tree="$LOG/rocks-$1-$2" out="$LOG/rocks.out" abi=$1
  shift 2
  luarocks --lua-version "$abi" --tree "$tree" make rockspec/kfjob-scm-1.rockspec "$@" >"$out" 2>&1 ||
    { cat "$out"; rm -rf build.luarocks; return 1; }
  # the rock builds Release without -Werror: a compiler warning fails here
  if grep -E "warning:" "$out"; then return 1; fi
  (cd / && LUA_PATH="$tree/share/lua/$abi/?.lua;$tree/share/lua/$abi/?/init.lua;;" \
           LUA_CPATH="$tree/lib/lua/$abi/?.so;;" \
           "$interp" -e 'local k = require "kfjob"; local t = require "kfjob.template"
             assert(k.TFJob{worker = {replicas = 1}}:encode() ~= "")
             assert(t.render("${a}", {a = 1}) == "1")
             print("kfjob " .. k._VERSION .. " loads from / on " .. (jit and jit.version or _VERSION))')
}
rm -rf build.luarocks
for rocks_v in 5.4 5.1 5.2 5.3; do
  check "luarocks --lua-version $rocks_v make + require from another directory" \
    rocks_check "$rocks_v" "lua$rocks_v"
done
check "luarocks --lua-version 5.1 make (LuaJIT headers) + require from luajit" \
  rocks_check 5.1 luajit LUA_INCDIR=/usr/include/luajit-2.1

# The rock with Lua 5.4 also installs the kfjob command; `luarocks test`
# runs busted (no download: the rockspec names no test dependency) against
# what it installed; scripts/release.sh packs the source rock offline and
# `luarocks build` of that .src.rock installs module and command again.
rocks_cli_check() {
  local tree="$LOG/rocks-cli" out="$LOG/rocks-cli.out"
  luarocks --lua-version 5.4 --tree "$tree" make rockspec/kfjob-scm-1.rockspec >"$out" 2>&1 ||
    { cat "$out"; rm -rf build.luarocks; return 1; }
  rm -rf build.luarocks
  "$tree/bin/kfjob" --version | grep -q "^kfjob " || { echo "no kfjob command in $tree/bin"; return 1; }
  echo 'return require("kfjob").TFJob{worker = {replicas = 2}}' |
    "$tree/bin/kfjob" check - | grep -q "^Summary: 1 job found, 1 valid" || return 1
  (eval "$(luarocks --lua-version 5.4 --tree "$tree" path)" &&
     luarocks --lua-version 5.4 --tree "$tree" test rockspec/kfjob-scm-1.rockspec -- \
       spec/template_count_spec.lua spec/cli_daily_spec.lua) >"$out" 2>&1 ||
    { cat "$out"; return 1; }
  grep -q "KFJOB_CLI='$tree/bin/kfjob' busted --lua=" "$out" || { cat "$out"; return 1; }
  grep -qE "^[0-9]+ successes / 0 failures / 0 errors" "$out" || { cat "$out"; return 1; }
}
check "luarocks --lua-version 5.4 make: module and kfjob command; luarocks test offline" \
  rocks_cli_check

rocks_pack_check() {
  local dist="$LOG/dist" tree="$LOG/rocks-src" out="$LOG/rocks-pack.out" ref
  ref=$(git symbolic-ref -q --short HEAD || true)
  [ -n "$ref" ] || { echo "(detached HEAD: packing the tag v0.1.0)"; ref=v0.1.0; }
  KFJOB_DIST="$dist" scripts/release.sh "$ref" >"$out" 2>&1 || { cat "$out"; return 1; }
  (cd "$LOG" && luarocks --lua-version 5.4 --tree "$tree" build "$dist"/kfjob-*-1.src.rock) \
    >"$out" 2>&1 || { cat "$out"; return 1; }
  "$tree/bin/kfjob" --version | grep -q "^kfjob " &&
    (cd / && LUA_CPATH="$tree/lib/lua/5.4/?.so;;" lua5.4 -e 'assert(require("kfjob").TFJob)')
}
check "scripts/release.sh: luarocks pack offline, luarocks build of the .src.rock" \
  rocks_pack_check
