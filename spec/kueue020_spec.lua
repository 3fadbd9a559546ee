-- Kueue v0.19/v0.20 (SPEC §18, FACTS §12.3): the kubeflow.org/v1
-- integrations are off in Kueue's default configuration since v0.19.0
-- (charts/kueue/values.yaml integrations.frameworks, kueue#12606); a pod
-- set's podset-slice-size must not be greater than its pod count and
-- podset-group-name takes exactly two pod sets, one of 1 replica, with
-- required or preferred and without slice annotations, not numeric
-- (pkg/controller/jobframework/tas_validation.go).
local kfjob = require "kfjob"
local util = require "util"

local GROUP = "kueue.x-k8s.io/podset-group-name"
local REQ = "kueue.x-k8s.io/podset-required-topology"

local function rules(list)
  local out = {}
  for _, p in ipairs(list or {}) do
    local id = p.rule or "lint"   -- lint's own warnings carry no rule
    out[id] = out[id] or {}
    table.insert(out[id], p)
  end
  return out
end

local function errors(job, target)
  local ok, errs = job:check{ target = target, name = "job" }
  if ok then return {} end
  return rules(errs)
end

describe("Kueue v0.19+: a queue on a kubeflow.org/v1 resource", function()
  local pt = kfjob.PyTorchJob{ master = {}, worker = { replicas = 2 }, scheduling = { queue = "team-a" } }

  it("warns on the operator target, naming the integration and the way out (R39)", function()
    local w = rules(pt:lint{ target = "operator" }).R39
    assert.is_truthy(w)
    assert.are.equal("scheduling.queue", w[1].path)
    assert.matches("stopped managing kubeflow.org/v1 jobs in v0.19", w[1].message, 1, true)
    assert.matches("kubeflow.org/pytorchjob", w[1].message, 1, true)
    assert.matches("enable it, or convert to a TrainJob", w[1].message, 1, true)
    assert.matches("values.yaml", w[1].source, 1, true)
  end)

  it("names each kind's integration", function()
    local tf = kfjob.TFJob{ worker = { replicas = 2 }, scheduling = { queue = "q" } }
    assert.matches("kubeflow.org/tfjob", rules(tf:lint{ target = "operator" }).R39[1].message, 1, true)
  end)

  it("is a warning, not an error, and only on operator", function()
    assert.is_true((pt:check{ target = "operator", name = "job" }))
    for _, t in ipairs({ "mpi-operator", "trainer-2.3", "trainer-2.4" }) do
      local job = t == "mpi-operator" and kfjob.MPIJob{ worker = { replicas = 2 }, scheduling = { queue = "q" } } or pt
      assert.is_nil(rules(job:lint{ target = t }).R39, t)
    end
  end)

  it("no queue, no warning", function()
    assert.is_nil(rules(kfjob.PyTorchJob{ master = {}, worker = { replicas = 2 } }:lint{ target = "operator" }).R39)
  end)
end)

describe("Kueue v0.20: slice size above the pod set count (R40)", function()
  it("a job-level slice_size must fit a PyTorchJob's one-pod master", function()
    local j = kfjob.PyTorchJob{ master = {}, worker = { replicas = 4 },
      scheduling = { topology = { required = "rack", slice_required = "host", slice_size = 2 } } }
    for _, t in ipairs({ "operator", "flyte", "flyte2" }) do
      local e = errors(j, t).R40
      assert.is_truthy(e, t)
      assert.are.equal("scheduling.topology.slice_size", e[1].path)
      assert.matches("2 is above the 1 pod of master's pod set", e[1].message, 1, true)
    end
  end)

  it("a TrainJob's node job is one pod set of master + workers", function()
    local j = kfjob.PyTorchJob{ master = {}, worker = { replicas = 3 },
      scheduling = { topology = { required = "rack", slice_required = "host", slice_size = 4 } } }
    assert.is_nil(errors(j, "trainer-2.4").R40)
    local big = j:with{ ["scheduling.topology.slice_size"] = 5 }
    local e = errors(big, "trainer-2.4").R40
    assert.matches("5 is above the 4 pods of the node job's pod set", e[1].message, 1, true)
  end)

  it("a group's own slice_size is checked against its own pods", function()
    local j = kfjob.TFJob{ worker = { replicas = 2, topology = { required = "rack", slice_required = "host",
                                                                  slice_size = 3 } } }
    local e = errors(j, "operator").R40
    assert.are.equal("worker.topology.slice_size", e[1].path)
    assert.is_nil(errors(j:with{ ["worker.topology.slice_size"] = 2 }, "operator").R40)
  end)

  it("an Elastic job's pod set is its node count", function()
    local j = kfjob.Elastic{ nnodes = 4, worker = {},
      scheduling = { topology = { required = "rack", slice_required = "host", slice_size = 4 } } }
    assert.is_nil(errors(j, "operator").R40)
    assert.is_truthy(errors(j:with{ nnodes = 2 }, "operator").R40)
  end)
end)

describe("Kueue: podset-group-name (topology.group)", function()
  local leader = kfjob.PyTorchJob{ master = {}, worker = { replicas = 3 },
    scheduling = { topology = { required = "rack", group = "ps" } } }

  it("is a field: spec(), == and every pod template's annotation", function()
    assert.are.same({ required = "rack", group = "ps" }, leader:spec().scheduling.topology)
    assert.is_true(kfjob.PyTorchJob(leader:spec()) == leader)
    local m = leader:manifest{ name = "job", image = "img:1" }
    for _, r in ipairs({ "Master", "Worker" }) do
      local an = m.spec.pytorchReplicaSpecs[r].template.metadata.annotations
      assert.are.equal("ps", an[GROUP])
      assert.are.equal("rack", an[REQ])
    end
  end)

  it("master (1 pod) + workers: exactly two pod sets, one of 1 replica: accepted", function()
    assert.is_nil(errors(leader, "operator").R41)
  end)

  it("one pod set, or a TrainJob's one node job, is refused (R41)", function()
    local tf = kfjob.TFJob{ worker = { replicas = 2 }, scheduling = { topology = { preferred = "rack", group = "g" } } }
    local e = errors(tf, "operator").R41
    assert.are.equal("scheduling.topology.group", e[1].path)
    assert.matches("'g' names 1 pod set", e[1].message, 1, true)
    assert.is_truthy(errors(leader, "trainer-2.4").R41)
  end)

  it("two pod sets of more than one pod each are refused", function()
    local tf = kfjob.TFJob{ worker = { replicas = 2 }, ps = { replicas = 2 },
      scheduling = { topology = { preferred = "rack", group = "g" } } }
    local e = errors(tf, "operator").R41
    assert.matches("2 pod sets of more than one pod each", e[1].message, 1, true)
  end)

  it("refuses a numeric name, a group without required/preferred, and slices with it", function()
    local function err(t)
      return util.error_of(kfjob.PyTorchJob, { master = {}, worker = { replicas = 1 }, scheduling = { topology = t } })
    end
    assert.matches("scheduling.topology.group: '42' is a number", err{ required = "rack", group = "42" }, 1, true)
    assert.matches("scheduling.topology.group: needs required or preferred", err{ group = "g" }, 1, true)
    assert.matches("scheduling.topology.group: cannot be combined with slice_required",
                   err{ required = "rack", group = "g", slice_required = "host", slice_size = 1 }, 1, true)
  end)

  it("a group's own name with the job's required level is fine", function()
    local j = kfjob.PyTorchJob{ master = { topology = { group = "g" } }, worker = { replicas = 2, topology = { group = "g" } },
      scheduling = { topology = { required = "rack" } } }
    assert.is_nil(errors(j, "operator").R41)
  end)

  it("reads back from the manifest and the TaskTemplate", function()
    local m = leader:manifest{ name = "job", image = "img:1", format = "yaml" }
    local back = kfjob.from_manifest(m)
    assert.are.same({ required = "rack", group = "ps" }, back:spec().scheduling.topology)
    local tt = leader:task_template{ target = "flyte" }
    assert.are.same({ required = "rack", group = "ps" }, kfjob.decode_task_template(tt):spec().scheduling.topology)
  end)
end)

describe("Kueue: multi-layer slice constraints (topology.slices)", function()
  local SLICES = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
  local S = { { level = "cloud.provider.com/block", size = 8 }, { level = "kubernetes.io/hostname", size = 2 } }
  local job = kfjob.TFJob{ worker = { replicas = 8 }, container = { image = "img:1" },
    scheduling = { topology = { required = "rack", slices = S } } }

  it("is a field: spec() and == keep the levels in order", function()
    assert.are.same(S, job:spec().scheduling.topology.slices)
    assert.is_true(kfjob.TFJob(job:spec()) == job)
  end)

  it("is the annotation's JSON array of {topology, size} on the pod template", function()
    local m = job:manifest{ name = "job" }
    local an = m.spec.tfReplicaSpecs.Worker.template.metadata.annotations
    assert.are.equal('[{"topology":"cloud.provider.com/block","size":8},'
                     .. '{"topology":"kubernetes.io/hostname","size":2}]', an[SLICES])
  end)

  it("reads back from the manifest and the TaskTemplate", function()
    local back = kfjob.from_manifest(job:manifest{ name = "job", format = "yaml" })
    assert.are.same(job:spec().scheduling, back:spec().scheduling)
    assert.is_true(kfjob.decode_task_template(job:task_template{}) == job)
  end)

  it("refuses 0 or more than 3 levels, a repeated level, a size not dividing the one above", function()
    local function err(sl)
      return util.error_of(kfjob.TFJob, { worker = { replicas = 8 },
        scheduling = { topology = { required = "rack", slices = sl } } })
    end
    assert.matches("scheduling.topology.slices: expected 1 to 3 levels", err{}, 1, true)
    assert.matches("scheduling.topology.slices: 4 levels: Kueue takes 1 to 3",
      err{ { level = "a", size = 8 }, { level = "b", size = 4 }, { level = "c", size = 2 }, { level = "d", size = 1 } },
      1, true)
    assert.matches("scheduling.topology.slices[2].level: given twice",
      err{ { level = "a", size = 4 }, { level = "a", size = 2 } }, 1, true)
    assert.matches("scheduling.topology.slices[2].size: 2 does not divide the level above's 3",
      err{ { level = "a", size = 3 }, { level = "b", size = 2 } }, 1, true)
    assert.matches("scheduling.topology.slices[1].size: expected an integer >= 1", err{ { level = "a", size = 0 } }, 1, true)
    assert.matches("scheduling.topology.slices[1].x: unknown field", err{ { level = "a", size = 1, x = 1 } }, 1, true)
  end)

  it("excludes slice_required, slice_size and group", function()
    local function err(t)
      return util.error_of(kfjob.TFJob, { worker = { replicas = 8 }, scheduling = { topology = t } })
    end
    assert.matches("slices: cannot be combined with slice_required",
      err{ required = "rack", slices = S, slice_required = "h", slice_size = 2 }, 1, true)
    assert.matches("group: cannot be combined with slices", err{ required = "rack", slices = S, group = "g" }, 1, true)
  end)

  it("the widest size must fit the pod set (R40)", function()
    local small = kfjob.TFJob{ worker = { replicas = 4 }, scheduling = { topology = { required = "rack", slices = S } } }
    local e = errors(small, "operator").R40
    assert.are.equal("scheduling.topology.slices[1].size", e[1].path)
    assert.matches("8 is above the 4 pods of worker's pod set", e[1].message, 1, true)
    assert.is_nil(errors(job, "operator").R40)
  end)
end)
