-- Scenarios for the allocation-failure harness (test/alloc/allocfail.c).
--
-- Returns a list of {name =, fn =, prep =} (or {name =, skip = reason}).
-- Only `fn` runs under allocation failure; `prep` (optional) runs just before
-- it, unarmed, and its results are `fn`'s arguments.  Inside `fn`, anything
-- other than success or a memory error must raise an error that does not
-- mention memory, so the harness counts it as a failure: an exact validation
-- message changing under memory pressure, or `nil, msg` from a decoder given
-- valid input, are bugs.
--
-- Cold start: kfjob keeps one arena per module instance and reuses its
-- largest chunk, so an operation only reaches its allocation-failure paths
-- when nothing before it in the state warmed that arena.  Hence:
--   * nothing in this file calls kfjob while loading (features are found in
--     the registry's metatables; bytes and JSON come in the global DATA,
--     computed once by the harness in a state of its own: the "data pass",
--     where DATA is nil and this file returns them as `.data`);
--   * `prep` builds its objects with a second instance of the module
--     (package.preload.kfjob again), so the methods called in `fn` -- bound
--     to the first instance's context -- start cold too.  If that binding
--     ever changes the scenarios still pass, with less coverage.
--
-- Later features (manifest, lint, launcher_command...) are detected and their
-- scenarios listed as skipped until they exist.
local kfjob = require "kfjob"
local template = package.loaded["kfjob.template"] or kfjob.template
local DATA = rawget(_G, "DATA")
local DATA_PASS = DATA == nil

local S = {}
local function scenario(name, fn, prep) S[#S + 1] = { name = name, fn = fn, prep = prep } end
local function skip(name, why) S[#S + 1] = { name = name, skip = why } end

local function is_oom(msg)
  return type(msg) == "string" and msg:find("not enough memory", 1, true) ~= nil
end
local function strip(msg) return (tostring(msg):gsub("^[^\n]-:%d+: ", "", 1)) end

-- f(...) must raise exactly `want` (memory errors propagate).
local function raises(want, f, ...)
  local ok, e = pcall(f, ...)
  if ok then error("expected the error: " .. want, 0) end
  if is_oom(e) then error(e, 0) end
  if strip(e) ~= want then error("wrong error: " .. strip(e) .. " (wanted: " .. want .. ")", 0) end
end
-- a decoder result that must be a success
local function must(v, msg, ...)
  if v == nil then
    if is_oom(msg) then error(msg, 0) end
    error("unexpected failure: " .. tostring(msg), 0)
  end
  return v, msg, ...
end
-- a decoder result that must be `nil, msg` with msg starting with `prefix`
local function fails(prefix, v, msg)
  if v ~= nil then error("expected a failure: " .. prefix, 0) end
  if is_oom(msg) then error(msg, 0) end
  if type(msg) ~= "string" or msg:sub(1, #prefix) ~= prefix then
    error("wrong failure: " .. tostring(msg) .. " (wanted " .. prefix .. "...)", 0)
  end
end
local function check(cond, what) if not cond then error("check failed: " .. what, 0) end end

-- features, from the job metatables' method tables (no kfjob call)
local methods = (debug.getregistry()["kfjob.TFJob"] or {}).methods or {}
local mpi_methods = (debug.getregistry()["kfjob.MPIJob"] or {}).methods or {}
local F = {
  custom = methods.custom ~= nil, to_json = methods.to_json ~= nil,
  task_template = methods.task_template ~= nil, manifest = methods.manifest ~= nil,
  lint = methods.lint ~= nil, versions = methods.versions ~= nil,
  launcher_command = mpi_methods.launcher_command ~= nil,
  from_json = type(kfjob.from_json) == "function",
  decode_task_template = type(kfjob.decode_task_template) == "function",
  task_spec = methods.task_spec ~= nil and type(kfjob.decode_task_spec) == "function",
  variants = type(template) == "table" and type(template.variants) == "function",
}

-- A second module instance for `prep` (see the top of the file).
local K2
local function k2()
  if not K2 then
    local saved = package.loaded.kfjob
    package.loaded.kfjob = nil
    K2 = require "kfjob"
    package.loaded.kfjob = saved
  end
  return K2
end

-- rich constructor tables, one per kind (every field the kind takes)
local res = { cpu = "500m", mem = "4Gi", gpu = 1, ephemeral_storage = 0.5 }
local lim = { cpu = 2, memory = "8Gi", gpu = "1" }
local SPECS = {
  TFJob = {
    worker = { replicas = 4, image = "tf:2.15", requests = res, limits = lim, restart_policy = "on_failure" },
    ps = { replicas = 2, requests = { cpu = "1" } },
    chief = { replicas = 1, restart_policy = "Always" },
    evaluator = { replicas = 1, image = "tf:eval" },
    run_policy = { clean_pod_policy = "running", ttl_seconds_after_finished = 600,
                   active_deadline_seconds = 3600, backoff_limit = 3 },
  },
  PyTorchJob = {
    worker = { replicas = 3, image = "pt:2", requests = res, restart_policy = "never" },
    master = { replicas = 1, limits = lim },
    run_policy = { clean_pod_policy = "all" },
  },
  Elastic = {
    nnodes = "2:4", nproc_per_node = 8, max_restarts = 3, rdzv_backend = "etcd-v2",
    worker = { image = "pt:2", requests = res, limits = lim, restart_policy = "on_failure" },
    run_policy = { backoff_limit = 2 },
  },
  MPIJob = {
    worker = { replicas = 8, command = { "python", "train.py", "--lr", "0.1" }, requests = res },
    launcher = { replicas = 1, image = "mpi:1", command = { "mpirun", "-np", "8" } },
    slots = 4,
    run_policy = { clean_pod_policy = "none", active_deadline_seconds = 100 },
  },
  HorovodJob = {
    worker = { replicas = 2, requests = res, command = { "python", "hvd.py" } },
    launcher = { image = "hvd:1" },
    slots = 2,
  },
}
-- Horovod's own fields do not travel in the MPI message: built, not decoded
local HOROVOD_FULL = {
  worker = { replicas = 2, command = { "python", "hvd.py" } }, slots = 2, verbose = true,
  log_level = "DEBUG", discovery_script_path = "/opt/discover.sh", elastic_timeout = 600,
}
-- the same kinds, as simple as version 0 can express
local V0 = {
  TFJob = { worker = { replicas = 2 }, ps = { replicas = 1 }, chief = { replicas = 1 } },
  PyTorchJob = { worker = { replicas = 2 } },
  Elastic = { nnodes = "1:3", nproc_per_node = 2 },
  MPIJob = { worker = { replicas = 2 }, slots = 2 },
  HorovodJob = { worker = { replicas = 2 }, slots = 1 },
}
local KINDS = { "TFJob", "PyTorchJob", "Elastic", "MPIJob", "HorovodJob" }
local TT = { TFJob = "tensorflow", PyTorchJob = "pytorch", Elastic = "pytorch",
             MPIJob = "mpi", HorovodJob = "mpi" }
local function kopts(k, t)
  t = t or {}
  if k == "HorovodJob" then t.kind = k end
  return t
end
local TTOPTS = {
  id = { project = "p", domain = "development", name = "train", version = "v1" },
  container = { image = "img:1", command = { "python" }, args = { "-m", "train" },
                env = { B = "2", A = "1" } },
  config = { key = "value" },
}
local MANIFEST = { name = "train-job", image = "img:1", namespace = "ml",
                   labels = { team = "a" }, env = { X = "1" } }

-- TaskSpec options with every part: interface nesting, metadata, launcher
local function tsopts(format)
  return { format = format,
    id = { project = "ml", domain = "development", name = "train", version = "v7" },
    container = { image = "img:1", args = { "python", "t.py" }, env = { B = "2", A = "1" } },
    interface = { inputs = { lr = "float", files = { list = "file" }, m = { map = { list = "integer" } } },
                  outputs = { model = "directory" } },
    metadata = { retries = 3, timeout = "1h30m", interruptible = true, description = "d",
                 cache = { version = "1", serializable = true, ignore_inputs = { "lr" } },
                 tags = { team = "ml", a = "b" } } }
end
local TSOPTS, TSOPTS_JSON = tsopts(nil), tsopts("json")

-- ---- the data pass -------------------------------------------------------

if DATA_PASS then
  local d = {}
  for _, k in ipairs(KINDS) do
    local j, j0 = kfjob[k](SPECS[k]), kfjob[k](V0[k])
    d["v1." .. k] = j:encode()
    d["common." .. k] = j:encode{ replica_encoding = "common" }
    d["v0." .. k] = j0:encode{ version = 0 }
    if F.to_json then
      d["json." .. k] = j:to_json()
      d["json0." .. k] = j0:to_json{ version = 0 }
    end
    if F.task_template then
      d["tt." .. k] = j:task_template(TTOPTS)
      d["ttjson." .. k] = j:task_template{ format = "json", id = TTOPTS.id }
      d["tt0." .. k] = j0:task_template{ version = 0 }
    end
    if F.task_spec then
      d["ts." .. k] = j:task_spec(TSOPTS)
      d["tsjson." .. k] = j:task_spec(TSOPTS_JSON)
    end
  end
  S.data = d
  return S
end

-- prep helpers: jobs from the second instance
local function jobs(which)
  local K, out = k2(), {}
  for _, k in ipairs(KINDS) do out[k] = K[k]((which or SPECS)[k]) end
  return out
end

-- ---- construction -----------------------------------------------------------

for _, k in ipairs(KINDS) do
  scenario("construct " .. k, function()
    local j = kfjob[k](SPECS[k])
    check(j:encode() == DATA["v1." .. k], "bytes")
    local j0 = kfjob[k](V0[k])
    check(j0.kind == k, "kind")
    if k == "HorovodJob" then check(kfjob.HorovodJob(HOROVOD_FULL).verbose == true, "horovod") end
  end)
end

scenario("construct groups and RunPolicy", function()
  local w = kfjob.Worker{ replicas = 2, image = "x:1", requests = res, limits = lim,
                          command = { "a", "b" }, restart_policy = "OnFailure" }
  local p = kfjob.PS{ replicas = 1, requests = { cpu = 1 } }
  local c = kfjob.Chief{ replicas = 1 }
  local e = kfjob.Evaluator{ replicas = 0 }
  local m = kfjob.Master{ limits = { gpu = 2 } }
  local l = kfjob.Launcher{ image = "l:1", command = { "mpirun" } }
  local rp = kfjob.RunPolicy{ clean_pod_policy = "CLEANPOD_POLICY_ALL", backoff_limit = 1 }
  local j = kfjob.TFJob{ worker = kfjob.Worker{ replicas = 3 }, ps = p, chief = c, evaluator = e, run_policy = rp }
  check(j.worker.replicas == 3, "worker replicas")
  check(w.command[2] == "b" and m.limits.gpu == "2" and l.image == "l:1", "fields")
  local mj = kfjob.MPIJob{ worker = w, launcher = l }
  check(mj.worker.command[1] == "a", "command")
  check(j.run_policy.backoff_limit == 1, "run policy")
end)

local ERRORS = {
  { "unknown field", "kfjob.TFJob: worker.replcas: unknown field (did you mean 'replicas'?)",
    "TFJob", { worker = { replcas = 1 } } },
  { "bad quantity", "kfjob.TFJob: worker.requests.cpu: invalid quantity '4GB' (expected e.g. \"500m\", \"4Gi\", \"2\")",
    "TFJob", { worker = { replicas = 1, requests = { cpu = "4GB" } } } },
  { "negative quantity", "kfjob.TFJob: worker.requests.cpu: '-1' is negative: Kubernetes refuses negative "
    .. "requests and limits (pod validation: must be greater than or equal to 0)",
    "TFJob", { worker = { replicas = 1, requests = { cpu = "-1" } } } },
  { "rule", "kfjob.PyTorchJob: master.replicas: must be 0 or 1 (got 2)",
    "PyTorchJob", { worker = { replicas = 1 }, master = { replicas = 2 } } },
  { "deprecated", "kfjob.MPIJob: num_workers: cannot be combined with worker.replicas (num_workers is deprecated)",
    "MPIJob", { worker = { replicas = 2 }, num_workers = 3 } },
  { "bad enum", "kfjob.MPIJob: worker.restart_policy: unknown restart policy 'sometimes' "
    .. "(expected never, on_failure, always or exit_code)",
    "MPIJob", { worker = { replicas = 2, restart_policy = "sometimes" } } },
  { "int32 range", "kfjob.TFJob: worker.replicas: integer out of int32 range (2147483648)",
    "TFJob", { worker = { replicas = 2147483648 } } },
}
for _, c in ipairs(ERRORS) do
  scenario("construct error: " .. c[1], function()
    raises(c[2], kfjob[c[3]], c[4])
  end)
end

scenario("construct error: deep and cyclic tables", function()
  local deep = {}
  local t = deep
  for _ = 1, 70 do t.worker = {}; t = t.worker end
  local ok, e = pcall(kfjob.TFJob, deep)
  check(not ok, "deep table rejected")
  if is_oom(e) then error(e, 0) end
  local cyc = { worker = { replicas = 1 } }
  cyc.worker.requests = cyc
  ok, e = pcall(kfjob.TFJob, cyc)
  check(not ok, "cyclic table rejected")
  if is_oom(e) then error(e, 0) end
end)

-- ---- objects ------------------------------------------------------------------

scenario("spec, tostring, ==, fields, versions", function(J)
  for _, k in ipairs(KINDS) do
    local j = J[k]
    local s = j:spec()
    check(kfjob[k](s) == j, "spec round trip " .. k)
    check(type(tostring(j)) == "string", "tostring")
    check(j.worker ~= nil and j.task_type ~= nil, "fields")
    if F.versions then check(#j:versions() >= 1, "versions") end
    raises(("kfjob.%s has no field 'wroker' (did you mean 'worker'?)"):format(k),
           function() return j.wroker end)
  end
end, function() return jobs() end)

for _, k in ipairs(KINDS) do
  local over = {
    TFJob = { worker = { replicas = 8, requests = { cpu = "4" } }, ["ps.replicas"] = 3 },
    PyTorchJob = { ["worker.image"] = "pt:3", run_policy = { backoff_limit = 9 } },
    Elastic = { nnodes = 4, ["worker.image"] = "pt:3" },
    MPIJob = { worker = { replicas = 1, command = { "x" } }, slots = 1 },
    HorovodJob = { ["launcher.image"] = "hvd:2", worker = { limits = { gpu = 1 } } },
  }
  scenario("with() " .. k, function(j)
    local w = j:with(over[k])
    check(w ~= j, "changed")
    if k == "TFJob" then
      raises("kfjob.TFJob: worker.replicas: must be >= 0 (got -1)",
             function() return j:with{ ["worker.replicas"] = -1 } end)
    end
  end, function() return k2()[k](SPECS[k]) end)
end

-- ---- wire bytes -----------------------------------------------------------

for _, k in ipairs(KINDS) do
  scenario("encode " .. k .. " (v0, v1 flat, v1 common)", function(j, j0)
    check(j:encode() == DATA["v1." .. k], "v1")
    check(j:encode{ replica_encoding = "common" } == DATA["common." .. k], "common")
    check(j0:encode{ version = 0 } == DATA["v0." .. k], "v0")
  end, function() return k2()[k](SPECS[k]), k2()[k](V0[k]) end)
end

scenario("encode: version 0 cannot express", function(j)
  raises("kfjob.MPIJob: version 0 cannot express worker.requests, worker.command, "
         .. "launcher.image, launcher.command, run_policy (use version 1); a v0 worker "
         .. "command travels in the TaskTemplate config, see task_template()",
         function() return j:encode{ version = 0 } end)
end, function() return k2().MPIJob(SPECS.MPIJob) end)

-- rules by target (SPEC §11): the problem lists of check and lint, and the
-- first error raised when emitting
local methods_check = methods.check ~= nil
if methods_check then
  scenario("check and lint by target", function(j, p)
    local ok, problems = j:check()
    check(ok == nil and #problems == 1 and problems[1].rule == "R3", "check")
    check(j:check{ target = "operator" } == true, "check operator")
    local w = p:lint{ target = "operator" }
    check(#w >= 2, "lint R8")
    raises("kfjob.TFJob: worker.replicas: must be >= 1 (got 0) (target flyte2)",
           function() return j:encode{ target = "flyte2" } end)
    raises("kfjob.to_json: target 'operator' has no to_json (it runs training-operator v1.9 "
           .. "(kubeflow.org/v1))", function() return j:to_json{ target = "operator" } end)
  end, function()
    return k2().TFJob{ ps = { replicas = 1 } },
           k2().TFJob{ worker = { replicas = 1 }, chief = { replicas = 2 }, evaluator = { replicas = 2 } }
  end)
else
  skip("check and lint by target", "no job:check")
end

for _, k in ipairs(KINDS) do
  scenario("decode " .. k .. " (v1 flat, v1 common, v0)", function()
    local j = must(kfjob.decode(TT[k], DATA["v1." .. k], kopts(k)))
    check(j.kind == k, "kind")
    check(must(kfjob.decode(TT[k], DATA["common." .. k], kopts(k))) == j, "common")
    local j0 = must(kfjob.decode(TT[k], DATA["v0." .. k], kopts(k, { version = 0 })))
    check(j0:encode{ version = 0 } == DATA["v0." .. k], "v0 round trip")
    check(j:encode() == DATA["v1." .. k], "v1 round trip")
  end)
end

scenario("decode: bad bytes", function()
  fails("kfjob.decode: malformed", kfjob.decode("tensorflow", DATA["v1.TFJob"]:sub(1, -2)))
  fails("kfjob.decode: malformed", kfjob.decode("mpi", "\255\255\255\255"))
  fails("kfjob.decode: unknown task type", kfjob.decode("spark", DATA["v1.TFJob"]))
  fails("kfjob.decode: opts.version", kfjob.decode("pytorch", "", { version = 7 }))
  fails("kfjob.decode: ", kfjob.decode("tensorflow", "\8\255\255\255\255\15"))
end)

-- ---- JSON ------------------------------------------------------------------

if F.custom and F.to_json then
  for _, k in ipairs(KINDS) do
    scenario("custom / to_json " .. k, function(j, j0)
      check(j:to_json() == DATA["json." .. k], "to_json")
      check(type(j:custom()) == "table", "custom")
      check(#j:to_json{ indent = 2 } > 2, "to_json indent")
      check(j0:to_json{ version = 0 } == DATA["json0." .. k], "to_json v0")
    end, function() return k2()[k](SPECS[k]), k2()[k](V0[k]) end)
  end
else skip("custom / to_json", "job:custom/to_json not available yet") end

if F.from_json and F.to_json then
  for _, k in ipairs(KINDS) do
    scenario("from_json " .. k .. " (string, table, v0)", function(custom)
      local j = must(kfjob.from_json(TT[k], DATA["json." .. k], kopts(k)))
      check(j:encode() == DATA["v1." .. k], "string")
      check(must(kfjob.from_json(TT[k], custom, kopts(k))) == j, "table")
      local j0 = must(kfjob.from_json(TT[k], DATA["json0." .. k], kopts(k, { version = 0 })))
      check(j0:encode{ version = 0 } == DATA["v0." .. k], "v0")
    end, function() return k2()[k](SPECS[k]):custom() end)
  end
  scenario("from_json: bad JSON", function()
    fails("kfjob.from_json: ", kfjob.from_json("tensorflow", "{\"workerReplicas\": {\"replicas\": 1.5}}"))
    fails("kfjob.from_json: ", kfjob.from_json("tensorflow", "{\"workerReplicas\": {"))
    fails("kfjob.from_json: ", kfjob.from_json("tensorflow", "{\"nope\": 1}"))
    fails("kfjob.from_json: ", kfjob.from_json("tensorflow", ("["):rep(100) .. ("]"):rep(100)))
    fails("kfjob.from_json: ", kfjob.from_json("tensorflow", "{\"workerReplicas\": \"\255\"}"))
  end)
  -- the JSON reader's own forms: escapes, reals, deep and wide objects
  -- (the widest is handed on to jansson), each allocation failed in turn
  scenario("from_json: escapes, reals, deep and wide text", function()
    local plain = '{"workerReplicas":{"replicas":2,"image":"img/a:1"}}'
    local esc = '{ "workerReplicas" : { "replicas" : 2.0e0 ,\n "image":"\\u0069mg\\/a:1" } }'
    check(must(kfjob.from_json("tensorflow", esc)) == must(kfjob.from_json("tensorflow", plain)),
      "escaped text reads as the plain one")
    fails("kfjob.from_json: ", kfjob.from_json("tensorflow", ('{"a":'):rep(60) .. "1" .. ("}"):rep(60)))
    local wide = {}
    for i = 1, 200 do wide[i] = '"k' .. i .. '":' .. i end
    fails("kfjob.from_json: ", kfjob.from_json("tensorflow", "{" .. table.concat(wide, ",") .. "}"))
  end)
else skip("from_json", "kfjob.from_json not available yet") end

-- ---- TaskTemplate ----------------------------------------------------------

if F.task_template then
  for _, k in ipairs(KINDS) do
    scenario("task_template " .. k .. " (pb, json, v0)", function(j, j0)
      check(j:task_template(TTOPTS) == DATA["tt." .. k], "pb")
      check(j:task_template{ format = "json", id = TTOPTS.id } == DATA["ttjson." .. k], "json")
      check(j0:task_template{ version = 0 } == DATA["tt0." .. k], "v0")
      check(#j:task_template{ format = "json", indent = 2 } > 0, "indent")
    end, function() return k2()[k](SPECS[k]), k2()[k](V0[k]) end)
  end
  scenario("task_template: v0 MPI worker command in config", function(m0)
    check(#m0:task_template{ version = 0 } > 0, "v0 worker command in config")
    raises("kfjob.task_template: opts.id.project: expected a string",
           function() return m0:task_template{ id = { project = 1 } } end)
  end, function() return k2().MPIJob{ worker = { replicas = 2, command = { "python", "x.py" } } } end)
else skip("task_template", "job:task_template not available yet") end

if F.task_template and F.decode_task_template then
  for _, k in ipairs(KINDS) do
    scenario("decode_task_template " .. k .. " (pb, json, v0)", function()
      local j, info = must(kfjob.decode_task_template(DATA["tt." .. k], kopts(k)))
      check(j:encode() == DATA["v1." .. k] and type(info) == "table", "pb")
      -- the pb's container is the job's (the JSON has none)
      check(must(kfjob.decode_task_template(DATA["ttjson." .. k], kopts(k))):with{
        container = TTOPTS.container } == j, "json")
      local j0 = must(kfjob.decode_task_template(DATA["tt0." .. k], kopts(k)))
      check(j0:encode{ version = 0 } == DATA["v0." .. k], "v0")
    end)
  end
  scenario("decode_task_template: bad input", function()
    fails("kfjob.decode_task_template: ", kfjob.decode_task_template(DATA["tt.TFJob"]:sub(1, 20)))
    fails("kfjob.decode_task_template: ", kfjob.decode_task_template("{\"type\": \"spark\"}"))
    fails("kfjob.decode_task_template: ",
          kfjob.decode_task_template("{\"type\": \"tensorflow\", \"custom\": 3}"))
  end)
else skip("decode_task_template", "kfjob.decode_task_template not available yet") end

-- ---- TaskSpec ----------------------------------------------------------------

if F.task_spec then
  for _, k in ipairs(KINDS) do
    scenario("task_spec " .. k .. " (pb, json)", function(j)
      check(j:task_spec(TSOPTS) == DATA["ts." .. k], "pb")
      check(j:task_spec(TSOPTS_JSON) == DATA["tsjson." .. k], "json")
      raises("kfjob.task_spec: opts.interface.inputs.x.list: unknown type 'intger' (did you mean 'integer'?)",
             function() return j:task_spec{ id = TSOPTS.id, container = TSOPTS.container,
               interface = { inputs = { x = { list = "intger" } } } } end)
      raises("kfjob.task_spec: missing registration fields: opts.id.project, opts.id.domain, "
             .. "opts.id.name, opts.id.version (flyteadmin rejects a task without them)",
             function() return j:task_spec{ container = { image = "i" } } end)
    end, function() return k2()[k](SPECS[k]) end)
    scenario("decode_task_spec " .. k .. " (pb, json)", function()
      local j, info = must(kfjob.decode_task_spec(DATA["ts." .. k], kopts(k)))
      check(type(info) == "table" and type(info.interface) == "table" and
            type(info.metadata) == "table", "info")
      check(must(kfjob.decode_task_spec(DATA["tsjson." .. k], kopts(k))) == j, "json")
    end)
  end
  scenario("decode_task_spec: bad input", function()
    fails("kfjob.decode_task_spec: ", kfjob.decode_task_spec(DATA["ts.TFJob"]:sub(1, 30)))
    fails("kfjob.decode_task_spec: ", kfjob.decode_task_spec("{\"template\": {\"type\": \"spark\"}}"))
    fails("kfjob.decode_task_spec: ",
          kfjob.decode_task_spec("{\"template\": {\"metadata\": {\"timeout\": \"x\"}}}"))
  end)
else skip("task_spec", "job:task_spec not available yet") end

-- ---- manifests -------------------------------------------------------------

if F.manifest then
  for _, k in ipairs(KINDS) do
    scenario("manifest " .. k .. " (table, json, yaml)", function(j)
      local o = {}
      for key, v in pairs(MANIFEST) do o[key] = v end
      check(type(j:manifest(o)) == "table", "table")
      o.format = "json"
      check(type(j:manifest(o)) == "string", "json")
      o.format = "yaml"
      check(type(j:manifest(o)) == "string", "yaml")
    end, function() return k2()[k](SPECS[k]) end)
  end
else skip("manifest", "job:manifest not available yet") end

-- ---- environment (SPEC §11) -------------------------------------------------

if methods.environment ~= nil then
  -- targets each kind runs on, with user variables that collide (R16 warns)
  local ENV_TARGETS = {
    TFJob = { "operator", "flyte2" }, PyTorchJob = { "operator", "flyte", "flyte2" },
    Elastic = { "operator", "flyte", "flyte2" }, MPIJob = { "operator", "flyte2", "mpi-operator" },
    HorovodJob = { "operator", "mpi-operator" },
  }
  for _, k in ipairs(KINDS) do
    if ENV_TARGETS[k] then scenario("environment " .. k, function(j)
      for _, t in ipairs(ENV_TARGETS[k]) do
        check(type(j:environment{ name = "train-job", namespace = "ml", target = t,
                                  env = { X = "1", WORLD_SIZE = "2", I_MPI_HYDRA_BOOTSTRAP = "ssh" } }) == "table", t)
      end
    end, function() return k2()[k](SPECS[k]) end) end
  end
  -- a TrainJob is one `node` job: one image and one resources table (R21)
  scenario("environment PyTorchJob trainer-2.3", function(j)
    check(type(j:environment{ name = "train-job", target = "trainer-2.3",
                              env = { X = "1", WORLD_SIZE = "2" } }) == "table", "trainer")
  end, function() return k2().PyTorchJob{ master = { image = "pt:2" }, worker = { replicas = 2, image = "pt:2" } } end)
else skip("environment", "job:environment not available yet") end

-- every target's builder, with pod settings (kf_manifest_{flyte,mpi,trainer}.c)
if F.manifest then
  local POD = { metadata = { labels = { p = "1" } },
                spec = { nodeSelector = { pool = "a" }, volumes = { { name = "d", emptyDir = {} } },
                         containers = { { name = "primary", volumeMounts = { { name = "d", mountPath = "/d" } } } } } }
  local G = { cpu = 1, mem = "1Gi", gpu = 1 }
  local BY_TARGET = {
    { "flyte", "MPIJob", SPECS.MPIJob }, { "flyte", "PyTorchJob", SPECS.PyTorchJob },
    { "flyte2", "PyTorchJob", { worker = { replicas = 2 }, pod_template = POD, shared_memory = true } },
    { "flyte2", "TFJob", SPECS.TFJob },
    { "mpi-operator", "MPIJob", SPECS.MPIJob },
    { "mpi-operator", "HorovodJob", { worker = { replicas = 2 }, slots = 2, pod_template = POD,
                                      run_policy = { backoff_limit = 1 } } },
    { "trainer-2.3", "PyTorchJob", { master = { limits = G }, worker = { replicas = 3, limits = G },
                                     pod_template = POD, shared_memory = "1Gi", accelerator = "nvidia-h100",
                                     run_policy = { active_deadline_seconds = 60 } } },
    { "trainer-2.2", "Elastic", { nnodes = 2, nproc_per_node = 4, requests = { cpu = 1 } } },
  }
  for _, c in ipairs(BY_TARGET) do
    scenario("manifest " .. c[2] .. " target " .. c[1] .. " (table, yaml)", function(j)
      local o = { target = c[1], args = { "python", "x.py" } }
      for key, v in pairs(MANIFEST) do o[key] = v end
      check(type(j:manifest(o)) == "table", "table")
      o.format = "yaml"
      check(type(j:manifest(o)) == "string", "yaml")
    end, function() return k2()[c[2]](c[3]) end)
  end
  scenario("manifest target error (R13 on the mpi-operator)", function(j)
    raises("kfjob.MPIJob: worker.restart_policy: 'always' cannot be expressed: the mpi-operator "
           .. "accepts only Never and OnFailure (target mpi-operator)",
           j.manifest, j, { name = "m", image = "i", target = "mpi-operator" })
  end, function() return k2().MPIJob{ worker = { replicas = 1, restart_policy = "always" } } end)
end

if type(kfjob.manifests) == "function" then
  scenario("manifests (batch: yaml stream, json list)", function(J)
    local items = { J.TFJob, { job = J.MPIJob, name = "mpi-job", namespace = "x" },
                    { job = J.Elastic, name = "elastic-job" } }
    check(type(kfjob.manifests(items, { name = "batch", image = "img:1" })) == "string", "yaml")
    check(type(kfjob.manifests(items, { name = "batch", image = "img:1", format = "json" })) == "string", "json")
  end, function() return jobs() end)
else skip("manifests", "kfjob.manifests not available yet") end

if F.lint then
  scenario("lint", function(J)
    for _, k in ipairs(KINDS) do check(type(J[k]:lint()) == "table", "lint " .. k) end
  end, function() return jobs() end)
else skip("lint", "job:lint not available yet") end

if F.launcher_command then
  scenario("launcher_command", function(m, h)
    check(type(m:launcher_command{ "python", "x.py" }) == "table", "mpi")
    check(type(h:launcher_command{ "python", "x.py" }) == "table", "horovod")
  end, function() return k2().MPIJob(SPECS.MPIJob), k2().HorovodJob(HOROVOD_FULL) end)
else skip("launcher_command", "job:launcher_command not available yet") end

-- ---- the template layer ------------------------------------------------------

if F.variants then
  scenario("template.variants", function()
    local n = 0
    local base = kfjob.PyTorchJob(SPECS.PyTorchJob)
    for name, job in template.variants(base,
        { ["worker.replicas"] = { 1, 2, 4 }, tag = { "a", "b" } },
        { name = "bert-w${worker.replicas}-${tag}" }) do
      check(type(name) == "string" and job.worker ~= nil, "variant")
      n = n + 1
    end
    check(n == 6, "six variants")
  end)
else skip("template.variants", "kfjob.template.variants not available yet") end

-- ---- pod settings (SPEC 2.4) ------------------------------------------------

local POD = {
  worker = { replicas = 2, limits = { gpu = 2 } },
  master = { limits = { gpu = 2 } },
  shared_memory = "8Gi",
  accelerator = { device = "nvidia-tesla-a100", partition_size = "1g.5gb" },
  requests = { cpu = 4, mem = "16Gi" }, limits = { ephemeral_storage = "20Gi" },
  pod_template = {
    primary_container_name = "main",
    metadata = { labels = { team = "nlp" }, annotations = { ["example.com/x"] = "y" } },
    spec = {
      tolerations = { { key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" } },
      affinity = { nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = {
        { matchExpressions = { { key = "zone", operator = "In", values = { "a", "b" } } } } } } } },
      volumes = { { name = "data", persistentVolumeClaim = { claimName = "imagenet", readOnly = true } } },
      securityContext = { runAsUser = 1000 },
      containers = {
        { name = "main", env = { { name = "DATA", value = "/data" } },
          volumeMounts = { { name = "data", mountPath = "/data" } } },
        { name = "metrics", image = "prom/statsd-exporter:v0.26.0", ports = { { containerPort = 9102 } } },
      },
    },
  },
}

scenario("construct with pod settings (every kind)", function()
  for _, k in ipairs(KINDS) do
    local t = {}
    for key, v in pairs(V0[k]) do t[key] = v end
    for key, v in pairs(POD) do if key ~= "worker" and key ~= "master" then t[key] = v end end
    local j = kfjob[k](t)
    check(j.pod_template.spec.containers[2].name == "metrics", "template " .. k)
    check(j.shared_memory == "8Gi" and j.accelerator.device == "nvidia-tesla-a100", "settings " .. k)
    check(kfjob[k](j:spec()) == j, "spec round trip " .. k)
  end
end)

local POD_ERRORS = {
  { "template typo", "kfjob.TFJob: pod_template.spec.tolerations[1].efect: unknown field (did you mean 'effect'?)",
    { worker = { replicas = 1 }, pod_template = { spec = { tolerations = { { efect = "NoSchedule" } } } } } },
  { "primary image", "kfjob.TFJob: pod_template.spec.containers[1].image: not allowed on the primary container "
    .. "'primary' (the replica groups and the task set it)",
    { worker = { replicas = 1 }, pod_template = { spec = { containers = { { name = "primary", image = "x" } } } } } },
  { "shm conflict", "kfjob.TFJob: shared_memory: conflicts with pod_template.spec.volumes[1] (a volume named "
    .. "flyte-shared-memory)",
    { worker = { replicas = 1 }, shared_memory = true,
      pod_template = { spec = { volumes = { { name = "flyte-shared-memory", emptyDir = {} } } } } } },
}
for _, c in ipairs(POD_ERRORS) do
  scenario("construct error: pod " .. c[1], function() raises(c[2], kfjob.TFJob, c[3]) end)
end

scenario("with() pod settings", function(j)
  local w = j:with{ ["pod_template.metadata.labels.team"] = "cv", shared_memory = true,
                    accelerator = "nvidia-l4" }
  check(w.pod_template.metadata.labels.team == "cv" and w.shared_memory == true, "with")
  check(w ~= j, "changed")
end, function() return k2().PyTorchJob(POD) end)

if F.task_template and F.decode_task_template then
  scenario("task_template with pod settings (pb, json) and back", function(j)
    local pb = j:task_template(TTOPTS)
    local back = must(kfjob.decode_task_template(pb))
    check(back.shared_memory == "8Gi" and back.pod_template.spec.containers[2].name == "metrics", "pb")
    local js = j:task_template{ format = "json", id = TTOPTS.id }
    check(must(kfjob.decode_task_template(js)).accelerator.partition_size == "1g.5gb", "json")
  end, function() return k2().PyTorchJob(POD) end)
else skip("task_template with pod settings", "job:task_template not available yet") end

if F.manifest then
  scenario("manifest with pod settings (table, json, yaml)", function(j)
    local o = {}
    for key, v in pairs(MANIFEST) do o[key] = v end
    local m = j:manifest(o)
    local pod = m.spec.pytorchReplicaSpecs.Worker.template.spec
    check(pod.containers[1].name == "pytorch" and pod.containers[2].name == "metrics", "containers")
    check(pod.volumes[2].name == "flyte-shared-memory" and #pod.tolerations == 3, "merged")
    o.format = "json"
    check(type(j:manifest(o)) == "string", "json")
    o.format = "yaml"
    check(type(j:manifest(o)) == "string", "yaml")
    raises("kfjob.manifest: pod_template.spec.containers[1].name: 'pytorch' is the name the primary "
      .. "container 'primary' gets in a PyTorchJob (rename this container)",
      function() return k2().PyTorchJob{ worker = { replicas = 1 }, pod_template = { spec = {
        containers = { { name = "pytorch", image = "x" } } } } }:manifest(MANIFEST) end)
  end, function() return k2().PyTorchJob(POD) end)
else skip("manifest with pod settings", "job:manifest not available yet") end

if F.lint then
  scenario("lint with pod settings", function(j, bare)
    for _, w in ipairs(j:lint()) do
      check(w.path ~= "shared_memory" and w.path ~= "accelerator", "no pod warning")
    end
    check(bare:lint()[1].path == "shared_memory", "shared memory warning")
  end, function() return k2().PyTorchJob(POD), k2().PyTorchJob{ worker = { replicas = 1 },
                                                                 accelerator = "nvidia-l4" } end)
else skip("lint with pod settings", "job:lint not available yet") end

-- ---- kinds only the training-operator runs (SPEC §12) ----------------------

local OP_SPECS = {
  JAXJob = { worker = { replicas = 4, image = "jax:0.4", limits = lim, restart_policy = "on_failure" },
             run_policy = { backoff_limit = 0, clean_pod_policy = "all" }, shared_memory = true },
  XGBoostJob = { worker = { replicas = 2, requests = res }, master = { image = "xgb:m" },
                 run_policy = { ttl_seconds_after_finished = 60 } },
  PaddleJob = { worker = { replicas = 3, requests = res }, master = { replicas = 0 },
                pod_template = { spec = { nodeSelector = { pool = "cpu" } } } },
}
local NO_TT = " has no Flyte task type, so no plugin message, TaskTemplate or TaskSpec (kinds with "
  .. "one: TFJob, PyTorchJob, Elastic, MPIJob or HorovodJob); the training-operator runs it from manifest()"
for _, k in ipairs({ "JAXJob", "XGBoostJob", "PaddleJob" }) do
  scenario("construct, spec, with " .. k, function()
    local j = kfjob[k](OP_SPECS[k])
    check(kfjob[k](j:spec()) == j, "spec round trip")
    check(j:with{ ["worker.replicas"] = 7 }.worker.replicas == 7, "with leaf")
    check(j:with{ worker = { image = "other:1" } }.worker.image == "other:1", "with merge")
    raises("kfjob.encode: " .. k .. NO_TT, function() return j:encode() end)
  end)
  if F.manifest then
    scenario("manifest " .. k .. " (table, json, yaml)", function(j)
      local o = {}
      for key, v in pairs(MANIFEST) do o[key] = v end
      check(type(j:manifest(o)) == "table", "table")
      o.format = "json"
      check(type(j:manifest(o)) == "string", "json")
      o.format = "yaml"
      check(type(j:manifest(o)) == "string", "yaml")
      if F.lint then check(type(j:lint()) == "table", "lint") end
    end, function() return k2()[k](OP_SPECS[k]) end)
  end
end
scenario("operator-only kinds: construction errors", function()
  raises("kfjob.XGBoostJob: master.replicas: must be 1 (got 2)",
         function() return kfjob.XGBoostJob{ master = { replicas = 2 } } end)
  raises("kfjob.PaddleJob: worker.replicas: must be >= 1 when master.replicas is 0 (a PaddleJob "
    .. "needs at least one pod)", function() return kfjob.PaddleJob{ master = { replicas = 0 } } end)
  raises("kfjob.JAXJob: worker.replicas: required (at least 1 worker)", function() return kfjob.JAXJob{} end)
end)

return S
