-- kfjob.textutil: what the generators from the rows (meta.lua, schema.lua,
-- explain.lua, convert.lua) and the template layer share to write text: a
-- table's keys in a stable order, a string as a JSON string or a Lua
-- literal.  Lua 5.1-5.4.
local sort = table.sort

local M = {}

-- The keys of `t` (only those with keep(k, v) true, when `keep` is given),
-- sorted (by `cmp` when given), so output never depends on the order
-- pairs() happens to give.
function M.sorted_keys(t, cmp, keep)
  local ks = {}
  for k, v in pairs(t) do
    if not keep or keep(k, v) then ks[#ks + 1] = k end
  end
  sort(ks, cmp)
  return ks
end

-- A sort order for keys of mixed types: by their text.
function M.by_text(a, b) return tostring(a) < tostring(b) end

-- A sort order for keys of mixed types: by type name, then strings and
-- numbers by value, others by their text.
function M.by_type(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta < tb end
  if ta == "string" or ta == "number" then return a < b end
  return tostring(a) < tostring(b)
end

-- `s` as a Lua string literal: %q, its escaped newline written \n.
function M.lua_string(s)
  return (("%q"):format(s):gsub("\\\n", "\\n"))
end

local ESCAPE = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r" }

-- `s` as a JSON string: quote, backslash, newline, tab and CR by name, every
-- other control character as \u00XX; other bytes as they are (UTF-8).
function M.json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return ESCAPE[c] or ("\\u%04x"):format(c:byte())
  end) .. '"'
end

return M
