# shellcheck shell=bash
# The rockspec installs offline for every supported Lua and the module then
# loads from any directory.  Installs into temporary trees, not the system.
# LuaJIT: LuaRocks' Lua 5.1 with LuaJIT's headers (LUA_INCDIR; CMake sees
# luajit.h there and builds for LuaJIT).
stage "luarocks make (rockspec/kfjob-scm-1.rockspec): Lua 5.1, 5.2, 5.3, 5.4, LuaJIT"
rocks_check() {
  local v=$1 interp=$2 tree="$LOG/rocks-$1-$2" out="$LOG/rocks.out" abi=$1
  shift 2
  luarocks --lua-version "$abi" --tree "$tree" make rockspec/kfjob-scm-1.rockspec "$@" >"$out" 2>&1 ||
    { cat "$out"; rm -rf build.luarocks; return 1; }
  rm -rf build.luarocks
  (cd / && LUA_PATH="$tree/share/lua/$abi/?.lua;$tree/share/lua/$abi/?/init.lua;;" \
           LUA_CPATH="$tree/lib/lua/$abi/?.so;;" \
           "$interp" -e 'local k = require "kfjob"; local t = require "kfjob.template"
             assert(k.TFJob{worker = {replicas = 1}}:encode() ~= "")
             assert(t.render("${a}", {a = 1}) == "1")
             print("kfjob " .. k._VERSION .. " loads from / on " .. (jit and jit.version or _VERSION))')
}
for rocks_v in 5.1 5.2 5.3 5.4; do
  check "luarocks --lua-version $rocks_v make + require from another directory" \
    rocks_check "$rocks_v" "lua$rocks_v"
done
check "luarocks --lua-version 5.1 make (LuaJIT headers) + require from luajit" \
  rocks_check 5.1 luajit LUA_INCDIR=/usr/include/luajit-2.1
