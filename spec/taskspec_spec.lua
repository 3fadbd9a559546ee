-- job:task_spec / kfjob.decode_task_spec (SPEC §3.4): every bad option with
-- its exact message (path included), decode failures, the launcher wrapping
-- in task_template, and the info decode returns.
local kfjob = require "kfjob"
local pack = require("util").pack

local ID = { project = "ml", domain = "development", name = "train", version = "v7" }
local copy = require("util").copy
-- Options: a complete registration plus `over` (keys set to false are removed).
local function opts(over)
  local o = { id = copy(ID), container = { image = "img:1" } }
  for k, v in pairs(over or {}) do
    if v == false then o[k] = nil else o[k] = v end
  end
  return o
end
local PT = kfjob.PyTorchJob { worker = { replicas = 2 } }
local function spec_err(o, job)
  return function() return (job or PT):task_spec(o) end
end
local W = "kfjob.task_spec: "
local MISSING = " (flyteadmin rejects a task without them)"

local rows = {
  -- registration fields
  { "no options at all", spec_err(nil), W .. "missing registration fields: opts.id.project, opts.id.domain, "
    .. "opts.id.name, opts.id.version, opts.container.image" .. MISSING },
  { "no id", spec_err(opts { id = false }), W .. "missing registration fields: opts.id.project, "
    .. "opts.id.domain, opts.id.name, opts.id.version" .. MISSING },
  { "empty project", spec_err(opts { id = { project = "", domain = "d", name = "n", version = "v" } }),
    W .. "missing registration fields: opts.id.project" .. MISSING },
  { "no domain", spec_err(opts { id = { project = "p", name = "n", version = "v" } }),
    W .. "missing registration fields: opts.id.domain" .. MISSING },
  { "no name", spec_err(opts { id = { project = "p", domain = "d", version = "v" } }),
    W .. "missing registration fields: opts.id.name" .. MISSING },
  { "no version", spec_err(opts { id = { project = "p", domain = "d", name = "n" } }),
    W .. "missing registration fields: opts.id.version" .. MISSING },
  { "no image", spec_err(opts { container = { args = { "x" } } }),
    W .. "missing registration fields: opts.container.image" .. MISSING },
  { "no container", spec_err(opts { container = false }),
    W .. "missing registration fields: opts.container.image" .. MISSING },
  { "image on one group only", spec_err(opts { container = false },
      kfjob.MPIJob { worker = { replicas = 2, image = "w" } }),
    W .. "missing registration fields: opts.container.image" .. MISSING },
  { "id not a table", spec_err(opts { id = "p/d/n" }), W .. "opts.id: expected a table" },
  { "id project a number", spec_err(opts { id = { project = 1, domain = "d", name = "n", version = "v" } }),
    W .. "opts.id.project: expected a string" },
  { "id unknown key", spec_err(opts { id = { project = "p", domain = "d", name = "n", version = "v", org = "o" } }),
    W .. "opts.id.org: unknown option" },
  { "id name with a NUL", spec_err(opts { id = { project = "p", domain = "d", name = "a\0b", version = "v" } }),
    W .. "opts.id.name: string contains a NUL byte" },
  { "id version invalid UTF-8", spec_err(opts { id = { project = "p", domain = "d", name = "n", version = "\255" } }),
    W .. "opts.id.version: invalid UTF-8" },
  { "unknown option", spec_err(opts { interfaces = {} }),
    W .. "opts.interfaces: unknown option (did you mean 'interface'?)" },
  { "id misspelt key", spec_err(opts { id = { project = "p", domain = "d", name = "n", versoin = "v" } }),
    W .. "opts.id.versoin: unknown option (did you mean 'version'?)" },
  { "wrap_launcher not a boolean", spec_err(opts { wrap_launcher = "no" }),
    W .. "opts.wrap_launcher: expected a boolean" },
  -- interface
  { "interface not a table", spec_err(opts { interface = "x" }), W .. "opts.interface: expected a table" },
  { "interface unknown side", spec_err(opts { interface = { input = {} } }),
    W .. "opts.interface.input: unknown option (did you mean 'inputs'?)" },
  { "inputs not a table", spec_err(opts { interface = { inputs = "integer" } }),
    W .. "opts.interface.inputs: expected a table of name = type" },
  { "inputs a list", spec_err(opts { interface = { inputs = { "integer" } } }),
    W .. "opts.interface.inputs: expected a table of name = type" },
  { "unknown type with a suggestion", spec_err(opts { interface = { inputs = { n = "intger" } } }),
    W .. "opts.interface.inputs.n: unknown type 'intger' (did you mean 'integer'?)" },
  { "unknown type", spec_err(opts { interface = { outputs = { m = "tensor" } } }),
    W .. "opts.interface.outputs.m: unknown type 'tensor' (expected integer, float, string, boolean, "
    .. "datetime, duration, struct, file, directory, { list = T } or { map = T })" },
  { "type with a NUL byte", spec_err(opts { interface = { inputs = { n = "integer\0x" } } }),
    W .. "opts.interface.inputs.n: string contains a NUL byte" },
  { "type a number", spec_err(opts { interface = { inputs = { n = 1 } } }),
    W .. "opts.interface.inputs.n: expected a type name or a table { list = T } or { map = T }" },
  { "type an empty table", spec_err(opts { interface = { inputs = { n = {} } } }),
    W .. "opts.interface.inputs.n: expected a type name or a table { list = T } or { map = T }" },
  { "type table with two keys", spec_err(opts { interface = { inputs = { n = { list = "integer", map = "float" } } } }),
    W .. "opts.interface.inputs.n: expected a type name or a table { list = T } or { map = T }" },
  { "type table with a misspelt key", spec_err(opts { interface = { inputs = { n = { lsit = "integer" } } } }),
    W .. "opts.interface.inputs.n.lsit: unknown key (did you mean 'list'?) (a type table is { list = T } or { map = T })" },
  { "bad nested type", spec_err(opts { interface = { inputs = { n = { map = { list = "strng" } } } } }),
    W .. "opts.interface.inputs.n.map.list: unknown type 'strng' (did you mean 'string'?)" },
  { "types nested too deep", spec_err(opts { interface = { inputs = { n = (function()
      local t = "integer"
      for _ = 1, 40 do t = { list = t } end
      return t
    end)() } } }),
    W .. "opts.interface.inputs.n" .. string.rep(".list", 32) .. ": types nested deeper than 32 levels" },
  { "variable name empty", spec_err(opts { interface = { inputs = { [""] = "integer" } } }),
    W .. "opts.interface.inputs: a variable name must be a non-empty UTF-8 string" },
  { "variable name invalid UTF-8", spec_err(opts { interface = { inputs = { ["\255"] = "integer" } } }),
    W .. "opts.interface.inputs: a variable name must be a non-empty UTF-8 string" },
  -- metadata
  { "metadata not a table", spec_err(opts { metadata = 3 }), W .. "opts.metadata: expected a table" },
  { "metadata unknown key", spec_err(opts { metadata = { retry = 1 } }),
    W .. "opts.metadata.retry: unknown option" },
  { "retries negative", spec_err(opts { metadata = { retries = -1 } }),
    W .. "opts.metadata.retries: expected an integer 0..10 (flyteidl's RetryStrategy allows at most 10)" },
  { "retries 11", spec_err(opts { metadata = { retries = 11 } }),
    W .. "opts.metadata.retries: expected an integer 0..10 (flyteidl's RetryStrategy allows at most 10)" },
  { "retries fractional", spec_err(opts { metadata = { retries = 1.5 } }),
    W .. "opts.metadata.retries: expected an integer 0..10 (flyteidl's RetryStrategy allows at most 10)" },
  { "retries a string", spec_err(opts { metadata = { retries = "3" } }),
    W .. "opts.metadata.retries: expected an integer 0..10 (flyteidl's RetryStrategy allows at most 10)" },
}
local TIMEOUT = W .. "opts.metadata.timeout: expected whole seconds (0 to 315576000000) or a duration "
  .. "like \"1h30m\" (units h, m, s)"
for _, bad in ipairs({ -1, 1.5, "", "90", "1h\0", 0 / 0, math.huge, "1d", "30m1h", "1h1h", "h", "1.5h", " 1h", "1h ", true,
    315576000001, "87660001h", "99999999999999999999s" }) do
  rows[#rows + 1] = { "timeout " .. string.format("%q", tostring(bad)),
    spec_err(opts { metadata = { timeout = bad } }), TIMEOUT }
end
for _, row in ipairs({
  { "interruptible a string", spec_err(opts { metadata = { interruptible = "yes" } }),
    W .. "opts.metadata.interruptible: expected a boolean" },
  { "cache not a table", spec_err(opts { metadata = { cache = true } }),
    W .. "opts.metadata.cache: expected a table" },
  { "cache without version", spec_err(opts { metadata = { cache = { serializable = true } } }),
    W .. "opts.metadata.cache.version: required when caching (the cache key's version)" },
  { "cache version empty", spec_err(opts { metadata = { cache = { version = "" } } }),
    W .. "opts.metadata.cache.version: expected a non-empty string" },
  { "cache version a number", spec_err(opts { metadata = { cache = { version = 1 } } }),
    W .. "opts.metadata.cache.version: expected a string" },
  { "cache serializable a string", spec_err(opts { metadata = { cache = { version = "1", serializable = "y" } } }),
    W .. "opts.metadata.cache.serializable: expected a boolean" },
  { "cache unknown key", spec_err(opts { metadata = { cache = { version = "1", ignore = {} } } }),
    W .. "opts.metadata.cache.ignore: unknown option" },
  { "cache ignore_inputs a string", spec_err(opts { metadata = { cache = { version = "1", ignore_inputs = "lr" } } }),
    W .. "opts.metadata.cache.ignore_inputs: expected a list of input names" },
  { "cache ignore_inputs item a number", spec_err(opts { metadata = { cache = { version = "1", ignore_inputs = { "a", 2 } } } }),
    W .. "opts.metadata.cache.ignore_inputs[2]: expected a string" },
  { "cache ignore_inputs not an input", spec_err(opts { interface = { inputs = { lr = "float" } },
      metadata = { cache = { version = "1", ignore_inputs = { "lr", "seed" } } } }),
    W .. "opts.metadata.cache.ignore_inputs[2]: 'seed' is not an input (opts.interface.inputs)" },
  { "description a number", spec_err(opts { metadata = { description = 1 } }),
    W .. "opts.metadata.description: expected a string" },
  { "description with a NUL", spec_err(opts { metadata = { description = "a\0b" } }),
    W .. "opts.metadata.description: string contains a NUL byte" },
  { "tags a list", spec_err(opts { metadata = { tags = { "a" } } }),
    W .. "opts.metadata.tags: expected a table of name = value" },
  { "tag value a number", spec_err(opts { metadata = { tags = { team = 1 } } }),
    W .. "opts.metadata.tags.team: expected a string" },
  { "format unknown", spec_err(opts { format = "yaml" }), W .. "opts.format: expected \"pb\" or \"json\"" },
  { "version 2", spec_err(opts { version = 2 }),
    W .. "opts.version: unsupported task_type_version 2 (expected 0 or 1)" },
}) do rows[#rows + 1] = row end

describe("task_spec bad options", function()
  for _, row in ipairs(rows) do
    it(row[1], function() assert.has_error(row[2], row[3]) end)
  end
end)

describe("decode_task_spec returns nil, message", function()
  local D = "kfjob.decode_task_spec: "
  local good = PT:task_spec(opts())
  for _, row in ipairs({
    { "empty input", "", D .. "template: missing (a TaskSpec without a TaskTemplate)" },
    { "truncated", good:sub(1, 20),
      D .. "malformed flyteidl.admin.TaskSpec (truncated bytes, a bad tag or a wrong wire type)" },
    { "a TaskTemplate is not a TaskSpec", PT:task_template({ id = ID }),
      D .. "malformed flyteidl.admin.TaskSpec (truncated bytes, a bad tag or a wrong wire type)" },
    { "bad JSON", "{", nil },
    { "JSON without a template", "{\"description\": {}}", D .. "template: missing (a TaskSpec without a TaskTemplate)" },
    { "JSON with a bad timeout", "{\"template\": {\"type\": \"pytorch\", \"metadata\": {\"timeout\": \"1h\"}}}",
      D .. "template.metadata.timeout: expected a duration string like \"5400s\", got '1h'" },
    { "JSON timeout a number", "{\"template\": {\"type\": \"pytorch\", \"metadata\": {\"timeout\": 5}}}",
      D .. "template.metadata.timeout: expected a duration string like \"5400s\", got number" },
    { "unknown type", "{\"template\": {\"type\": \"ray\", \"custom\": {}}}",
      D .. "unknown task type 'ray' (expected tensorflow, pytorch or mpi)" },
  }) do
    it(row[1], function()
      local r = pack(kfjob.decode_task_spec(row[2]))
      assert.is_nil(r[1])
      if row[3] then assert.are.equal(row[3], r[2]) else assert.is_string(r[2]) end
    end)
  end

  it("never raises on any prefix of a valid TaskSpec", function()
    local full = kfjob.MPIJob { worker = { replicas = 2 } }:task_spec(opts {
      interface = { inputs = { a = { list = { map = "file" } } } },
      metadata = { timeout = 60, retries = 2, cache = { version = "1" }, tags = { a = "b" }, description = "d" } })
    for i = 0, #full - 1 do
      local ok, a = pcall(kfjob.decode_task_spec, full:sub(1, i))
      assert(ok, a)
    end
  end)
end)

describe("decode_task_spec info", function()
  it("gives id, container (user args), interface, metadata and runtime", function()
    local job = kfjob.HorovodJob { worker = { replicas = 2 }, slots = 2 }
    local o = opts {
      container = { image = "hvd:1", args = { "python", "t.py" }, env = { A = "1" } },
      interface = { inputs = { x = { map = { list = "directory" } }, d = "datetime" }, outputs = { y = "struct" } },
      metadata = { retries = 4, timeout = "2h", interruptible = false, description = "d",
        cache = { version = "v", serializable = true, ignore_inputs = { "x" } }, tags = { k = "v" } } }
    local back, info = kfjob.decode_task_spec(job:task_spec(o), { kind = "HorovodJob" })
    assert(back, info)
    assert.are.same(ID, info.id)
    assert.are.same(o.container, info.container)
    assert.are.same(o.interface, info.interface)
    o.metadata.timeout = 7200
    assert.are.same(o.metadata, info.metadata)
    assert.are.same({ version = kfjob._VERSION, flavor = "kfjob" }, info.runtime)
    assert.are.equal("mpi", info.type)
    assert.is_nil(info.wrap_launcher)
  end)

  it("says wrap_launcher = false when the args are not wrapped", function()
    local job = kfjob.MPIJob { worker = { replicas = 2 } }
    local o = opts { container = { image = "i", args = { "bash" } } }
    o.wrap_launcher = false
    local _, info = kfjob.decode_task_spec(job:task_spec(o))
    assert.is_false(info.wrap_launcher)
    assert.are.same({ "bash" }, info.container.args)
  end)
end)

describe("task_spec container image", function()
  it("is the worker's when every group has its own and the options give none", function()
    local job = kfjob.MPIJob { worker = { replicas = 2, image = "w:1" }, launcher = { image = "l:1" } }
    local j = job:task_spec { id = ID, format = "json" }
    assert.truthy(j:find('"container":{"image":"w:1","args":["mpirun"', 1, true), j)
    j = job:task_spec { id = ID, container = { env = { A = "1" } }, format = "json" }
    assert.truthy(j:find('"container":{"image":"w:1"', 1, true), j)
    j = job:task_spec { id = ID, container = { image = "task:1" }, format = "json" }
    assert.truthy(j:find('"container":{"image":"task:1"', 1, true), j)
  end)
end)

describe("task_template and the launcher", function()
  it("wraps MPI container args in mpirun (FACTS §2.5)", function()
    local job = kfjob.MPIJob { worker = { replicas = 3 }, slots = 2 }
    local j = job:task_template { container = { image = "i", args = { "python", "t.py" } }, format = "json" }
    assert.truthy(j:find('"args":["mpirun","--allow-run-as-root","-bind-to","none","-map-by","slot","-x",'
      .. '"LD_LIBRARY_PATH","-x","PATH","-x","NCCL_DEBUG=INFO","-mca","pml","ob1","-mca","btl","^openib",'
      .. '"-np","6","python","t.py"]', 1, true), j)
  end)

  it("wraps Horovod args in horovodrun (FACTS §2.6)", function()
    local job = kfjob.HorovodJob { worker = { replicas = 2 }, slots = 2 }
    local j = job:task_template { container = { image = "i", args = { "python", "t.py" } }, format = "json" }
    assert.truthy(j:find('"args":["horovodrun","-np","4","--log-level","INFO","--network-interface","eth0",'
      .. '"--min-np","4","--max-np","4","--slots-per-host","2","--host-discovery-script",'
      .. '"/etc/mpi/discover_hosts.sh","--elastic-timeout","1200","python","t.py"]', 1, true), j)
  end)

  it("leaves args alone with wrap_launcher = false, and other kinds always", function()
    local j = kfjob.MPIJob { worker = { replicas = 3 } }:task_template {
      container = { image = "i", args = { "a" } }, wrap_launcher = false, format = "json" }
    assert.truthy(j:find('"args":["a"]', 1, true), j)
    j = kfjob.TFJob { worker = { replicas = 3 } }:task_template {
      container = { image = "i", args = { "a" } }, format = "json" }
    assert.truthy(j:find('"args":["a"]', 1, true), j)
  end)

  it("has no metadata or interface in a bare TaskTemplate", function()
    assert.has_error(function() PT:task_template { interface = {} } end,
      "kfjob.task_template: opts.interface: unknown option")
  end)
end)
