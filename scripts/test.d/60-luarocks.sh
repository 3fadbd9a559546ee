# shellcheck shell=bash
# The rockspec installs offline and the module then loads from any
# directory.  Installs into a temporary tree, not the system.
stage "luarocks make (rockspec/kfjob-scm-1.rockspec)"
rocks_check() {
  local tree="$LOG/rocks" out="$LOG/rocks.out"
  luarocks --lua-version 5.4 --tree "$tree" make rockspec/kfjob-scm-1.rockspec >"$out" 2>&1 || { cat "$out"; return 1; }
  rm -rf build.luarocks
  (cd / && LUA_PATH="$tree/share/lua/5.4/?.lua;$tree/share/lua/5.4/?/init.lua;;" \
           LUA_CPATH="$tree/lib/lua/5.4/?.so;;" \
           lua5.4 -e 'local k = require "kfjob"; local t = require "kfjob.template"
             assert(k.TFJob{worker = {replicas = 1}}:encode() ~= "")
             assert(t.render("${a}", {a = 1}) == "1")
             print("kfjob " .. k._VERSION .. " loads from /")')
}
check "luarocks make + require from another directory" rocks_check
