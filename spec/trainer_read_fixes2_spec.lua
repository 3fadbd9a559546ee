-- Reading Kubeflow Trainer v2.3 TrainJobs and migrating them: faults
-- black-box testers found.  Expected values from Trainer's API and shipped
-- runtimes: Trainer.NumNodes is optional (trainjob_types.go) and the node
-- count is then the runtime's mlPolicy.numNodes (default 1; every plugin
-- replaces it only when trainer.numNodes is set; every runtime of
-- manifests/base/runtimes says numNodes: 1).
local util = require "util"
local kfjob = require "kfjob"

local function read(text, opts)
  return kfjob.from_manifest(text, opts)
end

local function trainjob(runtime, trainer)
  return ([[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: tj
spec:
  runtimeRef:
    name: %s
  trainer:
%s]]):format(runtime, trainer)
end

local NO_NODES = trainjob("torch-distributed", [[
    image: docker.io/my-training-image:latest
    command: [torchrun, train.py]
]])
local CUSTOM = trainjob("my-4-node-runtime", [[
    image: docker.io/my-training-image:latest
    command: [torchrun, train.py]
]])
local JAX = trainjob("jax-distributed", [[
    image: docker.io/jax:latest
    command: [python, train.py]
]])

describe("a TrainJob without spec.trainer.numNodes", function()
  it("reads back and is written without numNodes (PyTorch, JAX, a custom runtime)", function()
    for _, text in ipairs({ NO_NODES, CUSTOM, JAX }) do
      local job, info = read(text)
      assert.is_not_nil(job, info)
      local m = job:manifest{ name = "tj", target = "trainer-2.3" }
      assert.is_nil(m.spec.trainer.numNodes)
      assert.is_not_nil(m.spec.trainer.image)
    end
  end)

  it("keeps the node count unset through ==, to_lua, to_config and with()", function()
    local job = assert(read(NO_NODES))
    local given = assert(read((NO_NODES:gsub("command:", "numNodes: 1\n    command:"))))
    assert.is_false(job == given)   -- numNodes: 1 written is not the runtime's count
    local m = given:manifest{ name = "tj", target = "trainer-2.3" }
    assert.equal(1, m.spec.trainer.numNodes)
    local back = assert(load(kfjob.to_lua(job), "=to_lua", "t", { require = require }))()
    local b = back.tj or back.job or select(2, next(back))
    assert.is_true(b == job)
    local cfg = kfjob.to_config(job).jobs
    cfg = cfg.tj or cfg.job or select(2, next(cfg))
    cfg.kind = nil
    assert.is_true(kfjob.PyTorchJob(cfg) == job)
    local w = job:with{ ["master.image"] = "other:1" }
    assert.is_nil(w:manifest{ name = "tj", target = "trainer-2.3" }.spec.trainer.numNodes)
  end)

  it("cannot hold a node count other than the runtime's 1", function()
    local job = assert(read(NO_NODES))
    local ok, err = pcall(job.with, job, { worker = { replicas = 3 } })
    assert.is_false(ok)
    assert.matches("runtime_nodes", tostring(err), 1, true)
  end)

  it("kfjob convert: exit 0, no numNodes, and the same again (Law 3)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    for _, text in ipairs({ NO_NODES, CUSTOM, JAX }) do
      local code, out, err = util.conv(text)
      assert.equal(0, code, err)
      local d = util.doc1(out)
      assert.is_nil(d.spec.trainer.numNodes, out)
      local code2, out2, err2 = util.conv(out)
      assert.equal(0, code2, err2)
      assert.equal(out, out2)
    end
  end)

  it("migrates on a shipped runtime with its mlPolicy.numNodes, 1", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(JAX, "--to", "operator")
    assert.equal(0, code, err)
    assert.equal(1, util.doc1(out).spec.jaxReplicaSpecs.Worker.replicas)
    code, out, err = util.conv(NO_NODES, "--to", "operator")
    assert.equal(0, code, err)
    local specs = util.doc1(out).spec.pytorchReplicaSpecs
    assert.equal(1, specs.Master.replicas)
    assert.is_nil(specs.Worker)
  end)

  it("another runtime's count is unknown: migrating names spec.trainer.numNodes", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    for _, t in ipairs({ "operator", "flyte" }) do
      local code, _, err = util.conv(CUSTOM, "--to", t)
      assert.equal(1, code)
      assert.matches("spec.trainer.numNodes", err, 1, true)
      assert.matches("set spec.trainer.numNodes", err, 1, true)
    end
  end)
end)

-- A TrainJob on a namespaced TrainingRuntime (Trainer v2.3's
-- examples/yaml/05-multi-step.yaml): RuntimeRef.Kind TrainingRuntime.
local NAMESPACED = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: multi-step-example
spec:
  runtimeRef:
    apiGroup: trainer.kubeflow.org
    kind: TrainingRuntime
    name: torch-with-dataset-init
  initializer:
    dataset:
      storageUri: hf://tatsu-lab/alpaca
  trainer:
    numNodes: 2
    command: [python3, -c, "print(1)"]
]]

describe("a TrainJob's runtimeRef kfjob cannot hold", function()
  it("is an error under lossy too, never another runtime", function()
    assert.is_nil((read(NAMESPACED)))   -- (spec.initializer is refused first)
    local job, err = read(NAMESPACED, { lossy = true })
    assert.is_nil(job)
    assert.matches("spec.runtimeRef", tostring(err), 1, true)
    assert.matches("TrainingRuntime", tostring(err), 1, true)
    job, err = read((NAMESPACED:gsub("kind: TrainingRuntime", "kind: 5")), { lossy = true })
    assert.is_nil(job)
    assert.matches("spec.runtimeRef", tostring(err), 1, true)
  end)

  it("kfjob convert --lossy: exit 1, no TrainJob on torch-distributed written", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(NAMESPACED, "--lossy")
    assert.equal(1, code)
    assert.is_nil(out:find("torch-distributed", 1, true), out)
    assert.matches("spec.runtimeRef", err, 1, true)
  end)
end)
