-- Issue 33: promises of the last round that did not hold, each pinned here
-- with values from upstream (FACTS §8.5, the Kubernetes label-key syntax),
-- not from kfjob's own output.

local kfjob = require "kfjob"

describe("with: dotted keys are paths at the top level only", function()
  local base = kfjob.PyTorchJob{ worker = { replicas = 2 } }
  it("keeps a dotted key inside a nested table as one key", function()
    local j = base:with{ pod_template = { spec = { nodeSelector = {
      ["cloud.google.com/gke-nodepool"] = "b", ["kubernetes.io/arch"] = "amd64" } } } }
    local sel = j:spec().pod_template.spec.nodeSelector
    assert.are.equal("b", sel["cloud.google.com/gke-nodepool"])
    assert.are.equal("amd64", sel["kubernetes.io/arch"])
    assert.is_nil(sel.cloud)
  end)
  it("resource and label keys with dots, nested", function()
    local j = base:with{ pod_template = { metadata = { labels = { ["app.kubernetes.io/name"] = "x" } } } }
    assert.are.equal("x", j:spec().pod_template.metadata.labels["app.kubernetes.io/name"])
  end)
  it("still walks a dotted key at the top level", function()
    assert.are.equal(8, base:with{ ["worker.replicas"] = 8 }:spec().worker.replicas)
  end)
  it("the templating layer's sweeps too (node pools as values of an axis)", function()
    local t = require "kfjob.template"
    local function pool(p)
      return { spec = { nodeSelector = { ["cloud.google.com/gke-nodepool"] = p } } }
    end
    local seen = {}
    for _, job in t.variants(base, { pod_template = { pool("a"), pool("b") } }) do
      seen[#seen + 1] = job:spec().pod_template.spec.nodeSelector["cloud.google.com/gke-nodepool"]
    end
    assert.same({ "a", "b" }, seen)
  end)
end)

describe("R10 on flyte: an integer nproc_per_node goes to the deprecated field", function()
  local function r10(list)
    for _, w in ipairs(list) do if w.rule == "R10" then return w end end
  end
  for _, t in ipairs { "flyte", "flyte2" } do
    it("warns on " .. t, function()
      local w = r10(kfjob.Elastic{ nnodes = 2, nproc_per_node = 4 }:lint{ target = t })
      assert.is_table(w)
      assert.are.equal("nproc_per_node", w.path)
      assert.is_truthy(w.message:find("elasticPolicy.nProcPerNode", 1, true))
      assert.is_true(#w.source > 0)
      assert.is_true(kfjob.Elastic{ nnodes = 2, nproc_per_node = 4 }:check{ target = t })
    end)
  end
  it("not on trainer-2.3 (numProcPerNode is an int32 there)", function()
    assert.is_nil(r10(kfjob.Elastic{ nnodes = 2, nproc_per_node = 4 }:lint{ target = "trainer-2.3" }))
  end)
end)

describe("check{target=, name=} applies the name rules (R14, R15)", function()
  local pt = kfjob.PyTorchJob{ worker = { replicas = 2 } }
  local mpi = kfjob.MPIJob{ worker = { replicas = 2 } }
  local function problem(job, t, name, rule)
    local ok, ps = job:check{ target = t, name = name }
    assert.is_nil(ok)
    for _, p in ipairs(ps) do
      if p.rule == rule then
        assert.are.equal("opts.name", p.path)
        assert.is_true(#p.source > 0)
        return p
      end
    end
    error("no " .. rule .. " in check{target=" .. t .. "}")
  end
  -- DNS-1035: [a-z]([-a-z0-9]*[a-z0-9])? (k8s.io/apimachinery validation)
  for _, t in ipairs { "operator", "mpi-operator", "trainer-2.2", "trainer-2.3" } do
    local job = t == "mpi-operator" and mpi or pt
    it("R14 on " .. t .. ": Bad_Name, and the manifest's error names the target", function()
      local p = problem(job, t, "Bad_Name", "R14")
      local ok, e = pcall(job.manifest, job, { target = t, name = "Bad_Name", image = "i:1" })
      assert.is_false(ok)
      assert.is_truthy(e:find(p.message, 1, true))
      assert.is_truthy(e:find("(target " .. t .. ")", 1, true))
    end)
  end
  it("R15 on the operator: a 70-character name (pods <name>-worker-1)", function()
    local p = problem(pt, "operator", ("a"):rep(70), "R15")
    assert.is_truthy(p.message:find(("a"):rep(70) .. "-", 1, true))
  end)
  it("R15 on the mpi-operator: the launcher pod name <name>-launcher (60 + 9 > 63)", function()
    local p = problem(mpi, "mpi-operator", ("a"):rep(60), "R15")
    assert.is_truthy(p.message:find(("a"):rep(60) .. "-launcher", 1, true))
  end)
  it("R14 on trainer: a TrainJob's name has at most 63 characters", function()
    problem(pt, "trainer-2.3", ("a"):rep(70), "R14")
    assert.is_true(pt:check{ target = "trainer-2.3", name = ("a"):rep(63) })
  end)
  it("a good name passes; flyte names the resource itself (n.a.)", function()
    assert.is_true(pt:check{ target = "operator", name = "good-name" })
    assert.is_true(pt:check{ target = "flyte", name = "Bad_Name" })
  end)
end)

-- trainer.kubeflow.org_trainjobs.yaml: spec.trainer.args and .command
-- maxItems 128, items maxLength 65536 (v2.2) and 1048576 (v2.3);
-- trainer.image maxLength 500; trainer.env maxItems 128.
describe("Trainer CRD limits (maxLength, maxItems) per version", function()
  local job = kfjob.PyTorchJob{ worker = { replicas = 1 } }
  local function man(t, o)
    o.name, o.target, o.image = "n", t, o.image or "i:1"
    return pcall(job.manifest, job, o)
  end
  local function list(n, s)
    local l = {}
    for i = 1, n do l[i] = s or "a" end
    return l
  end
  it("v2.2: an argument of 70000 characters is refused, 65536 taken", function()
    local ok, e = man("trainer-2.2", { args = { "x", ("y"):rep(70000) } })
    assert.is_false(ok)
    assert.is_truthy(e:find("opts.args[2]: 70000 characters", 1, true))
    assert.is_truthy(e:find("65536", 1, true))
    assert.is_true((man("trainer-2.2", { args = { ("y"):rep(65536) } })))
    assert.is_false((man("trainer-2.2", { command = { ("y"):rep(65537) } })))
  end)
  it("v2.3 takes the same 70000 characters (its limit is 1048576)", function()
    assert.is_true((man("trainer-2.3", { args = { ("y"):rep(70000) } })))
  end)
  for _, t in ipairs { "trainer-2.2", "trainer-2.3" } do
    it(t .. ": 128 args, 128 command items with torchrun --no-python, image 500, env 128", function()
      assert.is_true((man(t, { args = list(128) })))
      assert.is_false((man(t, { args = list(129) })))
      assert.is_true((man(t, { command = list(126) })))
      assert.is_false((man(t, { command = list(127) })))
      assert.is_true((man(t, { image = ("i"):rep(500) })))
      local ok, e = man(t, { image = ("i"):rep(501) })
      assert.is_false(ok)
      assert.is_truthy(e:find("opts.image", 1, true))
      local env = {}
      for i = 1, 129 do env["V" .. i] = "x" end
      assert.is_false((man(t, { env = env })))
    end)
  end
end)

-- SPEC §2.4 "reads them back (equal jobs)" for template shapes a
-- TaskTemplate cannot carry: the constructor normalises them (docs/POD_SETTINGS.md, Pod
-- settings), so the job read back is the job that was made.
describe("TaskTemplate round trips of templates with empty parts", function()
  local tol = { { key = "a", operator = "Exists" } }
  local cases = {
    { "a name-only primary container",
      function() return kfjob.TFJob{ worker = { replicas = 2 }, pod_template = {
        primary_container_name = "primary", spec = { containers = { { name = "primary" } }, tolerations = tol } } } end,
      function(t) assert.is_nil(t.spec.containers); assert.are.same(tol, t.spec.tolerations) end },
    { "an empty metadata table",
      function() return kfjob.TFJob{ worker = { replicas = 2 }, pod_template = { metadata = {}, spec = { tolerations = tol } } } end,
      function(t) assert.is_nil(t.metadata) end },
    { "empty labels",
      function() return kfjob.PyTorchJob{ worker = { replicas = 2 }, pod_template = {
        metadata = { labels = {} }, spec = { tolerations = tol } } } end,
      function(t) assert.is_nil(t.metadata) end },
    { "labels and an empty spec",
      function() return kfjob.PyTorchJob{ worker = { replicas = 2 }, requests = { cpu = "1" }, pod_template = {
        metadata = { labels = { a = "b" } }, spec = {} } } end,
      function(t) assert.is_nil(t.spec); assert.are.same({ labels = { a = "b" } }, t.metadata) end },
  }
  for _, c in ipairs(cases) do
    for _, fmt in ipairs { "bytes", "json" } do
      it(c[1] .. " (" .. fmt .. ")", function()
        local job = c[2]()
        c[3](job.pod_template)
        local back = kfjob.decode_task_template(job:task_template{ container = { image = "img:1" },
                                                                   format = fmt == "json" and "json" or nil })
        assert.is_true(back == job:with{ container = { image = "img:1" } })   -- the template's container
      end)
    end
  end
  it("a name-only primary before a sidecar stays where it is", function()
    local job = kfjob.TFJob{ worker = { replicas = 1 }, pod_template = { spec = { containers = {
      { name = "primary" }, { name = "side", image = "s:1" } } } } }
    assert.are.same({ name = "primary" }, job.pod_template.spec.containers[1])
    assert.is_true(kfjob.decode_task_template(job:task_template{ container = { image = "img:1" } })
                   == job:with{ container = { image = "img:1" } })
  end)
end)

-- SPEC §2.4: decode_task_template(task_template(job)) == job, here with a
-- pod template beside task_template options that set the container, task
-- resources, limits only (the issue's four cases).
describe("TaskTemplate round trips with a pod template", function()
  local tol = { tolerations = { { key = "a", operator = "Exists" } } }
  local C = { container = { image = "img:1", command = { "python" }, args = { "t.py", "--x" } } }
  local cases = {
    { "TFJob with tolerations and a container image",
      kfjob.TFJob{ worker = { replicas = 2 }, pod_template = { spec = tol } }, { container = { image = "tf:1" } } },
    { "MPIJob with affinity, worker command and slots",
      kfjob.MPIJob{ worker = { replicas = 2, command = { "python", "t.py" } }, slots = 2,
                    pod_template = { spec = { affinity = { nodeAffinity = {
                      requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = {
                        { matchExpressions = { { key = "a", operator = "In", values = { "b" } } } } } } } } } } },
      C },
    { "PyTorchJob with task requests/limits and a labelled template",
      kfjob.PyTorchJob{ worker = { replicas = 2 }, requests = { cpu = "1" }, limits = { cpu = "2" },
                        pod_template = { metadata = { labels = { a = "b" } } } }, C },
    { "MPIJob with task GPU limits and a toleration",
      kfjob.MPIJob{ worker = { replicas = 2 }, limits = { gpu = 1 }, pod_template = { spec = tol } }, {} },
    { "PyTorchJob with limits only",
      kfjob.PyTorchJob{ worker = { replicas = 2 }, limits = { memory = "1Gi" },
                        pod_template = { spec = tol } }, C },
  }
  for _, c in ipairs(cases) do
    for _, fmt in ipairs { "bytes", "json" } do
      it(c[1] .. " (" .. fmt .. ")", function()
        local o = {}
        for k, v in pairs(c[3]) do o[k] = v end
        if fmt == "json" then o.format = "json" end
        local job = kfjob.decode_task_template(c[2]:task_template(o))
        -- the template's container is the job's container (SPEC §16)
        assert.is_true(job == (o.container and c[2]:with{ container = o.container } or c[2]))
      end)
    end
  end
end)

local util = require "util"
describe("kfjob decode of unreadable content", function()
  if not util.cli_ok then return pending(util.cli_why()) end
  -- SPEC §7: 1 for invalid input, 2 for usage and I/O errors
  local inputs = {
    { "binary garbage", "\255\254\0\1garbage\0\0\7" },
    { "text", "hello world\n" },
    { "truncated JSON", "{\"type\": " },
    { "JSON that is no TaskTemplate", "[1, 2, 3]" },
    { "empty", "" },
  }
  for _, c in ipairs(inputs) do
    it(c[1] .. " exits 1 (file and stdin)", function()
      local f = os.tmpname()
      local h = assert(io.open(f, "wb"))
      h:write(c[2])
      h:close()
      local code, _, err = util.kfjob("decode", f)
      os.remove(f)
      assert.are.equal(1, code)
      assert.is_truthy(err:find("kfjob.decode_task_", 1, true))
      assert.are.equal(1, (util.run_cli(c[2], "decode", "-")))
    end)
  end
  it("a missing file stays an I/O error (2)", function()
    assert.are.equal(2, (util.kfjob("decode", "/nonexistent/kfjob-gaps")))
  end)
end)

-- Trainer's PodSpecPatch lists: maxItems of trainer.kubeflow.org_trainjobs.yaml
-- (v2.2 and v2.3 alike): tolerations 128, volumes 128, imagePullSecrets 64,
-- schedulingGates 16; kfjob's shared-memory volume counts.
describe("issue 33: Trainer's pod-template list limits (R23)", function()
  local function list(n, f) local t = {} for i = 1, n do t[i] = f(i) end return t end
  local lists = {
    tolerations = { 128, function(i) return { key = "k" .. i, operator = "Exists" } end },
    volumes = { 128, function(i) return { name = "v" .. i, emptyDir = {} } end },
    imagePullSecrets = { 64, function(i) return { name = "s" .. i } end },
    schedulingGates = { 16, function(i) return { name = "example.com/g" .. i } end },
  }
  for _, t in ipairs({ "trainer-2.2", "trainer-2.3" }) do
    for key, l in pairs(lists) do
      it(t .. ": " .. key .. " at the limit passes, one more is an R23 error", function()
        local function job(n)
          return kfjob.PyTorchJob{ worker = { replicas = 1 },
            pod_template = { spec = { [key] = list(n, l[2]) } } }
        end
        assert.is_true((job(l[1]):check{ target = t, name = "j" }))
        local ok, ps = job(l[1] + 1):check{ target = t, name = "j" }
        assert.is_nil(ok)
        assert.equal("R23", ps[1].rule)
        assert.equal("pod_template.spec." .. key, ps[1].path)
        local mok, err = pcall(function() return job(l[1] + 1):manifest{ target = t, name = "j" } end)
        assert.is_false(mok)
        assert.matches("(target " .. t .. ")", tostring(err), 1, true)
      end)
    end
    it(t .. ": 128 volumes and shared memory make 129", function()
      local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, shared_memory = true,
        pod_template = { spec = { volumes = list(128, lists.volumes[2]) } } }
      local ok, ps = j:check{ target = t, name = "j" }
      assert.is_nil(ok)
      assert.equal("pod_template.spec.volumes", ps[1].path)
    end)
  end
  it("the operator keeps no such limit", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 },
      pod_template = { spec = { tolerations = list(129, lists.tolerations[2]) } } }
    assert.is_true((j:check{ target = "operator", name = "j" }))
  end)
end)
