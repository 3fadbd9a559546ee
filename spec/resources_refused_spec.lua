-- What the API server refuses of a container's resources, on the targets
-- whose manifests reach it as written.  Expected values come from
-- Kubernetes (pkg/apis/core/validation/validation.go:
-- ValidateResourceQuantityValue, "must be an integer" for every extended
-- resource, nvidia.com/gpu included; validateResourceRequirements, "must be
-- less than or equal to ... limit") and from the black-box tester's
-- manifests, never from kfjob's own output.
local kfjob = require "kfjob"
local util = require "util"

local function rules_of(job, target)
  local ok, problems = job:check{ target = target }
  local got = {}
  if ok then return got end
  for _, p in ipairs(problems) do got[#got + 1] = p.rule .. " " .. p.path end
  table.sort(got)
  return got
end

local function pt(worker, extra)
  local t = { container = { image = "img" }, worker = worker }
  for k, v in pairs(extra or {}) do t[k] = v end
  return kfjob.PyTorchJob(t)
end

describe("R59: a GPU count that is not whole", function()
  it("is an error where the manifest goes to the API server", function()
    for _, g in ipairs{ 0.5, "500m", "1.5" } do
      local j = pt({ replicas = 2, requests = { gpu = g }, limits = { gpu = g } })
      for _, t in ipairs{ "operator", "trainer-2.3" } do
        assert.same({ "R59 master.limits.gpu", "R59 master.requests.gpu",
                      "R59 worker.limits.gpu", "R59 worker.requests.gpu" },
                    rules_of(j:with{ master = { replicas = 1, requests = { gpu = g }, limits = { gpu = g } } }, t),
                    tostring(g) .. " on " .. t)
        assert.same({ "R59 worker.limits.gpu", "R59 worker.requests.gpu" }, rules_of(j, "operator"))
      end
      local ok, err = pcall(j.manifest, j, { name = "x", target = "operator" })
      assert.is_false(ok)
      assert.matches("worker.requests.gpu: '" .. tostring(g) .. "' is not a whole number", err, 1, true)
    end
    local m = kfjob.MPIJob{ container = { image = "i" }, worker = { replicas = 2, limits = { gpu = "0.5" } } }
    assert.same({ "R59 worker.limits.gpu" }, rules_of(m, "mpi-operator"))
  end)

  it("whole counts, in any spelling, pass; Flyte's targets are unchanged", function()
    for _, g in ipairs{ 1, "2", "1000m", "+4" } do
      assert.same({}, rules_of(pt({ replicas = 2, limits = { gpu = g } }), "operator"), tostring(g))
    end
    local j = pt({ replicas = 2, limits = { gpu = "0.5" } })
    assert.same({}, rules_of(j, "flyte"))
    assert.equal("string", type(j:encode()))
  end)
end)

describe("reading a container whose request is above its limit", function()
  local function manifest(req, lim)
    return ([[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: rq}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: img
            resources:
              requests: {cpu: %s}
              limits: {cpu: %s}
]]):format(req, lim)
  end

  it("is refused with the manifest's path (the pod could not run as written)", function()
    local job, err = kfjob.from_manifest(manifest('"4"', '"2"'))
    assert.is_nil(job)
    assert.matches("spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources"
                   .. ".requests.cpu: 4 is above its limit 2", err, 1, true)
    job, err = kfjob.from_manifest(manifest("2500m", "2"))
    assert.is_nil(job)
    assert.matches("requests.cpu: 2500m is above its limit 2", err, 1, true)
  end)

  it("a request at or under its limit reads", function()
    assert.is_not_nil((kfjob.from_manifest(manifest('"2"', '"2"'))))
    assert.is_not_nil((kfjob.from_manifest(manifest("1500m", '"2"'))))
  end)

  it("kfjob convert exits 1 naming the path", function()
    if not util.cli_ok then pending(util.cli_why()) return end
    local f = util.writer(util.tmpdir())("rq.yaml", manifest('"4"', '"2"'))
    local code, out, err = util.kfjob("convert", f)
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("requests.cpu: 4 is above its limit 2", err, 1, true)
  end)
end)

describe("kfjob convert --to trainer of a restart policy the manifest leaves out", function()
  -- the training-operator's PyTorchJob default restartPolicy is OnFailure
  -- (pytorchjob_defaults.go setPytorchDefaultRestartPolicy), which a
  -- TrainJob has no field for (trainer trainjob_types.go)
  local text = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: mnist}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - {name: pytorch, image: img, command: [python, train.py]}
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - {name: pytorch, image: img, command: [python, train.py]}
]]
  it("says the value is the kind's default, and --lossy leaves it out", function()
    if not util.cli_ok then pending(util.cli_why()) return end
    local f = util.writer(util.tmpdir())("mnist.yaml", text)
    local code, out, err = util.kfjob("convert", f, "--to", "trainer-2.3")
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches('Worker.restartPolicy: [^\n]*%(value "OnFailure", unset: the kind\'s default%)', err)
    assert.matches('Master.restartPolicy: [^\n]*%(value "OnFailure"%)\n', err)
    code, out, err = util.kfjob("convert", f, "--to", "trainer-2.3", "--lossy")
    assert.equal(0, code, err)
    assert.matches("kind: TrainJob", out, 1, true)
    assert.matches("numNodes: 3", out, 1, true)
  end)
end)

describe("R60: processes a node and a command that starts no launcher", function()
  -- Trainer: numProcPerNode -> PET_NPROC_PER_NODE, read by torchrun (torch.go
  -- EnforceMLPolicy), so kfjob's torchrun --no-python wrapper starts the
  -- command that many times; the training-operator runs the command as
  -- written, once a pod (envvar.go setPodEnv only sets the variable)
  local function job(cmd, nproc)
    return kfjob.PyTorchJob{ container = { image = "i", command = cmd }, nproc_per_node = nproc,
                             worker = { replicas = 2 } }
  end
  local function r60(j, t)
    local got = {}
    for _, w in ipairs(j:lint{ target = t }) do
      if w.rule == "R60" then got[#got + 1] = w.path end
    end
    return got
  end

  it("warns on Trainer only, for a plain command and more than one process", function()
    assert.same({ "nproc_per_node" }, r60(job({ "python", "t.py" }, 4), "trainer-2.3"))
    assert.same({}, r60(job({ "python", "t.py" }, 4), "operator"))
    assert.same({}, r60(job({ "python", "t.py" }, 1), "trainer-2.3"))
    assert.same({}, r60(job({ "torchrun", "t.py" }, 4), "trainer-2.3"))
    assert.same({}, r60(job({ "python", "-m", "torch.distributed.run", "t.py" }, 4), "trainer-2.3"))
    assert.same({}, r60(job({ "python", "t.py" }, "auto"), "trainer-2.3"))
  end)
end)

-- Kubernetes tells an integer resource by Quantity.MilliValue() % 1000
-- (ValidateResourceQuantityValue), MilliValue rounding up to a milli-unit,
-- as flyteadmin tells a GPU count (requestedResourcesToQuantity): one test
-- for R33, R59 and an extended resource's value.
describe("a whole number of devices is Kubernetes' MilliValue() % 1000", function()
  local function with_limits(limits) return kfjob.PyTorchJob{ worker = { replicas = 1, image = "i:1", limits = limits } } end
  it("999999999n is whole (rounds up to 1000m); 1001m and 1000001u are not", function()
    assert.is_true(with_limits{ gpu = "999999999n" }:check{ target = "operator" })
    assert.is_truthy(with_limits{ ["amd.com/gpu"] = "999999999n" })
    for _, v in ipairs{ "1001m", "1000001u" } do
      local ok, probs = with_limits{ gpu = v }:check{ target = "operator" }
      assert.is_nil(ok, v)
      assert.equal("R59", probs[1].rule, v)
      assert.has_error(function() with_limits{ ["amd.com/gpu"] = v } end)
    end
  end)
  it("the task's GPU on Flyte (R33) the same way", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, limits = { gpu = "999999999n" } }
    assert.is_true(j:check{ target = "flyte" })
    local ok, probs = kfjob.PyTorchJob{ worker = { replicas = 1 }, limits = { gpu = "1001m" } }:check{ target = "flyte" }
    assert.is_nil(ok)
    assert.equal("R33", probs[1].rule)
  end)
end)

-- The CRDs' container resources are int-or-string (x-kubernetes-int-or-
-- string): a YAML number that is not whole (cpu: 0.5) is refused by the API
-- server's schema validation, so reading it is refused, naming the path.
describe("a manifest resource written as a fractional number", function()
  local DOC = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: f}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            resources: {limits: {cpu: LIMIT, memory: 1Gi}}
]]
  it("is refused at its path; a whole number and a string read", function()
    local j, err = kfjob.from_manifest((DOC:gsub("LIMIT", "0.5")))
    assert.is_nil(j)
    assert.matches("spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.limits.cpu: "
                   .. "must be an integer or a string, got the number 0.5", err, 1, true)
    assert.truthy(kfjob.from_manifest((DOC:gsub("LIMIT", "2.0"))))   -- kubectl sends 2
    assert.truthy(kfjob.from_manifest((DOC:gsub("LIMIT", '"0.5"'))))
  end)
end)
