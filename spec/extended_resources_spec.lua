-- Extended resources (amd.com/gpu, vpc.amazonaws.com/efa, hugepages-2Mi)
-- in requests and limits.  Expected values come from Kubernetes' own
-- rules (k8s.io/kubernetes pkg/apis/core/validation/validation.go:
-- validateContainerResourceName, ValidateResourceQuantityValue,
-- validateResourceRequirements; pkg/apis/core/helper/helpers.go
-- IsExtendedResourceName, IsOvercommitAllowed), flytekit's Resources (cpu,
-- mem, gpu, ephemeral_storage only) and the black-box tester's two
-- manifests, never from kfjob's own output.
local kfjob = require "kfjob"
local util = require "util"

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return tostring(e)
end

local function pt(worker, extra)
  local t = { container = { image = "img" }, worker = worker }
  for k, v in pairs(extra or {}) do t[k] = v end
  return kfjob.PyTorchJob(t)
end

local function container_of(m, group)
  return m.spec.pytorchReplicaSpecs[group].template.spec.containers[1]
end

describe("extended resources in a group's requests and limits", function()
  it("are taken beside cpu/mem/gpu, as keys of the table or under extended", function()
    local a = pt({ replicas = 2, limits = { cpu = 4, mem = "8Gi", ["amd.com/gpu"] = 8,
                                            ["hugepages-2Mi"] = "1Gi" } })
    local b = pt({ replicas = 2, limits = { cpu = "4", memory = "8Gi",
                                            extended = { ["hugepages-2Mi"] = "1Gi", ["amd.com/gpu"] = "8" } } })
    assert.equal(a, b)
    assert.equal("8", a.worker.limits.extended["amd.com/gpu"])   -- a number as kfjob's quantities
    assert.equal("1Gi", a.worker.limits.extended["hugepages-2Mi"])
    assert.equal("4", a.worker.limits.cpu)
  end)

  it("keep ==, spec(), with() and to_lua", function()
    local j = pt({ replicas = 2, limits = { ["vpc.amazonaws.com/efa"] = 4 } })
    local s = j:spec()
    assert.same({ ["vpc.amazonaws.com/efa"] = "4" }, s.worker.limits.extended)
    assert.equal(j, kfjob.PyTorchJob(s))
    assert.is_false(j == pt({ replicas = 2, limits = { ["vpc.amazonaws.com/efa"] = 2 } }))
    assert.is_false(j == pt({ replicas = 2 }))
    local w = j:with({ ["worker.replicas"] = 3 })
    assert.equal("4", w.worker.limits.extended["vpc.amazonaws.com/efa"])
    -- an override in the flat form merges into what the job has (SPEC §2.2:
    -- with() deep-merges), its keys winning
    w = j:with({ worker = { limits = { ["amd.com/gpu"] = 8, ["vpc.amazonaws.com/efa"] = 2 } } })
    assert.same({ ["amd.com/gpu"] = "8", ["vpc.amazonaws.com/efa"] = "2" }, w:spec().worker.limits.extended)
    local f = util.tmp(kfjob.to_lua(j), ".lua")
    local back = assert(util.loadfile_env(f, { require = require }))()
    os.remove(f)
    assert.equal(j, back.job)
    -- read as given too, strictly: another name without a domain raises
    assert.equal("4", j.worker.limits["vpc.amazonaws.com/efa"])
    assert.is_nil(j.worker.limits["amd.com/gpu"])
    assert.has_error(function() return j.worker.limits.efa end)
  end)

  it("are refused where Kubernetes refuses them", function()
    -- validateResourceRequirements: an extended resource cannot be
    -- overcommitted: a request needs a limit, and equals it
    assert.matches('worker.limits["amd.com/gpu"]: required', err_of(pt, { replicas = 1,
      requests = { ["amd.com/gpu"] = 8 } }), 1, true)
    assert.matches('worker.requests["amd.com/gpu"]: 4 must be equal to the limit 8', err_of(pt, {
      replicas = 1, requests = { ["amd.com/gpu"] = 4 }, limits = { ["amd.com/gpu"] = 8 } }), 1, true)
    -- hugepages cannot be overcommitted either, and need cpu or memory
    assert.matches('worker.requests["hugepages-2Mi"]: 1Gi must be equal to the limit 2Gi', err_of(pt, {
      replicas = 1, requests = { mem = "1Gi", ["hugepages-2Mi"] = "1Gi" },
      limits = { mem = "1Gi", ["hugepages-2Mi"] = "2Gi" } }), 1, true)
    assert.matches("HugePages require cpu or memory", err_of(pt, { replicas = 1,
      limits = { ["hugepages-2Mi"] = "1Gi" } }), 1, true)
    -- validateResourceQuantityHugePageValue / IsHugePageResourceValueDivisible:
    -- a whole number of pages (Value() rounds up to bytes; 0 is a multiple),
    -- in requests and limits alike; a page size not a whole number of bytes
    -- divides nothing
    local function huge(req, lim, name)
      name = name or "hugepages-2Mi"
      return pt({ replicas = 1, requests = { mem = "1Gi", [name] = req },
                  limits = { mem = "1Gi", [name] = lim } })
    end
    assert.matches('worker.requests["hugepages-2Mi"]: \'3Mi\' is not a whole number of 2Mi pages',
      err_of(huge, "3Mi", "3Mi"), 1, true)
    assert.matches("not positive integer multiple of hugepages-2Mi", err_of(huge, "3Mi", "3Mi"),
      1, true)
    assert.matches('worker.requests["hugepages-1Gi"]: \'1536Mi\' is not a whole number',
      err_of(function()
        return pt({ replicas = 1, requests = { mem = "1Gi", ["hugepages-1Gi"] = "1536Mi" } })
      end), 1, true)
    assert.matches("is not a whole number of 1500m pages", err_of(huge, "3", "3", "hugepages-1500m"),
      1, true)
    assert.matches('worker.limits["hugepages-2Mi"]: \'5Mi\' is not a whole number', err_of(function()
      return pt({ replicas = 1, limits = { mem = "1Gi", ["hugepages-2Mi"] = "5Mi" } })
    end), 1, true)
    assert.equal("4Mi", huge("4Mi", "4Mi").worker.limits["hugepages-2Mi"])
    assert.equal("4194304", huge("4194304", "4194304").worker.limits["hugepages-2Mi"])
    assert.equal("0", huge("0", "0").worker.limits["hugepages-2Mi"])
    assert.equal("2", huge("2", "2", "hugepages-1").worker.limits["hugepages-1"])
    -- ValidateResourceQuantityValue: whole devices
    assert.matches("must be an integer", err_of(pt, { replicas = 1, limits = { ["amd.com/gpu"] = 0.5 } }),
      1, true)
    -- validateResourceName / IsQualifiedName
    assert.matches("not a Kubernetes resource name", err_of(pt, { replicas = 1,
      limits = { ["amd.com/-gpu"] = 1 } }), 1, true)
    -- a name without a domain is no extended resource (a standard resource
    -- type or fully qualified)
    assert.matches("worker.limits.amdgpu: unknown field", err_of(pt, { replicas = 1,
      limits = { amdgpu = 1 } }), 1, true)
    -- the fixed rows' own Kubernetes names stay theirs
    assert.matches("give it as gpu", err_of(pt, { replicas = 1, limits = { ["nvidia.com/gpu"] = 1 } }),
      1, true)
    assert.matches("invalid quantity '8x'", err_of(pt, { replicas = 1, limits = { ["amd.com/gpu"] = "8x" } }),
      1, true)
    assert.matches("negative", err_of(pt, { replicas = 1, limits = { ["amd.com/gpu"] = "-1" } }), 1, true)
  end)

  it("a kubernetes.io resource may be overcommitted (IsOvercommitAllowed: native)", function()
    local j = pt({ replicas = 1, requests = { ["example.kubernetes.io/x"] = 1 },
                   limits = { ["example.kubernetes.io/x"] = 2 } })
    assert.equal("1", j.worker.requests.extended["example.kubernetes.io/x"])
  end)
end)

describe("extended resources in manifests", function()
  it("operator: in the container's resources, Go's key order, the request its limit", function()
    local j = pt({ replicas = 2, limits = { cpu = 4, memory = "8Gi", ["amd.com/gpu"] = 8 } })
    local c = container_of(j:manifest({ target = "operator", name = "a" }), "Worker")
    assert.same({ ["amd.com/gpu"] = "8", cpu = "4", memory = "8Gi" }, c.resources.limits)
    assert.same({ ["amd.com/gpu"] = "8", cpu = "4", memory = "8Gi" }, c.resources.requests)
    local y = j:manifest({ target = "operator", name = "a", format = "yaml" })
    assert.truthy(y:find('amd.com/gpu: "8"\n%s+cpu: "4"\n%s+memory: 8Gi'))
  end)

  it("the task's, on every group without its own", function()
    local j = pt({ replicas = 2 }, { limits = { ["vpc.amazonaws.com/efa"] = 4 } })
    local m = j:manifest({ target = "operator", name = "a" })
    for _, g in ipairs({ "Master", "Worker" }) do
      assert.equal("4", container_of(m, g).resources.limits["vpc.amazonaws.com/efa"])
    end
  end)

  it("mpi-operator: containers[0].resources; Trainer: resourcesPerNode", function()
    local mpi = kfjob.MPIJob({ container = { image = "img" }, worker = { replicas = 2,
                               limits = { ["amd.com/gpu"] = 8 } } })
    local m = mpi:manifest({ target = "mpi-operator", name = "a" })
    local r = m.spec.mpiReplicaSpecs.Worker.template.spec.containers[1].resources
    assert.equal("8", r.limits["amd.com/gpu"])
    local tj = pt({ replicas = 2 }, { limits = { ["amd.com/gpu"] = 8 } })
    local t = tj:manifest({ target = "trainer-2.3", name = "a" })
    assert.equal("8", t.spec.trainer.resourcesPerNode.limits["amd.com/gpu"])
  end)

  it("Flyte targets: an error naming the path (flytekit's Resources has no such name)", function()
    local j = pt({ replicas = 2, limits = { ["amd.com/gpu"] = 8 } })
    for _, t in ipairs({ "flyte", "flyte2", "flyte2-clustered" }) do
      local e = err_of(j.manifest, j, { target = t, name = "a" })
      assert.matches('worker.limits["amd.com/gpu"]: the plugin\'s Resources cannot carry it', e, 1, true)
      assert.matches("cpu, mem, gpu and ephemeral_storage", e, 1, true)
    end
    local task = pt({ replicas = 2 }, { requests = { ["amd.com/gpu"] = 8 }, limits = { ["amd.com/gpu"] = 8 } })
    assert.matches('requests["amd.com/gpu"]', err_of(task.task_template, task, {}), 1, true)
  end)

  it("kfjob explain says where each target puts them", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.kfjob("explain", "PyTorchJob.worker.limits.extended")
    assert.equal(0, code, err)
    assert.matches("spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.limits", out, 1, true)
    assert.matches("spec.trainer.resourcesPerNode.limits", out, 1, true)
    assert.matches("cannot be expressed (R56", out, 1, true)
  end)
end)

-- The black-box tester's manifests (valid PyTorchJobs: validate-manifest
-- --target operator).
local EFA = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: efa-job
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/efa:1
            command: ["torchrun", "train.py"]
            resources:
              requests:
                cpu: "90"
                memory: 1000Gi
                hugepages-2Mi: 5120Mi
                vpc.amazonaws.com/efa: "32"
                nvidia.com/gpu: "8"
              limits:
                memory: 1000Gi
                hugepages-2Mi: 5120Mi
                vpc.amazonaws.com/efa: "32"
                nvidia.com/gpu: "8"
    Worker:
      replicas: 3
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/efa:1
            command: ["torchrun", "train.py"]
            resources:
              requests:
                cpu: "90"
                memory: 1000Gi
                hugepages-2Mi: 5120Mi
                vpc.amazonaws.com/efa: "32"
                nvidia.com/gpu: "8"
              limits:
                memory: 1000Gi
                hugepages-2Mi: 5120Mi
                vpc.amazonaws.com/efa: "32"
                nvidia.com/gpu: "8"
]]

local AMD = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: amd-job
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: rocm/pytorch:latest
            command: ["torchrun", "train.py"]
            resources:
              limits:
                amd.com/gpu: "8"
    Worker:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: rocm/pytorch:latest
            command: ["torchrun", "train.py"]
            resources:
              limits:
                amd.com/gpu: "8"
]]

describe("the tester's manifests", function()
  it("read strictly with their extended resources", function()
    local j = kfjob.from_manifest(AMD)
    assert.equal("8", j.worker.limits.extended["amd.com/gpu"])
    assert.equal("8", j.master.limits.extended["amd.com/gpu"])
    j = kfjob.from_manifest(EFA)
    assert.same({ ["hugepages-2Mi"] = "5120Mi", ["vpc.amazonaws.com/efa"] = "32" },
                j.worker.limits.extended)
    assert.equal("8", j.worker.limits.gpu)
  end)

  local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
  local py = "env -u LD_PRELOAD /usr/bin/python3"
  for name, text in pairs({ efa = EFA, amd = AMD }) do
    for _, fmt in ipairs({ { "lua", ".lua" }, { "config", ".json" }, { "config-yaml", ".yaml" } }) do
      it(name .. ": kfjob convert -f " .. fmt[1] .. " renders back equal as data (Law 3)", function()
        if not util.cli_ok then return pending(util.CLI_ONLY) end
        if not util.sh_ok(py .. " -c 'import yaml'") then return pending("python3 cannot import yaml") end
        local code, cfg, err = util.conv(text, "-f", fmt[1])
        assert.equal(0, code, err)
        local cfgf = util.tmp(cfg, fmt[2])
        local out
        code, out, err = util.kfjob("render", cfgf, "-f", "manifest", "--target", "operator")
        os.remove(cfgf)
        assert.equal(0, code, err)
        local inf, got = util.tmp(text, ".yaml"), util.tmp(out, ".yaml")
        local d = util.sh(py .. " " .. util.quote(here .. "/../tools/manifest-defaults") .. " --diff "
                          .. util.quote(inf) .. " " .. util.quote(got))
        os.remove(inf); os.remove(got)
        assert.equal("", d)
      end)
    end
  end

  it("converting to Flyte names the manifest's resource", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(AMD, "--to", "flyte")
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("amd.com/gpu", err, 1, true)
    assert.matches("Resources cannot carry it", err, 1, true)
  end)
end)

describe("extended resources through with() and sweeps", function()
  local base = function()
    return pt({ replicas = 2, requests = { cpu = 1 }, limits = { cpu = 1, ["amd.com/gpu"] = 2 } })
  end

  it("a dotted key's resource name keeps its own dots", function()
    -- "worker.limits.amd.com/gpu": the name after limits is one key, as in
    -- a nested table ({worker = {limits = {["amd.com/gpu"] = 4}}})
    local j = base():with({ ["worker.limits.amd.com/gpu"] = 4, ["worker.requests.amd.com/gpu"] = 4 })
    assert.equal("4", j.worker.limits.extended["amd.com/gpu"])
    assert.equal("4", j.worker.requests.extended["amd.com/gpu"])
    assert.equal(j, base():with({ worker = { limits = { ["amd.com/gpu"] = 4 }, requests = { ["amd.com/gpu"] = 4 } } }))
    local h = base():with({ ["worker.requests.hugepages-2Mi"] = "4Mi", ["worker.limits.hugepages-2Mi"] = "4Mi" })
    assert.equal("4Mi", h.worker.limits.extended["hugepages-2Mi"])
    -- under the extended table too
    local x = base():with({ ["worker.limits.extended.amd.com/gpu"] = 8 })
    assert.equal("8", x.worker.limits.extended["amd.com/gpu"])
    -- the dotted key and a nested table naming the same resource: set twice
    assert.matches('worker.limits.amd.com/gpu: set twice', err_of(function()
      return base():with({ ["worker.limits.amd.com/gpu"] = 4, worker = { limits = { ["amd.com/gpu"] = 3 } } })
    end), 1, true)
    -- ... and the two spellings of one resource (flat and under extended),
    -- by dotted keys or nested tables, are one field too
    for _, over in ipairs({
      { ["worker.limits.amd.com/gpu"] = 8, worker = { limits = { extended = { ["amd.com/gpu"] = 4 } } } },
      { ["worker.limits.extended.amd.com/gpu"] = 8, worker = { limits = { ["amd.com/gpu"] = 4 } } },
      { ["worker.limits.extended.amd.com/gpu"] = 8, ["worker.limits.amd.com/gpu"] = 4 },
    }) do
      assert.matches('worker.limits.amd.com/gpu: set twice', err_of(function()
        return base():with(over)
      end), 1, true)
    end
    assert.equal("8", base():with({ ["worker.limits.extended.amd.com/gpu"] = 8,
                                    ["worker.requests.amd.com/gpu"] = 8 }).worker.requests.extended["amd.com/gpu"])
    -- other dotted keys still split at every dot
    assert.matches("worker.limits.nvidia: unknown field", err_of(function()
      return base():with({ ["worker.limits.nvidia.gpu"] = 1 })
    end), 1, true)
  end)

  it("an override of the flat spelling merged over spec() wins (docs/API.md)", function()
    local template = require "kfjob.template"
    local merged = template.merge(base():spec(), { worker = { limits = { ["amd.com/gpu"] = 8 } } })
    assert.equal("2", merged.worker.limits.extended["amd.com/gpu"])   -- both spellings in the table
    assert.equal("8", pt(merged.worker).worker.limits.extended["amd.com/gpu"])
  end)

  it("a sweep's name template can name one's axis", function()
    local template = require "kfjob.template"
    local got = {}
    for name, job in template.variants(base(), { ["worker.limits.amd.com/gpu"] = { 1, 4 } },
                                       { name = "bert-g${worker.limits.amd.com/gpu}" }) do
      got[#got + 1] = name .. "=" .. job.worker.limits.extended["amd.com/gpu"]
    end
    table.sort(got)
    assert.same({ "bert-g1=1", "bert-g4=4" }, got)
    assert.equal("x-2Mi", template.render("x-${worker.limits.hugepages-2Mi}",
                                          { ["worker.limits.hugepages-2Mi"] = "2Mi" }))
    assert.matches("malformed placeholder", err_of(function()
      return template.render("${a./b}", { a = 1 })
    end), 1, true)
  end)

  it("a sweep axis can name one", function()
    local template = require "kfjob.template"
    local got = {}
    for name, job in template.variants(base(), { ["worker.limits.amd.com/gpu"] = { 1, 4 } },
                                       { name = "amd-${i}" , vars = { i = "v" }, unique = false }) do
      got[#got + 1] = name .. "=" .. job.worker.limits.extended["amd.com/gpu"]
    end
    assert.same({ "amd-v=1", "amd-v=4" }, got)
  end)
end)
