-- Reading back (SPEC §14 Decisions): which target a kubeflow.org/v1
-- manifest is (flyte only where it shows Flyte's own shape: the
-- safe-to-evict "false" annotation flyteplugins' pod_helper.go puts on
-- every pod, Flyte 2's enableServiceLinks: false), and scheduling (SPEC
-- §13) read from a hand-written manifest: Kueue's labels
-- (kueue pkg/controller/constants), runPolicy.suspend, managedBy and
-- schedulingPolicy (training-operator common_types.go).
local kfjob = require "kfjob"

local function reemit(j, info, fmt)
  local c = info.container or {}
  return j:manifest{ name = info.name, namespace = info.namespace, labels = info.labels,
                     annotations = info.annotations, image = c.image, command = c.command,
                     args = c.args, env = c.env, target = info.target, format = fmt }
end

describe("import: Flyte's own shape", function()
  local jobs = {
    pt = kfjob.PyTorchJob{ worker = { replicas = 2 } },
    tf = kfjob.TFJob{ worker = { replicas = 2 }, chief = { replicas = 1 } },
    elastic = kfjob.Elastic{ nnodes = "1:3" },
    mpi = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2 },   -- Flyte: slotsPerWorker 1, -np 4
    pod = kfjob.PyTorchJob{ worker = { replicas = 2 }, shared_memory = true,
                            pod_template = { spec = { containers = { { name = "primary",
                              env = { { name = "A", value = "1" } } } } } } },
    -- Flyte 2 puts a PyTorchJob's Kueue labels on its pods and the resource
    -- (#7833); Flyte 1.x refuses them (R30), so that pair is left out
    queue = kfjob.PyTorchJob{ worker = { replicas = 2 }, scheduling = { queue = "team-a" } },
    equeue = kfjob.Elastic{ nnodes = 2, scheduling = { queue = "team-a", priority_class = "high" } },
  }
  for name, J in pairs(jobs) do
    for _, t in ipairs { "flyte", "flyte2", "operator" } do
      if not (J:spec().scheduling and t == "flyte") then
      it(name .. " on " .. t .. " reads as " .. t .. " and re-emits the same bytes", function()
        local y = J:manifest{ name = "x", image = "img:1", target = t, format = "yaml", args = { "a" } }
        local j, info = kfjob.from_manifest(y)
        assert.is_table(info, info)
        assert.equal(t, info.target)
        assert.equal(y, reemit(j, info, "yaml"))
      end)
      end
    end
  end

  it("Flyte's MPIJob gives its slots back from mpirun's -np", function()
    local y = jobs.mpi:manifest{ name = "x", image = "img:1", target = "flyte", args = { "a" } }
    assert.equal(1, y.spec.slotsPerWorker)
    assert.equal(2, kfjob.from_manifest(y):spec().slots)
  end)

  it("a template that only some replicas annotate is the operator's", function()
    local m = jobs.pt:manifest{ name = "x", image = "img:1", target = "flyte", args = { "a" } }
    m.spec.pytorchReplicaSpecs.Master.template.metadata = nil
    local _, info = kfjob.from_manifest(m, { lossy = true })
    assert.equal("operator", info.target)
  end)
end)

describe("import: scheduling of a hand-written manifest", function()
  local M = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert
  labels:
    kueue.x-k8s.io/queue-name: team-a
    kueue.x-k8s.io/priority-class: high
    team: ml
spec:
  runPolicy:
    suspend: true
    managedBy: kueue.x-k8s.io/multikueue
    schedulingPolicy:
      minAvailable: 4
      queue: training
      minResources:
        cpu: "8"
        nvidia.com/gpu: "4"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        metadata:
          labels:
            team: ml
        spec:
          containers:
          - name: pytorch
            image: img:1
    Worker:
      replicas: 3
      restartPolicy: Never
      template:
        metadata:
          labels:
            team: ml
        spec:
          containers:
          - name: pytorch
            image: img:1
]]

  it("reads Kueue's labels, suspend, managedBy and the gang policy into scheduling", function()
    local j, info = kfjob.from_manifest(M)
    assert.is_table(info, info)
    assert.is_true(j == kfjob.PyTorchJob{ worker = { replicas = 3, image = "img:1" }, master = { image = "img:1" },
                                          labels = { team = "ml" },   -- the resource's other labels
                                          -- every pod's labels: the pod template's
                                          pod_template = { metadata = { labels = { team = "ml" } } },
                                          scheduling = {
      queue = "team-a", priority_class = "high", suspend = true, multikueue = true,
      gang = { min_available = 4, queue = "training", min_resources = { cpu = 8, gpu = 4 } } } })
    assert.same({ team = "ml" }, info.labels)
    assert.same({}, info.unmapped)
  end)

  it("a Kueue label the pod templates repeat is still the resource's queue; the pods keep their copies", function()
    -- Kueue takes the queue from the job's own labels (jobframework
    -- QueueName); the pods' copies of it are harmless and stay theirs
    -- (Law 3: every field of the manifest present), another value is refused
    local m = M:gsub("          labels:\n            team: ml\n",
                     "          labels:\n            kueue.x-k8s.io/queue-name: team-a\n            team: ml\n")
    local j, info = kfjob.from_manifest(m)
    assert.is_nil(info.labels["kueue.x-k8s.io/queue-name"])
    assert.equal("team-a", j:spec().scheduling.queue)
    assert.same({ ["kueue.x-k8s.io/queue-name"] = "team-a", team = "ml" }, j:spec().pod_template.metadata.labels)
    assert.is_nil(table.concat(info.ignored or {}, " "):find("queue-name", 1, true))
    local j2, err = kfjob.from_manifest((m:gsub("queue%-name: team%-a\n            team", "queue-name: team-b\n            team")))
    assert.is_nil(j2)
    assert.matches('template.metadata.labels["kueue.x-k8s.io/queue-name"]: a Kueue label on a pod template', err, 1, true)
  end)

  it("another managedBy is listed, the controllers' own is no setting", function()
    local _, info = kfjob.from_manifest((M:gsub("kueue%.x%-k8s%.io/multikueue", "example.com/mine")), { lossy = true })
    assert.same({ { path = "spec.runPolicy.managedBy", value = "example.com/mine",
                    reason = "kfjob sets managedBy only for MultiKueue (kueue.x-k8s.io/multikueue)" } },
                info.unmapped)
    local j = kfjob.from_manifest((M:gsub("kueue%.x%-k8s%.io/multikueue", "kubeflow.org/training-operator")))
    assert.is_nil(j:spec().scheduling.multikueue)
  end)
end)
