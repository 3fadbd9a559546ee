-- kfjob.convert: jobs written back as a config a person would write (SPEC
-- §14): kfjob.to_lua(jobs) gives the source of a script returning
-- { [name] = kfjob.<Kind>{ ... } } with only the fields that differ from
-- their defaults (a field is left out when the constructor gives the same
-- job without it), keys in schema order, two-space indent, strings quoted
-- by %q (every byte escaped that could end or break a literal).  A
-- `{ job = <job>, opts = {...} }` entry is written as one: the options an
-- output needs that no job field holds (a TaskSpec's id, interface and
-- metadata).
local kfjob = require "kfjob"
local textutil = require "kfjob.textutil"

local M = {}

-- The rows' key order (kf_schema.c), by kind: { job = {...}, group =
-- {...}, tables = { [key] = {...} } }, as kfjob.to_config gives it.  The
-- core (kf_import_config.c) finds each job's smallest spec.
local core_config = kfjob.to_config
local ORDER = select(2, core_config({}, true))

local KEYWORDS = {}
for w in ("and break do else elseif end false for function goto if in local nil not or "
          .. "repeat return then true until while"):gmatch("%a+") do KEYWORDS[w] = true end

local function key_of(k)
  if type(k) == "string" and k:match("^[%a_][%w_]*$") and not KEYWORDS[k] then return k end
  return "[" .. (type(k) == "string" and ("%q"):format(k) or tostring(k)) .. "]"
end

local function scalar(v)
  if type(v) == "string" then return textutil.lua_string(v) end
  if math.type and math.type(v) == "integer" then return tostring(v) end
  if type(v) == "number" then
    if v == math.floor(v) and v > -2^53 and v < 2^53 then return ("%d"):format(v) end
    return ("%.17g"):format(v)
  end
  return tostring(v)
end

local PAD = setmetatable({}, { __index = function(t, n)
  local p = ("  "):rep(n); t[n] = p; return p
end })

-- "<indent>}" by indent.
local CLOSE = setmetatable({}, { __index = function(t, n)
  local c = PAD[n] .. "}"; t[n] = c; return c
end })

-- "<indent>key = " by indent and key (keys recur: "replicas", "worker",
-- ...), the one memo of the writer; bounded, so keys a config invents are
-- not kept past 4096.
local LEADN = 0
local LEAD = setmetatable({}, { __index = function(t, n)
  local m = setmetatable({}, { __index = function(u, k)
    local l = PAD[n] .. key_of(k) .. " = "
    if LEADN < 4096 then u[k] = l; LEADN = LEADN + 1 end
    return l
  end })
  t[n] = m
  return m
end })

local NONE = {}
local rest_of

-- Keys of t: those of `order` first, in that order, then the rest sorted.
local function keys(t, order)
  local out, n = {}, 0
  order = order or NONE
  for i = 1, #order do
    local k = order[i]
    if t[k] ~= nil then n = n + 1; out[n] = k end
  end
  for _, k in ipairs(rest_of(t, order, n) or NONE) do n = n + 1; out[n] = k end
  return out
end

-- The order of the keys of the table under key k, by the kind's rows
-- (o = ORDER[kind]): a table row's keys, none (sorted) for a pod
-- template, else a group's.
local function order_of(o, k)
  return o.tables[k] or (k == "pod_template" and NONE or o.group)
end

local write

-- The keys of t not in `order` (counted `n` there), sorted.
function rest_of(t, order, n)
  local total = 0
  for _ in pairs(t) do total = total + 1 end
  if total == n then return nil end
  local seen = {}
  for i = 1, #order do seen[order[i]] = true end
  return textutil.sorted_keys(t, textutil.by_text, function(k) return not seen[k] end)
end

-- The entries of table t at indent ind: those of `order` first, in that
-- order, then the rest sorted.
local function entries(t, ind, order, o, out)
  local lead, n = LEAD[ind], 0
  for i = 1, #order do
    local k = order[i]
    local v = t[k]
    if v ~= nil then
      n = n + 1
      out[#out + 1] = lead[k]
      write(v, ind, order_of(o, k), o, out)
      out[#out + 1] = ",\n"
    end
  end
  local rest = rest_of(t, order, n)
  for i = 1, rest and #rest or 0 do
    local k = rest[i]
    out[#out + 1] = lead[k]
    write(t[k], ind, order_of(o, k), o, out)
    out[#out + 1] = ",\n"
  end
end

write = function(v, ind, order, o, out)
  if type(v) ~= "table" then out[#out + 1] = scalar(v); return end
  if next(v) == nil then out[#out + 1] = "{}"; return end
  local n = #v
  out[#out + 1] = "{\n"
  if n > 0 and next(v, n) == nil then
    local pad = PAD[ind + 1]
    for i = 1, n do
      out[#out + 1] = pad; write(v[i], ind + 1, nil, o, out); out[#out + 1] = ",\n"
    end
  else
    entries(v, ind + 1, order or NONE, o, out)
  end
  out[#out + 1] = CLOSE[ind]
end

-- spec: a job's smallest spec (kfjob.to_config's entry, without kind);
-- groups take the group rows' order, the job's own tables their rows'.
local function one(kind, spec, out)
  local o = ORDER[kind]
  out[#out + 1] = "kfjob." .. kind
  if next(spec) == nil then out[#out + 1] = "{}"; return end
  out[#out + 1] = "{\n"
  entries(spec, 2, o.job, o, out)
  out[#out + 1] = "  }"
end

-- The argument of to_lua: a job (named "job") or a table name -> job or
-- { job = <job>, opts = <table> } entry; returns name -> job, name -> opts
-- and the names, sorted.
local function named_jobs(jobs, fname)
  if kfjob.is_job(jobs) then jobs = { job = jobs } end
  assert(type(jobs) == "table", "kfjob." .. fname .. ": expected a job or a table of jobs by name")
  local names, plain, opts = {}, {}, {}
  for name, job in pairs(jobs) do
    local entry = type(job) == "table" and not kfjob.is_job(job)
    if entry then opts[name], job = job.opts, job.job end
    if type(name) ~= "string" or not kfjob.is_job(job) or
       (entry and opts[name] ~= nil and type(opts[name]) ~= "table") then
      error("kfjob." .. fname .. ": jobs[" .. tostring(name) .. "]: expected a job by its name "
            .. "(or a { job =, opts = } entry)", 3)
    end
    names[#names + 1], plain[name] = name, job
  end
  table.sort(names)
  return plain, opts, names
end

function M.to_lua(jobs)
  local opts, names
  jobs, opts, names = named_jobs(jobs, "to_lua")
  local specs = core_config(jobs).jobs
  local out = { 'local kfjob = require "kfjob"\n\nreturn {\n' }
  for _, name in ipairs(names) do
    local s = specs[name]
    local kind = s.kind
    s.kind = nil
    out[#out + 1] = "  " .. key_of(name) .. " = "
    if opts[name] then   -- { job = ..., opts = ... }, one level deeper
      out[#out + 1] = "{\n    job = "
      local body = {}
      one(kind, s, body)
      out[#out + 1] = table.concat(body):gsub("\n", "\n  ")
      out[#out + 1] = ",\n    opts = "
      write(opts[name], 2, NONE, ORDER[kind], out)
      out[#out + 1] = ",\n  }"
    else
      one(kind, s, out)
    end
    out[#out + 1] = ",\n"
  end
  out[#out + 1] = "}\n"
  return table.concat(out)
end

-- jobs: a job (named "job") or a table name -> job (or { job =, opts = }
-- entry: its job, a data config has no place for opts); the same fields
-- as to_lua as a data config table: { jobs = { [name] = { kind = K, ... } } }
-- (the core's, kf_import_config.c).
M.to_config = core_config

-- A data config table as JSON text (which YAML reads too): two-space
-- indent, a job's keys in schema order (kind first), other keys sorted.
local json_string = textutil.json_string

local function json(v, ind, order, o, out)
  if type(v) == "string" then out[#out + 1] = json_string(v); return end
  if type(v) ~= "table" then out[#out + 1] = scalar(v); return end
  if next(v) == nil then out[#out + 1] = "{}"; return end
  local pad, n = PAD[ind + 1], #v
  local list = n > 0 and next(v, n) == nil
  out[#out + 1] = list and "[\n" or "{\n"
  local ks = list and {} or keys(v, order)
  for i = 1, list and n or #ks do
    local k = ks[i]
    out[#out + 1] = pad .. (list and "" or json_string(tostring(k)) .. ": ")
    json(list and v[i] or v[k], ind + 1, order_of(o, k), o, out)
    out[#out + 1] = ((list and i < n) or (not list and i < #ks)) and ",\n" or "\n"
  end
  out[#out + 1] = PAD[ind] .. (list and "]" or "}")
end

-- The job names of a config, sorted, and each job's key order (kind first).
local function job_orders(config)
  local names, orders = keys(config.jobs), {}
  for _, name in ipairs(names) do
    local order = { "kind" }
    for _, k in ipairs(ORDER[config.jobs[name].kind].job) do order[#order + 1] = k end
    orders[name] = order
  end
  return names, orders
end

function M.config_text(config)
  local out = { '{\n  "jobs": {\n' }
  local names, orders = job_orders(config)
  for i, name in ipairs(names) do
    local job = config.jobs[name]
    out[#out + 1] = "    " .. json_string(name) .. ": "
    json(job, 2, orders[name], ORDER[job.kind], out)
    out[#out + 1] = i < #names and ",\n" or "\n"
  end
  out[#out + 1] = "  }\n}\n"
  return table.concat(out)
end

-- YAML: a string plain where every YAML 1.1 and 1.2 reader takes it for
-- that string (a word of letters, digits and -_./ that no reader takes
-- for a number, boolean, null or timestamp), else double-quoted as JSON
-- writes it (a JSON string is a YAML double-quoted scalar).
local YAML_WORDS = {}
for w in ("null true false yes no y n on off"):gmatch("%a+") do YAML_WORDS[w] = true end
local function yaml_string(s)
  if s:match("^[%a_/][%w_./-]*$") and not YAML_WORDS[s:lower()] then return s end
  return json_string(s)
end

local function is_list(v) return #v > 0 and next(v, #v) == nil end

local yaml_entries
-- One value after "key:" or "-" (its line so far in out), at indent ind.
local function yaml_value(x, ind, order, o, in_list, out)
  if type(x) ~= "table" or next(x) == nil then
    out[#out + 1] = " " .. (type(x) == "string" and yaml_string(x)
                            or type(x) == "table" and "{}" or scalar(x)) .. "\n"
  elseif in_list and not is_list(x) then
    -- a table in a list: its first key on the dash's line
    local sub = {}
    yaml_entries(x, ind + 1, order, o, sub)
    sub[1] = " " .. sub[1]:sub(#PAD[ind + 1] + 1)
    out[#out + 1] = table.concat(sub)
  else
    out[#out + 1] = "\n"
    yaml_entries(x, ind + 1, order, o, out)
  end
end

-- The entries of table v at indent ind, a line (or block) each.
yaml_entries = function(v, ind, order, o, out)
  local list = is_list(v)
  local ks = list and {} or keys(v, order)
  for i = 1, list and #v or #ks do
    local k = ks[i]
    out[#out + 1] = PAD[ind] .. (list and "-" or yaml_string(tostring(k)) .. ":")
    yaml_value(list and v[i] or v[k], ind, order_of(o, k), o, list, out)
  end
end

-- A data config table as YAML text (kfjob convert -f config-yaml): the
-- same keys in the same order as config_text, block style, two-space
-- indent.
function M.config_yaml(config)
  local out = { "jobs:\n" }
  local names, orders = job_orders(config)
  for _, name in ipairs(names) do
    local job = config.jobs[name]
    out[#out + 1] = "  " .. yaml_string(name) .. ":\n"
    yaml_entries(job, 2, orders[name], ORDER[job.kind], out)
  end
  return table.concat(out)
end

-- A data config (SPEC §15), already checked by the host's reader (`kfjob
-- convert` runs it first): its jobs by the names `kfjob render` gives
-- them (`name` for a single job, NAME-1, ... for a list, the keys of
-- {jobs = ...}), each built by its constructor without its `kind`.
local function data_jobs(doc, name)
  local function build(t)
    local s = {}
    for k, v in pairs(t) do if k ~= "kind" and k ~= "$schema" then s[k] = v end end
    return kfjob[t.kind](s)
  end
  local jobs = {}
  if doc[1] ~= nil then
    for i, t in ipairs(doc) do jobs[name .. "-" .. i] = build(t) end
  elseif doc.kind ~= nil then
    jobs[name] = build(doc)
  else
    for k, t in pairs(doc.jobs) do jobs[k] = build(t) end
  end
  return jobs
end

-- A TaskTemplate or TaskSpec (bytes or JSON) -> { job =, opts = } with
-- the options its output needs that no job field holds (a TaskSpec's
-- interface and metadata, the id, a version 0, the common replica
-- encoding, another config, unwrapped MPI args), or the job alone; nil,
-- msg when it is neither.
local function decode(data, opts)
  local job, info = kfjob.decode_task_template(data, opts)
  if job then return job, info, false end
  local j2, i2 = kfjob.decode_task_spec(data, opts)
  if j2 then return j2, i2, true end
  return nil, info
end

local function flyte_entry(data, kind)
  local job, info, spec = decode(data, kind and { kind = kind })
  if not job then return nil, info end
  local args = info.container and info.container.args
  if not kind and job.kind == "MPIJob" and info.wrap_launcher == false and args
     and args[1] == "horovodrun" then
    local hj, hinfo = decode(data, { kind = "HorovodJob" })   -- flytekit's HorovodJob
    if hj then job, info = hj, hinfo end
  end
  -- a target of its own (a clustered task, Flyte 2's Kueue labels): the
  -- config renders for it with no flag
  local o = { id = info.id, wrap_launcher = info.wrap_launcher,
              replica_encoding = info.replica_encoding, target = info.target }
  if spec then
    o.interface = next(info.interface or {}) and info.interface or nil
    o.metadata = next(info.metadata or {}) and info.metadata or nil
  end
  if info.version ~= 1 then o.version = info.version end
  for k, v in pairs(info.config or {}) do
    -- version 0 writes an MPI worker command there itself
    if not (k == "worker_spec_command" and info.version == 0) then
      o.config = o.config or {}
      o.config[k] = v
    end
  end
  -- a template's container kfjob has nothing of (proto3 defaults)
  if not spec and info.container and not job:spec().container then o.container = {} end
  if next(o) then return { job = job, opts = o } end
  return job
end

local function unhex(h)
  return (h:gsub("%x%x", function(x) return string.char(tonumber(x, 16)) end))
end

-- Manifests -> their jobs by name (the job holds the resource's labels
-- and annotations, its pod templates theirs: no option is needed).
-- `names`: "KEY1\tKEY2..." the key of each job in order (the CLI's
-- distinct names: two jobs of one name in two namespaces are two jobs),
-- else each job's name; a job keyed other than by its name keeps it as
-- opts.name.  `kind`: read them as that kind (--kind).  Two jobs of one
-- key are an error, never one job dropped.  Returns the jobs and whether
-- any was renamed.
local function manifest_jobs(text, names, kind)
  local r, msg = kfjob.from_manifests(text, kind and { kind = kind })
  if not r then return nil, msg end
  local jobs, ks, renamed = {}, {}, false
  for k in (names or ""):gmatch("[^\t]+") do ks[#ks + 1] = k end
  for i, x in ipairs(r) do
    local key = ks[i] or x.info.name
    if jobs[key] ~= nil then
      return nil, ("documents %d and more: two jobs named '%s' (kfjob convert keys them "
                   .. "apart by their namespace)"):format(i, key)
    end
    if key ~= x.info.name then
      jobs[key], renamed = { job = x.job, opts = { name = x.info.name } }, true
    else
      jobs[key] = x.job
    end
  end
  return jobs, nil, renamed
end

-- A data config has no place for an entry's opts: its job, or (unless
-- `lossy`) nil and a message naming what would be left out.
local function data_only(jobs, lossy)
  local out, names = {}, textutil.sorted_keys(jobs)
  for _, name in ipairs(names) do
    local e = jobs[name]
    if kfjob.is_job(e) or not e.opts or lossy then
      out[name] = kfjob.is_job(e) and e or e.job
    else
      local ks = {}
      for _, k in ipairs(keys(e.opts)) do ks[#ks + 1] = "opts." .. k end
      return nil, ("job '%s': %s cannot be said in a data config (no job field holds it): "
                   .. "-f lua writes a { job =, opts = } entry (--lossy leaves it out)")
                  :format(name, table.concat(ks, ", "))
    end
  end
  return out
end

-- The `kfjob convert -f lua|config|config-yaml` generator (kfjob_generate
-- "convert"): text -> the config of its jobs by name.  text: manifests, a
-- data config (a document without apiVersion), or a TaskTemplate or
-- TaskSpec as hex digits.  extra: "\1flyte\t<lossy>\tKIND\tNAME" for a
-- TaskTemplate or TaskSpec (its job named NAME), "\1manifests\t<lossy>\t
-- KIND\tKEY1\tKEY2..." for manifests (each job's key in order; <lossy>
-- "1": a data config leaves out what it cannot say, else that is an
-- error; KIND, when not empty, the kind to read them as: --kind), else for
-- a data config "NAME" (a single job's name, a list's prefix) then a tab
-- and the name of each job to write ("NAME\tbert\tgpt"; none: every job).
setmetatable(M, { __call = function(_, text, fmt, extra)
  local jobs, msg = {}
  -- (KIND and what follows may be left out: "\1manifests\t1")
  local what, lossy, kind, name = (extra or ""):match("^\1(%a+)\t(%d)\t?([^\t]*)\t?(.*)$")
  if kind == "" then kind = nil end
  -- manifests the CLI made (operator manifests, each with its apiVersion)
  -- are not read as a data config first
  local doc = what == nil and kfjob.read_yaml(text)
  if what == "flyte" then
    jobs[name], msg = flyte_entry(unhex(text), kind)
    if msg then return nil, msg end
  elseif type(doc) == "table" and doc.apiVersion == nil then
    local keep
    name, keep = (extra or "job"):match("^([^\t]*)(.*)$")
    local all = data_jobs(doc, name)
    if keep == "" then jobs = all end
    for k in keep:gmatch("\t([^\t]+)") do jobs[k] = all[k] end
  else
    local renamed
    jobs, msg, renamed = manifest_jobs(text, what == "manifests" and name or nil, kind)
    if not jobs then return nil, msg end
    if renamed and fmt ~= "lua" then   -- a data config names a job by its key alone
      return nil, "two jobs have one name (in two namespaces, or of two kinds): a data config "
        .. "names each job by its key alone, so one would be renamed; -f lua keeps both names "
        .. "({ job =, opts = { name = } }), -o DIR writes each to its own file"
    end
  end
  if fmt == "lua" then return M.to_lua(jobs) end
  jobs, msg = data_only(jobs, lossy == "1")
  if not jobs then return nil, msg end
  local config = M.to_config(jobs)
  return fmt == "config-yaml" and M.config_yaml(config) or M.config_text(config)
end })

return M
