-- Helpers shared by the specs.
local M = {}

-- The message of the error f(...) raises, without luaL_where's "file:line: ".
function M.error_of(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "expected an error")
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

-- {key = {key = ...}}: n tables in all.
function M.nest(n, key)
  local root = {}
  local t = root
  for _ = 2, n do
    t[key] = {}
    t = t[key]
  end
  return root
end

return M
