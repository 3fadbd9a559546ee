-- Specs for the kinds only the training-operator runs (SPEC §12): JAXJob,
-- XGBoostJob and PaddleJob.  Construction, spec()/with()/==, kfjob.fields,
-- manifests written out by hand from the CRDs in ../shared/crds and the
-- operator's webhooks (FACTS §8.6), the same manifests through
-- tools/validate-manifest (and ../shared's where it exists), templating and the CLI.  Their bad
-- input is in errors_spec.lua ("JAXJob", "XGBoostJob", "PaddleJob").
local kfjob = require "kfjob"
local template = require "kfjob.template"
local util = require "util"

local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
local encode_json = dofile(here .. "/conformance/json.lua")
local q = util.quote
local function write(path, s) local f = assert(io.open(path, "wb")); f:write(s); f:close() end

local IMAGE = "registry.example/train:v1"
local KINDS = { "JAXJob", "XGBoostJob", "PaddleJob" }

-- A replica spec as the operator takes it (hand-written: the CRDs'
-- replica spec, container named as the webhook requires).
local function rs(n, container, image, policy, extra)
  local c = { name = container, image = image, resources = {} }
  for k, v in pairs(extra or {}) do c[k] = v end
  return { replicas = n, restartPolicy = policy or "Never",
           template = { spec = { containers = { c }, restartPolicy = "Never" } } }
end

describe("operator-only kinds", function()
  describe("construction", function()
    it("JAXJob: a Worker group, required", function()
      local j = kfjob.JAXJob{ worker = { replicas = 4, image = "jax:1", limits = { gpu = 1 } } }
      assert.equal("JAXJob", j.kind)
      assert.is_nil(j.task_type)
      assert.equal(4, j.worker.replicas)
      assert.equal("kfjob.JAXJob(worker=4)", tostring(j))
      assert.same({ worker = { replicas = 4, image = "jax:1", limits = { gpu = "1" },
                               restart_policy = "never" } }, j:spec())
      assert.has_error(function() return j.master end, "kfjob.JAXJob has no field 'master'")
    end)

    it("XGBoostJob: Master exactly 1 by default, Workers optional", function()
      local j = kfjob.XGBoostJob{}
      assert.equal(1, j.master.replicas)
      assert.equal(0, j.worker.replicas)
      assert.equal("kfjob.XGBoostJob(worker=0, master=1)", tostring(j))
      local w = kfjob.XGBoostJob{ worker = { replicas = 3 }, master = kfjob.Master{ image = "m:1" } }
      assert.equal("m:1", w.master.image)
      assert.same({ worker = { replicas = 3, restart_policy = "never" },
                    master = { replicas = 1, image = "m:1", restart_policy = "never" } }, w:spec())
    end)

    it("PaddleJob: Master defaults to 1 and may be left out", function()
      local j = kfjob.PaddleJob{}
      assert.equal("kfjob.PaddleJob(worker=0, master=1)", tostring(j))
      local c = kfjob.PaddleJob{ worker = { replicas = 4 }, master = { replicas = 0 } }
      assert.equal(0, c.master.replicas)
      local ps = kfjob.PaddleJob{ worker = { replicas = 2 }, master = { replicas = 2 } }
      assert.equal(2, ps.master.replicas)   -- no webhook bound above
    end)

    it("take run policy and pod settings like every kind", function()
      for _, kind in ipairs(KINDS) do
        local t = { worker = { replicas = 2 }, run_policy = { clean_pod_policy = "all", backoff_limit = 3 },
                    shared_memory = "1Gi", accelerator = "nvidia-tesla-a100",
                    pod_template = { spec = { nodeSelector = { pool = "gpu" } } },
                    limits = { gpu = 1 } }
        local j = kfjob[kind](t)
        assert.equal("all", j.run_policy.clean_pod_policy, kind)
        assert.equal("1Gi", j.shared_memory, kind)
        assert.same({ pool = "gpu" }, j:spec().pod_template.spec.nodeSelector, kind)
      end
    end)

    it("spec() rebuilds an equal job; with() and == follow the rows", function()
      for _, kind in ipairs(KINDS) do
        local j = kfjob[kind]{ worker = { replicas = 2, image = "a:1", requests = { cpu = 2 } },
                               run_policy = { ttl_seconds_after_finished = 60 } }
        assert.is_true(kfjob[kind](j:spec()) == j, kind)
        assert.is_true(kfjob[kind](j) == j, kind)
        local w = j:with{ ["worker.replicas"] = 5 }
        assert.equal(5, w.worker.replicas, kind)
        assert.is_false(w == j, kind)
        assert.is_true(w == j:with{ worker = { replicas = 5 } }, kind)
        assert.equal(2, j.worker.replicas, kind)
      end
      -- same spec, different kinds: never equal
      local a = kfjob.XGBoostJob{ worker = { replicas = 1 } }
      local b = kfjob.PaddleJob{ worker = { replicas = 1 } }
      assert.same(a:spec(), b:spec())
      assert.is_false(a == b)
    end)

    it("are listed in kfjob.kinds and described by kfjob.fields", function()
      local listed = {}
      for _, k in ipairs(kfjob.kinds) do listed[k] = true end
      for _, kind in ipairs(KINDS) do assert.is_true(listed[kind], kind) end
      local x = kfjob.fields("XGBoostJob")
      assert.equal("Master", x.master.group)
      assert.equal("Worker", x.worker.group)
      assert.is_nil(x.worker.fields.command)
      assert.equal("table", x.run_policy.type)
      assert.equal("tree", x.pod_template.type)
      assert.is_nil(kfjob.fields("JAXJob").master)
      assert.is_nil(kfjob.fields("PaddleJob").slots)
    end)

    it("have no Flyte task type: no versions, no decoder yields them", function()
      for _, kind in ipairs(KINDS) do
        local j = kfjob[kind]{ worker = { replicas = 1 } }
        assert.same({}, j:versions(), kind)
        for _, m in ipairs{ "encode", "custom", "to_json", "task_template" } do
          local e = util.error_of(j[m], j)
          assert.truthy(e:find(kind .. " has no Flyte task type", 1, true), m .. ": " .. e)
        end
      end
      for _, tt in ipairs{ "tensorflow", "pytorch", "mpi", "jax", "xgboost", "paddle" } do
        local ok, j = pcall(kfjob.decode, tt, "")
        if ok and j then
          assert.truthy(({ TFJob = 1, PyTorchJob = 1, MPIJob = 1 })[j.kind], tt)
        end
      end
      local none, msg = kfjob.decode("jax", "")
      assert.is_nil(none)
      assert.equal("kfjob.decode: unknown task type 'jax' (expected tensorflow, pytorch or mpi)", msg)
    end)
  end)

  describe("manifests", function()
    -- Expected resources, written from the CRDs (replica-spec keys
    -- jaxReplicaSpecs, xgbReplicaSpecs, paddleReplicaSpecs; replica types
    -- Worker, Master) and the webhooks' default container names (jax,
    -- xgboost, paddle).
    local cases = {
      { "jax-basic", kfjob.JAXJob{ worker = { replicas = 2 } }, { image = IMAGE },
        { apiVersion = "kubeflow.org/v1", kind = "JAXJob", metadata = { name = "jax-basic" },
          spec = { runPolicy = {}, jaxReplicaSpecs = { Worker = rs(2, "jax", IMAGE) } } } },
      { "jax-gpu", kfjob.JAXJob{ worker = { replicas = 4, image = "jax:0.4", limits = { gpu = 8 },
                                            restart_policy = "on_failure" },
                                 run_policy = { active_deadline_seconds = 3600 } },
        { args = { "python", "train.py" }, namespace = "ml" },
        { apiVersion = "kubeflow.org/v1", kind = "JAXJob",
          metadata = { name = "jax-gpu", namespace = "ml" },
          spec = { runPolicy = { cleanPodPolicy = "None", activeDeadlineSeconds = 3600 },
                   jaxReplicaSpecs = { Worker = rs(4, "jax", "jax:0.4", "OnFailure",
                     { args = { "python", "train.py" },
                       resources = { limits = { ["nvidia.com/gpu"] = "8" },
                                     requests = { ["nvidia.com/gpu"] = "8" } } }) } } } },
      { "xgb-master-only", kfjob.XGBoostJob{}, { image = IMAGE },
        { apiVersion = "kubeflow.org/v1", kind = "XGBoostJob", metadata = { name = "xgb-master-only" },
          spec = { runPolicy = {}, xgbReplicaSpecs = { Master = rs(1, "xgboost", IMAGE) } } } },
      { "xgb-dist", kfjob.XGBoostJob{ worker = { replicas = 2, restart_policy = "on_failure" },
                                      run_policy = { backoff_limit = 0, clean_pod_policy = "all" } },
        { image = IMAGE, env = { EPOCHS = "3" } },
        { apiVersion = "kubeflow.org/v1", kind = "XGBoostJob", metadata = { name = "xgb-dist" },
          spec = { runPolicy = { cleanPodPolicy = "All", backoffLimit = 0 },   -- 0 kept: no retries
                   xgbReplicaSpecs = {
                     Master = rs(1, "xgboost", IMAGE, nil, { env = { { name = "EPOCHS", value = "3" } } }),
                     Worker = rs(2, "xgboost", IMAGE, "OnFailure",
                                 { env = { { name = "EPOCHS", value = "3" } } }) } } } },
      { "paddle-collective", kfjob.PaddleJob{ master = { replicas = 0 },
                                              worker = { replicas = 2, restart_policy = "on_failure" } },
        { image = IMAGE, command = { "python" }, args = { "-m", "paddle.distributed.launch", "run_check" } },
        { apiVersion = "kubeflow.org/v1", kind = "PaddleJob", metadata = { name = "paddle-collective" },
          spec = { runPolicy = {}, paddleReplicaSpecs = {
            Worker = rs(2, "paddle", IMAGE, "OnFailure",
                        { command = { "python" }, args = { "-m", "paddle.distributed.launch", "run_check" } }) } } } },
      { "paddle-master", kfjob.PaddleJob{ worker = { replicas = 3, image = "pd:w" }, master = { image = "pd:m" } },
        {},
        { apiVersion = "kubeflow.org/v1", kind = "PaddleJob", metadata = { name = "paddle-master" },
          spec = { runPolicy = {}, paddleReplicaSpecs = {
            Master = rs(1, "paddle", "pd:m"), Worker = rs(3, "paddle", "pd:w") } } } },
    }

    for _, c in ipairs(cases) do
      it(c[1] .. " is the resource the operator takes", function()
        local opts = { name = c[1] }
        for k, v in pairs(c[3]) do opts[k] = v end
        assert.same(c[4], c[2]:manifest(opts))
      end)
    end

    it("with pod settings, every replica's pod gets them", function()
      local j = kfjob.PaddleJob{ worker = { replicas = 2 }, shared_memory = true,
                                 pod_template = { spec = { nodeSelector = { pool = "cpu" } } } }
      local m = j:manifest{ name = "pd", image = IMAGE }
      for _, t in ipairs{ "Master", "Worker" } do
        local pod = m.spec.paddleReplicaSpecs[t].template.spec
        assert.same({ pool = "cpu" }, pod.nodeSelector, t)
        assert.equal("/dev/shm", pod.containers[1].volumeMounts[1].mountPath, t)
        assert.equal("paddle", pod.containers[1].name, t)
      end
    end)

    describe("pass validate-manifest", function()
      local validators, skip = util.validators()
      if #validators > 0 then skip = nil end
      -- exit status and output of the validator vd (the status read from
      -- the shell: close() of a popen file returns it on 5.2+ only)
      local function validate(files, vd)
        local p = io.popen(vd.cmd .. " --target operator --strict " .. table.concat(files, " ")
                           .. " 2>&1; echo \"EXIT=$?\"")
        local out = p:read("*a")
        p:close()
        return tonumber(out:match("EXIT=(%d+)%s*$")), vd.name .. ": " .. out
      end

      it("every case, as YAML and JSON", function()
        if skip then return pending(skip) end
        local files = {}
        for _, c in ipairs(cases) do
          local opts = { name = c[1] }
          for k, v in pairs(c[3]) do opts[k] = v end
          for _, fmt in ipairs{ "yaml", "json" } do
            opts.format = fmt
            local f = os.tmpname() .. "." .. fmt
            write(f, c[2]:manifest(opts))
            files[#files + 1] = q(f)
          end
        end
        for _, vd in ipairs(validators) do
          local code, out = validate(files, vd)
          assert.equal(0, code, out)
        end
        for _, f in ipairs(files) do os.remove(f:sub(2, -2)) end
      end)

      -- the validator bites on what kfjob refuses to build
      local edits = {
        { "xgboost without a master", 4, function(m) m.spec.xgbReplicaSpecs.Master = nil end,
          "[webhook] required: a Master replica spec must be present" },
        { "xgboost with 2 masters", 3, function(m) m.spec.xgbReplicaSpecs.Master.replicas = 2 end,
          "[webhook] must be 1 for Master" },
        { "jax with a master", 1, function(m) m.spec.jaxReplicaSpecs.Master = m.spec.jaxReplicaSpecs.Worker end,
          "[webhook] unsupported replica type \"Master\"" },
        { "paddle container renamed", 5, function(m)
            m.spec.paddleReplicaSpecs.Worker.template.spec.containers[1].name = "main" end,
          "[webhook] must have at least one container with name \"paddle\"" },
        { "jax name not a DNS-1035 label", 2, function(m) m.metadata.name = "9jax" end,
          "[webhook] invalid name" },
      }
      for _, ed in ipairs(edits) do
        it("and refuse a hand-edited one: " .. ed[1], function()
          if skip then return pending(skip) end
          local c = cases[ed[2]]
          local opts = { name = c[1] }
          for k, v in pairs(c[3]) do opts[k] = v end
          local m = c[2]:manifest(opts)
          ed[3](m)
          local f = os.tmpname() .. ".json"
          write(f, encode_json(m))
          for _, vd in ipairs(validators) do
            local code, out = validate({ q(f) }, vd)
            assert.equal(1, code, out)
            assert.truthy(out:find(ed[4], 1, true), out)
          end
          os.remove(f)
        end)
      end
    end)
  end)

  describe("templating", function()
    it("variants of each kind from a table and from a job", function()
      local names, n = {}, 0
      for name, job in template.variants({ worker = { image = "jax:${v}" } },
                                         { ["worker.replicas"] = { 2, 4 }, v = { "1", "2" } },
                                         { kind = "JAXJob", name = "jax-${v}-w${worker.replicas}" }) do
        n = n + 1
        names[#names + 1] = name
        assert.equal("JAXJob", job.kind)
        assert.equal("jax:" .. name:match("jax%-(%d)"), job.worker.image)
      end
      assert.equal(4, n)
      table.sort(names)
      assert.same({ "jax-1-w2", "jax-1-w4", "jax-2-w2", "jax-2-w4" }, names)
      local base = kfjob.XGBoostJob{ worker = { replicas = 1 } }
      for name, job, p in template.variants(base, { ["worker.replicas"] = { 0, 3 },
                                                    ["master.image"] = { "m:1" } },
                                            { name = "xgb-${worker.replicas}" }) do
        assert.equal(p["worker.replicas"], job.worker.replicas, name)
        assert.equal("m:1", job.master.image)
        assert.equal(1, job.master.replicas)
      end
      local seen = 0
      for _, job in template.variants(kfjob.PaddleJob{}, { ["master.replicas"] = { 0, 1 },
                                                           ["worker.replicas"] = { 2 } },
                                      { name = "pd-${master.replicas}" }) do
        seen = seen + 1
        assert.equal(2, job.worker.replicas)
      end
      assert.equal(2, seen)
    end)

    it("a variant breaking a kind's rule names the variant and the rule", function()
      local e = util.error_of(function()
        for _ in template.variants(kfjob.XGBoostJob{}, { ["master.replicas"] = { 1, 2 } },
                                   { name = "x${master.replicas}" }) do end
      end)
      assert.truthy(e:find("master.replicas: must be 1 (got 2)", 1, true), e)
      e = util.error_of(function()
        for _ in template.variants({}, { ["worker.replicaz"] = { 1 } }, { kind = "JAXJob", name = "j" }) do end
      end)
      assert.truthy(e:find("kfjob.JAXJob: worker.replicaz: unknown field (did you mean 'replicas'?)", 1, true), e)
    end)
  end)

  describe("the kfjob CLI", function()
    if not util.cli_ok then
      return pending(util.why("the kfjob CLI is built for Lua 5.4 only"))
    end
    local run = util.kfjob
    local config = os.tmpname() .. ".lua"
    setup(function()
      write(config, [[
local kfjob = require "kfjob"
return { jax = kfjob.JAXJob{ worker = { replicas = 2, image = "jax:1" } },
         xgb = kfjob.XGBoostJob{ worker = { replicas = 2 } },
         pd = kfjob.PaddleJob{ master = { replicas = 0 }, worker = { replicas = 2 } } }
]])
    end)
    teardown(function() os.remove(config) end)

    it("render -f manifest writes each kind's resource", function()
      local code, out, err = run("render", config, "-f", "manifest-json", "--image", IMAGE)
      assert.equal(0, code, err)
      local kinds = {}
      for kind in out:gmatch('"kind":%s*"(%w+)"') do kinds[#kinds + 1] = kind end
      table.sort(kinds)
      assert.same({ "JAXJob", "PaddleJob", "XGBoostJob" }, kinds)
      assert.truthy(out:find('"xgbReplicaSpecs"', 1, true))
    end)

    it("render to a Flyte format fails, naming the missing task type", function()
      local code, _, err = run("render", config, "--name", "xgb")
      assert.equal(1, code)
      assert.truthy(err:find("kfjob.to_json: XGBoostJob has no Flyte task type", 1, true), err)
    end)

    it("check validates the manifest each kind is rendered as", function()
      local code, out = run("check", config, "--image", IMAGE)
      assert.equal(0, code, out)
      -- the resource table (pods per group), then the summary
      assert.truthy(out:find("\nxgb%s+XGBoostJob%s+3 %(Master 1, Worker 2%)"), out)
      assert.truthy(out:find("\nSummary: 3 jobs found, 3 valid, 0 invalid, 0 warnings\n$"), out)
      code, out = run("check", config)
      assert.equal(1, code)
      assert.truthy(out:find(" - XGBoostJob xgb is invalid: kfjob.manifest: opts.image: required: "
                             .. "worker has no image of its own", 1, true), out)
      assert.truthy(out:find("Summary: 3 jobs found, 1 valid, 2 invalid, 0 warnings\n", 1, true), out)
    end)

    it("decode refuses a kind without a task type", function()
      local code, _, err = run("decode", "--type", "PaddleJob", "/dev/null")
      assert.is_true(code ~= 0)
      assert.truthy(err:find("PaddleJob has no Flyte task type", 1, true), err)
    end)
  end)
end)
