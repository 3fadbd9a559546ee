-- A tiny protobuf writer for specs that spell expected bytes out by hand,
-- so each test shows the message layout it pins down.
local M = {}

function M.varint(n)
  local out = {}
  repeat
    local b = n & 0x7f
    n = n >> 7
    out[#out + 1] = string.char(n ~= 0 and b | 0x80 or b)
  until n == 0
  return table.concat(out)
end

-- int(field, value): a varint field.
function M.int(field, v) return M.varint(field << 3) .. M.varint(v) end

-- msg(field, ...): a length-delimited field whose payload is the
-- concatenation of the remaining arguments.
function M.msg(field, ...)
  local body = table.concat({ ... })
  return M.varint(field << 3 | 2) .. M.varint(#body) .. body
end

function M.hex(s)
  return (s:gsub(".", function(c) return ("%02x"):format(c:byte()) end))
end

return M
