-- Reading faults black-box testers found (misc_read), one describe per
-- fault; the expected values come from the documented semantics (check
-- returns every problem, each with its path; Law 3: every field of the
-- manifest present again; server-set fields listed in info.ignored) and
-- Kubernetes / Kueue behaviour, never from kfjob's own output.
local kfjob = require "kfjob"
local util = require "util"

local function paths(probs)
  local t = {}
  for _, p in ipairs(probs or {}) do t[#t + 1] = p.path .. " " .. p.rule end
  table.sort(t)
  return t
end

-- A TrainJob runs master and workers as one `node` job with one container,
-- one resourcesPerNode and one runtime patch: each way the groups differ is
-- a problem of its own.
describe("every per-group difference on Trainer is a problem of its own", function()
  local GROUPENV = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: groupenv
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/g:1
            command: ["torchrun", "train.py"]
            args: ["--save-checkpoints"]
            env:
            - name: ROLE
              value: master
            - name: COMMON
              value: "1"
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/g:1
            command: ["torchrun", "train.py"]
            env:
            - name: COMMON
              value: "1"
]]

  it("R35: args and env that differ are both listed", function()
    local j = assert(kfjob.from_manifest(GROUPENV))
    local ok, probs = j:check{ target = "trainer-2.3" }
    assert.is_nil(ok)
    assert.same({ "worker.container.args R35", "worker.container.env R35" }, paths(probs))
    -- command, args and env at once
    j = kfjob.PyTorchJob{ container = { image = "i" },
                          master = { container = { command = { "a" }, args = { "x" }, env = { A = "1" } } },
                          worker = { replicas = 1 } }
    ok, probs = j:check{ target = "trainer-2.3" }
    assert.is_nil(ok)
    assert.same({ "worker.container.args R35", "worker.container.command R35", "worker.container.env R35" },
                paths(probs))
  end)

  it("R21: every resource that differs is listed", function()
    local j = kfjob.PyTorchJob{ container = { image = "i" },
                                master = { requests = { cpu = 1, mem = "1Gi" } },
                                worker = { replicas = 2, requests = { cpu = 2, mem = "2Gi" } } }
    local ok, probs = j:check{ target = "trainer-2.3" }
    assert.is_nil(ok)
    assert.same({ "worker.requests.cpu R21", "worker.requests.mem R21" }, paths(probs))
  end)

  it("R31: a pod template and a topology that both differ are both listed", function()
    local j = kfjob.PyTorchJob{ container = { image = "i" },
                                master = { pod_template = { metadata = { labels = { a = "1" } } } },
                                worker = { replicas = 2, topology = { required = "rack" } } }
    local ok, probs = j:check{ target = "trainer-2.3" }
    assert.is_nil(ok)
    local got = paths(probs)
    assert.equal(2, #got)
    assert.matches("%.pod_template R31$", got[1])
    assert.matches("%.topology R31$", got[2])
  end)

  it("kfjob convert --to trainer-2.3 --lossy reports each on stderr", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(GROUPENV, "--to", "trainer-2.3", "--lossy")
    assert.equal(1, code)
    assert.equal("", out)
    -- named where they are in the manifest (0-based items)
    assert.matches("spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].args: differs from master's", err, 1, true)
    assert.matches("spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].env: differs from master's", err, 1, true)
  end)
end)

-- SPEC §14: server-set fields, creationTimestamp among them, are ignored
-- and listed in info.ignored; kubectl <= 1.33 prints a zero ObjectMeta
-- time as `creationTimestamp: null` (apimachinery meta/v1 time.go), in the
-- resource's metadata and in every pod template's.
describe("creationTimestamp: null is listed in info.ignored", function()
  local DRY = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: dry
  creationTimestamp: null
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        metadata:
          creationTimestamp: null
        spec:
          containers:
          - name: pytorch
            image: img
    Worker:
      replicas: 1
      template:
        metadata:
          creationTimestamp: null
          labels:
            app: w
        spec:
          containers:
          - name: pytorch
            image: img
]]
  local function sorted(t)
    local c = {}
    for i, v in ipairs(t or {}) do c[i] = v end
    table.sort(c)
    return c
  end

  it("in the resource's metadata and in each pod template's", function()
    local j, info = kfjob.from_manifest(DRY)
    assert.truthy(j, info)
    assert.same({ "metadata.creationTimestamp",
                  "spec.pytorchReplicaSpecs.Master.template.metadata.creationTimestamp",
                  "spec.pytorchReplicaSpecs.Worker.template.metadata.creationTimestamp" },
                sorted(info.ignored))
  end)

  it("as a non-null one is; neither is written", function()
    local doc = DRY:gsub("  name: dry\n  creationTimestamp: null", "  name: dry\n  creationTimestamp: \"2024-01-01T00:00:00Z\"")
    local j, info = kfjob.from_manifest(doc)
    assert.truthy(j, info)
    assert.same({ "metadata.creationTimestamp",
                  "spec.pytorchReplicaSpecs.Master.template.metadata.creationTimestamp",
                  "spec.pytorchReplicaSpecs.Worker.template.metadata.creationTimestamp" },
                sorted(info.ignored))
    assert.is_nil(j:manifest{ name = "dry", format = "yaml" }:find("creationTimestamp", 1, true))
  end)

  it("a stream's documents each list their own", function()
    local r = assert(kfjob.from_manifests(DRY .. "---\n" .. (DRY:gsub("  creationTimestamp: null\n", "", 1))))
    assert.equal(3, #r[1].info.ignored)
    assert.equal(2, #r[2].info.ignored)
  end)
end)

-- Kueue reads a kubeflow job's queue from the job's own labels (FACTS §9.1:
-- metadata.labels["kueue.x-k8s.io/queue-name"] on the CR); people copy it
-- into the pod templates too.  That copy is harmless and Law 3 asks for
-- every field of the manifest again: it stays in the pod templates.
describe("a pod template's copy of scheduling's Kueue label round-trips", function()
  local KQ = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: kq
  namespace: team-k
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        metadata:
          labels:
            kueue.x-k8s.io/queue-name: user-queue
            app: kq
        spec:
          containers:
          - name: pytorch
            image: registry.example/kq:1
            command: ["python", "train.py"]
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        metadata:
          labels:
            kueue.x-k8s.io/queue-name: user-queue
            app: kq
        spec:
          containers:
          - name: pytorch
            image: registry.example/kq:1
            command: ["python", "train.py"]
]]
  local QL = "kueue.x-k8s.io/queue-name"
  local WANT = { [QL] = "user-queue", app = "kq" }

  it("reads into the pod template beside scheduling.queue, and is written again", function()
    local j, info = kfjob.from_manifest(KQ)
    assert.truthy(j, info)
    assert.equal("user-queue", j:spec().scheduling.queue)
    assert.same(WANT, j:spec().pod_template.metadata.labels)
    assert.same({}, info.unmapped)
    local m = util.doc1(j:manifest{ name = "kq", format = "yaml" })
    assert.same({ [QL] = "user-queue" }, m.metadata.labels)
    for _, g in ipairs{ "Master", "Worker" } do
      assert.same(WANT, m.spec.pytorchReplicaSpecs[g].template.metadata.labels, g)
    end
  end)

  it("a config may repeat scheduling's Kueue labels in a pod template (Law 1)", function()
    local cases = {
      { scheduling = { queue = "lq" }, labels = { [QL] = "lq" } },
      { scheduling = { priority_class = "high" }, labels = { ["kueue.x-k8s.io/priority-class"] = "high" } },
      { scheduling = { max_exec_time = 600 }, labels = { ["kueue.x-k8s.io/max-exec-time-seconds"] = "600" } },
    }
    for _, c in ipairs(cases) do
      for _, at in ipairs{ "job", "worker" } do
        local t = { master = { image = "i" }, worker = { replicas = 1, image = "i" }, scheduling = c.scheduling }
        local pt = { metadata = { labels = c.labels } }
        if at == "job" then t.pod_template = pt else t.worker.pod_template = pt end
        local j = kfjob.PyTorchJob(t)
        for _, target in ipairs{ "operator", "trainer-2.3" } do
          if at == "job" or target == "operator" then
            local back = assert(kfjob.from_manifest(j:manifest{ name = "n", target = target, format = "yaml" }))
            assert.is_true(back == j, target .. " " .. at)
          end
        end
      end
    end
    local j = kfjob.MPIJob{ launcher = { image = "i" }, worker = { replicas = 1, image = "i" },
                            scheduling = { queue = "lq" }, pod_template = { metadata = { labels = { [QL] = "lq" } } } }
    assert.is_true(kfjob.from_manifest(j:manifest{ name = "n", target = "mpi-operator", format = "yaml" }) == j)
  end)

  it("another value, or one without scheduling, stays an error naming scheduling", function()
    local ok, err = pcall(kfjob.PyTorchJob, { master = { image = "i" }, worker = { replicas = 1, image = "i" },
                                               scheduling = { queue = "lq" },
                                               pod_template = { metadata = { labels = { [QL] = "other" } } } })
    assert.is_false(ok)
    assert.matches('pod_template.metadata.labels["' .. QL .. '"]', err, 1, true)
    assert.matches("scheduling.queue", err, 1, true)
    ok, err = pcall(kfjob.PyTorchJob, { master = { image = "i" }, worker = { replicas = 1, image = "i",
                                        pod_template = { metadata = { labels = { [QL] = "lq" } } } } })
    assert.is_false(ok)
    assert.matches('worker.pod_template.metadata.labels["' .. QL .. '"]', err, 1, true)
    assert.matches("scheduling.queue", err, 1, true)
    -- a manifest's pod template value other than the resource's
    local j, msg = kfjob.from_manifest((KQ:gsub("            kueue.x%-k8s.io/queue%-name: user%-queue\n            app: kq",
                                                 "            kueue.x-k8s.io/queue-name: other\n            app: kq", 1)))
    assert.is_nil(j)
    assert.matches('Master.template.metadata.labels["' .. QL .. '"]', msg, 1, true)
  end)

  it("kfjob convert -f lua, config and config-yaml render it again (Law 3)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local want = util.doc1(KQ)
    for _, f in ipairs{ { "lua", ".lua" }, { "config", ".json" }, { "config-yaml", ".yaml" } } do
      local code, cfg, err = util.conv(KQ, "-f", f[1])
      assert.equal(0, code, err)
      local path = util.tmp(cfg, f[2])
      local code2, out, err2 = util.kfjob("render", path, "-f", "manifest", "--target", "operator")
      os.remove(path)
      assert.equal(0, code2, err2)
      local m = util.doc1(out)
      assert.same(want.metadata.labels, m.metadata.labels, f[1])
      for _, g in ipairs{ "Master", "Worker" } do
        assert.same(want.spec.pytorchReplicaSpecs[g].template.metadata.labels,
                    m.spec.pytorchReplicaSpecs[g].template.metadata.labels, f[1] .. " " .. g)
      end
    end
  end)
end)
