-- Places as one table: every place a group row's value is written to or
-- read from in a manifest is one row of the core's KF_PLACES
-- (src/core/schema/kf_schema.h).  Its name is the rows' `place` in
-- kfjob.fields, its path per target reaches kfjob.fields' second result
-- (`places`) and `kfjob explain` builds the manifest path from it.
local kfjob = require "kfjob"
local explain = require "kfjob.explain"

local TARGETS = {}
for _, t in ipairs(kfjob.targets()) do TARGETS[#TARGETS + 1] = t.name end

-- every placed row of every kind: { kind, group key, row key, place }
local function placed_rows()
  local out = {}
  for _, kind in ipairs(kfjob.kinds) do
    for gk, row in pairs((kfjob.fields(kind))) do
      for fk, f in pairs(row.group and row.fields or {}) do
        if f.place then out[#out + 1] = { kind, gk, fk, f.place } end
      end
    end
  end
  return out
end

describe("the places table (KF_PLACES) through kfjob.fields", function()
  it("gives every kind the same places, each with a path or a rule per target", function()
    local first
    for _, kind in ipairs(kfjob.kinds) do
      local _, info = kfjob.fields(kind)
      assert.is_table(info.places, kind)
      first = first or info.places
      assert.are.same(first, info.places)
    end
    local n = 0
    for name, p in pairs(first) do
      n = n + 1
      assert.is_string(p.reader, name)
      for _, t in ipairs(TARGETS) do
        assert.is_true(type(p.path[t]) == "string" or type(p.rule) == "string",
                       name .. " on " .. t .. ": neither a path nor the rule why not")
      end
    end
    assert.is_true(n >= 3)
  end)

  it("knows every place a row names, with a path on every kubeflow.org/v1 target", function()
    local _, info = kfjob.fields("PyTorchJob")
    local rows = placed_rows()
    assert.is_true(#rows > 0)
    for _, r in ipairs(rows) do
      local p = info.places[r[4]]
      assert.is_table(p, r[1] .. "." .. r[2] .. "." .. r[3] .. ": unknown place " .. r[4])
      for _, t in ipairs({ "operator", "flyte", "flyte2", "mpi-operator" }) do
        assert.is_string(p.path[t], r[4] .. " on " .. t)
      end
    end
  end)

  it("holds the places' paths as the resources define them", function()
    local _, info = kfjob.fields("PyTorchJob")
    local P = info.places
    -- kubeflow common ReplicaSpec: replicas and restartPolicy on the spec,
    -- the container in template (a PodTemplateSpec) spec.containers
    assert.equal("", P.replica_spec.path.operator)
    assert.equal(".template.spec.containers[0]", P.container.path.operator)
    assert.equal(".template.spec.containers[0].resources", P.resources.path.flyte)
    assert.equal(".template.spec.containers[0]", P.container.path["mpi-operator"])
    -- Trainer (trainjob_types.go): Trainer.image, Trainer.resourcesPerNode;
    -- no replica spec
    assert.equal("spec.trainer", P.container.path["trainer-2.3"])
    assert.equal("spec.trainer.resourcesPerNode", P.resources.path["trainer-2.4"])
    assert.is_nil(P.replica_spec.path["trainer-2.2"])
    assert.is_string(P.replica_spec.rule)
    -- the pod spec: the replica's PodTemplateSpec spec; a TrainJob's
    -- runtime patch of the node job's pod (trainjob_types.go RuntimePatch,
    -- TrainingRuntimeSpecPatch); a JobSet's replicated job's Job template pod
    assert.equal(".template.spec", P.pod_spec.path.operator)
    assert.equal(".template.spec", P.pod_spec.path["mpi-operator"])
    assert.equal("spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0]"
                 .. ".template.spec.template.spec", P.pod_spec.path["trainer-2.4"])
    assert.equal("spec.replicatedJobs[0].template.spec.template.spec",
                 P.pod_spec.path["flyte2-clustered"])
    -- every resource's ObjectMeta
    for _, t in ipairs(TARGETS) do assert.equal("metadata", P.metadata.path[t], t) end
  end)
end)

describe("kfjob explain: the manifest path from the places table", function()
  it("puts every placed row of every kind at its place's path", function()
    for _, r in ipairs(placed_rows()) do
      local rows, info = kfjob.fields(r[1])
      local path = "spec." .. info.replica_specs .. "." .. rows[r[2]].group
                   .. info.places[r[4]].path.operator
      local out = explain(r[1] .. "." .. r[2] .. "." .. r[3])
      local line = out:match("\n  manifest[^\n]*: (" .. path:gsub("%p", "%%%0") .. "[^\n]*)")
      if not rows[r[2]].fields[r[3]].not_on then
        assert.is_string(line, r[1] .. "." .. r[2] .. "." .. r[3] .. ": no " .. path .. " in\n" .. out)
      end
    end
  end)
end)

describe("a job place: the elastic policy", function()
  -- training-operator v1.9 pytorchjob_types.go ElasticPolicy's JSON keys
  local UPSTREAM = { minReplicas = true, maxReplicas = true, rdzvBackend = true, rdzvPort = true,
                     rdzvHost = true, rdzvId = true, rdzvConf = true, standalone = true,
                     nProcPerNode = true, maxRestarts = true, metrics = true }

  it("is a job place with the operator's path and none on the mpi-operator", function()
    local _, info = kfjob.fields("Elastic")
    local p = info.places.elastic_policy
    assert.is_false(p.group)
    assert.equal("spec.elasticPolicy", p.path.operator)
    assert.is_nil(p.path["mpi-operator"])
    assert.is_string(p.rule)
  end)

  it("writes each row placed there under its manifest key, from the rows", function()
    local rows = kfjob.fields("Elastic")
    local VALUES = { rdzv_host = "h", rdzv_port = 29400, rdzv_id = "x", standalone = true,
                     max_restarts = 3, rdzv_backend = "etcd",
                     rdzv_conf = { { key = "a", value = "b" } },
                     metrics = { { type = "Pods" } } }
    local n = 0
    for key, row in pairs(rows) do
      -- (a canary build's canary rows are canary_spec's: not upstream keys)
      if row.place == "elastic_policy" and not key:find("^canary_") then
        n = n + 1
        assert.is_true(UPSTREAM[row.manifest], key .. ": " .. tostring(row.manifest))
        assert.is_not_nil(VALUES[key], key .. ": no probe value")
        local job = kfjob.Elastic { nnodes = 2, [key] = VALUES[key] }
        local m = job:manifest { name = "p", image = "i:1", target = "operator", format = "json" }
        assert.truthy(m:find('"elasticPolicy":{[^}]*"' .. row.manifest .. '":'), key .. "\n" .. m)
      end
    end
    assert.is_true(n >= 7)
  end)
end)

describe("reading the elastic policy back by its place", function()
  local function doc(extra)
    return ([[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: job1}
spec:
  elasticPolicy: {minReplicas: 2, maxReplicas: 2, %s}
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template: {spec: {containers: [{name: pytorch, image: "i:1"}]}}
]]):format(extra)
  end

  -- pytorchjob_types.go: ElasticPolicy has no requests, limits or runPolicy;
  -- the API server drops such keys, so they ask nothing of the job
  it("refuses a job key that is no elasticPolicy key (requests, limits, runPolicy)", function()
    for key, extra in pairs({ requests = "requests: {cpu: '2'}", limits = "limits: {cpu: '2'}",
                              runPolicy = "runPolicy: {backoff_limit: 3}" }) do
      local job, err = kfjob.from_manifest(doc(extra))
      assert.is_nil(job, key)
      assert.matches("spec.elasticPolicy." .. key .. ": unknown field", err, 1, true)
    end
  end)

  it("reads every key of its rows", function()
    local job = assert(kfjob.from_manifest(doc(
        "rdzvBackend: etcd, maxRestarts: 3, nProcPerNode: 2, rdzvHost: h, rdzvPort: 29400, rdzvId: x, standalone: true")))
    local s = job:spec()
    assert.equal("etcd", s.rdzv_backend)
    assert.equal(3, s.max_restarts)
    assert.equal(2, s.nproc_per_node)
    assert.equal("h", s.rdzv_host)
    assert.equal(29400, s.rdzv_port)
    assert.equal("x", s.rdzv_id)
    assert.is_true(s.standalone)
  end)
end)

describe("a job place: the run policy", function()
  it("has kubeflow common's and the mpi-operator's path, none on Trainer", function()
    local rows, info = kfjob.fields("PyTorchJob")
    local p = info.places.run_policy
    assert.is_false(p.group)
    -- kubeflow common RunPolicy, json "runPolicy"; mpi-operator v2beta1 MPIJobSpec.RunPolicy
    assert.equal("spec.runPolicy", p.path.operator)
    assert.equal("spec.runPolicy", p.path["mpi-operator"])
    assert.is_nil(p.path["trainer-2.3"])
    for key, row in pairs(rows.run_policy.fields) do
      assert.equal("run_policy", row.place, key)
      assert.matches("\n  manifest[^\n]*: " .. p.path.operator:gsub("%p", "%%%0") .. "%." .. row.manifest .. "\n",
                     explain("PyTorchJob.run_policy." .. key))
    end
  end)
end)

describe("a job place: the mpi-operator's own spec fields", function()
  -- mpi-operator v2beta1 mpi_job_types.go MPIJobSpec JSON keys
  local UPSTREAM = { sshAuthMountPath = "/home/u/.ssh", mpiImplementation = "Intel",
                     runLauncherAsWorker = true, launcherCreationPolicy = "WaitForWorkersReady" }

  it("has a path on the mpi-operator alone and the rule elsewhere", function()
    local _, info = kfjob.fields("MPIJob")
    local p = info.places.mpi_job_spec
    assert.equal("spec", p.path["mpi-operator"])
    for _, t in ipairs(TARGETS) do
      if t ~= "mpi-operator" then assert.is_nil(p.path[t], t) end
    end
    assert.matches("R52", p.rule)
  end)

  it("writes each row placed there under spec on the mpi-operator, from the rows", function()
    local rows = kfjob.fields("MPIJob")
    local n = 0
    for key, row in pairs(rows) do
      if row.place == "mpi_job_spec" and not key:find("^canary_") then
        n = n + 1
        local v = UPSTREAM[row.manifest]
        assert.is_not_nil(v, key .. ": " .. tostring(row.manifest))
        local job = kfjob.MPIJob { worker = { replicas = 2 }, [key] = v }
        local m = job:manifest { name = "p", image = "i:1", target = "mpi-operator", format = "json" }
        assert.truthy(m:find('"spec":{.-"' .. row.manifest .. '":' .. (type(v) == "string" and '"' .. v .. '"' or tostring(v))),
                      key .. "\n" .. m)
        assert.has_error(function()
          job:manifest { name = "p", image = "i:1", target = "operator" }
        end)
      end
    end
    assert.equal(4, n)
  end)
end)

describe("the targets' resources: the places table's column each reads", function()
  -- what each target's controller takes: training-operator kinds
  -- (kubeflow.org/v1, also on Flyte's two backends), mpi-operator's MPIJob
  -- (kubeflow.org/v2beta1), Trainer's TrainJob, the clustered task's JobSet
  it("kfjob.targets() names it, as the manifests' apiVersion and kind say", function()
    for _, t in ipairs(kfjob.targets()) do
      local kind = "MPIJob"
      for _, k in ipairs(t.kinds) do if k == "PyTorchJob" then kind = k end end
      local spec = kind == "MPIJob" and { launcher = { replicas = 1 }, worker = { replicas = 1 } }
                   or { master = { replicas = 1 }, worker = { replicas = 1 } }
      local m = kfjob[kind](spec):manifest{ name = "x", image = "i:1", target = t.name }
      local want = m.apiVersion == "kubeflow.org/v1" and "kubeflow.org/v1" or m.kind
      assert.equal(want, t.resource, t.name)
    end
  end)
  it("lua/kfjob keeps no per-target table: no source line lists two targets", function()
    local dir = debug.getinfo(1, "S").source:match("^@(.*)/spec/[^/]*$") or "."
    local p = io.popen("ls " .. dir .. "/lua/kfjob/*.lua " .. dir .. "/lua/kfjob/*/*.lua 2>/dev/null")
    local n = 0
    for f in p:lines() do
      n = n + 1
      local ln = 0
      for l in io.lines(f) do
        ln = ln + 1
        local seen = 0
        for _, t in ipairs(TARGETS) do
          if l:find('"' .. t .. '"', 1, true) then seen = seen + 1 end
        end
        assert(seen < 2, f .. ":" .. ln .. ": names " .. seen .. " targets: " .. l)
      end
    end
    p:close()
    assert.is_true(n > 3)
  end)
end)
