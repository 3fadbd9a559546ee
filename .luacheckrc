-- The module's Lua code, the specs and the examples run on Lua 5.1, 5.2,
-- 5.3, 5.4 and LuaJIT: only the globals all of them share ("min"), plus
-- the few that exist on some versions and are tested before use
-- (`setfenv and ...`, `math.type or ...`; see lua/kfjob/template/util.lua).
std = "min"
read_globals = {
  "setfenv", "rawlen", "unpack", "newproxy", "jit",
  math = { fields = { "type", "tointeger", "mininteger" } },
  table = { fields = { "unpack" } },
  coroutine = { fields = { "close" } },
}
-- specs quote whole messages: long lines are theirs
files["spec/**/*.lua"] = { std = "+busted", max_line_length = false }
-- config scripts read the CLI's --set values from the global `params`
files["examples/sweep.lua"] = { read_globals = { "params" } }
-- an OpenResty content handler: `ngx` is its API (stubbed as plain Lua)
files["examples/openresty.lua"] = { read_globals = { "ngx" } }
-- the definition file's signature tables: one row per function, as LuaCATS prints it
files["lua/kfjob/meta.lua"] = { max_line_length = false }
