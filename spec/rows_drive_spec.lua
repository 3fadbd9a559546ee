-- The schema rows drive explain and the per-target schema: a group row's
-- `place` (where every manifest writer puts it) and `not_on` (the targets
-- whose resources have no place for it, R34) reach kfjob.fields, and the
-- generators read them, so a new group field needs no edit there.
local kfjob = require "kfjob"

describe("kfjob.fields: a group row's place and not_on", function()
  it("names where each placed group row goes in every manifest", function()
    local g = kfjob.fields("PyTorchJob").worker.fields
    assert.equal("replica_spec", g.replicas.place)
    assert.equal("replica_spec", g.restart_policy.place)
    assert.equal("container", g.image.place)
    assert.equal("resources", g.requests.place)
    assert.equal("resources", g.limits.place)
    assert.is_nil(g.pod_template.place)   -- written by a routine of its own
  end)

  it("lists no target for a row every target's resources carry", function()
    for _, kind in ipairs(kfjob.kinds) do
      for _, row in pairs(kfjob.fields(kind)) do
        for _, f in pairs(row.group and row.fields or {}) do
          if f.place then assert.is_nil(f.not_on, kind) end
        end
      end
    end
  end)
end)

describe("kfjob explain: the manifest path from the row's place", function()
  local explain = require "kfjob.explain"
  local function path_of(spec)
    return explain(spec):match("manifest %(operator, flyte, flyte2%): (%S+)")
  end

  it("a container row, a replica-spec row, a resource", function()
    assert.equal("spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].image",
                 path_of("PyTorchJob.worker.image"))
    assert.equal("spec.tfReplicaSpecs.PS.restartPolicy", path_of("TFJob.ps.restart_policy"))
    -- a key holding dots quoted, as every manifest path kfjob prints
    assert.equal('spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].resources.limits["nvidia.com/gpu"]',
                 path_of("MPIJob.launcher.limits.gpu"))
  end)

  it("a target's manifest lines quote a key holding dots", function()
    local text = explain("PyTorchJob.scheduling.queue")
    assert.truthy(text:find('manifest: metadata.labels["kueue.x-k8s.io/queue-name"]', 1, true), text)
    assert.falsy(text:find("labels.kueue", 1, true), text)
    text = explain("PyTorchJob.worker.limits.gpu")
    assert.truthy(text:find('resources.requests["nvidia.com/gpu"]', 1, true), text)
  end)

  it("every placed group row of every kind has a manifest path", function()
    for _, kind in ipairs(kfjob.kinds) do
      for key, row in pairs(kfjob.fields(kind)) do
        for fk, f in pairs(row.group and row.fields or {}) do
          if f.place and f.manifest then
            assert.truthy(path_of(kind .. "." .. key .. "." .. fk), kind .. "." .. key .. "." .. fk)
          end
        end
      end
    end
  end)

  it("run_policy itself is spec.runPolicy", function()
    assert.equal("spec.runPolicy", path_of("PyTorchJob.run_policy"))
    assert.equal("spec.runPolicy.backoffLimit", path_of("PyTorchJob.run_policy.backoff_limit"))
  end)
end)

describe("kfjob schema --target: a row's not_on leaves it out", function()
  -- the generator reads kfjob.fields; a row marked not_on for one target
  -- (as a new field's row would be) must leave that target's schema only
  local real = kfjob.fields
  after_each(function() kfjob.fields = real end)

  it("drops the field for the target its row names, keeps it elsewhere", function()
    kfjob.fields = function(kind)
      local rows, info = real(kind)
      for _, row in pairs(rows) do
        if row.group then
          row.fields.replicas.not_on = { ["trainer-2.3"] = "no place (a test row)" }
        end
      end
      return rows, info
    end
    package.loaded["kfjob.schema"] = nil
    local schema = require "kfjob.schema"
    local on_trainer = schema("PyTorchJob", { target = "trainer-2.3" })
    local on_operator = schema("PyTorchJob", { target = "operator" })
    package.loaded["kfjob.schema"] = nil
    -- (a group row only groups have: the job's container has an image too)
    assert.falsy(on_trainer:find('"replicas"', 1, true))
    assert.truthy(on_operator:find('"replicas"', 1, true))
  end)
end)

describe("a row's per-target values (values_on) drive R13 and the schema", function()
  -- mpi-operator validation.go validateReplicaSpec: Never and OnFailure;
  -- a TrainJob has no restart policy (trainjob_types.go): only never;
  -- the plugin's RestartPolicy (flyteidl common.proto) has no ExitCode.
  local want = {
    ["mpi-operator"] = { never = true, on_failure = true },
    ["trainer-2.2"] = { never = true }, ["trainer-2.3"] = { never = true },
    ["trainer-2.4"] = { never = true },
    flyte = { never = true, on_failure = true, always = true },
    flyte2 = { never = true, on_failure = true, always = true },
  }

  it("kfjob.fields gives the restart policies each target carries", function()
    local row = kfjob.fields("MPIJob").worker.fields.restart_policy
    assert.are.same(want, row.values_on)
  end)

  it("R13 refuses exactly the values a target's row leaves out", function()
    for t, keep in pairs(want) do
      if t ~= "flyte" and t ~= "flyte2" then
        for _, v in ipairs { "never", "on_failure", "always" } do
          local job = kfjob.MPIJob { worker = { replicas = 1, restart_policy = v } }
          local _, problems = job:check { target = t }
          local r13
          for _, p in ipairs(problems or {}) do
            if p.rule == "R13" and p.path == "worker.restart_policy" then r13 = p end
          end
          assert.equal(not keep[v], r13 ~= nil, t .. " " .. v)
        end
      end
    end
  end)

  it("kfjob schema's per-target enum is the row's values_on", function()
    local schema = require "kfjob.schema"
    local s = schema("MPIJob", "mpi-operator")
    assert.truthy(s:find('"enum": ["never", "Never", "RESTART_POLICY_NEVER", "on_failure", '
                         .. '"OnFailure", "RESTART_POLICY_ON_FAILURE", 0, 1]', 1, true))
    assert.falsy(s:find('"Always"', 1, true))
  end)
end)

describe("a row names its validator (check)", function()
  it("the namespace is a DNS-1123 label, Kueue's names DNS-1123 subdomains", function()
    local f = kfjob.fields("PyTorchJob")
    assert.equal("dns1123_label", f.namespace.check)
    assert.equal("dns1123_subdomain", f.scheduling.fields.queue.check)
    assert.equal("dns1123_subdomain", f.scheduling.fields.priority_class.check)
    assert.is_nil(f.worker.fields.image.check)
  end)

  it("and the rules run it (apimachinery IsDNS1123Label, kueue ValidateQueueName)", function()
    assert.has_error(function() kfjob.PyTorchJob { worker = { replicas = 1 }, namespace = "Team" } end,
      "kfjob.PyTorchJob: namespace: 'Team' is not a DNS-1123 label (at most 63 lowercase "
      .. "letters, digits and '-', starting and ending with a letter or digit)")
    assert.has_error(function()
      kfjob.PyTorchJob { worker = { replicas = 1 }, scheduling = { queue = "a..b" } }
    end, "kfjob.PyTorchJob: scheduling.queue: 'a..b' is not a DNS-1123 subdomain (each "
      .. "'.'-separated part must start and end with a lowercase letter or digit; Kueue's "
      .. "webhook refuses it)")
  end)
end)
