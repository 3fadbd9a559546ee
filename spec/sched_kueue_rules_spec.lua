-- Kueue's rules for a job's scheduling that hold on every target (SPEC §13,
-- R27), from Kueue's own validation: pkg/controller/jobframework/
-- tas_validation.go (levels are label names, ValidateLabelName; one topology
-- mode per pod set; slice-required-topology and slice-size need each other;
-- a pod set group asks for the same level) and pkg/controller/constants
-- (the labels scheduling writes).  Expected values are Kueue's and
-- Kubernetes', never kfjob's own output.
local kfjob = require "kfjob"

local REQ = "kueue.x-k8s.io/podset-required-topology"

local function build(t)
  local ok, err = pcall(kfjob.PyTorchJob, t)
  return ok, not ok and tostring(err) or nil
end

describe("topology levels are node label names (Kueue ValidateLabelName)", function()
  -- IsQualifiedName: [DNS-1123 subdomain '/'] name of at most 63
  -- [A-Za-z0-9][-A-Za-z0-9_.]*[A-Za-z0-9]
  local BAD = { "a/b/c", "/rack", "rack/", "UPPER.example.com/rack", "ex.com/-rack",
                string.rep("a", 64) }
  local GOOD = { "rack", "example.com/rack", "cloud.provider.com/topology-block",
                 "kubernetes.io/hostname", string.rep("a", 63) }
  for _, key in ipairs{ "required", "preferred", "slice_required" } do
    it(key .. " on the job and on a group", function()
      local function topo(v)
        local t = { [key] = v }
        if key == "slice_required" then t.required, t.slice_size = "zone", 1 end
        return t
      end
      for _, v in ipairs(BAD) do
        local ok, err = build{ master = {}, worker = { replicas = 1 }, scheduling = { topology = topo(v) } }
        assert.is_false(ok, v)
        assert.matches("scheduling.topology." .. key .. ": '" .. v:gsub("%p", "%%%0") .. "' is not a label key", err)
        ok, err = build{ master = {}, worker = { replicas = 1, topology = topo(v) } }
        assert.is_false(ok, v)
        assert.matches("worker.topology." .. key .. ": '", err, 1, true)
      end
      for _, v in ipairs(GOOD) do
        assert.is_true((build{ master = {}, worker = { replicas = 1 }, scheduling = { topology = topo(v) } }), v)
        assert.is_true((build{ master = {}, worker = { replicas = 1, topology = topo(v) } }), v)
      end
    end)
  end
  it("a manifest whose level is not a label name keeps the annotation in the template", function()
    local y = kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 1, image = "i" },
                                scheduling = { topology = { required = "rack" } } }
      :manifest{ name = "t", target = "operator", format = "yaml" }
    local bad = y:gsub("podset%-required%-topology: rack", "podset-required-topology: a/b/c")
    assert.are_not.equal(y, bad)
    local j = kfjob.from_manifest(bad)
    assert.is_nil(j:spec().scheduling)
    local m = j:manifest{ name = "t", target = "operator" }
    assert.equal("a/b/c", m.spec.pytorchReplicaSpecs.Worker.template.metadata.annotations[REQ])
  end)
end)

describe("a group's topology mode replaces the job's as a whole", function()
  -- Kueue reads one of podset-required-topology, podset-preferred-topology,
  -- podset-unconstrained-topology per pod set ("more than one topology
  -- annotation" is refused, tas_validation.go); SPEC §13: a group's key wins
  local UNC = "kueue.x-k8s.io/podset-unconstrained-topology"
  local PREF = "kueue.x-k8s.io/podset-preferred-topology"
  local SLICE = "kueue.x-k8s.io/podset-slice-required-topology"
  local SLICE_N = "kueue.x-k8s.io/podset-slice-size"
  local function ann(job, target, group)
    local m = job:manifest{ name = "t", image = "i", target = target or "operator" }
    return m.spec.pytorchReplicaSpecs[group].template.metadata.annotations
  end
  it("unconstrained over the job's required", function()
    local j = kfjob.PyTorchJob{ master = {}, worker = { replicas = 4, topology = { unconstrained = true } },
                                scheduling = { topology = { required = "zone" } } }
    assert.same({ [UNC] = "true" }, ann(j, "operator", "Worker"))
    assert.same({ [REQ] = "zone" }, ann(j, "operator", "Master"))
    assert.is_true((j:check{ target = "operator" }))
  end)
  it("required over the job's preferred, the job's other keys kept", function()
    local j = kfjob.PyTorchJob{ master = {}, worker = { replicas = 4, topology = { required = "rack" } },
      scheduling = { topology = { preferred = "zone", slice_required = "host", slice_size = 1 } } }
    assert.same({ [REQ] = "rack", [SLICE] = "host", [SLICE_N] = "1" }, ann(j, "operator", "Worker"))
    assert.same({ [PREF] = "zone", [SLICE] = "host", [SLICE_N] = "1" }, ann(j, "operator", "Master"))
  end)
  it("reads back to the same manifest, the differing modes as the groups' own", function()
    local j = kfjob.PyTorchJob{ master = { image = "i", topology = { required = "rack" } },
                                worker = { replicas = 3, image = "i" }, scheduling = { topology = { preferred = "block" } } }
    local y = j:manifest{ name = "t", target = "operator", format = "yaml" }
    local r = kfjob.from_manifest(y)
    assert.equal(y, r:manifest{ name = "t", target = "operator", format = "yaml" })
    assert.same({ required = "rack" }, r:spec().master.topology)
    assert.same({ preferred = "block" }, r:spec().worker.topology)
  end)
  it("a group without a mode keeps the job's", function()
    local j = kfjob.PyTorchJob{ master = {}, worker = { replicas = 4, topology = { slice_required = "host", slice_size = 2 } },
                                scheduling = { topology = { preferred = "zone" } } }
    assert.same({ [PREF] = "zone", [SLICE] = "host", [SLICE_N] = "2" }, ann(j, "operator", "Worker"))
  end)
end)

describe("slice_required and slice_size need each other in what a pod set gets", function()
  -- kueue tas_validation.go: podset-slice-size "must be set when"
  -- podset-slice-required-topology is, and "may not be set when" it is not
  it("either alone on the job is an error naming it", function()
    local ok, err = build{ master = {}, worker = { replicas = 1 },
                           scheduling = { topology = { required = "rack", slice_required = "host" } } }
    assert.is_false(ok)
    assert.matches("scheduling.topology.slice_required: needs slice_size", err, 1, true)
    ok, err = build{ master = {}, worker = { replicas = 1 },
                     scheduling = { topology = { required = "rack", slice_size = 1 } } }
    assert.is_false(ok)
    assert.matches("scheduling.topology.slice_size: needs slice_required", err, 1, true)
    ok, err = build{ master = {}, worker = { replicas = 1, topology = { slice_required = "host" } } }
    assert.is_false(ok)
    assert.matches("worker.topology.slice_required: needs slice_size", err, 1, true)
    ok, err = pcall(kfjob.Elastic, { nnodes = 2, scheduling = { topology = { required = "rack", slice_size = 2 } } })
    assert.is_false(ok)
    assert.matches("scheduling.topology.slice_size: needs slice_required", tostring(err), 1, true)
  end)
  it("a pair completed by every group's topology is whole", function()
    assert.is_true((build{ master = { topology = { slice_size = 1 } }, worker = { replicas = 1, topology = { slice_size = 1 } },
                           scheduling = { topology = { required = "rack", slice_required = "host" } } }))
    -- the master's pod set gets slice_required alone
    local ok, err = build{ master = {}, worker = { replicas = 1, topology = { slice_size = 1 } },
                           scheduling = { topology = { required = "rack", slice_required = "host" } } }
    assert.is_false(ok)
    assert.matches("scheduling.topology.slice_required: needs slice_size", err, 1, true)
    assert.is_true((build{ master = {}, worker = { replicas = 1 },
                           scheduling = { topology = { required = "rack", slice_required = "host", slice_size = 1 } } }))
  end)
  it("a manifest with one of the two keeps its annotations in the template", function()
    local y = kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 1, image = "i" },
      scheduling = { topology = { required = "rack", slice_required = "host", slice_size = 1 } } }
      :manifest{ name = "t", target = "operator", format = "yaml" }
    local cut = y:gsub("\n *kueue%.x%-k8s%.io/podset%-slice%-size: \"1\"", "")
    assert.are_not.equal(y, cut)
    local j = kfjob.from_manifest(cut)
    assert.is_nil(j:spec().scheduling)
    local a = j:manifest{ name = "t", target = "operator" }.spec.pytorchReplicaSpecs.Worker.template.metadata.annotations
    assert.same({ [REQ] = "rack", ["kueue.x-k8s.io/podset-slice-required-topology"] = "host" }, a)
  end)
  it("so does one group's pod set, where the groups' annotations differ", function()
    local y = kfjob.PyTorchJob{ master = { image = "i", topology = { slice_required = "h", slice_size = 1 } },
                                worker = { replicas = 2, image = "i" }, scheduling = { topology = { required = "rack" } } }
      :manifest{ name = "t", target = "operator", format = "yaml" }
    local cut = y:gsub("\n *kueue%.x%-k8s%.io/podset%-slice%-size: \"1\"", "")
    assert.are_not.equal(y, cut)
    local j = kfjob.from_manifest(cut)
    assert.is_nil(j:spec().scheduling)
    assert.equal(cut, j:manifest{ name = "t", target = "operator", format = "yaml" })
  end)
end)

describe("R41: a pod set group asks for one level", function()
  -- kueue tas_validation.go topologyRequestsValid: the pod sets of one
  -- podset-group-name carry the same required and preferred topology
  local function r41(job)
    local ok, ps = job:check{ target = "operator" }
    local out = {}
    for _, p in ipairs(ps or {}) do if p.rule == "R41" then out[#out + 1] = p.path end end
    return ok, out
  end
  it("required on one and preferred on the other", function()
    local ok, ps = r41(kfjob.PyTorchJob{ master = { topology = { required = "rack", group = "g" } },
                                         worker = { replicas = 2, topology = { preferred = "rack", group = "g" } } })
    assert.is_falsy(ok)
    assert.same({ "master.topology" }, ps)
  end)
  it("two required levels", function()
    local ok, ps = r41(kfjob.PyTorchJob{ master = { topology = { required = "rack", group = "g" } },
                                         worker = { replicas = 2, topology = { required = "zone", group = "g" } } })
    assert.is_falsy(ok)
    assert.same({ "master.topology" }, ps)
    -- the job's group name and level, a group's own level over it
    ok, ps = r41(kfjob.PyTorchJob{ master = {}, worker = { replicas = 2, topology = { required = "zone" } },
                                   scheduling = { topology = { required = "rack", group = "g" } } })
    assert.is_falsy(ok)
    assert.same({ "master.topology" }, ps)
  end)
  it("the same level is a valid group", function()
    assert.is_true((r41(kfjob.PyTorchJob{ master = { topology = { required = "rack", group = "g" } },
                                          worker = { replicas = 2, topology = { required = "rack", group = "g" } } })))
    assert.is_true((r41(kfjob.PyTorchJob{ master = {}, worker = { replicas = 2 },
                                          scheduling = { topology = { preferred = "rack", group = "g" } } })))
  end)
end)

describe("a scheduling that sets nothing is none (SPEC §13: false leaves the field out)", function()
  local function base(sched)
    return { master = { image = "i" }, worker = { replicas = 1, image = "i" }, shared_memory = true,
             scheduling = sched }
  end
  for name, sched in pairs{ ["suspend = false"] = { suspend = false }, ["multikueue = false"] = { multikueue = false },
                            ["{}"] = {}, ["topology = {}"] = { topology = {} } } do
    it(name .. ": == a job without one, and Law 1 on operator and trainer-2.3", function()
      local j = kfjob.PyTorchJob(base(sched))
      assert.is_true(j == kfjob.PyTorchJob(base(nil)))
      assert.is_nil(j:spec().scheduling)
      for _, t in ipairs{ "operator", "trainer-2.3" } do
        assert.is_true(kfjob.from_manifest(j:manifest{ name = "t", target = t, format = "yaml" }) == j, t)
      end
      assert.is_true(kfjob.PyTorchJob(base(nil)):with{ ["scheduling.suspend"] = false } == j)
    end)
  end
  it("a gang = {} is a setting (schedulingPolicy with the target's default)", function()
    local j = kfjob.PyTorchJob(base{ gang = {} })
    assert.is_false(j == kfjob.PyTorchJob(base(nil)))
    assert.same({ gang = {} }, j:spec().scheduling)
  end)
end)

describe("the Kueue labels scheduling writes are scheduling's alone", function()
  -- kueue pkg/controller/constants: queue-name, priority-class and
  -- max-exec-time-seconds are what scheduling.queue, .priority_class and
  -- .max_exec_time write (SPEC §13); in `labels` they bypassed R27 and read
  -- back as scheduling, so the job did not equal its read-back (Law 1)
  local ROWS = { ["kueue.x-k8s.io/queue-name"] = { "queue", "lq" },
                 ["kueue.x-k8s.io/priority-class"] = { "priority_class", "high" },
                 ["kueue.x-k8s.io/max-exec-time-seconds"] = { "max_exec_time", "60" } }
  it("in labels: a construction error naming the label and the scheduling row", function()
    for key, r in pairs(ROWS) do
      local ok, err = build{ master = {}, worker = { replicas = 1 }, labels = { [key] = r[2], team = "a" } }
      assert.is_false(ok, key)
      assert.matches('labels["' .. key .. '"]: ', err, 1, true)
      assert.matches("scheduling." .. r[1], err, 1, true)
    end
    local ok, err = build{ master = {}, worker = { replicas = 1 },
                           labels = { ["kueue.x-k8s.io/queue-name"] = "Bad_Q" } }
    assert.is_false(ok)
    assert.matches("scheduling.queue", err, 1, true)
    -- other kueue.x-k8s.io labels are the user's
    assert.is_true((build{ master = {}, worker = { replicas = 1 }, labels = { ["kueue.x-k8s.io/other"] = "x" } }))
  end)
  it("a manifest's Kueue labels read back as scheduling, on flyte too", function()
    local j = kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 1, image = "i" },
                                scheduling = { queue = "lq" } }
    for _, t in ipairs{ "operator", "flyte2" } do
      assert.is_true(kfjob.from_manifest(j:manifest{ name = "t", target = t, format = "yaml" }) == j, t)
    end
    -- Flyte 1 puts execution labels on the resource and every pod
    local y = kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 1, image = "i" }, labels = { team = "lq" } }
      :manifest{ name = "t", target = "flyte", format = "yaml" }
    local r = kfjob.from_manifest((y:gsub("team: lq", "kueue.x-k8s.io/queue-name: lq")))
    assert.same({ queue = "lq" }, r:spec().scheduling)
    assert.is_nil(r:spec().labels)
    assert.is_falsy((r:check{ target = "flyte" }))   -- R30: an execution label there
  end)
  it("a manifest's Kueue label Kueue refuses is an error naming where it is", function()
    local y = kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 1, image = "i" },
                                scheduling = { queue = "lq" } }:manifest{ name = "t", target = "operator", format = "yaml" }
    local j, err = kfjob.from_manifest((y:gsub("queue%-name: lq", "queue-name: Bad_Q")))
    assert.is_nil(j)
    assert.matches('metadata.labels["kueue.x-k8s.io/queue-name"]: \'Bad_Q\'', err, 1, true)
    assert.matches("scheduling.queue", err, 1, true)
  end)
end)

describe("reading a job's object fields (SPEC: an unknown field of an object raises)", function()
  local j = kfjob.PyTorchJob{ worker = { replicas = 1, requests = { gpu = 1 } },
    scheduling = { queue = "q", topology = { required = "rack" }, gang = { min_available = 1 } } }
  local function err(f)
    local ok, e = pcall(f)
    assert.is_false(ok)
    return tostring(e)
  end
  it("a misspelt key of scheduling, its gang and topology raises with a suggestion", function()
    assert.matches("has no field 'queu' (did you mean 'queue'?)", err(function() return j.scheduling.queu end), 1, true)
    assert.matches("has no field 'min_availble' (did you mean 'min_available'?)",
                   err(function() return j.scheduling.gang.min_availble end), 1, true)
    assert.matches("has no field 'requred' (did you mean 'required'?)",
                   err(function() return j.scheduling.topology.requred end), 1, true)
    assert.matches("has no field 'gpuu' (did you mean 'gpu'?)", err(function() return j.worker.requests.gpuu end), 1, true)
  end)
  it("a known key reads its value, or nil when unset; pairs() sees the set keys", function()
    assert.equal("q", j.scheduling.queue)
    assert.is_nil(j.scheduling.priority_class)
    assert.is_nil(j.scheduling.topology.preferred)
    assert.equal(1, j.scheduling.gang.min_available)
    assert.is_nil(j.worker.requests.mem)
    assert.is_nil(j.worker.requests.memory)   -- the alias
    local keys = {}
    for k in pairs(j.scheduling) do keys[#keys + 1] = k end
    table.sort(keys)
    assert.same({ "gang", "queue", "topology" }, keys)
    assert.is_true(kfjob.PyTorchJob(j:spec()) == j)
  end)
  it("an unset field of the kind reads nil; an unknown one raises", function()
    local e = kfjob.Elastic{ nnodes = 2 }
    for _, f in ipairs{ "interconnect", "restart_on_host_maintenance", "namespace", "scheduling", "shared_memory" } do
      assert.is_truthy(kfjob.fields("Elastic")[f], f)
      assert.is_nil(e[f], f)
    end
    assert.matches("kfjob.Elastic has no field 'intercnnect' (did you mean 'interconnect'?)",
                   err(function() return e.intercnnect end), 1, true)
  end)
end)

describe("a pod template's Kueue labels are scheduling's too", function()
  -- Flyte 2 copies a PyTorchJob's pod template labels onto the resource
  -- (flyte pytorch.go, #7833), where Kueue reads them (kueue
  -- pkg/controller/constants); in pod_template they bypassed R27 and an
  -- accepted job's flyte2 manifest was refused on reading (Law 1)
  local KEYS = { ["kueue.x-k8s.io/queue-name"] = "queue", ["kueue.x-k8s.io/priority-class"] = "priority_class",
                 ["kueue.x-k8s.io/max-exec-time-seconds"] = "max_exec_time" }
  it("job-level and group-level: a construction error naming the label and the row", function()
    for key, row in pairs(KEYS) do
      local ok, err = build{ master = {}, worker = { replicas = 1 },
                             pod_template = { metadata = { labels = { [key] = "Bad_Q" } } } }
      assert.is_false(ok, key)
      assert.matches('pod_template.metadata.labels["' .. key .. '"]: ', err, 1, true)
      assert.matches("scheduling." .. row, err, 1, true)
      ok, err = build{ master = {}, worker = { replicas = 1,
                       pod_template = { metadata = { labels = { [key] = "1" } } } } }
      assert.is_false(ok, key)
      assert.matches('worker.pod_template.metadata.labels["' .. key .. '"]: ', err, 1, true)
    end
    assert.is_true((build{ master = {}, worker = { replicas = 1 },
                           pod_template = { metadata = { labels = { ["kueue.x-k8s.io/other"] = "x" } } } }))
  end)
  it("Flyte's manifests, whose pods repeat the resource's labels, still read back", function()
    local j = kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 1, image = "i" },
                                scheduling = { queue = "lq", max_exec_time = 60 } }
    assert.is_true(kfjob.from_manifest(j:manifest{ name = "t", target = "flyte2", format = "yaml" }) == j)
    assert.is_true(kfjob.decode_task_template(j:task_template{ target = "flyte2" }) == j)
    local y = kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 1, image = "i" }, labels = { team = "lq" } }
      :manifest{ name = "t", target = "flyte", format = "yaml" }
    assert.same({ queue = "lq" }, kfjob.from_manifest((y:gsub("team: lq", "kueue.x-k8s.io/queue-name: lq"))):spec().scheduling)
  end)
  it("an operator manifest's pod template Kueue label is an error naming where it is", function()
    local y = kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 1, image = "i" },
                                pod_template = { metadata = { labels = { team = "lq" } } } }
      :manifest{ name = "t", target = "operator", format = "yaml" }
    local j, err = kfjob.from_manifest((y:gsub("team: lq", "kueue.x-k8s.io/queue-name: lq")))
    assert.is_nil(j)
    assert.matches('template.metadata.labels["kueue.x-k8s.io/queue-name"]', err, 1, true)
    assert.matches("a Kueue label on a pod template: Kueue reads the resource's metadata.labels", err, 1, true)
  end)
end)

describe("a call's opts.labels cannot hold Kueue's labels", function()
  -- opts.labels go on the resource and every pod (SPEC §16): a Kueue
  -- label there bypassed R27 (kueue jobframework validation.go) and split
  -- the resource's queue from its pods'; Kueue reads the resource's
  -- (pkg/controller/constants), which scheduling writes
  local KEYS = { ["kueue.x-k8s.io/queue-name"] = { "queue", "b" },
                 ["kueue.x-k8s.io/priority-class"] = { "priority_class", "high" },
                 ["kueue.x-k8s.io/max-exec-time-seconds"] = { "max_exec_time", "abc" } }
  local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = "i" }, scheduling = { queue = "a" } }
  it("an option error naming the label and the scheduling row, on every target", function()
    for key, r in pairs(KEYS) do
      for _, t in ipairs{ "operator", "flyte2", "trainer-2.3" } do
        local ok, err = pcall(j.manifest, j, { target = t, name = "n", labels = { [key] = r[2] } })
        assert.is_false(ok, key .. " " .. t)
        assert.matches('opts.labels["' .. key .. '"]: ', tostring(err), 1, true)
        assert.matches("set scheduling." .. r[1], tostring(err), 1, true)
      end
    end
    -- other labels, kueue.x-k8s.io's others too, are the call's
    local m = j:manifest{ target = "operator", name = "n", labels = { ["kueue.x-k8s.io/other"] = "x" } }
    assert.equal("x", m.metadata.labels["kueue.x-k8s.io/other"])
    assert.equal("a", m.metadata.labels["kueue.x-k8s.io/queue-name"])
  end)
  it("a config's opts.labels: kfjob render names it", function()
    local util = require "spec.util"
    local f = util.tmp(table.concat({
      'local kfjob = require "kfjob"',
      'return { n = { job = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = "i" },',
      '  scheduling = { queue = "a" } }, opts = { labels = { ["kueue.x-k8s.io/queue-name"] = "b" } } } }' }, "\n"),
      ".lua")
    local code, out, err = util.kfjob("render", "-f", "manifest", f)
    os.remove(f)
    assert.is_not.equal(0, code)
    assert.equal("", out)
    assert.matches('opts.labels["kueue.x-k8s.io/queue-name"]: ', err, 1, true)
    assert.matches("set scheduling.queue", err, 1, true)
  end)
end)
