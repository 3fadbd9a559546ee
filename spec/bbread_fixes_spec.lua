-- Black-box reading round: hand-written training-operator / mpi-operator
-- manifests that kfjob read wrong.  Expected values are the operators'
-- meaning of what is written (training-operator v1.9 webhooks and
-- controllers, mpi-operator v0.8, Kubernetes), never kfjob's own output.
local kfjob = require "kfjob"
local util = require "util"

local function read(text, opts)
  local job, info = kfjob.from_manifest(text, opts)
  assert.is_truthy(job, info)
  return job, info
end

local function emit(job, info, target)
  return job:manifest{ name = info.name, target = target or "operator", format = "yaml" }
end

-- The worker of a v1 MPIJob with neither command nor args: the operator runs
-- `sleep 365d` there (mpijob_controller.go newWorker); Law 3 keeps the
-- container as written.
local MPI_V1 = [[
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata:
  name: tensorflow-mnist
spec:
  slotsPerWorker: 1
  runPolicy:
    cleanPodPolicy: Running
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - image: docker.io/kubeflow/mpi-horovod-mnist
            name: mpi-launcher
            command: [mpirun]
            args: [-np, "2", --allow-run-as-root, python, /examples/tensorflow_mnist.py]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - image: docker.io/kubeflow/mpi-horovod-mnist
            name: mpi-worker
]]

describe("a v1 MPIJob worker without command or args", function()
  it("is written back without either (API)", function()
    local job, info = read(MPI_V1)
    local d = util.doc1(emit(job, info))
    local w = d.spec.mpiReplicaSpecs.Worker.template.spec.containers[1]
    assert.is_nil(w.args)
    assert.is_nil(w.command)
    local l = d.spec.mpiReplicaSpecs.Launcher.template.spec.containers[1]
    assert.are.same({ "mpirun" }, l.command)
    assert.are.same({ "-np", "2", "--allow-run-as-root", "python", "/examples/tensorflow_mnist.py" },
                    l.args)
  end)

  it("is written back without either by convert, also through a config", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(MPI_V1)
    assert.are.equal(0, code, err)
    local w = util.doc1(out).spec.mpiReplicaSpecs.Worker.template.spec.containers[1]
    assert.is_nil(w.args)
    for _, f in ipairs{ { "lua", ".lua" }, { "config", ".json" } } do
      local c2, cfg, e2 = util.conv(MPI_V1, "-f", f[1])
      assert.are.equal(0, c2, e2)
      local c3, out3, e3 = util.kfjob("render", util.tmp(cfg, f[2]), "-f", "manifest",
                                      "--target", "operator")
      assert.are.equal(0, c3, e3)
      w = util.doc1(out3).spec.mpiReplicaSpecs.Worker.template.spec.containers[1]
      assert.is_nil(w.args, f[1])
    end
  end)
end)

-- training-operator v1.9 pytorchjob_webhook.go validatePyTorchReplicaSpecs:
-- a Master must have replicas set and equal to 1 (Forbidden ...[Master].replicas).
local MASTER_ZERO = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: master-zero
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 0
      template:
        spec:
          containers:
          - name: pytorch
            image: x/y:1
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: x/y:1
]]

describe("a PyTorchJob Master with replicas 0", function()
  it("is an error naming its path (API)", function()
    local job, msg = kfjob.from_manifest(MASTER_ZERO)
    assert.is_nil(job)
    assert.is_truthy(msg:find("spec.pytorchReplicaSpecs.Master.replicas", 1, true), msg)
    job, msg = kfjob.from_manifest(MASTER_ZERO, { lossy = true })
    assert.is_nil(job)
    assert.is_truthy(msg:find("spec.pytorchReplicaSpecs.Master.replicas", 1, true), msg)
  end)

  it("is an error naming its path (CLI), with no output", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(MASTER_ZERO)
    assert.are_not.equal(0, code)
    assert.are.equal("", out)
    assert.is_truthy(err:find("spec.pytorchReplicaSpecs.Master.replicas", 1, true), err)
  end)
end)

-- training-operator v1.9 pytorchjob_webhook.go validateSpec:
-- Forbidden(spec.elasticPolicy.nProcPerNode, "must not be used with spec.nprocPerNode").
local BOTH_NPROC = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: el-both
spec:
  nprocPerNode: "2"
  elasticPolicy:
    nProcPerNode: 2
    minReplicas: 1
    maxReplicas: 2
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: x/y:1
]]

describe("an elastic PyTorchJob with both nprocPerNode fields", function()
  it("is an error naming elasticPolicy.nProcPerNode (API, CLI)", function()
    for _, o in ipairs{ {}, { lossy = true } } do
      local job, msg = kfjob.from_manifest(BOTH_NPROC, o)
      assert.is_nil(job)
      assert.is_truthy(msg:find("spec.elasticPolicy.nProcPerNode", 1, true), msg)
    end
    if not util.cli_ok then return end
    local code, out, err = util.conv(BOTH_NPROC)
    assert.are_not.equal(0, code)
    assert.are.equal("", out)
    assert.is_truthy(err:find("spec.elasticPolicy.nProcPerNode", 1, true), err)
  end)

  it("each alone still reads", function()
    read((BOTH_NPROC:gsub('  nprocPerNode: "2"\n', "")))
    read((BOTH_NPROC:gsub("    nProcPerNode: 2\n", "")))
  end)
end)

-- mpi-operator v0.8 validation.go: validRestartPolicies = {Never, OnFailure}.
describe("a v2beta1 MPIJob restartPolicy ExitCode", function()
  local M = [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: mpi-exitcode
spec:
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - name: l
            image: x/y:1
            args: [mpirun, -n, "2", /bin/true]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: w
            image: x/y:1
]]
  it("is refused with the mpi-operator's two policies, at its path", function()
    local job, msg = kfjob.from_manifest(M)
    assert.is_nil(job)
    assert.is_truthy(msg:find("spec.mpiReplicaSpecs.Launcher.restartPolicy", 1, true), msg)
    assert.is_truthy(msg:find("Never and OnFailure", 1, true), msg)
    assert.is_falsy(msg:find("Always", 1, true), msg)
  end)
end)

-- Kubernetes expands $(NAME) in an env value only to variables defined
-- before it (kubelet makeEnvironmentVariables); the training-operator appends
-- MASTER_ADDR, MASTER_PORT, ... after the user's env (envvar.go setPodEnv).
describe("an env value referring to a variable the operator injects later", function()
  local M = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: env-inj
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: x/t:1
            command: [python, t.py]
            env:
            - name: INIT_METHOD
              value: tcp://$(MASTER_ADDR):$(MASTER_PORT)
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: x/t:1
            command: [python, t.py]
            env:
            - name: INIT_METHOD
              value: tcp://$(MASTER_ADDR):$(MASTER_PORT)
]]
  local function r55(job)
    local out = {}
    for _, w in ipairs(job:lint{ target = "operator" }) do
      if w.rule == "R55" then out[#out + 1] = w end
    end
    return out
  end

  it("is a warning naming the variable (API lint)", function()
    local ws = r55(read(M))
    assert.are.equal(2, #ws)   -- $(MASTER_ADDR) and $(MASTER_PORT), each its own (RULES.md R55)
    for k, name in ipairs({ "MASTER_ADDR", "MASTER_PORT" }) do
      assert.is_truthy(ws[k].path:find("INIT_METHOD", 1, true), ws[k].path)
      assert.is_truthy(ws[k].message:find("$(" .. name .. ")", 1, true), ws[k].message)
    end
  end)

  it("is not one for a variable defined before, or for a reference in args", function()
    local ok1 = read((M:gsub("            %- name: INIT_METHOD\n",
      "            - name: MASTER_ADDR\n              value: h\n            - name: MASTER_PORT\n"
      .. "              value: \"1\"\n            - name: INIT_METHOD\n")))
    assert.are.equal(0, #r55(ok1))
    local ok2 = read((M:gsub("value: tcp://%$%(MASTER_ADDR%):%$%(MASTER_PORT%)", "value: tcp://h:1")))
    assert.are.equal(0, #r55(ok2))
  end)

  it("is printed on stderr by convert and by check --target operator", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(M)
    assert.are.equal(0, code, err)
    assert.is_truthy(out:find("INIT_METHOD", 1, true))
    assert.is_truthy(err:find("INIT_METHOD", 1, true) and err:find("$(MASTER_ADDR)", 1, true), err)
    local _, cfg = util.conv(M, "-f", "lua")
    local c2, o2, e2 = util.kfjob("check", "--target", "operator", util.tmp(cfg, ".lua"))
    assert.are.equal(0, c2, e2)
    local all = o2 .. e2
    assert.is_truthy(all:find("INIT_METHOD", 1, true) and all:find("R55", 1, true), all)
  end)
end)

-- An invalid quantity (apimachinery resource.ParseQuantity refuses "4GB")
-- is named by its manifest path (docs/IMPORT.md).
describe("an invalid resource quantity", function()
  local M = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: bad-qty
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: tensorflow
            image: x/y:1
            resources:
              limits:
                memory: 4GB
]]
  local PATH = "spec.tfReplicaSpecs.Worker.template.spec.containers[0].resources.limits.memory"
  it("is an error naming the manifest path (API, CLI)", function()
    local job, msg = kfjob.from_manifest(M)
    assert.is_nil(job)
    assert.is_truthy(msg:find(PATH, 1, true), msg)
    assert.is_truthy(msg:find("4GB", 1, true), msg)
    if not util.cli_ok then return end
    local code, out, err = util.conv(M)
    assert.are_not.equal(0, code)
    assert.are.equal("", out)
    assert.is_truthy(err:find(PATH, 1, true), err)
  end)
end)

-- training-operator v1.9 webhooks: Required(...containers[i].image) and
-- xgboostjob_webhook.go Required(spec.xgbReplicaSpecs[Master], "must be present").
describe("a container without an image, an XGBoostJob without a Master", function()
  local NO_IMAGE = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: no-image
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: tensorflow
            command: [python, t.py]
]]
  local XGB = [[
apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata:
  name: xgb-nomaster
spec:
  xgbReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: xgboost
            image: x/xgb:1
]]
  it("a missing image is named by its manifest path, not a flag", function()
    local P = "spec.tfReplicaSpecs.Worker.template.spec.containers[0].image"
    local job, msg = kfjob.from_manifest(NO_IMAGE)
    assert.is_nil(job)
    assert.is_truthy(msg:find(P, 1, true), msg)
    if not util.cli_ok then return end
    local code, out, err = util.conv(NO_IMAGE)
    assert.are_not.equal(0, code)
    assert.are.equal("", out)
    assert.is_truthy(err:find(P, 1, true), err)
    assert.is_falsy(err:find("--image", 1, true), err)
  end)

  it("a sidecar without an image too", function()
    local s = NO_IMAGE:gsub("            command: %[python, t.py%]\n",
      "            image: x/t:1\n          - name: side\n            command: [sleep, inf]\n")
    local job, msg = kfjob.from_manifest(s)
    assert.is_nil(job)
    assert.is_truthy(msg:find("spec.tfReplicaSpecs.Worker.template.spec.containers[1].image", 1, true), msg)
  end)

  it("an XGBoostJob without a Master is one error naming the Master", function()
    local job, msg = kfjob.from_manifest(XGB, { lossy = true })
    assert.is_nil(job)
    assert.is_truthy(msg:find("spec.xgbReplicaSpecs.Master", 1, true), msg)
    if not util.cli_ok then return end
    local code, out, err = util.conv(XGB)
    assert.are_not.equal(0, code)
    assert.are.equal("", out)
    assert.is_truthy(err:find("spec.xgbReplicaSpecs.Master", 1, true), err)
    assert.is_falsy(err:find("image", 1, true), err)
    local _, lines = err:gsub("\n", "")
    assert.are.equal(1, lines, err)
  end)
end)
