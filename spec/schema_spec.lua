-- The schema as Lua sees it (kfjob.fields, kfjob.suggest), and every field
-- at its largest: the encoder's buffer bound is derived from the schema
-- rows, and sanitizer builds (KF_CHECK_BOUNDS) abort if it is ever short.
local kfjob = require "kfjob"
local util = require "util"

local INT32_MAX = 2147483647
local BIG = 300 * 1024          -- 3-byte length prefixes on the wire

describe("kfjob.fields", function()
  it("lists each kind's groups, rows and defaults", function()
    local tf = kfjob.fields("TFJob")
    assert.are.equal("table", tf.worker.type)
    assert.are.equal("Worker", tf.worker.group)
    assert.are.equal("integer", tf.worker.fields.replicas.type)
    assert.are.equal(0, tf.worker.fields.replicas.min)
    assert.are.equal("quantity", tf.worker.fields.requests.fields.cpu.type)
    assert.are.equal(tf.worker.fields.requests.fields.mem,
                     tf.worker.fields.requests.fields.memory)
    assert.are.equal("memory", tf.worker.fields.requests.fields.mem.alias)
    assert.are.same({"never", "on_failure", "always", "exit_code"},
                    tf.worker.fields.restart_policy.values)
    assert.are.equal("never", tf.worker.fields.restart_policy.default)
    assert.is_nil(tf.worker.fields.command)          -- MPI kinds only
    assert.is_true(tf.num_workers.deprecated)
    assert.are.equal("none", tf.run_policy.fields.clean_pod_policy.default)
    assert.is_false(tf.run_policy.v0)
    assert.is_nil(tf.slots)
  end)

  it("follows each kind's rules", function()
    local el = kfjob.fields("Elastic")
    assert.is_nil(el.worker.fields.replicas)         -- nnodes decides
    assert.are.equal("nnodes", el.nnodes.type)
    assert.are.equal("c10d", el.rdzv_backend.default)
    assert.are.same({"c10d", "etcd", "etcd-v2", "static"}, el.rdzv_backend.values)
    local mpi = kfjob.fields("MPIJob")
    assert.are.equal("strings", mpi.worker.fields.command.type)
    assert.are.equal(1, mpi.slots.default)
    local hv = kfjob.fields("HorovodJob")
    assert.are.equal(false, hv.verbose.default)
    assert.are.equal("INFO", hv.log_level.default)
    assert.are.equal(1200, hv.elastic_timeout.default)
    assert.are.equal("kfjob.fields: unknown job kind 'TFjob' (expected TFJob, "
                     .. "PyTorchJob, Elastic, MPIJob, HorovodJob, JAXJob, "
                     .. "XGBoostJob or PaddleJob)",
                     util.error_of(kfjob.fields, "TFjob"))
  end)

  it("agrees with the constructors: every listed key is accepted", function()
    for _, kind in ipairs(kfjob.kinds) do
      local f = kfjob.fields(kind)
      for key, row in pairs(f) do
        if row.type == "table" and row.group then
          local t = { [key] = { replicas = 1 } }
          if not row.fields.replicas then t[key] = {} end
          if kind ~= "Elastic" and key ~= "worker" then t.worker = { replicas = 1 } end
          assert.is_true(kfjob.is_job(kfjob[kind](t)), kind .. "." .. key)
        end
      end
    end
  end)
end)

describe("kfjob.suggest", function()
  it("is the core's did-you-mean", function()
    assert.are.equal("replicas", kfjob.suggest("replcas", {"image", "replicas"}))
    assert.is_nil(kfjob.suggest("zzzzzz", {"image", "replicas"}))
    assert.is_nil(kfjob.suggest("x", {}))
    assert.are.equal("kfjob.suggest: candidates[2] is not a string",
                     util.error_of(kfjob.suggest, "a", {"b", 3}))
  end)
end)

-- The largest value each row takes (nil: leave it at its default).
local function largest(row, key)
  if row.type == "integer" then return INT32_MAX end
  if row.type == "boolean" then return true end
  if row.type == "enum" then return row.values[#row.values] end
  if row.type == "quantity" then return string.rep("9", BIG) end
  -- a topology level is a label name (Kueue ValidateLabelName): the longest
  if row.type == "string" and row.check == "label_key" then
    return string.rep("d", 253) .. "/" .. string.rep("n", 63)
  end
  if row.type == "string" then return string.rep("s", BIG) end
  if row.type == "strings" then
    local l = {}
    for i = 1, 4096 do l[i] = string.rep("c", 64) .. i end
    return l
  end
  if row.type == "nnodes" then return (INT32_MAX - 1) .. ":" .. INT32_MAX end
  if row.type == "size" then return string.rep("9", BIG) end
  if row.type == "tree" then  -- none of these travels in the message
    if key == "env" then return { { name = "BIG", value = string.rep("v", BIG) } } end
    if key == "labels" then return { big = string.rep("l", 63) } end   -- a label value
    -- extended resources: about the longest name IsExtendedResourceName takes
    -- (requests.<prefix> a subdomain of at most 253, '/', 63), the limit its request
    if key == "extended" then
      local e = string.rep("e", 60)
      return { [table.concat({ e, e, e, e }, ".") .. "/" .. string.rep("r", 63)] = string.rep("9", BIG) }
    end
    if key == "annotations" then return { big = string.rep("a", 256 * 1024 - 3) } end   -- the limit
    if key == "rdzv_conf" then return { { key = "big", value = string.rep("v", BIG) } } end
    if key == "metrics" then return { { type = "Pods", pods = { metric = { name = string.rep("m", BIG) } } } } end
    if key == "slices" then   -- Kueue's slice constraints: 3 levels of the longest label names
      local l = {}
      for i = 1, 3 do l[i] = { level = string.rep("d", 253) .. "/" .. string.rep("n", 62) .. i, size = 1 } end
      return l
    end
    return { metadata = { labels = { big = string.rep("l", BIG) } } }   -- the pod template
  end
  if row.type == "table" then
    local t = {}
    for k, r in pairs(row.fields) do
      if not r.alias or r.alias ~= k then t[k] = largest(r, k) end
    end
    return t
  end
  error("no largest value for " .. key)
end

-- A constructor table with every field at its largest; rows a rule bounds
-- (master = 1, chief <= 1) fall back to the largest the rule allows.
local function biggest(kind)
  local t = {}
  for key, row in pairs(kfjob.fields(kind)) do
    if not row.deprecated then t[key] = largest(row, key) end
  end
  if t.rdzv_backend then t.rdzv_backend = "etcd-v2" end
  t.accelerator.unpartitioned = nil  -- a partition size excludes it
  -- the device becomes a node-affinity value: a label value, at most 63
  -- (IsValidLabelValue, issue 32)
  t.accelerator.device = string.rep("s", 63)
  t.accelerator.partition_size = string.rep("s", 63)   -- likewise (a node-selector value)
  -- SPEC §13: Kueue's names are DNS-1123 subdomains, a topology has one mode
  -- (written as label values: at most 63, IsValidLabelValue)
  t.scheduling.queue, t.scheduling.priority_class = string.rep("q", 63), string.rep("p", 63)
  t.namespace = string.rep("n", 63)   -- a DNS-1123 label
  -- SPEC §18: a clustered task's own fields are refused on the plugin's targets (R42)
  t.interconnect, t.restart_on_host_maintenance = nil, nil
  t.runtime_nodes, t.runtime_trainer = nil, nil   -- a node count of 1 only (the runtime's)
  -- a domain-prefixed path (IsDomainPrefixedPath), at most 253 (the CRD's manager)
  if t.runtime_patch_manager then t.runtime_patch_manager = "example.com/" .. string.rep("m", 241) end
  for _, v in pairs(t) do   -- an MPI group's command is its container's args
    if type(v) == "table" and v.command and v.container then v.container.args = nil end
  end
  for _, v in pairs(t) do
    if type(v) == "table" and v.topology then v.topology.preferred, v.topology.unconstrained = nil, nil end
    -- Kueue: a pod set group takes no slice annotations (tas_validation.go)
    if type(v) == "table" and v.topology then v.topology.group, v.topology.slices = nil, nil end
  end
  local ok, job = pcall(kfjob[kind], t)
  while not ok do
    local path = tostring(job):match(": ([%w_%.]+): must")
    assert(path, job)
    local group = path:match("^(%w+)%.replicas$")
    assert(group, job)
    t[group].replicas = 1
    ok, job = pcall(kfjob[kind], t)
  end
  return job
end

describe("the encoder's bound", function()
  for _, kind in ipairs(kfjob.kinds) do
    it("holds with every field of " .. kind .. " at its largest", function()
      local job = biggest(kind)
      if job.task_type == nil then  -- SPEC §12: no message; the copies hold it all
        assert.has_error(function() job:encode() end)
        assert.are.equal(string.rep("s", BIG), job.worker.image)
        assert.is_true(kfjob[kind](job:spec()) == job)
        return
      end
      -- SPEC §13: scheduling and group pod settings cannot travel to Flyte
      -- (R30, R31) and are not in the message; nor a group's container (R35)
      local s = job:spec()
      s.scheduling = nil
      -- Trainer's runtime (R38) and a PyTorchJob's nproc_per_node (R39)
      -- have no place in Flyte's message
      s.runtime = nil
      if kind == "PyTorchJob" then s.nproc_per_node = nil end
      -- the container's name (R40) and the mpi-operator's fields (R41)
      if s.container then s.container.name = nil end
      s.ssh_auth_mount_path, s.mpi_implementation = nil, nil
      s.run_launcher_as_worker, s.launcher_creation_policy = nil, nil
      -- an elastic policy's operator-only fields (R43)
      s.rdzv_host, s.rdzv_port, s.rdzv_id, s.standalone, s.rdzv_conf, s.metrics = nil, nil, nil, nil, nil, nil
      -- extended resources: Flyte's Resources has no name for them (R56)
      for _, v in pairs({ s, s.worker, s.ps, s.chief, s.evaluator, s.master, s.launcher }) do
        if v.requests then v.requests.extended = nil end
        if v.limits then v.limits.extended = nil end
      end
      for _, v in pairs(s) do
        if type(v) == "table" then v.pod_template, v.topology, v.container = nil, nil, nil end
        -- ExitCode: no value of the plugin's enum (R13)
        if type(v) == "table" and v.restart_policy == "exit_code" then v.restart_policy = "always" end
      end
      -- MPI and Horovod: task_template wraps container.args in the launcher
      -- line, a list of at most 4096 items (job:launcher_command's limit)
      if (kind == "MPIJob" or kind == "HorovodJob") and s.container and s.container.args then
        local n = #job:launcher_command({})
        for i = #s.container.args, 4096 - n + 1, -1 do s.container.args[i] = nil end
      end
      job = kfjob[kind](s)
      for _, enc in ipairs({"flat", "common"}) do
        local bytes = job:encode{ replica_encoding = enc }
        assert.is_true(#bytes > BIG)
        local back = kfjob.decode(job.task_type, bytes, { kind = kind })
        assert.are.equal(bytes, back:encode{ replica_encoding = enc })
      end
      assert.is_true(#job:to_json() > BIG)
      assert.is_true(#job:task_template() > BIG)
    end)
  end
end)

-- job:with patches leaf fields in place when every key is a plain leaf
-- path; the result (and every error) must be what the general path (spec,
-- merge, rebuild) gives for the same overrides written as nested tables.
describe("job:with of leaf paths", function()
  local samples = {
    integer = { 0, 1, 3, 2.0 }, string = { "img:1", "" }, quantity = { "2Gi", 4, 0.5, "x" },
    boolean = { true }, enum = { "always", "Never", "bogus" },
    size = { true, false, "2Gi", 4, "x" },
  }
  local bases = {
    TFJob = { worker = { replicas = 2, image = "a" }, ps = { replicas = 1 },
              run_policy = { ttl_seconds_after_finished = 0 }, num_chief_replicas = 1 },
    PyTorchJob = { worker = { replicas = 2, requests = { mem = "1Gi" } } },
    Elastic = { nnodes = "2:4", worker = { image = "a" } },
    MPIJob = { worker = { replicas = 2, command = { "python", "t.py" } }, slots = 2 },
    HorovodJob = { worker = { replicas = 2 }, verbose = true },
    JAXJob = { worker = { replicas = 2, image = "a" } },
    XGBoostJob = { worker = { replicas = 2 }, run_policy = { backoff_limit = 0 } },
    PaddleJob = { worker = { replicas = 2 }, master = { replicas = 0 } },
  }
  local function nested(path, v)
    local t, parts = {}, {}
    for p in path:gmatch("[^.]+") do parts[#parts + 1] = p end
    local cur = t
    for i = 1, #parts - 1 do cur[parts[i]] = {}; cur = cur[parts[i]] end
    cur[parts[#parts]] = v
    return t
  end
  local function leaves(rows, prefix, out)
    for k, row in pairs(rows) do
      local p = prefix and prefix .. "." .. k or k
      if row.fields then leaves(row.fields, p, out)
      elseif not row.deprecated and row.type ~= "strings" then out[#out + 1] = { p, row } end
    end
    return out
  end
  for kind, t in pairs(bases) do
    it("agrees with the general path for every leaf of " .. kind, function()
      local job = kfjob[kind](t)
      for _, leaf in ipairs(leaves(kfjob.fields(kind), nil, {})) do
        local path, row = leaf[1], leaf[2]
        local vals = samples[row.type] or {}
        if row.values then vals = { row.values[#row.values], "bogus" } end
        for _, v in ipairs(vals) do
          local ok1, a = pcall(job.with, job, { [path] = v })
          local ok2, b = pcall(job.with, job, nested(path, v))
          assert.are.equal(ok2, ok1, path .. " = " .. tostring(v))
          if ok1 then
            assert.is_true(a == b, path)
            assert.are.same(b:spec(), a:spec())
            -- encode may refuse for the target (SPEC §11, worker 0): alike
            assert.are.same({ pcall(b.encode, b) }, { pcall(a.encode, a) })
            assert.are.equal(tostring(b), tostring(a))
          else
            assert.are.equal(b, a)
          end
        end
      end
    end)
  end
end)

describe("job:with of leaf paths, then errors", function()
  it("names the fields as the general path would", function()
    local job = kfjob.TFJob{ worker = { replicas = 2 }, num_chief_replicas = 1 }
    local a = job:with{ ["worker.image"] = "x" }
    local b = job:with{ worker = { image = "x" } }
    assert.are.equal(util.error_of(b.with, b, { ["chief.replicas"] = -1 }),
                     util.error_of(a.with, a, { ["chief.replicas"] = -1 }))
    assert.are.equal("kfjob.TFJob: chief.replicas: must be >= 0 (got -1)",
                     util.error_of(a.with, a, { ["chief.replicas"] = -1 }))
  end)
end)

-- A with() of number-valued leaves copies the base job's block and moves
-- its string pointers (kf_job_pack_from): the copy must own its strings
-- once the base is gone, lists and value trees included.
describe("job:with copies the base's strings", function()
  local function fresh()
    return kfjob.MPIJob{ worker = { replicas = 2, image = "img:1", command = { "python", "t.py" },
                                    requests = { mem = "1Gi" } },
                         launcher = { image = "launch:2" }, slots = 2,
                         run_policy = { backoff_limit = 1 } }
  end
  local function same_as_built(v, over)
    local want = kfjob.MPIJob(fresh():with(over):spec())
    assert.is_true(v == want)
    assert.are.equal(want:encode(), v:encode())
    assert.are.equal(want:to_json(), v:to_json())
  end
  local overs = {
    { ["worker.replicas"] = 5, ["run_policy.backoff_limit"] = 3 },   -- numbers: block copied
    { ["worker.restart_policy"] = "always" },                          -- an enum: block copied
    { ["worker.image"] = "img:2" },                                    -- a string: laid out
  }
  for i, over in ipairs(overs) do
    it("override set " .. i .. " survives its base", function()
      local base = fresh()
      local v = base:with(over)
      base = nil   -- luacheck: ignore 311
      for _ = 1, 3 do collectgarbage("collect") end
      local junk = {}
      for k = 1, 2000 do junk[k] = kfjob.MPIJob{ worker = { replicas = 1, image = ("z"):rep(k % 50 + 1) } } end
      assert.are.equal(2000, #junk)   -- new jobs where the base's block was
      assert.are.equal("python", v.worker.command[1])
      assert.are.equal("t.py", v.worker.command[2])
      assert.are.equal("launch:2", v.launcher.image)
      assert.are.equal(over["worker.image"] or "img:1", v.worker.image)
      same_as_built(v, over)
    end)
  end
  it("a base with a pod template (a value tree) is laid out, not copied", function()
    local base = kfjob.PyTorchJob{ worker = { replicas = 2, image = "a" },
                                   pod_template = { metadata = { labels = { team = "nlp" } } } }
    local v = base:with{ ["worker.replicas"] = 4 }
    base = nil   -- luacheck: ignore 311
    for _ = 1, 3 do collectgarbage("collect") end
    assert.are.equal("nlp", v.pod_template.metadata.labels.team)
    assert.are.equal(4, v.worker.replicas)
  end)
end)

-- A job remembers the targets whose rules it passed when emitted; a job
-- made from it (with, a sweep's variant) is checked again.
describe("emitting checks a derived job's own rules", function()
  it("with() of a valid, emitted job to 0 workers still fails for flyte", function()
    local j = kfjob.TFJob{ worker = { replicas = 2, image = "i" } }
    assert.is_string(j:encode())
    assert.is_string(j:to_json())
    local z = j:with{ ["worker.replicas"] = 0 }
    local msg = "kfjob.TFJob: worker.replicas: must be >= 1 (got 0) (target flyte)"
    for _ = 1, 2 do
      assert.has_error(function() z:encode() end, msg)
      assert.has_error(function() z:to_json() end, msg)
      assert.has_error(function() z:task_template() end, msg)
    end
    assert.is_string(j:encode())
  end)
  it("passing one target says nothing of another", function()
    -- R1: a PyTorchJob without workers is a warning on flyte, an error on flyte2
    local j = kfjob.PyTorchJob{ worker = { replicas = 0 } }
    for _ = 1, 2 do
      assert.is_string(j:encode())
      assert.has_error(function() j:encode{ target = "flyte2" } end)
    end
  end)
  it("a sweep's variants from an emitted base are checked one by one", function()
    local template = require "kfjob.template"
    local base = kfjob.TFJob{ worker = { replicas = 2, image = "i" } }
    assert.is_string(base:encode())
    local bad = 0
    for _, job in template.variants(base, { ["worker.replicas"] = { 1, 0, 2 } },
                                    { name = "w${worker.replicas}" }) do
      if not pcall(job.encode, job) then bad = bad + 1 end
    end
    assert.are.equal(1, bad)
  end)
end)
