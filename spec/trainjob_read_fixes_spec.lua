-- Reading Kubeflow Trainer v2 TrainJobs and migrating to and from them:
-- faults black-box testers found.  Expected values from Trainer's API and
-- runtimes (trainjob_types.go: Trainer.NumNodes and NumProcPerNode *int32,
-- RuntimeRef.Name, PodTemplatePatch with an optional spec; the jax and
-- xgboost plugins, whose numNodes is the node Job's pod count), the
-- training-operator's PyTorchJob (it runs the container's command as
-- written), and kfjob's --lossy contract (what the target cannot express
-- and runs without is left out and listed; the rest still reads).
local util = require "util"
local kfjob = require "kfjob"
local json = require "dkjson"

local function read(text, opts)
  return kfjob.from_manifest(text, opts)
end

local function paths(info)
  local t = {}
  for _, u in ipairs(info.unmapped or {}) do t[#t + 1] = u.path end
  table.sort(t)
  return t
end

-- An XGBoost TrainJob of three nodes with a numProcPerNode kfjob's
-- XGBoostJob has no field for.
local XGB = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: xgb-iris
spec:
  runtimeRef:
    name: xgboost-distributed
  trainer:
    image: ghcr.io/kubeflow/trainer/xgboost-runtime:v2.3.0
    numNodes: 3
    numProcPerNode: 2
    command: [python, train.py]
]]

local JAX = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: jax-nproc
spec:
  runtimeRef:
    name: jax-distributed
  trainer:
    image: x/jax:1
    numNodes: 2
    numProcPerNode: 4
    command: [python3, t.py]
]]

describe("a JAX or XGBoost TrainJob's numProcPerNode under lossy", function()
  it("XGBoost: only numProcPerNode is left out; the image and the three nodes read", function()
    local job, info = read(XGB, { lossy = true })
    assert.is_not_nil(job, info)
    assert.are.equal("XGBoostJob", job.kind)
    assert.are.same({ "spec.trainer.numProcPerNode" }, paths(info))
    assert.are.equal(2, info.unmapped[1].value)
    -- numNodes is the node Job's pod count: a master and two workers
    local s = job:spec()
    assert.are.equal(2, s.worker.replicas)
    local m = job:manifest{ name = "xgb-iris", target = "trainer-2.3" }
    assert.are.equal(3, m.spec.trainer.numNodes)
    assert.are.equal("ghcr.io/kubeflow/trainer/xgboost-runtime:v2.3.0", m.spec.trainer.image)
    assert.are.same({ "python", "train.py" }, m.spec.trainer.command)
    assert.is_nil(m.spec.trainer.numProcPerNode)
  end)

  it("JAX: the two workers and the image read", function()
    local job, info = read(JAX, { lossy = true })
    assert.is_not_nil(job, info)
    assert.are.equal("JAXJob", job.kind)
    assert.are.same({ "spec.trainer.numProcPerNode" }, paths(info))
    assert.are.equal(2, job:spec().worker.replicas)
    local m = job:manifest{ name = "jax-nproc", target = "trainer-2.3" }
    assert.are.equal(2, m.spec.trainer.numNodes)
    assert.are.equal("x/jax:1", m.spec.trainer.image)
  end)

  it("without lossy the error names the path", function()
    local job, err = read(JAX)
    assert.is_nil(job)
    assert.matches("spec.trainer.numProcPerNode", err, 1, true)
  end)
end)

-- The numProcPerNode of Trainer v2.2 and later: `type: integer, format:
-- int32` in the TrainJob CRD (v2.0/v2.1's IntOrString took "auto").
local TORCH_NPROC = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: tj-nproc
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    image: x/y:1
    numProcPerNode: NPROC
    command: [torchrun, t.py]
]]

describe("a TrainJob's numProcPerNode is an int32", function()
  local function doc(v) return (TORCH_NPROC:gsub("NPROC", v)) end

  for _, v in ipairs { "auto", "gpu", '"4"', "0", "-1", "2.5", "true", "3000000000" } do
    it(v .. " is an error naming spec.trainer.numProcPerNode, lossy or not", function()
      for _, lossy in ipairs { false, true } do
        local job, err = read(doc(v), { lossy = lossy })
        assert.is_nil(job)
        assert.matches("spec.trainer.numProcPerNode", err, 1, true)
      end
    end)
  end

  it("an integer reads and writes back", function()
    local job = assert(read(doc("4")))
    assert.are.equal(4, job:manifest{ name = "tj-nproc", target = "trainer-2.3" }.spec.trainer.numProcPerNode)
  end)
end)

describe("a TrainJob kfjob wrote reads back (Law 3)", function()
  -- job-level scheduling alone: the runtime patch's pod template has only
  -- metadata (a PodTemplatePatch whose spec is optional)
  local function jobs()
    return {
      kfjob.PyTorchJob{ container = { image = "i:1" }, master = {}, worker = { replicas = 1 },
        scheduling = { topology = { required = "kubernetes.io/hostname" } } },
      kfjob.PyTorchJob{
        container = { image = "ghcr.io/acme/bert:1.4", command = { "python", "train.py" },
                      args = { "--epochs", "3" },
                      env = { { name = "HF_HOME", value = "/cache" } } },
        namespace = "research", labels = { team = "nlp" },
        master = { limits = { cpu = 8, mem = "32Gi", gpu = 2 } },
        worker = { replicas = 3, limits = { cpu = 8, mem = "32Gi", gpu = 2 } },
        run_policy = { active_deadline_seconds = 3600 },
        runtime = "torch-distributed-custom",
        scheduling = { queue = "team-a", priority_class = "high", suspend = true, multikueue = true,
                       topology = { required = "kubernetes.io/hostname" }, gang = { queue = "volq" } } },
    }
  end

  for _, t in ipairs { "trainer-2.3", "trainer-2.4" } do
    it(t .. ": a patch of pod metadata only reads back to an equal manifest", function()
      for i, j in ipairs(jobs()) do
        local text = j:manifest{ name = "tj" .. i, target = t, format = "yaml" }
        local m = j:manifest{ name = "tj" .. i, target = t }
        local tmpl = m.spec.runtimePatches[1].trainingRuntimeSpec.template.spec.replicatedJobs[1].template.spec.template
        assert.is_nil(tmpl.spec)
        local back, err = read(text)
        assert.is_not_nil(back, err)
        assert.are.equal(text, back:manifest{ name = "tj" .. i, target = t, format = "yaml" })
      end
    end)
  end
end)

-- a TrainJob running python train.py on the kind's own runtime
local PLAIN = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: tj-plain
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    image: x/t:1
    numNodes: 2
    command: [python, train.py]
]]

describe("a TrainJob on the kind's default runtime", function()

  it("runs on the operator as a PyTorchJob with the command as written", function()
    local job = assert(read(PLAIN))
    assert.is_true((job:check{ target = "operator", name = "tj-plain" }))
    local m = job:manifest{ name = "tj-plain", target = "operator" }
    local s = m.spec.pytorchReplicaSpecs
    assert.are.equal(1, s.Master.replicas)
    assert.are.equal(1, s.Worker.replicas)
    for _, g in ipairs { s.Master, s.Worker } do
      assert.are.same({ "python", "train.py" }, g.template.spec.containers[1].command)
      assert.are.equal("x/t:1", g.template.spec.containers[1].image)
    end
    -- and still writes back to Trainer as read (not wrapped in torchrun)
    local tm = job:manifest{ name = "tj-plain", target = "trainer-2.3" }
    assert.are.same({ "python", "train.py" }, tm.spec.trainer.command)
  end)

  it("stays R49 on flyte2-clustered, which starts the command under torchrun", function()
    local job = assert(read(PLAIN))
    local _, ps = job:check{ target = "flyte2-clustered", name = "tj-plain" }
    local rules = {}
    for _, p in ipairs(ps or {}) do rules[p.rule] = p.message end
    assert.is_not_nil(rules.R49)
    assert.matches("torchrun", rules.R49, 1, true)
  end)

  it("another runtime stays R49 on the operator, saying why", function()
    local job = assert(read((PLAIN:gsub("torch%-distributed", "my-torch"))))
    local ok, ps = job:check{ target = "operator", name = "tj-plain" }
    assert.is_nil(ok)
    assert.are.equal("R49", ps[1].rule)
    assert.matches("image, command or env", ps[1].message, 1, true)
  end)
end)

if not util.cli_ok then
  describe("kfjob convert of TrainJobs", function() pending(util.cli_why()) end)
  return
end

local run = util.run_cli

local function docs_of(out)
  local t = {}
  for l in out:gmatch("[^\n]+") do t[#t + 1] = assert(json.decode(l)) end
  return t
end

describe("kfjob convert of TrainJobs", function()
  it("--lossy leaves out only an XGBoost numProcPerNode, and lists it", function()
    local code, out, err = run(XGB, "convert", "-", "--lossy", "-f", "manifest-json")
    assert.are.equal(0, code, err)
    local m = docs_of(out)[1]
    assert.are.equal(3, m.spec.trainer.numNodes)
    assert.are.equal("ghcr.io/kubeflow/trainer/xgboost-runtime:v2.3.0", m.spec.trainer.image)
    assert.is_nil(m.spec.trainer.numProcPerNode)
    assert.matches("spec.trainer.numProcPerNode", err, 1, true)
    assert.matches("left out", err, 1, true)
  end)

  it("--lossy reads a JAX TrainJob's two workers", function()
    local code, out, err = run(JAX, "convert", "-", "--lossy", "-f", "manifest-json")
    assert.are.equal(0, code, err)
    assert.are.equal(2, docs_of(out)[1].spec.trainer.numNodes)
  end)

  it("without --lossy the CLI names numProcPerNode as the API does", function()
    local _, lua_err = read(JAX)
    local code, out, err = run(JAX, "convert", "-")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.matches("spec.trainer.numProcPerNode", err, 1, true)
    assert.matches("no processes per node", lua_err, 1, true)
    assert.matches("no processes per node", err, 1, true)
    assert.is_nil(err:find("worker.replicas", 1, true), err)
  end)

  it("numProcPerNode: auto is an error naming its path", function()
    local code, out, err = run((TORCH_NPROC:gsub("NPROC", "auto")), "convert", "-")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.matches("spec.trainer.numProcPerNode", err, 1, true)
  end)

  it("a TrainJob of job-level topology alone converts back to itself", function()
    local j = kfjob.PyTorchJob{ container = { image = "i:1" }, master = {}, worker = { replicas = 1 },
      scheduling = { topology = { required = "kubernetes.io/hostname" } } }
    for _, t in ipairs { "trainer-2.3", "trainer-2.4" } do
      local text = j:manifest{ name = "topo", target = t, format = "yaml" }
      local code, out, err = run(text, "convert", "-", "--to", t)
      assert.are.equal(0, code, err)
      assert.are.equal(text, out)
    end
  end)

  -- a PyTorchJob with ExitCode and a Volcano schedulingPolicy: a TrainJob
  -- has no restart policy and no gang field but the Volcano queue
  -- annotation (the runtime's podGroupPolicy sizes the gang)
  local GANG = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: pt-gang
spec:
  runPolicy:
    schedulingPolicy:
      minAvailable: 3
      queue: default
      priorityClass: high
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/train:2
            args: [python, train.py]
    Worker:
      replicas: 2
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/train:2
            args: [python, train.py]
]]

  it("--to trainer-2.3 --lossy leaves out the gang fields a TrainJob has none for, and lists them", function()
    local code, out, err = run(GANG, "convert", "-", "--to", "trainer-2.3", "--lossy", "-f", "manifest-json")
    assert.are.equal(0, code, err)
    local m = docs_of(out)[1]
    assert.are.equal("TrainJob", m.kind)
    assert.are.equal(3, m.spec.trainer.numNodes)
    assert.are.equal("default", m.metadata.annotations["scheduling.volcano.sh/queue-name"])
    -- named where they are in the manifest read
    for _, p in ipairs { "spec.runPolicy.schedulingPolicy.minAvailable", "spec.runPolicy.schedulingPolicy.priorityClass",
                         "spec.pytorchReplicaSpecs.Master.restartPolicy",
                         "spec.pytorchReplicaSpecs.Worker.restartPolicy" } do
      assert.matches(p:gsub("%.", "%%.") .. ": [^\n]*left out: %-%-lossy", err)
    end
    assert.matches("R28", err, 1, true)
  end)

  it("without --lossy the gang fields stay R28 errors", function()
    local code, _, err = run(GANG, "convert", "-", "--to", "trainer-2.3")
    assert.are.equal(1, code)
    assert.matches("spec.runPolicy.schedulingPolicy.minAvailable: ", err, 1, true)
  end)

  it("--lossy lists a schedule timeout and min resources with their values", function()
    local doc = GANG:gsub("      minAvailable: 3\n      queue: default\n      priorityClass: high\n",
                          "      scheduleTimeoutSeconds: 120\n      minResources:\n        cpu: \"4\"\n"
                          .. "        nvidia.com/gpu: \"2\"\n")
    local code, out, err = run(doc, "convert", "-", "--to", "trainer-2.4", "--lossy", "-f", "manifest-json")
    assert.are.equal(0, code, err)
    assert.are.equal("TrainJob", docs_of(out)[1].kind)
    assert.matches("spec%.runPolicy%.schedulingPolicy%.scheduleTimeoutSeconds: [^\n]*%(value 120%)", err)
    assert.matches('spec%.runPolicy%.schedulingPolicy%.minResources: [^\n]*%(value {"cpu":"4","nvidia%.com/gpu":"2"}%)', err)
  end)

  it("a TrainJob running python train.py on torch-distributed converts to the operator", function()
    local code, out, err = run(PLAIN, "convert", "-", "--to", "operator", "-f", "manifest-json")
    assert.are.equal(0, code, err)
    local m = docs_of(out)[1]
    assert.are.equal("PyTorchJob", m.kind)
    assert.are.same({ "python", "train.py" },
                    m.spec.pytorchReplicaSpecs.Worker.template.spec.containers[1].command)
  end)
end)
