-- Target flyte2-clustered (SPEC §18, FACTS §12.1): a PyTorchJob or Elastic
-- job as a Flyte 2 clustered task.  The payload's bytes and JSON are
-- compared with the reference runtime (Debian protoc + python3-protobuf) on
-- the vendored flyteidl2/plugins/clustered.proto, through
-- spec/conformance/clustered_ref.py (an independent re-implementation of
-- flyte-sdk's ClusteredTaskEnvironment.to_custom_dict); rules and messages
-- from the backend's and the SDK's sources.
local kfjob = require "kfjob"
local util = require "util"

local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
local PY = os.getenv("KFJOB_CONFORMANCE_PYTHON") or "/usr/bin/python3"
local json = dofile(here .. "/conformance/json.lua")
local T = { target = "flyte2-clustered" }

local function hex(s) return (s:gsub(".", function(c) return ("%02x"):format(c:byte()) end)) end
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Each case: name, kind, the constructor table (also the reference's input).
local CASES = {
  { "elastic-defaults", "Elastic", { nnodes = 2, worker = {} } },
  { "elastic-full", "Elastic", { nnodes = 4, nproc_per_node = 8, max_restarts = 3, worker = {},
      rdzv_backend = "c10d", interconnect = "efa", restart_on_host_maintenance = true,
      run_policy = { backoff_limit = 2, ttl_seconds_after_finished = 3600 } } },
  { "elastic-etcd-static", "Elastic", { nnodes = 3, nproc_per_node = 2, worker = {}, rdzv_backend = "etcd" } },
  { "elastic-ttl-zero", "Elastic", { nnodes = 1, worker = {}, run_policy = { ttl_seconds_after_finished = 0 } } },
  { "elastic-maintenance-only", "Elastic", { nnodes = 2, worker = {}, restart_on_host_maintenance = true } },
  { "elastic-infiniband", "Elastic", { nnodes = 2, worker = {}, interconnect = "infiniband" } },
  { "elastic-roce-tcp", "Elastic", { nnodes = 2, worker = {}, interconnect = "tcp" } },
  { "pytorch-1-3", "PyTorchJob", { master = { replicas = 1 }, worker = { replicas = 3 } } },
  { "pytorch-master-only", "PyTorchJob", { master = { replicas = 1 }, worker = { replicas = 0 } } },
  { "pytorch-policy", "PyTorchJob", { master = { replicas = 1 }, worker = { replicas = 7 }, interconnect = "roce",
      run_policy = { backoff_limit = 5, ttl_seconds_after_finished = 60, active_deadline_seconds = 100 } } },
  -- TaskTemplates: the job's container (image, args, env) and task resources
  { "tt-elastic", "Elastic", { nnodes = 2, nproc_per_node = 4, worker = {}, limits = { gpu = 4 },
      container = { image = "img:1", args = { "python", "train.py" }, env = { A = "1", B = "2" } },
      run_policy = { backoff_limit = 1 } },
    template = { image = "img:1", args = { "python", "train.py" }, env = { A = "1", B = "2" }, gpu = 4 } },
  { "tt-pytorch", "PyTorchJob", { master = { replicas = 1 }, worker = { replicas = 2 },
      container = { image = "ghcr.io/acme/bert:1.2", args = { "torchrun", "train.py" } }, interconnect = "efa" },
    template = { image = "ghcr.io/acme/bert:1.2", args = { "torchrun", "train.py" } } },
}

local ref, why
local function reference()
  if ref or why then return ref, why end
  if not util.sh_ok("command -v protoc") then why = "protoc not found"; return nil, why end
  if not util.sh_ok(PY .. " -c 'import google.protobuf.json_format'") then
    why = PY .. " cannot import google.protobuf"; return nil, why
  end
  local input = os.tmpname()
  local list = {}
  for i, c in ipairs(CASES) do list[i] = { name = c[1], kind = c[2], job = c[3], template = c.template } end
  local f = assert(io.open(input, "wb")); f:write(json(list)); f:close()
  local p = assert(io.popen(PY .. " " .. q(here .. "/conformance/clustered_ref.py") .. " --proto "
    .. q(here .. "/../proto") .. " " .. q(input) .. " 2>&1"))
  local out = p:read("*a")
  local ok = p:close()
  os.remove(input)
  assert(ok, "clustered_ref.py failed:\n" .. out)
  ref = {}
  for line in out:gmatch("[^\n]+") do
    local name, h, js = line:match("^([^\t]*)\t(%x*)\t(.*)$")
    assert(name, "clustered_ref.py: bad line: " .. line)
    ref[name] = { hex = h, json = js }
  end
  return ref
end

describe("flyte2-clustered: the ClusteredTaskSpec against the reference runtime", function()
  for _, c in ipairs(CASES) do
    if c.template then
      it(c[1] .. ": task_template's bytes (type clustered-task, version 1)", function()
        local r, w = reference()
        if not r then return pending(w) end
        local job = kfjob[c[2]](c[3])
        assert.are.equal(r[c[1]].hex, hex(job:task_template(T)))
        local tt = job:task_template{ target = "flyte2-clustered", format = "json" }
        assert.matches('"type":"clustered-task"', tt, 1, true)
        assert.matches('"taskTypeVersion":1', tt, 1, true)
      end)
    else
      it(c[1] .. ": encode's bytes and to_json's JSON", function()
        local r, w = reference()
        if not r then return pending(w) end
        local job = kfjob[c[2]](c[3])
        assert.are.equal(r[c[1]].hex, hex(job:encode(T)))
        assert.are.equal(r[c[1]].json, job:to_json(T))
      end)
    end
  end

  it("task_spec wraps the same template (a registrable TaskSpec)", function()
    local job = kfjob.Elastic{ nnodes = 2, worker = {}, container = { image = "img:1" } }
    local ts = job:task_spec{ target = "flyte2-clustered", format = "json",
                              id = { project = "p", domain = "d", name = "n", version = "v" } }
    assert.matches('"type":"clustered-task"', ts, 1, true)
    assert.matches('"taskTypeVersion":1', ts, 1, true)
  end)

  it("version 0 and common encoding are refused, naming the option", function()
    local job = kfjob.Elastic{ nnodes = 2, worker = {} }
    assert.matches("opts.version: a clustered task is clustered-task version 1 only",
      util.error_of(function() return job:encode{ target = "flyte2-clustered", version = 0 } end), 1, true)
    assert.matches("opts.replica_encoding",
      util.error_of(function() return job:to_json{ target = "flyte2-clustered", replica_encoding = "common" } end),
      1, true)
  end)

  it("custom is the same JSON as a table", function()
    local job = kfjob.Elastic(CASES[2][3])
    assert.are.same({ replicas = 4, nprocPerNode = 8,
      runtime = { torchrun = { rdzvBackend = "C10D", maxRestarts = 3 } }, interconnect = "EFA",
      failurePolicy = { maxRestarts = 2, restartOnHostMaintenance = true },
      ttlSecondsAfterFinished = 3600 }, job:custom(T))
  end)

  it("a default job's runtime is an empty torchrun (FACTS §12.1.3)", function()
    local j = kfjob.PyTorchJob{ master = {}, worker = { replicas = 1 } }
    assert.are.equal('{"replicas":2,"nprocPerNode":1,"runtime":{"torchrun":{}}}', j:to_json(T))
  end)

  it("to_json indents like json.dumps(indent=2)", function()
    local j = kfjob.PyTorchJob{ master = {}, worker = { replicas = 1 } }
    assert.are.equal('{\n  "replicas": 2,\n  "nprocPerNode": 1,\n  "runtime": {\n    "torchrun": {}\n  }\n}',
                     j:to_json{ target = "flyte2-clustered", indent = 2 })
  end)

  it("the CLI renders the same bytes (-f pb --target flyte2-clustered)", function()
    local cli = os.getenv("KFJOB_CLI")
    if not cli then return pending("KFJOB_CLI is not set") end
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write('local kfjob = require "kfjob"\nreturn kfjob.Elastic{ nnodes = 2, nproc_per_node = 2, worker = {} }\n')
    f:close()
    local p = io.popen("env -u LD_PRELOAD " .. cli .. " render -f json --target flyte2-clustered " .. path .. " 2>&1")
    local out = p:read("*a")
    p:close()
    os.remove(path)
    assert.matches('"nprocPerNode":2', out, 1, true)
    assert.matches('"runtime":{"torchrun":{"rdzvBackend":"C10D"}}', out, 1, true)
  end)
end)

describe("flyte2-clustered: the target", function()
  it("is listed by kfjob.targets() for PyTorchJob and Elastic", function()
    local by = {}
    for _, t in ipairs(kfjob.targets()) do by[t.name] = t end
    assert.are.same({ "PyTorchJob", "Elastic" }, by["flyte2-clustered"].kinds)
    assert.is_truthy(by["flyte2-clustered"].emits[1] == "encode")
  end)
end)

describe("flyte2-clustered: rules", function()
  local function problems(job, o, lint)
    local out = {}
    local list
    if lint then list = job:lint(o) else local _, p = job:check(o); list = p end
    for _, p in ipairs(list or {}) do
      if p.rule then out[p.rule] = out[p.rule] or {}; table.insert(out[p.rule], p) end
    end
    return out
  end

  it("an elastic range is refused (R43)", function()
    local e = problems(kfjob.Elastic{ nnodes = "2:4", worker = {} }, T).R43
    assert.are.equal("nnodes", e[1].path)
    assert.matches("fixed replicas count", e[1].message, 1, true)
    assert.matches("build.go", e[1].source, 1, true)
    local err = util.error_of(function() return kfjob.Elastic{ nnodes = "2:4", worker = {} }:encode(T) end)
    assert.matches("kfjob.Elastic: nnodes: ", err, 1, true)
    assert.matches("(target flyte2-clustered)", err, 1, true)
  end)

  it("replicas above 100 000 are refused (R43, build.go)", function()
    local e = problems(kfjob.PyTorchJob{ master = {}, worker = { replicas = 100000 } }, T).R43
    assert.matches("replicas must be <= 100000, got 100001", e[1].message, 1, true)
    assert.is_nil(problems(kfjob.PyTorchJob{ master = {}, worker = { replicas = 99999 } }, T).R43)
  end)

  it("an nproc_per_node word is refused (R43)", function()
    local e = problems(kfjob.Elastic{ nnodes = 2, nproc_per_node = "auto", worker = {} }, T).R43
    assert.are.equal("nproc_per_node", e[1].path)
  end)

  it("a GPU limit below nproc_per_node is refused with the SDK's words (R44)", function()
    local e = problems(kfjob.Elastic{ nnodes = 2, nproc_per_node = 4, worker = {}, limits = { gpu = 2 } }, T).R44
    assert.are.equal("resources.gpu (2) must be >= nproc_per_node (4)", e[1].message)
    assert.is_nil(problems(kfjob.Elastic{ nnodes = 2, nproc_per_node = 4, worker = {}, limits = { gpu = 4 } }, T).R44)
  end)

  it("a name whose JobSet pods exceed 63 characters is refused (R45)", function()
    local job = kfjob.Elastic{ nnodes = 2, worker = {} }
    assert.is_truthy(problems(job, { target = "flyte2-clustered", name = string.rep("a", 42) }).R45)
    assert.is_nil(problems(job, { target = "flyte2-clustered", name = string.rep("a", 41) }).R45)
  end)

  it("env the backend overwrites is a warning (R46)", function()
    local job = kfjob.Elastic{ nnodes = 2, worker = {},
      container = { env = { NNODES = "3", JOBSET_NAME = "x", POD_NAMESPACE = "ns", MY_VAR = "1" } } }
    local w = problems(job, T, true).R46
    local paths = {}
    for _, p in ipairs(w) do paths[#paths + 1] = p.path end
    table.sort(paths)
    assert.are.same({ "container.env.JOBSET_NAME", "container.env.NNODES", "container.env.POD_NAMESPACE" }, paths)
    assert.is_true((job:check(T)))
  end)

  it("a non-TCP interconnect is a warning: the backend falls back to TCP (R47)", function()
    local w = problems(kfjob.Elastic{ nnodes = 2, worker = {}, interconnect = "efa" }, T, true).R47
    assert.matches("falls back to TCP", w[1].message, 1, true)
    assert.is_nil(problems(kfjob.Elastic{ nnodes = 2, worker = {}, interconnect = "tcp" }, T, true).R47)
  end)

  it("per-group settings and other kinds are refused (R48, R24)", function()
    local e = problems(kfjob.PyTorchJob{ master = {}, worker = { replicas = 2, limits = { gpu = 1 } } }, T).R48
    assert.are.equal("worker.limits", e[1].path)
    e = problems(kfjob.PyTorchJob{ master = {}, worker = { replicas = 2, image = "w:1" } }, T).R48
    assert.are.equal("worker.image", e[1].path)
    e = problems(kfjob.TFJob{ worker = { replicas = 2 } }, T).R24
    assert.are.equal("kind", e[1].path)
    local err = util.error_of(function() return kfjob.MPIJob{ worker = { replicas = 1 } }:encode(T) end)
    assert.matches("target 'flyte2-clustered' does not run a MPIJob", err, 1, true)
  end)

  it("interconnect and restart_on_host_maintenance are refused on every other target (R42)", function()
    local job = kfjob.PyTorchJob{ master = {}, worker = { replicas = 1 }, interconnect = "tcp",
                                  restart_on_host_maintenance = true }
    for _, t in ipairs({ "flyte", "flyte2", "operator", "trainer-2.2", "trainer-2.3", "trainer-2.4" }) do
      local e = problems(job, { target = t }).R42
      assert.is_truthy(e, t)
      assert.are.equal("interconnect", e[1].path)
      assert.are.equal("restart_on_host_maintenance", e[2].path)
    end
    assert.is_nil(problems(job, T).R42)
  end)

  it("the new fields are schema rows: spec(), ==, bad values name the path", function()
    local job = kfjob.Elastic{ nnodes = 2, worker = {}, interconnect = "roce", restart_on_host_maintenance = true }
    local s = job:spec()
    assert.are.equal("roce", s.interconnect)
    assert.is_true(s.restart_on_host_maintenance)
    assert.is_true(kfjob.Elastic(s) == job)
    local err = util.error_of(kfjob.Elastic, { nnodes = 2, worker = {}, interconnect = "nvlink" })
    assert.matches("interconnect", err, 1, true)
    assert.matches("tcp, efa, infiniband or roce", err, 1, true)
    err = util.error_of(kfjob.PyTorchJob, { worker = { replicas = 1 }, restart_on_host_maintenance = "yes" })
    assert.matches("restart_on_host_maintenance", err, 1, true)
  end)
end)

describe("flyte2-clustered: the JobSet the backend builds (FACTS §12.1.4)", function()
  local job = kfjob.Elastic{ nnodes = 3, nproc_per_node = 2, worker = {}, limits = { gpu = 2 },
    container = { image = "img:1", args = { "python", "train.py" }, env = { A = "1", NNODES = "9" } },
    run_policy = { backoff_limit = 2, ttl_seconds_after_finished = 600 } }
  local m = job:manifest{ target = "flyte2-clustered", name = "train" }
  local rj = m.spec.replicatedJobs[1]
  local pod = rj.template.spec.template.spec

  it("is a JobSet jobset.x-k8s.io/v1alpha2 with one ReplicatedJob 'workers' of replicas 1", function()
    assert.are.equal("jobset.x-k8s.io/v1alpha2", m.apiVersion)
    assert.are.equal("JobSet", m.kind)
    assert.are.equal("train", m.metadata.name)
    assert.are.equal(1, #m.spec.replicatedJobs)
    assert.are.equal("workers", rj.name)
    assert.are.equal(1, rj.replicas)
  end)

  it("an Indexed Job: parallelism = completions = replicas, backoffLimit 0", function()
    local s = rj.template.spec
    assert.are.equal(3, s.parallelism)
    assert.are.equal(3, s.completions)
    assert.are.equal("Indexed", s.completionMode)
    assert.are.equal(0, s.backoffLimit)
  end)

  it("pods restartPolicy Never, subdomain the JobSet's name; DNS hostnames, success All", function()
    assert.are.equal("Never", pod.restartPolicy)
    assert.are.equal("train", pod.subdomain)
    assert.is_true(m.spec.network.enableDNSHostnames)
    assert.are.equal("All", m.spec.successPolicy.operator)
  end)

  it("failurePolicy.maxRestarts only when > 0; the TTL when set", function()
    assert.are.same({ maxRestarts = 2 }, m.spec.failurePolicy)
    assert.are.equal(600, m.spec.ttlSecondsAfterFinished)
    local plain = kfjob.Elastic{ nnodes = 2, worker = {} }:manifest{ target = "flyte2-clustered", name = "t",
                                                                     image = "i:1" }
    assert.is_nil(plain.spec.failurePolicy)
    assert.is_nil(plain.spec.ttlSecondsAfterFinished)
  end)

  it("the plugin's variables over the user's, the user's others kept", function()
    local env = {}
    for _, v in ipairs(pod.containers[1].env) do env[v.name] = v end
    assert.are.equal("1", env.A.value)
    assert.are.equal("3", env.NNODES.value)
    assert.are.equal("2", env.NPROC_PER_NODE.value)
    assert.are.equal("29500", env.MASTER_PORT.value)
    assert.are.equal("c10d", env.RDZV_BACKEND.value)
    assert.are.equal("2", env.JOBSET_MAX_RESTARTS.value)
    assert.are.equal("metadata.namespace", env.POD_NAMESPACE.valueFrom.fieldRef.fieldPath)
    assert.is_truthy(env.JOBSET_NAME.valueFrom.fieldRef)
    assert.is_truthy(env.JOBSET_RESTART_ATTEMPT.valueFrom.fieldRef)
    local n = 0
    for _, v in ipairs(pod.containers[1].env) do if v.name == "NNODES" then n = n + 1 end end
    assert.are.equal(1, n)
  end)

  it("the task container: image, args, resources", function()
    local ct = pod.containers[1]
    assert.are.equal("img:1", ct.image)
    assert.are.same({ "python", "train.py" }, ct.args)
    assert.are.equal("2", ct.resources.limits["nvidia.com/gpu"])
  end)

  it("the annotations flyte.org/task-type and flyte.org/primary-container", function()
    assert.are.equal("clustered-task", m.metadata.annotations["flyte.org/task-type"])
    assert.is_string(m.metadata.annotations["flyte.org/primary-container"])
  end)

  it("a PyTorchJob: master + workers pods, RDZV_BACKEND static, NPROC_PER_NODE 1", function()
    local p = kfjob.PyTorchJob{ master = {}, worker = { replicas = 3 } }
      :manifest{ target = "flyte2-clustered", name = "pt", image = "img:1" }
    local s = p.spec.replicatedJobs[1].template.spec
    assert.are.equal(4, s.parallelism)
    local env = {}
    for _, v in ipairs(s.template.spec.containers[1].env) do env[v.name] = v.value end
    assert.are.equal("static", env.RDZV_BACKEND)
    assert.are.equal("1", env.NPROC_PER_NODE)
    assert.are.equal("4", env.NNODES)
  end)

  it("the rules stop it: scheduling the backend does not set (R48), a long name (R45)", function()
    local queued = kfjob.Elastic{ nnodes = 2, worker = {}, scheduling = { queue = "team-a" } }
    assert.matches("scheduling.queue: cannot travel in a clustered task",
      util.error_of(function() return queued:manifest{ target = "flyte2-clustered", name = "t", image = "i" } end),
      1, true)
    assert.matches("opts.name: too long",
      util.error_of(function() return kfjob.Elastic{ nnodes = 2, worker = {} }
        :manifest{ target = "flyte2-clustered", name = string.rep("a", 50), image = "i" } end), 1, true)
  end)
end)

describe("flyte2-clustered: reading back", function()
  local job = kfjob.Elastic{ nnodes = 3, nproc_per_node = 4, max_restarts = 2, worker = {}, limits = { gpu = 4 },
    container = { image = "img:1", args = { "python", "train.py" }, env = { A = "1" } }, interconnect = "efa",
    restart_on_host_maintenance = true, run_policy = { backoff_limit = 2, ttl_seconds_after_finished = 60 } }

  it("decode_task_template reads a clustered-task TaskTemplate back equal (bytes and JSON), as Elastic", function()
    local back, info = kfjob.decode_task_template(job:task_template(T))
    assert.is_true(back == job)
    assert.are.equal("clustered-task", info.type)
    assert.are.equal(1, info.version)
    assert.are.equal("flyte2-clustered", info.target)
    local j2 = kfjob.decode_task_template(job:task_template{ target = "flyte2-clustered", format = "json" })
    assert.is_true(j2 == job)
  end)

  it("a STATIC rendezvous reads back as rdzv_backend = \"static\"", function()
    local s = kfjob.Elastic{ nnodes = 2, worker = {}, rdzv_backend = "static", container = { image = "i:1" } }
    assert.is_nil(s:custom(T).runtime.torchrun.rdzvBackend)   -- STATIC is the zero value
    local back = kfjob.decode_task_template(s:task_template(T))
    assert.are.equal("static", back:spec().rdzv_backend)
    assert.is_true(back == s)
  end)

  it("opts.kind = PyTorchJob reads master + workers", function()
    local p = kfjob.PyTorchJob{ master = {}, worker = { replicas = 3 }, container = { image = "i:1" } }
    local back = kfjob.decode_task_template(p:task_template(T), { kind = "PyTorchJob" })
    assert.is_true(back == p)
    local _, err = kfjob.decode_task_template(p:task_template(T), { kind = "TFJob" })
    assert.matches("opts.kind: TFJob does not match type 'clustered-task'", err, 1, true)
  end)

  it("bad payloads name the field: replicas 0, an unknown key, a version 0, no custom", function()
    local js = job:task_template{ target = "flyte2-clustered", format = "json" }
    local _, err = kfjob.decode_task_template((js:gsub('"replicas":3', '"replicas":0')))
    assert.matches("custom: replicas: must be 1 to 100000, got 0", err, 1, true)
    _, err = kfjob.decode_task_template((js:gsub('"replicas":3', '"replicaz":3')))
    assert.matches("custom: replicaz: unknown field", err, 1, true)
    _, err = kfjob.decode_task_template((js:gsub('"taskTypeVersion":1', '"taskTypeVersion":0')))
    assert.matches("unsupported task_type_version 0 of type 'clustered-task'", err, 1, true)
    _, err = kfjob.decode_task_template('{"type":"clustered-task","taskTypeVersion":1}')
    assert.matches("custom: missing", err, 1, true)
    _, err = kfjob.decode_task_template('{"type":"clustered-task","taskTypeVersion":1,"custom":{}}')
    assert.matches("custom: empty: a 'clustered-task' task without its plugin message", err, 1, true)
    _, err = kfjob.decode_task_template(
      '{"type":"clustered-task","taskTypeVersion":1,"custom":{"replicas":2,"nprocPerNode":1}}')
    assert.matches("custom: runtime: no torchrun", err, 1, true)
  end)

  it("kfjob decode and kfjob convert read it and keep its target", function()
    local cli = os.getenv("KFJOB_CLI")
    if not cli then return pending("KFJOB_CLI is not set") end
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir " .. q(dir)))
    local path = dir .. "/ct.pb"   -- the job is named after the file (a DNS label)
    local f = assert(io.open(path, "wb"))
    f:write(job:task_template(T))
    f:close()
    local p = io.popen("env -u LD_PRELOAD " .. cli .. " decode " .. path .. " 2>&1")
    local out = p:read("*a")
    p:close()
    assert.matches('"type":"clustered-task"', out, 1, true)
    assert.matches('"replicas":3', out, 1, true)
    p = io.popen("env -u LD_PRELOAD " .. cli .. " convert " .. path .. " 2>&1")
    out = p:read("*a")
    p:close()
    assert.matches("kind: JobSet", out, 1, true)
    -- on another target its own fields are refused (R42)
    p = io.popen("env -u LD_PRELOAD " .. cli .. " convert " .. path .. " --to operator 2>&1")
    out = p:read("*a")
    p:close()
    assert.matches("interconnect: 'efa' cannot be expressed", out, 1, true)
    assert.matches("rule R42", out, 1, true)
    os.remove(path)
    os.remove(dir)
  end)
end)

describe("flyte2-clustered: the pods' environment", function()
  local job = kfjob.Elastic{ nnodes = 2, nproc_per_node = 4, worker = {}, limits = { gpu = 4 },
    container = { image = "i:1", env = { A = "1", NNODES = "9", JOBSET_NAME = "x" } },
    run_policy = { backoff_limit = 3 } }

  local function vars(pod)
    local out = {}
    for _, v in ipairs(pod.env) do
      out[v.name] = v.value or (v.valueFrom and v.valueFrom.fieldRef.fieldPath)
    end
    return out
  end

  it("one entry a JobSet pod, the plugin's variables over the user's", function()
    local env = job:environment{ target = "flyte2-clustered", name = "t" }
    assert.is_truthy(env["workers-0-0"])
    assert.is_truthy(env["workers-0-1"])
    assert.is_nil(env["workers-0-2"])
    local v = vars(env["workers-0-1"])
    assert.are.equal("1", v.A)
    assert.are.equal("2", v.NNODES)
    assert.are.equal("4", v.NPROC_PER_NODE)
    assert.are.equal("29500", v.MASTER_PORT)
    assert.are.equal("c10d", v.RDZV_BACKEND)
    assert.are.equal("3", v.JOBSET_MAX_RESTARTS)
    assert.are.equal("metadata.labels['jobset.sigs.k8s.io/jobset-name']", v.JOBSET_NAME)
    assert.are.equal("metadata.namespace", v.POD_NAMESPACE)
    local n = 0
    for _, x in ipairs(env["workers-0-0"].env) do if x.name == "NNODES" then n = n + 1 end end
    assert.are.equal(1, n)
  end)

  it("kfjob env --target flyte2-clustered lists the same", function()
    local cli = os.getenv("KFJOB_CLI")
    if not cli then return pending("KFJOB_CLI is not set") end
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write('local kfjob = require "kfjob"\nreturn kfjob.Elastic{ nnodes = 2, worker = {}, '
      .. 'container = { image = "i:1" } }\n')
    f:close()
    local p = io.popen("env -u LD_PRELOAD " .. cli .. " env --name job --target flyte2-clustered " .. path .. " 2>&1")
    local out = p:read("*a")
    p:close()
    os.remove(path)
    assert.matches("workers-0-1\nNNODES=2\nNPROC_PER_NODE=1\nMASTER_PORT=29500\nRDZV_BACKEND=c10d", out, 1, true)
  end)
end)

describe("flyte2-clustered: the JobSet read back", function()
  it("from_manifest reads kfjob's JobSet back equal, as Elastic", function()
    local job = kfjob.Elastic{ nnodes = 3, nproc_per_node = 4, worker = {}, limits = { gpu = 4 },
      container = { image = "img:1", args = { "python", "train.py" }, env = { A = "1" } },
      run_policy = { backoff_limit = 2, ttl_seconds_after_finished = 60 } }
    local back, info = kfjob.from_manifest(job:manifest{ target = "flyte2-clustered", name = "train",
                                                         format = "yaml" })
    assert.is_true(back == job)
    assert.are.equal("flyte2-clustered", info.target)
    assert.are.equal("JobSet", info.kind)
    assert.are.equal("jobset.x-k8s.io/v1alpha2", info.api_version)
  end)

  it("with kind PyTorchJob: master and parallelism - 1 workers", function()
    local p = kfjob.PyTorchJob{ master = {}, worker = { replicas = 2 }, container = { image = "img:1" } }
    local back = kfjob.from_manifest(p:manifest{ target = "flyte2-clustered", name = "pt" },
                                     { kind = "PyTorchJob" })
    assert.is_true(back == p)
  end)

  it("with kind PyTorchJob, an Elastic job's JobSet is refused: a PyTorchJob's runs 1 process per node", function()
    local e = kfjob.Elastic{ nnodes = 3, nproc_per_node = 4, limits = { gpu = 4 },
      container = { image = "img:1" } }
    local back, err = kfjob.from_manifest(e:manifest{ target = "flyte2-clustered", name = "e" },
                                          { kind = "PyTorchJob" })
    assert.is_nil(back)
    assert.matches("spec.replicatedJobs[0].template.spec.template.spec.containers[0].env: "
                   .. "NPROC_PER_NODE 4 and RDZV_BACKEND c10d are an Elastic job's", err, 1, true)
    -- and a NPROC_PER_NODE that is not a positive integer names its path
    local m = e:manifest{ target = "flyte2-clustered", name = "e" }
    for _, v in ipairs(m.spec.replicatedJobs[1].template.spec.template.spec.containers[1].env) do
      if v.name == "NPROC_PER_NODE" then v.value = "4x" end
    end
    back, err = kfjob.from_manifest(m)
    assert.is_nil(back)
    assert.matches("containers[0].env.NPROC_PER_NODE: '4x' is not a positive integer", err, 1, true)
  end)

  it("another shape names the path", function()
    local m = kfjob.Elastic{ nnodes = 2, worker = {}, container = { image = "i:1" } }
      :manifest{ target = "flyte2-clustered", name = "t" }
    m.spec.replicatedJobs[1].name = "leader"
    local back, err = kfjob.from_manifest(m)
    assert.is_nil(back)
    assert.matches("kfjob.from_manifest: spec.replicatedJobs[0]: expected name 'workers'", err, 1, true)
    m.spec.replicatedJobs[1].name = "workers"
    m.spec.replicatedJobs[1].template.spec.completions = 5
    back, err = kfjob.from_manifest(m)
    assert.is_nil(back)
    assert.matches("spec.replicatedJobs[0].template.spec.parallelism: expected parallelism = completions",
                   err, 1, true)
  end)
end)

describe("reading a plugin TaskTemplate: an empty or undecodable custom is refused", function()
  for _, t in ipairs({ "pytorch", "tensorflow", "mpi", "clustered-task" }) do
    it(t .. ": custom {} (registers, then fails at run time)", function()
      local back, err = kfjob.decode_task_template('{"type":"' .. t .. '","taskTypeVersion":1,"custom":{}}')
      assert.is_nil(back)
      assert.matches("custom: empty: a '" .. t .. "' task without its plugin message registers, then fails "
                     .. "at run time", err, 1, true)
      back, err = kfjob.decode_task_template('{"type":"' .. t .. '","taskTypeVersion":1,"custom":{"x":1}}')
      assert.is_nil(back)
      assert.matches("custom: x: unknown field", err, 1, true)
    end)
  end

  it("version 0's master-only PyTorchJob is {} and still reads", function()
    local j = kfjob.PyTorchJob{ master = {}, worker = { replicas = 0 }, container = { image = "i:1" } }
    assert.is_true(kfjob.decode_task_template(j:task_template{ version = 0 }) == j)
  end)
end)
