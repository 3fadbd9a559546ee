-- What people write (SPEC §17): manifests in the shapes of the upstream
-- examples and of everyday hand-written ones read, round-trip and
-- convert.  Expected values are written by hand from the systems' source:
-- apimachinery meta/v1 (creationTimestamp null, generateName), Trainer
-- v2.3 trainjob_types.go (Trainer.Image optional, RuntimeRef.Name,
-- NumProcPerNode *int32) and torch.go (PET_* only; no launcher added),
-- training-operator v1.9 pytorchjob_types.go (spec.nprocPerNode, a
-- string) and envvar.go setPodEnv (PET_NPROC_PER_NODE, WORLD_SIZE =
-- replicas x Atoi(nprocPerNode)) -- never from kfjob's own output.
local kfjob = require "kfjob"
local util = require "util"

local function read(doc, opts)
  local j, info = kfjob.from_manifest(doc, opts)
  assert(j, info)
  return j, info
end

local function env_of(pod)
  local out = {}
  for _, v in ipairs(pod.env) do out[v.name] = v.value end
  return out
end

describe("Kubernetes leftovers", function()
  local DRY = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: mnist
  creationTimestamp: null
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template:
        metadata:
          creationTimestamp: null
        spec:
          containers:
          - name: tensorflow
            image: tf:1
]]

  it("creationTimestamp: null (kubectl <= 1.33 --dry-run -o yaml) reads anywhere and is never written", function()
    local j = read(DRY)
    assert.equal(2, j.worker.replicas)
    assert.is_nil(j:spec().pod_template)
    local m = j:manifest{ name = "mnist", target = "operator", format = "yaml" }
    assert.is_nil(m:find("creationTimestamp", 1, true))
  end)

  it("a creationTimestamp that is not null in a pod template is still refused", function()
    local doc = DRY:gsub("          creationTimestamp: null", "          creationTimestamp: \"2024-01-01T00:00:00Z\"")
    local j, msg = kfjob.from_manifest(doc)
    assert.is_nil(j)
    assert.matches("template.metadata.creationTimestamp", msg, 1, true)
  end)

  it("generateName is read as the name's prefix (without its '-'); the prefix stays in info", function()
    local doc = DRY:gsub("  name: mnist\n", "  generateName: mnist-run-\n", 1)
    local _, info = read(doc)
    assert.equal("mnist-run", info.name)
    assert.equal("mnist-run-", info.generate_name)
  end)

  it("a generateName of only '-' names nothing: refused with the path", function()
    local doc = DRY:gsub("  name: mnist\n", "  generateName: \"-\"\n", 1)
    local j, msg = kfjob.from_manifest(doc)
    assert.is_nil(j)
    assert.matches("metadata.generateName", msg, 1, true)
  end)

  it("a stream with a comment-only document reads its jobs", function()
    local r = assert(kfjob.from_manifests(DRY .. "---\n# only a comment\n---\n" .. DRY:gsub("mnist", "b")))
    assert.equal(2, #r)
  end)

  if util.cli_ok then
    it("kfjob convert copies a non-job document through unchanged, in its place, and lists it", function()
      local cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"1\"\n"
      local code, out, err = util.run_cli(cm .. "---\n" .. DRY, "convert", "-")
      assert.equal(0, code, err)
      assert.truthy(out:find("kind: ConfigMap", 1, true))
      assert.truthy(out:find("kind: ConfigMap", 1, true) < out:find("kind: TFJob", 1, true))
      assert.truthy(out:find('a: "1"', 1, true))
      assert.matches("document 1 (ConfigMap cfg): not a job kfjob reads: copied through unchanged", err, 1, true)
      code, out, err = util.run_cli(cm .. "---\n" .. DRY, "convert", "-", "-f", "lua")
      assert.equal(0, code, err)
      assert.is_nil(out:find("ConfigMap", 1, true))
      assert.matches("left out of the config", err, 1, true)
    end)
  end
end)

describe("TrainJob as people write it", function()
  -- Trainer v2.3 examples/yaml/01-multi-node.yaml's shape: no image (the
  -- runtime's runs), the launcher in the command
  local TJ = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: multi
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    command:
    - torchrun
    - train.py
]]

  it("reads without an image, the command as written", function()
    local j = read(TJ)
    assert.is_nil(j:spec().container.image)
    assert.same({ "torchrun", "train.py" }, j.container.command)
  end)

  it("writes back with no image, the command not wrapped, numProcPerNode unset (the runtime's auto)", function()
    local j = read(TJ)
    local m = j:manifest{ name = "multi", target = "trainer-2.3" }
    assert.is_nil(m.spec.trainer.image)
    assert.same({ "torchrun", "train.py" }, m.spec.trainer.command)
    assert.is_nil(m.spec.trainer.numProcPerNode)
    assert.equal(2, m.spec.trainer.numNodes)
    assert.equal("torch-distributed", m.spec.runtimeRef.name)
    assert.equal(j, read(j:manifest{ name = "multi", target = "trainer-2.3", format = "yaml" }))
  end)

  it("python -m torch.distributed.run is a launcher too", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = "i",
      command = { "python3", "-m", "torch.distributed.run", "t.py" } } }
    local m = j:manifest{ name = "p", target = "trainer-2.3" }
    assert.same({ "python3", "-m", "torch.distributed.run", "t.py" }, m.spec.trainer.command)
    assert.is_nil(m.spec.trainer.numProcPerNode)
  end)

  it("a program that is not a launcher is wrapped in torchrun --no-python, one process a node", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1, image = "i" }, master = { image = "i" },
      container = { command = { "python3", "t.py" } } }
    local m = j:manifest{ name = "p", target = "trainer-2.3" }
    assert.same({ "torchrun", "--no-python", "python3", "t.py" }, m.spec.trainer.command)
    assert.equal(1, m.spec.trainer.numProcPerNode)
    assert.equal(j, read(j:manifest{ name = "p", target = "trainer-2.3", format = "yaml" }))
  end)

  it("kfjob's wrapped command without numProcPerNode keeps it unset (nproc_per_node auto)", function()
    local doc = TJ:gsub("    %- torchrun\n    %- train.py\n", "    - torchrun\n    - --no-python\n    - python3\n    - t.py\n")
    local j = read(doc)
    assert.same({ "python3", "t.py" }, j.container.command)
    assert.equal("auto", j.nproc_per_node)
    local m = j:manifest{ name = "multi", target = "trainer-2.3" }
    assert.is_nil(m.spec.trainer.numProcPerNode)
    assert.same({ "torchrun", "--no-python", "python3", "t.py" }, m.spec.trainer.command)
  end)

  it("the job's runtime is runtimeRef.name, both ways", function()
    local j = read((TJ:gsub("name: torch%-distributed", "name: my-torch")))
    assert.equal("my-torch", j.runtime)
    assert.equal("my-torch", j:manifest{ name = "multi", target = "trainer-2.3" }.spec.runtimeRef.name)
  end)

  it("a runtime on a target without runtimes is an error with its rule (R38)", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, runtime = "x", container = { image = "i" } }
    local ok, ps = j:check{ target = "operator", name = "p" }
    assert.is_nil(ok)
    assert.equal("R38", ps[1].rule)
    assert.equal("runtime", ps[1].path)
    assert.is_true((j:check{ target = "trainer-2.3", name = "p" }))
  end)

  it("a job without an image: a Trainer target emits none, every other target says how to give one", function()
    local j = read(TJ)
    assert.has_error(function() j:manifest{ name = "multi", target = "operator" } end,
      "kfjob.manifest: opts.image: required: worker has no image of its own (set the job's "
      .. "container.image, or kfjob render --image; only a TrainJob may run its runtime's image)")
  end)
end)

describe("PyTorchJob spec.nprocPerNode (a string in the CRD)", function()
  -- training-operator v1.9 examples/pytorch/cpu-demo/demo.yaml's shape
  local DEMO = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: demo
spec:
  nprocPerNode: "2"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: [torchrun, train.py]
    Worker:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: [torchrun, train.py]
]]

  it("reads as nproc_per_node and writes back as the string", function()
    local j = read(DEMO)
    assert.equal(2, j.nproc_per_node)
    local m = j:manifest{ name = "demo", target = "operator" }
    assert.equal("2", m.spec.nprocPerNode)
    assert.equal(j, read(j:manifest{ name = "demo", target = "operator", format = "yaml" }))
  end)

  it("the operator's environment: PET_NPROC_PER_NODE the value, WORLD_SIZE pods x it", function()
    local e = read(DEMO):environment{ name = "demo", target = "operator" }
    local w = env_of(e["worker-0"])
    assert.equal("2", w.PET_NPROC_PER_NODE)
    assert.equal("4", w.WORLD_SIZE)
    assert.equal("2", w.PET_NNODES)
  end)

  it("words read as themselves; Flyte has no place for it (R39)", function()
    local j = read((DEMO:gsub('"2"', "auto")))
    assert.is_nil(j:spec().nproc_per_node)   -- the operator's default
    j = read((DEMO:gsub('"2"', "gpu")))
    assert.equal("gpu", j.nproc_per_node)
    local ok, ps = read(DEMO):check{ target = "flyte", name = "demo" }
    assert.is_nil(ok)
    local rules = {}
    for _, p in ipairs(ps) do rules[p.rule] = true end
    assert.is_true(rules.R39)
  end)

  it("on Trainer it is numProcPerNode", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, nproc_per_node = 2,
      container = { image = "i", command = { "torchrun", "t.py" } } }
    assert.equal(2, j:manifest{ name = "demo", target = "trainer-2.3" }.spec.trainer.numProcPerNode)
    j = j:with{ nproc_per_node = "gpu" }
    local ok, ps = j:check{ target = "trainer-2.3", name = "demo" }
    assert.is_nil(ok)
    assert.equal("R39", ps[1].rule)
  end)
end)

describe("TrainJob commands kfjob does not wrap", function()
  -- Trainer v2.2 examples/flux/lammps-train-job.yaml's shape: a program
  -- on a runtime of its own, numProcPerNode as given
  local FLUX = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: lammps
spec:
  runtimeRef:
    name: flux-runtime
  trainer:
    numNodes: 2
    numProcPerNode: 4
    image: lmp:1
    command: [lmp, -in, in.reaxc]
]]
  it("on a runtime of the job's own the command and numProcPerNode are written as read", function()
    local j = read(FLUX)
    assert.equal("flux-runtime", j.runtime)
    local m = j:manifest{ name = "lammps", target = "trainer-2.3" }
    assert.same({ "lmp", "-in", "in.reaxc" }, m.spec.trainer.command)
    assert.equal(4, m.spec.trainer.numProcPerNode)
    assert.equal(2, m.spec.trainer.numNodes)
  end)

  it("a program on torch-distributed is kept as written: the job names the runtime", function()
    local doc = FLUX:gsub("flux%-runtime", "torch-distributed")
    local j = read(doc)
    assert.equal("torch-distributed", j.runtime)
    local m = j:manifest{ name = "lammps", target = "trainer-2.3" }
    assert.same({ "lmp", "-in", "in.reaxc" }, m.spec.trainer.command)
    assert.equal(4, m.spec.trainer.numProcPerNode)
  end)

  it("args without a command stay without a command", function()
    local doc = FLUX:gsub("    command: %[lmp, %-in, in.reaxc%]\n", "    args: [--epochs, \"3\"]\n")
    local j = read(doc)
    local m = j:manifest{ name = "lammps", target = "trainer-2.3" }
    assert.is_nil(m.spec.trainer.command)
    assert.same({ "--epochs", "3" }, m.spec.trainer.args)
  end)
end)
