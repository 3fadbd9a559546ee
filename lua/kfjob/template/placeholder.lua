--- kfjob.template.placeholder: placeholders (`render`, `expand`, the name
-- templates of `variants`) and names (`dns_name`).  The syntax is described
-- in `kfjob.template`.  Internal: `require "kfjob.template"` is the public
-- module, and the functions of `api` are re-exported there.

local type, tostring, tonumber, error, pcall, require =
      type, tostring, tonumber, error, pcall, require
local sfind, ssub, sbyte, sformat, slower, sgsub =
      string.find, string.sub, string.byte, string.format, string.lower,
      string.gsub
local tconcat = table.concat
local U = require "kfjob.template.util"
local M = U.module
local fmt_number, describe, path_string = U.fmt_number, U.describe, U.path_string
local throw, caught, reraise = U.throw, U.caught, U.reraise
local copy, hash64_hex = U.copy, U.hash64_hex
local seal, is_int, tointeger = U.seal, U.is_int, U.tointeger
local map_table = U.map_table

-- No global access past this point; luacheck checks it with `std none`.
local _ENV = nil -- luacheck: ignore 211/_ENV
-- luacheck: std none
seal()

local P = { api = {} }
local api = P.api

---------------------------------------------------------------------------
-- Placeholders: compile once, evaluate many times
---------------------------------------------------------------------------

local function quote_src(s)
  if #s > 60 then s = ssub(s, 1, 57) .. "..." end
  return describe(s)
end

-- A dotted name of identifiers and indices.  After a `requests`, `limits`
-- or `extended` part, the rest may be a Kubernetes resource name's
-- ("worker.limits.amd.com/gpu", "worker.limits.hugepages-2Mi"), as a
-- sweep's matrix key names an extended resource; elsewhere a `-` stays
-- malformed (`${tag-dev}` is not bash's default).
local RESOURCES = { requests = true, limits = true, extended = true }
local function valid_name(name)
  if name == "" then return false end
  local res = false
  for seg in (name .. "."):gmatch("(.-)%.") do
    if not (sfind(seg, "^[%a_][%w_]*$") or sfind(seg, "^%d+$") or
            (res and sfind(seg, "^[%w_][%w_/%-]*$"))) then
      return false
    end
    res = res or RESOURCES[seg] == true
  end
  return true
end

-- A compiled template: array of parts (literal strings and placeholder
-- records {name=, default=, pos=}), plus `src` and `whole` (the record when
-- the string is exactly one placeholder).  Returns nil, message on error.
local function compile(s)
  local parts, lit = {}, {}
  local i = 1
  local function flush()
    if #lit > 0 then
      local t = tconcat(lit)
      if t ~= "" then parts[#parts + 1] = t end
      lit = {}
    end
  end
  while true do
    local j = sfind(s, "$", i, true)
    if not j then
      lit[#lit + 1] = ssub(s, i)
      break
    end
    lit[#lit + 1] = ssub(s, i, j - 1)
    local c = ssub(s, j + 1, j + 1)
    if c == "$" then
      lit[#lit + 1] = "$"
      i = j + 2
    elseif c == "{" then
      local k = sfind(s, "}", j + 2, true)
      if not k then
        return nil, sformat("unterminated placeholder %s at position %d in %s",
                            describe(ssub(s, j, j + 30)), j, quote_src(s))
      end
      local inner = ssub(s, j + 2, k - 1)
      local name, default = inner, nil
      local d = sfind(inner, ":-", 1, true)
      if d then name, default = ssub(inner, 1, d - 1), ssub(inner, d + 2) end
      if not valid_name(name) or (default and sfind(default, "${", 1, true)) then
        return nil, sformat("malformed placeholder '%s' at position %d in %s",
                            ssub(s, j, k), j, quote_src(s))
      end
      flush()
      parts[#parts + 1] = { name = name, default = default, pos = j }
      i = k + 1
    else
      lit[#lit + 1] = "$"
      i = j + 1
    end
  end
  flush()
  local whole = nil
  if #parts == 1 and type(parts[1]) == "table" then whole = parts[1] end
  return { src = s, whole = whole, parts = parts }
end

-- Index one path segment; all-digit segments also try the integer key.
local function index(t, key)
  local v = t[key]
  if v == nil and sfind(key, "^%d+$") then v = t[tointeger(tonumber(key))] end
  return v
end

-- Look a (possibly dotted) name up in a table: the whole name as a key
-- first, then split at each dot from the left.
local function resolve(t, name)
  local v = index(t, name)
  if v ~= nil then return v end
  local start = 1
  while true do
    local d = sfind(name, ".", start, true)
    if not d then return nil end
    local sub = index(t, ssub(name, 1, d - 1))
    if type(sub) == "table" then
      v = resolve(sub, ssub(name, d + 1))
      if v ~= nil then return v end
    end
    start = d + 1
  end
end

-- Value of one placeholder, defaults applied; throws when missing.
local function lookup_part(part, lookup, src)
  local v = lookup(part.name)
  if part.default ~= nil and (v == nil or v == "") then return part.default end
  if v == nil then
    throw(sformat("missing variable '%s' at position %d in %s",
                  part.name, part.pos, quote_src(src)))
  end
  return v
end

local function to_text(v, part, src)
  local tv = type(v)
  if tv == "string" then return v end
  if tv == "number" then return fmt_number(v) end
  if tv == "boolean" then return tostring(v) end
  throw(sformat("variable '%s' at position %d in %s is a %s (string, number or boolean expected)",
                part.name, part.pos, quote_src(src), tv))
end

-- Compiled template -> string.
local function eval(tpl, lookup)
  local parts = tpl.parts
  local n = #parts
  if n == 1 and type(parts[1]) == "string" then return parts[1] end
  local out = {}
  for i = 1, n do
    local p = parts[i]
    if type(p) == "string" then
      out[i] = p
    else
      out[i] = to_text(lookup_part(p, lookup, tpl.src), p, tpl.src)
    end
  end
  return tconcat(out)
end

local function table_lookup(vars)
  return function(name) return resolve(vars, name) end
end

local function check_vars(vars, fname, argn)
  if vars ~= nil and type(vars) ~= "table" then
    error(sformat("bad argument #%d to '%s' (table expected, got %s)",
                  argn, fname, type(vars)), 3)
  end
  return vars or {}
end

--- Substitute the placeholders of a string.
-- @tparam string str the template
-- @tparam[opt] table vars variables; dotted names index nested tables
-- @treturn string the rendered string
-- @raise on a missing variable, a malformed placeholder, or a variable that
-- is not a string, number or boolean; the message names the placeholder and
-- its byte position: `kfjob.template.render: missing variable 'tag' at
-- position 6 in "bert-${tag}"`.
-- @usage template.render("bert-w${worker.replicas}-${tag:-dev}",
--   {worker = {replicas = 4}})  --> "bert-w4-dev"
function api.render(str, vars)
  if type(str) ~= "string" then
    error(sformat("bad argument #1 to 'kfjob.template.render' (string expected, got %s)",
                  type(str)), 2)
  end
  vars = check_vars(vars, "kfjob.template.render", 2)
  if not sfind(str, "$", 1, true) then return str end
  local tpl, err = compile(str)
  if not tpl then error("kfjob.template.render: " .. err, 2) end
  local ok, r = pcall(eval, tpl, table_lookup(vars))
  if not ok then reraise("kfjob.template.render: ", r) end
  return r
end

---------------------------------------------------------------------------
-- expand
---------------------------------------------------------------------------

-- ctx = { lookup = f, cache = {src -> compiled}, active = {}, stack = {} }
local function expand_string(v, ctx, depth)
  if not sfind(v, "$", 1, true) then return v end
  local tpl = ctx.cache[v]
  if not tpl then
    local err
    tpl, err = compile(v)
    if not tpl then throw(path_string(ctx.stack, depth) .. ": " .. err) end
    ctx.cache[v] = tpl
  end
  local ok, r
  if tpl.whole then
    -- A string that is exactly one placeholder takes the variable's value
    -- with its type: "${n}" with n = 4 gives the integer 4.
    ok, r = pcall(lookup_part, tpl.whole, ctx.lookup, tpl.src)
    if ok and type(r) == "table" then ok, r = pcall(copy, r) end
  else
    ok, r = pcall(eval, tpl, ctx.lookup)
  end
  if not ok then
    local m = caught(r)
    if m then throw(path_string(ctx.stack, depth) .. ": " .. m) end
    error(r, 0)
  end
  return r
end

local function expand_value(v, ctx, depth)
  local tv = type(v)
  if tv == "string" then
    return expand_string(v, ctx, depth)
  elseif tv == "table" then
    return map_table(v, ctx.active, ctx.stack, depth, nil, expand_string, ctx)
  end
  return v
end

local function expand_with(tree, lookup, cache)
  return expand_value(tree, { lookup = lookup, cache = cache or {},
                              active = {}, stack = {} }, 0)
end

--- Render every string of a nested table.
-- Returns a new table: tables are deep-copied (without metatables), keys
-- are left alone, strings go through `render`, other values are kept.  A
-- string that is exactly one placeholder (`"${replicas}"`) takes the
-- variable's value with its type (a number stays a number, a table is
-- copied); defaults (`${n:-4}`) are text.
-- @tparam table tree the table to expand (any other value is expanded as a
-- single value)
-- @tparam[opt] table vars variables
-- @treturn table a new table
-- @raise like `render`, with the path of the string in front
-- (`kfjob.template.expand: worker.image: missing variable 'tag' at ...`),
-- and on cycles (`kfjob.template.expand: cycle at a.b`).
function api.expand(tree, vars)
  vars = check_vars(vars, "kfjob.template.expand", 2)
  local ok, r = pcall(expand_with, tree, table_lookup(vars))
  if not ok then reraise("kfjob.template.expand: ", r) end
  return r
end

---------------------------------------------------------------------------
-- Names
---------------------------------------------------------------------------

local function dns_name(s, max)
  -- already a label (the common case): no copies
  if #s <= max and sfind(s, "^[a-z][a-z0-9%-]*$") and not sfind(s, "%-%-")
     and sbyte(s, -1) ~= 45 then   -- 45: "-"
    return s
  end
  local n = slower(s)
  n = sgsub(n, "[^a-z0-9%-]+", "-")
  n = sgsub(n, "%-%-+", "-")
  n = sgsub(n, "^%-+", "")
  n = sgsub(n, "%-+$", "")
  if n == "" then return nil end
  if not sfind(n, "^[a-z]") then n = "v" .. n end
  if #n > max then
    local h = ssub(hash64_hex(n), 9)   -- the low 32 bits, 8 hex digits
    local head = sgsub(ssub(n, 1, max - 9), "%-+$", "")
    n = head .. "-" .. h
  end
  return n
end

local function check_max(max, fname, argn)
  if max == nil then return M.MAX_NAME end
  if not is_int(max) or max < 10 or max > 63 then
    error(sformat("bad argument #%d to '%s' (integer from 10 to 63 expected, got %s)",
                  argn, fname, describe(max)), 3)
  end
  return max
end

--- Turn any string into a DNS-1035 label, as `variants` does with names.
-- Lowercases; replaces every run of characters other than `a-z`, `0-9` and
-- `-` by one `-`; drops leading and trailing `-`; prefixes `v` when the
-- result starts with a digit.  A result longer than `max` is cut to
-- `max - 9` characters and given `-` and 8 hex digits of a hash (FNV-1a) of
-- the whole name, so distinct long names stay distinct and the same input
-- always gives the same name.
-- @tparam string s
-- @tparam[opt=MAX_NAME] integer max maximum length, 10 to 63
-- @treturn string
-- @raise when nothing usable remains (`""`, `"--"`)
-- @usage template.dns_name("BERT_large/w4")  --> "bert-large-w4"
function api.dns_name(s, max)
  if type(s) ~= "string" then
    error(sformat("bad argument #1 to 'kfjob.template.dns_name' (string expected, got %s)",
                  type(s)), 2)
  end
  max = check_max(max, "kfjob.template.dns_name", 2)
  local n = dns_name(s, max)
  if not n then
    error(sformat("kfjob.template.dns_name: %s has no letter or digit to make a name of",
                  describe(s)), 2)
  end
  return n
end

P.compile, P.resolve, P.eval, P.expand_with = compile, resolve, eval, expand_with
P.dns_name, P.check_max = dns_name, check_max

return P
