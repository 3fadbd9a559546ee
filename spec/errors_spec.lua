-- Catalogue of bad input (SPEC §2.1, §3, §3.1): every row pins the exact
-- message, path included. Constructors and methods raise
-- "<Constructor>: <path>: <problem>"; kfjob.decode returns nil, message.
--
-- Raising rows:  { description, function, message }
-- Decoder rows:  { description, task_type, bytes, opts, message }
-- A row with `bug = "..."` is a known defect: it is reported pending, and its
-- message is the one the code should give (the `bug` text says what it gives).
local unpack = table.unpack or unpack   -- 5.1 and LuaJIT: unpack
local kfjob = require "kfjob"
local pack = require("util").pack

-- ---- builders -------------------------------------------------------------

local function new(kind, arg) return function() return kfjob[kind](arg) end end
-- A job whose worker is `fields` plus replicas = 1 unless given.
local function with_worker(kind, fields)
  if fields.replicas == nil then fields.replicas = 1 end
  return new(kind, { worker = fields })
end
local function tf(fields) return with_worker("TFJob", fields) end
local function mpi(fields) return with_worker("MPIJob", fields) end
-- A TFJob with one worker plus the top-level `fields`.
local function tfjob(fields)
  fields.worker = fields.worker or { replicas = 1 }
  return new("TFJob", fields)
end
local function call(method, job, ...)
  local args = pack(...)
  return function() return job[method](job, unpack(args, 1, args.n)) end
end
-- Built, then emitted with `method` and `opts`: SPEC §11 moved rules that
-- differ by target from construction to emitting ("... (target <name>)").
local function emit(kind, arg, method, opts)
  return function() local j = kfjob[kind](arg); return j[method](j, opts) end
end

local nested = require("util").nest
local cyclic = {}
cyclic.x = cyclic

local wire = require "wire"
local int, msg = wire.int, wire.msg

local JOB = kfjob.TFJob { worker = { replicas = 2, image = "img" } }
local JAX = kfjob.JAXJob { worker = { replicas = 2, image = "img" } }
local XGB = kfjob.XGBoostJob { worker = { replicas = 2 } }
local PADDLE = kfjob.PaddleJob {}
local function NO_TT(kind)
  return kind .. " has no Flyte task type, so no plugin message, TaskTemplate or TaskSpec (kinds with "
    .. "one: TFJob, PyTorchJob, Elastic, MPIJob or HorovodJob); the training-operator runs it from manifest()"
end
local QTY = ' (expected e.g. "500m", "4Gi", "2")'
local RP = " (expected never, on_failure, always or exit_code)"
local CP = " (expected none, running or all)"
local function malformed(message)
  return ("kfjob.decode: malformed flyteidl.plugins.%s message (truncated bytes, a bad tag or a wrong wire type)")
    :format(message)
end

-- ---- raising ----------------------------------------------------------------

local raising = {
  ["wrong types"] = {
    { "job argument nil", new("TFJob", nil), "kfjob.TFJob: expected a table, got nil" },
    { "job argument a number", new("MPIJob", 5), "kfjob.MPIJob: expected a table, got number" },
    { "job argument a string", new("Elastic", "2:4"), "kfjob.Elastic: expected a table, got string" },
    { "group argument a number", new("Worker", 5), "kfjob.Worker: expected a table, got number" },
    { "group argument another group", new("Worker", kfjob.PS {}),
      "kfjob.Worker: expected a table of named fields, got kfjob.PS" },
    { "RunPolicy argument a boolean", new("RunPolicy", true), "kfjob.RunPolicy: expected a table, got boolean" },
    { "RunPolicy argument a group", new("RunPolicy", kfjob.Worker {}),
      "kfjob.RunPolicy: expected a kfjob.RunPolicy or a table, got kfjob.Worker" },
    { "group a number", tfjob { worker = 5 }, "kfjob.TFJob: worker: expected a kfjob.Worker or a table, got number" },
    { "group a boolean", tfjob { chief = false },
      "kfjob.TFJob: chief: expected a kfjob.Chief or a table, got boolean" },
    { "group a job", tfjob { ps = JOB }, "kfjob.TFJob: ps: expected a kfjob.PS or a table, got kfjob.TFJob" },
    { "run_policy a number", tfjob { run_policy = 5 },
      "kfjob.TFJob: run_policy: expected a kfjob.RunPolicy or a table, got number" },
    { "replicas a string", tf { replicas = "2" }, "kfjob.TFJob: worker.replicas: expected an integer, got string" },
    { "replicas a boolean", tf { replicas = true }, "kfjob.TFJob: worker.replicas: expected an integer, got boolean" },
    { "image a number", tf { image = 5 }, "kfjob.TFJob: worker.image: expected a string, got number" },
    { "image a function", tf { image = print }, "kfjob.TFJob: worker.image: unexpected function" },
    { "image a coroutine", tf { image = coroutine.create(function() end) },
      "kfjob.TFJob: worker.image: unexpected thread" },
    { "requests a number", tf { requests = 5 },
      "kfjob.TFJob: worker.requests: expected a table of resources, got number" },
    { "quantity a boolean", tf { limits = { gpu = true } },
      "kfjob.TFJob: worker.limits.gpu: expected a quantity string or a number, got boolean" },
    { "quantity a table", tf { requests = { cpu = {} } },
      "kfjob.TFJob: worker.requests.cpu: expected a quantity string or a number, got a table with named fields" },
    { "restart_policy a boolean", tf { restart_policy = true },
      "kfjob.TFJob: worker.restart_policy: expected a string, got boolean" },
    { "clean_pod_policy a table", tfjob { run_policy = { clean_pod_policy = {} } },
      "kfjob.TFJob: run_policy.clean_pod_policy: expected a string, got a table with named fields" },
    { "backoff_limit a string", tfjob { run_policy = { backoff_limit = "1" } },
      "kfjob.TFJob: run_policy.backoff_limit: expected an integer, got string" },
    { "command a string", mpi { command = "sshd -De" },
      "kfjob.MPIJob: worker.command: expected a non-empty list of strings, got string" },
    { "command item a number", mpi { command = { "sshd", 1 } },
      "kfjob.MPIJob: worker.command[2]: expected a string, got number" },
    { "nnodes a boolean", new("Elastic", { nnodes = true }),
      'kfjob.Elastic: nnodes: expected an integer or "MIN:MAX", got boolean' },
    { "rdzv_backend a number", new("Elastic", { rdzv_backend = 1 }),
      "kfjob.Elastic: rdzv_backend: expected a string, got number" },
    { "verbose a number", new("HorovodJob", { worker = { replicas = 1 }, verbose = 1 }),
      "kfjob.HorovodJob: verbose: expected a boolean, got number" },
    { "log_level a number", new("HorovodJob", { worker = { replicas = 1 }, log_level = 5 }),
      "kfjob.HorovodJob: log_level: expected a string, got number" },
    { "a job of another kind", new("TFJob", kfjob.PyTorchJob { worker = { replicas = 1 } }),
      "kfjob.TFJob: expected a table, got kfjob.PyTorchJob" },
    { "a list instead of a job table", new("TFJob", { "worker" }),
      "kfjob.TFJob: expected a table of named fields, got a list" },
    { "a list instead of a group table", new("Worker", { "x" }),
      "kfjob.Worker: expected a table of named fields, got a list" },
    { "a list as a group", tfjob { worker = { "x" } },
      "kfjob.TFJob: worker: expected a kfjob.Worker or a table, got a list" },
    { "a list as resources", tf { requests = { "1" } },
      "kfjob.TFJob: worker.requests: expected a table of resources, got a list" },
    { "named fields as a command", mpi { command = { x = "a" } },
      "kfjob.MPIJob: worker.command: expected a non-empty list of strings, got a table with named fields" },
    { "a fractional enum number", tf { restart_policy = 1.5 },
      "kfjob.TFJob: worker.restart_policy: unknown restart policy 1.5" .. RP },
  },

  ["unknown and typo'd keys"] = {
    { "top level, with suggestion", tfjob { wroker = { replicas = 1 } },
      "kfjob.TFJob: wroker: unknown field (did you mean 'worker'?)" },
    { "top level, no suggestion", tfjob { zzzzzz = 1 }, "kfjob.TFJob: zzzzzz: unknown field" },
    { "in a group", tf { replcas = 2 }, "kfjob.TFJob: worker.replcas: unknown field (did you mean 'replicas'?)" },
    { "in resources", tf { requests = { cpus = 1 } },
      "kfjob.TFJob: worker.requests.cpus: unknown field (did you mean 'cpu'?)" },
    { "in resources, the alias suggested", tf { limits = { memroy = "1Gi" } },
      "kfjob.TFJob: worker.limits.memroy: unknown field (did you mean 'memory'?)" },
    { "resource STORAGE is not offered", tf { requests = { storage = "1Gi" } },
      "kfjob.TFJob: worker.requests.storage: unknown field" },
    { "in a run policy", tfjob { run_policy = { backof_limit = 1 } },
      "kfjob.TFJob: run_policy.backof_limit: unknown field (did you mean 'backoff_limit'?)" },
    { "in RunPolicy", new("RunPolicy", { cleanpod_policy = "all" }),
      "kfjob.RunPolicy: cleanpod_policy: unknown field (did you mean 'clean_pod_policy'?)" },
    { "in a group constructor", new("Worker", { imag = "x" }),
      "kfjob.Worker: imag: unknown field (did you mean 'image'?)" },
    { "a Horovod field", new("HorovodJob", { worker = { replicas = 1 }, log_levle = "INFO" }),
      "kfjob.HorovodJob: log_levle: unknown field (did you mean 'log_level'?)" },
    { "an elastic field", new("Elastic", { nproc_per_nod = 2 }),
      "kfjob.Elastic: nproc_per_nod: unknown field (did you mean 'nproc_per_node'?)" },
    { "a field of another kind", new("PyTorchJob", { worker = { replicas = 1 }, num_ps_replicas = 1 }),
      "kfjob.PyTorchJob: num_ps_replicas: unknown field" },
    { "a group of another kind", new("MPIJob", { worker = { replicas = 1 }, master = {} }),
      "kfjob.MPIJob: master: unknown field" },
    { "num_workers in Elastic", new("Elastic", { num_workers = 2 }), "kfjob.Elastic: num_workers: unknown field" },
    { "the smallest of several unknown keys", tfjob { zeta = 1, alpha = 2 }, "kfjob.TFJob: alpha: unknown field" },
    { "an empty key", tfjob { [""] = 1 }, "kfjob.TFJob: '': unknown field" },
  },

  ["non-string keys and mixed tables"] = {
    { "a boolean key", new("TFJob", { [true] = 1 }), "kfjob.TFJob: table keys must be strings (got a boolean key)" },
    { "a float key", tfjob { worker = { [2.5] = 1 } },
      "kfjob.TFJob: worker: table keys must be strings (got a number key)" },
    { "a table key", tf { requests = { [{}] = 1 } },
      "kfjob.TFJob: worker.requests: table keys must be strings (got a table key)" },
    { "list items and named fields", tf { "x" }, "kfjob.TFJob: worker: table mixes list items and named fields" },
    { "a list with holes", mpi { command = { "a", nil, "b" } }, "kfjob.MPIJob: worker.command: list has holes" },
    { "an empty command", mpi { command = {} },
      "kfjob.MPIJob: worker.command: expected a non-empty list of strings, got an empty table" },
  },

  ["numbers"] = {
    { "int32 overflow", tf { replicas = 2147483648 },
      "kfjob.TFJob: worker.replicas: integer out of int32 range (2147483648)" },
    { "int32 overflow as a float", tf { replicas = 2 ^ 31 },
      "kfjob.TFJob: worker.replicas: integer out of int32 range (2147483648)" },
    { "int32 underflow", tfjob { run_policy = { backoff_limit = -2147483649 } },
      "kfjob.TFJob: run_policy.backoff_limit: integer out of int32 range (-2147483649)" },
    { "math.mininteger", tf { replicas = math.mininteger or -2 ^ 63 },
      "kfjob.TFJob: worker.replicas: integer out of int32 range (-9223372036854775808)" },
    { "2^40 seconds", tfjob { run_policy = { active_deadline_seconds = 2 ^ 40 } },
      "kfjob.TFJob: run_policy.active_deadline_seconds: integer out of int32 range (1099511627776)" },
    { "elastic_timeout overflow", new("HorovodJob", { worker = { replicas = 1 }, elastic_timeout = 2 ^ 31 }),
      "kfjob.HorovodJob: elastic_timeout: integer out of int32 range (2147483648)" },
    { "NaN", tf { replicas = 0 / 0 }, "kfjob.TFJob: worker.replicas: expected an integer, got nan" },
    { "inf", tf { replicas = math.huge }, "kfjob.TFJob: worker.replicas: expected an integer, got inf" },
    { "-inf", tfjob { run_policy = { ttl_seconds_after_finished = -math.huge } },
      "kfjob.TFJob: run_policy.ttl_seconds_after_finished: expected an integer, got -inf" },
    { "fractional count", tf { replicas = 2.5 }, "kfjob.TFJob: worker.replicas: expected an integer, got 2.5" },
    { "fractional deprecated count", new("TFJob", { num_workers = 1.5 }),
      "kfjob.TFJob: num_workers: expected an integer, got 1.5" },
    { "fractional nproc_per_node", new("Elastic", { nproc_per_node = 1.5 }),
      "kfjob.Elastic: nproc_per_node: expected an integer, got 1.5" },
    { "negative replicas", tf { replicas = -1 }, "kfjob.TFJob: worker.replicas: must be >= 0 (got -1)" },
    { "negative deprecated count", new("TFJob", { num_workers = -1 }),
      "kfjob.TFJob: num_workers: must be >= 0 (got -1)" },
    { "negative backoff_limit", tfjob { run_policy = { backoff_limit = -1 } },
      "kfjob.TFJob: run_policy.backoff_limit: must be >= 0 (got -1)" },
    { "negative max_restarts", new("Elastic", { max_restarts = -1 }),
      "kfjob.Elastic: max_restarts: must be >= 0 (got -1)" },
    { "elastic_timeout 0", new("HorovodJob", { worker = { replicas = 1 }, elastic_timeout = 0 }),
      "kfjob.HorovodJob: elastic_timeout: must be >= 1 (got 0)" },
    { "nnodes out of int32 as a string", new("Elastic", { nnodes = "2:2147483648" }),
      "kfjob.Elastic: nnodes: integer out of int32 range (2147483648)" },
  },

  ["quantities"] = {
    { "negative number", tf { requests = { cpu = -1 } }, "kfjob.TFJob: worker.requests.cpu: must not be negative" },
    { "negative fraction", tf { limits = { mem = -0.5 } }, "kfjob.TFJob: worker.limits.mem: must not be negative" },
    { "NaN", tf { requests = { gpu = 0 / 0 } }, "kfjob.TFJob: worker.requests.gpu: expected a finite number" },
    { "inf", tf { requests = { cpu = math.huge } }, "kfjob.TFJob: worker.requests.cpu: expected a finite number" },
    { "empty", tf { requests = { cpu = "" } }, "kfjob.TFJob: worker.requests.cpu: invalid quantity ''" .. QTY },
    { "negative string", tf { requests = { cpu = "-1" } },
      "kfjob.TFJob: worker.requests.cpu: '-1' is negative: Kubernetes refuses negative requests and limits (pod validation: must be greater than or equal to 0)" },
    { "two dots", tf { requests = { cpu = "1.5.2" } },
      "kfjob.TFJob: worker.requests.cpu: invalid quantity '1.5.2'" .. QTY },
    { "unknown suffix", tf { requests = { mem = "4gb" } },
      "kfjob.TFJob: worker.requests.mem: invalid quantity '4gb'" .. QTY },
    { "lowercase binary suffix", tf { requests = { memory = "1ki" } },
      "kfjob.TFJob: worker.requests.memory: invalid quantity '1ki'" .. QTY },
    { "inner space", tf { limits = { ephemeral_storage = "4 Gi" } },
      "kfjob.TFJob: worker.limits.ephemeral_storage: invalid quantity '4 Gi'" .. QTY },
    { "exponent without digits", tf { limits = { gpu = "1e" } },
      "kfjob.TFJob: worker.limits.gpu: invalid quantity '1e'" .. QTY },
    { "suffix only", tf { limits = { cpu = "m" } }, "kfjob.TFJob: worker.limits.cpu: invalid quantity 'm'" .. QTY },
    { "mem and memory both", tf { requests = { mem = "1Gi", memory = "2Gi" } },
      "kfjob.TFJob: worker.requests: both 'mem' and 'memory' given (they are aliases)" },
  },

  ["enums"] = {
    { "unknown restart policy", tf { restart_policy = "sometimes" },
      "kfjob.TFJob: worker.restart_policy: unknown restart policy 'sometimes'" .. RP },
    { "restart policy without underscore", tf { restart_policy = "onfailure" },
      "kfjob.TFJob: worker.restart_policy: unknown restart policy 'onfailure'" .. RP
      .. " (did you mean 'on_failure'?)" },
    { "restart policy constant name", tf { restart_policy = "ON_FAILURE" },
      "kfjob.TFJob: worker.restart_policy: unknown restart policy 'ON_FAILURE'" .. RP
      .. " (did you mean 'on_failure'?)" },
    { "a clean pod policy as restart policy", tf { restart_policy = "CLEANPOD_POLICY_ALL" },
      "kfjob.TFJob: worker.restart_policy: unknown restart policy 'CLEANPOD_POLICY_ALL'" .. RP },
    { "restart policy 4", tf { restart_policy = 4 },
      "kfjob.TFJob: worker.restart_policy: unknown restart policy 4" .. RP },
    { "restart policy -1", new("Master", { restart_policy = -1 }),
      "kfjob.Master: restart_policy: unknown restart policy -1" .. RP },
    { "unknown clean pod policy", tfjob { run_policy = { clean_pod_policy = "everything" } },
      "kfjob.TFJob: run_policy.clean_pod_policy: unknown clean pod policy 'everything'" .. CP },
    { "a restart policy as clean pod policy", new("RunPolicy", { clean_pod_policy = "Never" }),
      "kfjob.RunPolicy: clean_pod_policy: unknown clean pod policy 'Never'" .. CP },
    { "clean pod policy 3", new("RunPolicy", { clean_pod_policy = 3 }),
      "kfjob.RunPolicy: clean_pod_policy: unknown clean pod policy 3" .. CP },
    { "unknown rendezvous backend", new("Elastic", { rdzv_backend = "zk" }),
      "kfjob.Elastic: rdzv_backend: unknown rendezvous backend 'zk' (expected c10d, etcd, etcd-v2 or static)" },
    { "misspelt rendezvous backend", new("Elastic", { rdzv_backend = "etdc" }),
      "kfjob.Elastic: rdzv_backend: unknown rendezvous backend 'etdc' (expected c10d, etcd, "
      .. "etcd-v2 or static) (did you mean 'etcd'?)" },
    { "misspelt clean pod policy", new("RunPolicy", { clean_pod_policy = "Runing" }),
      "kfjob.RunPolicy: clean_pod_policy: unknown clean pod policy 'Runing'" .. CP
      .. " (did you mean 'running'?)" },
  },

  ["strings"] = {
    { "empty image", tf { image = "" }, "kfjob.TFJob: worker.image: must not be empty" },
    { "image with a space", tf { image = "a b" }, "kfjob.TFJob: worker.image: must not contain whitespace" },
    { "image with a tab, in another group", tfjob { ps = { image = "a\tb" } },
      "kfjob.TFJob: ps.image: must not contain whitespace" },
    { "image with a NUL byte", tf { image = "a\0b" }, "kfjob.TFJob: worker.image: string contains a NUL byte" },
    { "command item with a NUL byte", mpi { command = { "a\0b" } },
      "kfjob.MPIJob: worker.command[1]: string contains a NUL byte" },
    { "image over 1 MiB", tf { image = ("x"):rep(2 ^ 20 + 1) },
      "kfjob.TFJob: worker.image: string longer than the limit of 1 MiB" },
    { "command over 4096 items", mpi { command = (function()
        local t = {}
        for i = 1, 4097 do t[i] = "x" end
        return t
      end)() }, "kfjob.MPIJob: worker.command: list longer than the limit of 4096 items" },
    { "empty log_level", new("HorovodJob", { worker = { replicas = 1 }, log_level = "" }),
      "kfjob.HorovodJob: log_level: must not be empty" },
    { "discovery_script_path with a space", new("HorovodJob", { worker = { replicas = 1 },
      discovery_script_path = "/etc/a b.sh" }),
        "kfjob.HorovodJob: discovery_script_path: must not contain whitespace" },
    { "nnodes not MIN:MAX", new("Elastic", { nnodes = "1:2:3" }),
      "kfjob.Elastic: nnodes: expected an integer or \"MIN:MAX\", got '1:2:3'" },
    { "nnodes missing MAX", new("Elastic", { nnodes = "2:" }),
      "kfjob.Elastic: nnodes: expected an integer or \"MIN:MAX\", got '2:'" },
    { "nnodes with a sign", new("Elastic", { nnodes = "-1" }),
      "kfjob.Elastic: nnodes: expected an integer or \"MIN:MAX\", got '-1'" },
    { "image invalid UTF-8", tf { image = "\255" }, "kfjob.TFJob: worker.image: invalid UTF-8" },
    -- the checker takes ASCII eight bytes at a time: a bad byte after
    -- whole and partial words of ASCII is still found
    { "invalid UTF-8 after 8 ASCII bytes", tf { image = "abcdefgh\255" },
      "kfjob.TFJob: worker.image: invalid UTF-8" },
    { "invalid UTF-8 after 17 ASCII bytes", tf { image = "abcdefghijklmnopq\192\128" },
      "kfjob.TFJob: worker.image: invalid UTF-8" },
    { "surrogate after 8 ASCII bytes", tf { image = "abcdefgh\237\160\128x" },
      "kfjob.TFJob: worker.image: invalid UTF-8" },
    { "truncated sequence at the end of 16 ASCII bytes",
      tf { image = "abcdefghijklmnop\226\130" }, "kfjob.TFJob: worker.image: invalid UTF-8" },
  },

  ["deprecated counts"] = {
    { "num_workers and worker.replicas", new("TFJob", { num_workers = 2, worker = { replicas = 3 } }),
      "kfjob.TFJob: num_workers: cannot be combined with worker.replicas (num_workers is deprecated)" },
    { "num_ps_replicas and ps.replicas", tfjob { num_ps_replicas = 3, ps = { replicas = 1 } },
      "kfjob.TFJob: num_ps_replicas: cannot be combined with ps.replicas (num_ps_replicas is deprecated)" },
    { "num_workers and a Worker object", new("PyTorchJob", { num_workers = 2, worker = kfjob.Worker { replicas = 2 } }),
      "kfjob.PyTorchJob: num_workers: cannot be combined with worker.replicas (num_workers is deprecated)" },
    { "num_launcher_replicas and launcher.replicas", new("MPIJob", { worker = { replicas = 1 },
      num_launcher_replicas = 1, launcher = { replicas = 1 } }),
      "kfjob.MPIJob: num_launcher_replicas: cannot be combined with launcher.replicas "
        .. "(num_launcher_replicas is deprecated)" },
    { "num_workers = 0 is no worker", emit("TFJob", { num_workers = 0 }, "encode"),
      "kfjob.TFJob: worker.replicas: must be >= 1 (got 0) (target flyte)" },
    { "num_launcher_replicas over the rule", new("MPIJob", { worker = { replicas = 1 }, num_launcher_replicas = 2 }),
      "kfjob.MPIJob: num_launcher_replicas: must be 1 (got 2)" },
  },

  ["rules"] = {
    { "no worker", emit("MPIJob", {}, "encode"),
      "kfjob.MPIJob: worker.replicas: must be >= 1 (got 0) (target flyte)" },
    { "worker 0", emit("PyTorchJob", { worker = { replicas = 0 } }, "encode", { target = "flyte2" }),
      "kfjob.PyTorchJob: worker.replicas: must be >= 1 (got 0) (target flyte2)" },
    { "master 2", new("PyTorchJob", { worker = { replicas = 1 }, master = { replicas = 2 } }),
      "kfjob.PyTorchJob: master.replicas: must be 0 or 1 (got 2)" },
    { "launcher 0", new("HorovodJob", { worker = { replicas = 1 }, launcher = { replicas = 0 } }),
      "kfjob.HorovodJob: launcher.replicas: must be 1 (got 0)" },
    { "elastic min 0", new("Elastic", { nnodes = "0:2" }), "kfjob.Elastic: nnodes: needs 1 <= min <= max (got '0:2')" },
    { "elastic nnodes 0", new("Elastic", { nnodes = 0 }), "kfjob.Elastic: nnodes: must be >= 1 (got 0)" },
    { "nproc_per_node 0", new("Elastic", { nproc_per_node = 0 }),
      "kfjob.Elastic: nproc_per_node: must be >= 1 (got 0)" },
    { "slots 0", new("MPIJob", { worker = { replicas = 1 }, slots = 0 }), "kfjob.MPIJob: slots: must be >= 1 (got 0)" },
    { "elastic worker replicas", new("Elastic", { worker = { replicas = 2 } }),
      "kfjob.Elastic: worker.replicas: not settable here (an elastic job takes nnodes)" },
    { "command in a TF group", tfjob { evaluator = { command = { "x" } } },
      "kfjob.TFJob: evaluator.command: only MPI and Horovod groups take a command" },
    { "command in a PS constructor", new("PS", { command = { "x" } }),
      "kfjob.PS: command: only MPI and Horovod groups take a command" },
    { "a Chief object as worker", tfjob { worker = kfjob.Chief {} },
      "kfjob.TFJob: worker: expected a kfjob.Worker or a table, got kfjob.Chief" },
    { "Master constructor replicas 2", new("Master", { replicas = 2 }), "kfjob.Master: replicas: must be 1 (got 2)" },
  },

  -- flyteadmin's task registration (task_validator.go validateK8sPod,
  -- validateResource): a pod task's container requests within their limits
  -- (whole units), a `gpu` request equal to its limit; rule R33 on flyte.
  ["TaskSpec registration (R33)"] = {
    -- The API server's validateResourceRequirements (issue 32) refuses these
    -- templates at construction, before flyteadmin's R33 could see them:
    -- its check is exact where R33's is in whole units, and a container's
    -- `gpu` is not a Kubernetes resource name (nvidia.com/gpu is).
    { "a sidecar cpu request above its limit", new("PyTorchJob", {
        worker = { replicas = 1, image = "i" }, pod_template = { spec = { containers = {
          { name = "primary" }, { name = "side", image = "s",
            resources = { requests = { cpu = "3" }, limits = { cpu = "2" } } } } } } }),
      "kfjob.PyTorchJob: pod_template.spec.containers[2].resources.requests: Invalid value: \"3\": "
        .. "must be less than or equal to cpu limit of 2" },
    { "a sidecar memory request above its limit", new("TFJob", {
        worker = { replicas = 1, image = "i" }, pod_template = { spec = { containers = {
          { name = "log", image = "s",
            resources = { requests = { memory = "2Gi" }, limits = { memory = "1Gi" } } } } } } }),
      "kfjob.TFJob: pod_template.spec.containers[1].resources.requests: Invalid value: \"2Gi\": "
        .. "must be less than or equal to memory limit of 1Gi" },
    { "a gpu request that differs from its limit", new("MPIJob", {
        worker = { replicas = 1, image = "i" }, pod_template = { spec = { containers = {
          { name = "side", image = "s",
            resources = { requests = { gpu = "1" }, limits = { gpu = "2" } } } } } } }),
      "kfjob.MPIJob: pod_template.spec.containers[1].resources.limits.gpu: Invalid value: \"gpu\": "
        .. "must be a standard resource for containers" },
    -- the task's own resources: the container's (validateContainer ->
    -- validateTaskResources; a gpu entry must be whole) or, with a pod
    -- template, the primary container's (validateK8sPod -> validateResource)
    { "a task cpu request above its limit in whole units", call("task_spec", kfjob.PyTorchJob {
        worker = { replicas = 1, image = "i" }, requests = { cpu = "2100m" }, limits = { cpu = 2 } },
        { id = { project = "p", domain = "d", name = "n", version = "v" } }),
      "kfjob.PyTorchJob: requests.cpu: 2100m is greater than the limit 2 in whole units: "
        .. "flyteadmin refuses the task (requested default is greater than the limit) (target flyte)" },
    { "a task gpu request that is not whole", call("task_spec", kfjob.TFJob {
        worker = { replicas = 1, image = "i" }, requests = { gpu = "500m" } },
        { id = { project = "p", domain = "d", name = "n", version = "v" } }),
      "kfjob.TFJob: requests.gpu: '500m' is not a whole number: flyteadmin refuses the task "
        .. "(gpu must be a whole number) (target flyte)" },
    { "a task gpu request that differs from its limit, pod task", call("task_spec", kfjob.TFJob {
        worker = { replicas = 1, image = "i" }, requests = { gpu = 1 }, limits = { gpu = 2 },
        pod_template = { spec = { containers = { { name = "primary" } } } } },
        { id = { project = "p", domain = "d", name = "n", version = "v" } }),
      "kfjob.TFJob: requests.gpu: 1 differs from the limit 2: flyteadmin refuses the task "
        .. "(for extended resource 'gpu' the default value must equal the limit value) (target flyte)" },
    -- flyteadmin's CreateTask compiles the task: flytepropeller
    -- task_compiler.go validateContainerCommand
    { "an interface with inputs and no command or args", call("task_spec", kfjob.PyTorchJob {
        worker = { replicas = 1, image = "i" } },
        { id = { project = "p", domain = "d", name = "n", version = "v" }, container = { image = "i" },
          interface = { inputs = { lr = "float" } } }),
      "kfjob.task_spec: opts.container.args: neither command nor args, but the interface has "
        .. "inputs or outputs: flyteadmin refuses the task (a container task needs a command to "
        .. "run them; flytepropeller task_compiler.go validateContainerCommand)" },
  },

  ["nesting"] = {
    { "a cyclic table", new("TFJob", cyclic),
      "kfjob.TFJob: " .. ("x."):rep(63) .. "x: nesting deeper than 64 levels (a cyclic table?)" },
    { "65 levels", new("TFJob", nested(65, "a")),
      "kfjob.TFJob: " .. ("a."):rep(63) .. "a: nesting deeper than 64 levels (a cyclic table?)" },
    { "64 levels are converted (then rejected as unknown)", new("TFJob", nested(64, "a")),
      "kfjob.TFJob: a: unknown field" },
  },

  ["with()"] = {
    { "an invalid override", call("with", JOB, { ["worker.replicas"] = -1 }),
      "kfjob.TFJob: worker.replicas: must be >= 0 (got -1)" },
    { "a typo'd dotted key", call("with", JOB, { ["worker.imgae"] = "x" }),
      "kfjob.TFJob: worker.imgae: unknown field (did you mean 'image'?)" },
    { "a dotted key through a scalar", call("with", JOB, { ["worker.image.tag"] = "x" }),
      "kfjob.TFJob: worker.image: not a table, cannot set 'worker.image.tag'" },
    { "a list of overrides", call("with", JOB, { "x" }), "kfjob.TFJob: overrides: expected a table of fields" },
    { "a deprecated count over a set group", call("with", JOB, { num_workers = 3 }),
      "kfjob.TFJob: num_workers: cannot be combined with worker.replicas (num_workers is deprecated)" },
    { "a dotted key with an empty part", call("with", JOB, { ["worker."] = 1 }),
      "kfjob.TFJob: 'worker.': empty field name in a dotted key" },
    -- inside a nested table a key is a key: the path shows it as one, not as
    -- the valid worker.requests.cpu (a black-box tester could not tell them apart)
    { "a dotted key inside a nested table", call("with", JOB, { worker = { ["requests.cpu"] = 2 } }),
      'kfjob.TFJob: worker["requests.cpu"]: unknown field (did you mean \'requests\'?)' },
    { "a dotted key in a constructor", function() return kfjob.TFJob{ ["worker.replicas"] = 2 } end,
      'kfjob.TFJob: ["worker.replicas"]: unknown field' },
  },

  -- SPEC §12: the operator-only kinds; their replica rules are the
  -- training-operator v1.9 webhooks' (FACTS §8.6), their methods those a
  -- kind without a Flyte task type has.
  ["JAXJob"] = {
    { "no worker", new("JAXJob", {}), "kfjob.JAXJob: worker.replicas: required (at least 1 worker)" },
    { "0 workers", new("JAXJob", { worker = { replicas = 0 } }),
      "kfjob.JAXJob: worker.replicas: must be >= 1 (got 0)" },
    { "a master", new("JAXJob", { master = { replicas = 1 }, worker = { replicas = 1 } }),
      "kfjob.JAXJob: master: unknown field" },
    { "a worker command", with_worker("JAXJob", { command = { "python" } }),
      "kfjob.JAXJob: worker.command: only MPI and Horovod groups take a command" },
    { "slots", new("JAXJob", { worker = { replicas = 1 }, slots = 2 }), "kfjob.JAXJob: slots: unknown field" },
    { "a deprecated count", new("JAXJob", { num_workers = 2 }), "kfjob.JAXJob: num_workers: unknown field" },
    { "bad restart policy", with_worker("JAXJob", { restart_policy = "sometimes" }),
      "kfjob.JAXJob: worker.restart_policy: unknown restart policy 'sometimes'" .. RP },
    { "encode", call("encode", JAX), "kfjob.encode: " .. NO_TT("JAXJob") },
    { "custom", call("custom", JAX), "kfjob.custom: " .. NO_TT("JAXJob") },
    { "to_json", call("to_json", JAX, { indent = 2 }), "kfjob.to_json: " .. NO_TT("JAXJob") },
    { "task_template", call("task_template", JAX), "kfjob.task_template: " .. NO_TT("JAXJob") },
    { "with 0 workers", call("with", JAX, { ["worker.replicas"] = 0 }),
      "kfjob.JAXJob: worker.replicas: must be >= 1 (got 0)" },
    { "manifest without a name", call("manifest", JAX, {}),
      "kfjob.manifest: opts.name: required (the resource name, a DNS-1035 label)" },
    { "manifest name too long for the pods", call("manifest", JAX, { name = string.rep("a", 55) }),
      "kfjob.JAXJob: opts.name: too long for this job: pod name '" .. string.rep("a", 55)
        .. "-worker-1' has 64 characters (at most 63) (target operator)" },
    { "launcher_command", call("launcher_command", JAX), "kfjob.launcher_command: only MPIJob and HorovodJob have a launcher" },
    { "from_json opts.kind", function() return kfjob.from_json("pytorch", "{}", { kind = "JAXJob" }) end,
      "kfjob.from_json: opts.kind: " .. NO_TT("JAXJob") },
  },
  ["XGBoostJob"] = {
    { "2 masters", new("XGBoostJob", { master = { replicas = 2 } }),
      "kfjob.XGBoostJob: master.replicas: must be 1 (got 2)" },
    { "no master", new("XGBoostJob", { master = { replicas = 0 } }),
      "kfjob.XGBoostJob: master.replicas: must be 1 (got 0)" },
    { "negative workers", new("XGBoostJob", { worker = { replicas = -1 } }),
      "kfjob.XGBoostJob: worker.replicas: must be >= 0 (got -1)" },
    { "a ps group", new("XGBoostJob", { ps = { replicas = 1 } }), "kfjob.XGBoostJob: ps: unknown field" },
    { "negative backoff limit", new("XGBoostJob", { run_policy = { backoff_limit = -1 } }),
      "kfjob.XGBoostJob: run_policy.backoff_limit: must be >= 0 (got -1)" },
    { "with 3 masters", call("with", XGB, { ["master.replicas"] = 3 }),
      "kfjob.XGBoostJob: master.replicas: must be 1 (got 3)" },
    { "encode", call("encode", XGB, { version = 0 }), "kfjob.encode: " .. NO_TT("XGBoostJob") },
    { "custom", call("custom", XGB), "kfjob.custom: " .. NO_TT("XGBoostJob") },
    { "to_json", call("to_json", XGB), "kfjob.to_json: " .. NO_TT("XGBoostJob") },
    { "task_template", call("task_template", XGB, { format = "json" }),
      "kfjob.task_template: " .. NO_TT("XGBoostJob") },
    { "manifest without an image", call("manifest", XGB, { name = "xgb" }),
      "kfjob.manifest: opts.image: required: worker has no image of its own (set the job's container.image, or kfjob render --image; only a TrainJob may run its runtime's image)" },
    { "manifest name not a DNS-1035 label (R14)", call("manifest", XGB, { name = "9xgb", image = "i" }),
      "kfjob.XGBoostJob: opts.name: '9xgb' is not a DNS-1035 label (lowercase letters, digits and '-', "
        .. "starting with a letter and ending with a letter or digit) (target operator)" },
    { "manifest for the mpi-operator", call("manifest", XGB, { name = "x", image = "i", target = "mpi-operator" }),
      "kfjob.manifest: target 'mpi-operator' does not run a XGBoostJob (it runs mpi-operator v0.8 "
        .. "(MPIJob kubeflow.org/v2beta1))" },
    { "decode opts.kind", function() return kfjob.decode("mpi", "", { kind = "XGBoostJob" }) end,
      -- as from_json and decode_task_template say it (docs/API.md: refused the same way)
      "kfjob.decode: opts.kind: XGBoostJob has no Flyte task type, so no plugin message, TaskTemplate "
        .. "or TaskSpec (kinds with one: TFJob, PyTorchJob, Elastic, MPIJob or HorovodJob); the "
        .. "training-operator runs it from manifest()" },
  },
  ["PaddleJob"] = {
    { "no pod at all", new("PaddleJob", { master = { replicas = 0 } }),
      "kfjob.PaddleJob: worker.replicas: must be >= 1 when master.replicas is 0 (a PaddleJob needs at least one pod)" },
    { "negative master", new("PaddleJob", { master = { replicas = -1 } }),
      "kfjob.PaddleJob: master.replicas: must be >= 0 (got -1)" },
    { "a chief", new("PaddleJob", { chief = { replicas = 1 } }), "kfjob.PaddleJob: chief: unknown field" },
    { "a worker command", with_worker("PaddleJob", { command = { "python" } }),
      "kfjob.PaddleJob: worker.command: only MPI and Horovod groups take a command" },
    { "bad shared_memory", new("PaddleJob", { shared_memory = "lots" }),
      "kfjob.PaddleJob: shared_memory: invalid quantity 'lots'" .. QTY },
    { "with no master and no worker", call("with", PADDLE, { ["master.replicas"] = 0 }),
      "kfjob.PaddleJob: worker.replicas: must be >= 1 when master.replicas is 0 (a PaddleJob needs at least one pod)" },
    { "encode", call("encode", PADDLE), "kfjob.encode: " .. NO_TT("PaddleJob") },
    { "custom", call("custom", PADDLE, { version = 1 }), "kfjob.custom: " .. NO_TT("PaddleJob") },
    { "to_json", call("to_json", PADDLE), "kfjob.to_json: " .. NO_TT("PaddleJob") },
    { "task_template", call("task_template", PADDLE), "kfjob.task_template: " .. NO_TT("PaddleJob") },
    { "manifest for Trainer", call("manifest", PADDLE, { name = "p", image = "i", target = "trainer-2.3" }),
      "kfjob.manifest: target 'trainer-2.3' does not run a PaddleJob (it runs Kubeflow Trainer v2.3 "
        .. "(TrainJob trainer.kubeflow.org/v1alpha1))" },
    { "manifest for Flyte", call("manifest", PADDLE, { name = "p", image = "i", target = "flyte" }),
      "kfjob.manifest: target 'flyte' does not run a PaddleJob (it runs Flyte 1.x backend + training-operator)" },
    { "decode_task_template opts.kind", function() return kfjob.decode_task_template("", { kind = "PaddleJob" }) end,
      "kfjob.decode_task_template: opts.kind: " .. NO_TT("PaddleJob") },
  },

  ["encode options"] = {
    { "version 2", call("encode", JOB, { version = 2 }),
      "kfjob.encode: opts.version: unsupported task_type_version 2 (expected 0 or 1)" },
    { "version a boolean", call("encode", JOB, { version = true }),
      "kfjob.encode: opts.version: expected 0 or 1, got boolean 'true'" },
    { "unknown replica encoding", call("encode", JOB, { replica_encoding = "nested" }),
      'kfjob.encode: opts.replica_encoding: expected "flat" or "common", got nested' },
    { "common with version 0", call("encode", JOB, { version = 0, replica_encoding = "common" }),
      'kfjob.encode: opts.replica_encoding: "common" needs version 1' },
    { "typo'd option", call("encode", JOB, { verison = 0 }),
      "kfjob.encode: opts.verison: unknown option (did you mean 'version'?)" },
    { "version 0 cannot express the job", call("encode", JOB, { version = 0 }),
      "kfjob.TFJob: version 0 cannot express worker.image (use version 1)" },
    { "version as a string", call("encode", JOB, { version = "1" }),
      "kfjob.encode: opts.version: expected 0 or 1, got string '1'" },
  },

  -- job:environment (SPEC §11); its R16 error on Trainer included
  ["environment options"] = {
    { "no name", call("environment", JOB), "kfjob.environment: opts.name: required (the resource name, a DNS-1035 label)" },
    { "a name that is no DNS-1035 label", call("environment", JOB, { name = "1job" }),
      "kfjob.environment: opts.name: '1job' is not a DNS-1035 label (lowercase letters, digits and '-', "
      .. "starting with a letter and ending with a letter or digit)" },
    { "typo'd option", call("environment", JOB, { nmae = "j" }),
      "kfjob.environment: opts.nmae: unknown option (did you mean 'name'?)" },
    { "misspelt target", call("environment", JOB, { name = "j", target = "mpi-operater" }),
      "kfjob.environment: opts.target: unknown target 'mpi-operater' (did you mean 'mpi-operator'?)" },
    { "a kind the target does not run", call("environment", JOB, { name = "j", target = "mpi-operator" }),
      "kfjob.environment: target 'mpi-operator' does not run a TFJob (it runs mpi-operator v0.8 (MPIJob kubeflow.org/v2beta1))" },
    { "an invalid variable name", call("environment", JOB, { name = "j", env = { ["A B"] = "1" } }),
      "kfjob.environment: opts.env[\"A B\"]: invalid environment variable name (letters, digits, '_', '-' or '.', "
      .. "not starting with a digit)" },
    { "a namespace that is no DNS-1123 label", call("environment", JOB, { name = "j", namespace = "x_y" }),
      "kfjob.environment: opts.namespace: 'x_y' is not a DNS-1123 label (at most 63 lowercase letters, digits "
      .. "and '-', starting and ending with a letter or digit)" },
    { "R16: a torch PET_* variable on Trainer",
      call("environment", kfjob.PyTorchJob { worker = { replicas = 1 } },
           { name = "j", target = "trainer-2.2", env = { PET_MASTER_ADDR = "x" } }),
      "kfjob.PyTorchJob: opts.env.PET_MASTER_ADDR: PET_MASTER_ADDR is reserved by Trainer's torch runtime: "
      .. "the TrainJob webhook rejects it (must not have reserved envs) (target trainer-2.2)" },
    { "an Elastic python-task on Flyte", call("environment", kfjob.Elastic { nnodes = 1 }, { name = "e", target = "flyte" }),
      "kfjob.environment: nnodes: an Elastic job with nnodes = 1 runs on Flyte as a plain python-task pod: "
      .. "no PyTorchJob, no injected environment (target flyte)" },
  },
}

-- ---- decoders (nil, message) ---------------------------------------------------

local W1 = msg(1, int(1, 1))
local ELASTIC = function(...) return msg(1, int(1, 2)) .. msg(4, ...) end
local decoding = {
  { "a garbage byte", "tensorflow", "\255", nil,
    malformed("kubeflow.DistributedTensorflowTrainingTask") },
  { "truncated length", "tensorflow", "\10\5\8", nil,
    malformed("kubeflow.DistributedTensorflowTrainingTask") },
  { "truncated varint", "mpi", "\10\2\8\255", nil,
    malformed("kubeflow.DistributedMPITrainingTask") },
  { "a varint where a message belongs", "pytorch", int(2, 1), nil,
    malformed("kubeflow.DistributedPyTorchTrainingTask") },
  { "a message where a varint belongs (v0)", "mpi", msg(1, "x"), { version = 0 },
    malformed("DistributedMPITrainingTask") },
  { "garbage inside a nested message", "tensorflow", msg(1, "\255\255"), nil,
    malformed("kubeflow.DistributedTensorflowTrainingTask") },
  { "negative count", "tensorflow", msg(1, int(1, -1)), nil,
    "kfjob.decode: workerReplicas.replicas: must be >= 0 (got -1)" },
  { "negative count (v0)", "tensorflow", int(1, 1) .. int(2, -5), { version = 0 },
    "kfjob.decode: psReplicas: must be >= 0 (got -5)" },
  { "count 2^31 wraps negative (v0)", "tensorflow", int(1, 2147483648), { version = 0 },
    "kfjob.decode: workers: must be >= 0 (got -2147483648)" },
  { "master 2", "pytorch", W1 .. msg(2, int(1, 2)), nil, "kfjob.decode: masterReplicas.replicas: must be 0 or 1 (got 2)" },
  { "launcher 2 (v0)", "mpi", int(1, 1) .. int(2, 2) .. int(3, 1), { version = 0 },
    "kfjob.decode: numLauncherReplicas: must be 1 (got 2)" },
  { "slots 0", "mpi", W1, nil, "kfjob.decode: slots: must be >= 1 (got 0)" },
  { "restart policy 7", "tensorflow", msg(1, int(1, 1), int(4, 7)), nil,
    "kfjob.decode: workerReplicas.restartPolicy: unknown value 7" },
  { "restart policy 3 in common", "mpi", msg(1, msg(6, int(1, 1), int(4, 3))) .. int(4, 1), nil,
    "kfjob.decode: workerReplicas.common.restartPolicy: unknown value 3" },
  { "clean pod policy 5", "tensorflow", W1 .. msg(4, int(1, 5)), nil,
    "kfjob.decode: runPolicy.cleanPodPolicy: unknown value 5" },
  { "negative backoff limit", "pytorch", W1 .. msg(3, int(4, -1)), nil,
    "kfjob.decode: runPolicy.backoffLimit: must be >= 0 (got -1)" },
  { "resource STORAGE", "tensorflow", msg(1, int(1, 1), msg(3, msg(1, int(1, 4), msg(2, "1")))), nil,
    "kfjob.decode: workerReplicas.resources.requests[1].name: resource STORAGE is not supported "
      .. "(expected CPU, MEMORY, GPU or EPHEMERAL_STORAGE)" },
  { "resource number 9", "tensorflow", msg(1, int(1, 1), msg(3, msg(2, int(1, 9), msg(2, "1")))), nil,
    "kfjob.decode: workerReplicas.resources.limits[1].name: resource (unknown number) is not supported "
      .. "(expected CPU, MEMORY, GPU or EPHEMERAL_STORAGE)" },
  { "duplicate resource", "tensorflow",
    msg(1, int(1, 1), msg(3, msg(1, int(1, 1), msg(2, "1")), msg(1, int(1, 1), msg(2, "2")))), nil,
    "kfjob.decode: workerReplicas.resources.requests[2].name: duplicate CPU entry" },
  { "bad quantity", "tensorflow", msg(1, int(1, 1), msg(3, msg(1, int(1, 3), msg(2, "4gb")))), nil,
    "kfjob.decode: workerReplicas.resources.requests[1].value: invalid quantity '4gb'" },
  { "image with a space", "tensorflow", msg(1, int(1, 1), msg(2, "a b")), nil,
    "kfjob.decode: workerReplicas.image: must not contain whitespace" },
  { "elastic nproc 0", "pytorch", ELASTIC(msg(1, "c10d"), int(2, 1), int(3, 2)), nil,
    "kfjob.decode: elasticConfig.nprocPerNode: must be >= 1 (got 0)" },
  { "elastic unknown backend", "pytorch", ELASTIC(msg(1, "zk"), int(2, 1), int(3, 2), int(4, 1)), nil,
    "kfjob.decode: elasticConfig.rdzvBackend: unknown rendezvous backend 'zk' (expected c10d, etcd, etcd-v2 or static)" },
  { "elastic worker count not max", "pytorch",
    msg(1, int(1, 5)) .. msg(4, msg(1, "c10d"), int(2, 1), int(3, 2), int(4, 1)), nil,
    "kfjob.decode: workerReplicas.replicas: must equal elasticConfig.maxReplicas in an elastic job (got 5, max 2)" },
  { "elastic with a master", "pytorch", ELASTIC(msg(1, "c10d"), int(2, 1), int(3, 2), int(4, 1)) .. msg(2), nil,
    "kfjob.decode: masterReplicas: an elastic job has no master" },
  { "unknown task type", "sidecar", W1, nil,
    "kfjob.decode: unknown task type 'sidecar' (expected tensorflow, pytorch or mpi)" },
  { "python-task (no payload)", "python-task", "", nil,
    "kfjob.decode: unknown task type 'python-task' (expected tensorflow, pytorch or mpi)" },
  { "version 2", "tensorflow", W1, { version = 2 },
    "kfjob.decode: opts.version: unsupported task_type_version 2 (expected 0 or 1)" },
  { "version -1", "mpi", W1, { version = -1 },
    "kfjob.decode: opts.version: unsupported task_type_version -1 (expected 0 or 1)" },
  { "version 0.5", "mpi", W1, { version = 0.5 },
    "kfjob.decode: opts.version: unsupported task_type_version 0.5 (expected 0 or 1)" },
  { "image with a NUL byte", "tensorflow", msg(1, int(1, 1), msg(2, "a\0b")), nil,
    "kfjob.decode: workerReplicas.image: string contains a NUL byte" },
  { "command item with a NUL byte", "mpi", msg(1, int(1, 1), msg(5, "a\0b")) .. int(4, 1), nil,
    "kfjob.decode: workerReplicas.command[1]: string contains a NUL byte" },
}

-- ---- the catalogue ------------------------------------------------------------

-- Target errors (SPEC §11): a method the target does not have, a kind it
-- does not run, an unknown target, and the first error of the rules by
-- target (FACTS §8.5) when emitting.
local PT = { worker = { replicas = 2 }, master = {} }
raising["targets"] = {
  { "unknown target", emit("PyTorchJob", PT, "encode", { target = "flyt" }),
    "kfjob.encode: opts.target: unknown target 'flyt' (did you mean 'flyte'?)" },
  { "target not a string", emit("PyTorchJob", PT, "to_json", { target = 2 }),
    "kfjob.to_json: opts.target: expected a target name, got number" },
  { "check's unknown target", emit("PyTorchJob", PT, "check", { target = "trainer2.3" }),
    "kfjob.check: opts.target: unknown target 'trainer2.3' (did you mean 'trainer-2.3'?)" },
  { "lint's unknown target", emit("PyTorchJob", PT, "lint", { target = "operater" }),
    "kfjob.lint: opts.target: unknown target 'operater' (did you mean 'operator'?)" },
  { "copy_to_pods = false for Flyte", emit("PyTorchJob", PT, "manifest",
      { name = "pt", image = "i", copy_to_pods = false, target = "flyte" }),
    "kfjob.manifest: opts.copy_to_pods: false cannot be expressed on flyte: Flyte's backend puts the "
      .. "execution's labels and annotations on every pod" },
  { "copy_to_pods not a boolean", emit("PyTorchJob", PT, "manifest", { name = "pt", image = "i", copy_to_pods = 1 }),
    "kfjob.manifest: opts.copy_to_pods: expected a boolean, got number" },
  { "encode for operator", emit("PyTorchJob", PT, "encode", { target = "operator" }),
    "kfjob.encode: target 'operator' has no encode (it runs training-operator v1.9 (kubeflow.org/v1))" },
  { "custom for mpi-operator", emit("MPIJob", { worker = { replicas = 1 } }, "custom", { target = "mpi-operator" }),
    "kfjob.custom: target 'mpi-operator' has no custom (it runs mpi-operator v0.8 (MPIJob kubeflow.org/v2beta1))" },
  { "to_json for trainer-2.2", emit("PyTorchJob", PT, "to_json", { target = "trainer-2.2" }),
    "kfjob.to_json: target 'trainer-2.2' has no to_json (it runs Kubeflow Trainer v2.2 "
      .. "(TrainJob trainer.kubeflow.org/v1alpha1))" },
  { "task_template for trainer-2.3", emit("PyTorchJob", PT, "task_template", { target = "trainer-2.3" }),
    "kfjob.task_template: target 'trainer-2.3' has no task_template (it runs Kubeflow Trainer v2.3 "
      .. "(TrainJob trainer.kubeflow.org/v1alpha1))" },
  { "R1 master-only PyTorchJob on flyte2", emit("PyTorchJob", { master = {} }, "task_template", { target = "flyte2" }),
    "kfjob.PyTorchJob: worker.replicas: must be >= 1 (got 0) (target flyte2)" },
  { "R3 TFJob without workers on flyte", emit("TFJob", { ps = { replicas = 1 } }, "to_json"),
    "kfjob.TFJob: worker.replicas: must be >= 1 (got 0) (target flyte)" },
  { "R3 TFJob without workers on flyte2", emit("TFJob", { ps = { replicas = 1 } }, "custom", { target = "flyte2" }),
    "kfjob.TFJob: worker.replicas: must be >= 1 (got 0) (target flyte2)" },
  { "R4 MPIJob without workers on flyte", emit("MPIJob", { worker = { replicas = 0 } }, "task_template"),
    "kfjob.MPIJob: worker.replicas: must be >= 1 (got 0) (target flyte)" },
  { "R4 HorovodJob, deprecated count 0, on flyte2", emit("HorovodJob", { num_workers = 0 }, "encode", { target = "flyte2" }),
    "kfjob.HorovodJob: worker.replicas: must be >= 1 (got 0) (target flyte2)" },
  { "R4 MPIJob without workers, manifest for mpi-operator",
    emit("MPIJob", { worker = { replicas = 0 } }, "manifest", { target = "mpi-operator", name = "n", image = "i" }),
    "kfjob.MPIJob: worker.replicas: must be >= 1 (got 0) (target mpi-operator)" },
  { "R10 nproc_per_node gpu, manifest for trainer-2.3",
    emit("Elastic", { nnodes = 2, nproc_per_node = "gpu" }, "manifest", { target = "trainer-2.3", name = "n", image = "i" }),
    "kfjob.Elastic: nproc_per_node: 'gpu' cannot be expressed: TrainJob numProcPerNode is an int32 "
      .. "(\"auto\" leaves it unset) (target trainer-2.3)" },
  { "R17 rdzv_backend etcd, manifest for trainer-2.2",
    emit("Elastic", { nnodes = 2, rdzv_backend = "etcd" }, "manifest", { target = "trainer-2.2", name = "n", image = "i" }),
    "kfjob.Elastic: rdzv_backend: 'etcd' cannot be expressed: Trainer's torch runtime has no rendezvous "
      .. "setting (c10d only) (target trainer-2.2)" },
  { "nproc_per_node an unknown word", new("Elastic", { nproc_per_node = "all" }),
    "kfjob.Elastic: nproc_per_node: expected an integer >= 1, auto, cpu or gpu, got 'all'" },
  { "R10 nproc_per_node word on flyte", emit("Elastic", { nnodes = 2, nproc_per_node = "auto" }, "to_json"),
    "kfjob.Elastic: nproc_per_node: 'auto' cannot be expressed: the plugin's nproc_per_node is an int32 "
      .. "(give an integer) (target flyte)" },
  { "R10 nproc_per_node word on flyte2", emit("Elastic", { nnodes = 2, nproc_per_node = "gpu" }, "encode",
      { target = "flyte2" }),
    "kfjob.Elastic: nproc_per_node: 'gpu' cannot be expressed: the plugin's nproc_per_node is an int32 "
      .. "(give an integer) (target flyte2)" },
}

-- Issue 32: the API server's pod validation (kubernetes/kubernetes
-- pkg/apis/core/validation/validation.go), at construction, in its words.
local function podt(spec, extra)
  local t = { worker = { replicas = 1 }, pod_template = { spec = spec } }
  for k, v in pairs(extra or {}) do t[k] = v end
  return new("TFJob", t)
end
local PT_ = "kfjob.TFJob: pod_template.spec."
local DNS_LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
  .. "and must start and end with an alphanumeric character"
local ENV_NAME = "a valid environment variable name must consist of alphabetic characters, digits, '_', "
  .. "'-', or '.', and must not start with a digit"
local LABEL_VALUE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
  .. "or '.', and must start and end with an alphanumeric character"
local function ctr(extra)
  local c = { name = "primary" }
  for k, v in pairs(extra) do c[k] = v end
  return { containers = { c } }
end
raising["pod template: API server rules"] = {
  { "validateContainers: sidecar without an image", podt { containers = { { name = "side" } } },
    PT_ .. "containers[1].image: Required value" },
  { "validateContainers: container name not a DNS-1123 label", podt { containers = { { name = "Side_Car", image = "i" } } },
    PT_ .. 'containers[1].name: Invalid value: "Side_Car": ' .. DNS_LABEL },
  { "validateInitContainers: init container named like a container",
    podt { initContainers = { { name = "side", image = "i" } }, containers = { { name = "side", image = "i" } } },
    PT_ .. 'initContainers[1].name: Duplicate value: "side"' },
  { "validateContainerPorts: containerPort 70000", podt(ctr { ports = { { containerPort = 70000 } } }),
    PT_ .. "containers[1].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive" },
  { "validateContainerPorts: hostPort -1", podt(ctr { ports = { { containerPort = 80, hostPort = -1 } } }),
    PT_ .. "containers[1].ports[1].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive" },
  { "validateTolerations: Exists with a value",
    podt { tolerations = { { key = "k", operator = "Exists", value = "v" } } },
    PT_ .. "tolerations[1].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'" },
  { "validateTolerations: empty key without Exists", podt { tolerations = { { operator = "Equal", value = "v" } } },
    PT_ .. "tolerations[1].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, "
      .. "which means \"match all values and all keys\"" },
  { "validateTolerations: tolerationSeconds without NoExecute",
    podt { tolerations = { { key = "k", operator = "Exists", effect = "NoSchedule", tolerationSeconds = 5 } } },
    PT_ .. "tolerations[1].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set" },
  { "validateVolumeSource: two sources",
    podt { volumes = { { name = "v", emptyDir = {}, hostPath = { path = "/x" } } } },
    PT_ .. "volumes[1]: Forbidden: may not specify more than 1 volume type" },
  { "validateVolumeSource: no source", podt { volumes = { { name = "v" } } },
    PT_ .. "volumes[1]: Required value: must specify a volume type" },
  { "ValidateVolumeMounts: a mount naming no volume",
    podt(ctr { volumeMounts = { { name = "data", mountPath = "/data" } } }),
    PT_ .. 'containers[1].volumeMounts[1].name: Not found: "data"' },
  { "ValidatePodSpec: activeDeadlineSeconds 0", podt { activeDeadlineSeconds = 0 },
    PT_ .. "activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive" },
  { "ValidatePodSpec: a bad nodeSelector key", podt { nodeSelector = { ["bad key"] = "v" } },
    PT_ .. "nodeSelector.bad key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, "
      .. "'-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain "
      .. "prefix and '/'" },
  { "ValidatePodSpec: a bad nodeSelector value", podt { nodeSelector = { zone = "-a" } },
    PT_ .. "nodeSelector.zone: Invalid value: \"-a\": " .. LABEL_VALUE },
  { "validateEnv: empty env name", podt(ctr { env = { { name = "", value = "x" } } }),
    PT_ .. "containers[1].env[1].name: Required value" },
  { "validateEnv: env name with '='", podt(ctr { env = { { name = "MASTER_ADDR=evil", value = "x" } } }),
    PT_ .. 'containers[1].env[1].name: Invalid value: "MASTER_ADDR=evil": ' .. ENV_NAME },
  { "validateEnv: env name with a line break", podt(ctr { env = { { name = "A\nLD_PRELOAD", value = "x" } } }),
    PT_ .. 'containers[1].env[1].name: Invalid value: "A\nLD_PRELOAD": ' .. ENV_NAME },
  { "validateEnvVarValueFrom: value and valueFrom",
    podt(ctr { env = { { name = "A", value = "x", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } } } }),
    PT_ .. "containers[1].env[1].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty" },
  { "accelerator not a label value", new("TFJob", { worker = { replicas = 1 }, accelerator = "nvidia-tesla-" }),
    "kfjob.TFJob: accelerator.device: Invalid value: \"nvidia-tesla-\": " .. LABEL_VALUE },
  { "NUL in an enum string", new("TFJob", { worker = { replicas = 1, restart_policy = "Never\0x" } }),
    "kfjob.TFJob: worker.restart_policy: string contains a NUL byte" },
  { "NUL in opts.target", call("to_json", JOB, { target = "flyte\0x" }),
    "kfjob.to_json: opts.target: string contains a NUL byte" },
  { "NUL in opts.format", call("manifest", JOB, { name = "n", format = "yaml\0" }),
    "kfjob.manifest: opts.format: string contains a NUL byte" },
  { "4096 env entries, the last a repeat of the first (hash set)", (function()
      local env = {}
      for i = 1, 4095 do env[i] = { name = "V" .. i, value = "x" } end
      env[4096] = { name = "V1", value = "y" }
      return podt(ctr { env = env })
    end)(),
    PT_ .. "containers[1].env[4096].name: duplicate (the same as item [1])" },
}
-- Scheduling: R27 at construction, the target rows when emitting.
local function sched(s) return new("PyTorchJob", { worker = { replicas = 1 }, scheduling = s }) end
raising["scheduling"] = {
  { "queue not a DNS-1123 subdomain", sched({ queue = "Team_A" }),
    "kfjob.PyTorchJob: scheduling.queue: 'Team_A' is not a DNS-1123 subdomain (only lowercase letters, digits, "
      .. "'-' and '.' are allowed; Kueue's webhook refuses it)" },
  { "priority class not a DNS-1123 subdomain", sched({ priority_class = "-high" }),
    "kfjob.PyTorchJob: scheduling.priority_class: '-high' is not a DNS-1123 subdomain (each '.'-separated part "
      .. "must start and end with a lowercase letter or digit; Kueue's webhook refuses it)" },
  -- a subdomain, but the label value it is written to caps it at 63
  { "queue over 63 characters", sched({ queue = ("q"):rep(64) }),
    "kfjob.PyTorchJob: scheduling.queue: '" .. ("q"):rep(64) .. "' is 64 characters: Kueue reads it from "
      .. "a label value, which the API server caps at 63 (IsValidLabelValue)" },
  { "max_exec_time 0", sched({ max_exec_time = 0 }),
    "kfjob.PyTorchJob: scheduling.max_exec_time: must be >= 1 (got 0)" },
  { "max_exec_time negative", sched({ max_exec_time = -5 }),
    "kfjob.PyTorchJob: scheduling.max_exec_time: must be >= 1 (got -5)" },
  { "max_exec_time fractional", sched({ max_exec_time = 1.5 }),
    "kfjob.PyTorchJob: scheduling.max_exec_time: expected an integer, got 1.5" },
  { "gang.min_available 0", sched({ gang = { min_available = 0 } }),
    "kfjob.PyTorchJob: scheduling.gang.min_available: must be >= 1 (got 0)" },
  { "gang.min_available above the pod count (operator)",
    emit("PyTorchJob", { worker = { replicas = 1 }, scheduling = { gang = { min_available = 3 } } }, "manifest",
         { target = "operator", name = "n", image = "i" }),
    "kfjob.PyTorchJob: scheduling.gang.min_available: 3 is above the job's 2 pods: its PodGroup can never start "
      .. "(target operator)" },
  { "empty Volcano queue", sched({ gang = { queue = "" } }),
    "kfjob.PyTorchJob: scheduling.gang.queue: must not be empty" },
  { "topology required and preferred", sched({ topology = { required = "rack", preferred = "zone" } }),
    "kfjob.PyTorchJob: scheduling.topology: required and preferred cannot be combined (a pod set has one "
      .. "topology mode: required, preferred or unconstrained)" },
  { "a group's topology required and unconstrained",
    new("TFJob", { worker = { replicas = 1, topology = { required = "rack", unconstrained = true } } }),
    "kfjob.TFJob: worker.topology: required and unconstrained cannot be combined (a pod set has one "
      .. "topology mode: required, preferred or unconstrained)" },
  { "unknown gang scheduler", sched({ gang = { scheduler = "volcan" } }),
    "kfjob.PyTorchJob: scheduling.gang.scheduler: unknown gang scheduler 'volcan' (expected volcano or "
      .. "scheduler-plugins) (did you mean 'volcano'?)" },
  { "unknown scheduling key", sched({ queu = "q" }),
    "kfjob.PyTorchJob: scheduling.queu: unknown field (did you mean 'queue'?)" },
  { "group template setting the primary image",
    new("PyTorchJob", { worker = { replicas = 1, pod_template = { spec = { containers = { { name = "primary", image = "x" } } } } } }),
    "kfjob.PyTorchJob: worker.pod_template.spec.containers[1].image: not allowed on the primary container "
      .. "'primary' (the replica groups and the task set it)" },
  { "R30 queue on flyte", emit("PyTorchJob", { worker = { replicas = 1 }, scheduling = { queue = "q" } }, "task_template"),
    "kfjob.PyTorchJob: scheduling.queue: cannot travel in a TaskTemplate: Flyte 1.x sets no labels on the "
      .. "PyTorchJob from the task; set the label kueue.x-k8s.io/queue-name as an execution label instead (target flyte)" },
  { "R31 group template on flyte2",
    emit("PyTorchJob", { worker = { replicas = 1, pod_template = { spec = { nodeSelector = { a = "b" } } } } }, "encode",
         { target = "flyte2" }),
    "kfjob.PyTorchJob: worker.pod_template: cannot be expressed: the plugin's ReplicaSpec has no pod template "
      .. "(flytekit#2183); use the job's pod_template (target flyte2)" },
  { "R28 gang size on Trainer",
    emit("PyTorchJob", { worker = { replicas = 1 }, scheduling = { gang = { min_available = 2 } } }, "manifest",
         { target = "trainer-2.3", name = "n", image = "i" }),
    "kfjob.PyTorchJob: scheduling.gang.min_available: cannot be expressed: the runtime's podGroupPolicy decides "
      .. "it (a TrainJob and its v2.2/v2.3 runtime patches have no field for it); every pod of the job is one "
      .. "gang (target trainer-2.3)" },
  { "R25 multikueue on a JAXJob",
    emit("JAXJob", { worker = { replicas = 1 }, scheduling = { multikueue = true } }, "manifest",
         { target = "operator", name = "n", image = "i" }),
    "kfjob.JAXJob: scheduling.multikueue: a JAXJob's controller ignores runPolicy.managedBy: MultiKueue would "
      .. "run it on the manager cluster (target operator)" },
}

-- Issue 32, round 2: more of the API server's pod validation (kubernetes
-- pkg/apis/core/validation/validation.go, apimachinery pkg/util/validation),
-- and NUL bytes in the enum and option strings left.
local function side(extra)
  local c = { name = "side", image = "i" }
  for k, v in pairs(extra) do c[k] = v end
  return { containers = { { name = "primary" }, c } }
end
local MAX63 = "must be no more than 63 characters"
raising["pod template: API server rules, round 2"] = {
  { "IsDNS1123Label: a container name of 64 characters",
    podt { containers = { { name = ("a"):rep(64), image = "i" } } },
    PT_ .. 'containers[1].name: Invalid value: "' .. ("a"):rep(64) .. '": ' .. MAX63 },
  { "IsDNS1123Label: 64 characters, not all valid", podt { containers = { { name = ("A"):rep(64), image = "i" } } },
    PT_ .. 'containers[1].name: Invalid value: "' .. ("A"):rep(64) .. '": ' .. MAX63 .. "; " .. DNS_LABEL },
  { "validateResourceRequirements: a cpu request above its limit",
    podt(side { resources = { requests = { cpu = 2 }, limits = { cpu = "1500m" } } }),
    PT_ .. 'containers[2].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1500m' },
  { "validateResourceRequirements: 2Gi over 1G (mixed units)",
    podt(side { resources = { requests = { memory = "2Gi" }, limits = { memory = "1G" } } }),
    PT_ .. 'containers[2].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1G' },
  { "validateResourceRequirements: an extended resource's request below its limit",
    podt(side { resources = { requests = { ["nvidia.com/gpu"] = 1 }, limits = { ["nvidia.com/gpu"] = 2 } } }),
    PT_ .. 'containers[2].resources.requests: Invalid value: "1": must be equal to nvidia.com/gpu limit of 2' },
  { "validateResourceRequirements: an extended resource requested without a limit",
    podt(side { resources = { requests = { ["nvidia.com/gpu"] = 1 } } }),
    PT_ .. "containers[2].resources.limits: Required value: Limit must be set for non overcommitable resources" },
  { "validateContainerResourceName: not a standard container resource",
    podt(side { resources = { limits = { gpu = 1 } } }),
    PT_ .. 'containers[2].resources.limits.gpu: Invalid value: "gpu": must be a standard resource for containers' },
  { "ValidateResourceQuantityValue: an extended resource not whole",
    podt(side { resources = { limits = { ["nvidia.com/gpu"] = "1.5" } } }),
    PT_ .. 'containers[2].resources.limits["nvidia.com/gpu"]: Invalid value: "1500m": must be an integer' },
  { "ValidateNonnegativeQuantity: a negative integer request",
    podt(side { resources = { requests = { cpu = -1 } } }),
    PT_ .. 'containers[2].resources.requests.cpu: Invalid value: "-1": must be greater than or equal to 0' },
  { "validateTolerations: a key that is not a qualified name",
    podt { tolerations = { { key = "bad key", operator = "Exists" } } },
    PT_ .. 'tolerations[1].key: Invalid value: "bad key": name part must consist of alphanumeric characters, '
      .. "'-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS "
      .. "subdomain prefix and '/'" },
  { "validateTolerations: an Equal value that is not a label value",
    podt { tolerations = { { key = "pool", operator = "Equal", value = "gpu pool!" } } },
    PT_ .. 'tolerations[1].operator: Invalid value: "gpu pool!": ' .. LABEL_VALUE },
  { "IsValidLabelValue: an accelerator partition size",
    new("TFJob", { worker = { replicas = 1 }, accelerator = { device = "nvidia-tesla-a100", partition_size = "1g/5gb" } }),
    'kfjob.TFJob: accelerator.partition_size: Invalid value: "1g/5gb": ' .. LABEL_VALUE },
  { "IsValidLabelValue: an accelerator of 64 characters",
    new("TFJob", { worker = { replicas = 1 }, accelerator = ("a"):rep(64) }),
    'kfjob.TFJob: accelerator.device: Invalid value: "' .. ("a"):rep(64) .. '": ' .. MAX63 },
  { "ValidateVolumes: a volume name not a DNS-1123 label", podt { volumes = { { name = "Data_1", emptyDir = {} } } },
    PT_ .. 'volumes[1].name: Invalid value: "Data_1": ' .. DNS_LABEL },
  { "ValidateVolumes: an empty volume name", podt { volumes = { { name = "", emptyDir = {} } } },
    PT_ .. "volumes[1].name: Required value" },
  { "validateContainerPorts: a port name with capitals (IsValidPortName)",
    podt(ctr { ports = { { containerPort = 80, name = "Http" } } }),
    PT_ .. 'containers[1].ports[1].name: Invalid value: "Http": must contain only alpha-numeric characters '
      .. "(a-z, 0-9), and hyphens (-)" },
  { "validateContainerPorts: a port name of digits, 16 characters",
    podt(ctr { ports = { { containerPort = 80, name = ("1"):rep(16) } } }),
    PT_ .. 'containers[1].ports[1].name: Invalid value: "' .. ("1"):rep(16) .. '": must be no more than 15 '
      .. "characters; must contain at least one letter (a-z)" },
  { "validateContainerPorts: a port name with '--' and a leading '-'",
    podt(ctr { ports = { { containerPort = 80, name = "-a--b" } } }),
    PT_ .. 'containers[1].ports[1].name: Invalid value: "-a--b": must not contain consecutive hyphens; '
      .. "must not begin or end with a hyphen" },
  { "validateContainerPorts: a port name twice in a container",
    podt(ctr { ports = { { containerPort = 80, name = "http" }, { containerPort = 81, name = "http" } } }),
    PT_ .. 'containers[1].ports[2].name: Duplicate value: "http"' },
  { "validateContainerPorts: an unsupported protocol",
    podt(ctr { ports = { { containerPort = 80, protocol = "HTTP" } } }),
    PT_ .. 'containers[1].ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"' },
  { "ValidateVolumeMounts: an empty mountPath",
    podt { volumes = { { name = "d", emptyDir = {} } }, containers = { { name = "primary",
      volumeMounts = { { name = "d", mountPath = "" } } } } },
    PT_ .. "containers[1].volumeMounts[1].mountPath: Required value" },
  { "validateLocalDescendingPath: an absolute subPath",
    podt { volumes = { { name = "d", emptyDir = {} } }, containers = { { name = "primary",
      volumeMounts = { { name = "d", mountPath = "/d", subPath = "/etc" } } } } },
    PT_ .. 'containers[1].volumeMounts[1].subPath: Invalid value: "/etc": must be a relative path' },
  { "validatePathNoBacksteps: a subPath with '..'",
    podt { volumes = { { name = "d", emptyDir = {} } }, containers = { { name = "primary",
      volumeMounts = { { name = "d", mountPath = "/d", subPath = "a/../../b" } } } } },
    PT_ .. "containers[1].volumeMounts[1].subPath: Invalid value: \"a/../../b\": must not contain '..'" },
  { "ValidateVolumeMounts: subPath and subPathExpr",
    podt { volumes = { { name = "d", emptyDir = {} } }, containers = { { name = "primary",
      volumeMounts = { { name = "d", mountPath = "/d", subPath = "a", subPathExpr = "$(POD)" } } } } },
    PT_ .. 'containers[1].volumeMounts[1].subPathExpr: Invalid value: "$(POD)": subPathExpr and subPath are '
      .. "mutually exclusive" },
  { "validateEnvVarValueFrom: no source", podt(ctr { env = { { name = "A", valueFrom = {} } } }),
    PT_ .. "containers[1].env[1].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, "
      .. "`resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`" },
  { "validateEnvVarValueFrom: two sources", podt(ctr { env = { { name = "A", valueFrom = {
      fieldRef = { fieldPath = "metadata.name" }, secretKeyRef = { name = "s", key = "k" } } } } }),
    PT_ .. "containers[1].env[1].valueFrom: Invalid value: \"\": may not have more than one field specified at a time" },
  { "ValidatePodSpec: a hostname not a DNS-1123 label", podt { hostname = "Bad_Host" },
    PT_ .. 'hostname: Invalid value: "Bad_Host": ' .. DNS_LABEL },
  { "ValidatePodSpec: a subdomain not a DNS-1123 label", podt { subdomain = "a.b" },
    PT_ .. 'subdomain: Invalid value: "a.b": ' .. DNS_LABEL },
  { "NUL in Elastic nproc_per_node", new("Elastic", { nnodes = 2, nproc_per_node = "auto\0x" }),
    "kfjob.Elastic: nproc_per_node: string contains a NUL byte" },
  { "NUL in Elastic nnodes", new("Elastic", { nnodes = "2:4\0" }),
    "kfjob.Elastic: nnodes: string contains a NUL byte" },
  { "NUL in opts.replica_encoding", call("encode", JOB, { replica_encoding = "common\0x" }),
    "kfjob.encode: opts.replica_encoding: string contains a NUL byte" },
  { "NUL in a decode task type", function() return kfjob.decode("tensorflow\0x", "") end,
    "kfjob.decode: task type: string contains a NUL byte" },
  { "NUL in decode's opts.kind", function() return kfjob.decode("mpi", "", { kind = "HorovodJob\0x" }) end,
    "kfjob.decode: opts.kind: string contains a NUL byte" },
  { "NUL in a from_json task type", function() return kfjob.from_json("pytorch\0", "{}") end,
    "kfjob.from_json: task type: string contains a NUL byte" },
  { "NUL in decode_task_template's opts.kind",
    function() return kfjob.decode_task_template("", { kind = "HorovodJob\0x" }) end,
    "kfjob.decode_task_template: opts.kind: string contains a NUL byte" },
  { "NUL in hash64's form", function() return kfjob.hash64("x", "hex\0x") end,
    "kfjob.hash64: form: string contains a NUL byte" },
}

-- kfjob.from_manifest returns nil, msg (SPEC §14); `imported` raises it so
-- the rows read like the others.
local function imported(doc, opts)
  return function()
    local j, m = kfjob.from_manifest(doc, opts)
    if j == nil then error(m, 0) end
  end
end
local function pt_manifest(edit)
  local m = kfjob.PyTorchJob{ worker = { replicas = 1 } }:manifest{ name = "pt", image = "i" }
  edit(m)
  return m
end
raising["from_manifest"] = {
  { "another kind", imported{ apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "x" } },
    "kfjob.from_manifest: apiVersion apps/v1, kind Deployment: not a kind kfjob reads (supported: "
      .. "kubeflow.org/v1 TFJob, PyTorchJob, MPIJob, JAXJob, XGBoostJob or PaddleJob; kubeflow.org/v2beta1 "
      .. "MPIJob; trainer.kubeflow.org/v1alpha1 TrainJob; "
      .. "jobset.x-k8s.io/v1alpha2 JobSet (a Flyte 2 clustered task))" },
  { "no apiVersion", imported{ kind = "PyTorchJob" },
    "kfjob.from_manifest: apiVersion: required: a string (supported: kubeflow.org/v1 TFJob, PyTorchJob, "
      .. "MPIJob, JAXJob, XGBoostJob or PaddleJob; kubeflow.org/v2beta1 MPIJob; "
      .. "trainer.kubeflow.org/v1alpha1 TrainJob; "
      .. "jobset.x-k8s.io/v1alpha2 JobSet (a Flyte 2 clustered task))" },
  { "unknown field, did-you-mean", imported(pt_manifest(function(m) m.spec.runPolicy.backofLimit = 3 end)),
    "kfjob.from_manifest: spec.runPolicy.backofLimit: unknown field (did you mean 'backoffLimit'?) "
      .. "(opts.lossy lists it instead)" },
  { "a field kfjob cannot hold", imported(pt_manifest(function(m) m.spec.successPolicy = "AllWorkers" end)),
    "kfjob.from_manifest: spec.successPolicy: kfjob cannot hold this field (opts.lossy lists it instead)" },
  { "no container of the operator's name", imported(pt_manifest(function(m)
      m.spec.pytorchReplicaSpecs.Worker.template.spec.containers[1].name = "main" end)),
    "kfjob.from_manifest: spec.pytorchReplicaSpecs.Worker.template.spec.containers: no container named "
      .. "'pytorch': the training-operator's webhook requires one (rename the main container to 'pytorch')" },
  -- a command in only some groups is those groups' container.command (SPEC §16);
  -- an env name the API server refuses (validateEnv) is named at its manifest path
  { "an env name Kubernetes refuses", imported(pt_manifest(function(m)
      m.spec.pytorchReplicaSpecs.Master.template.spec.containers[1].env = {
        { name = "A", value = "1" }, { name = "1B", value = "2" } }
    end)),
    "kfjob.from_manifest: spec.pytorchReplicaSpecs.Master.template.spec.containers[0].env[1].name: Invalid "
      .. "value: \"1B\": a valid environment variable name must consist of alphabetic characters, digits, "
      .. "'_', '-', or '.', and must not start with a digit" },
  { "a PyTorchJob's nprocPerNode of 0", imported(pt_manifest(function(m)
      m.spec.nprocPerNode = "0" end)),
    "kfjob.from_manifest: spec.nprocPerNode: '0': expected an integer >= 1" },
  { "a PyTorchJob's nprocPerNode not a string (the CRD's type)", imported(pt_manifest(function(m)
      m.spec.nprocPerNode = 2 end)),
    "kfjob.from_manifest: spec.nprocPerNode: expected a string (an integer, auto, cpu or gpu)" },
  { "a PyTorchJob's nprocPerNode of another word", imported(pt_manifest(function(m)
      m.spec.nprocPerNode = "many" end)),
    "kfjob.from_manifest: spec.nprocPerNode: 'many': expected an integer >= 1, auto, cpu or gpu" },
  { "a template field the constructor refuses: the manifest path, 0-based", imported(pt_manifest(function(m)
      m.spec.pytorchReplicaSpecs.Worker.template.spec.tolerations = { { key = "a", operatr = "Exists" } } end)),
    "kfjob.from_manifest: spec.pytorchReplicaSpecs.Worker.template.spec.tolerations[0].operatr: unknown "
      .. "field (did you mean 'operator'?)" },
  { "elastic Worker replicas other than maxReplicas", imported(pt_manifest(function(m)
      m.spec.elasticPolicy = { rdzvBackend = "c10d", minReplicas = 1, maxReplicas = 3 } end)),
    "kfjob.from_manifest: spec.pytorchReplicaSpecs.Worker.replicas: differs from elasticPolicy's "
      .. "maxReplicas (or minReplicas): kfjob's Elastic job starts its nnodes' upper bound of workers "
      .. "(opts.lossy lists it instead)" },
  { "a template label key the API server refuses", imported(pt_manifest(function(m)
      m.spec.pytorchReplicaSpecs.Worker.template.metadata = { labels = { ["t-"] = "x" } } end)),
    "kfjob.from_manifest: spec.pytorchReplicaSpecs.Worker.template.metadata.labels[\"t-\"]: invalid label "
      .. "key (an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', "
      .. "starting and ending with a letter or digit)" },
  { "metadata.name missing", imported(pt_manifest(function(m) m.metadata.name = nil end)),
    "kfjob.from_manifest: metadata.name: required (or generateName)" },
  { "opts.kind of another family", imported(pt_manifest(function() end), { kind = "TFJob" }),
    "kfjob.from_manifest: opts.kind: a PyTorchJob cannot be read as TFJob" },
  { "several documents where one is expected", imported("a: 1\n---\nb: 2\n"),
    "kfjob.from_manifest: 2 documents: this reads one (kfjob.from_manifests reads a stream)" },
  { "duplicate keys", imported("kind: TFJob\nkind: PyTorchJob\n"),
    "kfjob.from_manifest: document 1, line 2: duplicate key 'kind' (first given on line 1)" },
  { "a tab in the indentation", imported("metadata:\n\tname: x\n"),
    "kfjob.from_manifest: document 1, line 2: a tab in the indentation (YAML indents with spaces)" },
  { "an alias before its anchor", imported("a: *b\n"),
    "kfjob.from_manifest: document 1, line 1: a: alias *b names no anchor before it" },
  -- kfjob.read_yaml: the same reader, one document
  { "read_yaml: several documents", function()
      local v, m = kfjob.read_yaml("a: 1\n---\nb: 2\n")
      if v == nil then error(m, 0) end
    end, "kfjob.read_yaml: 2 documents: this reads one" },
  { "read_yaml: duplicate keys", function()
      local v, m = kfjob.read_yaml("a: 1\na: 2\n")
      if v == nil then error(m, 0) end
    end, "kfjob.read_yaml: document 1, line 2: duplicate key 'a' (first given on line 1)" },
}
-- Data configs (SPEC §15): a bad .yaml/.json config given to the CLI gets
-- "FILE:LINE: PATH: problem" on stderr, exit 1 and nothing on stdout.  The
-- builder raises that line as "FILE line LINE: PATH: problem" (its directory
-- left out; luassert would strip a "FILE:LINE: " prefix).  The CLI is Lua 5.4's.
if require("util").cli_ok then
  local cli = require "util"
  local function data(file, text)
    return function()
      local dir = os.tmpname()
      os.remove(dir)
      assert(os.execute("mkdir -p " .. cli.quote(dir)))
      local p = dir .. "/" .. file
      local f = assert(io.open(p, "wb"))
      f:write(text)
      f:close()
      local code, out, err = cli.kfjob("render", "-f", "manifest", p)
      os.remove(p)
      os.remove(dir)
      if code ~= 1 or out ~= "" then error(("exit %s, stdout %q"):format(code, out), 0) end
      local name, line, rest = err:match("^" .. dir:gsub("%p", "%%%0") .. "/([^:\n]+):(%d+): ([^\n]*)")
      error(name and ("%s line %s: %s"):format(name, line, rest) or err, 0)
    end
  end
  local bomb = { "kind: TFJob", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]" }
  for i = 1, 8 do
    bomb[#bomb + 1] = ("a%d: &a%d [%s]"):format(i, i, ("*a%d, "):format(i - 1):rep(9) .. "*a" .. (i - 1))
  end
  raising["data configs"] = {
    { "a YAML syntax error", data("syntax.yaml", "kind: TFJob\nworker: [1, 2\n"),
      "syntax.yaml line 3: did not find expected ',' or ']' (while parsing a flow sequence) (column 1)" },
    { "duplicate keys", data("dup.yaml", "jobs:\n  a:\n    kind: TFJob\n    kind: MPIJob\n"),
      "dup.yaml line 4: jobs.a: duplicate key 'kind' (first given on line 3)" },
    { "an alias bomb", data("bomb.yaml", table.concat(bomb, "\n") .. "\n"),
      "bomb.yaml line 7: a5[1]: more than 200000 nodes (aliases expanded)" },
    { "a wrong top-level shape", data("shape.json", '{"worker": {"replicas": 1}}'),
      "shape.json line 1: the mapping has neither 'kind' nor 'jobs': a data config is one job (a mapping with its "
        .. "kind), a list of jobs or {jobs: {name: job}}" },
    { "a non-string key", data("key.yaml", "kind: TFJob\nworker:\n  replicas: 1\n  true: x\n"),
      "key.yaml line 4: worker: a key must be a string, not a boolean (quote it)" },
    { "a field of the wrong type", data("type.yaml", "jobs:\n  bert:\n    kind: PyTorchJob\n    worker:\n"
        .. "      replicas: [2]\n"),
      "type.yaml line 5: jobs.bert.worker.replicas: expected an integer, got a list" },
    { "an unknown field", data("field.yaml", "jobs:\n  bert:\n    kind: PyTorchJob\n    worker:\n      replcas: 2\n"),
      "field.yaml line 5: jobs.bert.worker.replcas: unknown field (did you mean 'replicas'?)" },
    { "an unknown kind", data("kind.yml", "- kind: TFjob\n"),
      "kind.yml line 1: [1].kind: unknown kind 'TFjob' (did you mean 'TFJob'?)" },
  }
end


-- Writing configs (issue 30): the generators refuse what names nothing.
raising["generators: schema"] = {
  { "schema of an unknown kind", function() return kfjob.schema("PyTorchjob") end,
    "kfjob.schema: unknown job kind 'PyTorchjob' (did you mean 'PyTorchJob'?) (expected TFJob, "
      .. "PyTorchJob, Elastic, MPIJob, HorovodJob, JAXJob, XGBoostJob, PaddleJob)" },
  { "schema for an unknown target", function() return kfjob.schema(nil, { target = "flyt" }) end,
    "kfjob.schema: unknown target 'flyt' (expected flyte, flyte2, operator, mpi-operator, "
      .. "trainer-2.2, trainer-2.3, trainer-2.4, flyte2-clustered)" },
  { "schema of a kind the target does not run", function() return kfjob.schema("TFJob", { target = "trainer-2.3" }) end,
    "kfjob.schema: target 'trainer-2.3' does not run a TFJob" },
}

-- Import and convert (issue 29): `kfjob convert` refusals are stderr's
-- first line (the file's directory left out), with the exit code checked:
-- 1 for input kfjob cannot read or a target refuses, 2 for usage and I/O.
if require("util").cli_ok then
  local cli = require "util"
  local TF_DOC = "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: t}\nspec:\n  tfReplicaSpecs:\n"
    .. "    Worker:\n      replicas: 1\n      restartPolicy: Never\n"
    .. "      template: {spec: {containers: [{name: tensorflow, image: tf}]}}\n"
  local function convert(want, text, ...)
    local args = { ... }
    return function()
      local dir = os.tmpname()
      os.remove(dir)
      assert(os.execute("mkdir -p " .. cli.quote(dir)))
      local p = dir .. "/in.yaml"
      local f = assert(io.open(p, "wb"))
      f:write(text)
      f:close()
      local code, out, err = cli.kfjob("convert", p, table.unpack(args))
      os.remove(p)
      os.remove(dir)
      if code ~= want or out ~= "" then error(("exit %s, stdout %q"):format(code, out), 0) end
      error((err:match("^[^\n]*"):gsub(dir:gsub("%p", "%%%0") .. "/", "")), 0)
    end
  end
  raising["convert (CLI)"] = {
    { "a kind the target does not run (R24)", convert(1, TF_DOC, "--to", "trainer-2.3"),
      "kfjob: in.yaml: document 1: kfjob.TFJob: kind: a TFJob cannot be expressed: Trainer v2 has no TensorFlow runtime and does not "
        .. "generate TF_CONFIG (target trainer-2.3; rule R24: trainer manifests/base/runtimes (no TF runtime, "
        .. "no generic MPI runtime; TensorFlow deprioritized: trainer#2699))" },
    -- beside a refusal that changes what runs (R21: images differ), the
    -- restart policy is reported as a refusal too, --lossy or not (SPEC §17)
    { "a restart policy Trainer cannot hold beside another refusal, --lossy too (R13)",
      convert(1, TF_DOC:gsub("TFJob", "PyTorchJob"):gsub("tfReplicaSpecs:\n    Worker", "pytorchReplicaSpecs:\n"
        .. "    Master:\n      replicas: 1\n      restartPolicy: OnFailure\n"
        .. "      template: {spec: {containers: [{name: pytorch, image: pt}]}}\n    Worker", 1)
        :gsub("name: tensorflow", "name: pytorch"), "--to", "trainer-2.3", "--lossy"),
      "kfjob: in.yaml: document 1: kfjob.PyTorchJob: spec.pytorchReplicaSpecs.Master.restartPolicy: 'on_failure' cannot be expressed: a TrainJob has no restart "
        .. "policy (the runtime's JobSet failurePolicy decides); leave it unset or never (target trainer-2.3; "
        .. "rule R13: trainer trainjob_types.go (no restart policy field))" },
    { "another kind", convert(1, "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"),
      "in.yaml: kfjob.from_manifest: apiVersion v1, kind Service: not a kind kfjob reads (supported: "
        .. "kubeflow.org/v1 TFJob, PyTorchJob, MPIJob, JAXJob, XGBoostJob or PaddleJob; kubeflow.org/v2beta1 "
        .. "MPIJob; trainer.kubeflow.org/v1alpha1 TrainJob; "
      .. "jobset.x-k8s.io/v1alpha2 JobSet (a Flyte 2 clustered task))" },
    { "a field kfjob cannot hold, without --lossy",
      convert(1, (TF_DOC:gsub("spec:\n", "spec:\n  successPolicy: AllWorkers\n", 1))),
      "kfjob: in.yaml: document 1: spec.successPolicy: kfjob cannot hold this field (value \"AllWorkers\")" },
    { "an unknown output format", convert(2, TF_DOC, "-f", "confg"),
      "kfjob: convert: unknown format 'confg' (did you mean 'config'?)" },
    { "an unknown target", convert(2, TF_DOC, "--to", "operater"),
      "kfjob: convert: --to: unknown target 'operater' (did you mean 'operator'?)" },
    -- a data config (no apiVersion): render's reader, its line and path
    { "a data config with an unknown field", convert(1, "kind: PyTorchJob\nworker: {replcas: 2}\n", "-f", "lua"),
      "worker.replcas: unknown field (did you mean 'replicas'?)" },
  }
end

describe("bad input", function()
  local categories = {}
  for name in pairs(raising) do categories[#categories + 1] = name end
  table.sort(categories)
  for _, name in ipairs(categories) do
    describe(name, function()
      for _, row in ipairs(raising[name]) do
        local what, fn, message = row[1], row[2], row[3]
        if row.bug then
          pending(("%s -- BUG: %s"):format(what, row.bug), function() assert.has_error(fn, message) end)
        else
          it(what, function() assert.has_error(fn, message) end)
        end
      end
    end)
  end

  describe("kfjob.decode returns nil, message", function()
    for _, row in ipairs(decoding) do
      local what, task_type, bytes, opts, message = row[1], row[2], row[3], row[4], row[5]
      if row.bug then
        pending(("%s -- BUG: %s"):format(what, row.bug), function()
          assert.same({ n = 2, nil, message }, pack(kfjob.decode(task_type, bytes, opts)))
        end)
      else
        it(what, function()
          assert.same({ n = 2, nil, message }, pack(kfjob.decode(task_type, bytes, opts)))
        end)
      end
    end
  end)
end)
