--- kfjob.template.util: the helpers the parts of `kfjob.template` share
-- (messages, the error marker, copies, hashing, the core module) and
-- `merge`.  Internal: `require "kfjob.template"` is the public module, and
-- the functions of `api` are re-exported there.

local type, ipairs, next, tostring, tonumber, error, pcall, require =
      type, ipairs, next, tostring, tonumber, error, pcall, require
local rawequal, setmetatable = rawequal, setmetatable
local sfind, ssub, sformat, sgsub =
      string.find, string.sub, string.format, string.gsub
local tconcat = table.concat
local floor, huge = math.floor, math.huge
-- Lua 5.1, 5.2 and LuaJIT lack some of these: see "Versions" below.
local rawlen, mtype, mtointeger, setfenv = rawlen, math.type, math.tointeger, setfenv

---------------------------------------------------------------------------
-- Versions: the parts are written in the subset of Lua that 5.1, 5.2, 5.3,
-- 5.4 and LuaJIT share; these helpers stand in for what only some have.
---------------------------------------------------------------------------

-- No global access once a part calls `seal()` after `local _ENV = nil`:
-- 5.2+ get that from `_ENV`, 5.1 and LuaJIT from an environment that
-- refuses every global (setfenv on the calling chunk).
local sealed = setmetatable({}, {
  __index = function(_, k) error("global '" .. tostring(k) .. "' read in kfjob.template", 2) end,
  __newindex = function(_, k) error("global '" .. tostring(k) .. "' set in kfjob.template", 2) end,
})
local function seal()
  if setfenv then setfenv(2, sealed) end   -- 2: the chunk that called seal
end

rawlen = rawlen or function(t) return #t end   -- 5.1 has no __len on tables

-- 2^63: integral numbers below it in magnitude are integers on versions
-- whose numbers are all doubles.
local TWO63 = 2 ^ 63

--- math.tointeger: on 5.1, 5.2 and LuaJIT an integral number (a double)
-- is returned as it is.
local function tointeger(n)
  if mtointeger then return mtointeger(n) end
  if type(n) == "number" and n == floor(n) and n >= -TWO63 and n < TWO63 then
    return n
  end
  return nil
end

--- Whether `n` is an integer: the integer subtype on 5.3+, an integral
-- number in the 64-bit range on versions without one.
local function is_int(n)
  if mtype then return mtype(n) == "integer" end
  return tointeger(n) ~= nil
end

-- An integral value as decimal digits (a double on 5.1 would print 1e+15).
local function int_string(i)
  if mtype then return tostring(i) end
  if i == 0 then return "0" end   -- and -0
  return sformat("%.0f", i)
end

-- No global access past this point; luacheck checks it with `std none`.
local textutil = require "kfjob.textutil"
local keys_sorted, by_type, lua_string = textutil.sorted_keys, textutil.by_type, textutil.lua_string

local _ENV = nil -- luacheck: ignore 211/_ENV
-- luacheck: std none
seal()

local U = { api = {} }
local api = U.api

--- The table of `kfjob.template` itself.  It is made here so that the parts
-- can read `MAX_NAME` from it at call time (a caller may change it).
U.module = {}

local function sorted_keys(t) return keys_sorted(t, by_type) end

---------------------------------------------------------------------------
-- Small helpers
---------------------------------------------------------------------------

-- Numbers print like integers when integral (2.0 -> "2") and otherwise in
-- their shortest round-tripping form.
local function fmt_number(n)
  local i = tointeger(n)
  if i then return int_string(i) end
  if n ~= n then return "nan" end
  if n == huge then return "inf" end
  if n == -huge then return "-inf" end
  -- %g follows the C library's LC_NUMERIC (os.setlocale): whatever the
  -- locale writes for the decimal point becomes ".", which tonumber reads
  -- back in any locale (Lua's own lua_str2number fallback)
  for prec = 14, 17 do
    local s = sgsub(sformat("%." .. prec .. "g", n), "[^%deE+%-]+", ".")
    if tonumber(s) == n then return s end
  end
  return (sgsub(sformat("%.17g", n), "[^%deE+%-]+", "."))
end

local function is_ident(s)
  return type(s) == "string" and sfind(s, "^[%a_][%w_]*$") ~= nil
end

-- Compact, deterministic rendering of a value for messages.
local function describe(v, depth)
  local tv = type(v)
  if tv == "string" then
    return lua_string(v)
  elseif tv == "number" then
    return fmt_number(v)
  elseif tv == "table" then
    depth = (depth or 0) + 1
    if depth > 3 then return "{...}" end
    local parts = {}
    local n = rawlen(v)
    for i = 1, n do parts[#parts + 1] = describe(v[i], depth) end
    for _, k in ipairs(sorted_keys(v)) do
      if not (is_int(k) and k >= 1 and k <= n) then
        local ks = is_ident(k) and k or "[" .. describe(k, depth) .. "]"
        parts[#parts + 1] = ks .. "=" .. describe(v[k], depth)
      end
    end
    return "{" .. tconcat(parts, ", ") .. "}"
  end
  return tostring(v)
end

-- Parameters of a variant, keys sorted: {tag="a", worker.replicas=2}.
local function describe_params(p)
  local parts = {}
  for _, k in ipairs(sorted_keys(p)) do
    local ks = (type(k) == "string" and sfind(k, "^[%w_][%w_%.%-]*$")) and k
               or "[" .. describe(k) .. "]"
    parts[#parts + 1] = ks .. "=" .. describe(p[k])
  end
  return "{" .. tconcat(parts, ", ") .. "}"
end

-- Path of a key stack, for messages: worker.command[2].
local function path_string(stack, n)
  if n == 0 then return "<root>" end
  local out = {}
  for i = 1, n do
    local k = stack[i]
    if is_ident(k) then
      out[#out + 1] = (i > 1 and "." or "") .. k
    elseif is_int(k) then
      out[#out + 1] = "[" .. int_string(k) .. "]"
    elseif type(k) == "string" and i == 1 and sfind(k, "^[%w_][%w_%.%-]*$") then
      out[#out + 1] = k
    else
      out[#out + 1] = "[" .. describe(k) .. "]"
    end
  end
  return tconcat(out)
end

-- Errors raised inside these modules carry a marker table so that the public
-- functions can re-raise them at level 2 with their own prefix, while
-- errors from elsewhere (a metamethod, the core) pass through unchanged.
local Fail = {}
local function throw(msg) error({ [Fail] = msg }, 0) end
local function caught(e)
  if type(e) == "table" and e[Fail] then return e[Fail] end
  return nil
end

-- For the public functions, after a pcall: a marker error is raised again
-- as `prefix .. message` at the caller of the public function (level 3
-- from here), any other error unchanged.  Call it as a statement, never as
-- `return reraise(...)`: a tail call would drop the public function's level.
local function reraise(prefix, e)
  local m = caught(e)
  if m then error(prefix .. m, 3) end
  error(e, 0)
end

-- An error message from elsewhere, without a leading "chunk:line: ".
local function clean_error(e)
  if type(e) ~= "string" then
    local m = caught(e)
    if m then return m end
    return tostring(e)
  end
  return (sgsub(e, "^[^\n]-:%d+: ", "", 1))
end

local function is_array(t)
  return rawlen(t) > 0
end

-- Deepest nesting expand, merge and copy follow (lua-cjson's default
-- decode depth limit): deeper is an error with the path, never Lua's own
-- "stack overflow".  (The core takes 64 levels at most anyway.)
local MAX_DEPTH = 1000
local function too_deep(stack, depth, where)
  local shown = depth > 12 and 12 or depth
  throw("nesting deeper than " .. MAX_DEPTH .. " levels " .. (where or "") .. "at "
        .. path_string(stack, shown) .. (shown < depth and "..." or ""))
end

-- The walk copy and expand share: a new table with v's keys, its tables
-- walked the same way, its strings replaced by leaf(x, ctx, depth) when a
-- leaf is given (expand), any other value kept.  `stack` holds the keys
-- down to the value at hand (for messages); `active` the tables being
-- walked: one reached again through itself is a cycle.  `where` ("in
-- argument #2 ") goes into a depth error.
local function map_table(v, active, stack, depth, where, leaf, ctx)
  if active[v] then
    throw("cycle at " .. path_string(stack, depth))
  end
  if depth >= MAX_DEPTH then too_deep(stack, depth, where) end
  active[v] = true
  local out = {}
  for k, x in next, v do
    local tx = type(x)
    if tx == "table" then
      stack[depth + 1] = k
      out[k] = map_table(x, active, stack, depth + 1, where, leaf, ctx)
    elseif leaf and tx == "string" then
      stack[depth + 1] = k
      out[k] = leaf(x, ctx, depth + 1)
    else
      out[k] = x
    end
  end
  active[v] = nil
  return out
end

-- Deep copy of plain tables (metatables are not copied; other values are
-- shared).  A table reached again through itself is a cycle; `where`
-- ("in argument #2 ") goes into a depth error.
local function copy(v, active, stack, depth, where)
  if type(v) ~= "table" then return v end
  return map_table(v, active or {}, stack or {}, depth or 0, where)
end

local function deep_equal(a, b)
  if rawequal(a, b) then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in next, a do
    if not deep_equal(v, b[k]) then return false end
  end
  for k in next, b do
    if a[k] == nil then return false end
  end
  return true
end

---------------------------------------------------------------------------
-- The core module, loaded on first use (by `variants`, `dns_name`)
---------------------------------------------------------------------------

local core_module
local function core()
  if not core_module then core_module = require "kfjob" end
  return core_module
end

-- The key of a name in the collision set of `variants`: its 64-bit FNV-1a
-- (`kfjob.hash64`), a Lua integer on 5.3+; on 5.1, 5.2 and LuaJIT, whose
-- hash64 is 16 hex digits, the first 52 bits as a number (doubles hold
-- them exactly, and a number key costs what an integer key does).  Names
-- with one key are told apart by comparing the names.
local function hash64(s)
  local h = core().hash64(s)
  if type(h) == "string" then return tonumber(ssub(h, 1, 13), 16) end
  return h
end
-- The same hash as 16 hex digits on every version.
local function hash64_hex(s) return core().hash64(s, "hex") end

---------------------------------------------------------------------------
-- merge
---------------------------------------------------------------------------

-- Merge b into a (a is a fresh copy, owned by us).
local function merge_into(a, b, active, stack, depth)
  if active[b] then throw("cycle in argument #2 at " .. path_string(stack, depth)) end
  if depth >= MAX_DEPTH then too_deep(stack, depth, "in argument #2 ") end
  active[b] = true
  for k, bv in next, b do
    local av = a[k]
    stack[depth + 1] = k
    if type(av) == "table" and type(bv) == "table"
       and not is_array(av) and not is_array(bv) then
      merge_into(av, bv, active, stack, depth + 1)
    elseif type(bv) == "table" then
      local ok, r = pcall(copy, bv, active, stack, depth + 1, "in argument #2 ")
      if not ok then
        local m = caught(r)
        if m then throw(ssub(m, 1, 9) == "cycle at " and
                        "cycle in argument #2 at " .. ssub(m, 10) or m) end
        error(r, 0)
      end
      a[k] = r
    else
      a[k] = bv
    end
  end
  active[b] = nil
  return a
end

local function merge(a, b)
  local ok, out = pcall(copy, a, nil, nil, nil, "in argument #1 ")
  if not ok then
    local m = caught(out)
    if m then throw(ssub(m, 1, 9) == "cycle at " and "cycle in argument #1 at " .. ssub(m, 10) or m) end
    error(out, 0)
  end
  return merge_into(out, b, {}, {}, 0)
end

--- Deep merge of two tables, `b` winning.
-- Tables present on both sides are merged key by key, unless either is an
-- array (a table with `#t > 0`), which `b` replaces as a whole.  The result
-- is new; neither input is modified or shared with it (nested tables are
-- copied).
-- @tparam[opt] table a
-- @tparam[opt] table b
-- @treturn table
-- @usage template.merge({worker = {replicas = 2, image = "a"}},
--   {worker = {replicas = 4}})  --> {worker = {replicas = 4, image = "a"}}
function api.merge(a, b)
  if a ~= nil and type(a) ~= "table" then
    error(sformat("bad argument #1 to 'kfjob.template.merge' (table expected, got %s)",
                  type(a)), 2)
  end
  if b ~= nil and type(b) ~= "table" then
    error(sformat("bad argument #2 to 'kfjob.template.merge' (table expected, got %s)",
                  type(b)), 2)
  end
  local ok, r = pcall(merge, a or {}, b or {})
  if not ok then reraise("kfjob.template.merge: ", r) end
  return r
end

U.sorted_keys, U.fmt_number, U.describe, U.describe_params = sorted_keys,
  fmt_number, describe, describe_params
U.path_string, U.throw, U.caught, U.reraise, U.clean_error = path_string, throw,
  caught, reraise, clean_error
U.is_array, U.map_table, U.copy, U.deep_equal, U.core, U.merge = is_array, map_table, copy,
  deep_equal, core, merge
U.hash64, U.hash64_hex = hash64, hash64_hex
U.seal, U.rawlen, U.tointeger, U.is_int, U.int_string = seal, rawlen,
  tointeger, is_int, int_string

return U
