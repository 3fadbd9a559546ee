-- kfjob.convert: jobs written back as a config a person would write (SPEC
-- §14): kfjob.to_lua(jobs) gives the source of a script returning
-- { [name] = kfjob.<Kind>{ ... } } with only the fields that differ from
-- their defaults (a field is left out when the constructor gives the same
-- job without it), keys in schema order, two-space indent, strings quoted
-- by %q (every byte escaped that could end or break a literal).
local kfjob = require "kfjob"

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
  if type(v) == "string" then return (("%q"):format(v):gsub("\\\n", "\\n")) end
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
-- Keys of t: those of `order` first, in that order, then the rest sorted.
local function keys(t, order)
  local out, n = {}, 0
  order = order or NONE
  for i = 1, #order do
    local k = order[i]
    if t[k] ~= nil then n = n + 1; out[n] = k end
  end
  local total = 0
  for _ in pairs(t) do total = total + 1 end
  if total == n then return out end
  local seen, rest = {}, {}
  for i = 1, n do seen[out[i]] = true end
  for k in pairs(t) do if not seen[k] then rest[#rest + 1] = k end end
  table.sort(rest, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(rest) do n = n + 1; out[n] = k end
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
local function rest_of(t, order, n)
  local total = 0
  for _ in pairs(t) do total = total + 1 end
  if total == n then return nil end
  local seen, rest = {}, {}
  for i = 1, #order do seen[order[i]] = true end
  for k in pairs(t) do if not seen[k] then rest[#rest + 1] = k end end
  table.sort(rest, function(a, b) return tostring(a) < tostring(b) end)
  return rest
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

-- The argument of to_lua: a job (named "job") or a table name -> job;
-- returns the table and its names, sorted.
local function named_jobs(jobs, fname)
  if kfjob.is_job(jobs) then jobs = { job = jobs } end
  assert(type(jobs) == "table", "kfjob." .. fname .. ": expected a job or a table of jobs by name")
  local names = {}
  for name, job in pairs(jobs) do
    if type(name) ~= "string" or not kfjob.is_job(job) then
      error("kfjob." .. fname .. ": jobs[" .. tostring(name) .. "]: expected a job by its name", 3)
    end
    names[#names + 1] = name
  end
  table.sort(names)
  return jobs, names
end

function M.to_lua(jobs)
  local names
  jobs, names = named_jobs(jobs, "to_lua")
  local specs = core_config(jobs).jobs
  local out = { 'local kfjob = require "kfjob"\n\nreturn {\n' }
  for _, name in ipairs(names) do
    local s = specs[name]
    local kind = s.kind
    s.kind = nil
    out[#out + 1] = "  " .. key_of(name) .. " = "
    one(kind, s, out)
    out[#out + 1] = ",\n"
  end
  out[#out + 1] = "}\n"
  return table.concat(out)
end

-- jobs: a job (named "job") or a table name -> job; the same fields as
-- to_lua as a data config table: { jobs = { [name] = { kind = K, ... } } }
-- (the core's, kf_import_config.c).
M.to_config = core_config

-- A data config table as JSON text (which YAML reads too): two-space
-- indent, a job's keys in schema order (kind first), other keys sorted.
local json_string = require("kfjob.textutil").json_string

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

function M.config_text(config)
  local out = { '{\n  "jobs": {\n' }
  local names = keys(config.jobs)
  for i, name in ipairs(names) do
    local job = config.jobs[name]
    local o = ORDER[job.kind]
    local order = { "kind" }
    for _, k in ipairs(o.job) do order[#order + 1] = k end
    out[#out + 1] = "    " .. json_string(name) .. ": "
    json(job, 2, order, o, out)
    out[#out + 1] = i < #names and ",\n" or "\n"
  end
  out[#out + 1] = "  }\n}\n"
  return table.concat(out)
end

-- The `kfjob convert -f lua|config` generator (kfjob_generate "convert"):
-- manifests text -> the config of their jobs by name.
-- `image`: a Flyte file's container image, which the manifests gave every
-- group and the config leaves out (it is the task's, not the job's).
local function without_image(job, image)
  local s, drop = job:spec(), false
  for _, g in ipairs(ORDER[job.kind].job) do
    if type(s[g]) == "table" and s[g].image == image then s[g].image = nil; drop = true end
  end
  return drop and kfjob[job.kind](s) or job
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

-- text: manifests, or a data config (a document without apiVersion).
-- extra: for manifests, a Flyte file's image; for a data config "NAME"
-- (a single job's name, a list's prefix) then a tab and the name of each
-- job to write ("NAME\tbert\tgpt"; none: every job).
setmetatable(M, { __call = function(_, text, fmt, extra)
  local doc = kfjob.read_yaml(text)
  local jobs = {}
  if type(doc) == "table" and doc.apiVersion == nil then
    local name, keep = (extra or "job"):match("^([^\t]*)(.*)$")
    local all = data_jobs(doc, name)
    if keep == "" then jobs = all end
    for k in keep:gmatch("\t([^\t]+)") do jobs[k] = all[k] end
  else
    local r, msg = kfjob.from_manifests(text)
    if not r then return nil, msg end
    for _, x in ipairs(r) do jobs[x.info.name] = extra and without_image(x.job, extra) or x.job end
  end
  if fmt == "config" then return M.config_text(M.to_config(jobs)) end
  return M.to_lua(jobs)
end })

return M
