-- Reading and migrating a manifest names the manifest's own paths (its
-- keys, list items counted from 0), whatever refuses it: the reader, a
-- constructor row, a target rule, the writer's own check.  Faults a
-- black-box trial found; each expected path is where the value is in the
-- input written here, never what kfjob printed.
local kfjob = require "kfjob"
local util = require "util"

-- the Master's and the Workers' replica specs alike
local function replica(role, n)
  return ([[
    %s:
      replicas: %d
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            imagePullPolicy: Always
            command: ["torchrun", "train.py"]
            env:
            - name: A
              value: "1"
            - name: TOKEN
              valueFrom: {secretKeyRef: {name: s, key: k}}
          - name: logger
            image: log:1
]]):format(role, n)
end
local PT = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: paths
spec:
  runPolicy:
    cleanPodPolicy: None
    schedulingPolicy:
      minAvailable: 3
  pytorchReplicaSpecs:
]] .. replica("Master", 1) .. replica("Worker", 2)

local function read_error(doc)
  local j, err = kfjob.from_manifest(doc)
  assert.is_nil(j)
  return err
end

describe("a constructor row a manifest gives badly is named at its manifest path", function()
  it("a run policy's enum", function()
    local err = read_error(PT:gsub("cleanPodPolicy: None", "cleanPodPolicy: Runing"))
    assert.matches("spec.runPolicy.cleanPodPolicy: unknown clean pod policy 'Runing'", err, 1, true)
    assert.not_matches("run_policy.clean_pod_policy", err, 1, true)
  end)

  it("a run policy's number", function()
    local err = read_error(PT:gsub("cleanPodPolicy: None", "cleanPodPolicy: None\n    backoffLimit: -1"))
    assert.matches("spec.runPolicy.backoffLimit: must be >= 0", err, 1, true)
  end)

  it("a gang field", function()
    local err = read_error(PT:gsub("minAvailable: 3", "minAvailable: -1"))
    assert.matches("spec.runPolicy.schedulingPolicy.minAvailable: must be >= 1", err, 1, true)
  end)

  it("a TrainJob's deadline is its spec's own", function()
    local err = read_error([[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj}
spec:
  activeDeadlineSeconds: -1
  runtimeRef: {name: torch-distributed}
  trainer: {image: img:1, numNodes: 2, command: [torchrun, train.py]}
]])
    assert.matches("spec.activeDeadlineSeconds: must be >= 0", err, 1, true)
  end)
end)

describe("a container named twice in a replica's template", function()
  it("is refused at the second name, before the main container is picked", function()
    local doc = PT:gsub("(Worker:.-)name: logger", "%1name: pytorch")
    local err = read_error(doc)
    assert.matches("spec.pytorchReplicaSpecs.Worker.template.spec.containers[1].name: duplicate "
                   .. "(the same as item [0])", err, 1, true)
  end)
end)

describe("a volume the groups name alike and define differently", function()
  local function vols(master_claim, worker_claim, worker_mounts)
    return ([[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: shards}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            volumeMounts:
            - {name: data, mountPath: /data}
          volumes:
          - name: data
            persistentVolumeClaim: {claimName: %s}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            volumeMounts:
%s
          volumes:
          - name: data
            persistentVolumeClaim: {claimName: %s}
]]):format(master_claim, worker_mounts or "            - {name: data, mountPath: /data}", worker_claim)
  end

  it("reads, and each group's pods keep their own volume and its mount", function()
    local j = assert(kfjob.from_manifest(vols("data-master", "data-worker")))
    local m = j:manifest{ name = "shards", target = "operator" }
    for role, claim in pairs{ Master = "data-master", Worker = "data-worker" } do
      local spec = m.spec.pytorchReplicaSpecs[role].template.spec
      assert.equal(claim, spec.volumes[1].persistentVolumeClaim.claimName)
      assert.equal("data", spec.containers[1].volumeMounts[1].name)
      assert.equal("/data", spec.containers[1].volumeMounts[1].mountPath)
    end
  end)

  it("a mount of no volume in one group is named there, at its own item", function()
    local err = read_error(vols("a", "b", "            - {name: data, mountPath: /data}\n"
                                         .. "            - {name: nosuch, mountPath: /x}"))
    assert.matches('spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].volumeMounts[1].name: '
                   .. 'Not found: "nosuch"', err, 1, true)
  end)
end)

describe("a TFJob's spec fields written as their defaults", function()
  it("read as left out, listed in info.ignored", function()
    local j, info = kfjob.from_manifest([[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: tf}
spec:
  successPolicy: ""
  enableDynamicWorker: false
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - {name: tensorflow, image: img:1}
]])
    assert.truthy(j, info)
    local ignored = {}
    for _, p in ipairs(info.ignored) do ignored[p] = true end
    assert.is_true(ignored["spec.successPolicy"])
    assert.is_true(ignored["spec.enableDynamicWorker"])
    assert.equal(0, #info.unmapped)
  end)

  it("another value is still one kfjob cannot hold", function()
    local _, info = kfjob.from_manifest([[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: tf}
spec:
  successPolicy: AllWorkers
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - {name: tensorflow, image: img:1}
]], { lossy = true })
    assert.equal("spec.successPolicy", info.unmapped[1].path)
  end)
end)

describe("kfjob convert names the manifest's paths in what a target refuses", function()
  if not util.cli_ok then pending(util.cli_why()) return end

  it("--to trainer-2.3: restart policies, a container field, a sidecar, a gang field", function()
    local code, out, err = util.conv(PT, "--to", "trainer-2.3")
    assert.equal(1, code)
    assert.equal("", out)
    for _, want in ipairs{
      "spec.pytorchReplicaSpecs.Master.restartPolicy: 'on_failure' cannot be expressed",
      "spec.pytorchReplicaSpecs.Worker.restartPolicy: 'on_failure' cannot be expressed",
      -- the first replica (the manifest's order) that holds it
      "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].imagePullPolicy: cannot be expressed",
      "spec.pytorchReplicaSpecs.Master.template.spec.containers[1]: cannot be expressed",
      "spec.runPolicy.schedulingPolicy.minAvailable: cannot be expressed",
    } do
      assert.matches(want, err, 1, true)
    end
    assert.not_matches("restart_policy", err, 1, true)
    assert.not_matches("pod_template", err, 1, true)
  end)

  it("--to flyte: an env item is counted from 0", function()
    local _, _, err = util.conv(PT, "--to", "flyte")
    assert.matches("spec.pytorchReplicaSpecs.Master.template.spec.containers[0].env[1].valueFrom: "
                   .. "cannot be expressed", err, 1, true)
  end)

  it("a fractional GPU: the container's resources, once for a TrainJob's one node", function()
    local doc = PT:gsub("imagePullPolicy: Always", 'resources: {limits: {nvidia.com/gpu: "500m"}}')
    local code, _, err = util.conv(doc)
    assert.equal(1, code)
    -- a key with dots quoted, as the reader's own errors quote it
    assert.matches('spec.pytorchReplicaSpecs.Master.template.spec.containers[0].resources.limits'
                   .. '["nvidia.com/gpu"]: \'500m\' is not a whole number', err, 1, true)
    code, _, err = util.conv([[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    image: img:1
    numNodes: 2
    command: [torchrun, train.py]
    resourcesPerNode: {limits: {nvidia.com/gpu: "500m"}}
]])
    assert.equal(1, code)
    local _, n = err:gsub('spec%.trainer%.resourcesPerNode%.limits%["nvidia%.com/gpu"%]: \'500m\' is not', "")
    assert.equal(1, n, err)
  end)

  it("a GPU request unlike its limit: the writer's check, at the request", function()
    local doc = PT:gsub("(Worker:.-)imagePullPolicy: Always",
                        "%1resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 2}}")
    local code, _, err = util.conv(doc)
    assert.equal(1, code)
    assert.matches('spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.requests'
                   .. '["nvidia.com/gpu"]: 1 differs from limits.gpu 2', err, 1, true)
  end)

  it("an mpi-operator field on the training-operator: the spec's own key", function()
    local code, _, err = util.conv([[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: mpi}
spec:
  slotsPerWorker: 1
  sshAuthMountPath: /home/mpiuser/.ssh
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - {name: launcher, image: img:1, command: [mpirun, python, train.py]}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - {name: worker, image: img:1}
]], "--to", "operator")
    assert.equal(1, code)
    assert.matches("spec.sshAuthMountPath: an mpi-operator", err, 1, true)
  end)
end)

-- The training-operator reaches each pod through a headless Service
-- <job>-<role>-<i> (common/service.go); a TrainJob's pods are
-- <job>-node-0-<i>.<job> (Trainer torch.go PET_MASTER_ADDR).  A command
-- migrated with one of the other system's names does not resolve (R61).
describe("R61: the other system's host names in a migrated command", function()
  local WO = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: ddp}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: [torchrun, --nnodes=2, --rdzv-backend=c10d, --rdzv-endpoint=ddp-worker-0:23456, train.py]
]]

  it("job:lint warns on Trainer, naming the item; not on the operator", function()
    local j = assert(kfjob.from_manifest(WO))
    local found
    for _, w in ipairs(j:lint{ target = "trainer-2.3", name = "ddp" }) do
      if w.rule == "R61" then found = w end
    end
    assert.truthy(found)
    assert.equal("container.command", found.path)   -- every group runs the job's
    assert.matches("'ddp-worker-0' is a host of the training-operator", found.message, 1, true)
    for _, w in ipairs(j:lint{ target = "operator", name = "ddp" }) do assert.not_equal("R61", w.rule) end
    -- another job's name is not this job's Service
    for _, w in ipairs(j:lint{ target = "trainer-2.3", name = "dd" }) do assert.not_equal("R61", w.rule) end
  end)

  it("a TrainJob's node host on the operator", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 2, image = "img:1" },
                                container = { command = { "torchrun", "--rdzv-endpoint=tj-node-0-0.tj:29500", "t.py" } } }
    local found
    for _, w in ipairs(j:lint{ target = "operator", name = "tj" }) do
      if w.rule == "R61" then found = w end
    end
    assert.truthy(found)
    assert.matches("'tj-node-0-0' is a host of the TrainJob's JobSet", found.message, 1, true)
  end)

  if not util.cli_ok then return end
  it("kfjob convert --to trainer-2.3 prints it at the manifest's item, exit 0", function()
    local code, out, err = util.conv(WO, "--to", "trainer-2.3")
    assert.equal(0, code, err)
    assert.truthy(out:find("kind: TrainJob", 1, true))
    assert.matches("spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].command[3]: "
                   .. "'ddp-worker-0' is a host of the training-operator", err, 1, true)
  end)
end)

-- A regression trial's cases: each path is where the value is in the input.
describe("more manifest paths: job rows of their own, the gang's queue, a quoted resource", function()
  local function err_of(doc) local j, e = kfjob.from_manifest(doc) assert.is_nil(j) return e end
  it("an mpi-operator MPIJob's slotsPerWorker, an elastic policy's nProcPerNode", function()
    assert.matches("spec.slotsPerWorker: must be >= 1", err_of([[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: m}
spec:
  slotsPerWorker: 0
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template: {spec: {containers: [{name: l, image: i, command: [mpirun, a]}]}}
    Worker:
      replicas: 1
      template: {spec: {containers: [{name: w, image: i}]}}
]]), 1, true)
    assert.matches("spec.elasticPolicy.nProcPerNode: must be >= 1", err_of([[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: e}
spec:
  elasticPolicy: {minReplicas: 1, maxReplicas: 2, nProcPerNode: 0}
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template: {spec: {containers: [{name: pytorch, image: i}]}}
]]), 1, true)
  end)
  it("the gang's queue; an extended resource's quoted key", function()
    assert.matches("spec.runPolicy.schedulingPolicy.queue: ",
                   err_of(PT:gsub("minAvailable: 3", 'minAvailable: 3\n      queue: "Q Q"')), 1, true)
    assert.matches('spec.pytorchReplicaSpecs.Master.template.spec.containers[0].resources.limits'
                   .. '["amd.com/gpu"]: \'500m\' must be an integer',
                   err_of(PT:gsub("imagePullPolicy: Always", 'resources: {limits: {amd.com/gpu: "500m"}}', 1)),
                   1, true)
  end)
  it("an init container named as a container", function()
    local doc = PT:gsub("(Worker:.-)(          containers:)", "%1          initContainers:\n"
                   .. "          - {name: pytorch, image: x:1}\n%2", 1)
    assert.matches("spec.pytorchReplicaSpecs.Worker.template.spec.initContainers[0].name: "
                   .. 'Duplicate value: "pytorch"', err_of(doc), 1, true)
  end)
  it("a sidecar's GPU is whole as Kubernetes counts it (MilliValue() % 1000)", function()
    local doc = PT:gsub("image: log:1", 'image: log:1\n            resources: {limits: {nvidia.com/gpu: "999999999n"}}')
    assert.truthy(kfjob.from_manifest(doc))
  end)
end)

describe("R61 takes whole host labels, and names the rendezvous each runtime sets", function()
  local function r61(cmd, kind, t)
    local j = kfjob[kind or "PyTorchJob"]{ worker = { replicas = 2, image = "i:1" },
                                           container = { command = cmd } }
    local out = {}
    for _, w in ipairs(j:lint{ target = t or "trainer-2.3", name = "pt" }) do
      if w.rule == "R61" then out[#out + 1] = w.message end
    end
    return out
  end
  it("not another host that starts alike, nor a pod that never exists", function()
    for _, h in ipairs{ "pt-worker-0x.example.com", "pt-worker-0-foo", "pt-worker-01", "pt-master-1",
                        "xpt-worker-0" } do
      assert.same({}, r61{ "run", "--host=" .. h }, h)
    end
    assert.equal(1, #r61{ "run", "--host=pt-worker-1.pt.ns.svc:23456" })
  end)
  it("a JAXJob is told of JAX_COORDINATOR_ADDRESS", function()
    local m = r61({ "python", "--coord=pt-worker-0:6666" }, "JAXJob")
    assert.equal(1, #m)
    assert.matches("$(JAX_COORDINATOR_ADDRESS)", m[1], 1, true)
  end)
end)

describe("R20 on Trainer: activeDeadlineSeconds given as 0", function()
  it("warns: a TrainJob's is at least 1", function()
    local j = kfjob.JAXJob{ container = { image = "i:1" }, worker = { replicas = 2 },
                            run_policy = { active_deadline_seconds = 0 } }
    local found
    for _, w in ipairs(j:lint{ target = "trainer-2.3" }) do
      if w.rule == "R20" and w.path == "run_policy.active_deadline_seconds" then found = w end
    end
    assert.truthy(found)
  end)
end)
