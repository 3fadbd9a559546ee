-- Issue 44, hardening round 5: `kfjob convert` converts a stream document
-- for document or fails naming the document (class 4), and the limits of
-- render apply to import too (class 5).  Expected behaviour from
-- Kubernetes' own: kubectl reads a v1 List's items as objects
-- (k8s.io/cli-runtime resource.Builder flattens lists), a kind is matched
-- exactly (the API server's REST mapping knows no "PytorchJob"), and two
-- objects of one name in two namespaces are two objects.
local util = require "util"
local kfjob = require "kfjob"

describe("hardening round 5: from_manifests", function()
  it("a document without apiVersion or kind, or not an object, is skipped (it crashed)", function()
    local r = assert(kfjob.from_manifests("a: 1\n---\n- x\n---\n3\n"))
    assert.equal(0, #r)
    assert.equal(3, #r.skipped)
    assert.same({ 1, 2, 3 }, { r.skipped[1].index, r.skipped[2].index, r.skipped[3].index })
    assert.is_nil(r.skipped[1].kind)
  end)
end)

describe("hardening round 5: from_manifests reads a List's items and refuses misspelt kinds", function()
  local PT = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: NAME
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
]]
  local function indent(text, pre)
    return (text:gsub("([^\n]+)", pre .. "%1"))
  end

  it("a v1 List (kubectl get -o yaml): each item a document, in its place", function()
    local list = "apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n" ..
      "-" .. indent(PT:gsub("NAME", "b"), "  "):sub(2) ..
      "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n"
    local r = assert(kfjob.from_manifests(PT:gsub("NAME", "a") .. "---\n" .. list))
    assert.equal(2, #r)
    assert.equal("a", r[1].info.name)
    assert.is_nil(r[1].info.item)
    assert.equal("b", r[2].info.name)
    assert.equal(1, r[2].info.item)
    assert.equal(1, #r.skipped)
    assert.same({ 2, 2, "ConfigMap" }, { r.skipped[1].index, r.skipped[1].item, r.skipped[1].kind })
  end)

  it("a typed list's items without apiVersion and kind are of the list's kind", function()
    local item = PT:gsub("NAME", "c"):gsub("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n", "")
    local r = assert(kfjob.from_manifests("apiVersion: kubeflow.org/v1\nkind: PyTorchJobList\nitems:\n-" ..
                                          indent(item, "  "):sub(2)))
    assert.equal(1, #r)
    assert.equal("c", r[1].info.name)
    assert.equal("PyTorchJob", r[1].info.kind)
  end)

  it("a misspelt kind, another version, an unknown kind of kubeflow.org: the stream fails naming the document", function()
    local good = PT:gsub("NAME", "a") .. "---\n"
    for _, case in ipairs({
      { "apiVersion: kubeflow.org/v1\nkind: PytorchJob\nmetadata: {name: x}\n",
        "document 2 (line 15): apiVersion kubeflow.org/v1, kind PytorchJob: not a kind kfjob reads (did you mean 'PyTorchJob'?)" },
      { "apiVersion: kubeflow.org/v2\nkind: PyTorchJob\nmetadata: {name: x}\n",
        "document 2 (line 15): apiVersion kubeflow.org/v2, kind PyTorchJob: not an apiVersion kfjob reads it in (it reads PyTorchJob as kubeflow.org/v1)" },
      { "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJobs\nmetadata: {name: x}\n",
        "did you mean 'TrainJob'?" },
      { "apiVersion: kubeflow.org/v1\nkind: Foo\nmetadata: {name: x}\n",
        "document 2 (line 15): apiVersion kubeflow.org/v1, kind Foo: not a kind kfjob reads of kubeflow.org" },
    }) do
      local r, msg = kfjob.from_manifests(good .. case[1])
      assert.is_nil(r)
      assert.matches(case[2], msg, 1, true)
    end
    -- other groups' kinds, and kinds of these groups kfjob knows, are skipped as before
    local r = assert(kfjob.from_manifests(good ..
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n---\n" ..
      "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: r}\n---\n" ..
      "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: t}\n---\n" ..
      "apiVersion: kubeflow.org/v1\nkind: Notebook\nmetadata: {name: n}\n"))
    assert.equal(1, #r)
    assert.equal(4, #r.skipped)
  end)

  it("a List in a List is refused naming the document", function()
    local r, msg = kfjob.from_manifests("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n")
    assert.is_nil(r)
    assert.matches("document 1, items[0]: a List inside a List", msg, 1, true)
  end)
end)

if not util.cli_ok then
  describe("hardening round 5: convert", function() pending(util.cli_why()) end)
  return
end

local lyaml = require "lyaml"
local run, quote = util.run_cli, util.quote

local TMP = util.tmpdir()
local put, listdir = util.writer(TMP), util.listdir   -- a file in TMP; a directory's names

-- CPU seconds and exit code (util.cli_cpu): no wall-clock bound in a test
local cpu_timed = util.cli_cpu

local function pytorch(name, ns, kind, image)
  return ([[
apiVersion: kubeflow.org/v1
kind: KIND
metadata:
  name: NAME
NSLINEspec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: IMAGE
            command: [python, train.py]
]]):gsub("KIND", kind or "PyTorchJob"):gsub("NAME", name)
     :gsub("NSLINE", ns and ("  namespace: " .. ns .. "\n") or "")
     :gsub("IMAGE", image or "img:1")
end

local function docs_of(text)
  local out = {}
  for _, d in ipairs(lyaml.load(text, { all = true })) do
    if d ~= lyaml.null and d ~= nil then out[#out + 1] = d end
  end
  return out
end

describe("import is linear in the size of a manifest", function()
  local function many(n, where)
    local t = { "apiVersion: kubeflow.org/v1", "kind: PyTorchJob", "metadata:", "  name: big" }
    if where == "labels" then
      t[#t + 1] = "  labels:"
      for i = 1, n do t[#t + 1] = ("    l%d: v"):format(i) end
    end
    t[#t + 1] = "spec:"
    if where == "unknown" then
      for i = 1, n do t[#t + 1] = ("  unknownKey%d: %d"):format(i, i) end
    end
    t[#t + 1] = [[
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          nodeSelector:]]
    for i = 1, (where == "selector" and n or 1) do t[#t + 1] = ("            n%d: v"):format(i) end
    t[#t + 1] = [[
          containers:
          - name: pytorch
            image: img:1]]
    return table.concat(t, "\n") .. "\n"
  end

  -- each took 3 to 30 s before (a walk of every row per key, an
  -- insertion sort): n log n takes a fifth of a second of CPU time.  The
  -- bounds are CPU seconds (a busy machine does not lengthen them) and the
  -- runs have an hour's time limit, far above what they need.
  it("60 000 unknown keys (listed with --lossy)", function()
    local p = put("unknown.yaml", many(60000, "unknown"))
    local s, code = cpu_timed("convert", p, "--lossy", "--time-limit", "1h")
    assert.equal(0, code)
    assert.is_true(s < 10, ("took %.1f s of CPU time"):format(s))
    local c, _, err = run(nil, "convert", p, "--time-limit", "1h")
    assert.equal(1, c)
    local n = 0
    for _ in err:gmatch("spec%.unknownKey%d+: unknown field") do n = n + 1 end
    assert.equal(60000, n)   -- each key one line, none lost
  end)

  it("60 000 labels of the job, 60 000 node selector labels of a pod template", function()
    for _, w in ipairs({ "labels", "selector" }) do
      local p = put(w .. ".yaml", many(60000, w))
      local s, code = cpu_timed("convert", p, "--time-limit", "1h")
      assert.equal(0, code, w)
      assert.is_true(s < 4, ("%s took %.1f s of CPU time"):format(w, s))
    end
  end)
end)

describe("import is linear in a pod's volumes and mounts", function()
  it("20 000 volumes, each mounted (a lookup of each mount's volume in a sorted list)", function()
    local t = { [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: vols
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          volumes:]] }
    for i = 1, 20000 do t[#t + 1] = ("          - name: v%d\n            emptyDir: {}"):format(i) end
    t[#t + 1] = "          containers:\n          - name: pytorch\n            image: img:1\n            volumeMounts:"
    for i = 1, 20000 do t[#t + 1] = ("            - name: v%d\n              mountPath: /m/%d"):format(i, i) end
    local p = put("vols.yaml", table.concat(t, "\n") .. "\n")
    -- 10 s before; CPU seconds, an hour's time limit (as above)
    local s, code = cpu_timed("convert", p, "--time-limit", "1h")
    assert.equal(0, code)
    assert.is_true(s < 4, ("took %.1f s of CPU time"):format(s))
    -- a mount of no volume is still refused, naming it
    local c2, _, err = run(nil, "convert", put("novol.yaml", (table.concat(t, "\n") .. "\n"):gsub("name: v20000\n              mountPath", "name: nope\n              mountPath")), "--time-limit", "1h")
    assert.equal(1, c2)
    assert.matches('volumeMounts[19999].name: Not found: "nope"', err, 1, true)
  end)
end)

describe("convert reads at most 16 MiB", function()
  -- a file that never ends: the run stops (how soon is the machine's load;
  -- without the cap it reads until memory runs out, and fails otherwise)
  it("/dev/zero: stops at the cap, exit 2", function()
    local c, out, err = run(nil, "convert", "/dev/zero")
    assert.equal(2, c)
    assert.equal("", out)
    assert.matches("/dev/zero: input larger than the limit of 16 MiB", err, 1, true)
  end)

  it("a stream on stdin one byte over 16 MiB: exit 2; a manifest at the limit is read", function()
    local job = pytorch("bert", "ml")
    local pad = (16 * 1024 * 1024) - #job
    local c, _, err = run(job .. ("#"):rep(pad) .. "\n", "convert", "-")
    assert.equal(2, c)
    assert.matches("stdin: input larger than the limit of 16 MiB", err, 1, true)
    c = run(job .. "#" .. ("x"):rep(pad - 2) .. "\n", "convert", "-", "--time-limit", "1h")
    assert.equal(0, c)
  end)
end)

describe("convert has render's time limit", function()
  local function stream(n)
    local t = {}
    for i = 1, n do t[i] = pytorch("j" .. i, "ml") end
    return table.concat(t, "---\n")
  end

  -- The stream ends on its own (16 MiB and 16 384 documents at most), so
  -- the limits are far below what the whole run needs on a fast quiet
  -- machine (0.3 s, and 0.9 s with -f lua, of CPU here): a busy machine
  -- only stops it sooner.  With the 100 ms and 300 ms they had, a machine
  -- about three times as fast as this one would finish within them.
  it("--time-limit stops a long stream (the host import honours time_limit_ms)", function()
    local p = put("stream.yaml", stream(12000))
    local code, out, err = run(nil, "convert", p, "--time-limit", "10ms")
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("stream.yaml: time limit exceeded (10 ms) (raise it with --time-limit)", err, 1, true)
    code, out, err = run(nil, "convert", p, "-f", "lua", "--time-limit", "30ms")   -- one limit for all passes
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("time limit exceeded (30 ms)", err, 1, true)
    code = run(nil, "convert", p, "--time-limit", "0")   -- 0: none, as render's
    assert.equal(0, code)
    local c3, _, e3 = run(nil, "convert", p, "--time-limit", "soon")
    assert.equal(2, c3)
    assert.matches("--time-limit expects a duration", e3, 1, true)
  end)

  it("a config's from_manifests is interrupted at --time-limit, not after its last document", function()
    local cfg = put("slow.lua", [[
local kfjob = require "kfjob"
local keys = {}
for i = 1, 20000 do keys[i] = ("  unknownKey%d: %d"):format(i, i) end
local doc = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: big\nspec:\n" ..
  table.concat(keys, "\n") .. "\n  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n" ..
  "      template:\n        spec:\n          containers:\n          - name: pytorch\n" ..
  "            image: img:1\n"
local r = assert(kfjob.from_manifests(string.rep(doc, 30, "---\n"), { lossy = true }))
return r[1].job
]])
    -- the work each run does, in CPU seconds: on a busy machine the cut run
    -- gets less CPU time before its wall-clock limit, never more, and the
    -- whole run (an hour's limit, far above what it needs) the same.  A
    -- faster machine shrinks the whole run, not the limit: 100 ms is a
    -- tenth of what the whole run needs even on a machine twice as fast as
    -- this one (1.8 s of CPU here; the cut run took 0.4 s with 100 ms or
    -- 300 ms: its first check comes that late).  With 300 ms, a machine
    -- about three times as fast would fail it.
    local whole, code = cpu_timed("render", cfg, "-f", "manifest", "--memory-limit", "2G",
                                  "--time-limit", "1h")
    assert.equal(0, code)
    local cut
    cut, code = cpu_timed("render", cfg, "-f", "manifest", "--memory-limit", "2G", "--time-limit", "100ms")
    assert.equal(1, code)
    assert.is_true(cut < whole / 2, ("%.2f s of %.2f s of CPU time"):format(cut, whole))
    local _, _, err = run(nil, "render", cfg, "-f", "manifest", "--memory-limit", "2G",
                          "--time-limit", "100ms")
    assert.matches("slow.lua:%d+: time limit exceeded %(100 ms%)", err)
  end)
end)

describe("convert -o DIR writes all files or none", function()
  local CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\ndata:\n  a: b\n"

  it("a later document whose name cannot be a file: nothing written, exit 2", function()
    local p = put("later-bad.yaml", pytorch("bert", "ml") .. "---\n" .. CM:gsub("NAME", "../x"))
    local dir = TMP .. "/out-bad"
    local code, _, err = run(nil, "convert", p, "-o", dir)
    assert.equal(2, code)
    assert.matches("document 2: 'configmap%-%.%./x%.manifest%.yaml' cannot be a file name", err)
    assert.same({}, listdir(dir))
  end)

  it("a later file whose name a directory holds: nothing written, no temporary file left", function()
    local p = put("later-dir.yaml", pytorch("bert", "ml") .. "---\n" .. pytorch("gpt", "ml"))
    local dir = TMP .. "/out-dir"
    assert(os.execute("mkdir -p " .. quote(dir .. "/gpt.manifest.yaml")))
    local code, _, err = run(nil, "convert", p, "-o", dir)
    assert.equal(2, code)
    assert.matches("cannot write .*/gpt%.manifest%.yaml: Is a directory %(nothing written%)", err)
    assert.same({ "gpt.manifest.yaml" }, listdir(dir))
    -- and with every name free, both are there
    dir = TMP .. "/out-ok"
    assert.equal(0, (run(nil, "convert", p, "-o", dir)))
    assert.same({ "bert.manifest.yaml", "gpt.manifest.yaml" }, listdir(dir))
  end)
end)

describe("convert: a List's jobs and misspelt kinds", function()
  it("a v1 List's items convert document for document", function()
    local list = "apiVersion: v1\nkind: List\nitems:\n" ..
      "- apiVersion: kubeflow.org/v1\n  kind: PyTorchJob\n  metadata:\n    name: two\n  spec:\n" ..
      "    pytorchReplicaSpecs:\n      Master:\n        replicas: 1\n        template:\n" ..
      "          spec:\n            containers:\n            - name: pytorch\n              image: img:2\n" ..
      "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n"
    local p = put("list.yaml", pytorch("one", "a") .. "---\n" .. list)
    local code, out, err = run(nil, "convert", p)
    assert.equal(0, code)
    local d = docs_of(out)
    assert.equal(3, #d)
    assert.same({ "PyTorchJob", "PyTorchJob", "ConfigMap" }, { d[1].kind, d[2].kind, d[3].kind })
    assert.same({ "one", "two", "cm" }, { d[1].metadata.name, d[2].metadata.name, d[3].metadata.name })
    assert.matches("document 2, item 2 (ConfigMap cm): not a job kfjob reads: copied through", err, 1, true)
    code, out = run(nil, "convert", p, "--to", "trainer-2.3", "--lossy")
    assert.equal(0, code)
    d = docs_of(out)
    assert.same({ "TrainJob", "TrainJob", "ConfigMap" }, { d[1].kind, d[2].kind, d[3].kind })
    code, out = run(nil, "convert", p, "-f", "lua")
    assert.equal(0, code)
    assert.matches("one = kfjob.PyTorchJob", out, 1, true)
    assert.matches("two = kfjob.PyTorchJob", out, 1, true)
  end)

  it("a misspelt kind in a stream: exit 2, the document named, a did-you-mean, nothing written", function()
    local p = put("typo.yaml", pytorch("one", "a") .. "---\n" .. pytorch("two", "a", "PytorchJob"))
    local code, out, err = run(nil, "convert", p)
    assert.equal(2, code)
    assert.equal("", out)
    assert.matches("typo.yaml: kfjob.from_manifests: document 2 (line 18): apiVersion kubeflow.org/v1, " ..
                   "kind PytorchJob: not a kind kfjob reads (did you mean 'PyTorchJob'?)", err, 1, true)
    local dir = TMP .. "/typo-out"
    code = run(nil, "convert", p, "-o", dir)
    assert.equal(2, code)
    assert.same({}, listdir(dir))
    -- alone too
    local c3, _, e3 = run(nil, "convert", put("typo1.yaml", pytorch("two", "a", "PytorchJob")))
    assert.equal(2, c3)
    assert.matches("did you mean 'PyTorchJob'?", e3, 1, true)
  end)

  it("a ConfigMap is still copied through, a Service alone still exit 1", function()
    local p = put("cm.yaml", pytorch("one", "a") .. "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n")
    local code, out = run(nil, "convert", p)
    assert.equal(0, code)
    assert.equal(2, #docs_of(out))
  end)
end)

describe("convert: a document of another kind is copied through as written", function()
  -- flow style, comments and quoting stay: the same document, not a re-serialisation
  local cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}  # settings\ndata: {a: 'b'}\n"

  it("in a stream, to the input's own target and to another", function()
    local p = put("cm-kept.yaml", pytorch("one", "a") .. "--- # the job's settings\n" .. cm .. "\n\n")
    for _, args in ipairs { {}, { "--to", "trainer-2.3" } } do
      local code, out, err = run(nil, "convert", p, (table.unpack or unpack)(args))
      assert.equal(0, code, err)
      assert.truthy(out:find("---\n" .. cm, 1, true), out)
      assert.matches("copied through unchanged", err, 1, true)
    end
  end)

  it("a List's item is written from what was read (it has no text of its own)", function()
    local list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cm}\n"
    local code, out = run(nil, "convert", put("cm-list.yaml", pytorch("one", "a") .. "---\n" .. list))
    assert.equal(0, code)
    assert.truthy(out:find("metadata:\n  name: cm\n", 1, true), out)
  end)
end)

describe("convert: two jobs of one name stay two", function()
  local two = pytorch("bert", "a", nil, "img:a") .. "---\n" .. pytorch("bert", "b", nil, "img:b")

  it("-o DIR: one file each, named by namespace where the names collide (a line on stderr)", function()
    local p = put("two.yaml", two .. "---\n" .. pytorch("gpt", "a"))
    local dir = TMP .. "/two-out"
    local code, _, err = run(nil, "convert", p, "-o", dir)
    assert.equal(0, code)
    assert.same({ "a.bert.manifest.yaml", "b.bert.manifest.yaml", "gpt.manifest.yaml" }, listdir(dir))
    local a = lyaml.load(util.slurp(dir .. "/a.bert.manifest.yaml"))
    local b = lyaml.load(util.slurp(dir .. "/b.bert.manifest.yaml"))
    assert.same({ "bert", "a", "img:a" }, { a.metadata.name, a.metadata.namespace,
      a.spec.pytorchReplicaSpecs.Master.template.spec.containers[1].image })
    assert.same({ "bert", "b", "img:b" }, { b.metadata.name, b.metadata.namespace,
      b.spec.pytorchReplicaSpecs.Master.template.spec.containers[1].image })
    assert.matches("document 2: 'bert' of namespace b written as 'b.bert' (another document has its name)",
                   err, 1, true)
    -- the same name, kind and namespace twice: told apart by kind, then document
    dir = TMP .. "/dup-out"
    code = run(nil, "convert", put("dup.yaml", pytorch("x", "a") .. "---\n" .. pytorch("x", "a")), "-o", dir)
    assert.equal(0, code)
    assert.same({ "a.pytorchjob.x.1.manifest.yaml", "a.pytorchjob.x.2.manifest.yaml" }, listdir(dir))
  end)

  it("-f lua: two keys, each job keeping its name (opts.name), which render gives back", function()
    local p = put("two-lua.yaml", two)
    local code, out = run(nil, "convert", p, "-f", "lua")
    assert.equal(0, code)
    local cfg = put("two.lua", out)
    local c2, manifests = run(nil, "render", cfg, "-f", "manifest")
    assert.equal(0, c2)
    local d = docs_of(manifests)
    assert.equal(2, #d)
    table.sort(d, function(x, y) return x.metadata.namespace < y.metadata.namespace end)
    assert.same({ "bert", "a", "bert", "b" }, { d[1].metadata.name, d[1].metadata.namespace,
      d[2].metadata.name, d[2].metadata.namespace })
    assert.equal("img:b", d[2].spec.pytorchReplicaSpecs.Master.template.spec.containers[1].image)
  end)

  it("-f config (one data config names a job by its key alone): refused, not one dropped", function()
    local p = put("two-cfg.yaml", two)
    local code, out, err = run(nil, "convert", p, "-f", "config")
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("two jobs have one name", err, 1, true)
    local dir = TMP .. "/two-cfg"
    code = run(nil, "convert", p, "-f", "config", "-o", dir)   -- a file each: both kept
    assert.equal(0, code)
    assert.same({ "a.bert.json", "b.bert.json" }, listdir(dir))
  end)

  it("--name on a stream of several jobs: exit 2, nothing written", function()
    local p = put("two-name.yaml", pytorch("bert", "a") .. "---\n" .. pytorch("gpt", "a"))
    local dir = TMP .. "/two-name"
    local code, out, err = run(nil, "convert", p, "--name", "x", "-o", dir)
    assert.equal(2, code)
    assert.equal("", out)
    assert.matches("--name names one job, and there are 2", err, 1, true)
    assert.same({}, listdir(dir))
    code = run(nil, "convert", p, "--name", "x")
    assert.equal(2, code)
    -- one job (and a ConfigMap beside it): renamed as before
    code, out = run(nil, "convert", put("one-name.yaml", pytorch("bert", "a") ..
      "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"), "--name", "x")
    assert.equal(0, code)
    assert.equal("x", docs_of(out)[1].metadata.name)
  end)
end)
