--- kfjob.template.variants: the variants of a job over a matrix, their
-- names and the detection of duplicate names.  Internal: `require
-- "kfjob.template"` is the public module, and the functions of `api` are
-- re-exported there.

local type, pairs, ipairs, next, tostring, tonumber, error, pcall, require =
      type, pairs, ipairs, next, tostring, tonumber, error, pcall, require
local setmetatable = setmetatable
local sfind, ssub, sformat, slower, smatch, sgmatch =
      string.find, string.sub, string.format, string.lower, string.match, string.gmatch
local tsort, tconcat = table.sort, table.concat

local U = require "kfjob.template.util"
local F = require "kfjob.template.fields"
local P = require "kfjob.template.placeholder"
local X = require "kfjob.template.matrix"
local sorted_keys, fmt_number, describe, describe_params = U.sorted_keys,
  U.fmt_number, U.describe, U.describe_params
local path_string, throw, reraise, clean_error = U.path_string, U.throw,
  U.reraise, U.clean_error
local is_array, hash64, core, merge = U.is_array, U.hash64, U.core, U.merge
local seal, tointeger = U.seal, U.tointeger
local load_fields, field_paths, suggest = F.load, F.field_paths, F.suggest
local compile, resolve, eval, expand_with = P.compile, P.resolve, P.eval,
  P.expand_with
local dns_name, check_max = P.dns_name, P.check_max
local normalize_matrix, matrix_keys, matrix_iter = X.normalize_matrix,
  X.matrix_keys, X.matrix_iter
local count_norm, matrices = X.count_norm, X.made

-- No global access past this point; luacheck checks it with `std none`.
local _ENV = nil -- luacheck: ignore 211/_ENV
-- luacheck: std none
seal()

local function get(o, k) return o[k] end

-- A field the job reads that its spec() does not hold (an Elastic job's
-- worker.replicas, made from nnodes), through the job's own field access;
-- nil unless it is a plain value.
local function field_of(job, name)
  local v = job
  for seg in sgmatch(name, "[^.]+") do
    local ok
    if type(v) ~= "userdata" then return nil end
    ok, v = pcall(get, v, seg)
    if not ok then return nil end
  end
  local t = type(v)
  if t == "string" or t == "number" or t == "boolean" then return v end
  return nil
end

local V = { api = {} }
local api = V.api

-- The iterators `variants` made (weak keys): the kind, the matrix, and
-- the name of the last variant that failed.  The sandboxed host reads
-- them through V.info to report a failed variant as a failed job and go
-- on, and adds `site`, where the config called `variants`
-- ("config.lua:12: "), for its messages.
local made = setmetatable({}, { __mode = "k" })

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

-- The placeholder names of the field axes' values (and of the include
-- entries' field values) into `refs`, but for each axis's own name, which
-- its values do not read.  A malformed value is left for render_axes to
-- report with its axis.
local function axis_refs(norm, field_set, cache, refs)
  local function add(key, v)
    local own = {}
    if pcall(scan, v, cache, own, {}, {}, 0) then
      for n in next, own do
        if n ~= key then refs[n] = true end
      end
    end
  end
  for a, key in ipairs(norm.axes) do
    if field_set[key] then
      for _, v in ipairs(norm.values[a]) do add(key, v) end
    end
  end
  for _, e in ipairs(norm.include) do
    for key, v in next, e do
      if field_set[key] then add(key, v) end
    end
  end
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

-- The C path of a sweep (kfjob._sweep): a job base, a matrix of axes only,
-- every axis a field or a variable only the name template reads (the
-- base has no templates), with string, number or boolean values, at least
-- one field, and a name template whose placeholders are all axes (C makes
-- the rendered name a DNS label as dns_name does, or hands the variant
-- back).  `field_set[key]` says which axes are fields.  Returns nil when it does not
-- apply, else its `next` and `add` functions and whether the names are
-- provably distinct (then no set is kept at all): every axis is in the
-- template with distinct texts of [a-z0-9] only, the literals are of
-- [a-z0-9-] with no "--", the name starts with a literal's letter and does
-- not end in "-", each two placeholders are parted by a character no value
-- has, and the longest name fits `max` - so every name is a DNS label as
-- rendered (dns_name returns it unchanged) and the values can be read back
-- from it.
local function fast_sweep(K, base, norm, name_tpl, max, unique, field_set)
  if not K._sweep or norm.single or #norm.include > 0 or #norm.exclude > 0 then return nil end
  local axes, values = norm.axes, norm.values
  local axis_of, texts, isvar = {}, {}, {}
  local chars, longest, all_plain = {}, {}, true
  for a, key in ipairs(axes) do
    axis_of[key] = a
    isvar[a] = not field_set[key]
    local t, seen = {}, {}
    longest[a] = 0
    for j, v in ipairs(values[a]) do
      local tv = type(v)
      local s = tv == "string" and v or tv == "number" and fmt_number(v)
                or tv == "boolean" and tostring(v) or nil
      -- (a field's value with a placeholder is rendered per variant: make)
      if s == nil or (field_set[key] and sfind(s, "$", 1, true)) then return nil end
      t[j] = s
      if seen[s] or not sfind(s, "^[a-z0-9]+$") then all_plain = false end
      seen[s] = true
      for c in s:gmatch(".") do chars[c] = true end
      if #s > longest[a] then longest[a] = #s end
    end
    texts[a] = t
  end
  local parts, used, len = {}, {}, 0
  local provable = all_plain
  local last_axis_part = nil   -- the literal since the last placeholder parts them?
  for i, p in ipairs(name_tpl.parts) do
    if type(p) == "string" then
      parts[i] = p
      len = len + #p
      if not sfind(p, "^[a-z0-9%-]*$") or sfind(p, "--", 1, true) then provable = false end
      if last_axis_part ~= nil then
        for c in p:gmatch(".") do
          if not chars[c] then last_axis_part = nil; break end
        end
      end
    else
      local a = axis_of[p.name]
      if not a then return nil end
      parts[i] = a
      used[a] = true
      len = len + longest[a]
      if last_axis_part ~= nil then provable = false end   -- not parted
      last_axis_part = a
    end
  end
  local first, final = parts[1], parts[#parts]
  if type(first) ~= "string" or not sfind(first, "^[a-z]")
     or (type(final) == "string" and sfind(final, "%-$")) or len > max then
    provable = false
  end
  for a = 1, #axes do if not used[a] then provable = false end end
  local nxt, add = K._sweep(base, axes, values, texts, parts, max, unique and not provable, isvar)
  if not nxt then return nil end
  return nxt, add, provable
end

-- Whether a constructor table builds its variants as `ctor(tree):with`
-- does: every key of the table (its subtables' too) and every override path
-- is one the job's spec() has, so the table uses no alias, no deprecated
-- count and no group object, and an override meets what the spec has.
local function canonical(tree, spec, keys, paths)
  local function sub(t, s)
    for k, v in next, t do
      local sv = s[k]
      if sv == nil or type(v) == "userdata" then return false end
      if type(v) == "table" then
        if type(sv) ~= "table" then return false end
        if not is_array(v) and not sub(v, sv) then return false end
      end
    end
    return true
  end
  if not sub(tree, spec) then return false end
  for _, key in ipairs(keys) do
    local cur = spec
    for _, seg in ipairs(paths[key]) do
      if type(cur) ~= "table" or cur[seg] == nil then return false end
      cur = cur[seg]
    end
  end
  return true
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
-- `opts.vars`, then the variant's resolved `job:spec()`, then the job's
-- own fields (`"bert-w${worker.replicas}-${tag}"`; an Elastic job's
-- `worker.replicas` is read from its nnodes), or a function
-- `(params, job) -> string`; without it, the kind and the parameter values
-- in key order (`pytorchjob-2-1-4`).  Names are made DNS-1035 labels with
-- `dns_name` (at most `opts.max_name` characters).  With `opts.unique`
-- (the default) a name seen before is an error naming both parameter
-- sets; the iterator keeps a 64-bit hash per name (at most 14 bytes), none
-- when the name template provably makes the names distinct (see
-- `fast_sweep`), and nothing else grows with the number of variants.
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
function api.variants(base, matrix, opts)
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
  local FIELDS, KIND_NAMES = load_fields()

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
    if not ok then reraise(fname .. ": ", err) end
  end

  -- The matrix.
  local norm
  if matrix == nil then
    norm = { single = true, axes = {}, include = {} }
  else
    local ok, r = pcall(normalize_matrix, matrix)
    if not ok then reraise(fname .. ": matrix: ", r) end
    norm = r
  end

  -- Field or variable, once per key; a variable a field axis's values
  -- use (rendered per variant, see render_axes) is used.
  local all_keys = matrix_keys(norm)
  local field_keys, paths, field_set = {}, {}, {}
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
        field_set[key] = true
      end
    end
    axis_refs(norm, field_set, cache, refs)
    for _, key in ipairs(all_keys) do
      if not field_set[key] and not name_fn and not referenced(refs, key) then
        local cands = fields and field_paths(fields, nil, {}) or sorted_keys(spec_keys)
        error(sformat("%s: matrix key '%s' is neither a field of %s nor a variable "
                      .. "used by the base or the name template%s",
                      fname, key, kind, suggest(key, cands)), 2)
      end
    end
  end

  local kind_prefix = kind and slower(kind) or nil

  local function default_name(params, prefix)
    local pieces = { prefix }
    for _, k in ipairs(sorted_keys(params)) do
      local v = params[k]
      pieces[#pieces + 1] = type(v) == "number" and fmt_number(v)
                            or type(v) == "string" and v or describe(v)
    end
    return tconcat(pieces, "-")
  end

  -- A field axis's value holding placeholders ("ghcr.io/acme/bert:${tag}")
  -- rendered with the variant's parameters and opts.vars, as the base's
  -- templates and the name are (not with its own axis); the parameters
  -- with those values, or nil and the error naming the axis.
  local function render_axes(params, lookup)
    local out = params
    for _, key in ipairs(field_keys) do
      local v = params[key]
      if (type(v) == "string" and sfind(v, "$", 1, true)) or type(v) == "table" then
        local ok, r = pcall(expand_with, v, function(n)
          if n == key then return nil end
          return lookup(n)
        end, cache)
        if not ok then
          return nil, sformat("matrix: axis '%s': %s", key, (clean_error(r):gsub("^<root>: ", "")))
        end
        if out == params then
          out = {}
          for k, x in next, params do out[k] = x end
        end
        out[key] = r
      end
    end
    return out
  end

  -- The name of a variant that failed, when it can be made from its
  -- parameters alone; nil otherwise.
  local function failed_name(params)
    local ok, raw = false, nil
    if name_tpl then
      local function lookup(n)
        local v = resolve(params, n)
        if v == nil and vars then v = resolve(vars, n) end
        return v
      end
      params = render_axes(params, lookup) or params   -- as make names
      ok, raw = pcall(eval, name_tpl, lookup)
    elseif not name_fn and kind_prefix then
      ok, raw = pcall(default_name, params, kind_prefix)
    end
    if ok and type(raw) == "string" then return dns_name(raw, max) end
    return nil
  end

  -- One variant: name, job, or nil, message.
  local function make(params)
    local function lookup(n)
      local v = resolve(params, n)
      if v == nil and vars then v = resolve(vars, n) end
      return v
    end
    local fields, err = render_axes(params, lookup)
    if not fields then return nil, err end
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
        for _, key in ipairs(field_keys) do ov[key] = fields[key] end
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
        ok, t, later = pcall(apply_overrides, t, fields, field_keys, paths, has_templates)
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
        -- the parameters with the field axes' values as rendered
        local v = resolve(fields, n)
        if v == nil and vars then v = resolve(vars, n) end
        if v == nil then
          spec = spec or job:spec()
          v = resolve(spec, n)
        end
        if v == nil then v = field_of(job, n) end
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
      raw = default_name(params, kind_prefix or slower(job.kind))
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

  -- A name whose hash is in the set: raise if an earlier variant has it
  -- (the first one), else it is another name with the same hash.
  local function duplicate(name, i, params)
    local it = matrix_iter(norm)
    for j = 1, i - 1 do
      if make(it()) == name then
        error(sformat("%s: duplicate name '%s' for variant %d %s and variant %d %s",
                      fname, name, j, describe_params(params_at(j)),
                      i, describe_params(params)), 3)
      end
    end
  end

  local i = 0
  local rec = { kind = kind, norm = norm }   -- the sandbox adds `site`
  local fast_next, fast_add, provable
  -- (the other keys are variables the name reads: the base has no templates)
  if mode == "job" and name_tpl and #field_keys > 0 then
    fast_next, fast_add, provable = fast_sweep(K, base, norm, name_tpl, max, unique, field_set)
  elseif mode == "table" and not has_templates and name_tpl and #field_keys > 0 then
    -- a table in canonical keys: its variants are the job's with() ones
    local ok, job = pcall(ctor, tree)
    if ok and canonical(tree, job:spec(), field_keys, paths) then
      fast_next, fast_add, provable = fast_sweep(K, job, norm, name_tpl, max, unique, field_set)
    end
  end
  local iter
  if fast_next then
    -- a variant the C path hands back is made here, as below
    iter = function()
      local name, job, params = fast_next()
      if name == nil then return nil end
      i = i + 1
      rec.failed, rec.index = nil, i
      if name then return name, job, params end
      params = job
      name, job = make(params)
      if not name then
        rec.failed = failed_name(params) or false
        error(sformat("%s: variant %d %s: %s", fname, i, describe_params(params), job), 2)
      end
      if unique and not provable and not fast_add(name) then
        -- its hash is in the set: an earlier variant of this name, or
        -- (about never) another name with the same hash
        rec.failed = name
        duplicate(name, i, params)
        rec.failed = nil
      end
      return name, job, params
    end
    made[iter] = rec
    return iter
  end

  local combos = matrix_iter(norm)
  -- the names' hashes, 8 bytes each in C (kfjob._nameset), else a table
  local add = unique and K._nameset and K._nameset() or nil
  local seen, overflow = unique and not add and {} or nil, nil
  iter = function()
    local params = combos()
    if params == nil then
      seen, overflow, add = nil, nil, nil
      return nil
    end
    i = i + 1
    rec.failed, rec.index = nil, i
    local name, job = make(params)
    if not name then
      rec.failed = failed_name(params) or false
      error(sformat("%s: variant %d %s: %s", fname, i, describe_params(params), job), 2)
    end
    if add then
      if not add(name) then
        -- its hash is in the set: an earlier variant of this name, or
        -- (about never) another name with the same hash
        rec.failed = name
        duplicate(name, i, params)
        rec.failed = nil
      end
    elseif seen then
      local clash
      if overflow and overflow[name] then
        clash = overflow[name]
      else
        local h = hash64(name)
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
        rec.failed = name
        error(sformat("%s: duplicate name '%s' for variant %d %s and variant %d %s",
                      fname, name, clash, describe_params(params_at(clash)),
                      i, describe_params(params)), 2)
      end
    end
    return name, job, params
  end
  made[iter] = rec
  return iter
end

--- The number of combinations of a matrix, or of variants an iterator of
-- `matrix` or `variants` yields in all (whatever it has yielded so far),
-- counted without making them; for the progress bars and summaries of
-- hosts.  `exclude` and `include` are taken into account.
-- @tparam table|function m a matrix description or such an iterator
-- @treturn integer
-- @raise for anything else, and for a malformed matrix as `matrix` does
function api.count(m)
  local fname = "kfjob.template.count"
  if type(m) == "function" then
    local norm = made[m] and made[m].norm or matrices[m]
    if norm == nil then
      error(sformat("bad argument #1 to '%s' (not an iterator of kfjob.template)",
                    fname), 2)
    end
    return count_norm(norm)
  end
  if type(m) ~= "table" then
    error(sformat("bad argument #1 to '%s' (table expected, got %s)", fname, type(m)), 2)
  end
  local ok, norm = pcall(normalize_matrix, m)
  if not ok then reraise(fname .. ": ", norm) end
  return count_norm(norm)
end

-- For the host: the record of an iterator `variants` made, else nil.
function V.info(f)
  return made[f]
end

return V
