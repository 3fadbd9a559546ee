-- Reading TrainJobs and migrating between targets, and reading refusals:
-- faults a black-box tester found.  Expected values from the operators'
-- semantics: training-operator v1.9 (pytorchjob_webhook.go
-- validatePyTorchReplicaSpecs, envvar.go setPodEnv), Kubeflow Trainer v2.3
-- (trainjob_types.go, plugins/torch/torch.go) and Kubernetes' $(VAR)
-- expansion (kubelet_pods.go makeEnvironmentVariables).
local util = require "util"
local kfjob = require "kfjob"

local function read(text, opts)
  return kfjob.from_manifest(text, opts)
end

local PT_WORKER0 = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: w0
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/train:1
    Worker:
      replicas: 0
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/train:1
]]

describe("a PyTorchJob Worker with replicas 0", function()
  -- pytorchjob_webhook.go: Forbidden([Worker].replicas, "must be at least 1")
  it("is refused naming spec.pytorchReplicaSpecs.Worker.replicas", function()
    local job, err = read(PT_WORKER0)
    assert.is_nil(job)
    assert.matches("spec.pytorchReplicaSpecs.Worker.replicas: must be at least 1", err, 1, true)
  end)
  it("is refused by convert to any target (exit codes: the CLI owner's)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    for _, t in ipairs({ "operator", "trainer-2.3" }) do
      local code, out, err = util.conv(PT_WORKER0, "--to", t)
      assert.are_not.equal(0, code, t)
      assert.are.equal("", out, t)
      assert.matches("spec.pytorchReplicaSpecs.Worker.replicas", err, 1, true)
    end
  end)
  it("an elastic PyTorchJob's Worker with replicas 0 likewise (the same webhook)", function()
    local el = PT_WORKER0:gsub("    Master:\n.-    Worker:", "    Worker:")
      :gsub("spec:\n  pytorchReplicaSpecs", "spec:\n  elasticPolicy: {rdzvBackend: c10d}\n  pytorchReplicaSpecs")
    local job, err = read(el)
    assert.is_nil(job)
    assert.matches("spec.pytorchReplicaSpecs.Worker.replicas: must be at least 1", err, 1, true)
  end)
  it("a Worker left out still reads (nil passes the webhook)", function()
    local job = read((PT_WORKER0:gsub("    Worker:.*", "")))
    assert.is_not_nil(job)
  end)
end)

describe("an elastic PyTorchJob with a Master", function()
  local EL = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: el-master
spec:
  elasticPolicy:
    minReplicas: 2
    maxReplicas: 2
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/train:1
            command: [torchrun, train.py]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/train:1
            command: [torchrun, train.py]
]]
  -- The webhook accepts it (FACTS 11.1.1: only a Worker is required with
  -- an elasticPolicy): the refusal is kfjob's, and says so and what to do,
  -- never "unknown field"; --lossy cannot leave out a pod that runs.
  it("is refused saying the Elastic job cannot hold a Master, and what to do", function()
    for _, lossy in ipairs({ false, true }) do
      local job, err = read(EL, { lossy = lossy })
      assert.is_nil(job)
      assert.matches("spec.pytorchReplicaSpecs.Master: kfjob's Elastic job cannot hold a Master", err, 1, true)
      assert.matches("drop spec.elasticPolicy", err, 1, true)
      assert.not_matches("unknown field", err, 1, true)
    end
  end)
end)

describe("kfjob convert of a v1 MPIJob with restartPolicy ExitCode", function()
  local MPI = [[
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata:
  name: mpi-exitcode
spec:
  slotsPerWorker: 2
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - image: registry.example/mpi:1
            name: mpi
            command: [mpirun, -np, "4", python, train.py]
    Worker:
      replicas: 2
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - image: registry.example/mpi:1
            name: mpi
]]
  -- The v1 MPIJob controller overrides ReconcilePods with no exit-code
  -- logic: ExitCode only gives the pod restartPolicy Never (FACTS 11.3.2).
  it("warns that the controller never acts on it, as job:lint does (exit 0)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    for _, args in ipairs({ {}, { "--to", "operator" } }) do
      local code, out, err = util.conv(MPI, (table.unpack or unpack)(args))
      assert.are.equal(0, code)
      assert.matches("kind: MPIJob", out, 1, true)
      -- named where they are in the manifest read (SPEC §17)
      assert.matches("spec.mpiReplicaSpecs.Launcher.restartPolicy: 'exit_code': a v1 MPIJob's controller never acts on it",
        err, 1, true)
      assert.matches("spec.mpiReplicaSpecs.Worker.restartPolicy: 'exit_code'", err, 1, true)
    end
  end)
  it("a PyTorchJob's ExitCode (the controller honours it) gives no warning", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local pt = MPI:gsub("MPIJob", "PyTorchJob"):gsub("mpiReplicaSpecs", "pytorchReplicaSpecs")
      :gsub("  slotsPerWorker: 2\n", ""):gsub("Launcher", "Master"):gsub("name: mpi", "name: pytorch")
    local code, _, err = util.conv(pt)
    assert.are.equal(0, code)
    assert.are.equal("", err)
  end)
end)

describe("an imageless TrainJob converted to a Flyte TaskTemplate", function()
  local TJ = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: tj-python
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 1
    command: [python, train.py]
]]
  -- Only a TrainJob runs its runtime's image (trainjob_types.go
  -- Trainer.Image +optional); a Flyte task's container needs one
  -- (flyteadmin task_validator.go), as -f manifest --to flyte says.
  it("is refused naming --image for -f template-json and -f template", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    for _, f in ipairs({ "template-json", "template" }) do
      local code, out, err = util.conv(TJ, "--to", "flyte", "-f", f)
      assert.are_not.equal(0, code, f)
      assert.are.equal("", out, f)
      assert.matches("--image: required: master has no image of its own", err, 1, true)
    end
  end)
  it("takes --image as the template container's image", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(TJ, "--to", "flyte", "-f", "template-json", "--image", "r/x:1")
    assert.are.equal(0, code, err)
    assert.matches('"container":{"image":"r/x:1","command":["python","train.py"]}', out, 1, true)
  end)
  it("a TrainJob with its image writes the template as before (no --image needed)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(TJ:gsub("    numNodes: 1\n", "    image: r/t:9\n    numNodes: 1\n"),
      "--to", "flyte", "-f", "template-json")
    assert.are.equal(0, code, err)
    assert.matches('"image":"r/t:9"', out, 1, true)
  end)
end)

describe("a TrainJob without spec.trainer", function()
  local BARE = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: tj-bare
spec:
  runtimeRef:
    name: torch-distributed
]]
  -- trainjob_types.go: Trainer *Trainer +optional; torch.go EnforceMLPolicy
  -- injects PET_* only when Trainer != nil, so the job is the runtime's node
  -- job as it is: runtime_trainer, written back without the block (Law 2)
  -- and with no plugin variable in its environment.
  it("reads as runtime_trainer and writes back without spec.trainer", function()
    for _, lossy in ipairs({ false, true }) do
      local job, info = read(BARE, { lossy = lossy })
      assert.is_not_nil(job, info)
      assert.are.equal("PyTorchJob", job.kind)
      assert.is_true(job.runtime_trainer)
      local m = job:manifest({ target = "trainer-2.3", name = "tj-bare" })
      assert.is_nil(m.spec.trainer)
      assert.same({ apiGroup = "trainer.kubeflow.org", kind = "ClusterTrainingRuntime",
                    name = "torch-distributed" }, m.spec.runtimeRef)
      -- one node pod, and no PET_* (with a trainer block it has five)
      local env = job:environment({ target = "trainer-2.3", name = "tj-bare" })
      local pods = {}
      for name in pairs(env) do pods[#pods + 1] = name end
      assert.same({ "node-0-0" }, pods)
      assert.same({}, env["node-0-0"].env)
    end
  end)
  it("runtime_trainer: what spec.trainer would carry is an error, other targets refuse it (R58)",
     function()
    local job = assert(read(BARE))
    local ok, err = pcall(job.manifest, job, { target = "trainer-2.3", name = "x", image = "r/t:1" })
    assert.is_false(ok)
    assert.matches("runtime_trainer: true writes no spec.trainer, but the job sets what it would "
                   .. "carry (spec.trainer.image)", tostring(err), 1, true)
    ok, err = pcall(job.manifest, job, { target = "operator", name = "x", image = "r/t:1" })
    assert.is_false(ok)
    assert.matches("runtime_trainer: true is a TrainJob without spec.trainer", tostring(err), 1, true)
    assert.matches("only Trainer targets run it", tostring(err), 1, true)
    -- written by hand: nothing more than the flag (the runtime's count and
    -- processes), and a count given is what spec.trainer would carry
    local m = kfjob.PyTorchJob({ runtime_trainer = true }):manifest({ target = "trainer-2.3", name = "h" })
    assert.is_nil(m.spec.trainer)
    ok, err = pcall(kfjob.PyTorchJob({ runtime_trainer = true, nproc_per_node = 4 }).manifest,
                    kfjob.PyTorchJob({ runtime_trainer = true, nproc_per_node = 4 }),
                    { target = "trainer-2.3", name = "h" })
    assert.is_false(ok)
    assert.matches("spec.trainer.numProcPerNode", tostring(err), 1, true)
    -- a job of more than the runtime's one node cannot leave the count to it
    ok, err = pcall(kfjob.PyTorchJob, { runtime_trainer = true, master = { replicas = 1 },
                                        worker = { replicas = 2 } })
    assert.is_false(ok)
    assert.matches("runtime_trainer: true leaves the node count to the runtime", tostring(err), 1, true)
  end)
  it("with trainer: {} it reads (one node on the runtime's image)", function()
    local job, info = read(BARE .. "  trainer: {}\n")
    assert.is_not_nil(job, info)
    assert.are.equal("PyTorchJob", job.kind)
  end)
end)

describe("R55: references to a variable the target never sets", function()
  local PT = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: env-refs
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/train:8
            command: [python, train.py, --dist-url, "tcp://$(MASTER_ADDR):$(MASTER_PORT)"]
            env:
            - name: INIT_METHOD
              value: tcp://$(MASTER_ADDR):$(MASTER_PORT)
    Worker:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/train:8
            command: [python, train.py, --dist-url, "tcp://$(MASTER_ADDR):$(MASTER_PORT)"]
            env:
            - name: INIT_METHOD
              value: tcp://$(MASTER_ADDR):$(MASTER_PORT)
]]
  local function r55(job, target)
    local out = {}
    for _, w in ipairs(job:lint{ target = target }) do
      if w.rule == "R55" then out[w.path] = (out[w.path] and out[w.path] .. "\n" or "") .. w.message end
    end
    return out
  end
  -- Trainer's torch plugin sets only PET_* (torch.go EnforceMLPolicy), no
  -- MASTER_ADDR; kubelet leaves an unresolved $(NAME) as written
  -- (expand.go MappingFuncFor), in env values and command/args alike.
  it("warns on Trainer for the command and the env value (API lint)", function()
    local ws = r55(read(PT), "trainer-2.3")
    assert.matches("$(MASTER_ADDR) does not expand on trainer-2.3", ws["container.command"] or "", 1, true)
    assert.matches("$(MASTER_ADDR) does not expand", ws["container.env.INIT_METHOD"] or "", 1, true)
  end)
  it("on the operator the command's reference expands (the operator sets MASTER_ADDR)", function()
    local ws = r55(read(PT), "operator")
    assert.is_nil(ws["container.command"])
    assert.is_not_nil(ws["container.env.INIT_METHOD"])   -- set after it: as before
  end)
  it("a worker-only PyTorchJob on the operator gets no MASTER_ADDR: its command warns", function()
    local wo = PT:gsub("    Master:\n.-    Worker:", "    Worker:")
    local ws = r55(read(wo), "operator")
    assert.matches("$(MASTER_ADDR) does not expand on operator", ws["container.command"] or "", 1, true)
  end)
  it("no warning for a variable the env defines, a Service's, or with an envFrom", function()
    local def = PT:gsub("            env:\n", "            env:\n            - name: MASTER_ADDR\n"
      .. "              value: h\n            - name: MASTER_PORT\n              value: \"1\"\n")
    assert.are.same({}, r55(read(def), "trainer-2.3"))
    local svc = PT:gsub("MASTER_ADDR", "DB_SERVICE_HOST"):gsub("MASTER_PORT", "DB_SERVICE_PORT")
    assert.are.same({}, r55(read(svc), "trainer-2.3"))
    local ef = PT:gsub("            env:\n", "            envFrom:\n            - configMapRef: {name: cm}\n"
      .. "            env:\n")
    assert.are.same({}, r55(read(ef), "trainer-2.3"))
  end)
  it("kfjob convert --to trainer-2.3 prints them on stderr (exit 0)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(PT, "--to", "trainer-2.3")
    assert.are.equal(0, code, err)
    assert.matches("kind: TrainJob", out, 1, true)
    -- named where they are in the manifest read (SPEC §17): the first
    -- replica spec holding them, Master here
    assert.matches("spec.pytorchReplicaSpecs.Master.template.spec.containers[0].command[3]: "
                   .. "$(MASTER_ADDR) does not expand on trainer-2.3", err, 1, true)
    assert.matches("spec.pytorchReplicaSpecs.Master.template.spec.containers[0].env[0].value: "
                   .. "$(MASTER_ADDR) does not expand", err, 1, true)
  end)
end)

describe("a torch TrainJob migrated to the operator keeps its processes a node", function()
  local TJ = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: tj-wrapped
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    image: registry.example/train:9
    numNodes: 2
    numProcPerNode: 4
    command: [torchrun, --no-python, python, train.py]
    resourcesPerNode:
      limits:
        nvidia.com/gpu: 4
]]
  local function op(text)
    local code, out, err = util.conv(text, "--to", "operator", "-f", "manifest-json")
    assert.are.equal(0, code, err)
    local m = require("dkjson").decode(out)
    local specs = m.spec.pytorchReplicaSpecs
    return m.spec, specs.Master.template.spec.containers[1], specs.Worker
  end
  -- On Trainer the torch plugin sets PET_NPROC_PER_NODE from numProcPerNode
  -- (unset: auto with a GPU, else the CPU request rounded up) and torchrun
  -- starts that many (torch.go EnforceMLPolicy).  The operator runs the
  -- command as written and sets PET_NPROC_PER_NODE from spec.nprocPerNode
  -- (envvar.go setPodEnv): the torchrun must stay for the same count.
  it("numProcPerNode 4: torchrun stays, nprocPerNode \"4\"", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local spec, c, w = op(TJ)
    assert.are.same({ "torchrun", "--no-python", "python", "train.py" }, c.command)
    assert.are.equal("4", spec.nprocPerNode)
    assert.are.equal(1, w.replicas)
  end)
  it("unset with GPUs (torchrun's auto): torchrun stays, nprocPerNode auto", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local spec, c = op((TJ:gsub("    numProcPerNode: 4\n", "")))
    assert.are.same({ "torchrun", "--no-python", "python", "train.py" }, c.command)
    assert.are.equal("auto", spec.nprocPerNode)
  end)
  it("unset on CPUs: the CPU request rounded up (2.5 -> 3)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local spec, c = op((TJ:gsub("    numProcPerNode: 4\n", ""):gsub("nvidia.com/gpu: 4", "cpu: \"2.5\"")))
    assert.are.same({ "torchrun", "--no-python", "python", "train.py" }, c.command)
    assert.are.equal("3", spec.nprocPerNode)
  end)
  it("one process a node: the task command alone, as before", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local _, c = op((TJ:gsub("numProcPerNode: 4", "numProcPerNode: 1")))
    assert.are.same({ "python", "train.py" }, c.command)
  end)
  it("read for Trainer (and by from_manifest) the wrapper is still kfjob's (Law 1)", function()
    local job = read(TJ)
    assert.are.same({ "python", "train.py" }, job.container.command)
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out = util.conv(TJ, "--to", "trainer-2.3")
    assert.are.equal(0, code)
    assert.matches("command:\n    - torchrun\n    - --no-python\n    - python\n    - train.py\n", out, 1, true)
  end)
end)
