-- Writes the seed corpora of the fuzz targets from real encodings made by
-- the built module:
--   lua5.4 fuzz/make_corpus.lua [BUILD_DIR]     (default: build)
-- fuzz/corpus/decode/                selector byte + plugin message bytes
-- fuzz/corpus/from_json/             selector byte + proto3 JSON / tables
-- fuzz/corpus/decode_task_template/  selector byte + TaskTemplate pb / JSON
-- fuzz/corpus/decode_task_spec/      selector byte + TaskSpec pb / JSON
-- fuzz/corpus/spec/                  selector byte + encoded kf_node trees
-- The selector bytes and the tree encoding are documented in the targets
-- (fuzz/fuzz_*.c); the tree dictionaries are read from fuzz/fuzz_spec.c.
-- Run from the repository root.  Existing seed files are replaced.
local build = arg[1] or "build"
package.cpath = build .. "/?.so;" .. package.cpath
local kfjob = require "kfjob"

local function write(dir, name, data)
  os.execute("mkdir -p fuzz/corpus/" .. dir)
  local f = assert(io.open("fuzz/corpus/" .. dir .. "/" .. name, "wb"))
  f:write(data)
  f:close()
end

-- ---- the jobs ------------------------------------------------------------
local res = { cpu = "500m", mem = "4Gi", gpu = 1, ephemeral_storage = "10Gi" }
local lim = { cpu = 2, memory = "8Gi", gpu = "1" }
local SPECS = {
  TFJob = {
    full = {
      worker = { replicas = 4, image = "tf:2.15", requests = res, limits = lim, restart_policy = "on_failure" },
      ps = { replicas = 2, requests = { cpu = "1" } },
      chief = { replicas = 1, restart_policy = "always" },
      evaluator = { replicas = 1, image = "tf:eval" },
      run_policy = { clean_pod_policy = "running", ttl_seconds_after_finished = 600,
                     active_deadline_seconds = 3600, backoff_limit = 3 },
    },
    small = { worker = { replicas = 2 }, ps = { replicas = 1 } },
  },
  PyTorchJob = {
    full = {
      worker = { replicas = 3, image = "pt:2", requests = res, restart_policy = "never" },
      master = { replicas = 1, limits = lim, image = "pt:m" },
      run_policy = { clean_pod_policy = "all", backoff_limit = 1 },
    },
    small = { worker = { replicas = 2 } },
  },
  Elastic = {
    full = {
      nnodes = "2:4", nproc_per_node = 8, max_restarts = 3, rdzv_backend = "etcd-v2",
      worker = { image = "pt:2", requests = res, limits = lim, restart_policy = "on_failure" },
      run_policy = { backoff_limit = 2 },
    },
    small = { nnodes = 2, nproc_per_node = 2 },
  },
  MPIJob = {
    full = {
      worker = { replicas = 8, command = { "python", "train.py", "--lr", "0.1" }, requests = res },
      launcher = { replicas = 1, image = "mpi:1", command = { "mpirun", "-np", "8" } },
      slots = 4,
      run_policy = { clean_pod_policy = "none", active_deadline_seconds = 100 },
    },
    small = { worker = { replicas = 2 }, slots = 2 },
  },
  HorovodJob = {
    full = {
      worker = { replicas = 2, requests = res, command = { "python", "hvd.py" } },
      launcher = { image = "hvd:1" }, slots = 2, verbose = true, log_level = "DEBUG",
      discovery_script_path = "/opt/discover.sh", elastic_timeout = 600,
    },
    small = { worker = { replicas = 2 } },
  },
}
local KINDS = { "TFJob", "PyTorchJob", "Elastic", "MPIJob", "HorovodJob" }
local KIND_INDEX = { TFJob = 0, PyTorchJob = 1, Elastic = 2, MPIJob = 3, HorovodJob = 4,
                     JAXJob = 5, XGBoostJob = 6, PaddleJob = 7 }
-- kinds without a Flyte task type (SPEC §12): constructor seeds only
local OPERATOR_SPECS = {
  JAXJob = {
    full = { worker = { replicas = 4, image = "jax:0.4", requests = res, limits = lim,
                        restart_policy = "on_failure" },
             run_policy = { clean_pod_policy = "all", backoff_limit = 0 } },
    small = { worker = { replicas = 2 } },
  },
  XGBoostJob = {
    full = { worker = { replicas = 2, requests = res }, master = { replicas = 1, image = "xgb:m" },
             run_policy = { ttl_seconds_after_finished = 60 } },
    small = { worker = { replicas = 1 } },
  },
  PaddleJob = {
    full = { worker = { replicas = 3, limits = lim, restart_policy = "on_failure" },
             master = { replicas = 0 }, run_policy = { active_deadline_seconds = 600 } },
    small = { master = { replicas = 1 } },
  },
}
-- decode selector base: tensorflow 0, pytorch 2, mpi 4, mpi/Horovod 6 (+ version)
local SEL = { TFJob = 0, PyTorchJob = 2, Elastic = 2, MPIJob = 4, HorovodJob = 6 }

-- ---- a small JSON encoder (for constructor tables as JSON) ---------------
local function json(v)
  local t = type(v)
  if t == "table" then
    if #v > 0 or next(v) == nil then
      local out = {}
      for i, x in ipairs(v) do out[i] = json(x) end
      return "[" .. table.concat(out, ",") .. "]"
    end
    local keys, out = {}, {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do out[#out + 1] = json(k) .. ":" .. json(v[k]) end
    return "{" .. table.concat(out, ",") .. "}"
  elseif t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c) return ("\\u%04x"):format(c:byte()) end) .. '"'
  else
    return tostring(v)
  end
end

-- ---- tree encoding of fuzz_spec.c ------------------------------------------
local src = assert(io.open("fuzz/fuzz_spec.c")):read("a")
local function c_strings(marker)
  local body = assert(src:match("/%* " .. marker .. "%-BEGIN %*/(.-)/%* " .. marker .. "%-END %*/"))
  local list, i = {}, 1
  local esc = { t = "\t", n = "\n", ['"'] = '"', ["\\"] = "\\" }
  while true do
    local q = body:find('"', i, true)
    if not q then break end
    local out, j = {}, q + 1
    while body:sub(j, j) ~= '"' do
      local c = body:sub(j, j)
      if c == "\\" then
        local d = body:sub(j + 1, j + 1)
        if d == "x" then
          out[#out + 1] = string.char(tonumber(body:sub(j + 2, j + 3), 16)); j = j + 4
        else
          out[#out + 1] = assert(esc[d], "escape"); j = j + 2
        end
      else
        out[#out + 1] = c; j = j + 1
      end
    end
    list[#list + 1] = table.concat(out)
    i = j + 1
  end
  return list
end
local function index_of(list)
  local t = {}
  for i, s in ipairs(list) do if t[s] == nil then t[s] = i - 1 end end
  return t
end
local KEYS, STRINGS, TAGS = c_strings("KEYS"), c_strings("STRINGS"), c_strings("TAGS")
local KEYI, STRI, TAGI = index_of(KEYS), index_of(STRINGS), index_of(TAGS)

local function is_list(t)
  if next(t) == nil then return false end
  local n = 0
  for k in pairs(t) do
    if math.type(k) ~= "integer" then return false end
    n = n + 1
  end
  return n == #t
end

local function tree(v, tag)
  local t = type(v)
  if v == nil then return "\0" end
  if t == "boolean" then return string.char(1 | (v and 8 or 0)) end
  if math.type(v) == "integer" then
    if v >= -8 and v <= 23 then return string.char(2 | ((v + 8) << 3)) end
    return "\3" .. string.pack("<i8", v)
  end
  if t == "number" then return "\4" .. string.pack("<d", v) end
  if t == "string" then
    if STRI[v] then return "\5" .. string.char(STRI[v]) end
    assert(#v < 256)
    return "\6" .. string.char(#v) .. v
  end
  assert(t == "table")
  if is_list(v) then
    assert(#v <= 7, "list too long for the encoding")
    local out = { string.char(7 | ((#v << 1) << 3)) }
    for _, x in ipairs(v) do out[#out + 1] = tree(x) end
    return table.concat(out)
  end
  tag = tag or v.__tag
  local keys = {}
  for k in pairs(v) do if k ~= "__tag" then keys[#keys + 1] = k end end
  table.sort(keys)
  assert(#keys <= 7, "object too large for the encoding")
  local s = 1 | (#keys << 1) | (tag and 16 or 0)
  local out = { string.char(7 | (s << 3)) }
  if tag then out[#out + 1] = string.char(assert(TAGI[tag])) end
  for _, k in ipairs(keys) do
    if KEYI[k] then out[#out + 1] = string.char(KEYI[k])
    else out[#out + 1] = "\240" .. string.char(#k) .. k end
    out[#out + 1] = tree(v[k])
  end
  return table.concat(out)
end

-- ---- write ---------------------------------------------------------------
local n = 0
local function seed(dir, name, data) write(dir, name, data); n = n + 1 end

for _, k in ipairs(KINDS) do
  local full, small = kfjob[k](SPECS[k].full), kfjob[k](SPECS[k].small)
  local lk = k:lower()
  -- decode
  seed("decode", lk .. "-v1", string.char(SEL[k] + 1) .. full:encode())
  seed("decode", lk .. "-v1-common", string.char(SEL[k] + 1) .. full:encode{ replica_encoding = "common" })
  seed("decode", lk .. "-v1-small", string.char(SEL[k] + 1) .. small:encode())
  seed("decode", lk .. "-v0", string.char(SEL[k]) .. small:encode{ version = 0 })
  -- from_json: plugin JSON, then the constructor table as JSON
  local ck = KIND_INDEX[k] << 4
  seed("from_json", lk .. "-v1", string.char(SEL[k] + 1 + ck) .. full:to_json())
  seed("from_json", lk .. "-v1-indent", string.char(SEL[k] + 1 + ck) .. full:to_json{ indent = 2 })
  seed("from_json", lk .. "-v0", string.char(SEL[k] + ck) .. small:to_json{ version = 0 })
  seed("from_json", lk .. "-spec", string.char(SEL[k] + 1 + ck) .. json(SPECS[k].full))
  -- decode_task_template
  local hv = k == "HorovodJob" and "\1" or "\0"
  local opts = {
    id = { project = "flytesnacks", domain = "development", name = "train." .. lk, version = "v1" },
    container = { image = "img:1", command = { "pyflyte-execute" }, args = { "--task", lk },
                  env = { B = "2", A = "1" } },
    config = { key = "value" },
  }
  seed("decode_task_template", lk .. "-pb", hv .. full:task_template(opts))
  seed("decode_task_template", lk .. "-json", hv .. full:task_template{ format = "json", id = opts.id })
  seed("decode_task_template", lk .. "-v0", hv .. small:task_template{ version = 0 })
  -- spec trees: job (mode 0), job + overrides (mode 3)
  local sel = KIND_INDEX[k] << 2
  seed("spec", lk .. "-full", string.char(sel) .. tree(SPECS[k].full))
  seed("spec", lk .. "-small", string.char(sel) .. tree(SPECS[k].small))
  seed("spec", lk .. "-with", string.char(sel | 3) .. tree(SPECS[k].small)
       .. tree({ ["worker.replicas"] = 3, run_policy = { backoff_limit = 1 } }))
end
for _, k in ipairs({ "JAXJob", "XGBoostJob", "PaddleJob" }) do
  local lk, sp = k:lower(), OPERATOR_SPECS[k]
  kfjob[k](sp.full)   -- must be valid
  kfjob[k](sp.small)
  seed("from_json", lk .. "-spec", string.char(1 + (KIND_INDEX[k] << 4)) .. json(sp.full))
  local sel = KIND_INDEX[k] << 2
  seed("spec", lk .. "-full", string.char(sel) .. tree(sp.full))
  seed("spec", lk .. "-small", string.char(sel) .. tree(sp.small))
  seed("spec", lk .. "-with", string.char(sel | 3) .. tree(sp.small)
       .. tree({ ["worker.replicas"] = 3, run_policy = { backoff_limit = 1 } }))
end
local mpi0 = kfjob.MPIJob{ worker = { replicas = 2, command = { "python", "x.py" } } }
seed("decode_task_template", "mpi-v0-worker-command", "\0" .. mpi0:task_template{ version = 0 })
-- groups (mode 1, role in bits 2..) and RunPolicy (mode 2)
local ROLES = { "Worker", "PS", "Chief", "Evaluator", "Master", "Launcher" }
for i, r in ipairs(ROLES) do
  seed("spec", "group-" .. r:lower(), string.char(((i - 1) << 2) | 1) .. tree({
    replicas = 1, image = "img:1", requests = { cpu = "1", memory = "1Gi" },
    limits = { gpu = 1 }, restart_policy = "OnFailure",
    command = (r == "Worker" or r == "Launcher") and { "python", "x.py" } or nil }))
end
seed("spec", "run-policy", "\2" .. tree({ clean_pod_policy = "all", backoff_limit = 3,
  ttl_seconds_after_finished = 60, active_deadline_seconds = 600 }))
seed("spec", "tagged-groups", "\0" .. tree({ worker = { __tag = "kfjob.Worker", replicas = 2 },
  ps = { __tag = "kfjob.PS", replicas = 1 }, run_policy = { __tag = "kfjob.RunPolicy", backoff_limit = 1 } }))
-- pod settings (SPEC 2.4): pod_template tables for its validator, shared
-- memory, accelerator and task resources; keys outside fuzz_spec.c's KEYS
-- travel as literal keys.  Objects and lists of the encoding hold at most 7
-- items.
local POD = {
  worker = { replicas = 2, limits = { gpu = 1 } },
  shared_memory = "4Gi",
  accelerator = { device = "nvidia-tesla-a100", partition_size = "1g.5gb" },
  requests = { cpu = "2", mem = "8Gi" },
  pod_template = {
    primary_container_name = "main",
    metadata = { labels = { team = "nlp" }, annotations = { ["example.com/x"] = "y" } },
    spec = {
      tolerations = { { key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" } },
      nodeSelector = { pool = "gpu" },
      affinity = { nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = {
        { matchExpressions = { { key = "zone", operator = "In", values = { "a" } } } } } } } },
      volumes = { { name = "data", persistentVolumeClaim = { claimName = "imagenet", readOnly = true } },
                  { name = "cache", emptyDir = { medium = "Memory", sizeLimit = "1Gi" } } },
      securityContext = { runAsUser = 1000, fsGroup = 1000 },
      containers = {
        { name = "main", volumeMounts = { { name = "data", mountPath = "/data" } } },
        { name = "side", image = "busybox:1", env = { { name = "DATA", value = "/data" } },
          ports = { { containerPort = 9102, protocol = "TCP" } } },
      },
    },
  },
}
for _, k in ipairs({ "TFJob", "PyTorchJob", "Elastic", "MPIJob", "HorovodJob", "JAXJob",
                    "XGBoostJob", "PaddleJob" }) do
  local t = {}
  for key, v in pairs(POD) do t[key] = v end
  if k == "Elastic" then t.worker = { limits = { gpu = 1 } }; t.nnodes = 2 end
  kfjob[k](t)   -- must be valid
  seed("spec", k:lower() .. "-pod", string.char(KIND_INDEX[k] << 2) .. tree(t))
end
-- nproc_per_node's words (R10): no payload carries them
seed("spec", "elastic-nproc-word", string.char(KIND_INDEX.Elastic << 2) .. tree({
  nnodes = "1:3", nproc_per_node = "gpu" }))
-- restart_policy exit_code (R13): the operator's policy, no payload carries it
seed("spec", "xgboost-exit-code", string.char(KIND_INDEX.XGBoostJob << 2) .. tree({
  worker = { replicas = 2, restart_policy = "exit_code" } }))
seed("spec", "pytorchjob-exit-code", string.char(KIND_INDEX.PyTorchJob << 2) .. tree({
  master = { restart_policy = "ExitCode" }, worker = { replicas = 1 } }))
seed("spec", "pytorchjob-pod-small", string.char(KIND_INDEX.PyTorchJob << 2) .. tree({
  worker = { replicas = 1 }, shared_memory = true, accelerator = "nvidia-l4",
  pod_template = { spec = { containers = { { name = "pytorch", image = "x" } } } } }))
seed("spec", "tfjob-pod-with", string.char((KIND_INDEX.TFJob << 2) | 3) .. tree(POD)
     .. tree({ ["pod_template.metadata.labels.team"] = "cv", shared_memory = true,
               ["accelerator.unpartitioned"] = true }))
do
  local j = kfjob.PyTorchJob(POD)
  seed("decode_task_template", "pytorchjob-pod-pb", "\0" .. j:task_template{ id = {
    project = "p", domain = "development", name = "train", version = "v1" } })
  seed("decode_task_template", "pytorchjob-pod-json", "\0" .. j:task_template{ format = "json" })
end
do   -- Flyte 2 clustered tasks (type clustered-task, a ClusteredTaskSpec in custom)
  local C = { target = "flyte2-clustered" }
  local e = kfjob.Elastic{ nnodes = 4, nproc_per_node = 8, max_restarts = 2, worker = {}, limits = { gpu = 8 },
    container = { image = "img:1", args = { "python", "t.py" }, env = { A = "1" } }, interconnect = "efa",
    restart_on_host_maintenance = true, run_policy = { backoff_limit = 3, ttl_seconds_after_finished = 60 } }
  seed("decode_task_template", "clustered-elastic-pb", "\0" .. e:task_template(C))
  seed("decode_task_template", "clustered-elastic-json", "\0" .. e:task_template{ target = C.target,
    format = "json" })
  local p = kfjob.PyTorchJob{ master = {}, worker = { replicas = 3 }, container = { image = "img:1" } }
  seed("decode_task_template", "clustered-pytorch-pb", "\0" .. p:task_template(C))
end
-- decode_task_spec: every kind, both versions, interface and metadata
for _, k in ipairs(KINDS) do
  local j = kfjob[k](SPECS[k].small)
  local hv = k == "HorovodJob" and "\1" or "\0"
  local o = {
    id = { project = "ml", domain = "development", name = "train." .. k:lower(), version = "v7" },
    container = { image = "img:1", args = { "python", "t.py" }, env = { A = "1" } },
    interface = { inputs = { lr = "float", files = { list = "file" }, m = { map = { list = "integer" } } },
                  outputs = { model = "directory", ok = "boolean" } },
    metadata = { retries = 3, timeout = "1h30m", interruptible = true, description = "d",
                 cache = { version = "1", serializable = true, ignore_inputs = { "lr" } }, tags = { a = "b" } },
  }
  seed("decode_task_spec", k:lower() .. "-pb", hv .. j:task_spec(o))
  o.format = "json"
  seed("decode_task_spec", k:lower() .. "-json", hv .. j:task_spec(o))
  seed("decode_task_spec", k:lower() .. "-v0", hv .. j:task_spec{ version = 0, id = o.id,
    container = { image = "img:1" } })
end
print(("make_corpus: %d seed files under fuzz/corpus/"):format(n))
