-- Canary fields (issue 40): a build configured with -DKFJOB_CANARY_FIELDS=ON
-- has one field per place of the core's places table (KF_PLACES), each
-- added as the checklist adds a field: its member and its row, in one file
-- (src/core/schema/kf_canary.h).  This spec follows each canary through
-- every output its place has on every target and checks that a target
-- without the place refuses it with the place's rule.  The expected paths
-- are where Kubernetes and the operators keep the place (kubeflow common
-- ReplicaSpec, a PodTemplateSpec's spec and containers, RunPolicy,
-- ElasticPolicy, the mpi-operator's MPIJobSpec, Trainer's TrainJob trainer
-- and runtime patches, a JobSet's replicated job), not kfjob's output.
--
-- Run by scripts/test.d/07-canary.sh on build-canary/; in any other build
-- every case is pending.
local kfjob = require "kfjob"
local util = require "spec.util"

local rows = kfjob.fields("PyTorchJob")
local CANARY = rows.worker and rows.worker.fields and rows.worker.fields.canary_pod ~= nil

-- Where each place is, in Kubernetes' terms, per target ("[0]": a list's
-- first item).  A group place's path is under the group's replica spec on
-- the kubeflow.org/v1 and mpi-operator targets; Trainer's node job and the
-- JobSet's one replicated job hold one value for every group.
local TRAINER_POD = "spec.runtimePatches[0].trainingRuntimeSpec.template.spec"
                    .. ".replicatedJobs[0].template.spec.template.spec"
local JOBSET_POD = "spec.replicatedJobs[0].template.spec.template.spec"

-- kind per target a canary is tried on: PyTorchJob everywhere but the
-- mpi-operator (MPIJob); the Elastic and mpi-operator canaries their kinds
local function kind_on(t) return t == "mpi-operator" and "MPIJob" or "PyTorchJob" end
local ALL = { "operator", "flyte", "flyte2", "mpi-operator", "trainer-2.2", "trainer-2.3",
              "trainer-2.4", "flyte2-clustered" }

local function specs(kind) return kind == "MPIJob" and "mpiReplicaSpecs" or "pytorchReplicaSpecs" end

-- Each canary: its key (group rows: in every group), its place, a value,
-- the expected path per target that carries it (a function of the kind
-- for group places) and the targets that refuse it with their rule.
local CANARIES = {
  { key = "canary_replica", group = true, place = "replica_spec", value = "r1",
    -- kubeflow common ReplicaSpec: keys beside replicas and restartPolicy
    path = { operator = function(k) return "spec." .. specs(k) .. ".Worker.canaryReplica" end,
             ["mpi-operator"] = function(k) return "spec." .. specs(k) .. ".Worker.canaryReplica" end },
    refused = { flyte = "flyte", flyte2 = "flyte", ["trainer-2.2"] = "place", ["trainer-2.3"] = "place",
                ["trainer-2.4"] = "place", ["flyte2-clustered"] = "place" } },
  { key = "canary_container", group = true, place = "container", value = "c1",
    -- the replica's PodTemplateSpec: spec.containers[0]; TrainJob: spec.trainer;
    -- JobSet: the replicated job's Job template's pod
    path = { operator = function(k) return "spec." .. specs(k) .. ".Worker.template.spec.containers[0].canaryContainer" end,
             ["mpi-operator"] = function(k) return "spec." .. specs(k) .. ".Worker.template.spec.containers[0].canaryContainer" end,
             ["trainer-2.2"] = "spec.trainer.canaryContainer", ["trainer-2.3"] = "spec.trainer.canaryContainer",
             ["trainer-2.4"] = "spec.trainer.canaryContainer",
             ["flyte2-clustered"] = JOBSET_POD .. ".containers[0].canaryContainer" },
    refused = { flyte = "flyte", flyte2 = "flyte" } },
  { key = "canary_pod", group = true, place = "pod_spec", value = "p1",
    -- the replica's PodTemplateSpec spec (a PodSpec); Trainer: the runtime
    -- patch of the node job's pod (trainjob_types.go RuntimePatch); JobSet:
    -- the replicated job's pod
    path = { operator = function(k) return "spec." .. specs(k) .. ".Worker.template.spec.canaryPod" end,
             ["mpi-operator"] = function(k) return "spec." .. specs(k) .. ".Worker.template.spec.canaryPod" end,
             ["trainer-2.2"] = TRAINER_POD .. ".canaryPod", ["trainer-2.3"] = TRAINER_POD .. ".canaryPod",
             ["trainer-2.4"] = TRAINER_POD .. ".canaryPod", ["flyte2-clustered"] = JOBSET_POD .. ".canaryPod" },
    refused = { flyte = "flyte", flyte2 = "flyte" } },
  { key = "canary_run_policy", under = "run_policy", place = "run_policy", value = 7,
    -- kubeflow common RunPolicy: spec.runPolicy (operator, mpi-operator v2beta1)
    path = { operator = "spec.runPolicy.canaryRunPolicy", ["mpi-operator"] = "spec.runPolicy.canaryRunPolicy" },
    refused = { flyte = "flyte", flyte2 = "flyte", ["trainer-2.2"] = "place", ["trainer-2.3"] = "place",
                ["trainer-2.4"] = "place", ["flyte2-clustered"] = "place" } },
  { key = "canary_metadata", place = "metadata", value = "md1",
    -- ObjectMeta: every resource's metadata
    path = { operator = "metadata.canaryMetadata", ["mpi-operator"] = "metadata.canaryMetadata",
             ["trainer-2.2"] = "metadata.canaryMetadata", ["trainer-2.3"] = "metadata.canaryMetadata",
             ["trainer-2.4"] = "metadata.canaryMetadata", ["flyte2-clustered"] = "metadata.canaryMetadata" },
    refused = { flyte = "flyte", flyte2 = "flyte" } },
  { key = "canary_elastic", kind = "Elastic", place = "elastic_policy", value = "e1",
    -- pytorchjob_types.go: PyTorchJobSpec.ElasticPolicy
    path = { operator = "spec.elasticPolicy.canaryElastic" },
    refused = { flyte = "flyte", flyte2 = "flyte", ["trainer-2.2"] = "place", ["trainer-2.3"] = "place",
                ["trainer-2.4"] = "place", ["flyte2-clustered"] = "place" } },
  { key = "canary_mpi_spec", kind = "MPIJob", place = "mpi_job_spec", value = "m1",
    -- mpi_job_types.go: MPIJobSpec, beside sshAuthMountPath
    path = { ["mpi-operator"] = "spec.canaryMpiSpec" },
    refused = { operator = "place", flyte = "place", flyte2 = "place" } },
  -- the TaskTemplate's container: flyteidl core.Container (tasks.proto), a
  -- fixed message, so no new row can have a field in it; a manifest has no
  -- task container.  The canary, no field of core.Container, is refused
  -- with the place's rule everywhere, where the place is (Flyte's targets,
  -- `message`) and where it is not.
  { key = "canary_task_container", under = "container", place = "task_container", value = "t1",
    message = { flyte = "container", flyte2 = "container" },
    path = {},
    refused = { operator = "place", flyte = "place", flyte2 = "place", ["mpi-operator"] = "place",
                ["trainer-2.2"] = "place", ["trainer-2.3"] = "place", ["trainer-2.4"] = "place",
                ["flyte2-clustered"] = "place" } },
}

-- The canary's kind on target t.
local function kind_of(c, t) return c.kind or kind_on(t) end

local function runs(kind, t)
  for _, x in ipairs(kfjob.targets()) do
    if x.name == t then
      for _, k in ipairs(x.kinds or {}) do if k == kind then return true end end
      return x.kinds == nil
    end
  end
  return false
end

-- A job of `kind` that every target running it takes (a clustered task
-- takes the job's container image, the others each group's, which reads
-- back as given), with the canary set (value nil: without it).
local function job_of(c, kind, t, value)
  local spec
  if kind == "MPIJob" then
    spec = { launcher = { replicas = 1, image = "img:1" }, worker = { replicas = 2, image = "img:1" } }
  elseif kind == "Elastic" then
    spec = { nnodes = 2, worker = { image = "img:1" } }
  else
    spec = { master = { replicas = 1, image = "img:1" }, worker = { replicas = 2, image = "img:1" } }
  end
  if t == "flyte2-clustered" then
    for g, gs in pairs(spec) do if type(gs) == "table" then gs.image = nil; spec[g] = gs end end
    spec.container = { image = "img:1" }
  end
  if value ~= nil then
    if c.group then
      for _, gs in pairs(spec) do if type(gs) == "table" and gs ~= spec.container then gs[c.key] = value end end
    elseif c.under then
      spec[c.under] = spec[c.under] or {}
      spec[c.under][c.key] = value
    else
      spec[c.key] = value
    end
  end
  return kfjob[kind](spec)
end

local function path_on(c, t, kind)
  local p = c.path[t]
  if type(p) == "function" then p = p(kind) end
  return p
end

-- The value at a Kubernetes path ("spec.x[0].y") of a decoded manifest.
local function at(m, path)
  for key, index in path:gmatch("%.?([^.%[]*)%[?(%d*)%]?") do
    if key ~= "" then m = type(m) == "table" and m[key] or nil end
    if index ~= "" then m = type(m) == "table" and m[tonumber(index) + 1] or nil end
  end
  return m
end

-- The canary's value in a job's spec() (every group's for a group row).
local function values_in(c, spec)
  local out = {}
  if c.group then
    for g, gs in pairs(spec) do
      if type(gs) == "table" and gs[c.key] ~= nil then out[g] = gs[c.key] end
    end
  elseif c.under then
    out[c.under] = spec[c.under] and spec[c.under][c.key]
  else
    out.job = spec[c.key]
  end
  return out
end

local function each(fn)
  for _, c in ipairs(CANARIES) do
    for _, t in ipairs(ALL) do
      local kind = kind_of(c, t)
      if runs(kind, t) then fn(c, t, kind) end
    end
  end
end

if not CANARY then
  describe("canary fields (issue 40, -DKFJOB_CANARY_FIELDS=ON)", function()
    it("run in a canary build only", function()
      pending("not a canary build: configure with -DKFJOB_CANARY_FIELDS=ON "
              .. "(scripts/test.d/07-canary.sh builds build-canary/ and runs this spec)")
    end)
  end)
  return
end

describe("canary fields (issue 40, -DKFJOB_CANARY_FIELDS=ON)", function()
  it("has one canary per place rows can be placed in", function()
    local _, info = kfjob.fields("PyTorchJob")
    local seen = {}
    for _, c in ipairs(CANARIES) do
      assert.is_table(info.places[c.place], c.key .. ": place " .. c.place)
      seen[c.place] = true
    end
    -- resources: the resource table is one row per resource name (cpu,
    -- memory, ...), its places the two sides requests and limits
    for name in pairs(info.places) do
      if name ~= "resources" then assert.is_true(seen[name], "no canary of place " .. name) end
    end
  end)

  it("places each canary at its place's path per target (kfjob.fields places)", function()
    local _, info = kfjob.fields("PyTorchJob")
    for _, c in ipairs(CANARIES) do
      local p = info.places[c.place]
      for _, t in ipairs(ALL) do
        if c.path[t] and c.group then
          local want = path_on(c, t, kind_of(c, t))
          local got = p.path[t]
          -- on kubeflow.org/v1 and the mpi-operator: under the group's replica spec
          if got == "" or got:sub(1, 1) == "." then got = "spec." .. specs(kind_of(c, t)) .. ".Worker" .. got end
          assert.equal(want, got .. "." .. want:match("[^.]+$"), c.key .. " on " .. t)
        elseif c.path[t] then
          assert.equal(c.path[t], p.path[t] .. "." .. c.path[t]:match("[^.]+$"), c.key .. " on " .. t)
        elseif c.message and c.message[t] then
          -- a fixed message's place: there, but without a field for the canary
          assert.equal(c.message[t], p.path[t], c.key .. " on " .. t)
        else
          assert.is_truthy(p.path[t] == nil or c.refused[t] == "flyte", c.key .. " on " .. t)
        end
      end
    end
  end)

  it("writes each canary at its path in every manifest that has its place", function()
    local n = 0
    each(function(c, t, kind)
      local want = path_on(c, t, kind)
      if not want then return end
      local m = job_of(c, kind, t, c.value):manifest{ name = "canary", target = t }
      assert.equal(c.value, at(m, want), c.key .. " on " .. t .. " at " .. want)
      local without = job_of(c, kind, t, nil):manifest{ name = "canary", target = t }
      assert.is_nil(at(without, want), c.key .. " unset on " .. t)
      n = n + 1
    end)
    assert.is_true(n >= 16)
  end)

  it("refuses each canary, with its rule, where a target has no place for it", function()
    local _, info = kfjob.fields("PyTorchJob")
    local n = 0
    each(function(c, t, kind)
      local why = c.refused[t]
      if not why then return end
      local j = job_of(c, kind, t, c.value)
      local err = util.error_of(j.manifest, j, { name = "canary", target = t })
      assert.is_string(err, c.key .. " on " .. t .. " was not refused")
      assert.truthy(err:find(c.key, 1, true), err)
      assert.truthy(err:find("cannot be expressed", 1, true), err)
      local rule = why == "place" and info.places[c.place].rule or "plugin message"
      assert.truthy(err:find(rule, 1, true), c.key .. " on " .. t .. ": " .. err)
      -- kfjob check names the rule
      local found
      local ok, problems = j:check{ target = t }
      assert.is_falsy(ok)
      for _, p in ipairs(problems) do
        if p.rule == "R34" and p.path:find(c.key, 1, true) then found = true end
      end
      assert.is_true(found, c.key .. " on " .. t .. ": no R34 from check")
      n = n + 1
    end)
    assert.is_true(n >= 20)
  end)

  it("refuses the TaskTemplate container's canary in task_template, with the place's rule", function()
    local _, info = kfjob.fields("PyTorchJob")
    local j = kfjob.PyTorchJob{ worker = { replicas = 2 }, container = { image = "img:1", canary_task_container = "t1" } }
    local err = util.error_of(j.task_template, j)
    assert.is_string(err, "task_template took canary_task_container")
    assert.truthy(err:find("container.canary_task_container", 1, true), err)
    assert.truthy(err:find(info.places.task_container.rule, 1, true), err)
    -- the rows the place has are core.Container's fields: image, command, args, env
    local plain = kfjob.PyTorchJob{ worker = { replicas = 2 }, container = { image = "img:1" } }
    assert.is_string(plain:task_template())
  end)

  it("keeps a canary of a place every group shares the same on every group", function()
    for _, t in ipairs({ "trainer-2.3", "flyte2-clustered" }) do
      for _, key in ipairs({ "canary_pod", "canary_container" }) do
        local spec = { master = { replicas = 1, [key] = "a" }, worker = { replicas = 2, [key] = "b" },
                       container = { image = "img:1" } }
        local j = kfjob.PyTorchJob(spec)
        local err = util.error_of(j.manifest, j, { name = "canary", target = t })
        assert.truthy(err and err:find("worker." .. key, 1, true), tostring(err))
      end
    end
  end)

  it("writes a group canary given to one group where its place is per group", function()
    -- a group place under the replica spec (its v1/MPIJob path "" or
    -- starting ".") holds each group's own value: the replica spec itself
    -- (path "") included, not refused as one for every group
    for _, c in ipairs(CANARIES) do
      if c.group then
        for _, t in ipairs(ALL) do
          local kind = kind_of(c, t)
          local p = runs(kind, t) and path_on(c, t, kind)
          if p and t ~= "flyte2-clustered" and not t:find("^trainer") then
            local j = job_of(c, kind, t, nil):with{ ["worker." .. c.key] = c.value }
            local m = j:manifest{ name = "canary", target = t }
            assert.equal(c.value, at(m, p), c.key .. " of worker alone on " .. t)
            assert.is_true(kfjob.from_manifest(m) == j, c.key .. " of worker alone from " .. t)
          end
        end
      end
    end
  end)

  it("reads each canary back from every manifest that has its place", function()
    each(function(c, t, kind)
      if not path_on(c, t, kind) then return end
      local j = job_of(c, kind, t, c.value)
      local y = j:manifest{ name = "canary", target = t, format = "yaml" }
      local back = kfjob.from_manifest(y)
      if t ~= "flyte2-clustered" then
        assert.are.same(values_in(c, j:spec()), values_in(c, back:spec()), c.key .. " from " .. t)
        assert.is_true(back == j, c.key .. " from " .. t)
      else
        -- the JobSet's one replicated job reads back as a job of its pods'
        -- shape (Flyte 2's plugin): every group it gives has the value
        local got = values_in(c, back:spec())
        assert.is_not_nil(next(got), c.key .. " from " .. t)
        for g, v in pairs(got) do assert.equal(c.value, v, c.key .. " of " .. g .. " from " .. t) end
      end
    end)
  end)

  it("keeps each canary through to_lua and to_config", function()
    for _, c in ipairs(CANARIES) do
      local kind = kind_of(c, "operator")
      local t = runs(kind, "operator") and "operator" or "mpi-operator"
      local j = job_of(c, kind, t, c.value)
      local src = kfjob.to_lua(j)
      assert.truthy(src:find(c.key, 1, true), src)
      local back = assert(load(src, "=to_lua", "t", { require = require }))()
      assert.is_true(back.job == j, c.key .. ": to_lua")
      local cfg = kfjob.to_config(j).jobs.job
      assert.equal(kind, cfg.kind)
      cfg.kind = nil
      assert.is_true(kfjob[kind](cfg) == j, c.key .. ": to_config")
    end
  end)

  it("changes no pod's environment", function()
    each(function(c, t, kind)
      if not path_on(c, t, kind) then return end
      local with = job_of(c, kind, t, c.value):environment{ name = "canary", target = t }
      local without = job_of(c, kind, t, nil):environment{ name = "canary", target = t }
      assert.are.same(without, with, c.key .. " on " .. t)
    end)
  end)

  it("is in kfjob schema where its target can carry it, not where it cannot", function()
    each(function(c, t, kind)
      local s = kfjob.schema(kind, t)
      local has = s:find('"' .. c.key .. '"', 1, true) ~= nil
      assert.equal(c.path[t] ~= nil, has, c.key .. " in the schema of " .. kind .. " on " .. t)
    end)
    for _, c in ipairs(CANARIES) do
      assert.truthy(kfjob.schema(c.kind or "PyTorchJob"):find('"' .. c.key .. '"', 1, true), c.key)
    end
  end)

  it("is in kfjob meta's definitions", function()
    local m = kfjob.meta()
    for _, c in ipairs(CANARIES) do
      assert.truthy(m:find("---@field " .. c.key .. "? " .. (type(c.value) == "number" and "integer" or "string"), 1, true),
                    c.key)
    end
  end)

  it("is explained with its path per target (kfjob explain)", function()
    if not util.cli_ok then return end
    each(function(c, t, kind)
      local field = kind .. "." .. (c.group and ("worker." .. c.key) or c.under and (c.under .. "." .. c.key) or c.key)
      local code, out, err = util.kfjob("explain", field, "--target", t)
      assert.equal(0, code, err)
      local want = path_on(c, t, kind)
      if want then
        assert.truthy(out:find(want, 1, true), field .. " on " .. t .. ":\n" .. out)
      else
        assert.truthy(out:find("cannot be expressed (R34", 1, true), field .. " on " .. t .. ":\n" .. out)
      end
    end)
  end)
end)
