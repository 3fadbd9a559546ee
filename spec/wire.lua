-- A tiny protobuf writer for specs that spell expected bytes out by hand,
-- so each test shows the message layout it pins down.
local M = {}

-- A varint of an integer (negative ones as 64-bit two's complement, as
-- protobuf writes int32/int64).  Arithmetic on the two 32-bit halves, so it
-- is exact on every Lua version, doubles included (|n| < 2^53).
local TWO32 = 2 ^ 32
function M.varint(n)
  local lo, hi = n % TWO32, math.floor(n / TWO32) % TWO32
  local out = {}
  repeat
    local b = lo % 128
    lo = (lo - b) / 128 + (hi % 128) * 2 ^ 25
    hi = math.floor(hi / 128)
    out[#out + 1] = string.char(b + ((lo ~= 0 or hi ~= 0) and 128 or 0))
  until lo == 0 and hi == 0
  return table.concat(out)
end

-- int(field, value): a varint field.
function M.int(field, v) return M.varint(field * 8) .. M.varint(v) end

-- msg(field, ...): a length-delimited field whose payload is the
-- concatenation of the remaining arguments.
function M.msg(field, ...)
  local body = table.concat({ ... })
  return M.varint(field * 8 + 2) .. M.varint(#body) .. body
end

function M.hex(s)
  return (s:gsub(".", function(c) return ("%02x"):format(c:byte()) end))
end

return M
