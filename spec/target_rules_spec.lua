-- Rules by target (SPEC §11, FACTS §8.5): every rule a job's fields can
-- break, on every target, with the result FACTS gives for it: "error"
-- (job:check{target=} lists it with its path, emitting raises it),
-- "warning" (job:lint{target=} lists it, check passes it), "ok" or "n.a."
-- (neither lists it).  The expectations are the cells of FACTS §8.5,
-- written here by hand.
local kfjob = require "kfjob"

local TARGETS = { "flyte", "flyte2", "operator", "mpi-operator", "trainer-2.2", "trainer-2.3" }

local function find(list, rule, path)
  for _, p in ipairs(list or {}) do
    if p.rule == rule and (path == nil or p.path == path) then return p end
  end
end

-- One row per rule and case: the job, the path, and the result per target
-- (targets left out are not this row's: another rule covers them, named in
-- `others`).
local rows = {
  { "R1", "PyTorchJob with a master and no workers",
    function() return kfjob.PyTorchJob { master = {} } end, "worker.replicas",
    { flyte = "warning", flyte2 = "error", operator = "ok", ["mpi-operator"] = "n.a.",
      ["trainer-2.2"] = "ok", ["trainer-2.3"] = "ok" } },
  { "R1", "PyTorchJob with worker.replicas = 0",
    function() return kfjob.PyTorchJob { worker = { replicas = 0 } } end, "worker.replicas",
    { flyte = "warning", flyte2 = "error", operator = "ok", ["mpi-operator"] = "n.a.",
      ["trainer-2.2"] = "ok", ["trainer-2.3"] = "ok" } },
  -- on Trainer a TFJob is an error of its kind (R24), not of R3
  { "R3", "TFJob without workers",
    function() return kfjob.TFJob { ps = { replicas = 1 } } end, "worker.replicas",
    { flyte = "error", flyte2 = "error", operator = "ok", ["mpi-operator"] = "n.a.",
      ["trainer-2.2"] = "n.a.", ["trainer-2.3"] = "n.a." } },
  { "R3", "TFJob with num_workers = 0",
    function() return kfjob.TFJob { num_workers = 0, chief = { replicas = 1 } } end, "worker.replicas",
    { flyte = "error", flyte2 = "error", operator = "ok" } },
  { "R4", "MPIJob without workers",
    function() return kfjob.MPIJob { slots = 2 } end, "worker.replicas",
    { flyte = "error", flyte2 = "error", operator = "ok", ["mpi-operator"] = "error",
      ["trainer-2.2"] = "n.a.", ["trainer-2.3"] = "n.a." } },
  { "R4", "HorovodJob with worker.replicas = 0",
    function() return kfjob.HorovodJob { worker = { replicas = 0 } } end, "worker.replicas",
    { flyte = "error", flyte2 = "error", operator = "ok", ["mpi-operator"] = "error",
      ["trainer-2.2"] = "n.a.", ["trainer-2.3"] = "n.a." } },
  { "R4", "MPIJob with the deprecated num_workers given",
    function() return kfjob.MPIJob { num_workers = 3 } end, "num_workers",
    { flyte = "ok", flyte2 = "ok", operator = "ok", ["mpi-operator"] = "ok" } },
  { "R8", "TFJob with two chiefs",
    function() return kfjob.TFJob { worker = { replicas = 2 }, chief = { replicas = 2 } } end, "chief.replicas",
    { flyte = "warning", flyte2 = "warning", operator = "warning", ["mpi-operator"] = "n.a.",
      ["trainer-2.2"] = "n.a.", ["trainer-2.3"] = "n.a." } },
  { "R8", "TFJob with two evaluators",
    function() return kfjob.TFJob { worker = { replicas = 2 }, evaluator = { replicas = 2 } } end,
    "evaluator.replicas",
    { flyte = "warning", flyte2 = "warning", operator = "warning", ["mpi-operator"] = "n.a.",
      ["trainer-2.2"] = "n.a.", ["trainer-2.3"] = "n.a." } },
  { "R8", "TFJob with two chiefs through the deprecated count",
    function() return kfjob.TFJob { worker = { replicas = 2 }, num_chief_replicas = 2 } end,
    "num_chief_replicas", { flyte = "warning", flyte2 = "warning", operator = "warning" } },
  { "R8", "TFJob with one chief and one evaluator",
    function() return kfjob.TFJob { worker = { replicas = 2 }, chief = { replicas = 1 },
                                    evaluator = { replicas = 1 } } end, nil,
    { flyte = "ok", flyte2 = "ok", operator = "ok" } },
  -- on Trainer an elastic range is an error of its own (min == max, 19b's
  -- row of the manifest rules), not asserted here
  { "R9", "Elastic with min > max",
    function() return kfjob.Elastic { nnodes = "3:2" } end, "nnodes",
    { flyte = "warning", flyte2 = "warning", operator = "warning", ["mpi-operator"] = "n.a." } },
  { "R9", "Elastic with min < max",
    function() return kfjob.Elastic { nnodes = "2:3" } end, "nnodes",
    { flyte = "ok", flyte2 = "ok", operator = "ok", ["mpi-operator"] = "n.a." } },
  { "R10", "Elastic with nproc_per_node = \"auto\"",
    function() return kfjob.Elastic { nnodes = 2, nproc_per_node = "auto" } end, "nproc_per_node",
    { flyte = "error", flyte2 = "error", operator = "ok", ["mpi-operator"] = "n.a.",
      ["trainer-2.2"] = "ok", ["trainer-2.3"] = "ok" } },
  { "R10", "Elastic with nproc_per_node = \"gpu\"",
    function() return kfjob.Elastic { nnodes = "1:1", nproc_per_node = "gpu" } end, "nproc_per_node",
    { flyte = "error", flyte2 = "error", operator = "ok", ["mpi-operator"] = "n.a.",
      ["trainer-2.2"] = "error", ["trainer-2.3"] = "error" } },
  { "R10", "Elastic with nproc_per_node = \"cpu\"",
    function() return kfjob.Elastic { nnodes = 2, nproc_per_node = "cpu" } end, "nproc_per_node",
    { flyte = "error", operator = "ok", ["trainer-2.3"] = "error" } },
  { "R10", "Elastic with nproc_per_node = 4",
    function() return kfjob.Elastic { nnodes = 2, nproc_per_node = 4 } end, "nproc_per_node",
    { flyte = "warning", flyte2 = "warning", operator = "ok", ["mpi-operator"] = "n.a.",
      ["trainer-2.2"] = "ok", ["trainer-2.3"] = "ok" } },
  { "R17", "Elastic with rdzv_backend etcd",
    function() return kfjob.Elastic { nnodes = 2, rdzv_backend = "etcd" } end, "rdzv_backend",
    { flyte = "ok", flyte2 = "ok", operator = "ok", ["mpi-operator"] = "n.a.",
      ["trainer-2.2"] = "error", ["trainer-2.3"] = "error" } },
  { "R17", "Elastic with rdzv_backend etcd-v2",
    function() return kfjob.Elastic { nnodes = 2, rdzv_backend = "etcd-v2" } end, "rdzv_backend",
    { flyte = "ok", operator = "ok", ["trainer-2.2"] = "error", ["trainer-2.3"] = "error" } },
  { "R17", "Elastic with rdzv_backend c10d",
    function() return kfjob.Elastic { nnodes = 2, rdzv_backend = "c10d" } end, "rdzv_backend",
    { flyte = "ok", operator = "ok", ["trainer-2.2"] = "ok", ["trainer-2.3"] = "ok" } },
}

local PAYLOAD = { flyte = true, flyte2 = true }

describe("rules by target (FACTS §8.5)", function()
  for _, row in ipairs(rows) do
    local rule, what, make, path, want = row[1], row[2], row[3], row[4], row[5]
    for _, t in ipairs(TARGETS) do
      local res = want[t]
      if res then
        it(("%s %s: %s on %s"):format(rule, what, res, t), function()
          local job = make()   -- construction accepts it on every target
          local ok, problems = job:check { target = t }
          local warnings = job:lint { target = t }
          local err = not ok and find(problems, rule, path)
          local warn = find(warnings, rule, path)
          if res == "error" then
            assert.is_nil(ok)
            assert.is_table(err)
            assert.is_string(err.message)
            assert.is_true(#err.source > 0)
            assert.is_nil(warn)
            local ctor = tostring(job):match("^[^(]+")   -- "kfjob.TFJob"
            local msg = ("%s: %s: %s (target %s)"):format(ctor, err.path, err.message, t)
            if PAYLOAD[t] then
              for _, m in ipairs { "encode", "custom", "to_json", "task_template" } do
                local okm, e = pcall(job[m], job, { target = t })
                assert.is_false(okm, m)
                assert.are.equal(msg, e)
              end
            else   -- the manifest raises it before it is built
              local okm, e = pcall(job.manifest, job, { target = t, name = "n", image = "i:1" })
              assert.is_false(okm)
              assert.are.equal(msg, e)
            end
          else
            assert.is_falsy(err)
            if res == "warning" then
              assert.is_table(warn)
              assert.is_true(#warn.source > 0)
              assert.is_string(warn.message)
            else
              assert.is_nil(find(warnings, rule))
            end
            if PAYLOAD[t] then
              assert.is_true(job:check { target = t })
              for _, m in ipairs { "encode", "custom", "to_json", "task_template" } do
                assert.is_truthy(job[m](job, { target = t }), m)
              end
            end
          end
        end)
      end
    end
  end

  it("check and lint default to flyte", function()
    local job = kfjob.TFJob { ps = { replicas = 1 } }
    local ok, problems = job:check()
    assert.is_nil(ok)
    assert.are.same({ { path = "worker.replicas", message = "must be >= 1 (got 0)", rule = "R3",
                        source = problems[1].source } }, problems)
    local pt = kfjob.PyTorchJob { master = {}, shared_memory = true }
    assert.are.same(pt:lint { target = "flyte" }, pt:lint())
    assert.is_table(find(pt:lint(), "R1", "worker.replicas"))
  end)

  it("check lists every problem, not only the first", function()
    local job = kfjob.TFJob { ps = { replicas = 1 }, chief = { replicas = 2 }, evaluator = { replicas = 3 } }
    local _, problems = job:check { target = "flyte" }
    assert.are.equal(1, #problems)   -- errors only: R8 is a warning
    local w = job:lint { target = "operator" }
    assert.is_table(find(w, "R8", "chief.replicas"))
    assert.is_table(find(w, "R8", "evaluator.replicas"))
  end)

  it("check takes only known options", function()
    local job = kfjob.PyTorchJob { worker = { replicas = 1 } }
    assert.has_error(function() job:check { targte = "flyte" } end,
      "kfjob.check: opts.targte: unknown option (did you mean 'target'?)")
    assert.is_true(job:check {})
  end)
end)

describe("nproc_per_node's words (R10)", function()
  it("are accepted at construction, kept by spec(), ==, with() and tostring", function()
    local j = kfjob.Elastic { nnodes = 2, nproc_per_node = "auto" }
    assert.are.equal("auto", j.nproc_per_node)
    assert.are.equal("auto", j:spec().nproc_per_node)
    assert.are.equal(j, kfjob.Elastic(j:spec()))
    assert.are_not.equal(j, kfjob.Elastic { nnodes = 2, nproc_per_node = "gpu" })
    assert.are_not.equal(j, kfjob.Elastic { nnodes = 2 })
    assert.are.equal("kfjob.Elastic(nnodes=2, nproc_per_node=auto)", tostring(j))
    assert.are.equal(3, j:with { nproc_per_node = 3 }.nproc_per_node)
    assert.are.equal("cpu", j:with { nproc_per_node = "cpu" }.nproc_per_node)
    assert.are.equal("gpu", j:with { ["nproc_per_node"] = "gpu" }:spec().nproc_per_node)
  end)
  it("refuse any other word", function()
    assert.has_error(function() kfjob.Elastic { nproc_per_node = "all" } end,
      "kfjob.Elastic: nproc_per_node: expected an integer >= 1, auto, cpu or gpu, got 'all'")
  end)
  it("go to spec.nprocPerNode on the operator, an integer too (FACTS §11.4); Flyte keeps it in elasticPolicy", function()
    local m = kfjob.Elastic { nnodes = 2, nproc_per_node = "gpu" }:manifest { name = "n", image = "i" }
    assert.are.equal("gpu", m.spec.nprocPerNode)
    assert.is_nil(m.spec.elasticPolicy.nProcPerNode)
    m = kfjob.Elastic { nnodes = 2, nproc_per_node = 4 }:manifest { name = "n", image = "i" }
    assert.are.equal("4", m.spec.nprocPerNode)
    assert.is_nil(m.spec.elasticPolicy.nProcPerNode)
    m = kfjob.Elastic { nnodes = 2, nproc_per_node = 4 }:manifest { name = "n", image = "i", target = "flyte" }
    assert.is_nil(m.spec.nprocPerNode)
    assert.are.equal(4, m.spec.elasticPolicy.nProcPerNode)
  end)
end)

-- What the operator accepts ("ok" and "warning" cells) must pass its CRD
-- and webhook rules: every such row's manifest through validate-manifest.
describe("operator manifests of the accepted rows", function()
  local validators, why = require("util").validators()
  if #validators == 0 then
    pending(why)
    return
  end
  it("pass validate-manifest --target operator", function()
    local docs = {}
    for i, row in ipairs(rows) do
      local res = row[5].operator
      if res == "ok" or res == "warning" then
        docs[#docs + 1] = row[3]():manifest { name = "rule-" .. i, image = "img:1", format = "yaml" }
      end
    end
    assert.is_true(#docs >= 10)
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write(table.concat(docs, "---\n"))
    f:close()
    for _, vd in ipairs(validators) do
      local p = assert(io.popen(vd.cmd .. " --target operator '" .. path .. "' 2>&1; echo rc=$?"))
      local out = p:read("*a")
      p:close()
      assert.matches(#docs .. " objects, 0 invalid", out, 1, true)
      assert.matches("rc=0", out, 1, true)
    end
    os.remove(path)
  end)
end)

describe("rules kept at construction (they hold on every target)", function()
  it("R2: an elastic job has at least one node", function()
    assert.has_error(function() kfjob.Elastic { nnodes = 0 } end, "kfjob.Elastic: nnodes: must be >= 1 (got 0)")
    assert.has_error(function() kfjob.Elastic { nnodes = "0:2" } end,
      "kfjob.Elastic: nnodes: needs 1 <= min <= max (got '0:2')")
  end)
  it("R5: a PyTorchJob master is 1, or 0 (workers only, SPEC §17)", function()
    assert.has_error(function() kfjob.PyTorchJob { worker = { replicas = 1 }, master = { replicas = 2 } } end,
      "kfjob.PyTorchJob: master.replicas: must be 0 or 1 (got 2)")
  end)
  it("R6: an MPI launcher is exactly 1", function()
    assert.has_error(function() kfjob.MPIJob { worker = { replicas = 1 }, launcher = { replicas = 0 } } end,
      "kfjob.MPIJob: launcher.replicas: must be 1 (got 0)")
  end)
  it("R7: a TFJob has no Master group, so never a Chief and a Master", function()
    assert.has_error(function() kfjob.TFJob { worker = { replicas = 1 }, master = {} } end,
      "kfjob.TFJob: master: unknown field")
  end)
  it("negative counts stay malformed", function()
    assert.has_error(function() kfjob.TFJob { chief = { replicas = -1 } } end,
      "kfjob.TFJob: chief.replicas: must be >= 0 (got -1)")
  end)
end)

-- a warning on every target (FACTS §8.5 R12); kfjob's lint gives it
-- whatever the target
describe("R12: an accelerator without a GPU limit", function()
  for _, t in ipairs(TARGETS) do
    it("is a lint warning on " .. t, function()
      local job = t == "mpi-operator"
        and kfjob.MPIJob { worker = { replicas = 1 }, accelerator = "nvidia-tesla-a100" }
        or kfjob.PyTorchJob { worker = { replicas = 1 }, accelerator = "nvidia-tesla-a100",
                              shared_memory = true }
      if PAYLOAD[t] then assert.is_true(job:check { target = t }) end
      local found
      for _, w in ipairs(job:lint { target = t }) do
        if w.path == "accelerator" then found = w end
      end
      assert.is_table(found)
    end)
  end
end)

describe("decoders keep what the payload carries; the target decides", function()
  it("a TFJob payload without workers decodes, and check{flyte} refuses it (R3)", function()
    local job = assert(kfjob.from_json("tensorflow", '{"psReplicas":{"replicas":1}}'))
    assert.are.equal(0, job.worker.replicas)
    local ok, problems = job:check()
    assert.is_nil(ok)
    assert.are.equal("R3", problems[1].rule)
    assert.is_true(job:check { target = "operator" })
  end)
  it("a master-only PyTorchJob round-trips through flyte's payload (R1: a warning)", function()
    local job = kfjob.PyTorchJob { master = { image = "img" } }
    assert.are.equal(job, kfjob.decode("pytorch", job:encode()))
    assert.are.equal(job, kfjob.from_json("pytorch", job:to_json()))
  end)
  it("an elastic range min > max decodes, with a warning (R9)", function()
    local job = assert(kfjob.from_json("pytorch",
      '{"workerReplicas":{"replicas":2},"elasticConfig":{"rdzvBackend":"c10d","minReplicas":3,'
        .. '"maxReplicas":2,"nprocPerNode":1}}'))
    assert.is_true(job:check())
    assert.is_table(find(job:lint(), "R9", "nnodes"))
  end)
  it("two chiefs decode, with a warning (R8)", function()
    local job = assert(kfjob.from_json("tensorflow",
      '{"workerReplicas":{"replicas":2},"chiefReplicas":{"replicas":2}}'))
    assert.is_table(find(job:lint(), "R8", "chief.replicas"))
  end)
end)

-- R33, written from flyteadmin v1.16.8 pkg/manager/impl/validation/
-- task_validator.go: validateK8sPod runs validateResource on every container
-- of a pod task; cpu, memory and ephemeral-storage compare Quantity.Value()
-- (rounded up to whole units) and a request may not exceed its limit.
-- Since issue 32 the API server's own rule (kubernetes pkg/apis/core/
-- validation validateResourceRequirements: exact, and an extended resource's
-- request equal to its limit) refuses such templates at construction, so
-- whatever R33 would report never reaches check{flyte}: a pod the API server
-- refuses is not built at all.
describe("R33: a pod task's container resources (flyteadmin registration)", function()
  local function job(res)
    return function()
      return kfjob.PyTorchJob{ worker = { replicas = 1, image = "i" }, pod_template = { spec = {
        containers = { { name = "primary" }, { name = "side", image = "s", resources = res } } } } }
    end
  end
  local P = "kfjob.PyTorchJob: pod_template.spec.containers[2].resources."

  it("a request above its limit is refused at construction, before any target's check", function()
    assert.has_error(job{ requests = { cpu = "4" }, limits = { cpu = "2" } },
      P .. 'requests: Invalid value: "4": must be less than or equal to cpu limit of 2')
    assert.has_error(job{ requests = { memory = "2Gi" }, limits = { memory = "1Gi" } },
      P .. 'requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi')
  end)

  it("the API server compares exactly where flyteadmin rounds to whole units (1500m over 1200m)", function()
    assert.has_error(job{ requests = { cpu = "1500m" }, limits = { cpu = "1200m" } },
      P .. 'requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1200m')
  end)

  it("a GPU (an extended resource) request must equal its limit; equal ones pass check{flyte}", function()
    assert.has_error(job{ requests = { ["nvidia.com/gpu"] = "1" }, limits = { ["nvidia.com/gpu"] = "2" } },
      P .. 'requests: Invalid value: "1": must be equal to nvidia.com/gpu limit of 2')
    local ok, ps = job{ requests = { ["nvidia.com/gpu"] = "2", cpu = "1" },
                        limits = { ["nvidia.com/gpu"] = "2", cpu = "1" } }():check{ target = "flyte" }
    for _, p in ipairs(ok and {} or ps) do assert.are_not.equal("R33", p.rule) end
  end)
end)

-- R33 on the task's own requests/limits, written from flyteadmin v1.16.8
-- task_validator.go: without a pod template they are the TaskTemplate
-- container's resources (validateContainer -> validateTaskResources, where
-- requestedResourcesToQuantity refuses a gpu entry whose MilliValue() is not
-- a multiple of 1000); with one they are the primary container's
-- (validateK8sPod -> validateResource, no whole-number check).
describe("R33: the task's own resources (flyteadmin registration)", function()
  local function r33(job)
    local ok, ps = job:check{ target = "flyte" }
    local out = {}
    for _, p in ipairs(ok and {} or ps) do
      if p.rule == "R33" then out[#out + 1] = p.path end
    end
    return out
  end
  local function pt(t)
    t.worker = { replicas = 1, image = "i" }
    return kfjob.PyTorchJob(t)
  end
  local POD = { spec = { containers = { { name = "primary" } } } }

  it("a request above its limit in whole units, on the container and on the pod", function()
    assert.are.same({ "requests.cpu" }, r33(pt{ requests = { cpu = "2100m" }, limits = { cpu = 2 } }))
    assert.are.same({ "requests.cpu" }, r33(pt{ requests = { cpu = "2100m" }, limits = { cpu = 2 }, pod_template = POD }))
    assert.are.same({ "requests.mem" }, r33(pt{ requests = { mem = "3Gi" }, limits = { mem = "2Gi" } }))
    assert.are.same({ "requests.ephemeral_storage" },
      r33(pt{ requests = { ephemeral_storage = "2Gi" }, limits = { ephemeral_storage = "1Gi" } }))
  end)

  it("whole units: 1500m within 1100m (2 and 2), a request with no limit", function()
    assert.are.same({}, r33(pt{ requests = { cpu = "1500m" }, limits = { cpu = "1100m" } }))
    assert.are.same({}, r33(pt{ requests = { cpu = 64, mem = "1Ti" } }))
  end)

  it("gpu: the request equals the limit; on the container each entry is whole", function()
    assert.are.same({ "requests.gpu" }, r33(pt{ requests = { gpu = 1 }, limits = { gpu = 2 } }))
    assert.are.same({ "requests.gpu" }, r33(pt{ requests = { gpu = 1 }, limits = { gpu = 2 }, pod_template = POD }))
    assert.are.same({ "requests.gpu" }, r33(pt{ requests = { gpu = "500m" } }))
    assert.are.same({ "requests.gpu", "limits.gpu" }, r33(pt{ requests = { gpu = "1.5" }, limits = { gpu = "1.5" } }))
    -- the pod spec's resource list has no whole-number check, and 1.5 = 1.5
    assert.are.same({}, r33(pt{ requests = { gpu = "1.5" }, limits = { gpu = "1.5" }, pod_template = POD }))
    assert.are.same({}, r33(pt{ requests = { gpu = 2 }, limits = { gpu = 2 } }))
  end)

  it("only on flyte, and task_spec refuses it", function()
    local j = pt{ requests = { cpu = "3" }, limits = { cpu = "2" } }
    assert.is_true((j:check{ target = "operator" }))
    local ok, err = pcall(j.task_spec, j, { id = { project = "p", domain = "d", name = "n", version = "v" } })
    assert.is_false(ok)
    assert.matches("requests.cpu: 3 is greater than the limit 2 in whole units", err, 1, true)
  end)
end)

-- flyteadmin's CreateTask compiles the task: flytepropeller v1.16.8
-- pkg/compiler/task_compiler.go validateContainerCommand refuses a container
-- task with interface inputs or outputs and neither command nor args.
describe("registration: a container task with inputs needs a command", function()
  local ID = { project = "p", domain = "d", name = "n", version = "v" }
  local job = kfjob.PyTorchJob{ worker = { replicas = 1, image = "i" } }
  local function spec(o) return pcall(job.task_spec, job, o) end

  it("inputs or outputs without command or args: refused", function()
    local ok, err = spec{ id = ID, container = { image = "i" }, interface = { outputs = { m = "string" } } }
    assert.is_false(ok)
    assert.matches("opts.container.args: neither command nor args", err, 1, true)
  end)

  it("args, or no variables, or a pod task: accepted", function()
    assert.is_true((spec{ id = ID, container = { image = "i", args = { "x" } }, interface = { inputs = { a = "float" } } }))
    assert.is_true((spec{ id = ID, container = { image = "i" } }))
    local pj = kfjob.PyTorchJob{ worker = { replicas = 1, image = "i" },
      pod_template = { spec = { containers = { { name = "primary" } } } } }
    assert.is_true((pcall(pj.task_spec, pj, { id = ID, container = { image = "i" }, interface = { inputs = { a = "float" } } })))
  end)
end)
