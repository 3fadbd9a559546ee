-- Reading Kubeflow Trainer v2.3 TrainJobs and migrating them: faults
-- black-box testers found.  Expected values from Trainer's API and shipped
-- runtimes: Trainer.NumNodes is optional (trainjob_types.go) and the node
-- count is then the runtime's mlPolicy.numNodes (default 1; every plugin
-- replaces it only when trainer.numNodes is set; every runtime of
-- manifests/base/runtimes says numNodes: 1).
local util = require "util"
local kfjob = require "kfjob"

-- load a chunk with environment env (setfenv on 5.1 and LuaJIT)
local function load_env(src, env)
  local f = assert((setfenv and rawget(_G, "loadstring") or load)(src, "=to_lua", "t", env))
  if setfenv then setfenv(f, env) end
  return f
end

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
    local back = load_env(kfjob.to_lua(job), { require = require })()
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

-- Processes a node (Trainer's torch.go EnforceMLPolicy sets
-- PET_NPROC_PER_NODE to numProcPerNode, else "auto" with a GPU in
-- resourcesPerNode, else max(1, the CPU request rounded up); the
-- training-operator's envvar.go setPodEnv sets it from spec.nprocPerNode,
-- "auto" by default, which torchrun reads as one process per CPU of the
-- node on a CPU-only node).
local function cpu_job(resources)
  return trainjob("torch-distributed", [[
    image: registry.example/cpu-ddp:1
    numNodes: 2
    command: ["torchrun", "train.py"]
]] .. (resources or ""))
end

describe("a TrainJob whose command starts torchrun, migrated to the operator", function()
  it("keeps the processes a node Trainer ran as nprocPerNode (CPU request, else 1)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local cases = {
      { "    resourcesPerNode:\n      requests:\n        cpu: \"4\"\n        memory: 8Gi\n", "4" },
      { "    resourcesPerNode:\n      requests:\n        cpu: 2500m\n", "3" },
      { "    resourcesPerNode:\n      limits:\n        cpu: \"6\"\n", "6" },
      { nil, "1" },
    }
    for _, c in ipairs(cases) do
      local code, out, err = util.conv(cpu_job(c[1]), "--to", "operator")
      assert.equal(0, code, err)
      local d = util.doc1(out)
      assert.equal(c[2], d.spec.nprocPerNode, out)
      assert.same({ "torchrun", "train.py" },
                  d.spec.pytorchReplicaSpecs.Master.template.spec.containers[1].command)
    end
  end)

  it("leaves nprocPerNode unset with a GPU: auto on both", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(cpu_job("    resourcesPerNode:\n      limits:\n        nvidia.com/gpu: 1\n"),
                                     "--to", "operator")
    assert.equal(0, code, err)
    assert.is_nil(util.doc1(out).spec.nprocPerNode, out)
  end)

  it("read for Trainer, numProcPerNode stays unset", function()
    local job = assert(read(cpu_job("    resourcesPerNode:\n      requests:\n        cpu: \"4\"\n")))
    assert.is_nil(job.nproc_per_node)
  end)
end)

describe("a PyTorchJob whose command starts torchrun, for Trainer", function()
  local function rules(job)
    local t = {}
    for _, p in ipairs(job:lint{ target = "trainer-2.3" }) do
      if p.rule then t[#t + 1] = p.rule end
    end
    return table.concat(t, " ")
  end
  local base = { master = { requests = { cpu = "4" } }, worker = { replicas = 1 },
                 container = { image = "i", command = { "torchrun", "train.py" } } }
  it("warns (R57) that Trainer runs max(1, CPU) processes where the operator's auto ran one per CPU", function()
    assert.matches("R57", rules(kfjob.PyTorchJob(base)))
    local auto = util.copy(base)
    auto.nproc_per_node = "auto"
    assert.matches("R57", rules(kfjob.PyTorchJob(auto)))
    local p = kfjob.PyTorchJob(base):lint{ target = "trainer-2.3" }
    for _, x in ipairs(p) do
      if x.rule == "R57" then
        assert.equal("nproc_per_node", x.path)
        assert.matches("torch.go", x.source, 1, true)
      end
    end
  end)
  it("kfjob convert --to trainer-2.3 says so on stderr (a migration that changes what runs)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local m = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: cpu}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: [torchrun, train.py]
            resources: {requests: {cpu: "4"}}
]]
    local code, _, err = util.conv(m, "--to", "trainer-2.3", "--lossy")
    assert.equal(0, code, err)
    assert.matches("Trainer runs max(1, CPU request) processes a node", err, 1, true)
    code, _, err = util.conv(m)   -- its own target: nothing to say
    assert.equal(0, code, err)
    assert.is_nil(err:find("processes a node", 1, true))
  end)
  it("not with nproc_per_node set, a GPU, a command torchrun does not start, or on the operator", function()
    local n = util.copy(base)
    n.nproc_per_node = 4
    assert.is_nil(rules(kfjob.PyTorchJob(n)):find("R57"))
    local g = util.copy(base)
    g.master = { limits = { gpu = 1 } }
    assert.is_nil(rules(kfjob.PyTorchJob(g)):find("R57"))
    local py = util.copy(base)
    py.container = { image = "i", command = { "python", "train.py" } }
    assert.is_nil(rules(kfjob.PyTorchJob(py)):find("R57"))
    for _, p in ipairs(kfjob.PyTorchJob(base):lint{ target = "operator" }) do
      assert.is_not.equal("R57", p.rule)
    end
  end)
end)

-- A runtime patch another manager owns (TrainJob spec.runtimePatches is a
-- list-map by manager, which Trainer's webhook takes when it is a
-- domain-prefixed path: apimachinery validation.go IsDomainPrefixedPath,
-- the CRD's maxLength 253).
local function patched(manager, extra)
  return ([[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: patched
  namespace: team-p
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    image: registry.example/p:2
    numNodes: 2
    command: ["torchrun", "train.py"]
  runtimePatches:
  - manager: %s
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
          - name: node
            template:
              spec:
                template:
                  spec:
                    nodeSelector:
                      pool: gpu
                    serviceAccountName: trainer
%s]]):format(manager, extra or "")
end

describe("a TrainJob runtime patch of another manager", function()
  it("reads as kfjob's own does, keeping the manager's name", function()
    local other, info = read(patched("example.com/platform"))
    assert.is_not_nil(other, info)
    local own = assert(read(patched("kfjob/manifest")))
    assert.equal("example.com/platform", other.runtime_patch_manager)
    assert.is_nil(own.runtime_patch_manager)   -- unset: kfjob/manifest
    assert.is_false(other == own)
    local m = other:manifest{ name = "patched", target = "trainer-2.3" }
    local m_own = own:manifest{ name = "patched", target = "trainer-2.3" }
    m_own.spec.runtimePatches[1].manager = "example.com/platform"
    assert.same(m_own, m)   -- the same patch content
    assert.equal(1, #m.spec.runtimePatches)
    assert.equal("example.com/platform", m.spec.runtimePatches[1].manager)
    local back = load_env(kfjob.to_lua(other), { require = require })()
    assert.is_true(select(2, next(back)) == other)
  end)

  it("kfjob convert writes it back unchanged (Law 3)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(patched("example.com/platform"))
    assert.equal(0, code, err)
    local d = util.doc1(out)
    assert.equal("example.com/platform", d.spec.runtimePatches[1].manager)
    assert.equal("gpu", util.dig(d, "spec.runtimePatches.1.trainingRuntimeSpec.template.spec."
      .. "replicatedJobs.1.template.spec.template.spec.nodeSelector.pool"))
    local code2, out2, err2 = util.conv(out)
    assert.equal(0, code2, err2)
    assert.equal(out, out2)
  end)

  it("a manager that is not a domain-prefixed path is an error naming it", function()
    for _, m in ipairs({ "platform", "Example.com/x", "example.com/", "example.com/a b" }) do
      local job, err = read(patched('"' .. m .. '"'), { lossy = true })
      assert.is_nil(job, m)
      assert.matches("spec.runtimePatches[0].manager", tostring(err), 1, true)
    end
    local ok, err = pcall(kfjob.PyTorchJob, { master = {}, runtime_patch_manager = "platform" })
    assert.is_false(ok)
    assert.matches("runtime_patch_manager", tostring(err), 1, true)
    assert.equal("domain_prefixed_path", kfjob.fields("PyTorchJob").runtime_patch_manager.check)
  end)

  it("several patches (several managers) stay an error naming the path", function()
    local two = patched("example.com/platform", [[
  - manager: kfjob/manifest
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
          - name: node
            template:
              spec:
                template:
                  spec:
                    serviceAccountName: other
]])
    local job, err = read(two)
    assert.is_nil(job)
    assert.matches("spec.runtimePatches", tostring(err), 1, true)
    assert.matches("several", tostring(err), 1, true)
  end)
end)
