-- An elastic PyTorchJob's elasticPolicy reads back as written (SPEC §14
-- Law 2, §16 Law 3, §17): rdzvBackend, maxRestarts and standalone are
-- written back for the operator exactly where the manifest had them.  The
-- training-operator defaults only elasticPolicy's minReplicas and
-- maxReplicas (v1.9 pkg/apis/kubeflow.org/v1/pytorch_defaults.go
-- SetDefaults_PyTorchJob); its pods get PET_RDZV_BACKEND = rdzvBackend else
-- c10d, PET_MAX_RESTARTS only when maxRestarts is set and PET_STANDALONE
-- only when standalone is true (pkg/controller.v1/pytorch/elastic.go; FACTS
-- §8 rows 11e, 13e, 17e).  Flyte's backend writes all five keys of its
-- elasticPolicy and flytekit's message always carries rdzv_backend (FACTS
-- §3, §4.5): those bytes stay what they were.
local kfjob = require "kfjob"
local util = require "util"
local unpack = table.unpack or unpack

-- A hand-written elastic PyTorchJob whose elasticPolicy has the lines given.
local function manifest(lines)
  return ([[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: el
spec:
  elasticPolicy:
    minReplicas: 1
    maxReplicas: 2
%s  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/train:1
]]):format(lines)
end

-- { name, the elasticPolicy lines, that elasticPolicy as data }
local CASES = {
  { "none of the three", "", {} },
  { "rdzvBackend c10d alone", "    rdzvBackend: c10d\n", { rdzvBackend = "c10d" } },
  { "maxRestarts 0 alone", "    maxRestarts: 0\n", { maxRestarts = 0 } },
  { "standalone false alone", "    standalone: false\n", { standalone = false } },
  { "rdzvBackend etcd and maxRestarts 3", "    rdzvBackend: etcd\n    maxRestarts: 3\n",
    { rdzvBackend = "etcd", maxRestarts = 3 } },
  { "all three, defaults", "    rdzvBackend: c10d\n    maxRestarts: 0\n    standalone: false\n",
    { rdzvBackend = "c10d", maxRestarts = 0, standalone = false } },
  { "standalone true", "    standalone: true\n", { standalone = true } },
}
local function policy(extra)
  local t = { minReplicas = 1, maxReplicas = 2 }
  for k, v in pairs(extra) do t[k] = v end
  return t
end

-- A pod's environment as name -> value.
local function env_names(pod)
  local t = {}
  for _, v in ipairs(pod.env) do t[v.name] = v.value end
  return t
end

-- The config script to_lua wrote, run: its one job.
local function run_lua(src)
  local env = setmetatable({ require = require }, { __index = _G })
  local chunk = assert((rawget(_G, "loadstring") or load)(src, "=to_lua", "t", env))
  if setfenv then setfenv(chunk, env) end
  local _, j = next(chunk())
  return j
end

describe("elasticPolicy read back as written for the operator", function()
  for _, c in ipairs(CASES) do
    local name, lines, extra = unpack(c)
    local want = policy(extra)

    it(name .. ": from_manifest, then manifest{target = operator} has the same elasticPolicy", function()
      local job, info = kfjob.from_manifest(manifest(lines))
      assert(job, info)
      assert.are.equal("operator", info.target)
      local out = job:manifest{ target = "operator", name = "el" }
      assert.are.same(want, out.spec.elasticPolicy)
      -- the values read, given or not (SPEC §2 defaults)
      assert.are.equal(extra.rdzvBackend or "c10d", job.rdzv_backend)
      assert.are.equal(extra.maxRestarts or 0, job.max_restarts)
    end)

    it(name .. ": the pods' environment follows what is written (FACTS §8 11e, 13e, 17e)", function()
      local job = assert(kfjob.from_manifest(manifest(lines)))
      local env = job:environment{ target = "operator", name = "el" }
      for _, pod in pairs(env) do
        local e = env_names(pod)
        assert.are.equal(extra.rdzvBackend or "c10d", e.PET_RDZV_BACKEND)
        assert.are.equal(extra.maxRestarts and tostring(extra.maxRestarts), e.PET_MAX_RESTARTS and
                         tostring(e.PET_MAX_RESTARTS))
        assert.are.equal(extra.standalone == true, e.PET_STANDALONE ~= nil)
      end
    end)

    it(name .. ": to_lua, to_config, spec() and with() keep it", function()
      local job = assert(kfjob.from_manifest(manifest(lines)))
      local back = run_lua(kfjob.to_lua(job))
      assert.is_true(back == job, kfjob.to_lua(job))
      assert.are.same(want, back:manifest{ target = "operator", name = "el" }.spec.elasticPolicy)
      local e = kfjob.to_config(job).jobs.job
      e.kind = nil
      local cfg = kfjob.Elastic(e)
      assert.is_true(cfg == job)
      assert.is_true(kfjob.Elastic(job:spec()) == job)
      local w = job:with{ worker = { image = "registry.example/train:2" } }
      assert.are.same(want, w:manifest{ target = "operator", name = "el" }.spec.elasticPolicy)
      local w2 = job:with{ ["worker.restart_policy"] = "on_failure" }
      assert.are.same(want, w2:manifest{ target = "operator", name = "el" }.spec.elasticPolicy)
    end)
  end

  it("the whole manifest equals the input as data after the API server's and operator's defaults", function()
    local py = util.PY
    if not util.sh_ok(py .. " -c 'import yaml'") then return pending("python3 cannot import yaml") end
    local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
    for _, c in ipairs(CASES) do
      local text = manifest(c[2])
      local job = assert(kfjob.from_manifest(text))
      local a = util.tmp(text, ".yaml")
      local b = util.tmp(job:manifest{ target = "operator", name = "el", format = "yaml" }, ".yaml")
      local out, err, rc = util.run_sh(py .. " " .. util.quote(here .. "/../tools/manifest-defaults")
                                       .. " --diff " .. util.quote(a) .. " " .. util.quote(b))
      os.remove(a); os.remove(b)
      assert.are.equal(0, rc, c[1] .. ": " .. out .. err)
    end
  end)
end)

describe("an elasticPolicy with all five keys, as Flyte's backend writes it", function()
  it("kfjob's flyte and flyte2 manifests read back and re-emit the same bytes, all five keys (Law 1)", function()
    for _, t in ipairs{ "flyte", "flyte2" } do
      for _, job in ipairs{ kfjob.Elastic{ nnodes = 2 }, kfjob.Elastic{ nnodes = 2, max_restarts = 0 },
                            kfjob.Elastic{ nnodes = 2, rdzv_backend = "etcd", max_restarts = 2 } } do
        local opts = { target = t, name = "el", image = "registry.example/train:1", format = "yaml" }
        local text = job:manifest(opts)
        local back, info = kfjob.from_manifest(text)
        assert(back, info)
        assert.are.equal(t, info.target)
        assert.are.equal(text, back:manifest(opts))
        opts.format = nil
        local ep = back:manifest(opts).spec.elasticPolicy
        assert.are.same({ "c10d", 0 }, { ep.rdzvBackend == "etcd" and "c10d" or ep.rdzvBackend,
                                         ep.maxRestarts == 2 and 0 or ep.maxRestarts })
        assert.are.equal(1, ep.nProcPerNode)
        -- Flyte writes c10d and 0 whatever the config: read back, they are
        -- not given (spec() leaves them out, as the job that never named them)
        local s = back:spec()
        if job.rdzv_backend == "c10d" then
          assert.are.same({}, { s.rdzv_backend, s.max_restarts })
        else
          assert.are.same({ "etcd", 2 }, { s.rdzv_backend, s.max_restarts })
        end
      end
    end
  end)

  it("hand-written for the operator: rdzvBackend and maxRestarts kept, nProcPerNode as spec.nprocPerNode", function()
    local text = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: el
spec:
  runPolicy: {}
  elasticPolicy:
    minReplicas: 2
    maxReplicas: 2
    rdzvBackend: c10d
    nProcPerNode: 1
    maxRestarts: 0
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/train:1
]]
    local job, info = kfjob.from_manifest(text)
    assert(job, info)
    assert.are.equal("operator", info.target)
    -- (the deprecated elasticPolicy.nProcPerNode is written as the
    -- operator's own spec.nprocPerNode, pytorchjob_types.go; docs/IMPORT.md)
    local out = job:manifest{ target = "operator", name = "el" }
    assert.are.same({ minReplicas = 2, maxReplicas = 2, rdzvBackend = "c10d", maxRestarts = 0 },
                    out.spec.elasticPolicy)
    assert.are.equal("1", out.spec.nprocPerNode)
  end)
end)

describe("given and not given under ==", function()
  local E = kfjob.Elastic
  it("a default given is not the field unset; both read the default", function()
    for _, k in ipairs{ { "max_restarts", 0 }, { "rdzv_backend", "c10d" }, { "standalone", false } } do
      local given = E{ nnodes = 2, [k[1]] = k[2] }
      assert.is_false(given == E{ nnodes = 2 }, k[1])
      assert.is_true(given == E{ nnodes = 2, [k[1]] = k[2] }, k[1])
      assert.is_true(E{ nnodes = 2 }:with{ [k[1]] = k[2] } == given, k[1])
      assert.are.equal(k[2], given:spec()[k[1]], k[1])
      assert.is_nil(E{ nnodes = 2 }:spec()[k[1]], k[1])
    end
    assert.are.equal(0, E{ nnodes = 2 }.max_restarts)
    assert.are.equal("c10d", E{ nnodes = 2 }.rdzv_backend)
    -- a value other than the default needs no bit: given either way
    assert.is_true(E{ nnodes = 2, max_restarts = 0 }:with{ max_restarts = 3 } == E{ nnodes = 2, max_restarts = 3 })
  end)

  it("to_lua writes a default given (Law 3 both ways)", function()
    local src = kfjob.to_lua(E{ nnodes = 2, max_restarts = 0, rdzv_backend = "c10d", standalone = false })
    for _, k in ipairs{ "max_restarts = 0", 'rdzv_backend = "c10d"', "standalone = false" } do
      assert.is_truthy(src:find(k, 1, true), k .. " in\n" .. src)
    end
    local none = kfjob.to_lua(E{ nnodes = 2 })
    assert.is_nil(none:find("max_restarts", 1, true))
    assert.is_nil(none:find("rdzv_backend", 1, true))
  end)
end)

describe("Flyte's outputs do not depend on whether the defaults were given", function()
  local E = kfjob.Elastic
  local bare = E{ nnodes = 4, nproc_per_node = 2, container = { image = "i:1" } }
  local given = E{ nnodes = 4, nproc_per_node = 2, container = { image = "i:1" },
                   rdzv_backend = "c10d", max_restarts = 0, standalone = false }

  it("encode, to_json and task_template bytes", function()
    for _, v in ipairs{ 0, 1 } do
      assert.are.equal(bare:encode{ version = v }, given:encode{ version = v })
      assert.are.equal(bare:to_json{ version = v }, given:to_json{ version = v })
    end
    assert.are.equal(bare:task_template{ id = { name = "t" } }, given:task_template{ id = { name = "t" } })
  end)

  it("flyte and flyte2 manifests: all five elasticPolicy keys either way (FACTS §4.5)", function()
    for _, t in ipairs{ "flyte", "flyte2" } do
      local a = bare:manifest{ target = t, name = "e", format = "json" }
      assert.are.equal(a, given:manifest{ target = t, name = "e", format = "json" })
      assert.are.same({ minReplicas = 4, maxReplicas = 4, rdzvBackend = "c10d", nProcPerNode = 2,
                        maxRestarts = 0 }, bare:manifest{ target = t, name = "e" }.spec.elasticPolicy)
    end
  end)

  it("flyte2-clustered: the same JobSet", function()
    assert.are.equal(bare:manifest{ target = "flyte2-clustered", name = "e", format = "json" },
                     given:manifest{ target = "flyte2-clustered", name = "e", format = "json" })
  end)

  it("the operator writes what was given", function()
    assert.are.same({ minReplicas = 4, maxReplicas = 4 },
                    bare:manifest{ target = "operator", name = "e" }.spec.elasticPolicy)
    assert.are.same({ minReplicas = 4, maxReplicas = 4, rdzvBackend = "c10d", maxRestarts = 0, standalone = false },
                    given:manifest{ target = "operator", name = "e" }.spec.elasticPolicy)
  end)
end)

describe("kfjob convert and render (Law 3 through the CLI)", function()
  local function policy_of(yaml_text)
    local doc = assert(kfjob.read_yaml(yaml_text))
    return doc.spec.elasticPolicy
  end

  for _, c in ipairs(CASES) do
    local name, lines, extra = unpack(c)
    it(name .. ": convert M, and convert M -f lua|config|config-yaml then render --target operator", function()
      if not util.cli_ok then return pending(util.CLI_ONLY) end
      local text, want = manifest(lines), policy(extra)
      local code, out, err = util.conv(text)
      assert.are.equal(0, code, err)
      assert.are.same(want, policy_of(out))
      for f, ext in pairs{ lua = ".lua", config = ".json", ["config-yaml"] = ".yaml" } do
        code, out, err = util.conv(text, "-f", f)
        assert.are.equal(0, code, err)
        local cf = util.tmp(out, ext)
        local c2, o2, e2 = util.kfjob("render", cf, "-f", "manifest", "--target", "operator")
        os.remove(cf)
        assert.are.equal(0, c2, e2)
        assert.are.same(want, policy_of(o2), f)
      end
    end)
  end
end)
