--- Templating for kfjob: many job variants from one base.
--
-- Pure Lua 5.4.  The module reads no globals: what it needs from the
-- standard library is captured below and `_ENV` is then set to `nil`.
-- Argument errors are raised with `error(msg, 2)`, so they point at the
-- caller; every message starts with the function's full name
-- (`kfjob.template.render: ...`).
--
-- Placeholders, as understood by `render`, `expand` and the name templates
-- of `variants`:
--
--  * `${name}`: the variable `name`;
--  * `${a.b.c}`: a dotted path into nested tables (`vars.a.b.c`); a key that
--    itself contains dots (`vars["worker.replicas"]`) is found too, and an
--    all-digit segment also indexes arrays (`${cmd.1}`);
--  * `${name:-text}`: `text` when the variable is missing or the empty string
--    (as in the shell); the default is literal text, it cannot contain `}`
--    or another placeholder;
--  * `$$`: a literal `$`.  A `$` not followed by `{` or `$` is kept as it is,
--    so `$HOME` in a command survives.
--
-- Variable names are segments of letters, digits and `_` (not starting with
-- a digit unless the segment is all digits) joined by dots.
--
-- @module kfjob.template
-- @usage
-- local template = require "kfjob.template"
-- for name, job in template.variants(base, {
--   ["worker.replicas"] = {2, 4, 8},
--   tag = {"1.4.0", "1.5.0"},
-- }, {kind = "PyTorchJob", name = "bert-${tag}-w${worker.replicas}"}) do
--   io.write(name, " ", job:to_json(), "\n")
-- end

local type, pairs, ipairs, next, tostring, tonumber, error, pcall, require =
      type, pairs, ipairs, next, tostring, tonumber, error, pcall, require
local rawlen, rawequal = rawlen, rawequal
local sfind, ssub, sbyte, sformat, slower, sgsub, smatch =
      string.find, string.sub, string.byte, string.format, string.lower,
      string.gsub, string.match
local tsort, tconcat = table.sort, table.concat
local mtype, tointeger, huge = math.type, math.tointeger, math.huge

-- No global access past this point; luacheck checks it with `std none`.
local _ENV = nil -- luacheck: ignore 211/_ENV
-- luacheck: std none

local M = {}

--- Longest name `variants` produces by default (characters).
-- Kubernetes names pods `<job>-<role>-<index>` and caps names at 63
-- characters; 50 leaves 13 for the longest suffix kfjob produces
-- (`-evaluator-0`, `-worker-999`).
M.MAX_NAME = 50

---------------------------------------------------------------------------
-- Job fields, per kind (SPEC §2).  One data table: it decides whether a
-- matrix key of `variants` is a field override or a template variable, and
-- it feeds the "did you mean" suggestions.  `true` marks a leaf.
---------------------------------------------------------------------------

local RESOURCES = { cpu = true, mem = true, memory = true, gpu = true,
                    ephemeral_storage = true }
local GROUP = { replicas = true, image = true, requests = RESOURCES,
                limits = RESOURCES, restart_policy = true }
local MPI_GROUP = { replicas = true, image = true, requests = RESOURCES,
                    limits = RESOURCES, restart_policy = true, command = true }
local ELASTIC_WORKER = { image = true, requests = RESOURCES, limits = RESOURCES,
                         restart_policy = true }
local RUN_POLICY = { clean_pod_policy = true, ttl_seconds_after_finished = true,
                     active_deadline_seconds = true, backoff_limit = true }

local FIELDS = {
  TFJob = { worker = GROUP, ps = GROUP, chief = GROUP, evaluator = GROUP,
            run_policy = RUN_POLICY, num_workers = true, num_ps_replicas = true,
            num_chief_replicas = true, num_evaluator_replicas = true },
  PyTorchJob = { worker = GROUP, master = GROUP, run_policy = RUN_POLICY,
                 num_workers = true },
  Elastic = { nnodes = true, nproc_per_node = true, max_restarts = true,
              rdzv_backend = true, worker = ELASTIC_WORKER,
              run_policy = RUN_POLICY },
  MPIJob = { worker = MPI_GROUP, launcher = MPI_GROUP, run_policy = RUN_POLICY,
             slots = true, num_workers = true, num_launcher_replicas = true },
  HorovodJob = { worker = MPI_GROUP, launcher = MPI_GROUP,
                 run_policy = RUN_POLICY, slots = true, num_workers = true,
                 num_launcher_replicas = true, verbose = true, log_level = true,
                 discovery_script_path = true, elastic_timeout = true },
}

local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  tsort(ks, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta < tb end
    if ta == "string" or ta == "number" then return a < b end
    return tostring(a) < tostring(b)
  end)
  return ks
end

local KIND_NAMES = tconcat(sorted_keys(FIELDS), ", ")

-- Every dotted path of a kind ("worker", "worker.requests.gpu", ...).
local function field_paths(tree, prefix, out)
  for k, v in pairs(tree) do
    local p = prefix and prefix .. "." .. k or k
    out[#out + 1] = p
    if type(v) == "table" then field_paths(v, p, out) end
  end
  return out
end

-- Edit distance, for suggestions.
local function distance(a, b)
  local la, lb = #a, #b
  local prev, cur = {}, {}
  for j = 0, lb do prev[j] = j end
  for i = 1, la do
    cur[0] = i
    local ca = sbyte(a, i)
    for j = 1, lb do
      local cost = (ca == sbyte(b, j)) and 0 or 1
      local d = prev[j] + 1
      if cur[j - 1] + 1 < d then d = cur[j - 1] + 1 end
      if prev[j - 1] + cost < d then d = prev[j - 1] + cost end
      cur[j] = d
    end
    prev, cur = cur, prev
  end
  return prev[lb]
end

local function suggest(word, candidates)
  local best, bestd = nil, huge
  for _, c in ipairs(candidates) do
    local d = distance(word, c)
    if d < bestd or (d == bestd and best and c < best) then best, bestd = c, d end
  end
  -- close enough, as the core judges it: a couple of typos, or a third of
  -- the word, and never the whole word
  local len = #word
  if best and (bestd <= 2 or bestd * 3 <= len) and bestd < len then
    return sformat(" (did you mean '%s'?)", best)
  end
  return ""
end

---------------------------------------------------------------------------
-- Small helpers
---------------------------------------------------------------------------

-- Numbers print like integers when integral (2.0 -> "2") and otherwise in
-- their shortest round-tripping form.
local function fmt_number(n)
  if mtype(n) == "integer" then return tostring(n) end
  local i = tointeger(n)
  if i then return tostring(i) end
  if n ~= n then return "nan" end
  if n == huge then return "inf" end
  if n == -huge then return "-inf" end
  for prec = 14, 17 do
    local s = sformat("%." .. prec .. "g", n)
    if tonumber(s) == n then return s end
  end
  return sformat("%.17g", n)
end

local function is_ident(s)
  return type(s) == "string" and sfind(s, "^[%a_][%w_]*$") ~= nil
end

-- Compact, deterministic rendering of a value for messages.
local function describe(v, depth)
  local tv = type(v)
  if tv == "string" then
    return (sgsub(sformat("%q", v), "\\\n", "\\n"))
  elseif tv == "number" then
    return fmt_number(v)
  elseif tv == "table" then
    depth = (depth or 0) + 1
    if depth > 3 then return "{...}" end
    local parts = {}
    local n = rawlen(v)
    for i = 1, n do parts[#parts + 1] = describe(v[i], depth) end
    for _, k in ipairs(sorted_keys(v)) do
      if not (mtype(k) == "integer" and k >= 1 and k <= n) then
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
    elseif mtype(k) == "integer" then
      out[#out + 1] = "[" .. k .. "]"
    elseif type(k) == "string" and i == 1 and sfind(k, "^[%w_][%w_%.%-]*$") then
      out[#out + 1] = k
    else
      out[#out + 1] = "[" .. describe(k) .. "]"
    end
  end
  return tconcat(out)
end

-- Errors raised inside this module carry a marker table so that the public
-- functions can re-raise them at level 2 with their own prefix, while
-- errors from elsewhere (a metamethod, the core) pass through unchanged.
local Fail = {}
local function throw(msg) error({ [Fail] = msg }, 0) end
local function caught(e)
  if type(e) == "table" and e[Fail] then return e[Fail] end
  return nil
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

-- Deep copy of plain tables (metatables are not copied; other values are
-- shared).  A table reached again through itself is a cycle.
local function copy(v, active, stack, depth)
  if type(v) ~= "table" then return v end
  active = active or {}
  stack = stack or {}
  depth = depth or 0
  if active[v] then
    throw("cycle at " .. path_string(stack, depth))
  end
  active[v] = true
  local out = {}
  for k, x in next, v do
    if type(x) == "table" then
      stack[depth + 1] = k
      out[k] = copy(x, active, stack, depth + 1)
    else
      out[k] = x
    end
  end
  active[v] = nil
  return out
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

-- FNV-1a, 64 bit (integer arithmetic wraps in Lua 5.4).
local hash64 = nil  -- kfjob.hash64 (the same FNV-1a in C), once the core is loaded

local function fnv64(s)
  if hash64 then return hash64(s) end
  local h = -3750763034362895579        -- 0xcbf29ce484222325
  for i = 1, #s do
    h = (h ~ sbyte(s, i)) * 1099511628211
  end
  return h
end

---------------------------------------------------------------------------
-- Placeholders: compile once, evaluate many times
---------------------------------------------------------------------------

local function quote_src(s)
  if #s > 60 then s = ssub(s, 1, 57) .. "..." end
  return describe(s)
end

local function valid_name(name)
  if name == "" then return false end
  for seg in (name .. "."):gmatch("(.-)%.") do
    if not (sfind(seg, "^[%a_][%w_]*$") or sfind(seg, "^%d+$")) then
      return false
    end
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
function M.render(str, vars)
  if type(str) ~= "string" then
    error(sformat("bad argument #1 to 'kfjob.template.render' (string expected, got %s)",
                  type(str)), 2)
  end
  vars = check_vars(vars, "kfjob.template.render", 2)
  if not sfind(str, "$", 1, true) then return str end
  local tpl, err = compile(str)
  if not tpl then error("kfjob.template.render: " .. err, 2) end
  local ok, r = pcall(eval, tpl, table_lookup(vars))
  if not ok then
    local m = caught(r)
    if m then error("kfjob.template.render: " .. m, 2) end
    error(r, 0)
  end
  return r
end

---------------------------------------------------------------------------
-- expand
---------------------------------------------------------------------------

-- ctx = { lookup = f, cache = {src -> compiled}, active = {}, stack = {} }
local function expand_value(v, ctx, depth)
  local tv = type(v)
  if tv == "string" then
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
  elseif tv == "table" then
    local active = ctx.active
    if active[v] then throw("cycle at " .. path_string(ctx.stack, depth)) end
    active[v] = true
    local out = {}
    local stack = ctx.stack
    for k, x in next, v do
      local tx = type(x)
      if tx == "table" or tx == "string" then
        stack[depth + 1] = k
        out[k] = expand_value(x, ctx, depth + 1)
      else
        out[k] = x
      end
    end
    active[v] = nil
    return out
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
function M.expand(tree, vars)
  vars = check_vars(vars, "kfjob.template.expand", 2)
  local ok, r = pcall(expand_with, tree, table_lookup(vars))
  if not ok then
    local m = caught(r)
    if m then error("kfjob.template.expand: " .. m, 2) end
    error(r, 0)
  end
  return r
end

---------------------------------------------------------------------------
-- merge
---------------------------------------------------------------------------

-- Merge b into a (a is a fresh copy, owned by us).
local function merge_into(a, b, active, stack, depth)
  if active[b] then throw("cycle in argument #2 at " .. path_string(stack, depth)) end
  active[b] = true
  for k, bv in next, b do
    local av = a[k]
    stack[depth + 1] = k
    if type(av) == "table" and type(bv) == "table"
       and not is_array(av) and not is_array(bv) then
      merge_into(av, bv, active, stack, depth + 1)
    elseif type(bv) == "table" then
      local ok, r = pcall(copy, bv, active, stack, depth + 1)
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
  local ok, out = pcall(copy, a)
  if not ok then
    local m = caught(out)
    if m then throw("cycle in argument #1 at " .. ssub(m, 10)) end
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
function M.merge(a, b)
  if a ~= nil and type(a) ~= "table" then
    error(sformat("bad argument #1 to 'kfjob.template.merge' (table expected, got %s)",
                  type(a)), 2)
  end
  if b ~= nil and type(b) ~= "table" then
    error(sformat("bad argument #2 to 'kfjob.template.merge' (table expected, got %s)",
                  type(b)), 2)
  end
  local ok, r = pcall(merge, a or {}, b or {})
  if not ok then
    local m = caught(r)
    if m then error("kfjob.template.merge: " .. m, 2) end
    error(r, 0)
  end
  return r
end

---------------------------------------------------------------------------
-- matrix
---------------------------------------------------------------------------

-- Check a matrix description and snapshot it.  Throws (marker) on error.
local function normalize_matrix(m)
  local axes, values = {}, {}
  local exclude, include = {}, {}
  for k, v in pairs(m) do
    if k == "exclude" or k == "include" then
      if type(v) ~= "table" then
        throw(sformat("'%s' must be a list of tables, got %s", k, type(v)))
      end
    elseif type(k) ~= "string" or k == "" then
      throw(sformat("axis names must be non-empty strings, got %s", describe(k)))
    elseif type(v) ~= "table" then
      throw(sformat("axis '%s' must be a list of values, got %s", k, type(v)))
    else
      local n = rawlen(v)
      if n == 0 then
        if next(v) == nil then throw(sformat("axis '%s' is empty", k)) end
        throw(sformat("axis '%s' must be a list of values", k))
      end
      for i in next, v do
        if mtype(i) ~= "integer" or i < 1 or i > n then
          throw(sformat("axis '%s' must be a list of values (key %s)", k, describe(i)))
        end
      end
      for i = 1, n do
        if v[i] == nil then
          throw(sformat("axis '%s' must be a list of values (nil at %d)", k, i))
        end
      end
      axes[#axes + 1] = k
    end
  end
  tsort(axes)
  local is_axis = {}
  for i, k in ipairs(axes) do
    is_axis[k] = true
    local src, list = m[k], {}
    for j = 1, rawlen(src) do list[j] = copy(src[j]) end
    values[i] = list
  end
  local function entries(which, out)
    local list = m[which]
    if list == nil then return end
    local n = rawlen(list)
    for i in next, list do
      if mtype(i) ~= "integer" or i < 1 or i > n then
        throw(sformat("'%s' must be a list of tables", which))
      end
    end
    for i = 1, n do
      local e = list[i]
      if type(e) ~= "table" then
        throw(sformat("%s[%d] must be a table, got %s", which, i, type(e)))
      end
      if next(e) == nil then throw(sformat("%s[%d] is empty", which, i)) end
      for key in next, e do
        if type(key) ~= "string" then
          throw(sformat("%s[%d]: keys must be strings, got %s", which, i, describe(key)))
        end
        if which == "exclude" and not is_axis[key] then
          throw(sformat("exclude[%d]: '%s' is not an axis%s", i, key,
                        suggest(key, axes)))
        end
      end
      out[i] = copy(e)
    end
  end
  entries("exclude", exclude)
  entries("include", include)
  return { axes = axes, values = values, is_axis = is_axis,
           exclude = exclude, include = include }
end

-- All keys a combination can have: the axes and the include keys.
local function matrix_keys(norm)
  local set = {}
  for _, k in ipairs(norm.axes) do set[k] = true end
  for _, e in ipairs(norm.include) do
    for k in next, e do set[k] = true end
  end
  return sorted_keys(set)
end

-- The iterator over a normalized matrix.  State: one index per axis and one
-- flag per include entry; nothing grows with the number of combinations.
local function matrix_iter(norm)
  if norm.single then
    local done = false
    return function()
      if done then return nil end
      done = true
      return {}
    end
  end
  local axes, values = norm.axes, norm.values
  local exclude, include, is_axis = norm.exclude, norm.include, norm.is_axis
  local n = #axes
  local idx = {}
  for k = 1, n do idx[k] = 1 end
  local matched = {}
  local phase = n > 0 and 1 or 2
  local extra = 0

  local function excluded(combo)
    for _, e in ipairs(exclude) do
      local all = true
      for k, v in next, e do
        if not deep_equal(combo[k], v) then all = false; break end
      end
      if all then return true end
    end
    return false
  end

  local function apply_includes(combo)
    for j, e in ipairs(include) do
      local fits = true
      for k, v in next, e do
        if is_axis[k] and not deep_equal(combo[k], v) then fits = false; break end
      end
      if fits then
        matched[j] = true
        for k, v in next, e do
          if not is_axis[k] then combo[k] = copy(v) end
        end
      end
    end
  end

  return function()
    while phase == 1 do
      local combo = {}
      for k = 1, n do combo[axes[k]] = copy(values[k][idx[k]]) end
      -- advance the odometer: the last axis varies fastest
      local k = n
      while k >= 1 do
        if idx[k] < #values[k] then idx[k] = idx[k] + 1; break end
        idx[k] = 1
        k = k - 1
      end
      if k == 0 then phase = 2 end
      if not excluded(combo) then
        apply_includes(combo)
        return combo
      end
    end
    while phase == 2 do
      extra = extra + 1
      local e = include[extra]
      if e == nil then
        phase = 3
      elseif not matched[extra] then
        return copy(e)
      end
    end
    return nil
  end
end

--- Iterate over the combinations of a matrix.
-- Axes are the string keys other than `exclude` and `include`, each a
-- non-empty list.  The combinations come in a fixed order: axes sorted by
-- name, the first axis varying slowest, values in the order given.  As in
-- GitHub Actions:
--
--  * `exclude` is a list of partial combinations; a combination that
--    matches every key of an entry is dropped.  Keys must be axes.
--  * `include` is then applied, entry by entry, to every remaining
--    combination: an entry whose axis keys (if any) equal the combination's
--    values adds its other keys to it (a later entry may overwrite a value
--    added by an earlier one, never an axis value).  An entry that fits no
--    combination becomes a combination of its own, after the product, in
--    `include` order.  A matrix with only `include` yields its entries.
--
-- The iterator is lazy: it keeps one index per axis and one flag per
-- include entry.  Each call returns a new table.
-- @tparam table m the matrix
-- @treturn function iterator returning a table of parameters, then nil
-- @raise on an empty axis, a non-list axis, malformed `exclude`/`include`
-- @usage for p in template.matrix{gpu = {1, 2}, replicas = {2, 4}} do
--   print(p.gpu, p.replicas)   -- 1 2, 1 4, 2 2, 2 4
-- end
function M.matrix(m)
  if type(m) ~= "table" then
    error(sformat("bad argument #1 to 'kfjob.template.matrix' (table expected, got %s)",
                  type(m)), 2)
  end
  local ok, norm = pcall(normalize_matrix, m)
  if not ok then
    local msg = caught(norm)
    if msg then error("kfjob.template.matrix: " .. msg, 2) end
    error(norm, 0)
  end
  return matrix_iter(norm)
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
    local h = fnv64(n) & 0xffffffff
    local head = sgsub(ssub(n, 1, max - 9), "%-+$", "")
    n = sformat("%s-%08x", head, h)
  end
  return n
end

local function check_max(max, fname, argn)
  if max == nil then return M.MAX_NAME end
  if mtype(max) ~= "integer" or max < 10 or max > 63 then
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
function M.dns_name(s, max)
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

---------------------------------------------------------------------------
-- variants
---------------------------------------------------------------------------

local core_module
local function core()
  if not core_module then
    core_module = require "kfjob"
    hash64 = core_module.hash64
  end
  return core_module
end

local function is_job(K, x)
  local f = K.is_job
  if f then return f(x) and true or false end
  if type(x) ~= "userdata" then return false end
  local ok, kind = pcall(function() return x.kind end)
  return ok and type(kind) == "string"
end

-- Every placeholder name of a tree (or compiled name template); compiles
-- the strings into `cache` and checks for cycles.  Throws on bad strings.
local function scan(tree, cache, refs, active, stack, depth)
  local tv = type(tree)
  if tv == "string" then
    if not sfind(tree, "$", 1, true) then return false end
    local tpl = cache[tree]
    if not tpl then
      local err
      tpl, err = compile(tree)
      if not tpl then throw(path_string(stack, depth) .. ": " .. err) end
      cache[tree] = tpl
    end
    local any = false
    for _, p in ipairs(tpl.parts) do
      if type(p) == "table" then refs[p.name] = true; any = true end
    end
    return any
  elseif tv == "table" then
    if active[tree] then throw("cycle at " .. path_string(stack, depth)) end
    active[tree] = true
    local any = false
    for k, v in next, tree do
      stack[depth + 1] = k
      if scan(v, cache, refs, active, stack, depth + 1) then any = true end
    end
    active[tree] = nil
    return any
  end
  return false
end

local function referenced(refs, key)
  if refs[key] then return true end
  local prefix = key .. "."
  for r in next, refs do
    if ssub(r, 1, #prefix) == prefix then return true end
  end
  return false
end

local function split_path(key)
  local segs = {}
  for seg in (key .. "."):gmatch("(.-)%.") do
    local i = sfind(seg, "^%d+$") and tointeger(tonumber(seg))
    segs[#segs + 1] = i or seg
  end
  return segs
end

-- Put the field overrides of `params` into the constructor table `t`.
-- `fresh` says `t` and its subtables are ours (from expand); otherwise the
-- tables along each path are copied first, so the base is never modified.
-- Paths through a non-table value (a group object) are returned for
-- job:with.
local function apply_overrides(t, params, keys, paths, fresh)
  local owned = nil
  if not fresh then
    local root = {}
    for k, v in next, t do root[k] = v end
    t = root
    owned = { [root] = true }
  end
  local later = nil
  for _, key in ipairs(keys) do
    local val = params[key]
    if val ~= nil then
      local segs = paths[key]
      local cur, blocked = t, false
      for i = 1, #segs - 1 do
        local seg = segs[i]
        local nxt = cur[seg]
        if nxt == nil then
          nxt = {}
          if owned then owned[nxt] = true end
          cur[seg] = nxt
        elseif type(nxt) == "table" then
          if owned and not owned[nxt] then
            local c = {}
            for k, v in next, nxt do c[k] = v end
            owned[c] = true
            cur[seg] = c
            nxt = c
          end
        else
          blocked = true
          break
        end
        cur = nxt
      end
      if blocked then
        later = later or {}
        later[key] = val
      else
        local last = segs[#segs]
        local old = cur[last]
        if type(old) == "table" and type(val) == "table"
           and not is_array(old) and not is_array(val) then
          cur[last] = merge(old, val)
        else
          cur[last] = val
        end
      end
    end
  end
  return t, later
end

local OPTIONS = { kind = true, name = true, unique = true, max_name = true,
                  vars = true }

--- Lazily build the variants of a job over a matrix.
--
-- `base` is one of:
--
--  * a job object: each variant is `base:with(overrides)`;
--  * a constructor-shaped table, with `opts.kind` naming the constructor
--    (`"TFJob"`, `"PyTorchJob"`, `"Elastic"`, `"MPIJob"`, `"HorovodJob"`):
--    each variant is the constructor applied to the table with the
--    variant's strings expanded and its overrides set;
--  * a function `params -> job` (or `params -> table` when `opts.kind` is
--    given): the function gets a fresh table of parameters and builds the
--    job itself; no overrides are applied.
--
-- For a job or a table, each matrix key (axis or `include` key) whose
-- first dotted component is a field of the job kind (`worker`,
-- `run_policy`, `nnodes`, ...) is an override of that path:
-- `["worker.replicas"] = {2, 4, 8}`, `["worker.requests.gpu"] = {1, 2}`; a
-- table value is deep-merged into what the base has there, as
-- `job:with` does.  Any other key is a template variable for the strings
-- of the base (`image = "repo/bert:${tag}"`, see `expand`) and for the
-- name template; a variable that neither is used is an error, so that a
-- misspelt field (`wroker.replicas`) cannot pass unnoticed.  The core
-- validates every variant; nothing is validated here.
--
-- Names come from `opts.name`, a template over the parameters, then
-- `opts.vars`, then the variant's resolved `job:spec()`
-- (`"bert-w${worker.replicas}-${tag}"`), or a function
-- `(params, job) -> string`; without it, the kind and the parameter values
-- in key order (`pytorchjob-2-1-4`).  Names are made DNS-1035 labels with
-- `dns_name` (at most `opts.max_name` characters).  With `opts.unique`
-- (the default) a name seen before is an error naming both parameter
-- sets; the iterator keeps a 64-bit hash and an index per name (a few tens
-- of bytes) and nothing else grows with the number of variants.
--
-- @tparam job|table|function base
-- @tparam[opt] table matrix as for `matrix`; nil gives a single variant
-- with no parameters
-- @tparam[opt] table opts
-- @tparam[opt] string opts.kind constructor name for a table base
-- @tparam[opt] string|function opts.name name template or function
-- @tparam[opt=true] boolean opts.unique detect duplicate names
-- @tparam[opt=MAX_NAME] integer opts.max_name longest name, 10 to 63
-- @tparam[opt] table opts.vars constant template variables (the matrix
-- parameters win)
-- @treturn function iterator returning `name, job, params`, then nil
-- @raise at the call for a bad base, matrix or option; during iteration for
-- a variant that fails, with its number and parameters in front:
-- `kfjob.template.variants: variant 3 {tag="x", worker.replicas=0}:
-- kfjob.PyTorchJob: worker.replicas: ...`
function M.variants(base, matrix, opts)
  local fname = "kfjob.template.variants"
  if opts == nil then opts = {} end
  if type(opts) ~= "table" then
    error(sformat("bad argument #3 to '%s' (table expected, got %s)", fname, type(opts)), 2)
  end
  do
    local known = {}
    for k in pairs(OPTIONS) do known[#known + 1] = k end
    tsort(known)
    for k in pairs(opts) do
      if not OPTIONS[k] then
        error(sformat("%s: opts.%s: unknown option%s", fname, tostring(k),
                      type(k) == "string" and suggest(k, known) or ""), 2)
      end
    end
  end
  if matrix ~= nil and type(matrix) ~= "table" then
    error(sformat("bad argument #2 to '%s' (table expected, got %s)", fname, type(matrix)), 2)
  end
  local max = check_max(opts.max_name, fname, 3)
  local unique = opts.unique ~= false
  local vars = opts.vars
  if vars ~= nil and type(vars) ~= "table" then
    error(sformat("%s: opts.vars: table expected, got %s", fname, type(vars)), 2)
  end
  local K = core()

  local function constructor(kind)
    if type(kind) ~= "string" or not FIELDS[kind] then
      local s = type(kind) == "string" and suggest(kind, sorted_keys(FIELDS)) or ""
      error(sformat("%s: opts.kind: unknown kind %s%s (expected one of %s)",
                    fname, describe(kind), s, KIND_NAMES), 3)
    end
    local c = K[kind]
    if c == nil then
      error(sformat("%s: opts.kind: kfjob.%s is not available", fname, kind), 3)
    end
    return c
  end

  -- What kind of base, and the tree whose strings are templates.
  local mode, kind, ctor, tree
  local tb = type(base)
  if tb == "function" then
    mode = "function"
    if opts.kind ~= nil then ctor = constructor(opts.kind); kind = opts.kind end
  elseif is_job(K, base) then
    mode = "job"
    kind = base.kind
    if opts.kind ~= nil and opts.kind ~= kind then
      error(sformat("%s: opts.kind is %s but the base job is a %s", fname,
                    describe(opts.kind), kind), 2)
    end
  elseif tb == "table" then
    mode = "table"
    if opts.kind == nil then
      error(sformat("%s: opts.kind is required when the base is a table (one of %s)",
                    fname, KIND_NAMES), 2)
    end
    kind = opts.kind
    ctor = constructor(kind)
    tree = base
  else
    error(sformat("bad argument #1 to '%s' (job, table or function expected, got %s)",
                  fname, tb), 2)
  end

  -- Compile the templates once; collect the variables they use.
  local cache, refs = {}, {}
  local has_templates = false
  local name_tpl, name_fn = nil, nil
  do
    local ok, err = pcall(function()
      if mode == "job" then
        local spec = base:spec()
        if scan(spec, cache, refs, {}, {}, 0) then
          -- a job whose strings hold placeholders is rebuilt from its spec
          local c = K[kind]
          if c == nil then throw(sformat("kfjob.%s is not available", kind)) end
          mode, tree, ctor = "table", spec, c
          has_templates = true
        end
      elseif mode == "table" then
        has_templates = scan(tree, cache, refs, {}, {}, 0)
      end
      local name = opts.name
      if type(name) == "string" then
        local tpl, e = compile(name)
        if not tpl then throw("opts.name: " .. e) end
        name_tpl = tpl
        for _, p in ipairs(tpl.parts) do
          if type(p) == "table" then refs[p.name] = true end
        end
      elseif type(name) == "function" then
        name_fn = name
      elseif name ~= nil then
        throw(sformat("opts.name: string or function expected, got %s", type(name)))
      end
    end)
    if not ok then
      local m = caught(err)
      if m then error(fname .. ": " .. m, 2) end
      error(err, 0)
    end
  end

  -- The matrix.
  local norm
  if matrix == nil then
    norm = { single = true, axes = {}, include = {} }
  else
    local ok, r = pcall(normalize_matrix, matrix)
    if not ok then
      local m = caught(r)
      if m then error(fname .. ": matrix: " .. m, 2) end
      error(r, 0)
    end
    norm = r
  end

  -- Field or variable, once per key.
  local all_keys = matrix_keys(norm)
  local field_keys, paths = {}, {}
  if mode ~= "function" then
    local fields = FIELDS[kind]
    local spec_keys = nil
    if not fields and mode == "job" then spec_keys = base:spec() end
    for _, key in ipairs(all_keys) do
      local first = smatch(key, "^[^.]*")
      local is_field
      if fields then is_field = fields[first] ~= nil
      else is_field = spec_keys[first] ~= nil end
      if is_field then
        field_keys[#field_keys + 1] = key
        paths[key] = split_path(key)
      elseif not name_fn and not referenced(refs, key) then
        local cands = fields and field_paths(fields, nil, {}) or sorted_keys(spec_keys)
        error(sformat("%s: matrix key '%s' is neither a field of %s nor a variable "
                      .. "used by the base or the name template%s",
                      fname, key, kind, suggest(key, cands)), 2)
      end
    end
  end

  local kind_prefix = kind and slower(kind) or nil

  -- One variant: name, job, or nil, message.
  local function make(params)
    local function lookup(n)
      local v = resolve(params, n)
      if v == nil and vars then v = resolve(vars, n) end
      return v
    end
    local ok, job, later
    if mode == "function" then
      ok, job = pcall(base, params)
      if ok and type(job) == "table" and ctor then ok, job = pcall(ctor, job) end
      if ok and not is_job(K, job) then
        return nil, sformat("base function returned %s, expected a job",
                            type(job) == "table" and "a table (set opts.kind to build it)"
                            or "a " .. type(job))
      end
    elseif mode == "job" then
      if #field_keys > 0 then
        local ov = {}
        for _, key in ipairs(field_keys) do ov[key] = params[key] end
        if next(ov) then ok, job = pcall(base.with, base, ov)
        else ok, job = true, base end
      else
        ok, job = true, base
      end
    else
      local t = tree
      if has_templates then
        ok, t = pcall(expand_with, tree, lookup, cache)
        if not ok then return nil, clean_error(t) end
      end
      if #field_keys > 0 then
        ok, t, later = pcall(apply_overrides, t, params, field_keys, paths, has_templates)
        if not ok then return nil, clean_error(t) end
      end
      ok, job = pcall(ctor, t)
      if ok and later then ok, job = pcall(job.with, job, later) end
    end
    if not ok then return nil, clean_error(job) end

    local raw
    if name_tpl then
      local spec
      local function name_lookup(n)
        local v = lookup(n)
        if v == nil then
          spec = spec or job:spec()
          v = resolve(spec, n)
        end
        return v
      end
      ok, raw = pcall(eval, name_tpl, name_lookup)
      if not ok then return nil, "name: " .. clean_error(raw) end
    elseif name_fn then
      ok, raw = pcall(name_fn, params, job)
      if not ok then return nil, "name: " .. clean_error(raw) end
      if type(raw) ~= "string" then
        return nil, sformat("name: opts.name returned %s, expected a string", type(raw))
      end
    else
      local pieces = { kind_prefix or slower(job.kind) }
      for _, k in ipairs(sorted_keys(params)) do
        local v = params[k]
        pieces[#pieces + 1] = type(v) == "number" and fmt_number(v)
                              or type(v) == "string" and v or describe(v)
      end
      raw = tconcat(pieces, "-")
    end
    local name = dns_name(raw, max)
    if not name then
      return nil, sformat("name: %s has no letter or digit to make a name of", describe(raw))
    end
    return name, job
  end

  local function params_at(j)
    local it = matrix_iter(norm)
    local p
    for _ = 1, j do p = it() end
    return p
  end

  local combos = matrix_iter(norm)
  local i = 0
  local seen, overflow = unique and {} or nil, nil
  return function()
    local params = combos()
    if params == nil then
      seen, overflow = nil, nil
      return nil
    end
    i = i + 1
    local name, job = make(params)
    if not name then
      error(sformat("%s: variant %d %s: %s", fname, i, describe_params(params), job), 2)
    end
    if seen then
      local clash
      if overflow and overflow[name] then
        clash = overflow[name]
      else
        local h = fnv64(name)
        local j = seen[h]
        if j == nil then
          seen[h] = i
        elseif make(params_at(j)) == name then
          clash = j
        else
          -- two names with one hash: keep the newcomer by name
          overflow = overflow or {}
          overflow[name] = i
        end
      end
      if clash then
        error(sformat("%s: duplicate name '%s' for variant %d %s and variant %d %s",
                      fname, name, clash, describe_params(params_at(clash)),
                      i, describe_params(params)), 2)
      end
    end
    return name, job, params
  end
end

return M
