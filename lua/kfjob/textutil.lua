-- kfjob.textutil: what the generators from the rows (meta.lua, schema.lua,
-- explain.lua, convert.lua) share to write text: a table's keys in a
-- stable order, and a string as a JSON string.  Lua 5.1-5.4.
local sort = table.sort

local M = {}

-- The keys of `t`, sorted (by `cmp` when given), so output never depends
-- on the order pairs() happens to give.
function M.sorted_keys(t, cmp)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  sort(ks, cmp)
  return ks
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
