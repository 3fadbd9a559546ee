-- kfjob.explain: `kfjob explain KIND[.path] [--target T] [--recursive]`,
-- as `kubectl explain`, from the schema rows (kfjob.fields): type,
-- default, range or values, aliases, deprecation, description, where the
-- field goes in each output and the rules its row names.  Lua 5.1-5.4.
local kfjob = require "kfjob"

local concat = table.concat

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
  if t == "tree" then return "table (a Kubernetes PodTemplateSpec)" end
  return t
end

-- Where a group row's place (its row's `place`) is in a replica spec.
local PLACE_PATH = {
  replica_spec = "",
  container = ".template.spec.containers[0]",
  resources = ".template.spec.containers[0].resources",
}

-- Where the operator's manifest keeps a row (operator, flyte, flyte2 write
-- the same kubeflow.org/v1 paths; the description names the others').
-- `grow` is the group row on the path (its place), nil outside a group.
local function manifest_path(info, path, row, grow)
  if not row.manifest then return nil end
  local top, specs = path[1], "spec." .. info.replica_specs
  if top == "run_policy" then
    return "spec.runPolicy" .. (#path > 1 and ("." .. row.manifest) or "")
  end
  if top == "scheduling" then return nil end   -- labels/annotations: see description
  if #path == 1 and row.proto and row.proto:find("^elastic_config") then
    return "spec.elasticPolicy." .. row.manifest
  end
  if #path == 1 and row.manifest == "slotsPerWorker" then return "spec.slotsPerWorker" end
  if grow and grow.place then
    local at = specs .. "." .. info.groups[top] .. PLACE_PATH[grow.place]
    if grow.place == "resources" then   -- requests / limits, then the resource
      return at .. "." .. path[2] .. (path[3] and ("." .. row.manifest) or "")
    end
    return at .. "." .. row.manifest
  end
  return nil
end

local function where_lines(kind, info, path, row, grow, out)
  local p = concat(path, ".")
  if info.task_type and row.proto then
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
  local mp = manifest_path(info, path, row, grow)
  if mp then
    -- the kubeflow.org/v1 targets, less those with no place for the row (R34)
    local not_on, on = (grow or row).not_on or {}, {}
    for _, t in ipairs({ "operator", "flyte", "flyte2" }) do
      if not not_on[t] then on[#on + 1] = t end
    end
    out[#out + 1] = "  manifest (" .. concat(on, ", ") .. "): " .. mp
  elseif row.manifest then
    out[#out + 1] = "  manifest key: " .. row.manifest
  end
  out[#out + 1] = "  other targets: as the description says"
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

local function unknown(at, word, rows)
  local s = kfjob.suggest(word, keys_of(rows))
  error(("kfjob explain: %s: unknown field '%s'%s"):format(at, word,
        s and (" (did you mean '" .. s .. "'?)") or ""), 0)
end

local function generate(spec, target, recursive)
  local kind, rest = tostring(spec or ""):match("^([^.]+)%.?(.*)$")
  local known = false
  for _, k in ipairs(kfjob.kinds) do known = known or k == kind end
  if not known then
    local s = kind and kfjob.suggest(kind, kfjob.kinds)
    error(("kfjob explain: unknown job kind '%s'%s (expected %s)"):format(tostring(kind),
          s and (" (did you mean '" .. s .. "'?)") or "", concat(kfjob.kinds, ", ")), 0)
  end
  if target then
    local runs = nil
    for _, t in ipairs(kfjob.targets()) do
      if t.name == target then
        runs = false
        for _, k in ipairs(t.kinds) do runs = runs or k == kind end
      end
    end
    if runs == nil then error("kfjob explain: unknown target '" .. target .. "'", 0) end
    if not runs then error(("kfjob explain: target '%s' does not run a %s"):format(target, kind), 0) end
  end
  local rows, info = kfjob.fields(kind)
  info.groups = {}
  for k, r in pairs(rows) do if r.group then info.groups[k] = r.group end end
  local path, row, at, grow = {}, nil, kind, nil
  for seg in rest:gmatch("[^.]+") do
    if row and not row.fields then
      error(("kfjob explain: %s: a %s has no fields"):format(at, type_text(row)), 0)
    end
    local here = row and row.fields or rows
    if not here[seg] then unknown(at, seg, here) end
    row, at = here[seg], at .. "." .. seg
    path[#path + 1] = seg
    if #path == 2 and info.groups[path[1]] then grow = row end
  end
  local out = { "KIND:     " .. kind }
  if not row then
    out[#out + 1] = ""
    out[#out + 1] = "DESCRIPTION:"
    out[#out + 1] = "  " .. info.description
    if target then out[#out + 1] = "  target " .. target .. " runs it" end
    out[#out + 1] = ""
    out[#out + 1] = "FIELDS:"
    if recursive then recurse(rows, "", out)
    else
      for _, k in ipairs(keys_of(rows)) do
        out[#out + 1] = ("  %s <%s>"):format(k, type_text(rows[k]))
      end
    end
    return concat(out, "\n") .. "\n"
  end
  out[#out + 1] = "FIELD:    " .. concat(path, ".") .. " <" .. type_text(row) .. ">"
  out[#out + 1] = ""
  out[#out + 1] = "DESCRIPTION:"
  out[#out + 1] = "  " .. (row.description or "")
  out[#out + 1] = ""
  if row.default ~= nil and not row.optional then out[#out + 1] = "DEFAULT:  " .. tostring(row.default) end
  if row.optional then out[#out + 1] = "DEFAULT:  unset (0 or false writes nothing)" end
  if row.min ~= nil then out[#out + 1] = "RANGE:    >= " .. row.min .. ", <= 2147483647" end
  if row.values then
    out[#out + 1] = "VALUES:   " .. concat(row.values, ", ")
    if row.spellings then
      out[#out + 1] = "          also " .. concat(row.spellings, ", ") .. " and 0-" .. (#row.values - 1)
    end
  end
  if row.alias then out[#out + 1] = "ALIASES:  " .. row.alias end
  for k, r in pairs(row.fields or {}) do
    if r.alias == k then out[#out + 1] = "ALIASES:  " .. k end
  end
  if row.deprecated then out[#out + 1] = "DEPRECATED: yes (v0 spelling; write the group's replicas)" end
  out[#out + 1] = ""
  out[#out + 1] = "WHERE IT GOES:"
  where_lines(kind, info, path, row, grow, out)
  local ids = rules_of(row)
  if #ids > 0 then
    out[#out + 1] = ""
    out[#out + 1] = "RULES:    " .. concat(ids, ", ") .. " (docs/RULES.md; `kfjob check --target T` applies them)"
  end
  if row.fields then
    out[#out + 1] = ""
    out[#out + 1] = "FIELDS:"
    if recursive then recurse(row.fields, "", out)
    else
      for _, k in ipairs(keys_of(row.fields)) do
        out[#out + 1] = ("  %s <%s>"):format(k, type_text(row.fields[k]))
      end
    end
  end
  return concat(out, "\n") .. "\n"
end

return generate
