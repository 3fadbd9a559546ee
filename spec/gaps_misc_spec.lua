-- Issue 39, "Gaps in what the last round delivered": kfjob diff (keys given
-- twice, lists Kubernetes merges by key, quantities by value), the data
-- config schema's error paths, the GPU-limit lint, /dev/shm mounts written
-- another way, the LuaCATS file's standalone groups and variants options,
-- and the public header's doc comments.
local kfjob = require "kfjob"
local util = require "util"

local ROOT = (debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or ".") .. "/.."

local function spit(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

local function lint_paths(job)
  local t = {}
  for _, w in ipairs(job:lint()) do t[#t + 1] = w.path end
  return t
end

-- ---- kfjob diff ----------------------------------------------------------

describe("kfjob diff (issue 39)", function()
  if not util.cli_ok then return pending(util.cli_why()) end
  local kfjob_cli = util.kfjob
  local TMP = os.tmpname()
  os.remove(TMP)
  assert(util.sh_ok("mkdir -p " .. util.quote(TMP)))
  local function path(name) return TMP .. "/" .. name end

  teardown(function() util.sh_ok("rm -rf " .. util.quote(TMP)) end)

  -- a PyTorchJob manifest (kubeflow.org/v1) whose Worker pod spec is `pod`
  local function manifest(pod)
    return table.concat({
      "apiVersion: kubeflow.org/v1", "kind: PyTorchJob", "metadata:", "  name: bert", "spec:",
      "  pytorchReplicaSpecs:", "    Worker:", "      replicas: 2", "      template:",
      "        spec:", pod }, "\n") .. "\n"
  end
  local W = "spec.pytorchReplicaSpecs.Worker.template.spec."

  describe("refuses a key given twice, as decode and the manifest reader do", function()
    -- YAML 1.2 (2.2 Structures): "mapping keys are unique"; the host's
    -- readers refuse the document, diff read the last value
    it("YAML: names file, document, line and path", function()
      spit(path("dup.yaml"), "a: 1\n---\nb:\n  - c: 1\n    d: 2\n  - c: 1\n    c: 2\n")
      local code, out, err = kfjob_cli("diff", path("dup.yaml"), path("dup.yaml"))
      assert.equal(2, code)
      assert.equal("", out)
      assert.equal("kfjob: " .. path("dup.yaml") .. ": document 2, line 7: b[1]: duplicate key 'c' "
                   .. "(first given on line 6)\n", err)
      spit(path("meta.yaml"), "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: a\n  name: b\n")
      code, out, err = kfjob_cli("diff", path("meta.yaml"), path("meta.yaml"))
      assert.equal("", out)
      assert.equal(2, code)
      assert.truthy(err:find(": document 1, line 5: metadata: duplicate key 'name' (first given on line 4)",
                             1, true), err)
    end)

    it("JSON and JSON lines: jansson's words, with the document and the file's line", function()
      spit(path("dup.jsonl"), '{"a": 1}\n{"b": 1,\n  "b": 2}\n')
      local code, _, err = kfjob_cli("diff", path("dup.jsonl"), path("dup.jsonl"))
      assert.equal(2, code)
      assert.equal("kfjob: " .. path("dup.jsonl") .. ": document 2, line 3, column 5: "
                   .. "duplicate object key near '\"b\"'\n", err)
    end)

    it("a custom JSON with a key twice: decode refuses it, and now diff too", function()
      spit(path("one.lua"), 'local kfjob = require "kfjob"\n'
           .. 'return kfjob.PyTorchJob{ worker = { replicas = 2 } }\n')
      local code, j = kfjob_cli("render", path("one.lua"))
      assert.equal(0, code)
      spit(path("twice.json"), (j:gsub('"replicas":2', '"replicas":2,"replicas":3')))
      code = kfjob_cli("decode", "--type", "pytorch", path("twice.json"))
      assert.equal(1, code)
      local out, err
      code, out, err = kfjob_cli("diff", path("twice.json"), path("twice.json"))
      assert.equal("", out)
      assert.equal(2, code)
      assert.truthy(err:find("twice.json: document 1, line 1, column %d+: duplicate object key near "
                             .. "'\"replicas\"'"), err)
    end)

    it("a render -f template-json line with a key twice: decode and diff refuse it", function()
      local code, t = kfjob_cli("render", path("one.lua"), "-f", "template-json")
      assert.equal(0, code)
      spit(path("tt.json"), (t:gsub('{"type":"pytorch",', '{"type":"pytorch","type":"pytorch",', 1)))
      local out, err
      code, out, err = kfjob_cli("decode", path("tt.json"))
      assert.equal("", out)
      assert.equal(1, code)
      assert.truthy(err:find("tt.json: line 1, column %d+: duplicate object key near '\"type\"'"), err)
      code = kfjob_cli("diff", path("tt.json"), path("tt.json"))
      assert.equal(2, code)
    end)
  end)

  describe("lists Kubernetes merges by key are compared by that key", function()
    -- k8s.io/api core/v1 types.go: PodSpec.Containers patchMergeKey "name",
    -- Container.Env "name", VolumeMounts "mountPath", Ports "containerPort"
    -- (list-map keys containerPort and protocol, protocol defaulting to TCP)
    local a = manifest(table.concat({
      "          containers:",
      "          - name: pytorch",
      "            image: img:1",
      "            env:",
      "            - { name: A, value: '1' }",
      "            - { name: X, value: a }",
      "            volumeMounts:",
      "            - { name: data, mountPath: /data dir }",
      "            ports:",
      "            - { containerPort: 53, protocol: UDP }",
      "            - { containerPort: 23456 }",
      "          volumes:",
      "          - { name: data, emptyDir: {} }",
    }, "\n"))

    it("an element inserted before another changes nothing else", function()
      local b = a:gsub("          containers:\n", "          containers:\n          - { name: sidecar, image: s }\n")
      spit(path("a.yaml"), a)
      spit(path("b.yaml"), b)
      local code, out = kfjob_cli("diff", path("a.yaml"), path("b.yaml"))
      assert.equal(1, code)
      assert.equal(table.concat({
        "~ bert:",
        "    " .. W .. 'containers[name=sidecar]: (absent) -> {"name":"sidecar","image":"s"}',
        "1 changed, 0 only in " .. path("a.yaml") .. ", 0 only in " .. path("b.yaml"), "" }, "\n"), out)
    end)

    it("paths name the element: containers[name=pytorch].env[name=X].value", function()
      local b = a:gsub("{ name: X, value: a }", "{ name: X, value: b }")
                 :gsub("{ containerPort: 23456 }", "{ containerPort: 23456, protocol: TCP, name: p }")
                 :gsub("{ containerPort: 53, protocol: UDP }", "{ containerPort: 53, protocol: UDP, name: dns }")
                 :gsub("mountPath: /data dir }", "mountPath: /data dir, readOnly: true }")
      spit(path("a.yaml"), a)
      spit(path("b.yaml"), b)
      local code, out = kfjob_cli("diff", path("a.yaml"), path("b.yaml"))
      assert.equal(1, code)
      local C = "    " .. W .. "containers[name=pytorch]."
      assert.equal(table.concat({
        "~ bert:",
        C .. 'env[name=X].value: "a" -> "b"',
        C .. 'volumeMounts[mountPath="/data dir"].readOnly: (absent) -> true',
        C .. 'ports[containerPort=53,protocol=UDP].name: (absent) -> "dns"',
        -- the same port: protocol TCP is its default (SetDefaults_ContainerPort)
        C .. 'ports[containerPort=23456].protocol: (absent) -> "TCP"',
        C .. 'ports[containerPort=23456].name: (absent) -> "p"',
        "1 changed, 0 only in " .. path("a.yaml") .. ", 0 only in " .. path("b.yaml"), "" }, "\n"), out)
    end)

    it("an order that means nothing is no change; env's order is one", function()
      -- containers and volumes: order has no meaning; env: a $(VAR)
      -- reference sees only the entries before it (Kubernetes
      -- "Define dependent environment variables")
      local two = a:gsub("          containers:\n", "          containers:\n          - { name: sidecar, image: s }\n")
      local swapped = two:gsub("          %- { name: sidecar, image: s }\n", "")
                         :gsub("(            %- { containerPort: 23456 }\n)", "%1          - { name: sidecar, image: s }\n")
      spit(path("a.yaml"), two)
      spit(path("b.yaml"), swapped)
      local code, out = kfjob_cli("diff", path("a.yaml"), path("b.yaml"))
      assert.equal(0, code, out)
      assert.equal("", out)
      spit(path("b.yaml"), (a:gsub("(            %- { name: A, value: '1' }\n)(            %- { name: X, value: a }\n)",
                                   "%2%1")))
      spit(path("a.yaml"), a)
      code, out = kfjob_cli("diff", path("a.yaml"), path("b.yaml"))
      assert.equal(1, code)
      assert.truthy(out:find("    " .. W .. 'containers[name=pytorch].env (order): ["name=A","name=X"] -> '
                             .. '["name=X","name=A"]\n', 1, true), out)
    end)
  end)

  describe("quantities compare by value (resource.Quantity), not by spelling", function()
    it("1Gi = 1073741824, 500m = 0.5, \"2\" = 2, 1024Mi = 1Gi", function()
      local function pod(mem, cpu, gpu, size)
        return manifest(table.concat({
          "          containers:",
          "          - name: pytorch",
          "            resources:",
          "              limits: { memory: " .. mem .. ", cpu: " .. cpu .. ", nvidia.com/gpu: " .. gpu .. " }",
          "          volumes:",
          "          - { name: shm, emptyDir: { medium: Memory, sizeLimit: " .. size .. " } }",
        }, "\n"))
      end
      spit(path("q1.yaml"), pod("1Gi", "500m", '"2"', "1Gi"))
      spit(path("q2.yaml"), pod("1073741824", "0.5", "2", "1024Mi"))
      local code, out = kfjob_cli("diff", path("q1.yaml"), path("q2.yaml"))
      assert.equal(0, code, out)
      assert.equal("", out)
      spit(path("q3.yaml"), pod("1G", "0.5", "2", "1Gi"))   -- 10^9 is not 2^30
      code, out = kfjob_cli("diff", path("q1.yaml"), path("q3.yaml"))
      assert.equal(1, code)
      assert.truthy(out:find('containers[name=pytorch].resources.limits.memory: "1Gi" -> "1G"', 1, true), out)
      -- a quantity is compared as one only where Kubernetes reads one
      spit(path("q4.yaml"), (pod("1Gi", "500m", '"2"', "1Gi"):gsub("name: bert", "name: '500m'")))
      spit(path("q5.yaml"), (pod("1Gi", "500m", '"2"', "1Gi"):gsub("name: bert", "name: '0.5'")))
      code = kfjob_cli("diff", path("q4.yaml"), path("q5.yaml"))
      assert.equal(1, code)
    end)

    it("in Flyte's resource entries too (flyteidl Resources.ResourceEntry, listed by name)", function()
      local function cfg(gpu, mem)
        return 'local kfjob = require "kfjob"\nreturn kfjob.PyTorchJob{ worker = { replicas = 2, '
               .. "limits = { gpu = " .. gpu .. ", mem = '" .. mem .. "' } } }\n"
      end
      assert(util.sh_ok("mkdir -p " .. util.quote(path("f1")) .. " " .. util.quote(path("f2"))
                        .. " " .. util.quote(path("f3"))))
      spit(path("f1/job.lua"), cfg("1", "1Gi"))
      spit(path("f2/job.lua"), cfg("'1000m'", "1024Mi"))
      local code, out = kfjob_cli("diff", path("f1/job.lua"), path("f2/job.lua"))
      assert.equal(0, code, out)
      assert.equal("", out)
      spit(path("f3/job.lua"), cfg("2", "1Gi"))
      code, out = kfjob_cli("diff", path("f1/job.lua"), path("f3/job.lua"))
      assert.equal(1, code)
      assert.truthy(out:find('custom.workerReplicas.resources.limits[name=GPU].value: "1" -> "2"', 1, true), out)
    end)
  end)

  it("--help documents the notation", function()
    local code, out = kfjob_cli("diff", "--help")
    assert.equal(0, code)
    assert.truthy(out:find("containers[name=pytorch].env[name=X].value", 1, true), out)
    assert.truthy(out:find("1Gi = 1073741824", 1, true), out)
  end)
end)

-- ---- the data config schema: errors where the mistake is -------------------

describe("kfjob.schema(): a validator reports each mistake at its path (issue 39)", function()
  local PY = "env -u LD_PRELOAD python3"
  local function have_jsonschema()
    return util.sh_ok(PY .. " -c 'import jsonschema'")
  end

  -- every error of python3-jsonschema's Draft202012Validator for each
  -- document, as "path: message" lines (path: the instance path, / joined)
  local function errors(schema, docs)
    local sfile, dfile, pyfile = os.tmpname(), os.tmpname(), os.tmpname()
    spit(sfile, schema)
    spit(dfile, table.concat(docs, "\n") .. "\n")
    spit(pyfile, [[
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(s)
v = jsonschema.Draft202012Validator(s)
for line in open(sys.argv[2]):
    es = sorted(v.iter_errors(json.loads(line)), key=lambda e: list(map(str, e.absolute_path)))
    print(" | ".join("/".join(map(str, e.absolute_path)) + ": " + e.message for e in es))
]])
    local p = assert(io.popen(("%s %s %s %s"):format(PY, pyfile, sfile, dfile)))
    local out = p:read("*a")
    p:close()
    os.remove(sfile); os.remove(dfile); os.remove(pyfile)
    local t = {}
    for l in out:gmatch("([^\n]*)\n") do t[#t + 1] = l end
    return t
  end

  it("in each shape: one job, a list, {jobs = {name = job}}", function()
    if not have_jsonschema() then return pending("python3-jsonschema not installed") end
    assert.same({
      "worker: Additional properties are not allowed ('replcas' was unexpected)",
      "1/slots: 'x' is not of type 'integer'",
      "jobs/bert/master/image: 3 is not of type 'string'",
      "kind: 'TFjob' is not one of ['TFJob', 'PyTorchJob', 'Elastic', 'MPIJob', 'HorovodJob', "
        .. "'JAXJob', 'XGBoostJob', 'PaddleJob']",
      ": 'kind' is a required property",
      "jobs/a: 'kind' is a required property",
      "nnodes: 'a:b' is not valid under any of the given schemas",   -- the row's own anyOf
      "",
    }, errors(kfjob.schema(), {
      '{"kind": "TFJob", "worker": {"replcas": 2}}',
      '[{"kind": "PyTorchJob"}, {"kind": "MPIJob", "slots": "x"}]',
      '{"jobs": {"bert": {"kind": "PyTorchJob", "master": {"image": 3}}}}',
      '{"kind": "TFjob"}',
      '{"worker": {"replicas": 1}}',
      '{"jobs": {"a": {}}}',
      '{"kind": "Elastic", "nnodes": "a:b"}',
      '{"jobs": {"a": {"kind": "Elastic", "nnodes": "2:4"}}}',
    }))
  end)

  it("with a target: its kinds only", function()
    if not have_jsonschema() then return pending("python3-jsonschema not installed") end
    assert.same({ "kind: 'JAXJob' is not one of ['TFJob', 'PyTorchJob', 'Elastic', 'MPIJob', 'HorovodJob']" },
                errors(kfjob.schema(nil, { target = "flyte" }), { '{"kind": "JAXJob"}' }))
  end)
end)

-- ---- lint: a GPU limit alone -------------------------------------------------

describe("lint: a GPU limit alone is the usual form (issue 39)", function()
  -- Kubernetes gives a container's unset requests its limits (kubernetes
  -- pkg/apis/core/v1/defaults.go SetDefaults_Pod)
  it("says nothing of it, in any group", function()
    assert.same({}, lint_paths(kfjob.PyTorchJob{ master = { limits = { gpu = 1 } },
                                                 worker = { replicas = 2, limits = { gpu = 1 } },
                                                 shared_memory = true }))
    assert.same({}, lint_paths(kfjob.TFJob{ chief = { replicas = 1, limits = { gpu = 2 } },
                                            worker = { replicas = 2, limits = { gpu = 2 } } }))
  end)

  it("nor of a sweep's 50 jobs", function()
    local n = 0
    for _, job in kfjob.template.variants(kfjob.PyTorchJob{ master = { limits = { gpu = 1 } },
                                                            worker = { limits = { gpu = 1 } },
                                                            shared_memory = true },
                                          { ["worker.replicas"] = (function()
                                              local t = {}
                                              for i = 1, 50 do t[i] = i end
                                              return t
                                            end)() }) do
      n = n + #job:lint()
    end
    assert.equal(0, n)
  end)

  it("a request alone and a request unlike its limit still warn (the API server refuses them)", function()
    assert.same({ "worker.requests.gpu" },
                lint_paths(kfjob.TFJob{ worker = { replicas = 1, requests = { gpu = 1 } } }))
    assert.same({ "worker.requests.gpu" },
                lint_paths(kfjob.TFJob{ worker = { replicas = 1, requests = { gpu = 1 }, limits = { gpu = 2 } } }))
  end)
end)

-- ---- shared_memory and a /dev/shm mount written another way ------------------

describe("shared_memory against a primary-container mount at /dev/shm (issue 39)", function()
  local function job(mount_path, shm)
    return kfjob.PyTorchJob{ worker = { replicas = 1 }, shared_memory = shm,
      pod_template = { spec = { volumes = { { name = "shm", emptyDir = { medium = "Memory" } } },
        containers = { { name = "primary",
          volumeMounts = { { name = "shm", mountPath = mount_path } } } } } } }
  end

  -- Go's path.Clean, which the container runtimes apply to mount
  -- destinations: these all are /dev/shm
  for _, mp in ipairs({ "/dev/shm/", "//dev/shm", "/dev/shm/.", "/dev/./shm", "/dev/../dev/shm",
                        "/../dev/shm" }) do
    it(mp .. " conflicts, as /dev/shm does", function()
      assert.equal("kfjob.PyTorchJob: shared_memory: conflicts with pod_template.spec.containers[1]"
                   .. ".volumeMounts[1] (a mount at " .. mp .. ", which is /dev/shm)",
                   util.error_of(job, mp, true))
      -- and lint sees the mount: no "unset and no /dev/shm mount" warning
      assert.same({}, lint_paths(job(mp, nil)))
    end)
  end

  for _, mp in ipairs({ "/dev/shm/..", "/dev/shmx", "/x/dev/shm", "dev/shm", "/dev" }) do
    it(mp .. " is another path", function()
      assert.is_true(kfjob.is_job(job(mp, true)))
      assert.same({ "shared_memory" }, lint_paths(job(mp, nil)))
    end)
  end
end)

-- ---- library/kfjob.lua: standalone groups and variants' options -----------------

describe("library/kfjob.lua (kfjob.meta) (issue 39)", function()
  local text = kfjob.meta()

  -- the ---@field keys of a class
  local function fields_of(class)
    local block = text:match("\n%-%-%-@class %(exact%) " .. class:gsub("%.", "%%.") .. "\n(.-)\n\n")
    assert.is_string(block, class)
    local t = {}
    for key in block:gmatch("%-%-%-@field ([%w_]+)%?") do t[key] = true end
    return t
  end

  it("types each standalone group with every key that group takes in any kind", function()
    for _, role in ipairs({ "Worker", "Master", "PS", "Chief", "Evaluator", "Launcher" }) do
      local ty = text:match("\n%-%-%-@param t%? (%S+)\n%-%-%-@return table\nfunction kfjob%." .. role .. "%(")
      assert.is_string(ty, role)
      assert.is_nil(ty:find("|", 1, true), role .. ": a union of classes: " .. ty)
      local have = fields_of(ty)
      for _, kind in ipairs(kfjob.kinds) do
        for _, row in pairs(kfjob.fields(kind)) do
          if row.group == role then
            for key in pairs(row.fields) do
              assert.is_true(have[key], role .. " (" .. ty .. ") lacks " .. key .. " of " .. kind)
            end
          end
        end
      end
    end
    -- what the constructor accepts, MPI's command included
    assert.is_true(kfjob.Worker{ command = { "python", "train.py" } } ~= nil)
  end)

  it("lists every option kfjob.template.variants documents and accepts", function()
    local sig = text:match("\n%-%-%-@param opts%? (%b{})\n%-%-%-@return [^\n]*\nfunction kfjob%.template%.variants%(")
    assert.is_string(sig)
    local src = assert(util.slurp(ROOT .. "/lua/kfjob/template/variants.lua"))
    local n = 0
    for opt in src:gmatch("@tparam[^\n]- opts%.([%w_]+)") do
      n = n + 1
      assert.truthy(sig:find("[{ ]" .. opt .. "%?:"), "variants opts." .. opt .. " missing from " .. sig)
    end
    assert.is_true(n >= 5)
    -- and the option exists: an unknown one is refused by name
    assert.is_function(kfjob.template.variants({ kind = "TFJob", worker = { replicas = 1 } }, nil,
                                               { kind = "TFJob", vars = { tag = "x" } }))
  end)
end)

-- ---- include/kfjob.h ---------------------------------------------------------

describe("include/kfjob.h doc comments (issue 39)", function()
  it("every line of a /** */ block is a comment line (a \\return was a line break + 'eturn')", function()
    local h = assert(util.slurp(ROOT .. "/include/kfjob.h"))
    local bad, n = {}, 0
    -- the blocks before a declaration (a trailing /**< */ runs on unstarred)
    for block in h:gmatch("/%*%*\n(.-)%*/") do
      n = n + 1
      for line in block:gmatch("([^\n]*)\n") do
        if not line:match("^%s*%*") then bad[#bad + 1] = line end
      end
    end
    assert.is_true(n > 20)
    assert.same({}, bad)
    for line in h:gmatch("[^\n]+") do
      if line:find("\\return", 1, true) then assert.truthy(line:match("^%s*%*%s+\\return "), line) end
    end
  end)
end)

-- ---- an empty topology ---------------------------------------------------------

describe("an empty topology (found by the explain check of issue 39)", function()
  it("writes no annotation instead of failing with 'not enough memory'", function()
    local plain = kfjob.PyTorchJob { worker = { replicas = 1 } }
    local o = { target = "operator", image = "i", name = "x", format = "yaml" }
    for _, j in ipairs { kfjob.PyTorchJob { worker = { replicas = 1 }, scheduling = { topology = {} } },
                         kfjob.PyTorchJob { worker = { replicas = 1, topology = {} } } } do
      local ok, y = pcall(j.manifest, j, o)
      assert.is_true(ok, y)
      assert.equal(plain:manifest(o), y)
    end
  end)
end)
