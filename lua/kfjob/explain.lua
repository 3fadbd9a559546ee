-- kfjob.explain: `kfjob explain KIND[.path] [--target T] [--recursive]`,
-- as `kubectl explain`, from the schema rows (kfjob.fields): type,
-- default, range or values, aliases, deprecation, description, where the
-- field goes in each output and the rules its row names.  What each target
-- does with a field (the values its rules take, where its manifest puts
-- it, what it writes when the field is unset or 0) is asked of the core
-- itself: a job of the kind with the field set, checked (the rule rows)
-- and made into the target's manifest (the writers).  Lua 5.1-5.4.
local kfjob = require "kfjob"

local concat, sort, insert = table.concat, table.sort, table.insert

local keys_of = require("kfjob.textutil").sorted_keys

local function camel(s)
  return (s:gsub("_(%w)", string.upper))
end

local function camel_path(p)
  local out = {}
  for seg in p:gmatch("[^.]+") do out[#out + 1] = camel(seg) end
  return concat(out, ".")
end

local function type_text(row)
  local t = row.type
  if t == "integer" and row.values then return "integer or one of " .. concat(row.values, ", ") end
  if t == "table" and row.short then return "table (or a string: its " .. row.short .. ")" end
  if t == "strings" then return "list of strings" end
  if t == "nnodes" then return "integer or \"MIN:MAX\"" end
  if t == "size" then return "true or a quantity" end
  if t == "tree" then
    return row.tree == "PodTemplate" and "table (a Kubernetes PodTemplateSpec)" or "table (" .. row.what .. ")"
  end
  return t
end

-- A path and one more key, as every other message writes a manifest path:
-- a key holding a dot is quoted (resources.limits["nvidia.com/gpu"]).
local function key_at(at, k)
  if type(k) == "string" and k:find(".", 1, true) then return at .. '["' .. k .. '"]' end
  return at == "" and k or at .. "." .. k
end

-- Where the operator's manifest keeps a row (operator, flyte, flyte2 write
-- the same kubeflow.org/v1 paths; the description names the others').
-- `grow` is the group row on the path (its place), nil outside a group.
local function manifest_path(info, path, row, grow)
  if not row.manifest then return nil end
  local top, specs = path[1], "spec." .. info.replica_specs
  if top == "run_policy" then   -- the run policy's place (the core's KF_PLACES)
    return info.places.run_policy.path.operator .. (#path > 1 and ("." .. row.manifest) or "")
  end
  if top == "scheduling" then return nil end   -- labels/annotations: see description
  if #path == 1 and row.proto and row.proto:find("^elastic_config") then
    -- nproc_per_node: training-operator v1.9 reads spec.nprocPerNode and
    -- deprecates elasticPolicy.nProcPerNode, which Flyte's backends still
    -- write (docs/TARGETS.md, R10): the operator's own path
    if row.type == "integer" and row.values then
      return "spec.elasticPolicy." .. row.manifest, { operator = "spec.nprocPerNode" }
    end
    return "spec.elasticPolicy." .. row.manifest
  end
  if #path == 1 and row.manifest == "slotsPerWorker" then return "spec.slotsPerWorker" end
  -- a job row that goes only where its place is: the place's path (KF_PLACES)
  local pl = #path == 1 and row.placed and info.places[row.place]
  if pl and not pl.group and pl.path.operator then return pl.path.operator .. "." .. row.manifest end
  if grow and grow.place then
    -- the place's path under the replica spec (the core's KF_PLACES)
    local at = specs .. "." .. info.groups[top] .. info.places[grow.place].path.operator
    if grow.place == "resources" then   -- requests / limits, then the resource
      return path[3] and key_at(at .. "." .. path[2], row.manifest) or at .. "." .. path[2]
    end
    return at .. "." .. row.manifest
  end
  return nil
end

local function where_lines(kind, info, path, row, grow, target, out)
  local p = concat(path, ".")
  if target and not info.payload[target] then
    out[#out + 1] = "  plugin message: none (" .. target .. " takes manifests)"
  elseif target and info.own_payload[target] then   -- probed: ON TARGET's payload line
    out[#out + 1] = "  plugin message: " .. target .. "'s own (its payload: ON TARGET)"
  elseif info.task_type and row.proto then
    local proto = row.proto
    if proto:match("^%u+$") then   -- a ResourceName entry of a resources list
      proto = "resources." .. path[#path - 1] .. "[name=" .. proto .. "]"
      if #path == 2 then proto = nil end
    end
    if proto and #path >= 2 and info.groups[path[1]] then proto = path[1] .. "_replicas." .. proto end
    if proto and path[1] == "run_policy" and #path == 2 then proto = "run_policy." .. proto end
    if not proto then
      out[#out + 1] = "  plugin message: the TaskTemplate container's resources (task resources)"
    else
    out[#out + 1] = ("  plugin message (%s, v1): field %s, JSON key %s"):format(
        info.task_type, proto, camel_path(proto))
    if row.proto_v0 then
      out[#out + 1] = ("  plugin message (v0): field %s, JSON key %s"):format(
          row.proto_v0, camel_path(row.proto_v0))
    else
      out[#out + 1] = "  plugin message (v0): cannot carry it"
    end
    end
  elseif info.task_type then
    out[#out + 1] = "  plugin message: not carried (" .. p .. " is not a proto field)"
  else
    out[#out + 1] = "  plugin message: none (" .. kind .. " has no Flyte task type)"
  end
  -- a field's own target is asked (ON TARGET); a table's path is its row's
  local mp, own
  if not target or row.fields then mp, own = manifest_path(info, path, row, grow) end
  own = own or {}
  if mp then
    -- the kubeflow.org/v1 targets (kfjob.targets' resource), the operator's
    -- first (the path is its), less those with no place for the row (R34);
    -- a target with a path of its own (`own`) on a line of its own
    local not_on, on, apart = (grow or row).not_on or {}, {}, {}
    for _, ti in ipairs(kfjob.targets()) do
      local t = ti.name
      if ti.resource == "kubeflow.org/v1" and not not_on[t] and (not target or t == target) then
        if own[t] then apart[#apart + 1] = t
        else insert(on, t == "operator" and 1 or #on + 1, t) end
      end
    end
    for _, t in ipairs(apart) do out[#out + 1] = "  manifest (" .. t .. "): " .. own[t] end
    if #on > 0 then out[#out + 1] = "  manifest (" .. concat(on, ", ") .. "): " .. mp end
  elseif not target and row.manifest then
    out[#out + 1] = "  manifest key: " .. row.manifest
  end
end

-- ---- each target, asked of the core ---------------------------------------

local PROBE = { name = "probe", image = "img:1" }   -- the manifest options

-- A job of the kind with a pod in every group (an elastic job two nodes
-- instead), which every target that runs the kind accepts, and the
-- tables above the field given empty (so that what they write unset, as
-- run_policy's cleanPodPolicy, is not taken for the field's place).
local function base_job(kind, info, path)
  local spec, plain, at = {}, {}, nil
  if info.rows.nnodes then spec.nnodes, plain.nnodes = 2, 2 end   -- one node: a plain pod on Flyte
  for k in pairs(info.groups) do spec[k] = { replicas = 1 } end
  local ok, job = pcall(kfjob[kind], spec)
  if not ok then ok, job = pcall(kfjob[kind], plain) end
  if not ok then return nil end
  for i = 1, #path - 1 do at = (at and at .. "." or "") .. path[i] end
  if at and not info.groups[path[1]] then
    local ok2, with = pcall(job.with, job, { [at] = {} })
    if ok2 then return with, job end
  end
  return job
end

-- Values to try a value tree with (a pod template is not asked): the
-- first shows where it goes; each further one, with its label, whether
-- the target takes that form (an env entry's valueFrom, R36 on Flyte).
local TREE_PROBES = {
  Env = {
    { label = "name = value", value = { { name = "KFJOB_PROBE", value = "x" } } },
    { label = "valueFrom", value = { { name = "KFJOB_PROBE",
                                       valueFrom = { fieldRef = { fieldPath = "metadata.name" } } } } },
  },
  StringMap = {
    { label = "key = value", value = { ["kfjob-probe"] = "x" } },
  },
  -- a kubernetes.io name: native, so a request needs no limit
  -- (IsOvercommitAllowed) and either side shows where it goes
  Quantities = {
    { label = "name = quantity", value = { ["kfjob.kubernetes.io/probe"] = "1" } },
  },
}

-- A manifest place inside a probe tree, folded to the tree's own place:
-- "...env[0].name" is "...env", "metadata.labels.kfjob-probe" is
-- "metadata.labels".
local FOLD = {
  Env = function(at) return (at:gsub("(%.env)%[%d+%].*$", "%1")) end,
  StringMap = function(at) return (at:gsub("%.kfjob%-probe$", "")) end,
  Quantities = function(at) return (at:gsub("%.kfjob%.kubernetes%.io/probe$", "")) end,
}

-- Values to try a row with: its enum values, else ones its type and range
-- take (the first the field accepts shows where it goes).
local function probe_values(row)
  local t, out = row.type, {}
  if t == "tree" then
    for _, p in ipairs(TREE_PROBES[row.tree] or {}) do out[#out + 1] = p.value end
  elseif t == "enum" then
    for _, v in ipairs(row.values) do out[#out + 1] = v end
  elseif t == "integer" or t == "nnodes" then
    local d, m = row.default or 0, row.min or 0
    for _, v in ipairs({ d + 1, d + 2, m + 1 }) do
      if v ~= d and v >= m then out[#out + 1] = v end
    end
    for _, v in ipairs(row.values or {}) do out[#out + 1] = v end
  elseif t == "quantity" then
    out = { "3", "5" }
  elseif t == "boolean" then
    out = { not row.default }
  elseif t == "size" then
    out = { true, "1Gi" }
  elseif t == "string" then
    out = { "kfjob-probe", "kubernetes.io/hostname", "nvidia-tesla-t4" }
  elseif t == "strings" then
    out = { { "kfjob-probe" } }
  end
  return out
end

-- The strings of a probe value (a tree's keys and values too).
local function leaves(v, out)
  if type(v) == "table" then
    for k, x in pairs(v) do
      if type(k) == "string" then out[#out + 1] = k end
      leaves(x, out)
    end
  elseif v ~= nil and type(v) ~= "boolean" then
    out[#out + 1] = tostring(v)
  end
  return out
end

-- A message about the job with value v, without v: a probe is explain's
-- own, not the user's ("'kfjob-probe' is ignored" says "<value> is ignored").
local function scrub(msg, v)
  msg = tostring(msg)
  local words = leaves(v, {})
  sort(words, function(a, b) return #a > #b end)   -- the longest first
  for _, w in ipairs(words) do
    local pat = w:gsub("%p", "%%%0")
    if #w >= 2 and w:find("%a") then   -- a name, not a bare number or letter
      msg = msg:gsub("'" .. pat .. "'", "<value>"):gsub('"' .. pat .. '"', "<value>")
      msg = msg:gsub("%f[%w_.-]" .. pat .. "%f[^%w_.-]", "<value>")
    elseif w:find("^%-?%d+$") then   -- a number, standing alone
      msg = msg:gsub("'" .. pat .. "'", "<value>"):gsub("%f[%w.]" .. pat .. "%f[^%w.]", "<value>")
    end
  end
  return msg
end

local function errors_of(job, target)
  local ok, problems = job:check{ target = target, name = PROBE.name }
  return ok and {} or problems
end

-- The job with `key` set to v: on its own group, or (when only that
-- passes the target's rules, as R21's one image) on every group.  Returns
-- the job and its errors on the target; nil when the value is refused at
-- construction (ctx.why: the first such refusal).
local function with_value(ctx, target, v)
  local ok, job = pcall(ctx.base.with, ctx.base, { [ctx.key] = v })
  if not ok then
    ctx.why = ctx.why or scrub(job, v)
    return nil
  end
  local errs = errors_of(job, target)
  if #errs == 0 or not ctx.rest then return job, errs end
  local all = {}
  for g in pairs(ctx.info.groups) do all[g .. "." .. ctx.rest] = v end
  local ok2, job2 = pcall(ctx.base.with, ctx.base, all)
  if ok2 and #errors_of(job2, target) == 0 then return job2, {}, true end
  return job, errs
end

-- The payload's proto3 JSON of a target with a message of its own (a
-- clustered task's ClusteredTaskSpec).
local function payload_of(job, target)
  local ok, c = pcall(job.custom, job, { target = target })
  return ok and c or nil
end

local function manifest_of(job, target)
  local ok, m = pcall(job.manifest, job, { name = PROBE.name, image = PROBE.image, target = target })
  return ok and m or nil
end

local function same(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- A list of plain values (command, args): one value, not a place.
local function plain_list(t)
  if type(t) ~= "table" or t[1] == nil then return false end
  for _, v in ipairs(t) do if type(v) == "table" then return false end end
  return true
end

local function key_order(a, b)
  if type(a) == type(b) then return a < b end
  return type(a) == "number"
end

-- The places where manifests a and b differ: { at = "spec.x[0].y", old = }.
local function diff(a, b, at, out)
  if same(a, b) then return out end
  local ta = type(a) == "table" and not plain_list(a)
  local tb = type(b) == "table" and not plain_list(b)
  if (a ~= nil and not ta) or (b ~= nil and not tb) then
    out[#out + 1] = { at = at, old = a, new = b }
    return out
  end
  local keys, seen = {}, {}
  for _, t in ipairs({ a or {}, b or {} }) do
    for k in pairs(t) do
      if not seen[k] then seen[k] = true; keys[#keys + 1] = k end
    end
  end
  sort(keys, key_order)
  -- an env entry both hold by its name (the user's come first: an index
  -- says nothing); one added stays an index (a tree's FOLD takes it)
  local named = at:match("%.env$") or at == "env"
  for _, k in ipairs(keys) do
    local e = named and type(k) == "number" and (a or {})[k]
    if type(e) == "table" and type((b or {})[k]) == "table" and e.name ~= b[k].name then e = nil end
    local sub = type(e) == "table" and type(e.name) == "string" and ("%s[name=%s]"):format(at, e.name)
                or type(k) == "number" and ("%s[%d]"):format(at, k - 1)
                or key_at(at, k)
    diff((a or {})[k], (b or {})[k], sub, out)
  end
  return out
end

local function shown(v)
  if type(v) == "table" then
    local n = 0
    for _ in pairs(v) do n = n + 1 end
    return "[" .. n .. (n == 1 and " item]" or " items]")
  end
  if v == PROBE.image then return "the task image" end
  return tostring(v)
end

-- "spec.a, spec.b" (at most three, then how many more), each with the
-- value it had (old) or has (new) when asked.
local function places(d, old, new)
  local out = {}
  for i, x in ipairs(d) do
    if i > 3 then
      out[#out + 1] = ("and %d more"):format(#d - 3)
      break
    end
    local v = old and x.old or new and x.new
    out[#out + 1] = x.at .. ((old or new) and (": " .. (v == nil and "not written" or shown(v))) or "")
  end
  return concat(out, ", ")
end

-- "R13: source" of the problems, each rule once.
local function rules_text(problems)
  local seen, out = {}, {}
  for _, p in ipairs(problems) do
    local r = (p.rule or "?") .. ((p.source or "") ~= "" and (": " .. p.source) or "")
    if not seen[r] then seen[r] = true; out[#out + 1] = r end
  end
  return concat(out, "; ")
end

-- The values line of an enum row: those the target's rules take, and the
-- others with the rules that refuse them.
local function values_line(ctx, target, lines)
  local ok, refused, why = {}, {}, {}
  for _, v in ipairs(ctx.row.values) do
    local job, errs = with_value(ctx, target, v)
    if job and #errs == 0 then ok[#ok + 1] = v
    else
      refused[#refused + 1] = v
      for _, e in ipairs(errs or {}) do why[#why + 1] = e end
    end
  end
  local text = #ok > 0 and concat(ok, ", ") or "none"
  if #refused > 0 then
    text = text .. "; " .. concat(refused, ", ") .. " cannot be expressed (" .. rules_text(why) .. ")"
  end
  lines[#lines + 1] = "values:   " .. text
  ctx.refused = why
  return ok
end

-- An integer row's least value the target refuses (a group of workers
-- the target needs: R1, R3, R4): "values: >= N+1 (N cannot be expressed:
-- rules)"; nothing when it takes the row's minimum.
local function min_line(ctx, target, lines)
  local m = ctx.row.min
  if ctx.row.type ~= "integer" or m == nil then return end
  local job, errs = with_value(ctx, target, m)
  if not job or #errs == 0 then return end
  lines[#lines + 1] = ("values:   >= %d (%d cannot be expressed: %s)"):format(m + 1, m, rules_text(errs))
end

-- The new lint warnings of `job` about the field.
local function warnings_of(ctx, job, target)
  local before, out = {}, {}
  for _, w in ipairs(ctx.base:lint{ target = target }) do before[w.message] = true end
  for _, w in ipairs(job:lint{ target = target }) do
    if not before[w.message] then out[#out + 1] = w end
  end
  return out
end

-- What is asked about the field at `path`: its row, its key for with(),
-- the rest of the key inside a group, and base jobs to set it on.
local function new_ctx(kind, info, path, row)
  local ctx = { row = row, info = info, key = concat(path, "."), bases = { base_job(kind, info, path) } }
  if #path >= 2 and info.groups[path[1]] then ctx.rest = concat(path, ".", 2) end
  return ctx
end

-- ctx.base: the first base job the target accepts; returns its manifest.
local function use_base(ctx, target)
  ctx.base = nil
  for _, b in ipairs(ctx.bases) do
    local m = #errors_of(b, target) == 0 and manifest_of(b, target)
    if m then
      ctx.base = b
      return m
    end
  end
end

-- A job with the field set to a value the target takes (not the
-- default when another is taken; `ok`: an enum's values the target takes)
-- and whether every group needed it; else nil and the refusals.
local function pick(ctx, target, ok)
  local cands, refused, now = {}, nil, ctx.base:spec()
  for seg in ctx.key:gmatch("[^.]+") do now = type(now) == "table" and now[seg] or nil end
  ctx.given = now ~= nil and now ~= ctx.row.default   -- the base job sets it (replicas)
  if now == nil then now = ctx.row.default end
  for _, v in ipairs(ok or probe_values(ctx.row)) do
    if v ~= now then cands[#cands + 1] = v end
  end
  if ok and #ok == 0 then return nil, ctx.refused end
  if #cands == 0 and ok then cands[1] = ok[1] end   -- only the default: given
  for _, v in ipairs(cands) do
    local job, errs, all = with_value(ctx, target, v)
    if job and #errs == 0 then
      ctx.used = v
      return job, nil, all
    end
    if job then refused = refused or errs end
  end
  return nil, refused
end

-- The further forms of a tree (TREE_PROBES after the first): whether the
-- target takes each, else the rules that refuse it.
local function forms_lines(ctx, target, lines)
  local probes = ctx.row.type == "tree" and TREE_PROBES[ctx.row.tree] or {}
  for i = 2, #probes do
    local job, errs = with_value(ctx, target, probes[i].value)
    local text = (job and #errs == 0) and "taken"
                 or job and ("cannot be expressed (" .. rules_text(errs) .. ")")
                 or ("not asked (" .. tostring(ctx.why) .. ")")
    lines[#lines + 1] = ("%-9s "):format(probes[i].label .. ":") .. text
  end
end

-- The value at a manifest place ("spec.x.containers[0].env") of m.
local function value_at(m, at)
  for key, index in at:gmatch("%.?([^.%[]*)%[?(%d*)%]?") do
    if key ~= "" then m = type(m) == "table" and m[key] or nil end
    if index ~= "" then m = type(m) == "table" and m[tonumber(index) + 1] or nil end
  end
  return m
end

-- The places of diff d (manifests m0, m) folded to the tree's own
-- (FOLD), each once, with the values they hold there.
local function folded(ctx, d, m0, m)
  local fold = ctx.row.type == "tree" and FOLD[ctx.row.tree]
  if not fold then return d end
  local out, seen = {}, {}
  for _, x in ipairs(d) do
    local p = fold(x.at)
    if not seen[p] then
      seen[p] = true
      out[#out + 1] = { at = p, old = value_at(m0, p), new = value_at(m, p) }
    end
  end
  return out
end

-- Where the payload of a target with its own puts the field: the places
-- the picked value changes, else the first value the target takes that
-- changes any (a proto3 default, as TCP, is not written).
local function payload_line(ctx, target, job, ok)
  local p0 = payload_of(ctx.base, target)
  local function places_of(j)
    local p = j and payload_of(j, target)
    return p0 and p and diff(p0, p, "", {}) or {}
  end
  local pd = places_of(job)
  for _, v in ipairs(#pd == 0 and (ok or probe_values(ctx.row)) or {}) do
    local j2, errs = with_value(ctx, target, v)
    if j2 and #errs == 0 then pd = places_of(j2) end
    if #pd > 0 then break end
  end
  return "payload:  " .. (#pd > 0 and places(pd) or "not carried")
end

-- What target t does with the field: its values, where its manifest puts
-- it, what it writes unset (and given as 0 for an optional row).
local function target_lines(ctx, target)
  local lines, m0 = {}, use_base(ctx, target)
  if not m0 then return { "not asked (no job of this kind to try on " .. target .. ")" } end
  local ok = ctx.row.type == "enum" and values_line(ctx, target, lines) or nil
  min_line(ctx, target, lines)
  local job, refused, all = pick(ctx, target, ok)
  if not job then
    lines[#lines + 1] = "manifest: " .. (refused and ("cannot be expressed (" .. rules_text(refused) .. ")")
                                         or ("not asked (" .. tostring(ctx.why) .. ")"))
    forms_lines(ctx, target, lines)
    return lines
  end
  if ctx.info.own_payload[target] then lines[#lines + 1] = payload_line(ctx, target, job, ok) end
  local m = manifest_of(job, target)
  local d = folded(ctx, diff(m0, m, "", {}), m0, m)
  lines[#lines + 1] = "manifest: " .. (#d > 0 and places(d) or "nothing written")
                      .. (all and " (the same value on every group)" or "")
  forms_lines(ctx, target, lines)
  if #d > 0 and not ctx.given then   -- a list the value only joins (args) says little
    local scalar = {}
    for _, x in ipairs(d) do
      if not plain_list(x.old) then scalar[#scalar + 1] = x end
    end
    local written = false
    for _, x in ipairs(d) do written = written or x.old ~= nil end
    lines[#lines + 1] = "unset:    " .. ((ctx.row.optional or not written) and "nothing written"
                                         or places(#scalar > 0 and scalar or d, true))
  end
  for _, w in ipairs(warnings_of(ctx, job, target)) do
    lines[#lines + 1] = "warning:  " .. scrub(w.message, ctx.used)
                        .. (w.rule and (" (" .. rules_text({ w }) .. ")") or "")
  end
  if ctx.row.optional then
    local zero = ctx.row.type ~= "boolean" and 0
    local j0 = with_value(ctx, target, zero)
    local d0 = j0 and diff(m0, manifest_of(j0, target), "", {}) or {}
    lines[#lines + 1] = ("%-9s "):format(tostring(zero) .. ":")
      .. (#d0 > 0 and ("writes " .. places(d0, false, true)) or "nothing written")
  end
  return lines
end

-- The ON TARGET blocks: the one target asked for, else every target that
-- runs the kind.  Tables, pod templates and the deprecated counts are not
-- asked (an env or a string map is: TREE_PROBES).
local function targets_block(kind, info, path, row, target, out)
  if row.fields or row.deprecated then return end
  if row.type == "tree" and not TREE_PROBES[row.tree] then return end
  local ctx = new_ctx(kind, info, path, row)
  for _, t in ipairs(kfjob.targets()) do
    local runs = false
    for _, k in ipairs(t.kinds) do runs = runs or k == kind end
    if runs and (target == nil or t.name == target) then
      out[#out + 1] = ""
      out[#out + 1] = ("ON TARGET %s (%s):"):format(t.name, t.runs)
      for _, l in ipairs(target_lines(ctx, t.name)) do out[#out + 1] = "  " .. l end
    end
  end
end

local function rules_of(row)
  local seen, ids = {}, {}
  for id in (row.description or ""):gmatch("R%d+") do
    if not seen[id] then seen[id] = true; ids[#ids + 1] = id end
  end
  return ids
end

local function recurse(rows, prefix, out)
  for _, k in ipairs(keys_of(rows)) do
    local r = rows[k]
    out[#out + 1] = ("  %s%s <%s>"):format(prefix, k, type_text(r))
    if r.fields then recurse(r.fields, prefix .. k .. ".", out) end
  end
end

local function fields_lines(rows, recursive, out)
  out[#out + 1] = ""
  out[#out + 1] = "FIELDS:"
  if recursive then return recurse(rows, "", out) end
  for _, k in ipairs(keys_of(rows)) do
    out[#out + 1] = ("  %s <%s>"):format(k, type_text(rows[k]))
  end
end

local function unknown(at, word, rows)
  local s = kfjob.suggest(word, keys_of(rows))
  error(("kfjob.explain: %s: unknown field '%s'%s"):format(at, word,
        s and (" (did you mean '" .. s .. "'?)") or ""), 0)
end

-- The kind (known), and the target (known, running the kind) or nil.
local function check_args(kind, target)
  local known = false
  for _, k in ipairs(kfjob.kinds) do known = known or k == kind end
  if not known then
    local s = kind and kfjob.suggest(kind, kfjob.kinds)
    error(("kfjob.explain: unknown job kind '%s'%s (expected %s)"):format(tostring(kind),
          s and (" (did you mean '" .. s .. "'?)") or "", concat(kfjob.kinds, ", ")), 0)
  end
  if not target then return end
  local runs = nil
  for _, t in ipairs(kfjob.targets()) do
    if t.name == target then
      runs = false
      for _, k in ipairs(t.kinds) do runs = runs or k == kind end
    end
  end
  if runs == nil then error("kfjob.explain: unknown target '" .. target .. "'", 0) end
  if not runs then error(("kfjob.explain: target '%s' does not run a %s"):format(target, kind), 0) end
end

-- The row at `rest` ("worker.restart_policy") and its path, and the
-- group's row when the path is inside a group.
local function find_row(kind, rows, info, rest)
  local path, row, at, grow = {}, nil, kind, nil
  for seg in rest:gmatch("[^.]+") do
    if row and not row.fields then
      error(("kfjob.explain: %s: a %s has no fields"):format(at, type_text(row)), 0)
    end
    local here = row and row.fields or rows
    if not here[seg] then unknown(at, seg, here) end
    row, at = here[seg], at .. "." .. seg
    path[#path + 1] = seg
    if #path == 2 and info.groups[path[1]] then grow = row end
  end
  return path, row, grow
end

-- The header lines of a field: type, description, default, range, values
-- (the target's, when one is given), aliases, deprecation.
local function field_head(path, row, values, out)
  out[#out + 1] = "FIELD:    " .. concat(path, ".") .. " <" .. type_text(row) .. ">"
  out[#out + 1] = ""
  out[#out + 1] = "DESCRIPTION:"
  out[#out + 1] = "  " .. (row.description or "")
  out[#out + 1] = ""
  if row.default ~= nil and not row.optional then out[#out + 1] = "DEFAULT:  " .. tostring(row.default) end
  if row.optional then out[#out + 1] = "DEFAULT:  unset (what 0 or false writes: each target below)" end
  if row.min ~= nil then out[#out + 1] = "RANGE:    >= " .. row.min .. ", <= 2147483647" end
  if row.values then
    local keep = {}
    for _, v in ipairs(values or row.values) do keep[v] = true end
    local shown_values = concat(values or row.values, ", ")
    out[#out + 1] = "VALUES:   " .. (shown_values == "" and "none" or shown_values)
          .. (values and (" (of " .. concat(row.values, ", ") .. ")") or "")
    if row.spellings and not values then
      out[#out + 1] = "          also " .. concat(row.spellings, ", ") .. " and 0-" .. (#row.values - 1)
    elseif row.spellings then   -- value by value: lowercase, Kubernetes, proto
      local also, nums = {}, {}
      for i, v in ipairs(row.values) do
        if keep[v] then
          for k = 1, 3 do also[#also + 1] = row.spellings[(i - 1) * 3 + k] end
          nums[#nums + 1] = i - 1
        end
      end
      out[#out + 1] = "          also " .. concat(also, ", ") .. " and " .. concat(nums, ", ")
    end
  end
  -- its validators (kfjob.fields' check_info, key_check, value_check): what
  -- the value (a string map's keys, its values) must be, and the Kubernetes
  -- pattern `kfjob schema` gives
  for _, c in ipairs({ { "FORMAT:   ", row.check_info }, { "KEYS:     ", row.key_check },
                       { "VALUES:   ", row.value_check } }) do
    if c[2] then
      out[#out + 1] = c[1] .. c[2].what
      if c[2].pattern then out[#out + 1] = "          pattern " .. c[2].pattern end
    end
  end
  if row.alias then out[#out + 1] = "ALIASES:  " .. row.alias end
  for k, r in pairs(row.fields or {}) do
    if r.alias == k then out[#out + 1] = "ALIASES:  " .. k end
  end
  if row.deprecated then out[#out + 1] = "DEPRECATED: yes (v0 spelling; write the group's replicas)" end
end

-- The values of an enum row the target's rules take (nil: every value).
local function target_values(kind, info, path, row, target)
  if not (target and row.values and row.type == "enum") then return nil end
  local ctx = new_ctx(kind, info, path, row)
  if not use_base(ctx, target) then return nil end
  local ok = {}
  for _, v in ipairs(row.values) do
    local job, errs = with_value(ctx, target, v)
    if job and #errs == 0 then ok[#ok + 1] = v end
  end
  return ok
end

local function generate(spec, target, recursive)
  local kind, rest = tostring(spec or ""):match("^([^.]+)%.?(.*)$")
  check_args(kind, target)
  local rows, info = kfjob.fields(kind)
  info.rows, info.groups, info.payload, info.own_payload = rows, {}, {}, {}
  for k, r in pairs(rows) do if r.group then info.groups[k] = r.group end end
  for _, t in ipairs(kfjob.targets()) do
    for _, e in ipairs(t.emits) do info.payload[t.name] = info.payload[t.name] or e == "encode" end
    -- a payload that is not the kind's plugin message (a clustered task's)
    info.own_payload[t.name] = info.payload[t.name] and t.resource ~= "kubeflow.org/v1"
  end
  local path, row, grow = find_row(kind, rows, info, rest)
  local out = { "KIND:     " .. kind }
  if not row then
    out[#out + 1] = ""
    out[#out + 1] = "DESCRIPTION:"
    out[#out + 1] = "  " .. info.description
    if target then out[#out + 1] = "  target " .. target .. " runs it" end
    fields_lines(rows, recursive, out)
    return concat(out, "\n") .. "\n"
  end
  field_head(path, row, target_values(kind, info, path, row, target), out)
  out[#out + 1] = ""
  out[#out + 1] = "WHERE IT GOES:"
  where_lines(kind, info, path, row, grow, target, out)
  targets_block(kind, info, path, row, target, out)
  local ids = rules_of(row)
  if #ids > 0 then
    out[#out + 1] = ""
    out[#out + 1] = "RULES:    " .. concat(ids, ", ") .. " (docs/RULES.md; `kfjob check --target T` applies them)"
  end
  if row.fields then fields_lines(row.fields, recursive, out) end
  return concat(out, "\n") .. "\n"
end

return generate
