local util = require "util"
if not util.cli_ok then describe("issue 42", function() pending(util.cli_why()) end) return end

-- Acceptance tests for issue 42 (SPEC §17 "What people write"), black-box: expected values come
-- from the issue text, SPEC §17 and FACTS §11 only.  Manifests are compared as data after the
-- API server's and operators' defaults (tools/manifest-defaults --diff; empty output = equal).

local kfjob = require "kfjob"

---------------------------------------------------------------------------------------------
-- helpers
---------------------------------------------------------------------------------------------

local q = util.quote
local PY = "env -u LD_PRELOAD python3"

-- a temporary file of a text; a shell command's output; a python expression over the list of
-- documents `d` in a YAML text, as JSON text (spec/util.lua)
local tmp, sh, yqs = util.tmp, util.sh, util.yqs

-- differences as data after defaults ("" = equal)
local function ddiff(a, b)
  return sh(PY .. " tools/manifest-defaults --diff " .. q(a) .. " " .. q(b))
end

-- kfjob convert FILE [args] -> code, out, err
local function convert(path, ...) return util.kfjob("convert", path, ...) end

-- Law 2 and Law 3: convert to its own target equals the input; -f lua rendered for target too.
local function round_trip(path, target)
  local code, out, err = convert(path)
  assert.are.equal(0, code, "convert: " .. err)
  assert.are.equal("", ddiff(path, tmp(out)), "convert differs from input")
  local c2, lua, e2 = convert(path, "-f", "lua")
  assert.are.equal(0, c2, "convert -f lua: " .. e2)
  local cfg = tmp(lua, ".lua")
  local c3, out3, e3 = util.kfjob("render", cfg, "-f", "manifest", "--target", target)
  assert.are.equal(0, c3, "render of the lua config: " .. e3)
  assert.are.equal("", ddiff(path, tmp(out3)), "render of -f lua differs from input")
  return out, lua, cfg
end

local function lua_config(path)
  local c, lua, e = convert(path, "-f", "lua")
  assert.are.equal(0, c, e)
  local cfg = tmp(lua, ".lua")
  return cfg, lua
end

---------------------------------------------------------------------------------------------
-- manifests (upstream example shapes, hand-written)
---------------------------------------------------------------------------------------------

local WORKER_ONLY = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: wo
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 3
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727
            command: [torchrun, --nnodes=3, --rdzv-backend=c10d, --rdzv-endpoint=wo-worker-0:23456, /opt/mnist.py]
]]

-- mpi-operator examples/v2beta1/pi/pi.yaml
local PI = [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi
spec:
  slotsPerWorker: 1
  runPolicy:
    cleanPodPolicy: Running
    ttlSecondsAfterFinished: 60
  sshAuthMountPath: /home/mpiuser/.ssh
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - image: mpioperator/mpi-pi:openmpi
            name: mpi-launcher
            securityContext:
              runAsUser: 1000
            command:
            - mpirun
            args:
            - -n
            - "2"
            - /home/mpiuser/pi
            resources:
              limits:
                cpu: 1
                memory: 1Gi
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - image: mpioperator/mpi-pi:openmpi
            name: mpi-worker
            securityContext:
              runAsUser: 1000
            command:
            - /usr/sbin/sshd
            args:
            - -De
            - -f
            - /home/mpiuser/.sshd_config
            resources:
              limits:
                cpu: 1
                memory: 1Gi
]]

-- mpi-operator examples/v2beta1/pi/pi-intel.yaml
local PI_INTEL = [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi-intel
spec:
  slotsPerWorker: 1
  runPolicy:
    cleanPodPolicy: Running
  sshAuthMountPath: /home/mpiuser/.ssh
  mpiImplementation: Intel
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - image: mpioperator/mpi-pi:intel
            imagePullPolicy: Always
            name: mpi-launcher
            securityContext:
              runAsUser: 1000
            args:
            - mpirun
            - -n
            - "2"
            - /home/mpiuser/pi
            resources:
              limits:
                cpu: 1
                memory: 1Gi
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - image: mpioperator/mpi-pi:intel
            imagePullPolicy: Always
            name: mpi-worker
            securityContext:
              runAsUser: 1000
            command:
            args:
            - /usr/sbin/sshd
            - -De
            - -f
            - /home/mpiuser/.sshd_config
            resources:
              limits:
                cpu: 1
                memory: 1Gi
]]

-- mpi-operator examples/v2beta1/tensorflow-benchmarks/tensorflow-benchmarks.yaml
local TF_BENCH = [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: tensorflow-benchmarks
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
          - image: mpioperator/tensorflow-benchmarks:latest
            name: tensorflow-benchmarks
            command:
            - mpirun
            - --allow-run-as-root
            - -np
            - "2"
            - -bind-to
            - none
            - -map-by
            - slot
            - -x
            - NCCL_DEBUG=INFO
            - -x
            - LD_LIBRARY_PATH
            - -x
            - PATH
            - -mca
            - pml
            - ob1
            - -mca
            - btl
            - ^openib
            - python
            - scripts/tf_cnn_benchmarks/tf_cnn_benchmarks.py
            - --model=resnet101
            - --batch_size=64
            - --variable_update=horovod
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - image: mpioperator/tensorflow-benchmarks:latest
            name: tensorflow-benchmarks
            resources:
              limits:
                nvidia.com/gpu: 1
]]

local function xgb(policy)
  return ([[
apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata:
  name: xgboost-dist-iris
spec:
  xgbReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: %s
      template:
        spec:
          containers:
          - name: xgboost
            image: docker.io/kubeflow/xgboost-dist-iris:latest
            ports:
            - containerPort: 9991
              name: xgboostjob-port
            args:
            - --job_type=Train
            - --xgboost_parameter=objective:multi:softprob,num_class:3
            - --n_estimators=10
    Worker:
      replicas: 2
      restartPolicy: %s
      template:
        spec:
          containers:
          - name: xgboost
            image: docker.io/kubeflow/xgboost-dist-iris:latest
            ports:
            - containerPort: 9991
              name: xgboostjob-port
            args:
            - --job_type=Train
            - --xgboost_parameter=objective:multi:softprob,num_class:3
            - --n_estimators=10
]]):format(policy, policy)
end

local function pytorch(o)
  o = o or {}
  local master = o.master ~= false
  local s = ([[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: %s
spec:
%s  runPolicy:
%s  pytorchReplicaSpecs:
]]):format(o.name or "pt", o.top or "", o.run_policy or "    cleanPodPolicy: None\n")
  local function group(key, n, image, policy, cmd)
    return ([[
    %s:
      replicas: %d
      restartPolicy: %s
      template:
        spec:
          containers:
          - name: %s
            image: %s
            command: %s
]]):format(key, n, policy, o.cname or "pytorch", image, cmd)
  end
  if master then
    s = s .. group("Master", 1, o.master_image or "registry.example/train:1", o.policy or "Never",
      o.master_cmd or o.cmd or "[python, train.py]")
  end
  s = s .. group("Worker", o.workers or 2, o.image or "registry.example/train:1", o.policy or "Never",
    o.cmd or "[python, train.py]")
  return s
end

local function with_file(text) return tmp(text) end

---------------------------------------------------------------------------------------------

describe("issue 42: worker-only PyTorchJob", function()
  it("reads as master = { replicas = 0 } and round-trips on operator (convert and -f lua)", function()
    local p = with_file(WORKER_ONLY)
    local job, info = kfjob.from_manifest(WORKER_ONLY)
    assert.is_truthy(job, info)
    assert.are.equal("operator", info.target)
    local spec = job:spec()
    assert.are.equal(0, spec.master and spec.master.replicas)
    assert.are.equal(3, spec.worker.replicas)
    round_trip(p, "operator")
  end)

  it("kfjob env on operator shows no MASTER_ADDR/RANK/WORLD_SIZE, only PYTHONUNBUFFERED, PET_NPROC_PER_NODE, PET_NNODES",
    function()
      local cfg = lua_config(with_file(WORKER_ONLY))
      local code, out, err = util.kfjob("env", cfg, "--name", "wo", "--target", "operator")
      assert.are.equal(0, code, err)
      assert.is_nil(out:find("MASTER_ADDR", 1, true), out)
      assert.is_nil(out:find("MASTER_PORT", 1, true), out)
      assert.is_nil(out:find("\nRANK=", 1, true), out)
      assert.is_nil(out:find("WORLD_SIZE", 1, true), out)
      assert.is_nil(out:find("master-0", 1, true), out)
      assert.is_truthy(out:find("# wo worker-0", 1, true), out)
      assert.is_truthy(out:find("# wo worker-2", 1, true), out)
      assert.is_truthy(out:find("PYTHONUNBUFFERED=1", 1, true), out)
      assert.is_truthy(out:find("PET_NPROC_PER_NODE=auto", 1, true), out)
      assert.is_truthy(out:find("PET_NNODES=3", 1, true), out)
      -- Lua API agrees
      local job = assert(kfjob.from_manifest(WORKER_ONLY))
      local env = job:environment{ name = "wo", target = "operator" }
      assert.is_nil(env["master-0"])
      for _, e in ipairs(env["worker-0"].env) do
        assert.is_not.equal("MASTER_ADDR", e.name)
        assert.is_not.equal("RANK", e.name)
        assert.is_not.equal("WORLD_SIZE", e.name)
      end
    end)

  it("is an error on Flyte (flytekit always sends a master)", function()
    local job = assert(kfjob.from_manifest(WORKER_ONLY))
    local ok, problems = job:check{ target = "flyte", name = "wo" }
    assert.is_nil(ok)
    assert.is_truthy(problems and #problems > 0)
    local code = convert(with_file(WORKER_ONLY), "--to", "flyte", "--lossy")
    assert.are.equal(1, code)
  end)

  it("maps to Trainer as numNodes = W, command kept (already torchrun), numProcPerNode unset", function()
    local code, out, err = convert(with_file(WORKER_ONLY), "--to", "trainer-2.3", "--lossy")
    assert.are.equal(0, code, err)
    assert.are.equal("3", yqs(out, "d[0]['spec']['trainer']['numNodes']"))
    assert.are.equal('["torchrun", "--nnodes=3", "--rdzv-backend=c10d", "--rdzv-endpoint=wo-worker-0:23456", "/opt/mnist.py"]',
      yqs(out, "d[0]['spec']['trainer']['command']"))
    assert.are.equal("false", yqs(out, "'numProcPerNode' in d[0]['spec']['trainer']"))
  end)
end)

describe("issue 42: container names", function()
  it("mpi-operator pi.yaml (mpi-launcher/mpi-worker, sshAuthMountPath, mpirun in command) round-trips", function()
    local out = round_trip(with_file(PI), "mpi-operator")
    assert.are.equal('["mpirun"]', yqs(out, "d[0]['spec']['mpiReplicaSpecs']['Launcher']['template']['spec']['containers'][0].get('command')"))
    assert.are.equal('["-n", "2", "/home/mpiuser/pi"]', yqs(out, "d[0]['spec']['mpiReplicaSpecs']['Launcher']['template']['spec']['containers'][0].get('args')"))
    assert.are.equal('"mpi-launcher"', yqs(out, "d[0]['spec']['mpiReplicaSpecs']['Launcher']['template']['spec']['containers'][0]['name']"))
    assert.are.equal('"/home/mpiuser/.ssh"', yqs(out, "d[0]['spec'].get('sshAuthMountPath')"))
  end)

  it("mpi-operator pi-intel.yaml (Intel, launcher program in args, worker with empty command) round-trips", function()
    local out = round_trip(with_file(PI_INTEL), "mpi-operator")
    assert.are.equal('null', yqs(out, "d[0]['spec']['mpiReplicaSpecs']['Launcher']['template']['spec']['containers'][0].get('command')"))
    assert.are.equal('["mpirun", "-n", "2", "/home/mpiuser/pi"]', yqs(out, "d[0]['spec']['mpiReplicaSpecs']['Launcher']['template']['spec']['containers'][0].get('args')"))
    assert.are.equal('"Intel"', yqs(out, "d[0]['spec'].get('mpiImplementation')"))
  end)

  it("mpi-operator tensorflow-benchmarks.yaml (whole launcher line in command, worker without command) round-trips", function()
    local out = round_trip(with_file(TF_BENCH), "mpi-operator")
    local l = "d[0]['spec']['mpiReplicaSpecs']['Launcher']['template']['spec']['containers'][0]"
    assert.are.equal(yqs(TF_BENCH, l .. ".get('command')"), yqs(out, l .. ".get('command')"))
    assert.are.equal('null', yqs(out, l .. ".get('args')"))
    local w = "d[0]['spec']['mpiReplicaSpecs']['Worker']['template']['spec']['containers'][0]"
    assert.are.equal('[null, null]', yqs(out, "[" .. w .. ".get('command'), " .. w .. ".get('args')]"))
  end)

  it("a PyTorchJob container not named pytorch is an error naming the path and saying to rename it", function()
    local p = with_file(pytorch{ cname = "trainer" })
    local code, out, err = convert(p)
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.is_truthy(err:find(p, 1, true), err)
    assert.is_truthy(err:find("containers", 1, true), err)
    assert.is_truthy(err:lower():find("rename", 1, true), err)
    assert.is_truthy(err:find("pytorch", 1, true), err)
  end)

  it("a v1 MPIJob container not named mpi reads (Containers[0]); no rename demanded", function()
    local text = [[
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata:
  name: v1mpi
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
          - image: registry.example/hvd:1
            name: launcher
            command: [mpirun, --allow-run-as-root, -np, "2", python, /train.py]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - image: registry.example/hvd:1
            name: worker
]]
    round_trip(with_file(text), "operator")
  end)
end)

describe("issue 42: restart policy exit_code", function()
  it("an XGBoostJob with restartPolicy: ExitCode reads and round-trips on operator", function()
    local p = with_file(xgb("ExitCode"))
    local job, info = kfjob.from_manifest(xgb("ExitCode"))
    assert.is_truthy(job, info)
    assert.are.equal("exit_code", job:spec().worker.restart_policy)
    round_trip(p, "operator")
  end)

  it("ExitCode reads and round-trips on every other training-operator kind (TFJob, PyTorchJob, JAXJob, PaddleJob)", function()
    local docs = {
      [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: tf
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - name: tensorflow
            image: kubeflow/tf-dist-mnist-test:latest
]],
      pytorch{ policy = "ExitCode" },
      [[
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata:
  name: jax
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - name: jax
            image: docker.io/kubeflow/jaxjob-simple:latest
            command: [python3, train.py]
]],
      [[
apiVersion: kubeflow.org/v1
kind: PaddleJob
metadata:
  name: paddle
spec:
  paddleReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - name: paddle
            image: registry.baidubce.com/paddlepaddle/paddle:2.4.0rc0-cpu
            command: [python, -m, paddle.distributed.launch, run_check]
]],
    }
    for _, d in ipairs(docs) do round_trip(with_file(d), "operator") end
  end)

  it("on a v1 MPIJob ExitCode reads and is a warning on operator, not an error", function()
    local text = [[
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata:
  name: mpiexit
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - image: registry.example/mpi:1
            name: mpi
            command: [mpirun, -np, "2", /train]
    Worker:
      replicas: 2
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - image: registry.example/mpi:1
            name: mpi
]]
    local p = with_file(text)
    round_trip(p, "operator")
    local cfg = lua_config(p)
    local code, out, err = util.kfjob("check", cfg, "--target", "operator")
    assert.are.equal(0, code, out .. err)
    local n = tonumber((out .. err):match("(%d+) warnings?"))
    assert.is_truthy(n and n >= 1, out .. err)
  end)

  it("ExitCode is an error on flyte, mpi-operator and trainer-2.3", function()
    local p = with_file(pytorch{ policy = "ExitCode" })
    for _, t in ipairs{ "flyte", "mpi-operator", "trainer-2.3" } do
      local code, out, err = convert(p, "--to", t)
      assert.are.equal(1, code, t .. ": " .. out .. err)
    end
    local pm = with_file(pytorch{ policy = "ExitCode" })
    local job = assert(kfjob.from_manifest(util.slurp(pm)))
    assert.is_nil((job:check{ target = "flyte", name = "pt" }))
    assert.is_nil((job:check{ target = "trainer-2.3", name = "pt" }))
    -- a v2beta1 MPIJob with ExitCode: mpi-operator accepts only Never and OnFailure
    local mpi = PI:gsub("    Worker:\n      replicas: 2\n", "    Worker:\n      replicas: 2\n      restartPolicy: ExitCode\n")
    local code = convert(with_file(mpi))
    assert.are.equal(1, code)
  end)
end)

describe("issue 42: mpi-operator v2beta1 fields", function()
  local FIELDS = PI:gsub("  sshAuthMountPath: /home/mpiuser/.ssh\n",
    "  sshAuthMountPath: /home/mpiuser/.ssh\n  mpiImplementation: MPICH\n  runLauncherAsWorker: true\n"
    .. "  launcherCreationPolicy: WaitForWorkersReady\n")

  it("ssh_auth_mount_path, mpi_implementation, run_launcher_as_worker, launcher_creation_policy read and round-trip", function()
    local _, lua = round_trip(with_file(FIELDS), "mpi-operator")
    assert.is_truthy(lua:find('ssh_auth_mount_path = "/home/mpiuser/.ssh"', 1, true), lua)
    assert.is_truthy(lua:find('mpi_implementation = "', 1, true), lua)
    assert.is_truthy(lua:find("run_launcher_as_worker = true", 1, true), lua)
    assert.is_truthy(lua:find('launcher_creation_policy = "', 1, true), lua)
  end)

  it("they are errors on targets without them (operator, flyte)", function()
    local p = with_file(FIELDS)
    for _, t in ipairs{ "operator", "flyte" } do
      local code, out, err = convert(p, "--to", t)
      assert.are.equal(1, code, t .. ": " .. out .. err)
    end
  end)
end)

describe("issue 42: command and args as written", function()
  it("a v1 MPIJob launcher's own mpirun line in command is kept as written", function()
    local text = [[
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata:
  name: own
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - image: registry.example/mpi:1
            name: mpi
            command: [mpirun, -np, "4", --bind-to, none, python, train.py]
    Worker:
      replicas: 4
      template:
        spec:
          containers:
          - image: registry.example/mpi:1
            name: mpi
]]
    local out = round_trip(with_file(text), "operator")
    local l = "d[0]['spec']['mpiReplicaSpecs']['Launcher']['template']['spec']['containers'][0]"
    assert.are.equal('[["mpirun", "-np", "4", "--bind-to", "none", "python", "train.py"], null]',
      yqs(out, "[" .. l .. ".get('command'), " .. l .. ".get('args')]"))
  end)

  it("launcher_command is used only when the launcher has neither command nor args", function()
    local job = kfjob.MPIJob{ worker = { replicas = 2, image = "registry.example/mpi:1" } }
    local m = job:manifest{ name = "lc", target = "operator", format = "yaml", image = "registry.example/mpi:1" }
    local l = "d[0]['spec']['mpiReplicaSpecs']['Launcher']['template']['spec']['containers'][0]"
    local cmd = yqs(m, "(" .. l .. ".get('command') or []) + (" .. l .. ".get('args') or [])")
    assert.is_truthy(cmd:find('"mpirun"', 1, true), cmd)
  end)
end)

describe("issue 42: nprocPerNode and elastic fields", function()
  it("spec.nprocPerNode \"8\", \"auto\", \"cpu\", \"gpu\" read and round-trip on a PyTorchJob", function()
    for _, v in ipairs{ "8", "auto", "cpu", "gpu" } do
      local p = with_file(pytorch{ top = ('  nprocPerNode: "%s"\n'):format(v) })
      local job, msg = kfjob.from_manifest(util.slurp(p))
      assert.is_truthy(job, v .. ": " .. tostring(msg))
      local out = round_trip(p, "operator")
      local got = yqs(out, "d[0]['spec'].get('nprocPerNode')")
      -- "auto" is the operator's default (FACTS 11.4): leaving it out means the same
      if not (v == "auto" and got == "null") then assert.are.equal('"' .. v .. '"', got) end
    end
  end)

  -- not built this round: an Elastic job writes an integer nproc_per_node in
  -- elasticPolicy.nProcPerNode (as Flyte's backend and FACTS §4.5), so a
  -- spec.nprocPerNode read comes back there (docs/DECISIONS.md)
  it("an elastic PyTorchJob with nprocPerNode, rdzvPort, rdzvHost, rdzvConf and metrics round-trips on operator", function()
    local text = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: elastic-example-imagenet
spec:
  nprocPerNode: "4"
  elasticPolicy:
    rdzvBackend: c10d
    rdzvHost: elastic-rdzv
    rdzvPort: 29400
    rdzvConf:
    - key: timeout
      value: "900"
    minReplicas: 1
    maxReplicas: 2
    maxRestarts: 100
    metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: 80
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727
            command: [python, /opt/mnist/src/mnist.py]
]]
    local job, info = kfjob.from_manifest(text)
    assert.is_truthy(job, info)
    assert.are.equal("Elastic", job.kind)
    local out = round_trip(with_file(text), "operator")
    assert.are.equal('29400', yqs(out, "d[0]['spec']['elasticPolicy'].get('rdzvPort')"))
    assert.are.equal('"elastic-rdzv"', yqs(out, "d[0]['spec']['elasticPolicy'].get('rdzvHost')"))
  end)

  it("a PyTorchJob's nprocPerNode \"8\" goes to Trainer as numProcPerNode: 8; \"gpu\" is an error there", function()
    local code, out, err = convert(with_file(pytorch{ top = '  nprocPerNode: "8"\n' }), "--to", "trainer-2.3")
    assert.are.equal(0, code, err)
    assert.are.equal("8", yqs(out, "d[0]['spec']['trainer'].get('numProcPerNode')"))
    local c2 = convert(with_file(pytorch{ top = '  nprocPerNode: "gpu"\n' }), "--to", "trainer-2.3")
    assert.are.equal(1, c2)
  end)
end)

describe("issue 42: TrainJob", function()
  local function trainjob(o)
    o = o or {}
    return ([[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: %s
spec:
  runtimeRef:
    name: %s
  trainer:
%s    numNodes: 2
    command: %s
]]):format(o.name or "tj", o.runtime or "torch-distributed", o.image and ("    image: " .. o.image .. "\n") or "",
      o.cmd or "[torchrun, --no-python, python3, train.py]")
  end

  it("a TrainJob without trainer.image reads and round-trips on trainer-2.3 without an image", function()
    local text = trainjob()
    local job, info = kfjob.from_manifest(text)
    assert.is_truthy(job, info)
    local out = round_trip(with_file(text), "trainer-2.3")
    assert.are.equal("false", yqs(out, "'image' in d[0]['spec']['trainer']"))
    assert.are.equal("false", yqs(out, "'numProcPerNode' in d[0]['spec']['trainer']"))
  end)

  it("without an image, other targets refuse it and name the --image flag", function()
    local p = with_file(trainjob())
    local code, _, err = convert(p, "--to", "operator")
    assert.are.equal(1, code)
    assert.is_truthy(err:find("--image", 1, true), err)
    assert.is_nil(err:find("opts.image", 1, true), err)
  end)

  it("kfjob convert's --image gives the image a TrainJob without one needs on another target", function()
    local p = with_file(trainjob())
    local c2, out2, e2 = convert(p, "--to", "operator", "--image", "registry.example/train:1")
    assert.are.equal(0, c2, e2)
    assert.is_truthy(out2:find("registry.example/train:1", 1, true))
  end)

  it("a command that already starts a launcher is written as given (no torchrun --no-python wrapping)", function()
    for _, cmd in ipairs{ "[torchrun, --nproc-per-node=2, train.py]", "[python, -m, torch.distributed.run, train.py]" } do
      local text = trainjob{ image = "registry.example/train:1", cmd = cmd }
      local out = round_trip(with_file(text), "trainer-2.3")
      assert.are.equal(yqs(text, "d[0]['spec']['trainer']['command']"), yqs(out, "d[0]['spec']['trainer']['command']"))
    end
  end)

  it("a runtime other than torch-distributed reads as the job's runtime and reads back in runtimeRef.name", function()
    local text = trainjob{ runtime = "torch-cuda-custom", image = "registry.example/train:1" }
    local _, lua = round_trip(with_file(text), "trainer-2.3")
    assert.is_truthy(lua:find('runtime = "torch-cuda-custom"', 1, true), lua)
  end)

  it("migration of a PyTorchJob running `torchrun train.py` keeps the command and leaves numProcPerNode unset",
    function()
      local code, out, err = convert(with_file(pytorch{ cmd = "[torchrun, train.py]" }), "--to", "trainer-2.3")
      assert.are.equal(0, code, err)
      assert.are.equal('["torchrun", "train.py"]', yqs(out, "d[0]['spec']['trainer']['command']"))
      assert.are.equal("false", yqs(out, "'numProcPerNode' in d[0]['spec']['trainer']"))
      assert.are.equal("3", yqs(out, "d[0]['spec']['trainer']['numNodes']"))
      assert.are.equal('"torch-distributed"', yqs(out, "d[0]['spec']['runtimeRef']['name']"))
    end)

  it("a plain python command is wrapped in torchrun --no-python on the way to Trainer", function()
    local code, out, err = convert(with_file(pytorch{}), "--to", "trainer-2.3")
    assert.are.equal(0, code, err)
    assert.are.equal('["torchrun", "--no-python", "python", "train.py"]', yqs(out, "d[0]['spec']['trainer']['command']"))
  end)

  it("JAXJob goes to Trainer on jax-distributed", function()
    local jax = [[
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata:
  name: jaxjob-simple
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: jax
            image: docker.io/kubeflow/jaxjob-simple:latest
            command: [python3, train.py]
]]
    local code, out, err = convert(with_file(jax), "--to", "trainer-2.3")
    assert.are.equal(0, code, err)
    assert.are.equal('"jax-distributed"', yqs(out, "d[0]['spec']['runtimeRef']['name']"))
    assert.are.equal("2", yqs(out, "d[0]['spec']['trainer']['numNodes']"))
  end)

  it("XGBoostJob goes to Trainer on xgboost-distributed (numNodes = master + workers)", function()
    -- without the ports (a pod-template field a TrainJob cannot patch): only the kind is asked
    local text = xgb("Never"):gsub("            ports:\n            %- containerPort: 9991\n              name: xgboostjob%-port\n", "")
    assert.is_nil(text:find("ports:", 1, true))
    local c2, out2, e2 = convert(with_file(text), "--to", "trainer-2.3")
    assert.are.equal(0, c2, e2)
    assert.are.equal('"xgboost-distributed"', yqs(out2, "d[0]['spec']['runtimeRef']['name']"))
    assert.are.equal("3", yqs(out2, "d[0]['spec']['trainer']['numNodes']"))
  end)
end)

describe("issue 42: Kubernetes leftovers", function()
  local DRY = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  creationTimestamp: null
  name: dry
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        metadata:
          creationTimestamp: null
        spec:
          containers:
          - image: registry.example/train:1
            name: pytorch
            resources: {}
    Worker:
      replicas: 1
      restartPolicy: OnFailure
      template:
        metadata:
          creationTimestamp: null
        spec:
          containers:
          - image: registry.example/train:1
            name: pytorch
            resources: {}
status: {}
]]

  it("creationTimestamp: null (kubectl --dry-run output) reads and is never written", function()
    local job, info = kfjob.from_manifest(DRY)
    assert.is_truthy(job, info)
    local p = with_file(DRY)
    local code, out, err = convert(p)
    assert.are.equal(0, code, err)
    assert.is_nil(out:find("creationTimestamp", 1, true), out)
    local clean = with_file((DRY:gsub("  *creationTimestamp: null\n", ""):gsub("        metadata:\n", "")
      :gsub("status: {}\n", "")))
    assert.are.equal("", ddiff(clean, tmp(out)))
    local c2, out2 = convert(p, "--to", "trainer-2.3", "--lossy")
    assert.are.equal(0, c2)
    assert.is_nil(out2:find("creationTimestamp", 1, true), out2)
  end)

  it("generateName reads (the name's prefix); emitting with --name works", function()
    local text = pytorch{}:gsub("  name: pt\n", "  generateName: pt-\n")
    local job, info = kfjob.from_manifest(text)
    assert.is_truthy(job, info)
    local code, out, err = convert(with_file(text), "--name", "pt-1")
    assert.are.equal(0, code, err)
    assert.are.equal('"pt-1"', yqs(out, "d[0]['metadata']['name']"))
  end)

  it("a stream whose second document holds only comments reads", function()
    local text = pytorch{} .. "---\n# just a note\n# nothing here\n---\n" .. xgb("Never")
    local code, out, err = convert(with_file(text))
    assert.are.equal(0, code, err)
    assert.are.equal('["PyTorchJob", "XGBoostJob"]', yqs(out, "[x['kind'] for x in d]"))
  end)

  it("a ConfigMap in the stream is copied through by kfjob convert and listed on stderr", function()
    local cm = [[
apiVersion: v1
kind: ConfigMap
metadata:
  name: train-config
  namespace: ml
data:
  config.yaml: |
    lr: 0.1
    epochs: 3
]]
    local text = cm .. "---\n" .. pytorch{}
    local code, out, err = convert(with_file(text))
    assert.are.equal(0, code, err)
    assert.are.equal(yqs(cm, "d[0]"), yqs(out, "[x for x in d if x.get('kind') == 'ConfigMap'][0] if "
      .. "[x for x in d if x.get('kind') == 'ConfigMap'] else None"))
    assert.is_truthy(err:find("ConfigMap", 1, true), err)
    assert.is_truthy(err:find("train-config", 1, true) or err:find("document 1", 1, true), err)
    -- also when migrating
    local c2, out2, e2 = convert(with_file(text), "--to", "trainer-2.3")
    assert.are.equal(0, c2, e2)
    assert.are.equal('["ConfigMap", "TrainJob"]', yqs(out2, "sorted(x['kind'] for x in d)"))
  end)
end)

describe("issue 42: migrations", function()
  it("OnFailure to Trainer: an error without --lossy; with --lossy left out and listed with its rule", function()
    local p = with_file(pytorch{ policy = "OnFailure" })
    local code, out = convert(p, "--to", "trainer-2.3")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    local c2, out2, e2 = convert(p, "--to", "trainer-2.3", "--lossy")
    assert.are.equal(0, c2, e2)
    assert.are.equal('"TrainJob"', yqs(out2, "d[0]['kind']"))
    assert.is_truthy(e2:find("restart", 1, true), e2)
    assert.is_truthy(e2:find("R13", 1, true), e2)
  end)

  it("backoffLimit and ttlSecondsAfterFinished dropped on the way to Trainer are printed on stderr (no --lossy)", function()
    local p = with_file(pytorch{ run_policy = "    backoffLimit: 3\n    ttlSecondsAfterFinished: 600\n" })
    local _, out, err = convert(p, "--to", "trainer-2.3")
    assert.is_truthy(err:find("backoff", 1, true), "stderr: " .. err)
    assert.is_truthy(err:lower():find("ttl", 1, true), "stderr: " .. err)
    local c2, out2, e2 = convert(p, "--to", "trainer-2.3", "--lossy")
    assert.are.equal(0, c2, e2)
    assert.is_truthy(e2:find("backoff", 1, true), e2)
    assert.is_truthy(e2:lower():find("ttl", 1, true), e2)
    assert.is_nil(out2:find("backoffLimit", 1, true))
    assert.is_nil(out2:find("ttlSecondsAfterFinished", 1, true))
    assert.is_truthy(out == "" or out:find("TrainJob", 1, true))
  end)

  it("different images per group on a TrainJob stay an error under --lossy", function()
    local p = with_file(pytorch{ master_image = "registry.example/other:2" })
    local code, out = convert(p, "--to", "trainer-2.3", "--lossy")
    assert.are.equal(1, code)
    assert.are.equal("", out)
  end)

  it("different commands per group on a TrainJob stay an error under --lossy", function()
    local p = with_file(pytorch{ master_cmd = "[python, master.py]" })
    local code, out = convert(p, "--to", "trainer-2.3", "--lossy")
    assert.are.equal(1, code)
    assert.are.equal("", out)
  end)

  it("different pod templates per group on a TrainJob stay an error under --lossy", function()
    local text = pytorch{}
    local n = 0
    text = text:gsub("        spec:\n          containers:", function()
      n = n + 1
      return ("        spec:\n          nodeSelector:\n            pool: %s\n          containers:"):format(n == 1 and "cpu" or "gpu")
    end)
    local code, out = convert(with_file(text), "--to", "trainer-2.3", "--lossy")
    assert.are.equal(1, code)
    assert.are.equal("", out)
  end)

  it("--lossy never gives a TFJob's PS the workers' args", function()
    local text = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: dist-mnist
spec:
  tfReplicaSpecs:
    PS:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: tensorflow
            image: kubeflow/tf-dist-mnist-test:latest
            args: [--role=ps]
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: tensorflow
            image: kubeflow/tf-dist-mnist-test:latest
            args: [--role=worker]
]]
    local code, out, err = convert(with_file(text), "--to", "flyte", "--lossy", "-f", "manifest")
    if code == 0 then
      local ps = yqs(out, "(d[0]['spec']['tfReplicaSpecs'].get('PS') or {}).get('template', {}).get('spec', {})"
        .. ".get('containers', [{}])[0].get('args')")
      assert.is_nil(ps:find("--role=worker", 1, true), "PS got the workers' args: " .. ps)
    else
      assert.are.equal(1, code, err)
    end
  end)

  it("--lossy never leaves a v1 MPI launcher running `-np 4 ...` without mpirun", function()
    local text = [[
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata:
  name: np
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - image: registry.example/mpi:1
            name: mpi
            command: [mpirun]
            args: [-np, "4", --allow-run-as-root, python, train.py]
    Worker:
      replicas: 4
      template:
        spec:
          containers:
          - image: registry.example/mpi:1
            name: mpi
]]
    local p = with_file(text)
    round_trip(p, "operator")
    for _, t in ipairs{ "flyte", "mpi-operator" } do
      local code, out, err = convert(p, "--to", t, "--lossy", "-f", "manifest")
      if code == 0 then
        local line = yqs(out, "[(c.get('command') or []) + (c.get('args') or []) for c in "
          .. "[d[0]['spec']['mpiReplicaSpecs']['Launcher']['template']['spec']['containers'][0]]][0]")
        assert.is_truthy(line:find('^%["mpirun"') or line:find('"mpirun"', 1, true), t .. ": " .. line)
      else
        assert.are.equal(1, code, err)
      end
    end
  end)
end)

describe("issue 42: messages in the user's words", function()
  it("a manifest given to render, check or env says: this is a Kubernetes manifest: use kfjob convert", function()
    local p = os.tmpname() .. ".yaml"
    local f = assert(io.open(p, "wb")); f:write(pytorch{}); f:close()
    for _, cmd in ipairs{ { "render", p, "-f", "manifest" }, { "check", p }, { "env", p } } do
      local code, _, err = util.kfjob((table.unpack or unpack)(cmd))
      assert.is_not.equal(0, code)
      assert.is_truthy(err:find("this is a Kubernetes manifest", 1, true), cmd[1] .. ": " .. err)
      assert.is_truthy(err:find("use kfjob convert", 1, true), cmd[1] .. ": " .. err)
    end
  end)

  -- a file without an extension is a Lua config to render, unless it is no Lua
  -- and opens like a manifest
  it("the same for a manifest file whose name has no .yaml extension (it starts with apiVersion:)", function()
    local p = with_file(pytorch{})
    for _, cmd in ipairs{ { "render", p, "-f", "manifest" }, { "check", p }, { "env", p } } do
      local code, _, err = util.kfjob((table.unpack or unpack)(cmd))
      assert.is_not.equal(0, code)
      assert.is_truthy(err:find("this is a Kubernetes manifest", 1, true), cmd[1] .. ": " .. err)
      assert.is_truthy(err:find("use kfjob convert", 1, true), cmd[1] .. ": " .. err)
    end
  end)

  it("a wrong container name on a training-operator kind says rename to the kind's name (TFJob)", function()
    local text = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: tfx
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: main
            image: kubeflow/tf-dist-mnist-test:latest
]]
    local p = with_file(text)
    local code, _, err = convert(p)
    assert.are.equal(1, code)
    assert.is_truthy(err:find(p, 1, true), err)
    assert.is_truthy(err:find("rename the container to `tensorflow`", 1, true)
      or (err:lower():find("rename", 1, true) and err:find("tensorflow", 1, true)), err)
  end)
end)
