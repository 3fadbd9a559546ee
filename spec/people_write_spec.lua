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

  it("a runtime on a target without runtimes is an error with its rule (R49)", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, runtime = "x", container = { image = "i" } }
    local ok, ps = j:check{ target = "operator", name = "p" }
    assert.is_nil(ok)
    assert.equal("R49", ps[1].rule)
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

  it("words read as themselves; Flyte has no place for it (R50)", function()
    local j = read((DEMO:gsub('"2"', "auto")))
    assert.is_nil(j:spec().nproc_per_node)   -- the operator's default
    j = read((DEMO:gsub('"2"', "gpu")))
    assert.equal("gpu", j.nproc_per_node)
    local ok, ps = read(DEMO):check{ target = "flyte", name = "demo" }
    assert.is_nil(ok)
    local rules = {}
    for _, p in ipairs(ps) do rules[p.rule] = true end
    assert.is_true(rules.R50)
  end)

  it("on Trainer it is numProcPerNode", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, nproc_per_node = 2,
      container = { image = "i", command = { "torchrun", "t.py" } } }
    assert.equal(2, j:manifest{ name = "demo", target = "trainer-2.3" }.spec.trainer.numProcPerNode)
    j = j:with{ nproc_per_node = "gpu" }
    local ok, ps = j:check{ target = "trainer-2.3", name = "demo" }
    assert.is_nil(ok)
    assert.equal("R50", ps[1].rule)
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

describe("a PyTorchJob of workers only", function()
  -- training-operator v1.9 examples/pytorch/simple.yaml's shape without
  -- its Master: pytorchjob_webhook.go accepts it
  local WO = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: wo
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: [torchrun, --nnodes=2, train.py]
]]

  it("reads as master = { replicas = 0 } and writes no Master back", function()
    local j = read(WO)
    assert.equal(0, j.master.replicas)
    local m = j:manifest{ name = "wo", target = "operator" }
    assert.is_nil(m.spec.pytorchReplicaSpecs.Master)
    assert.equal(2, m.spec.pytorchReplicaSpecs.Worker.replicas)
    assert.equal(j, read(j:manifest{ name = "wo", target = "operator", format = "yaml" }))
  end)

  it("the operator injects no MASTER_ADDR, RANK or WORLD_SIZE (envvar.go setPodEnv)", function()
    local e = read(WO):environment{ name = "wo", target = "operator" }
    assert.is_nil(e["master-0"])
    local w = env_of(e["worker-1"])
    assert.same({ PYTHONUNBUFFERED = "1", PET_NPROC_PER_NODE = "auto", PET_NNODES = "2" }, w)
  end)

  it("Flyte always runs a Master (R53); Trainer's numNodes is the workers", function()
    local j = read(WO):with{ worker = { restart_policy = "never" } }
    local ok, ps = j:check{ target = "flyte", name = "wo" }
    assert.is_nil(ok)
    local r42
    for _, p in ipairs(ps) do if p.rule == "R53" then r42 = p end end
    assert.equal("master.replicas", r42.path)
    assert.equal(2, j:manifest{ name = "wo", target = "trainer-2.3" }.spec.trainer.numNodes)
  end)

  it("a master of 2 is still refused", function()
    assert.has_error(function() kfjob.PyTorchJob{ master = { replicas = 2 } } end,
                     "kfjob.PyTorchJob: master.replicas: must be 0 or 1 (got 2)")
  end)
end)

describe("restart policy ExitCode", function()
  it("reads and writes on the operator (common_types.go RestartPolicyExitCode)", function()
    local doc = [[
apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata: {name: x}
spec:
  xgbReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: ExitCode
      template:
        spec:
          containers: [{name: xgboost, image: x:1}]
]]
    local j = read(doc)
    assert.equal("exit_code", j.master.restart_policy)
    assert.equal("ExitCode", j:manifest{ name = "x", target = "operator" }.spec.xgbReplicaSpecs.Master.restartPolicy)
  end)

  local function rules(j, target)
    local _, ps = j:check{ target = target, name = "j" }
    local out = {}
    for _, p in ipairs(ps or {}) do out[#out + 1] = p.rule .. " " .. p.path end
    return out
  end

  it("is an error on Flyte, the mpi-operator and Trainer, a warning for a v1 MPIJob", function()
    local pt = kfjob.PyTorchJob{ worker = { replicas = 1, restart_policy = "exit_code" },
      container = { image = "i" } }
    assert.same({ "R13 worker.restart_policy" }, rules(pt, "flyte"))
    assert.same({ "R13 worker.restart_policy" }, rules(pt, "trainer-2.3"))
    assert.is_true((pt:check{ target = "operator", name = "j" }))
    local mpi = kfjob.MPIJob{ worker = { replicas = 1, restart_policy = "exit_code" },
      container = { image = "i" } }
    assert.same({ "R13 worker.restart_policy" }, rules(mpi, "mpi-operator"))
    assert.is_true((mpi:check{ target = "operator", name = "j" }))
    local w = mpi:lint{ target = "operator", name = "j" }
    local found = false
    for _, x in ipairs(w) do if x.path == "worker.restart_policy" then found = true end end
    assert.is_true(found)
  end)

  it("is an error on Flyte for a group of 0 replicas too: the plugin message carries it", function()
    -- found by the spec fuzzer: encode wrote workerReplicas.restartPolicy = 3,
    -- a value flyteidl's RestartPolicy does not have
    local pt = kfjob.PyTorchJob{ worker = { restart_policy = "exit_code" },
      master = { replicas = 1 } }
    assert.same({ "R13 worker.restart_policy" }, rules(pt, "flyte"))
    assert.same({ "R1 worker.replicas", "R13 worker.restart_policy" }, rules(pt, "flyte2"))
    local ok, err = pcall(pt.encode, pt)
    assert.is_false(ok)
    assert.matches("worker.restart_policy: 'exit_code' cannot be expressed", err, 1, true)
    -- a manifest writes only the groups that run
    assert.same({}, rules(pt, "operator"))
  end)
end)

describe("the mpi-operator's fields and container names", function()
  local function rule_paths(j, target)
    local _, ps = j:check{ target = target, name = "j" }
    local out = {}
    for _, p in ipairs(ps or {}) do out[#out + 1] = p.rule .. " " .. p.path end
    return out
  end

  it("any container name on the mpi-operator and a v1 MPIJob; the kind's name elsewhere (R51)", function()
    local mpi = kfjob.MPIJob{ worker = { replicas = 1, container = { name = "mpi-worker" } },
      container = { image = "i" } }
    local m = mpi:manifest{ name = "j", target = "mpi-operator" }
    assert.equal("mpi-worker", m.spec.mpiReplicaSpecs.Worker.template.spec.containers[1].name)
    assert.is_true((mpi:check{ target = "operator", name = "j" }))
    assert.same({ "R35 worker.container", "R51 worker.container.name" }, rule_paths(mpi, "flyte"))
    local pt = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = "i", name = "trainer" } }
    assert.same({ "R51 container.name" }, rule_paths(pt, "operator"))
  end)

  it("a training-operator kind without a container of its name: the fix in the message", function()
    local doc = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: t}
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers: [{name: main, image: t:1}]
]]
    local j, msg = kfjob.from_manifest(doc)
    assert.is_nil(j)
    assert.matches("rename the main container to 'tensorflow'", msg, 1, true)
  end)

  it("sshAuthMountPath, mpiImplementation, runLauncherAsWorker, launcherCreationPolicy (R52)", function()
    local mpi = kfjob.MPIJob{ worker = { replicas = 1, image = "i" }, launcher = { image = "i" },
      ssh_auth_mount_path = "/home/mpiuser/.ssh", mpi_implementation = "Intel",
      run_launcher_as_worker = true, launcher_creation_policy = "WaitForWorkersReady" }
    local s = mpi:manifest{ name = "j", target = "mpi-operator" }.spec
    assert.equal("/home/mpiuser/.ssh", s.sshAuthMountPath)
    assert.equal("Intel", s.mpiImplementation)
    assert.is_true(s.runLauncherAsWorker)
    assert.equal("WaitForWorkersReady", s.launcherCreationPolicy)
    assert.equal(mpi, read(mpi:manifest{ name = "j", target = "mpi-operator", format = "yaml" }))
    assert.same({ "R52 ssh_auth_mount_path", "R52 mpi_implementation", "R52 run_launcher_as_worker",
                  "R52 launcher_creation_policy" }, rule_paths(mpi, "operator"))
  end)

  it("a launcher that runs mpirun itself gets no kfjob line around it", function()
    -- mpi-operator examples/v2beta1/tensorflow-benchmarks: all in command
    local mpi = kfjob.MPIJob{ worker = { replicas = 2 }, container = { image = "i" },
      launcher = { container = { command = { "mpirun", "-np", "2", "python", "t.py" } } } }
    local l = mpi:manifest{ name = "j", target = "mpi-operator" }.spec.mpiReplicaSpecs.Launcher
    local ct = l.template.spec.containers[1]
    assert.same({ "mpirun", "-np", "2", "python", "t.py" }, ct.command)
    assert.is_nil(ct.args)
  end)
end)

describe("an elastic policy's operator-only fields", function()
  -- training-operator v1.9 pytorchjob_types.go ElasticPolicy; elastic.go
  -- sets PET_RDZV_ENDPOINT host:port, PET_RDZV_ID, PET_RDZV_CONF k=v,...
  local EL = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: el}
spec:
  elasticPolicy:
    rdzvBackend: c10d
    rdzvHost: rdzv.example
    rdzvPort: 29400
    rdzvId: job-1
    rdzvConf:
    - {key: timeout, value: "900"}
    - {key: read_timeout, value: "60"}
    minReplicas: 2
    maxReplicas: 2
    metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers: [{name: pytorch, image: el:1}]
]]
  it("reads rdzvHost, rdzvPort, rdzvId, rdzvConf (in order) and metrics, and writes them back", function()
    local j = read(EL)
    local s = j:spec()
    assert.equal("rdzv.example", s.rdzv_host)
    assert.equal(29400, s.rdzv_port)
    assert.equal("job-1", s.rdzv_id)
    assert.same({ { key = "timeout", value = "900" }, { key = "read_timeout", value = "60" } }, s.rdzv_conf)
    assert.equal("Resource", s.metrics[1].type)
    local ep = j:manifest{ name = "el", target = "operator" }.spec.elasticPolicy
    assert.equal(29400, ep.rdzvPort)
    assert.equal("timeout", ep.rdzvConf[1].key)
    assert.equal(j, read(j:manifest{ name = "el", target = "operator", format = "yaml" }))
  end)

  it("the environment: PET_RDZV_ENDPOINT host:port, PET_RDZV_ID, PET_RDZV_CONF", function()
    local w = env_of(read(EL):environment{ name = "el", target = "operator" }["worker-0"])
    assert.equal("rdzv.example:29400", w.PET_RDZV_ENDPOINT)
    assert.equal("job-1", w.PET_RDZV_ID)
    assert.equal("timeout=900,read_timeout=60", w.PET_RDZV_CONF)
  end)

  it("Flyte and Trainer have no place for them (R54)", function()
    local _, ps = read(EL):check{ target = "flyte", name = "el" }
    local n = 0
    for _, p in ipairs(ps) do if p.rule == "R54" then n = n + 1 end end
    assert.equal(5, n)
  end)
end)

if util.cli_ok then
  describe("migrations (kfjob convert --to)", function()
    -- a PyTorchJob as written for the operator: OnFailure, a backoff limit
    -- and a TTL (training-operator v1.9 examples/pytorch/simple.yaml's shape)
    local PT = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt}
spec:
  runPolicy: {backoffLimit: 3, ttlSecondsAfterFinished: 100}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template: {spec: {containers: [{name: pytorch, image: img:1, command: [torchrun, train.py]}]}}
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template: {spec: {containers: [{name: pytorch, image: img:1, command: [torchrun, train.py]}]}}
]]
    it("to Trainer: the restart policies do not carry over; --lossy leaves them out and lists each", function()
      local code, out, err = util.run_cli(PT, "convert", "-", "--to", "trainer-2.3")
      assert.equal(1, code)
      assert.equal("", out)
      assert.equal(2, select(2, err:gsub("rule R13 on trainer%-2%.3", "")))
      code, out, err = util.run_cli(PT, "convert", "-", "--to", "trainer-2.3", "--lossy")
      assert.equal(0, code, err)
      local m = assert(kfjob.read_yaml(out))
      assert.same({ "torchrun", "train.py" }, m.spec.trainer.command)   -- no launcher nested
      assert.is_nil(m.spec.trainer.numProcPerNode)                       -- the runtime's auto
      assert.equal(3, m.spec.trainer.numNodes)
      assert.equal(2, select(2, err:gsub("%(left out: %-%-lossy%)", "")))
    end)

    it("what a target rule drops (the TTL, the backoff limit on Trainer) is on stderr", function()
      local _, _, err = util.run_cli(PT, "convert", "-", "--to", "trainer-2.3", "--lossy")
      -- named where they are in the manifest read (SPEC §17)
      assert.matches("spec.runPolicy.backoffLimit: dropped", err, 1, true)
      assert.matches("spec.runPolicy.ttlSecondsAfterFinished: dropped", err, 1, true)
    end)

    it("a manifest given to render, check or env: use kfjob convert", function()
      local f = os.tmpname() .. ".yaml"
      local fh = assert(io.open(f, "w"))
      fh:write(PT)
      fh:close()
      for _, cmd in ipairs { "render", "check", "env" } do
        local code, _, err = util.kfjob(cmd, f)
        assert.is_true(code ~= 0)
        assert.matches("this is a Kubernetes manifest (apiVersion kubeflow.org/v1, kind PyTorchJob), "
                       .. "not a config: use kfjob convert", err, 1, true)
      end
      os.remove(f)
    end)
  end)
end

describe("an elastic job's rdzv_conf and metrics given as Lua tables", function()
  -- a Lua table gives its keys in hash order, which differs from process to
  -- process: the manifest's bytes must not
  it("render the same bytes in every process", function()
    if _VERSION ~= "Lua 5.4" or jit then return end   -- runs the module under lua5.4
    local script = [[
package.cpath = ]] .. ("%q"):format(package.cpath) .. [[ .. ";" .. package.cpath
local kfjob = require "kfjob"
local e = kfjob.Elastic{ nnodes = "1:2", container = { image = "i:1" },
  rdzv_conf = { { key = "timeout", value = "900" }, { value = "1", key = "join" } },
  metrics = { { type = "Resource", resource = { name = "cpu",
    target = { type = "Utilization", averageUtilization = 80 } } } } }
io.write(e:manifest{ name = "e", format = "json" })]]
    local f = os.tmpname()
    local h = assert(io.open(f, "w")); h:write(script); h:close()
    local outs = {}
    for i = 1, 6 do
      local p = assert(io.popen("lua5.4 " .. f))
      outs[i] = p:read("*a")
      p:close()
    end
    os.remove(f)
    assert.truthy(outs[1]:find('"rdzvConf"', 1, true), outs[1])
    for i = 2, 6 do assert.are.equal(outs[1], outs[i]) end
  end)
end)
