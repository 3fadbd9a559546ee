-- kfjob.meta: the LuaCATS definition file for lua-language-server
-- (library/kfjob.lua), generated from the schema rows that kfjob.fields
-- returns.  Fields, types, defaults, enums and descriptions come from the
-- rows alone; what is written here by hand is only what is not a field:
-- the signatures of functions and the option tables of job methods.
-- Works on Lua 5.1-5.4 and LuaJIT.
local kfjob = require "kfjob"

local concat, insert = table.concat, table.insert

local function pascal(s)
  return (s:gsub("^%l", string.upper):gsub("_(%w)", string.upper))
end

local textutil = require "kfjob.textutil"
local sorted_keys, json_string = textutil.sorted_keys, textutil.json_string

local function quote(v)
  if type(v) == "string" then return json_string(v) end
  return tostring(v)
end

-- A generator run: classes and aliases by body, so a table that is the
-- same in several kinds is one class.
local Gen = {}
Gen.__index = Gen

local function new_gen()
  return setmetatable({ out = {}, by_body = {}, body_of = {}, names = {} }, Gen)
end

-- A name not taken yet for a new body: `want`, else want2, want3, ...
function Gen:free_name(want)
  local name, i = want, 1
  while self.names[name] do i = i + 1; name = want .. i end
  self.names[name] = true
  return name
end

-- Emits `body` (a list of lines after the header) under a name, once.
-- (`own`: a class of its own even when another has the same body)
function Gen:define(want, header_fmt, body, desc, own)
  local key = header_fmt .. "\0" .. concat(body, "\n")
  local have = not own and self.by_body[key]
  if have then return have end
  local name = self:free_name(want)
  self.by_body[key] = self.by_body[key] or name
  self.body_of[name] = body
  local o = self.out
  o[#o + 1] = ""
  if desc then o[#o + 1] = "--- " .. desc end
  o[#o + 1] = header_fmt:format(name)
  for _, l in ipairs(body) do o[#o + 1] = l end
  return name
end

-- The alias of an enum row: every accepted spelling (and, for ENUM rows,
-- the proto numbers).
function Gen:enum_alias(key, row)
  local vals = {}
  for _, v in ipairs(row.spellings or row.values) do vals[#vals + 1] = quote(v) end
  if row.spellings then
    for i = 0, #row.values - 1 do vals[#vals + 1] = tostring(i) end
  end
  local body = {}
  for _, v in ipairs(vals) do body[#body + 1] = "---| " .. v end
  return self:define("kfjob." .. pascal(key) .. "Value", "---@alias %s", body,
                     "Accepted spellings of " .. key .. ".")
end

-- The LuaCATS type of a row.
function Gen:type_of(key, row, ctx)
  local t = row.type
  if t == "integer" and row.values then
    return "integer|" .. self:enum_alias(key, row)
  elseif t == "integer" then return "integer"
  elseif t == "string" then return "string"
  elseif t == "boolean" then return "boolean"
  elseif t == "quantity" then return "kfjob.Quantity"
  elseif t == "size" then return "boolean|kfjob.Quantity"
  elseif t == "strings" then return "string[]"
  elseif t == "nnodes" then return "kfjob.Nnodes"
  elseif t == "tree" then
    if row.tree == "Env" then return "kfjob.EnvVar[]|table<string, string>" end
    if row.tree == "StringMap" then return "table<string, string>" end
    if row.tree == "Quantities" then return "table<string, kfjob.Quantity>" end
    if row.tree == "List" then return "table[]" end
    if row.tree == "Slices" then return "{ level: string, size: integer }[]" end
    return "kfjob.PodTemplate"
  elseif t == "enum" then return self:enum_alias(key, row)
  elseif t == "table" then
    local name = row.table or pascal(key)
    local ty = self:class_of(row.fields, name, ctx,
                             "The keys of a " .. name .. " table.")
    -- a table that a single string can stand for (accelerator = "device")
    if row.short then ty = "string|" .. ty end
    return ty
  end
  error("kfjob.meta: " .. key .. ": no LuaCATS type for row type '"
        .. tostring(t) .. "'")
end

-- An enum row's values_on (R13's part in the row) in words: the values of
-- each target that takes only some, targets with the same values together.
local TARGET_NAMES = {}
for _, t in ipairs(kfjob.targets()) do TARGET_NAMES[#TARGET_NAMES + 1] = t.name end
local function values_by_target(row)
  local groups, by_set = {}, {}
  for _, t in ipairs(TARGET_NAMES) do
    local keep = row.values_on[t]
    if keep then
      local vals = {}
      for _, v in ipairs(row.values) do if keep[v] then vals[#vals + 1] = v end end
      local set = concat(vals, ", ")
      if not by_set[set] then
        by_set[set] = { targets = {}, set = set }
        groups[#groups + 1] = by_set[set]
      end
      insert(by_set[set].targets, t)
    end
  end
  local parts = {}
  for _, g in ipairs(groups) do parts[#parts + 1] = concat(g.targets, ", ") .. ": " .. g.set end
  return " Values by target (R13): " .. concat(parts, "; ") .. "; elsewhere every value."
end

-- One line of description: the row's, and its default and range.
local function describe(row)
  local d = row.description or ""
  if not d:find("[.)]$") then d = d .. "." end
  if row.default ~= nil and row.type ~= "table" and not row.optional then
    d = d .. " Default: " .. tostring(row.default) .. "."
  end
  if row.min ~= nil and (row.type == "integer" or row.type == "nnodes") then
    d = d .. " Minimum: " .. row.min .. "."
  end
  -- its validators (kfjob.fields' check_info, key_check, value_check)
  if row.values_on then d = d .. values_by_target(row) end
  if row.check_info then d = d .. " Format: " .. row.check_info.name .. "." end
  if row.key_check then d = d .. " Keys: " .. row.key_check.name .. "." end
  if row.value_check then d = d .. " Values: " .. row.value_check.name .. "." end
  return (d:gsub("\n", " "))
end

-- The field lines of a table of rows (an alias is a field of its own).
function Gen:fields_body(rows, ctx)
  local body = {}
  for _, key in ipairs(sorted_keys(rows)) do
    local row = rows[key]
    body[#body + 1] = ("---@field %s? %s %s"):format(key,
                                                      self:type_of(key, row, ctx),
                                                      describe(row))
  end
  return body
end

-- The `(exact)` class of a table of rows; `name` is its wished-for name.
function Gen:class_of(rows, name, ctx, desc)
  local body = self:fields_body(rows, ctx)
  return self:define("kfjob." .. name .. "Opts", "---@class (exact) %s", body,
                     desc)
end

-- Per kind: the group classes (the general one is kfjob.GroupOpts, a kind
-- whose groups take other rows gets its own), then the kind's class.
function Gen:kind_class(kind)
  local rows, info = kfjob.fields(kind)
  local body = {}
  for _, key in ipairs(sorted_keys(rows)) do
    local row = rows[key]
    local ty
    if row.group then
      local gbody = self:fields_body(row.fields, kind)
      local general = self.by_body["---@class (exact) %s\0" .. concat(gbody, "\n")]
      ty = general or self:define(self.group_class and "kfjob." .. kind .. "GroupOpts"
                                  or "kfjob.GroupOpts",
                                  "---@class (exact) %s", gbody,
                                  "A replica group's table.")
      self.group_class = self.group_class or ty
      self.role_class[row.group] = self.role_class[row.group] or {}
      insert(self.role_class[row.group], ty)
    else
      ty = self:type_of(key, row, kind)
    end
    body[#body + 1] = ("---@field %s? %s %s"):format(key, ty, describe(row))
  end
  return self:define("kfjob." .. kind .. "Opts", "---@class (exact) %s", body,
                     "kfjob." .. kind .. "{...}: " .. info.description .. ".", true)
end

-- The class of each standalone group (kfjob.Worker{...}): it takes what
-- the role takes in any kind, so a role whose kinds' group classes differ
-- gets one class with the fields of them all (a union of classes would
-- let lua-language-server check a table against one of them only, and
-- kfjob.Worker{command = ...} be flagged).  A key in several classes has
-- the same row in each; the first class's line is kept.
function Gen:role_classes()
  self.role_type = {}
  for _, role in ipairs(sorted_keys(self.role_class)) do
    local seen, ts, lines = {}, {}, {}
    for _, t in ipairs(self.role_class[role]) do
      if not seen[t] then seen[t] = true; ts[#ts + 1] = t end
    end
    for _, t in ipairs(ts) do
      for _, l in ipairs(self.body_of[t]) do
        local key = l:match("^%-%-%-@field ([%w_]+)")
        lines[key] = lines[key] or l
      end
    end
    local body = {}
    for _, key in ipairs(sorted_keys(lines)) do body[#body + 1] = lines[key] end
    self.role_type[role] = #ts == 1 and ts[1] or
        self:define("kfjob." .. role .. "Opts", "---@class (exact) %s", body,
                    "A standalone " .. role .. " group's table: the keys of a "
                    .. role .. " in any kind.", true)
  end
end

-- ---- what is not a field: signatures, by hand --------------------------

-- Options of job methods (the keys the binding accepts): the option rows
-- (kfjob.options, core kf_options.c), by the method's class.  A task
-- spec's are a task template's, then its own.
local OPTS_CLASS = { EncodeOpts = "encode", ToJsonOpts = "to_json", TaskTemplateOpts = "task_template",
                     ManifestOpts = "manifest", CheckOpts = "check", EnvironmentOpts = "environment",
                     LintOpts = "lint" }
local method_opts = {}
local function takes(o, method)
  for _, m in ipairs(o.methods) do if m == method then return true end end
  return false
end
for class, method in pairs(OPTS_CLASS) do
  local list = {}
  for _, o in ipairs(kfjob.options()) do
    if takes(o, method) then list[#list + 1] = { o.name, o.type, o.description } end
  end
  method_opts[class] = list
end
method_opts.TaskSpecOpts = {}
for _, f in ipairs(method_opts.TaskTemplateOpts) do insert(method_opts.TaskSpecOpts, f) end
for _, o in ipairs(kfjob.options()) do
  if takes(o, "task_spec") and not takes(o, "task_template") then
    insert(method_opts.TaskSpecOpts, { o.name, o.type, o.description })
  end
end

local job_methods = {
  { "spec", "fun(self: kfjob.Job): table", "the constructor-shaped table" },
  { "with", "fun(self: kfjob.Job, overrides: table): kfjob.Job", "a revalidated copy with overrides merged (dotted keys at the top level)" },
  { "encode", "fun(self: kfjob.Job, opts?: kfjob.EncodeOpts): string", "plugin message wire bytes" },
  { "custom", "fun(self: kfjob.Job, opts?: kfjob.EncodeOpts): table", "the proto3 JSON as a table" },
  { "to_json", "fun(self: kfjob.Job, opts?: kfjob.ToJsonOpts): string", "the proto3 JSON as text" },
  { "task_template", "fun(self: kfjob.Job, opts?: kfjob.TaskTemplateOpts): string", "a flyteidl.core.TaskTemplate" },
  { "task_spec", "fun(self: kfjob.Job, opts?: kfjob.TaskSpecOpts): string", "a registrable flyteidl.admin.TaskSpec" },
  { "versions", "fun(self: kfjob.Job): integer[]", "the task_type_versions that can express the job" },
  { "manifest", "fun(self: kfjob.Job, opts: kfjob.ManifestOpts): table|string", "the Kubernetes resource for a target" },
  { "lint", "fun(self: kfjob.Job, opts?: kfjob.LintOpts): {path: string, message: string, rule?: string, source?: string}[]", "warnings" },
  { "launcher_command", "fun(self: kfjob.Job, args?: string[]): string[]", "MPI/Horovod launcher command line" },
  { "environment", "fun(self: kfjob.Job, opts: kfjob.EnvironmentOpts): table", "every pod's injected environment" },
  { "check", "fun(self: kfjob.Job, opts?: kfjob.CheckOpts): true|nil, {path: string, message: string, rule: string, source: string}[]?", "the target's errors" },
}

-- Module functions other than constructors: params, returns, description.
local module_funcs = {
  decode = { { "task_type: string", "data: string", "opts?: {version?: integer, kind?: string}" }, "kfjob.Job|nil, string?", "plugin message bytes to a job" },
  from_json = { { "task_type: string", "json: string|table", "opts?: {version?: integer, allow_unknown?: boolean, kind?: string}" }, "kfjob.Job|nil, string?", "proto3 JSON to a job" },
  decode_task_template = { { "data: string", "opts?: {kind?: string}" }, "kfjob.Job|nil, table|string", "TaskTemplate bytes or JSON to a job and its info" },
  decode_task_spec = { { "data: string", "opts?: {kind?: string}" }, "kfjob.Job|nil, table|string", "TaskSpec bytes or JSON to a job and its info" },
  is_job = { { "v: any" }, "boolean", "whether v is a kfjob job" },
  hash64 = { { "s: string", 'form?: "integer"|"hex"' }, "integer|string", "64-bit FNV-1a of a string" },
  fields = { { "kind: kfjob.Kind" }, "table<string, table>", "the kind's field tree from the schema rows" },
  targets = { {}, "{name: string, runs: string, kinds: string[], emits: string[]}[]", "the systems a job can be emitted for" },
  suggest = { { "word: string", "candidates: string[]" }, "string|nil", "the closest candidate (did-you-mean)" },
  manifests = { { "items: (kfjob.Job|table)[]", "opts?: kfjob.ManifestOpts" }, "string|table", "several resources as one stream or list" },
  meta = { { 'what?: "options"' }, "string", "this LuaCATS definition file (\"options\": the Markdown table of the methods' options)" },
  options = { {}, "{name: string, type: string, methods: string[], description: string}[]", "the options of the job methods, row by row" },
  schema = { { "kind?: kfjob.Kind", "opts?: {target?: kfjob.Target}" }, "string", "the JSON Schema of a data config" },
  from_manifest = { { "doc: string|table", "opts?: {kind?: kfjob.Kind, lossy?: boolean}" }, "kfjob.Job|nil, table|string",
    "a training-operator, mpi-operator or Trainer manifest (YAML, JSON or a table) to a job and its info" },
  from_manifests = { { "text: string", "opts?: {kind?: kfjob.Kind, lossy?: boolean}" },
    "{job: kfjob.Job, info: table}[]|nil, table|string", "every document of a stream kfjob reads, and the ones it skipped" },
  read_yaml = { { "text: string" }, "any, string?",
    "the one document of YAML or JSON text, by the strict reader manifests are read with" },
  to_lua = { { "jobs: kfjob.Job|table<string, kfjob.Job>" }, "string", "a config script that builds the same jobs" },
  to_config = { { "jobs: kfjob.Job|table<string, kfjob.Job>", "order?: boolean" }, "{jobs: table<string, table>}, table?",
    "the same jobs as a data config table (each with its kind); with order, the schema rows' key order by kind" },
}

local template_funcs = {
  render = { { "str: string", "vars: table" }, "string", "${name} placeholders filled from vars" },
  expand = { { "tree: table", "vars: table" }, "table", "a deep copy with render applied to every string value" },
  matrix = { { "m: {exclude?: table[], include?: table[], [string]: any[]}" }, "fun(): table?", "lazy cartesian product of the axes" },
  variants = { { "base: kfjob.Job|table|fun(params: table): kfjob.Job", "matrix: table|fun(): table?", "opts?: {name?: string|fun(params: table, job: kfjob.Job): string, kind?: kfjob.Kind, unique?: boolean, max_name?: integer, vars?: table}" }, "fun(): string?, kfjob.Job?, table?", "one job per combination" },
  count = { { "m: table|function" }, "integer", "the number of combinations or variants" },
  merge = { { "a: table", "b: table" }, "table", "deep merge, b wins" },
  dns_name = { { "s: string", "max?: integer" }, "string", "the DNS-1035 form of a name" },
}

local function func_lines(o, qual, name, sig)
  o[#o + 1] = ""
  o[#o + 1] = "--- " .. sig[3]
  local pnames = {}
  for _, p in ipairs(sig[1]) do
    local n, t = p:match("^([%w_]+%??):%s*(.+)$")
    o[#o + 1] = "---@param " .. n .. " " .. t
    pnames[#pnames + 1] = (n:gsub("%?$", ""))
  end
  o[#o + 1] = "---@return " .. sig[2]
  o[#o + 1] = ("function %s.%s(%s) end"):format(qual, name, concat(pnames, ", "))
end

-- Functions found on a table that have no signature above still get one,
-- so the file lists every function of the module.
local function any_lines(o, qual, name)
  o[#o + 1] = ""
  o[#o + 1] = "---@param ... any"
  o[#o + 1] = "---@return any"
  o[#o + 1] = ("function %s.%s(...) end"):format(qual, name)
end

function Gen:opts_classes()
  for _, name in ipairs(sorted_keys(method_opts)) do
    local body = {}
    for _, f in ipairs(method_opts[name]) do
      body[#body + 1] = ("---@field %s? %s %s"):format(f[1], f[2], f[3])
    end
    self:define("kfjob." .. name, "---@class (exact) %s", body,
                "Options of a job method.")
  end
end

function Gen:module(o)
  o[#o + 1] = ""
  o[#o + 1] = "---@class kfjob.Job"
  o[#o + 1] = "---@field kind kfjob.Kind the job's kind"
  o[#o + 1] = "---@field task_type string? the Flyte task type (nil: none)"
  for _, m in ipairs(job_methods) do
    o[#o + 1] = ("---@field %s %s %s"):format(m[1], m[2], m[3])
  end
  o[#o + 1] = "---@field [string] any every constructor field reads back resolved"
  o[#o + 1] = ""
  o[#o + 1] = "---@class kfjob"
  o[#o + 1] = "---@field kinds kfjob.Kind[] the kind names"
  o[#o + 1] = "---@field _VERSION string the library's version"
  o[#o + 1] = '---@field RestartPolicy table<string, string> RestartPolicy.ON_FAILURE == "on_failure", ...'
  o[#o + 1] = '---@field CleanPodPolicy table<string, string> CleanPodPolicy.ALL == "all", ...'
  o[#o + 1] = "---@field template kfjob.template the templating layer"
  o[#o + 1] = "local kfjob = {}"
  for _, kind in ipairs(kfjob.kinds) do
    local _, info = kfjob.fields(kind)
    func_lines(o, "kfjob", kind, { { "t?: kfjob." .. kind .. "Opts" }, "kfjob.Job",
                                   info.description .. "." })
  end
  for _, role in ipairs(sorted_keys(self.role_type)) do
    func_lines(o, "kfjob", role, { { "t?: " .. self.role_type[role] }, "table",
                                   "A standalone " .. role .. " group." })
  end
  func_lines(o, "kfjob", "RunPolicy", { { "t?: " .. self.run_policy_class }, "table",
                                        "A standalone run policy." })
  local names = sorted_keys(kfjob, nil, function(k, v)
    return type(v) == "function" and not self.ctor[k]
  end)
  for _, k in ipairs(names) do
    if module_funcs[k] then func_lines(o, "kfjob", k, module_funcs[k])
    else any_lines(o, "kfjob", k) end
  end
  o[#o + 1] = ""
  o[#o + 1] = "---@class kfjob.template"
  o[#o + 1] = "---@field MAX_NAME integer longest name a variant may have"
  o[#o + 1] = "kfjob.template = {}"
  local tnames = sorted_keys(kfjob.template, nil, function(_, v) return type(v) == "function" end)
  for _, k in ipairs(tnames) do
    if template_funcs[k] then func_lines(o, "kfjob.template", k, template_funcs[k])
    else any_lines(o, "kfjob.template", k) end
  end
  o[#o + 1] = ""
  o[#o + 1] = "return kfjob"
end

-- The whole file, as a string.
-- The Markdown table of the job methods' options (docs/OPTIONS.md).
local function options_table()
  local o = { "| option | type | methods | description |", "|---|---|---|---|" }
  for _, r in ipairs(kfjob.options()) do
    local ms = {}
    for i, m in ipairs(r.methods) do ms[i] = "`" .. m .. "`" end
    o[#o + 1] = ("| `%s` | `%s` | %s | %s |"):format(r.name, r.type:gsub("|", "\\|"),
                                                   concat(ms, ", "), r.description)
  end
  return concat(o, "\n") .. "\n"
end

local function generate(what)
  if what == "options" then return options_table() end
  if what ~= nil then error("kfjob.meta: unknown output '" .. tostring(what) .. "' (expected \"options\")", 2) end
  local g = new_gen()
  g.role_class = {}
  local o = g.out
  o[#o + 1] = "---@meta kfjob"
  o[#o + 1] = "-- kfjob's definitions for lua-language-server (LuaCATS), generated"
  o[#o + 1] = "-- from kfjob's schema rows by `kfjob meta`: do not edit by hand."
  o[#o + 1] = ""
  o[#o + 1] = "--- A Kubernetes quantity (\"500m\", \"32Gi\") or a non-negative number."
  o[#o + 1] = "---@alias kfjob.Quantity string|number"
  o[#o + 1] = "--- Worker nodes: an integer, or \"MIN:MAX\"."
  o[#o + 1] = "---@alias kfjob.Nnodes integer|string"
  o[#o + 1] = "--- A Kubernetes PodTemplateSpec (metadata, spec) plus primary_container_name."
  o[#o + 1] = "---@alias kfjob.PodTemplate table<string, any>"
  o[#o + 1] = "--- A Kubernetes EnvVar: a value, or a valueFrom (EnvVarSource)."
  o[#o + 1] = "---@class kfjob.EnvVar"
  o[#o + 1] = "---@field name string"
  o[#o + 1] = "---@field value? string"
  o[#o + 1] = "---@field valueFrom? table<string, any>"
  local kinds, targets = {}, {}
  for _, k in ipairs(kfjob.kinds) do kinds[#kinds + 1] = "---| " .. quote(k) end
  for _, t in ipairs(kfjob.targets()) do targets[#targets + 1] = "---| " .. quote(t.name) end
  g:define("kfjob.Kind", "---@alias %s", kinds, "A job kind.")
  g:define("kfjob.Target", "---@alias %s", targets, "A system a job is emitted for.")
  local ctor = {}
  for _, kind in ipairs(kfjob.kinds) do
    ctor[kind] = true
    g:kind_class(kind)
    g.run_policy_class = g.run_policy_class or
        g:type_of("run_policy", kfjob.fields(kind).run_policy, kind)
  end
  for role in pairs(g.role_class) do ctor[role] = true end
  g:role_classes()
  ctor.RunPolicy = true
  g.ctor = ctor
  g:opts_classes()
  g:module(o)   -- functions: constructors first, then the others
  return concat(o, "\n") .. "\n"
end

return generate
