-- Specs for job:manifest and kfjob.manifests (SPEC §4, FACTS §3-§4).
--
-- Every configuration is rendered as a table, JSON and YAML; the JSON and
-- YAML go through tools/validate-manifest (strict, operator rules on; and
-- ../shared/tools/validate-manifest too where it exists) in one batch, and /usr/bin/python3's yaml module checks that
-- the YAML reads back as the same tree as the JSON and the table.  Hand-
-- edited manifests prove the validator bites.  Without python3-yaml (and
-- python3-jsonschema) those specs are pending with the reason, never passed.
local unpack = table.unpack or unpack   -- 5.1 and LuaJIT: unpack

local kfjob = require "kfjob"

local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
local PY = os.getenv("KFJOB_PYTHON") or "/usr/bin/python3"
local encode_json = dofile(here .. "/conformance/json.lua")

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local sh_ok = require("util").sh_ok
local validators, no_validator = require("util").validators()
local function write(path, s) local f = assert(io.open(path, "wb")); f:write(s); f:close() end

-- The error message of f(...), without "file:line: ".
local error_of = require("util").error_of

local ARGS = { "pyflyte-execute", "--inputs", "s3://bucket/in/inputs.pb", "--output-prefix", "s3://bucket/out" }
local IMAGE = "registry.example/train:v1"
local SSHD = { "/usr/sbin/sshd", "-De" }

---------------------------------------------------------------------------
-- Configurations: several per kind, all meant to be valid.
---------------------------------------------------------------------------
local cases = {
  { "tf-worker", kfjob.TFJob{ worker = { replicas = 1 } }, { image = IMAGE } },
  { "tf-all-groups", kfjob.TFJob{
      chief = { replicas = 1 }, ps = { replicas = 2, requests = { cpu = "500m", mem = "1Gi" } },
      evaluator = { replicas = 1, image = "tf:eval" },
      worker = { replicas = 12, image = "tf:2", requests = { cpu = 2, mem = "4Gi", gpu = 1 },
                 limits = { cpu = 4, mem = "4Gi", gpu = 1, ephemeral_storage = "10Gi" },
                 restart_policy = "on_failure" },
      run_policy = { clean_pod_policy = "all", ttl_seconds_after_finished = 600,
                     active_deadline_seconds = 86400, backoff_limit = 4 } },
    { image = IMAGE, args = ARGS, namespace = "ml-team", service_account = "trainer" } },
  { "tf-gpu-limits-only", kfjob.TFJob{ worker = { replicas = 2, limits = { gpu = 2, cpu = 0.5 } },
                                       run_policy = {} },
    { image = IMAGE, command = { "python", "-m", "train" }, args = { "--epochs", "10" } } },
  { "tf-deprecated-metadata", kfjob.TFJob{ num_workers = 3, num_ps_replicas = 1 },
    { image = IMAGE, labels = { team = "ml", ["app.kubernetes.io/name"] = "trainer", empty = "" },
      annotations = { ["example.com/note"] = "free text: yes, 1", plain = "true" },
      env = { ZZ = "last", OMP_NUM_THREADS = "4", FLAG = "true", LEVEL = "08", ["my.var-x"] = "" } } },
  { "pytorch-facts", kfjob.PyTorchJob{ worker = { replicas = 4, limits = { gpu = 2 } },
                                       master = { restart_policy = "always" } },
    { image = IMAGE, args = ARGS } },
  { "pytorch-images", kfjob.PyTorchJob{
      master = { image = "pt:2.3", requests = { cpu = 1, mem = "2Gi" } },
      worker = { replicas = 2, image = "pt:2.3", requests = { gpu = 1 }, restart_policy = "on_failure" },
      run_policy = { clean_pod_policy = "running", backoff_limit = 2 } },
    { env = { NCCL_DEBUG = "INFO" } } },
  { "pytorch-deprecated", kfjob.PyTorchJob{ num_workers = 8 },
    { image = IMAGE, command = { "torchrun" }, args = { "train.py" } } },
  { "elastic-facts", kfjob.Elastic{ nnodes = "2:4", nproc_per_node = 8, max_restarts = 3 },
    { image = IMAGE, args = ARGS } },
  { "elastic-single", kfjob.Elastic{ nnodes = 1 }, { image = IMAGE } },
  { "elastic-etcd", kfjob.Elastic{ nnodes = 3, rdzv_backend = "etcd-v2",
      worker = { image = "pt:el", limits = { cpu = 8, mem = "32Gi", gpu = 4 }, restart_policy = "always" },
      run_policy = { clean_pod_policy = "all", ttl_seconds_after_finished = 60 } }, {} },
  { "mpi-facts", kfjob.MPIJob{ launcher = { replicas = 1, requests = { cpu = "1" } },
      worker = { replicas = 2, command = SSHD }, slots = 2, run_policy = { backoff_limit = 3 } },
    { image = IMAGE, args = { "python", "/opt/venv/bin/entrypoint.py", unpack(ARGS) } } },
  { "mpi-no-worker-command", kfjob.MPIJob{ worker = { replicas = 3, limits = { gpu = 1 } },
      launcher = { image = "mpi:launcher", command = { "mpirun", "-np", "12", "python", "train.py" } },
      slots = 4 }, { image = IMAGE } },
  { "mpi-deprecated", kfjob.MPIJob{ num_workers = 5, num_launcher_replicas = 1 },
    { image = IMAGE, args = { "python", "train.py" } } },
  { "horovod-facts", kfjob.HorovodJob{ worker = { replicas = 2 }, launcher = { replicas = 1 }, slots = 2 },
    { image = IMAGE, args = ARGS } },
  { "horovod-verbose", kfjob.HorovodJob{
      worker = { replicas = 4, command = { "/usr/sbin/sshd", "-De", "-f", "/home/jobuser/.sshd_config" },
                 requests = { cpu = 4, mem = "8Gi" }, limits = { cpu = 8 } },
      verbose = true, log_level = "DEBUG", discovery_script_path = "/opt/discover.sh",
      elastic_timeout = 60, run_policy = { clean_pod_policy = "all" } },
    { image = IMAGE, args = { "python", "train.py" }, labels = { team = "gpu" } } },
}

---------------------------------------------------------------------------
-- The batch: render everything, validate once, compare once.
---------------------------------------------------------------------------
local batch  -- name -> { json=, yaml=, table=, problems = {file = lines} }
local tmpfiles = {}
local function tmp(content)
  local p = os.tmpname()
  write(p, content)
  tmpfiles[#tmpfiles + 1] = p
  return p
end

local function missing_validator()
  if #validators == 0 then return no_validator end
end
local function missing_python()
  if not sh_ok(PY .. " -c 'import yaml, json'") then
    return PY .. " cannot import yaml: YAML round trip skipped (apt-get install python3-yaml)"
  end
end

-- Hand-edited manifests the validator must reject: name, base case, edit,
-- and a piece of the expected message.
local invalid = {
  { "no image", "tf-worker", function(m) m.spec.tfReplicaSpecs.Worker.template.spec.containers[1].image = nil end,
    "$.spec.tfReplicaSpecs.Worker.template.spec.containers[0].image: [webhook] required" },
  { "uppercase name", "pytorch-facts", function(m) m.metadata.name = "Train" end,
    "$.metadata.name: [metadata] invalid name" },
  { "unknown restart policy", "mpi-facts", function(m) m.spec.mpiReplicaSpecs.Worker.restartPolicy = "Sometimes" end,
    "$.spec.mpiReplicaSpecs.Worker.restartPolicy: [enum]" },
  { "unknown field", "elastic-facts", function(m) m.spec.elasticPolicy.rdzvPorts = 1 end,
    "$.spec.elasticPolicy.rdzvPorts: [unknown]" },
  { "replicas as a string", "horovod-facts", function(m) m.spec.mpiReplicaSpecs.Worker.replicas = "2" end,
    "$.spec.mpiReplicaSpecs.Worker.replicas: [schema]" },
  { "two masters", "pytorch-facts", function(m) m.spec.pytorchReplicaSpecs.Master.replicas = 2 end,
    "$.spec.pytorchReplicaSpecs.Master.replicas: [webhook] must be 1" },
  { "no launcher", "mpi-facts", function(m) m.spec.mpiReplicaSpecs.Launcher = nil end,
    "$.spec.mpiReplicaSpecs.Launcher: [controller] required" },
  { "wrong container name", "tf-all-groups", function(m)
      m.spec.tfReplicaSpecs.PS.template.spec.containers[1].name = "tf" end,
    "$.spec.tfReplicaSpecs.PS.template.spec.containers: [webhook] must have at least one container" },
  { "bad quantity", "tf-all-groups", function(m)
      m.spec.tfReplicaSpecs.Worker.template.spec.containers[1].resources.limits.cpu = "4 cores" end,
    "$.spec.tfReplicaSpecs.Worker.template.spec.containers[0].resources.limits.cpu: [schema]" },
}

local build_batch
local function run_batch()
  if not batch then
    batch = { cases = {}, invalid = {} }
    local ok, err = pcall(build_batch)
    batch.err = not ok and err or nil
  end
  assert(not batch.err, batch.err)
  return batch
end

function build_batch()
  local compare = {}
  local files = {}
  for _, c in ipairs(cases) do
    local name, job, opts = c[1], c[2], c[3]
    local r = { }
    local o = {}
    for k, v in pairs(opts) do o[k] = v end
    o.name = name
    local ok, err = pcall(function()
      r.table = job:manifest(o)
      o.format = "json"; r.json = job:manifest(o)
      o.format = "yaml"; r.yaml = job:manifest(o)
    end)
    if not ok then
      r.err = err
    else
      r.json_file, r.yaml_file = tmp(r.json), tmp(r.yaml)
      r.table_file = tmp(encode_json(r.table))
      files[#files + 1] = r.json_file
      files[#files + 1] = r.yaml_file
      compare[#compare + 1] = table.concat({ name, r.yaml_file, r.json_file, r.table_file }, "\t")
    end
    batch.cases[name] = r
  end
  -- all cases at once: a YAML stream and a JSON List
  local all = {}
  for _, c in ipairs(cases) do all[#all + 1] = { job = c[2], name = c[1], image = c[3].image or IMAGE } end
  local okm, stream = pcall(kfjob.manifests, all, {})
  local okl, jlist = pcall(kfjob.manifests, all, { format = "json", indent = 1 })
  local okt, tables = pcall(kfjob.manifests, all, { format = "table" })
  batch.multi = { err = (not okm and stream) or (not okl and jlist) or (not okt and tables) or nil }
  if not batch.multi.err then
    batch.multi.yaml_file, batch.multi.json_file = tmp(stream), tmp(jlist)
    batch.multi.table_file = tmp(encode_json(tables))
    batch.multi.count = #tables
    files[#files + 1] = batch.multi.yaml_file
    files[#files + 1] = batch.multi.json_file
    compare[#compare + 1] = table.concat({ "multi", batch.multi.yaml_file, batch.multi.json_file,
                                           batch.multi.table_file }, "\t")
  end
  local function deep(x)
    if type(x) ~= "table" then return x end
    local y = {}
    for k, v in pairs(x) do y[k] = deep(v) end
    return y
  end
  for _, v in ipairs(invalid) do
    local base = batch.cases[v[2]]
    if base and base.table then
      local edited = deep(base.table)
      v[3](edited)
      batch.invalid[v[1]] = { file = tmp(encode_json(edited)) }
      files[#files + 1] = batch.invalid[v[1]].file
    end
  end
  -- YAML whose quoting was undone by hand: "true" read as a boolean
  local flag = batch.cases["tf-deprecated-metadata"]
  if flag and flag.yaml then
    local y = flag.yaml:gsub('value: "true"', "value: true")
    batch.invalid["unquoted boolean"] = { file = tmp(y) }
    files[#files + 1] = batch.invalid["unquoted boolean"].file
  end

  batch.validator_skip = missing_validator()
  -- per validator: its whole output, and its lines by file
  batch.validator_out, batch.lines = {}, {}
  for _, vd in ipairs(batch.validator_skip and {} or validators) do
    local p = assert(io.popen(vd.cmd .. " --strict " .. table.concat((function()
      local t = {} for i, f in ipairs(files) do t[i] = q(f) end return t end)(), " ") .. " 2>&1"))
    local out = p:read("*a")
    p:close()
    local lines = {}
    for line in out:gmatch("[^\n]+") do
      local file = line:match("^(.-):#%d+ ") or line:match("^(.-): error: ")
      if file then
        lines[file] = lines[file] or {}
        table.insert(lines[file], line)
      end
    end
    batch.validator_out[vd.name], batch.lines[vd.name] = out, lines
  end
  batch.python_skip = missing_python()
  if not batch.python_skip then
    local list = tmp(table.concat(compare, "\n") .. "\n")
    local script = [[
import json, sys, yaml
for line in open(sys.argv[1], encoding="utf-8"):
    name, ypath, jpath, tpath = line.rstrip("\n").split("\t")
    try:
        y = list(yaml.safe_load_all(open(ypath, encoding="utf-8")))
        j = json.load(open(jpath, encoding="utf-8"))
        t = json.load(open(tpath, encoding="utf-8"))
        js = j["items"] if j.get("kind") == "List" else [j]
        ts = t if isinstance(t, list) else [t]
        if y != js:
            print(name + "\tYAML differs from JSON: " + json.dumps(y)[:400])
        elif ts != js:
            print(name + "\ttable differs from JSON: " + json.dumps(ts)[:400])
        else:
            print(name + "\tok")
    except Exception as e:
        print(name + "\terror: " + repr(e))
]]
    local p = assert(io.popen(PY .. " -c " .. q(script) .. " " .. q(list) .. " 2>&1"))
    batch.roundtrip = {}
    for line in p:read("*a"):gmatch("[^\n]+") do
      local name, verdict = line:match("^(.-)\t(.*)$")
      if name then batch.roundtrip[name] = verdict end
    end
    p:close()
  end
end

-- Problems (not warnings) the validator vd reported for a file, each
-- line after the validator's name.
local function problems(file, vd)
  local out = {}
  for _, line in ipairs(batch.lines[vd.name][file] or {}) do
    if not line:find(": warning: ", 1, true) then out[#out + 1] = vd.name .. ": " .. line end
  end
  return out
end

describe("job:manifest", function()
  teardown(function() for _, p in ipairs(tmpfiles) do os.remove(p) end end)

  describe("validate-manifest accepts every configuration", function()
    for _, c in ipairs(cases) do
      for _, fmt in ipairs{ "json", "yaml" } do
        it(c[1] .. " (" .. fmt .. ")", function()
          local b = run_batch()
          local r = b.cases[c[1]]
          assert(not r.err, r.err)
          if b.validator_skip then return pending(b.validator_skip) end
          for _, vd in ipairs(validators) do assert.same({}, problems(r[fmt .. "_file"], vd)) end
        end)
      end
    end
    it("kfjob.manifests: the whole set as one YAML stream and one JSON List", function()
      local b = run_batch()
      assert(not b.multi.err, b.multi.err)
      assert.equal(#cases, b.multi.count)
      if b.validator_skip then return pending(b.validator_skip) end
      for _, vd in ipairs(validators) do
        assert.same({}, problems(b.multi.yaml_file, vd))
        assert.same({}, problems(b.multi.json_file, vd))
      end
    end)
  end)

  it("validate-manifest saw every object", function()
    local b = run_batch()
    if b.validator_skip then return pending(b.validator_skip) end
    -- each case twice, the set twice (stream and List), the edited ones
    local want = 2 * #cases + 2 * #cases + #invalid + 1
    for _, vd in ipairs(validators) do
      local n, bad = b.validator_out[vd.name]:match("(%d+) objects, (%d+) invalid")
      assert.equal(want, tonumber(n), vd.name)
      assert.equal(#invalid + 1, tonumber(bad), vd.name)
    end
  end)

  describe("validate-manifest rejects hand-edited manifests", function()
    local all = {}
    for _, v in ipairs(invalid) do all[#all + 1] = { v[1], v[4] } end
    all[#all + 1] = { "unquoted boolean", ".containers[0].env[0].value: [schema]" }
    for _, v in ipairs(all) do
      it(v[1], function()
        local b = run_batch()
        if b.validator_skip then return pending(b.validator_skip) end
        local inv = assert(b.invalid[v[1]], "case not built")
        for _, vd in ipairs(validators) do
          local lines = table.concat(problems(inv.file, vd), "\n")
          assert(lines:find(v[2], 1, true), ("%s: expected %q in:\n%s"):format(vd.name, v[2], lines))
        end
      end)
    end
  end)

  describe("YAML reads back as the JSON tree (python3 yaml)", function()
    for _, c in ipairs(cases) do
      it(c[1], function()
        local b = run_batch()
        assert(not b.cases[c[1]].err, b.cases[c[1]].err)
        if b.python_skip then return pending(b.python_skip) end
        assert.equal("ok", b.roundtrip[c[1]])
      end)
    end
    it("kfjob.manifests stream and List", function()
      local b = run_batch()
      if b.python_skip then return pending(b.python_skip) end
      assert.equal("ok", b.roundtrip.multi)
    end)
  end)
end)

---------------------------------------------------------------------------
-- The worked examples of FACTS §4, with the task container given through
-- opts.  Compared: what kfjob controls.  Not produced (Flyte or the cluster
-- adds them): creationTimestamp/status, execution labels, the default
-- safe-to-evict annotation, FLYTE_* env, terminationMessagePolicy,
-- enableServiceLinks, and the platform-default cpu/memory the backend
-- fills into groups without resources.
---------------------------------------------------------------------------
local function pod(container, sa)
  return { spec = { containers = { container }, restartPolicy = "Never", serviceAccountName = sa } }
end

describe("FACTS §4 worked examples", function()
  local base = { image = IMAGE, args = ARGS, service_account = "default" }
  local function opts(name, extra)
    local o = { name = name }
    for k, v in pairs(base) do o[k] = v end
    for k, v in pairs(extra or {}) do o[k] = v end
    return o
  end

  it("§4.3 TFJob: chief 1, worker 2 (tf:2, GPU, OnFailure), PS and evaluator 0 left out", function()
    local job = kfjob.TFJob{
      chief = { replicas = 1 }, ps = { replicas = 0 }, evaluator = { replicas = 0 },
      worker = { replicas = 2, image = "tf:2", requests = { cpu = 2, mem = "4Gi", gpu = 1 },
                 limits = { cpu = 4, mem = "4Gi", gpu = 1 }, restart_policy = "on_failure" },
      run_policy = { clean_pod_policy = "running", active_deadline_seconds = 3600 } }
    assert.same({
      apiVersion = "kubeflow.org/v1", kind = "TFJob", metadata = { name = "tf-example" },
      spec = {
        runPolicy = { cleanPodPolicy = "Running", activeDeadlineSeconds = 3600 },
        tfReplicaSpecs = {
          Chief = { replicas = 1, restartPolicy = "Never",
            template = pod({ name = "tensorflow", image = IMAGE, args = ARGS, resources = {} }, "default") },
          Worker = { replicas = 2, restartPolicy = "OnFailure",
            template = pod({ name = "tensorflow", image = "tf:2", args = ARGS, resources = {
              limits = { cpu = "4", memory = "4Gi", ["nvidia.com/gpu"] = "1" },
              requests = { cpu = "2", memory = "4Gi", ["nvidia.com/gpu"] = "1" } } }, "default") },
        } } }, job:manifest(opts("tf-example")))
  end)

  it("§4.4 PyTorchJob: master Always, worker 4 with a GPU limit (request = limit)", function()
    local job = kfjob.PyTorchJob{ worker = { replicas = 4, limits = { gpu = 2 } },
                                  master = { restart_policy = "always" } }
    assert.same({
      apiVersion = "kubeflow.org/v1", kind = "PyTorchJob", metadata = { name = "pt-example" },
      spec = {
        runPolicy = {},
        pytorchReplicaSpecs = {
          Master = { replicas = 1, restartPolicy = "Always",
            template = pod({ name = "pytorch", image = IMAGE, args = ARGS, resources = {} }, "default") },
          Worker = { replicas = 4, restartPolicy = "Never",
            template = pod({ name = "pytorch", image = IMAGE, args = ARGS, resources = {
              limits = { ["nvidia.com/gpu"] = "2" }, requests = { ["nvidia.com/gpu"] = "2" } } }, "default") },
        } } }, job:manifest(opts("pt-example")))
  end)

  -- on the operator, nproc_per_node is spec.nprocPerNode (FACTS §11.4:
  -- never the deprecated elasticPolicy.nProcPerNode, which Flyte sends, §4.5)
  it("§4.5 elastic PyTorchJob: elasticPolicy, Worker = max nodes, no Master", function()
    local job = kfjob.Elastic{ nnodes = "2:4", nproc_per_node = 8, max_restarts = 3 }
    assert.same({
      apiVersion = "kubeflow.org/v1", kind = "PyTorchJob", metadata = { name = "elastic-example" },
      spec = {
        runPolicy = {},
        -- rdzv_backend not given: no rdzvBackend (the operator defaults none,
        -- pytorch_defaults.go; the pods' PET_RDZV_BACKEND is c10d either way)
        elasticPolicy = { minReplicas = 2, maxReplicas = 4, maxRestarts = 3 },
        nprocPerNode = "8",
        pytorchReplicaSpecs = {
          Worker = { replicas = 4, restartPolicy = "Never",
            template = pod({ name = "pytorch", image = IMAGE, args = ARGS, resources = {} }, "default") },
        } } }, job:manifest(opts("elastic-example")))
    -- key order of the Go structs (FACTS §4.1), compact JSON
    assert.equal('{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"e"},"spec":{'
      .. '"runPolicy":{},"elasticPolicy":{"minReplicas":2,"maxReplicas":4,'
      .. '"maxRestarts":3},"nprocPerNode":"8","pytorchReplicaSpecs":{"Worker":{"replicas":4,"template":{'
      .. '"spec":{"containers":[{"name":"pytorch","image":"i","resources":{}}],"restartPolicy":"Never"}},'
      .. '"restartPolicy":"Never"}}}}', job:manifest{ name = "e", image = "i", format = "json" })
    local flyte = job:manifest{ name = "e", image = "i", target = "flyte" }
    -- Flyte's backend writes all five, rdzvBackend c10d given or not (FACTS §4.5)
    assert.same({ minReplicas = 2, maxReplicas = 4, rdzvBackend = "c10d", nProcPerNode = 8, maxRestarts = 3 },
                flyte.spec.elasticPolicy)
    assert.is_nil(flyte.spec.nprocPerNode)
  end)

  it("§4.6 MPIJob: launcher runs mpirun -np 4, worker command as args, slotsPerWorker = slots", function()
    local job = kfjob.MPIJob{ launcher = { replicas = 1, requests = { cpu = "1" } },
                              worker = { replicas = 2, command = SSHD }, slots = 2,
                              run_policy = { backoff_limit = 3 } }
    local entry = { "python", "/opt/venv/bin/entrypoint.py", unpack(ARGS) }
    local mpirun = { "mpirun", "--allow-run-as-root", "-bind-to", "none", "-map-by", "slot",
      "-x", "LD_LIBRARY_PATH", "-x", "PATH", "-x", "NCCL_DEBUG=INFO", "-mca", "pml", "ob1",
      "-mca", "btl", "^openib", "-np", "4", unpack(entry) }
    assert.same({
      apiVersion = "kubeflow.org/v1", kind = "MPIJob", metadata = { name = "mpi-example" },
      spec = {
        -- Flyte's v1 backend writes 1 here (it ignores slots); the operator needs 2
        slotsPerWorker = 2,
        mpiReplicaSpecs = {
          Launcher = { replicas = 1, restartPolicy = "Never",
            template = pod({ name = "mpi", image = IMAGE, args = mpirun,
                             resources = { requests = { cpu = "1" } } }, "default") },
          Worker = { replicas = 2, restartPolicy = "Never",
            template = pod({ name = "mpi", image = IMAGE, args = SSHD, resources = {} }, "default") },
        },
        runPolicy = { cleanPodPolicy = "None", backoffLimit = 3 },
      } }, job:manifest(opts("mpi-example", { args = entry })))
    assert.same(mpirun, job:launcher_command(entry))
    assert.equal('{"apiVersion":"kubeflow.org/v1","kind":"MPIJob","metadata":{"name":"m"},"spec":{'
      .. '"slotsPerWorker":2,"mpiReplicaSpecs":{"Launcher":{"replicas":1,"template":{"spec":{"containers":'
      .. '[{"name":"mpi","image":"i","args":["mpirun","--allow-run-as-root","-bind-to","none","-map-by",'
      .. '"slot","-x","LD_LIBRARY_PATH","-x","PATH","-x","NCCL_DEBUG=INFO","-mca","pml","ob1","-mca","btl",'
      .. '"^openib","-np","4"],"resources":{"requests":{"cpu":"1"}}}],"restartPolicy":"Never"}},'
      .. '"restartPolicy":"Never"},"Worker":{"replicas":2,"template":{"spec":{"containers":[{"name":"mpi",'
      .. '"image":"i","args":["/usr/sbin/sshd","-De"],"resources":{}}],"restartPolicy":"Never"}},'
      .. '"restartPolicy":"Never"}},"runPolicy":{"cleanPodPolicy":"None","backoffLimit":3}}}',
      job:manifest{ name = "m", image = "i", format = "json" })
  end)
end)

---------------------------------------------------------------------------
-- Details of the translation.
---------------------------------------------------------------------------
describe("job:manifest details", function()
  local tf = kfjob.TFJob{ worker = { replicas = 2 } }
  local function container(m, group)
    local specs = m.spec.tfReplicaSpecs or m.spec.pytorchReplicaSpecs or m.spec.mpiReplicaSpecs
    return specs[group].template.spec.containers[1]
  end

  it("metadata: name, namespace, labels and annotations (also on every pod template)", function()
    local m = tf:manifest{ name = "t", image = "i", namespace = "ns-1",
                           labels = { b = "2", a = "x" }, annotations = { ["x.io/y"] = "z" } }
    assert.same({ name = "t", namespace = "ns-1", labels = { a = "x", b = "2" },
                  annotations = { ["x.io/y"] = "z" } }, m.metadata)
    assert.same({ labels = { a = "x", b = "2" }, annotations = { ["x.io/y"] = "z" } },
                m.spec.tfReplicaSpecs.Worker.template.metadata)
    assert.matches('"metadata":{"name":"t","namespace":"ns%-1","labels":{"a":"x","b":"2"},"annotations"',
      tf:manifest{ name = "t", image = "i", namespace = "ns-1", labels = { b = "2", a = "x" },
                   annotations = { ["x.io/y"] = "z" }, format = "json" })
  end)

  it("container: command, args, env sorted by name", function()
    local m = tf:manifest{ name = "t", image = "i", command = { "python" }, args = { "a.py", "--x" },
                           env = { B = "2", A = "1", C = "" } }
    assert.same({ name = "tensorflow", image = "i", command = { "python" }, args = { "a.py", "--x" },
                  env = { { name = "A", value = "1" }, { name = "B", value = "2" }, { name = "C", value = "" } },
                  resources = {} }, container(m, "Worker"))
    assert.matches('"containers":%[{"name":"tensorflow","image":"i","command":%["python"%],'
                   .. '"args":%["a.py","%-%-x"%],"env":%[{"name":"A","value":"1"}',
      tf:manifest{ name = "t", image = "i", command = { "python" }, args = { "a.py", "--x" },
                   env = { B = "2", A = "1" }, format = "json" })
  end)

  it("empty command/args lists are left out", function()
    assert.same({ name = "tensorflow", image = "i", resources = {} },
                container(tf:manifest{ name = "t", image = "i", command = {}, args = {} }, "Worker"))
  end)

  it("a group image wins over opts.image; opts.image only needed when a group lacks one", function()
    local job = kfjob.PyTorchJob{ worker = { replicas = 1, image = "w:1" }, master = { image = "m:1" } }
    local m = job:manifest{ name = "p" }
    assert.equal("w:1", container(m, "Worker").image)
    assert.equal("m:1", container(m, "Master").image)
    assert.equal("w:1", container(job:manifest{ name = "p", image = "task:1" }, "Worker").image)
  end)

  it("resources: Kubernetes names, sorted; limit-only gets an equal request; zeros dropped", function()
    local job = kfjob.TFJob{ worker = { replicas = 1,
      requests = { mem = "1Gi", cpu = 0, ephemeral_storage = "5Gi" },
      limits = { gpu = 1, cpu = "2", ephemeral_storage = "10Gi", mem = 0 } } }
    local c = container(job:manifest{ name = "t", image = "i" }, "Worker")
    assert.same({
      limits = { cpu = "2", ["ephemeral-storage"] = "10Gi", ["nvidia.com/gpu"] = "1" },
      requests = { cpu = "2", ["ephemeral-storage"] = "5Gi", memory = "1Gi", ["nvidia.com/gpu"] = "1" },
    }, c.resources)
    assert.matches('"resources":{"limits":{"cpu":"2","ephemeral%-storage":"10Gi","nvidia.com/gpu":"1"},'
      .. '"requests":{"cpu":"2","ephemeral%-storage":"5Gi","memory":"1Gi","nvidia.com/gpu":"1"}}',
      job:manifest{ name = "t", image = "i", format = "json" })
  end)

  it("resources: a lone GPU request becomes the limit too; requests above limits are lowered", function()
    local job = kfjob.TFJob{ worker = { replicas = 1, requests = { gpu = 2, cpu = "4", mem = "1Gi" },
                                        limits = { cpu = "2000m" } } }
    assert.same({ limits = { cpu = "2000m", ["nvidia.com/gpu"] = "2" },
                  requests = { cpu = "2000m", memory = "1Gi", ["nvidia.com/gpu"] = "2" } },
                container(job:manifest{ name = "t", image = "i" }, "Worker").resources)
  end)

  it("replica restart policies map to Never / OnFailure / Always; pods always Never", function()
    local job = kfjob.TFJob{ worker = { replicas = 1, restart_policy = "always" },
                             ps = { replicas = 1, restart_policy = "on_failure" }, chief = { replicas = 1 } }
    local s = job:manifest{ name = "t", image = "i" }.spec.tfReplicaSpecs
    assert.equal("Always", s.Worker.restartPolicy)
    assert.equal("OnFailure", s.PS.restartPolicy)
    assert.equal("Never", s.Chief.restartPolicy)
    for _, g in pairs(s) do assert.equal("Never", g.template.spec.restartPolicy) end
  end)

  it("replica types sorted as Go sorts map keys", function()
    local job = kfjob.TFJob{ worker = { replicas = 1 }, ps = { replicas = 1 }, chief = { replicas = 1 },
                             evaluator = { replicas = 1 } }
    local j = job:manifest{ name = "t", image = "i", format = "json" }
    local a, b, c, d = j:find('"Chief"'), j:find('"Evaluator"'), j:find('"PS"'), j:find('"Worker"')
    assert.truthy(a < b and b < c and c < d)
  end)

  it("runPolicy: clean pod policy always, zeros left out; {} without a policy", function()
    local function rp(p)
      local job = kfjob.PyTorchJob{ worker = { replicas = 1 }, run_policy = p }
      return job:manifest{ name = "p", image = "i" }.spec.runPolicy
    end
    assert.same({ cleanPodPolicy = "None" }, rp{})
    assert.same({ cleanPodPolicy = "All", ttlSecondsAfterFinished = 100, activeDeadlineSeconds = 100,
                  backoffLimit = 5 }, rp{ clean_pod_policy = "all", ttl_seconds_after_finished = 100,
                                          active_deadline_seconds = 100, backoff_limit = 5 })
    assert.same({}, rp(nil))
    local job = kfjob.TFJob{ worker = { replicas = 1 }, run_policy = { backoff_limit = 3,
      active_deadline_seconds = 2, ttl_seconds_after_finished = 1, clean_pod_policy = "all" } }
    assert.matches('"runPolicy":{"cleanPodPolicy":"All","ttlSecondsAfterFinished":1,'
                   .. '"activeDeadlineSeconds":2,"backoffLimit":3}',
                   job:manifest{ name = "t", image = "i", format = "json" })
  end)

  it("MPI: opts.command stays the launcher's command, around the launcher command; a worker runs none", function()
    -- a v1 worker with a command runs it, one without runs `sleep 365d`
    -- (training-operator mpijob_controller.go newWorker): the launcher's
    -- command is not the workers'
    local job = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 3 }
    local m = job:manifest{ name = "m", image = "i", command = { "/bin/sh", "-c" }, args = { "train" } }
    local want = job:launcher_command{ "train" }
    assert.equal("6", want[#want - 1])
    assert.same({ "/bin/sh", "-c" }, container(m, "Launcher").command)
    assert.same(want, container(m, "Launcher").args)
    assert.is_nil(container(m, "Worker").command)
    assert.is_nil(container(m, "Worker").args)
    assert.equal(3, m.spec.slotsPerWorker)
  end)

  it("Horovod: the launcher runs horovodrun; kind MPIJob", function()
    local job = kfjob.HorovodJob{ worker = { replicas = 2, command = SSHD }, slots = 2 }
    local m = job:manifest{ name = "h", image = "i", args = { "python", "t.py" } }
    assert.equal("MPIJob", m.kind)
    assert.same(job:launcher_command{ "python", "t.py" }, container(m, "Launcher").args)
    assert.same(SSHD, container(m, "Worker").args)
  end)

  it("a name exactly as long as the pods allow is accepted", function()
    -- <name>-worker-1: 54 + 9 = 63
    local name = ("a"):rep(54)
    assert.equal(name, tf:manifest{ name = name, image = "i" }.metadata.name)
    -- MPI launcher pods are <name>-launcher (no index)
    local mpi = kfjob.MPIJob{ worker = { replicas = 1 } }
    assert.equal(("m"):rep(54), mpi:manifest{ name = ("m"):rep(54), image = "i" }.metadata.name)
  end)

  it("format = \"table\" is the default; JSON indent; YAML indent", function()
    assert.same(tf:manifest{ name = "t", image = "i" }, tf:manifest{ name = "t", image = "i", format = "table" })
    assert.matches('^{\n  "apiVersion": "kubeflow.org/v1",\n  "kind": "TFJob"',
                   tf:manifest{ name = "t", image = "i", format = "json", indent = 2 })
    assert.matches("\nspec:\n    runPolicy: {}\n    tfReplicaSpecs:\n        Worker:\n",
                   tf:manifest{ name = "t", image = "i", format = "yaml", indent = 4 })
  end)

  it("YAML text: block style, keys in order, quoting only where needed", function()
    local y = kfjob.TFJob{ worker = { replicas = 1, limits = { cpu = 2, mem = "1Gi" } } }:manifest{
      name = "t", image = "i", format = "yaml", args = { "-x", "1", "--lr=0.1" } }
    assert.equal([[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: t
spec:
  runPolicy: {}
  tfReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: tensorflow
            image: i
            args:
            - -x
            - "1"
            - --lr=0.1
            resources:
              limits:
                cpu: "2"
                memory: 1Gi
              requests:
                cpu: "2"
                memory: 1Gi
          restartPolicy: Never
      restartPolicy: Never
]], y)
  end)
end)

describe("YAML quoting", function()
  local tf = kfjob.TFJob{ worker = { replicas = 1 } }
  -- values a YAML 1.1 or 1.2 reader would not read back as the same string
  local tricky = { "1", "08", "0x1F", "0o17", "1e3", "1E3", ".5", "-1", "+1", "1_000", "1:30",
    "2024-01-02", "2001-12-14t21:59:43.10-05:00", "true", "True", "FALSE", "yes", "No", "on", "OFF",
    "y", "n", "null", "Null", "~", "", ".inf", "-.Inf", ".NaN", "=", "<<" }
  local plain = { "1Gi", "500m", "-np", "--verbose", "^openib", "NCCL_DEBUG=INFO", "s3://b/k", "yes please",
    "v1.2.3", "x86_64", "nvidia.com/gpu" }

  for _, s in ipairs(tricky) do
    it(("quotes %q"):format(s), function()
      local y = tf:manifest{ name = "t", image = "i", format = "yaml", env = { V = s } }
      assert.truthy(y:find("value: \"" .. s .. "\"\n", 1, true), y)
    end)
  end
  for _, s in ipairs(plain) do
    it(("leaves %q plain"):format(s), function()
      local y = tf:manifest{ name = "t", image = "i", format = "yaml", env = { V = s } }
      assert.truthy(y:find("value: " .. s .. "\n", 1, true), y)
    end)
  end

  it("every tricky and odd string reads back unchanged (python3 yaml)", function()
    local reason = missing_python()
    if reason then return pending(reason) end
    local env = {}
    local all = {}
    for _, s in ipairs(tricky) do all[#all + 1] = s end
    for _, s in ipairs(plain) do all[#all + 1] = s end
    for _, s in ipairs{ "a: b", "# not a comment", "multi\nline\n", " lead", "trail ", "tab\there",
                        "quote\"s", "it's", "héllo ✓", "- dash", "[x]", "{y}", "&anchor", "*alias",
                        "!tag", "%percent", "@at", "`tick", "|", ">", "\240\159\152\128" } do
      all[#all + 1] = s
    end
    for i, s in ipairs(all) do env[("V%02d"):format(i)] = s end
    local yfile = tmp(tf:manifest{ name = "t", image = "i", format = "yaml", env = env })
    local jfile = tmp(encode_json(env))
    local script = [[
import json, sys, yaml
d = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
got = {e["name"]: e["value"] for e in d["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["env"]}
want = json.load(open(sys.argv[2], encoding="utf-8"))
bad = [k for k in want if got.get(k) != want[k] or not isinstance(got.get(k), str)]
print("ok" if not bad and len(got) == len(want) else "bad " + repr([(k, got.get(k), want[k]) for k in bad]))
]]
    local p = assert(io.popen(PY .. " -c " .. q(script) .. " " .. q(yfile) .. " " .. q(jfile) .. " 2>&1"))
    local out = p:read("*a")
    p:close()
    assert.equal("ok\n", out)
  end)

  it("invalid UTF-8 is an error, not a crash", function()
    assert.equal("kfjob.manifest: YAML: a string is not valid UTF-8",
      error_of(tf.manifest, tf, { name = "t", image = "i", format = "yaml", env = { V = "\255" } }))
  end)
end)

describe("kfjob.manifests", function()
  local tf = kfjob.TFJob{ worker = { replicas = 1 } }
  local pt = kfjob.PyTorchJob{ worker = { replicas = 1 } }

  it("bare jobs are named opts.name-<index>; {job=, ...} items override shared opts", function()
    local t = kfjob.manifests({ tf, { job = pt, name = "pt", namespace = "other" } },
                              { name = "sweep", image = "i", namespace = "ml", format = "table" })
    assert.equal(2, #t)
    assert.same({ name = "sweep-1", namespace = "ml" }, t[1].metadata)
    assert.same({ name = "pt", namespace = "other" }, t[2].metadata)
  end)

  it("YAML stream by default, documents separated by ---", function()
    local y = kfjob.manifests({ tf, pt }, { name = "s", image = "i" })
    assert.truthy(y:find("^apiVersion: kubeflow.org/v1\nkind: TFJob\n"))
    assert.truthy(y:find("\n%-%-%-\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\n"))
    local first = tf:manifest{ name = "s-1", image = "i", format = "yaml" }
    assert.equal(first, y:sub(1, #first))
  end)

  it("JSON: a v1 List", function()
    local j = kfjob.manifests({ tf }, { name = "s", image = "i", format = "json" })
    local one = tf:manifest{ name = "s-1", image = "i", format = "json" }
    assert.equal('{"apiVersion":"v1","kind":"List","items":[' .. one .. "]}", j)
  end)

  it("an empty list gives an empty stream", function()
    assert.equal("", kfjob.manifests({}, {}))
    assert.same({}, kfjob.manifests({}, { format = "table" }))
  end)

  it("errors name the item", function()
    assert.equal("kfjob.manifests: opts.name: required to name the bare job items[1]",
                 error_of(kfjob.manifests, { tf }, { image = "i" }))
    assert.equal("kfjob.manifests: items[2].job: kfjob job expected, got nil",
                 error_of(kfjob.manifests, { tf, { name = "x" } }, { name = "s", image = "i" }))
    assert.equal("kfjob.manifests: items[1].nmae: unknown field (did you mean 'name'?)",
                 error_of(kfjob.manifests, { { job = tf, nmae = "x" } }, { image = "i" }))
    assert.equal("kfjob.manifests: items[1]: kfjob job or table expected, got string",
                 error_of(kfjob.manifests, { "tf" }, {}))
    assert.equal("kfjob.manifests: items[2]: opts.image: required: worker has no image of its own (set the job's container.image, or kfjob render --image; only a TrainJob may run its runtime's image)",
                 error_of(kfjob.manifests, { { job = tf, name = "a", image = "i" }, { job = pt, name = "b" } }, {}))
    assert.equal("kfjob.manifests: items[2]: name 'a' is already used by items[1]",
                 error_of(kfjob.manifests, { { job = tf, name = "a" }, { job = tf, name = "a" } }, { image = "i" }))
    assert.equal("kfjob.manifests: opts.fromat: unknown option (did you mean 'format'?)",
                 error_of(kfjob.manifests, { tf }, { fromat = "json" }))
  end)

  it("the same name in two namespaces or two kinds is fine", function()
    assert.equal(2, #kfjob.manifests({ { job = tf, name = "a", namespace = "x" }, { job = tf, name = "a" } },
                                     { image = "i", format = "table" }))
    assert.equal(2, #kfjob.manifests({ { job = tf, name = "a" }, { job = pt, name = "a" } },
                                     { image = "i", format = "table" }))
  end)
end)

describe("job:manifest errors", function()
  local tf = kfjob.TFJob{ worker = { replicas = 10 }, evaluator = { replicas = 1 } }
  local function err(opts, job) return error_of((job or tf).manifest, job or tf, opts) end

  -- the rules the messages quote
  local DNS1035 = "(lowercase letters, digits and '-', starting with a letter and ending with a letter or digit)"
  local KEY = "(an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', "
    .. "starting and ending with a letter or digit)"
  local VALUE = "(empty, or at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)"

  it("checks every option the cluster would refuse", function()
    local I = { name = "t", image = "i" }
    local function with(t)
      local o = {}
      for k, v in pairs(I) do o[k] = v end
      for k, v in pairs(t) do o[k] = v end
      return o
    end
    local rows = {
      { {}, "opts.name: required (the resource name, a DNS-1035 label)" },
      -- the name rules are target rules (R14, R15): their errors name the
      -- constructor and the target, as check{target=, name=} reports them
      { { name = "Train" }, "opts.name: 'Train' is not a DNS-1035 label " .. DNS1035, true },
      { { name = "1job" }, "opts.name: '1job' is not a DNS-1035 label " .. DNS1035, true },
      { { name = "job-" }, "opts.name: 'job-' is not a DNS-1035 label " .. DNS1035, true },
      { { name = "a.b" }, "opts.name: 'a.b' is not a DNS-1035 label " .. DNS1035, true },
      -- evaluator-0 (12) is longer than worker-9 (9)
      { { name = ("x"):rep(52), image = "i" },
        "opts.name: too long for this job: pod name '" .. ("x"):rep(52)
          .. "-evaluator-0' has 64 characters (at most 63)", true },
      { { name = "t" }, "opts.image: required: worker has no image of its own (set the job's container.image, or kfjob render --image; only a TrainJob may run its runtime's image)" },
      { with{ image = "" }, "opts.image: must not be empty" },
      { with{ image = "a b" }, "opts.image: must not contain whitespace" },
      { with{ image = 1 }, "opts.image: expected a string, got number" },
      { with{ namespace = "Prod" }, "opts.namespace: 'Prod' is not a DNS-1123 label (at most 63 lowercase "
        .. "letters, digits and '-', starting and ending with a letter or digit)" },
      { with{ service_account = "sa_1" },
        "opts.service_account: 'sa_1' is not a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')" },
      { with{ labels = { ["bad key"] = "v" } }, "opts.labels[\"bad key\"]: invalid label key " .. KEY },
      { with{ labels = { ["Example.com/x"] = "v" } }, "opts.labels[\"Example.com/x\"]: invalid label key " .. KEY },
      { with{ labels = { team = "a b" } }, "opts.labels.team: invalid label value 'a b' " .. VALUE },
      { with{ labels = { team = 1 } }, "opts.labels.team: expected a string, got number" },
      { with{ annotations = { ["/x"] = "v" } }, "opts.annotations[\"/x\"]: invalid annotation key " .. KEY },
      { with{ annotations = { big = ("x"):rep(256 * 1024) } },
        "opts.annotations: larger than the 256 KiB Kubernetes allows" },
      { with{ env = { ["1X"] = "v" } }, "opts.env[\"1X\"]: invalid environment variable name "
        .. "(letters, digits, '_', '-' or '.', not starting with a digit)" },
      { with{ env = { X = "a\0b" } }, "opts.env.X: string contains a NUL byte" },
      { with{ env = { X = true } }, "opts.env.X: expected a string, got boolean" },
      { with{ env = { "A=1" } }, "opts.env: expected a table of strings by name, got a list" },
      { with{ args = "python x.py" }, "opts.args: expected a list of strings, got string" },
      { with{ args = { "a", 2 } }, "opts.args[2]: expected a string, got number" },
      { with{ command = { a = "b" } }, "opts.command: expected a list of strings, got table" },
      { with{ nmae = "x" }, "opts.nmae: unknown option (did you mean 'name'?)" },
      { with{ format = "xml" }, "opts.format: expected \"table\", \"json\" or \"yaml\", got xml" },
      { with{ indent = 2 }, "opts.indent: only for format \"json\" or \"yaml\"" },
      { with{ format = "yaml", indent = 1 }, "opts.indent: expected an integer from 2 to 9, got 1" },
      { with{ format = "json", indent = -1 }, "opts.indent: expected an integer from 0 to 16, got -1" },
    }
    for _, r in ipairs(rows) do
      assert.equal(r[3] and "kfjob.TFJob: " .. r[2] .. " (target operator)"
                   or "kfjob.manifest: " .. r[2], err(r[1]))
    end
  end)

  it("GPU requests that differ from limits are refused (Kubernetes would)", function()
    local job = kfjob.PyTorchJob{ worker = { replicas = 1, requests = { gpu = 1 }, limits = { gpu = 2 } } }
    assert.equal("kfjob.manifest: worker.requests.gpu: 1 differs from limits.gpu 2 "
                 .. "(Kubernetes needs GPU requests equal to limits)", err({ name = "p", image = "i" }, job))
  end)

  it("a job is required", function()
    assert.has_error(function() kfjob.TFJob.manifest({}, { name = "x" }) end)
    local ok, e = pcall(tf.manifest, "x", { name = "t" })
    assert.is_false(ok)
    assert.matches("kfjob job expected, got string", e)
  end)
end)
