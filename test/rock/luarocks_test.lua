-- `luarocks test`: the busted suite with the Lua that LuaRocks runs this
-- script with, against the module and the `kfjob` command LuaRocks
-- installed.  busted is whatever is on PATH (Debian's lua-busted or a
-- rock): the rockspec lists no test dependency, so nothing is downloaded.
-- LuaRocks runs the script with the interpreter's own paths: for a tree
-- off them (`--tree DIR`), `eval "$(luarocks --tree DIR path)"` first.
-- Without an installed module, busted's own settings (.busted: ./build).
local lua = arg and arg[-1] or "lua"
local sep = package.config:sub(1, 1)

-- the installed module: the first kfjob.so on the interpreter's cpath
local searchpath = rawget(package, "searchpath")   -- 5.2+
local so = searchpath and searchpath("kfjob", package.cpath)
local flags = {}
if so then
  flags[#flags + 1] = "--cpath='" .. so:gsub("kfjob%.so$", "?.so") .. "'"
end
-- the installed command, for the CLI specs: the tree's bin/kfjob beside
-- lib/lua/<version>/kfjob.so, else the one on PATH
local env, cli = ""
local tree = so and so:match("^(.*)" .. sep .. "lib" .. sep .. "lua" .. sep .. "[^" .. sep
                                .. "]+" .. sep .. "kfjob%.so$")
if tree and io.open(tree .. sep .. "bin" .. sep .. "kfjob", "rb") then
  cli = tree .. sep .. "bin" .. sep .. "kfjob"
else
  local p = io.popen("command -v kfjob 2>/dev/null")
  cli = p and p:read("*l")
  if p then p:close() end
end
if cli and cli ~= "" and not os.getenv("KFJOB_CLI") then env = "KFJOB_CLI='" .. cli .. "' " end
for i = 1, select("#", ...) do flags[#flags + 1] = "'" .. select(i, ...) .. "'" end

-- busted starts under its own Lua (5.1 on Debian): LUA_PATH/LUA_CPATH set
-- for another version would hide its modules; --cpath says where kfjob is
local cmd = "env -u LUA_PATH -u LUA_CPATH " .. env .. "busted --lua='" .. lua .. "' " .. table.concat(flags, " ")
io.stderr:write("luarocks test: " .. cmd .. (sep == "/" and "\n" or "\r\n"))
local ok, _, code = os.execute(cmd)
if type(ok) == "number" then code = ok; ok = code == 0 end   -- Lua 5.1
os.exit(ok and 0 or (code or 1))
