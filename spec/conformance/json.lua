-- Tiny JSON encoder for the conformance cases (kept local so the suite does
-- not depend on kfjob's own JSON code). Object keys are sorted so the output
-- is deterministic; a table is an array only when its keys are exactly 1..n
-- with n > 0, so `{}` (e.g. an empty RunPolicy) stays an object. Integers and
-- floats stay distinct (`2` vs `0.5`) because the reference cares.
local encode

local function str(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return ({ ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\t'] = '\\t' })[c]
      or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function num(n)
  -- 5.1, 5.2 and LuaJIT have no integer subtype: integral numbers are integers
  if math.type then
    if math.type(n) == "integer" then return string.format("%d", n) end
  elseif n == math.floor(n) and math.abs(n) < 2 ^ 53 then
    return string.format("%d", n)
  end
  assert(n == n and n ~= math.huge and n ~= -math.huge, "json: non-finite number")
  for p = 1, 17 do -- shortest decimal that reads back as the same double
    local s = string.format("%." .. p .. "g", n)
    if tonumber(s) == n then return s end
  end
end

function encode(v)
  local t = type(v)
  if t == "string" then return str(v)
  elseif t == "number" then return num(v)
  elseif t == "boolean" then return tostring(v)
  elseif t ~= "table" then error("json: cannot encode " .. t) end
  local n, count = #v, 0
  for _ in pairs(v) do count = count + 1 end
  local out = {}
  if n > 0 and n == count then
    for i = 1, n do out[i] = encode(v[i]) end
    return "[" .. table.concat(out, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do
    assert(type(k) == "string", "json: mixed or non-string table keys")
    keys[#keys + 1] = k
  end
  table.sort(keys)
  for i, k in ipairs(keys) do out[i] = str(k) .. ":" .. encode(v[k]) end
  return "{" .. table.concat(out, ",") .. "}"
end

return encode
