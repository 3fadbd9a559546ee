-- kfjob.convert: jobs written back as a config a person would write (SPEC
-- §14): kfjob.to_lua(jobs) gives the source of a script returning
-- { [name] = kfjob.<Kind>{ ... } } with only the fields that differ from
-- their defaults (a field is left out when the constructor gives the same
-- job without it), keys in schema order, two-space indent, strings quoted
-- by %q (every byte escaped that could end or break a literal).
local kfjob = require "kfjob"

local M = {}

-- The constructors' order of groups and job-level fields (kf_schema.c rows).
local GROUPS = {
  TFJob = { "worker", "ps", "chief", "evaluator" }, PyTorchJob = { "worker", "master" },
  Elastic = { "worker" }, MPIJob = { "worker", "launcher" }, HorovodJob = { "worker", "launcher" },
  JAXJob = { "worker" }, XGBoostJob = { "worker", "master" }, PaddleJob = { "worker", "master" },
}
local JOB_KEYS = { "nnodes", "nproc_per_node", "max_restarts", "rdzv_backend", "(groups)",
  "run_policy", "slots", "verbose", "log_level", "discovery_script_path", "elastic_timeout",
  "pod_template", "shared_memory", "accelerator", "requests", "limits", "scheduling" }
local GROUP_KEYS = { "replicas", "image", "requests", "limits", "restart_policy", "command",
  "pod_template", "topology" }
local NESTED = {
  run_policy = { "clean_pod_policy", "ttl_seconds_after_finished", "active_deadline_seconds", "backoff_limit" },
  requests = { "cpu", "mem", "gpu", "ephemeral_storage" },
  limits = { "cpu", "mem", "gpu", "ephemeral_storage" },
  accelerator = { "device", "partition_size", "unpartitioned" },
  scheduling = { "queue", "priority_class", "max_exec_time", "suspend", "multikueue", "topology", "gang" },
  topology = { "required", "preferred", "unconstrained", "slice_required", "slice_size" },
  gang = { "min_available", "queue", "priority_class", "schedule_timeout_seconds", "min_resources",
           "scheduler" },
  min_resources = { "cpu", "mem", "gpu", "ephemeral_storage" },
}

local KEYWORDS = {}
for w in ("and break do else elseif end false for function goto if in local nil not or "
          .. "repeat return then true until while"):gmatch("%a+") do KEYWORDS[w] = true end

local function copy(t)
  if type(t) ~= "table" then return t end
  local c = {}
  for k, v in pairs(t) do c[k] = copy(v) end
  return c
end

-- The spec without every key whose absence gives the same job.
local function minimal(job)
  local kind, s = job.kind, job:spec()
  local function same(t) local ok, j = pcall(kfjob[kind], t); return ok and j == job end
  for _, g in ipairs(GROUPS[kind]) do
    for k in pairs(s[g] or {}) do
      local t = copy(s); t[g][k] = nil
      if next(t[g]) == nil then t[g] = nil end
      if same(t) then s = t end
      if s[g] == nil then break end
    end
    if s[g] then local t = copy(s); t[g] = nil; if same(t) then s = t end end
  end
  for k, v in pairs(s) do
    if NESTED[k] and type(v) == "table" then   -- run_policy, scheduling, ...
      for sub in pairs(v) do
        local t = copy(s); t[k][sub] = nil
        if same(t) then s = t end
      end
    end
  end
  for k in pairs(s) do
    local t = copy(s); t[k] = nil
    if same(t) then s = t end
  end
  return s
end

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

local write
-- Keys of t: those of `order` first, in that order, then the rest sorted.
local function keys(t, order)
  local out, seen = {}, {}
  for _, k in ipairs(order or {}) do
    if t[k] ~= nil then out[#out + 1] = k; seen[k] = true end
  end
  local rest = {}
  for k in pairs(t) do if not seen[k] then rest[#rest + 1] = k end end
  table.sort(rest, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(rest) do out[#out + 1] = k end
  return out
end

write = function(v, ind, order, out)
  if type(v) ~= "table" then out[#out + 1] = scalar(v); return end
  if next(v) == nil then out[#out + 1] = "{}"; return end
  local n = #v
  local pad = ("  "):rep(ind + 1)
  out[#out + 1] = "{\n"
  if n > 0 and next(v, n) == nil then
    for i = 1, n do
      out[#out + 1] = pad; write(v[i], ind + 1, nil, out); out[#out + 1] = ",\n"
    end
  else
    for _, k in ipairs(keys(v, order)) do
      out[#out + 1] = pad .. key_of(k) .. " = "
      write(v[k], ind + 1, NESTED[k] or (k == "pod_template" and {} or GROUP_KEYS), out)
      out[#out + 1] = ",\n"
    end
  end
  out[#out + 1] = ("  "):rep(ind) .. "}"
end

local function one(job, out)
  local s = minimal(job)
  local order = {}
  for _, k in ipairs(JOB_KEYS) do
    if k == "(groups)" then
      for _, g in ipairs(GROUPS[job.kind]) do order[#order + 1] = g end
    else
      order[#order + 1] = k
    end
  end
  out[#out + 1] = "kfjob." .. job.kind
  if next(s) == nil then out[#out + 1] = "{}"; return end
  -- groups take GROUP_KEYS, the job's own tables their NESTED order
  local pad = "    "
  out[#out + 1] = "{\n"
  for _, k in ipairs(keys(s, order)) do
    out[#out + 1] = pad .. key_of(k) .. " = "
    local is_group = false
    for _, g in ipairs(GROUPS[job.kind]) do if g == k then is_group = true end end
    write(s[k], 2, is_group and GROUP_KEYS or NESTED[k] or {}, out)
    out[#out + 1] = ",\n"
  end
  out[#out + 1] = "  }"
end

-- jobs: a job (named "job") or a table name -> job.
-- The argument of to_lua and to_config: a job (named "job") or a table
-- name -> job; returns the table and its names, sorted.
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
  local out = { 'local kfjob = require "kfjob"\n\nreturn {\n' }
  for _, name in ipairs(names) do
    out[#out + 1] = "  " .. key_of(name) .. " = "
    one(jobs[name], out)
    out[#out + 1] = ",\n"
  end
  out[#out + 1] = "}\n"
  return table.concat(out)
end

-- jobs: a job (named "job") or a table name -> job; the same fields as
-- to_lua as a data config table: { jobs = { [name] = { kind = K, ... } } }.
function M.to_config(jobs)
  local names, out
  jobs, names = named_jobs(jobs, "to_config")
  out = {}
  for _, name in ipairs(names) do
    local job = jobs[name]
    local s = minimal(job)
    s.kind = job.kind
    out[name] = s
  end
  return { jobs = out }
end

-- A data config table as JSON text (which YAML reads too): two-space
-- indent, a job's keys in schema order (kind first), other keys sorted.
local NAMED = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r" }
local function json_string(v)
  return '"' .. v:gsub('[%c"\\]', function(c)
    return NAMED[c] or ("\\u%04x"):format(c:byte())
  end) .. '"'
end

local function json(v, ind, order, out)
  if type(v) == "string" then out[#out + 1] = json_string(v); return end
  if type(v) ~= "table" then out[#out + 1] = scalar(v); return end
  if next(v) == nil then out[#out + 1] = "{}"; return end
  local pad, n = ("  "):rep(ind + 1), #v
  local list = n > 0 and next(v, n) == nil
  out[#out + 1] = list and "[\n" or "{\n"
  local ks = list and {} or keys(v, order)
  for i = 1, list and n or #ks do
    local k = ks[i]
    out[#out + 1] = pad .. (list and "" or json_string(tostring(k)) .. ": ")
    json(list and v[i] or v[k], ind + 1, NESTED[k] or (k == "pod_template" and {} or GROUP_KEYS), out)
    out[#out + 1] = ((list and i < n) or (not list and i < #ks)) and ",\n" or "\n"
  end
  out[#out + 1] = ("  "):rep(ind) .. (list and "]" or "}")
end

function M.config_text(config)
  local out = { '{\n  "jobs": {\n' }
  local names = keys(config.jobs)
  for i, name in ipairs(names) do
    local job = config.jobs[name]
    local order = { "kind" }
    for _, k in ipairs(JOB_KEYS) do
      if k == "(groups)" then
        for _, g in ipairs(GROUPS[job.kind]) do order[#order + 1] = g end
      else
        order[#order + 1] = k
      end
    end
    out[#out + 1] = "    " .. json_string(name) .. ": "
    json(job, 2, order, out)
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
  for _, g in ipairs(GROUPS[job.kind]) do
    if s[g] and s[g].image == image then s[g].image = nil; drop = true end
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
