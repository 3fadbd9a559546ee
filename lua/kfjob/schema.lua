-- kfjob.schema: the JSON Schema (draft 2020-12) of a data config, generated
-- from the schema rows that kfjob.fields returns.  What a row says it can
-- express (types, integer ranges, enums, quantity patterns, unknown keys,
-- defaults, descriptions); the rules that relate several fields stay with
-- `kfjob check` (README: Writing configs).  Lua 5.1-5.4 and LuaJIT.
--
-- schema(kind, target): kind nil -> every shape of a data config (one job
-- with its `kind`, a list of jobs, or {jobs = {name = job}}); a kind -> one
-- job document of that kind.  target (a string, or opts.target when the
-- second argument is a table) leaves out the kinds the target does not run.
local kfjob = require "kfjob"

local concat = table.concat

local INT32_MAX = 2147483647
-- Kubernetes quantities as kfjob reads them (base/kf_qty.c kf_qty_parse,
-- after apimachinery resource.ParseQuantity): digits with one optional
-- dot, then a binary or decimal suffix or an exponent; no sign.
local QUANTITY = "^[+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
-- a token: non-empty, no whitespace or control character
local TOKEN = "^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+$"

-- ---- JSON text with a fixed key order ----------------------------------

local ORDER = { "$schema", "$id", "title", "description", "$ref", "type", "const",
                "enum", "minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems",
                "items", "default", "anyOf", "oneOf", "allOf", "if", "then", "else",
                "required", "properties", "propertyNames", "additionalProperties", "$defs" }
local RANK = {}
for i, k in ipairs(ORDER) do RANK[k] = i end

local ARRAY = {}   -- metatable marking a JSON array (an empty one too)
local function array(t) return setmetatable(t, ARRAY) end

local textutil = require "kfjob.textutil"
local json_string, sorted_keys = textutil.json_string, textutil.sorted_keys

local function encode(v, ind, out)
  local t = type(v)
  if t == "string" then out[#out + 1] = json_string(v)
  elseif t == "boolean" then out[#out + 1] = tostring(v)
  elseif t == "number" then
    out[#out + 1] = (v == math.floor(v)) and ("%d"):format(v) or tostring(v)
  elseif getmetatable(v) == ARRAY then
    if #v == 0 then out[#out + 1] = "[]"; return end
    local simple = true
    for _, x in ipairs(v) do if type(x) == "table" then simple = false end end
    if simple then
      local parts = {}
      for _, x in ipairs(v) do local o = {}; encode(x, ind, o); parts[#parts + 1] = concat(o) end
      out[#out + 1] = "[" .. concat(parts, ", ") .. "]"
      return
    end
    out[#out + 1] = "[\n"
    for i, x in ipairs(v) do
      out[#out + 1] = ind .. "  "
      encode(x, ind .. "  ", out)
      out[#out + 1] = i < #v and ",\n" or "\n"
    end
    out[#out + 1] = ind .. "]"
  else
    local keys = sorted_keys(v, function(a, b)
      local ra, rb = RANK[a] or 99, RANK[b] or 99
      if ra ~= rb then return ra < rb end
      return a < b
    end)
    if #keys == 0 then out[#out + 1] = "{}"; return end
    out[#out + 1] = "{\n"
    for i, k in ipairs(keys) do
      out[#out + 1] = ind .. "  " .. json_string(k) .. ": "
      encode(v[k], ind .. "  ", out)
      out[#out + 1] = i < #keys and ",\n" or "\n"
    end
    out[#out + 1] = ind .. "}"
  end
end

-- ---- rows -> schemas ----------------------------------------------------

-- "OnFailure", "RESTART_POLICY_ON_FAILURE", "on_failure" -> "on_failure"
local function canonical(v)
  return (v:gsub("^[%u_]+_POLICY_", ""):gsub("(%l)(%u)", "%1_%2"):lower())
end

-- A target's resource may carry only some of an enum's values: the row's
-- values_on (the single-field part of a target rule, R13), so the schema
-- for that target leaves the others out.
local function enum_schema(row, ctx)
  local keep = row.values_on and ctx.target and row.values_on[ctx.target]
  local vals = {}
  for _, v in ipairs(row.spellings or row.values) do
    if not keep or keep[canonical(v)] then vals[#vals + 1] = v end
  end
  if row.spellings then
    for i = 0, #row.values - 1 do
      if not keep or keep[row.values[i + 1]] then vals[#vals + 1] = i end
    end
  end
  return { enum = array(vals) }
end

local node_of

-- The top-level "$schema" key (the JSON Schema an editor validates with),
-- and a job that is not the document (a list item, a `jobs` entry): the
-- reader takes "$schema" at the top only.
local SCHEMA_KEY = { type = "string",
                     description = "The JSON Schema for editors (top level only); kfjob does not read it." }
local function not_top(s)
  s.properties = { ["$schema"] = false }
  return s
end

local function int_schema(row)
  return { type = "integer", minimum = row.min or 0, maximum = INT32_MAX }
end

local function quantity_schema()
  return { ["$ref"] = "#/$defs/quantity" }
end

-- A string that passes a row's validator (kfjob.fields' check_info): the
-- Kubernetes regular expression the core gives it (kf_whole.c kf_checks,
-- from k8s.io/apimachinery/pkg/util/validation/validation.go) and its
-- largest length where Kubernetes has one.
local function checked_string(check)
  local s = { type = "string" }
  if check then s.pattern, s.maxLength = check.pattern, check.max_length end
  return s
end

-- The value trees a row holds: a pod template (kfjob checks it against the
-- CRD's PodTemplateSpec, see kfjob check), a container's env (Kubernetes
-- EnvVars in order, or name = value) or a string map (labels, annotations).
local function tree_schema(row)
  local strings = { type = "object", additionalProperties = { type = "string" } }
  if row.tree == "StringMap" then
    -- its keys and values as its validators say (labels: label keys and values)
    -- (a validator without a Kubernetes expression, annotation keys, says none)
    if row.key_check and row.key_check.pattern then
      strings.propertyNames = checked_string(row.key_check)
      strings.propertyNames.type = nil
    end
    if row.value_check then strings.additionalProperties = checked_string(row.value_check) end
    return strings
  end
  if row.tree == "List" then return { type = "array", items = { type = "object" } } end
  if row.tree == "Quantities" then   -- resource name = quantity (extended resources)
    return { type = "object", additionalProperties = { type = array({ "string", "number" }) } }
  end
  if row.tree == "Slices" then   -- Kueue's multi-layer slice constraints
    return { type = "array", minItems = 1, maxItems = 3,
             items = { type = "object", required = array({ "level", "size" }), additionalProperties = false,
                       properties = { level = { type = "string", minLength = 1 },
                                      size = { type = "integer", minimum = 1 } } } }
  end
  if row.tree == "Env" then
    local var = { type = "object", required = array({ "name" }), additionalProperties = false,
                  properties = { name = { type = "string", minLength = 1 }, value = { type = "string" },
                                 valueFrom = { type = "object" } } }
    return { anyOf = array({ { type = "array", items = var }, strings }) }
  end
  return { type = "object" }
end

local function object_schema(rows, ctx)
  -- a field the target's resources have no place for (its row's not_on,
  -- R34) is not in that target's schema
  local props, keys = {}, sorted_keys(rows, nil, function(_, r)
    return not (ctx.target and r.not_on and r.not_on[ctx.target])
  end)
  for _, k in ipairs(keys) do props[k] = node_of(k, rows[k], ctx) end
  return { type = "object", properties = props, additionalProperties = false }
end

-- The schema of one row.
function node_of(key, row, ctx)
  local t, s = row.type, nil
  if t == "integer" and row.values then
    s = { anyOf = array({ int_schema(row), { enum = array(row.values) } }) }
  elseif t == "integer" then s = int_schema(row)
  elseif t == "nnodes" then
    s = { anyOf = array({ int_schema(row),
                          { type = "string", pattern = "^[0-9]+:[0-9]+$" } }) }
  elseif t == "string" then
    -- (a validator's pattern says more than a token's)
    s = row.check_info and checked_string(row.check_info)
        or row.token and { type = "string", pattern = TOKEN } or { type = "string" }
  elseif t == "boolean" then s = { type = "boolean" }
  elseif t == "quantity" then s = quantity_schema()
  elseif t == "size" then
    s = { anyOf = array({ { type = "boolean" }, quantity_schema() }) }
  elseif t == "strings" then
    s = { type = "array", minItems = 1, items = { type = "string" } }
  elseif t == "enum" then s = enum_schema(row, ctx)
  elseif t == "tree" then s = tree_schema(row)
  elseif t == "table" then
    s = object_schema(row.fields, ctx)
    -- an empty table is `{}` or `[]` in JSON written from Lua (dkjson,
    -- cjson's empty_array): the reader takes both, so the schema does
    s.type, s.maxItems = array({ "object", "array" }), 0
    if row.short then s = { anyOf = array({ { type = "string", pattern = TOKEN }, s }) } end
  else
    error("kfjob.schema: " .. key .. ": no JSON Schema for row type '" .. tostring(t) .. "'")
  end
  if row.description then s.description = row.description end
  if row.default ~= nil and not row.optional and t ~= "table" then s.default = row.default end
  return s
end

-- One job document of a kind: its `kind` and the constructor's keys.
local function job_schema(kind, target)
  local rows, info = kfjob.fields(kind)
  local s = object_schema(rows, { kind = kind, target = target })
  s.title = kind
  s.description = info.description
  s.properties.kind = { const = kind, description = "The job's kind (its constructor)." }
  s.required = array({ "kind" })
  -- an editor's "$schema" beside `kind` (the reader skips it at the top
  -- level only: NOT_TOP refuses it in a list or under `jobs`)
  s.properties["$schema"] = SCHEMA_KEY
  return s
end

local function target_kinds(target)
  if target == nil then return kfjob.kinds end
  for _, t in ipairs(kfjob.targets()) do
    if t.name == target then return t.kinds end
  end
  local names = {}
  for _, t in ipairs(kfjob.targets()) do names[#names + 1] = t.name end
  error(("kfjob.schema: unknown target '%s' (expected %s)"):format(
        target, concat(names, ", ")), 0)
end

local function encode_all(doc)
  local out = {}
  encode(doc, "", out)
  out[#out + 1] = "\n"
  return out
end

local function generate(kind, opts)
  local target = opts
  if type(opts) == "table" then target = opts.target end
  local kinds, allowed = target_kinds(target), {}
  for _, k in ipairs(kinds) do allowed[k] = true end
  local defs = {
    quantity = { description = "A Kubernetes quantity (\"500m\", \"32Gi\") or a non-negative number.",
                 anyOf = array({ { type = "string", pattern = QUANTITY },
                                 { type = "number", minimum = 0 } }) },
  }
  local doc = { ["$schema"] = "https://json-schema.org/draft/2020-12/schema",
                ["$defs"] = defs }
  if kind ~= nil then
    local known = false
    for _, k in ipairs(kfjob.kinds) do known = known or k == kind end
    if not known then
      local s = kfjob.suggest(kind, kfjob.kinds)
      error(("kfjob.schema: unknown job kind '%s'%s (expected %s)"):format(kind,
            s and (" (did you mean '" .. s .. "'?)") or "", concat(kfjob.kinds, ", ")), 0)
    end
    if not allowed[kind] then
      error(("kfjob.schema: target '%s' does not run a %s"):format(target, kind), 0)
    end
    defs[kind] = job_schema(kind, target)
    doc.title = "kfjob " .. kind .. " data config"
    doc["$ref"] = "#/$defs/" .. kind
    return concat(encode_all(doc))
  end
  -- if/then on `kind` (and on the shape) rather than oneOf/anyOf: a
  -- validator then reports a mistake where it is (worker: 'replcas' was
  -- unexpected) instead of "not valid under any of the given schemas" at
  -- the root, as it must when every branch fails.
  local byKind = {}
  for _, k in ipairs(kinds) do
    defs[k] = job_schema(k, target)
    -- (the `if` holds for what it does not look at: a document without a
    -- kind, or not an object, must not take every `then`)
    byKind[#byKind + 1] = { ["if"] = { type = "object", required = array({ "kind" }),
                                       properties = { kind = { const = k } } },
                            ["then"] = { ["$ref"] = "#/$defs/" .. k } }
  end
  defs.job = { description = "One job: `kind` and that constructor's keys.",
               type = "object", required = array({ "kind" }),
               properties = { kind = { enum = array(kinds) } },
               allOf = array(byKind) }
  doc.title = "kfjob data config" .. (target and (" (target " .. target .. ")") or "")
  doc.description = "One job with its kind, a list of jobs, or {jobs: {name: job}}."
  doc["if"] = { type = "array" }
  doc["then"] = { items = not_top({ ["$ref"] = "#/$defs/job" }) }
  doc["else"] = {
    ["if"] = { type = "object", required = array({ "jobs" }) },
    ["then"] = { required = array({ "jobs" }), additionalProperties = false,
                 properties = { ["$schema"] = SCHEMA_KEY,
                                jobs = { type = "object",
                                         additionalProperties = not_top({ ["$ref"] = "#/$defs/job" }) } } },
    ["else"] = { ["$ref"] = "#/$defs/job" },
  }
  return concat(encode_all(doc))
end

return generate
