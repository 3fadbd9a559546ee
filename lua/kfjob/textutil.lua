-- kfjob.textutil: what the generators from the rows (meta.lua, schema.lua,
-- explain.lua, convert.lua) share to write text: a table's keys in a
-- stable order, and a string as a JSON string.  Lua 5.1-5.4.
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

local ESCAPE = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r" }

-- `s` as a JSON string: quote, backslash, newline, tab and CR by name, every
-- other control character as \u00XX; other bytes as they are (UTF-8).
function M.json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return ESCAPE[c] or ("\\u%04x"):format(c:byte())
  end) .. '"'
end

return M
