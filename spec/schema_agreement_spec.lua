-- kfjob schema against the constructors (issue 30): over seeded mutations
-- of valid configs, python3-jsonschema with `kfjob.schema()` and kfjob's
-- own checks agree on every mutation of a class the schema can express
-- (unknown keys, types, enums, integer ranges, quantities).  The job is
-- built by its kind's constructor, which is what `kfjob check` runs on a
-- data config's job before its target rules (those, cross-field, are
-- listed in the README as what only check knows).
local kfjob = require "kfjob"
local util = require "util"
local unpack_ = table.unpack or unpack
-- python3 and the programs it starts are not under test: a sanitizer
-- preloaded for kfjob (the ASan stage) stays out of them
local PY = "env -u LD_PRELOAD python3"

local function have_jsonschema()
  return os.execute(PY .. " -c 'import jsonschema' >/dev/null 2>&1") == true
      or os.execute(PY .. " -c 'import jsonschema' >/dev/null 2>&1") == 0
end

local function is_array(t)
  if next(t) == nil then return false end
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n == #t
end

local function json(v)
  local t = type(v)
  if t == "string" then return ("%q"):format(v):gsub("\\\n", "\\n") end
  if t == "number" then
    if v == math.floor(v) and v >= -2^53 and v <= 2^53 then return ("%d"):format(v) end
    return ("%.17g"):format(v)
  end
  if t == "boolean" then return tostring(v) end
  local parts = {}
  if is_array(v) then
    for _, x in ipairs(v) do parts[#parts + 1] = json(x) end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do parts[#parts + 1] = json(k) .. ":" .. json(v[k]) end
  return "{" .. table.concat(parts, ",") .. "}"
end

local copy = util.copy   -- a deep copy

-- valid configs, one or more per kind (as a person writes them)
local bases = {
  { kind = "TFJob", worker = { replicas = 2, image = "tf:1", limits = { cpu = 4, mem = "8Gi" } },
    ps = { replicas = 1 }, run_policy = { clean_pod_policy = "running", backoff_limit = 3 } },
  { kind = "PyTorchJob", master = { limits = { gpu = 1 } }, worker = { replicas = 3, restart_policy = "on_failure",
    requests = { cpu = "500m", ephemeral_storage = "10Gi" } }, shared_memory = true,
    scheduling = { queue = "team-a", gang = { min_available = 4, min_resources = { cpu = 8 } },
                   topology = { required = "rack" } } },
  { kind = "Elastic", nnodes = "2:4", nproc_per_node = 2, max_restarts = 3, rdzv_backend = "c10d",
    worker = { image = "pt:2", limits = { gpu = 2 } } },
  { kind = "MPIJob", worker = { replicas = 2, command = { "python", "train.py" } }, slots = 2,
    launcher = { image = "mpi:1" } },
  { kind = "HorovodJob", worker = { replicas = 2 }, verbose = true, log_level = "DEBUG", elastic_timeout = 600 },
  { kind = "JAXJob", worker = { replicas = 2 }, accelerator = { device = "nvidia-tesla-a100", partition_size = "1g.5gb" } },
  { kind = "XGBoostJob", worker = { replicas = 2 }, run_policy = { ttl_seconds_after_finished = 60 } },
  { kind = "PaddleJob", master = { replicas = 1 }, worker = { replicas = 2 }, scheduling = { max_exec_time = 3600 } },
}

-- the rows of a path in a job document
local function rows_at(kind, path)
  local rows = kfjob.fields(kind)
  for i = 1, #path - 1 do
    local r = rows[path[i]]
    if not (r and r.fields) then return nil end
    rows = r.fields
  end
  return rows
end

-- every (path, value) of leaves and tables in a document
local function paths(doc, prefix, out)
  for k, v in pairs(doc) do
    if k ~= "kind" then
      local p = { unpack_(prefix) }
      p[#p + 1] = k
      out[#out + 1] = p
      if type(v) == "table" and not is_array(v) then paths(v, p, out) end
    end
  end
  return out
end

local function set(doc, path, v)
  local t = doc
  for i = 1, #path - 1 do t = t[path[i]] end
  t[path[#path]] = v
end

-- wrong values by row type: what a mutation may put in
local wrong = {
  integer = { "3", 2.5, -1, true, 2147483648, {} },
  nnodes = { "2-4", 0, true, "a:b" },
  string = { 7, true, "has space", "", {} },
  boolean = { "yes", 1, {} },
  quantity = { "abc", -1, "1Xi", "1.2.3", true, "+1" },
  size = { "big", -2, 3.5, {} },
  strings = { "python", {}, { 1 } },
  enum = { "sometimes", 7, true, "NEVER" },
  table = { "x", 3, true },
}

local function mutate(base, rnd)
  local doc = copy(base)
  local ps = paths(doc, {}, {})
  table.sort(ps, function(a, b) return table.concat(a, ".") < table.concat(b, ".") end)
  local path = ps[rnd(#ps)]
  local rows = rows_at(doc.kind, path)
  local row = rows and rows[path[#path]]
  local m = rnd(4)
  if m == 1 then          -- an unknown (misspelt) key beside it
    local p = { unpack_(path) }
    p[#p] = p[#p] .. "x"
    set(doc, p, 1)
    return doc, "unknown key " .. table.concat(p, ".")
  elseif m == 2 and row then   -- a wrong value of its type
    local ty = row.type == "enum" and "enum" or row.type
    if row.type == "table" and row.short then ty = "boolean" end
    local ws = wrong[ty] or wrong.table
    local v = ws[rnd(#ws)]
    if row.token == nil and ty == "string" and (v == "has space" or v == "") then v = 7 end
    set(doc, path, copy(v))
    return doc, table.concat(path, ".") .. " = " .. json(v)
  elseif m == 3 and row and row.values then   -- another accepted spelling
    local vs = row.spellings or row.values
    local v = vs[rnd(#vs)]
    set(doc, path, v)
    return doc, table.concat(path, ".") .. " = " .. json(v)
  else                     -- remove the key: presence rules are check's
    set(doc, path, nil)    -- (README: what only check knows)
    return doc, "without " .. table.concat(path, "."), true
  end
end

describe("kfjob.schema() and the constructors", function()
  it("agree on a few hundred seeded mutations of valid configs", function()
    if not have_jsonschema() then return pending("python3-jsonschema not installed") end
    local seed = 30
    local function rnd(n)   -- a small LCG: the same mutations on every Lua
      seed = (seed * 16807) % 2147483647   -- exact in doubles too
      return seed % n + 1
    end
    local docs, whats, ours = {}, {}, {}
    for i = 1, 400 do
      local base = bases[(i - 1) % #bases + 1]
      local doc, what, presence = mutate(base, rnd)
      if presence then what = nil end
      local t = copy(doc)
      t.kind = nil
      local ok = pcall(kfjob[doc.kind], t)
      docs[#docs + 1], whats[i], ours[#ours + 1] = json(doc), what, ok
    end
    for _, b in ipairs(bases) do   -- the bases themselves are valid
      local t = copy(b); t.kind = nil
      assert.is_true(pcall(kfjob[b.kind], t), b.kind)
    end
    local sfile, dfile = os.tmpname(), os.tmpname()
    local f = assert(io.open(sfile, "w")); f:write(kfjob.schema()); f:close()
    f = assert(io.open(dfile, "w")); f:write(table.concat(docs, "\n"), "\n"); f:close()
    local pyfile = os.tmpname()
    f = assert(io.open(pyfile, "w")); f:write([[
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(s)
v = jsonschema.Draft202012Validator(s)
for line in open(sys.argv[2]):
    print(1 if v.is_valid(json.loads(line)) else 0)
]]); f:close()
    local p = assert(io.popen(("%s %s %s %s"):format(PY, pyfile, sfile, dfile)))
    local out = p:read("*a")
    p:close()
    os.remove(sfile); os.remove(dfile); os.remove(pyfile)
    local i, bad, valid, invalid = 0, {}, 0, 0
    for l in out:gmatch("[01]") do
      i = i + 1
      local theirs = l == "1"
      if theirs then valid = valid + 1 else invalid = invalid + 1 end
      if whats[i] and theirs ~= ours[i] then
        bad[#bad + 1] = ("%s: schema %s, kfjob %s"):format(whats[i], tostring(theirs), tostring(ours[i]))
      end
    end
    assert.are.equal(#docs, i)
    assert.are.same({}, bad)
    assert.is_true(valid > 50 and invalid > 50)
  end)

  it("refuses unknown kinds and targets by name", function()
    assert.has_error(function() kfjob.schema("PyTorchjob") end,
      "kfjob.schema: unknown job kind 'PyTorchjob' (did you mean 'PyTorchJob'?) "
      .. "(expected TFJob, PyTorchJob, Elastic, MPIJob, HorovodJob, JAXJob, XGBoostJob, PaddleJob)")
    assert.has_error(function() kfjob.schema("JAXJob", { target = "flyte" }) end,
      "kfjob.schema: target 'flyte' does not run a JAXJob")
    local s = kfjob.schema(nil, { target = "trainer-2.3" })
    assert.is_nil(s:find('"TFJob"', 1, true))
    assert.is_truthy(s:find('"PyTorchJob"', 1, true))
  end)
end)
